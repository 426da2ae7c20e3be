//! `#[errtrace::trace]`: a hop at every `?` of the function's own body.
#![cfg(feature = "macros")]

use errtrace::{err, Error};

fn leaf() -> errtrace::Result<u32> {
    Err(err!(EIO))
}

#[errtrace::trace]
fn two_hops() -> errtrace::Result<u32> {
    let a = leaf()?;
    Ok(a)
}

#[errtrace::trace]
fn outer() -> errtrace::Result<u32> {
    let v = two_hops()?;
    Ok(v)
}

#[errtrace::trace]
fn mixed(o: Option<u32>) -> Option<u32> {
    // `?` on an Option is left as it is.
    let v = o?;
    Some(v + 1)
}

#[errtrace::trace]
fn foreign(s: &str) -> errtrace::Result<u32> {
    // `?` on a foreign Result converts (origin here) and records no hop of its own.
    let v: u32 = s
        .parse::<u32>()
        .map_err(|_| Error::new(errtrace::code::EINVAL))?;
    Ok(v)
}

#[errtrace::trace]
fn closure_not_rewritten() -> errtrace::Result<u32> {
    let f = || -> errtrace::Result<u32> { leaf() };
    #[allow(clippy::needless_question_mark)]
    let inner = || -> errtrace::Result<u32> { Ok(f()?) };
    let v = inner()?;
    Ok(v)
}

struct Dev;

impl Dev {
    #[errtrace::trace]
    fn method(&self) -> errtrace::Result<u32> {
        Ok(leaf()? + 1)
    }
}

fn line_containing(needle: &str) -> u32 {
    include_str!("test_trace_macro.rs")
        .lines()
        .position(|l| l.contains(needle))
        .unwrap() as u32
        + 1
}

#[test]
fn every_question_mark_records_its_location() {
    let e = outer().unwrap_err();
    let ev = e.event().unwrap();
    let hops: Vec<_> = ev.hops().collect();
    assert_eq!(hops.len(), 2);
    assert_eq!(hops[0].location.line(), line_containing("let a = leaf()?;"));
    assert_eq!(
        hops[1].location.line(),
        line_containing("let v = two_hops()?;")
    );
    // The column is the `?` itself.
    let col = include_str!("test_trace_macro.rs")
        .lines()
        .find(|l| l.contains("let a = leaf()?;"))
        .unwrap()
        .find('?')
        .unwrap() as u32
        + 1;
    assert_eq!(hops[0].location.column(), col);
    e.handled();
}

#[test]
fn options_and_foreign_results_still_work() {
    assert_eq!(mixed(Some(1)), Some(2));
    assert_eq!(mixed(None), None);
    assert_eq!(foreign("7").ok(), Some(7));
    let e = foreign("x").unwrap_err();
    assert_eq!(e.event().unwrap().total_hops(), 1);
    e.handled();
}

#[test]
fn closures_are_left_alone() {
    let e = closure_not_rewritten().unwrap_err();
    // Only the `?` in the function's own body records a hop; the one in the closure does not.
    let hops: Vec<_> = e.event().unwrap().hops().collect();
    assert_eq!(hops.len(), 1);
    assert_eq!(
        hops[0].location.line(),
        line_containing("let v = inner()?;")
    );
    e.handled();
}

#[test]
fn methods() {
    let e = Dev.method().unwrap_err();
    assert_eq!(e.event().unwrap().total_hops(), 1);
    e.handled();
}

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
