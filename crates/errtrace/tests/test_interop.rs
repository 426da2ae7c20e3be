//! An errtrace error that leaves through `std::io::Error`, `Box<dyn Error>` or anyhow keeps its
//! story: reachable by downcast, printed with origin and trail by the usual formatting, warned
//! about when dropped unreported, and not warned about once printed.
//!
//! Each test here failed before `From<Error> for io::Error` carried the error and `Error::source`
//! gave error-chain printers the trail: the `io::Error` held only the raw errno
//! ("Input/output error (os error 5)", no origin, no trail, no warning when dropped) and anyhow's
//! `{:#}`/`{:?}` printed one line without the trail.
#![cfg(feature = "testing")]

use errtrace::code::{EIO, ENOENT};
use errtrace::sink::RecordKind;
use errtrace::testing::{self, Capture};
use errtrace::{err, Error, ResultExt};
use std::io;

fn setup() -> Capture {
    testing::capture()
}

fn unhandled(cap: &Capture) -> Vec<String> {
    cap.take()
        .into_iter()
        .filter(|c| c.kind == RecordKind::Unhandled)
        .map(|c| c.text)
        .collect()
}

fn fail() -> errtrace::Result<u32> {
    Err(err!(EIO))
}

fn as_io() -> io::Result<u32> {
    Ok(fail().during("reading the id")?)
}

#[test]
fn io_error_dropped_unreported_warns_with_origin_and_trail() {
    let cap = setup();
    let _ = as_io();
    let w = unhandled(&cap);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].starts_with(
            "EIO (-5) dropped unhandled, last seen at crates/errtrace/tests/test_interop.rs:"
        ),
        "{}",
        w[0]
    );
    assert!(w[0].contains("origin: crates/errtrace/tests/test_interop.rs:"));
    assert!(w[0].contains("in test_interop::fail"), "{}", w[0]);
    assert!(w[0].contains("\"reading the id\""), "{}", w[0]);
}

#[test]
fn io_error_keeps_the_error_and_its_story() {
    let cap = setup();
    let io = as_io().unwrap_err();
    assert_eq!(io.kind(), io::Error::from_raw_os_error(5).kind());
    let line = io.to_string();
    assert!(
        line.starts_with("EIO: Input/output error (at crates/errtrace/tests/test_interop.rs:"),
        "{line}"
    );
    let inner = io.get_ref().and_then(|r| r.downcast_ref::<Error>());
    assert_eq!(inner.map(Error::code), Some(EIO));
    // `{:#}` is the full report, and counts as reporting: no warning when dropped after it.
    let report = format!("{io:#}");
    assert!(
        report.starts_with("error EIO (-5): Input/output error"),
        "{report}"
    );
    assert!(report.contains("via:    crates/errtrace/tests/test_interop.rs:"));
    assert!(report.contains("\"reading the id\""), "{report}");
    drop(io);
    assert!(unhandled(&cap).is_empty());
}

#[test]
fn io_error_kind_follows_the_errno() {
    let _cap = setup();
    let io: io::Error = Error::new(ENOENT).into();
    assert_eq!(io.kind(), io::ErrorKind::NotFound);
    Error::from(io).handled();
}

#[test]
fn back_from_io_error_is_the_same_error_with_a_hop() {
    let cap = setup();
    fn up() -> errtrace::Result<u32> {
        Ok(as_io()?)
    }
    let e = up().unwrap_err();
    assert_eq!(e.code(), EIO);
    assert!(e.origin().function.is_some_and(|f| f.ends_with("fail")));
    let hops: Vec<_> = e.event().unwrap().hops().collect();
    assert_eq!(hops.len(), 2, "{hops:?}");
    assert_eq!(hops[0].message, Some("reading the id"));
    assert_eq!(hops[1].location.file(), file!());
    e.handled();
    assert!(unhandled(&cap).is_empty());
}

fn as_boxed() -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
    Ok(fail().during("reading the id")?)
}

#[test]
fn boxed_error_keeps_its_story() {
    let cap = setup();
    let b = as_boxed().unwrap_err();
    assert!(b.downcast_ref::<Error>().is_some());
    // `{}` of the box is the label, and the source is the rest of the story.
    let source = b.source().map(|s| s.to_string()).unwrap_or_default();
    assert!(
        source.starts_with("in test_interop::fail; via "),
        "{source}"
    );
    assert!(source.contains("\"reading the id\""), "{source}");
    drop(b);
    // Printing the source printed the whole story.
    assert!(unhandled(&cap).is_empty());
    let _ = as_boxed();
    assert_eq!(unhandled(&cap).len(), 1);
}

#[test]
fn boxed_error_debug_as_main_prints_it_and_it_does_not_warn() {
    let cap = setup();
    let b = as_boxed().unwrap_err();
    // What `main() -> Result<(), Box<dyn Error>>` prints.
    let printed = format!("Error: {b:?}");
    assert!(printed.contains("origin: crates/errtrace/tests/test_interop.rs:"));
    assert!(printed.contains("\"reading the id\""), "{printed}");
    drop(b);
    assert!(unhandled(&cap).is_empty());
}

fn as_anyhow() -> anyhow::Result<u32> {
    let v = fail().during("reading the id")?;
    Ok(v)
}

fn anyhow_with_context() -> anyhow::Result<u32> {
    use anyhow::Context as _;
    as_anyhow().context("loading the sensor")
}

