//! A user's own error value with an origin and a trail: `Traced<E>`. Before it, the only way
//! to give a thiserror enum an origin was `WithCode::with_code`, after which the variant could
//! be neither matched nor downcast.

#![cfg(all(feature = "std", feature = "macros"))]

use errtrace::code::{Code, EINVAL, ENOENT};
use errtrace::{Coded, Error, Traced};

#[derive(Debug, PartialEq, thiserror::Error)]
enum ConfigError {
    #[error("no `{0}` in the config")]
    Missing(&'static str),
    #[error("`{key}` is not a number")]
    Invalid { key: &'static str },
}

impl Coded for ConfigError {
    fn code(&self) -> Code {
        match self {
            ConfigError::Missing(_) => ENOENT,
            ConfigError::Invalid { .. } => EINVAL,
        }
    }
}

fn lookup(key: &'static str) -> Result<&'static str, ConfigError> {
    match key {
        "port" => Ok("80x"),
        _ => Err(ConfigError::Missing(key)),
    }
}

#[errtrace::trace]
fn port() -> Result<u16, Traced<ConfigError>> {
    let text = lookup("port")?;
    text.parse()
        .map_err(|_| Traced::new(ConfigError::Invalid { key: "port" }, EINVAL))
}
const MADE_LINE: u32 = line!() - 2;

#[errtrace::trace]
fn user() -> Result<&'static str, Traced<ConfigError>> {
    Ok(lookup("user")?)
}
const USER_LINE: u32 = line!() - 2;

#[errtrace::trace]
fn start() -> Result<u16, Traced<ConfigError>> {
    let _ = user().map_err(Traced::handled);
    Ok(port()? + 1)
}
const START_LINE: u32 = line!() - 2;

#[test]
fn the_value_stays_matchable_with_an_origin_and_a_trail() {
    let e = start().unwrap_err();
    assert_eq!(
        *e,
        ConfigError::Invalid { key: "port" },
        "Deref to the value"
    );
    assert!(matches!(e.value(), ConfigError::Invalid { .. }));
    assert_eq!(e.code(), EINVAL);
    assert_eq!(e.error().origin().line, MADE_LINE);
    let hops: Vec<u32> = e
        .error()
        .event()
        .unwrap()
        .hops()
        .map(|h| h.location.line())
        .collect();
    assert_eq!(hops, [START_LINE]);
    assert_eq!(e.to_string(), "`port` is not a number");
    assert_eq!(e.handled(), ConfigError::Invalid { key: "port" });
    assert_eq!(
        core::mem::size_of::<Traced<ConfigError>>(),
        core::mem::size_of::<ConfigError>() + 8
    );
}

#[test]
fn question_mark_on_the_value_makes_the_origin_there() {
    let e = user().unwrap_err();
    assert_eq!(e.code(), ENOENT);
    assert_eq!(e.error().origin().line, USER_LINE, "made at the `?`");
    assert_eq!(e.error().event().unwrap().hops().count(), 0);
    #[cfg(feature = "std")]
    assert_eq!(e.error().detail(), Some("no `user` in the config"));
    e.handled();
}

#[errtrace::trace]
fn into_errtrace() -> errtrace::Result<u16> {
    Ok(port()? + 2)
}
const INTO_LINE: u32 = line!() - 2;

#[test]
fn question_mark_into_an_errtrace_result_carries_the_error_on() {
    let e: Error = into_errtrace().unwrap_err();
    assert_eq!(e.code(), EINVAL);
    assert_eq!(e.origin().line, MADE_LINE);
    let hops: Vec<u32> = e
        .event()
        .unwrap()
        .hops()
        .map(|h| h.location.line())
        .collect();
    assert_eq!(hops, [INTO_LINE]);
    e.handled();
}

#[test]
fn anyhow_downcasts_to_the_value_and_prints_the_trail() {
    fn main_like() -> anyhow::Result<u16> {
        Ok(start()?)
    }
    let a = main_like().unwrap_err();
    let t = a.downcast_ref::<Traced<ConfigError>>().expect("downcast");
    assert!(matches!(**t, ConfigError::Invalid { key: "port" }));
    let chain = format!("{a:?}");
    assert!(chain.starts_with("`port` is not a number"), "{chain}");
    assert!(chain.contains("EINVAL: Invalid argument (at "), "{chain}");
    assert!(
        chain.contains(&format!("test_traced.rs:{START_LINE}:")),
        "{chain}"
    );
    a.downcast::<Traced<ConfigError>>().unwrap().handled();
}

/// A value made outside any traced function and never passed on: its cause's line is the
/// detail alone, with no separator left dangling after it (a new user's anyhow chain ended in
/// `…in the config; `).
#[test]
fn a_cause_without_a_trail_ends_with_its_detail() {
    use std::error::Error as _;
    let t = Traced::new(ConfigError::Missing("port"), ENOENT);
    let cause = t
        .source()
        .expect("the errtrace error")
        .source()
        .map(|s| s.to_string());
    assert_eq!(cause.as_deref(), Some("no `port` in the config"));
    t.handled();
}
