//! `#[errtrace::trace]` in functions that return another error type: each `?` that carries an
//! errtrace error into it (an `io::Error`, a `Box<dyn Error>`, an `anyhow::Error`, a user's enum)
//! records its hop there. Before, such a function compiled and recorded no hop at all.

#![cfg(all(feature = "std", feature = "macros"))]

use errtrace::code::EIO;
use errtrace::{err, Carrier, Error};
use std::error::Error as StdError;
use std::io;

fn leaf() -> errtrace::Result<u32> {
    Err(err!(EIO))
}

fn hops_of(e: &Error) -> Vec<u32> {
    e.event()
        .unwrap()
        .hops()
        .map(|h| h.location.line())
        .collect()
}

#[errtrace::trace]
fn through_io() -> io::Result<u32> {
    Ok(leaf()? + 1)
}
const IO_LINE: u32 = line!() - 2;

#[errtrace::trace]
fn through_box() -> Result<u32, Box<dyn StdError + Send + Sync>> {
    Ok(through_io()? + 1) // an io::Error boxed as it is: the errtrace error inside it
}
const BOX_LINE: u32 = line!() - 2;

#[test]
fn io_and_box_record_the_hops_of_the_error_they_carry() {
    let mut b = through_box().unwrap_err();
    let e = b.errtrace_mut().expect("the errtrace error inside");
    assert_eq!(e.code(), EIO);
    assert_eq!(hops_of(e), [IO_LINE, BOX_LINE]);
    // Out of the box and the io::Error (with a hop there), and handled.
    Error::from(*b.downcast::<io::Error>().unwrap()).handled();
}

#[derive(Debug, thiserror::Error)]
enum AppError {
    #[error("device failed")]
    Device(#[from] Error),
    #[error("bad config")]
    Config,
}

impl Carrier for AppError {
    fn errtrace_mut(&mut self) -> Option<&mut Error> {
        match self {
            AppError::Device(e) => Some(e),
            AppError::Config => None,
        }
    }
}

#[errtrace::trace]
fn start() -> Result<u32, AppError> {
    let v = leaf()?;
    Ok(v + 1)
}
const START_LINE: u32 = line!() - 3;

#[errtrace::trace]
fn service() -> Result<u32, AppError> {
    if false {
        return Err(AppError::Config);
    }
    Ok(start()? + 1)
}
const SERVICE_LINE: u32 = line!() - 2;

#[test]
fn a_users_enum_records_the_hops_of_its_errtrace_variant() {
    match service() {
        Err(AppError::Device(e)) => {
            assert_eq!(hops_of(&e), [START_LINE, SERVICE_LINE]);
            e.handled();
        }
        other => panic!("{other:?}"),
    }
}

#[cfg(feature = "anyhow")]
mod with_anyhow {
    use super::*;
    use anyhow::Context as _;

    #[errtrace::trace]
    fn load() -> anyhow::Result<u32> {
        Ok(leaf()? + 1)
    }
    const LOAD_LINE: u32 = line!() - 2;

    #[errtrace::trace]
    fn main_like() -> anyhow::Result<u32> {
        let n: u32 = "7".parse()?; // a foreign error: nothing to hop, inference as without
        Ok(load().context("loading config")? + n)
    }
    const MAIN_LINE: u32 = line!() - 2;

    #[test]
    fn anyhow_records_the_hops_also_under_a_context() {
        let mut a = main_like().unwrap_err();
        let e = a.errtrace_mut().unwrap();
        assert_eq!(hops_of(e), [LOAD_LINE, MAIN_LINE]);
        let text = format!("{a:?}");
        assert!(text.contains("loading config"), "{text}");
        assert!(
            text.contains(&format!(
                "via crates/errtrace/tests/test_carrier.rs:{LOAD_LINE}:"
            )),
            "{text}"
        );
        a.downcast::<Error>().unwrap().handled();
    }
}