#[test]
fn anyhow_alternate_display_shows_the_trail() {
    let cap = setup();
    let a = anyhow_with_context().unwrap_err();
    let line = format!("{a:#}");
    assert!(
        line.starts_with("loading the sensor: EIO: Input/output error (at "),
        "{line}"
    );
    assert!(
        line.contains(": in test_interop::fail; via crates/errtrace/tests/test_interop.rs:"),
        "{line}"
    );
    assert!(line.contains("\"reading the id\""), "{line}");
    assert!(a.downcast_ref::<Error>().is_some());
    drop(a);
    assert!(unhandled(&cap).is_empty());
}

#[test]
fn anyhow_debug_shows_the_trail() {
    let cap = setup();
    let a = as_anyhow().unwrap_err();
    let text = format!("{a:?}");
    assert!(text.starts_with("EIO: Input/output error (at "), "{text}");
    assert!(text.contains("Caused by:"), "{text}");
    assert!(text.contains("\"reading the id\""), "{text}");
    drop(a);
    assert!(unhandled(&cap).is_empty());
}

// ---- anyhow in `main` ----

/// What `main` prints for `a`: `Error: {a:?}`, without the backtrace anyhow adds when
/// `RUST_BACKTRACE` is set.
fn as_main_prints(a: &anyhow::Error) -> String {
    let text = format!("Error: {a:?}");
    match text.split_once("\n\nStack backtrace:") {
        Some((before, _)) => before.to_string(),
        None => text,
    }
}

fn logged_by_its_creator() -> errtrace::Result<u32> {
    Err(err!(EIO, "read of reg {:#x} failed", 0x10))
}

fn probe() -> errtrace::Result<u32> {
    logged_by_its_creator().during("reading chip id")
}

/// `fn main() -> anyhow::Result<()>` can end with `boundary(..)?`: the boundary's error is a
/// `Code`, a standard error (before, `?` did not compile: `Code` was not one).
fn main_with_a_boundary() -> anyhow::Result<u32> {
    let id = errtrace::boundary("probe", probe())?;
    Ok(id)
}

#[test]
fn anyhow_main_takes_a_boundary() {
    let cap = setup();
    let a = main_with_a_boundary().unwrap_err();
    assert_eq!(a.downcast_ref::<errtrace::code::Code>(), Some(&EIO));
    assert_eq!(as_main_prints(&a), "Error: EIO: Input/output error");
    // The creator's line, and nothing from the boundary (already reported).
    let records = cap.take();
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0].kind, RecordKind::Created);
}

fn main_without_a_boundary() -> anyhow::Result<u32> {
    let id = probe()?;
    Ok(id)
}

/// anyhow's `main` prints `Error: {:?}`: for an errtrace error its creator already logged, one
/// line saying where (as errtrace's own `main` does), not the story again without its message
/// (before: the label, then "Caused by:" and the trail).
#[test]
fn anyhow_main_prints_an_already_reported_error_in_one_line() {
    let cap = setup();
    let a = main_without_a_boundary().unwrap_err();
    let printed = as_main_prints(&a);
    let origin = printed
        .split("(at ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .unwrap()
        .to_string();
    assert!(
        origin.starts_with("crates/errtrace/tests/test_interop.rs:"),
        "{printed}"
    );
    assert_eq!(
        printed,
        format!("Error: EIO: Input/output error (at {origin}), already reported at {origin}")
    );
    assert!(!printed.contains('\n'), "{printed}");
    drop(a);
    assert!(unhandled(&cap).is_empty());
}

#[test]
fn anyhow_error_dropped_unreported_warns() {
    let cap = setup();
    let a = as_anyhow().unwrap_err();
    // The label alone is not a report.
    let _label = a.to_string();
    drop(a);
    let w = unhandled(&cap);
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(w[0].contains("\"reading the id\""), "{}", w[0]);
}

/// Nothing to add, no cause: anyhow's chain would print a cause that says nothing (before, it
/// printed `1: no hops`).
#[test]
fn source_of_an_error_without_hops_or_function() {
    let _cap = setup();
    let e = Error::new(EIO);
    assert!(std::error::Error::source(&e).is_none());
    e.handled();
}

/// The user's case: `File::open` failing, `?` into errtrace (no `#[trace]`, so no hop), then
/// anyhow's `.context()`: the chain is the context and the error's one line, nothing more.
#[test]
fn anyhow_chain_of_an_io_error_without_hops() {
    use anyhow::Context as _;
    let _cap = setup();
    fn open() -> errtrace::Result<std::fs::File> {
        Ok(std::fs::File::open("/nonexistent/errtrace/config")?)
    }
    let a = open().context("loading config").unwrap_err();
    let chain: Vec<String> = a.chain().map(|c| c.to_string()).collect();
    assert_eq!(chain.len(), 2, "{chain:#?}");
    assert_eq!(chain[0], "loading config");
    assert!(
        chain[1].starts_with("ENOENT: No such file or directory (at "),
        "{chain:#?}"
    );
    let text = format!("{a:?}");
    assert!(!text.contains("no hops"), "{text}");
}

/// errtrace's `.during()` and anyhow's `.context()` in one scope, on one `errtrace::Result`
/// (before, errtrace's method was also called `context`, and every call was
/// ambiguous, E0034, with both traits imported).
#[test]
fn during_and_anyhow_context_live_side_by_side() {
    use anyhow::Context as _;
    use errtrace::ResultExt as _;
    let _cap = setup();
    let r: anyhow::Result<u32> = fail()
        .during("reading the id")
        .context("loading the sensor");
    let a = r.unwrap_err();
    let text = format!("{a:#}");
    assert!(text.starts_with("loading the sensor: EIO: "), "{text}");
    assert!(text.contains("\"reading the id\""), "{text}");
}
