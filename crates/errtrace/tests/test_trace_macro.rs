//! `#[errtrace::trace]`: a hop at every `?` of the function's own body.
#![cfg(feature = "macros")]

use errtrace::{code::EIO, err, Error};

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

// ---- every `?` that compiles without the attribute compiles with it (before, `#[trace]` pinned the operand's error type, and these failed with E0271) ----

#[errtrace::trace]
fn narrow(len: usize) -> errtrace::Result<u8> {
    Ok(len.try_into()?)
}

#[errtrace::trace]
fn parse_then_narrow(s: &str) -> errtrace::Result<u8> {
    let n: u32 = s.parse()?;
    Ok(n.try_into()?)
}

#[errtrace::trace]
fn io_result(path: &str) -> std::io::Result<u8> {
    let n: u32 = path.len().try_into().map_err(std::io::Error::other)?;
    Ok(u8::try_from(n).map_err(std::io::Error::other)?)
}

#[errtrace::trace]
fn generic<E: From<core::num::TryFromIntError> + errtrace::Carrier>(n: u32) -> Result<u8, E> {
    Ok(n.try_into()?)
}

#[errtrace::trace]
fn opaque(n: u32) -> errtrace::Result<impl core::fmt::Debug> {
    let v = leaf()?;
    Ok(v + n)
}

#[test]
fn inferred_operands_compile_and_convert_at_the_question_mark() {
    let e = narrow(300).unwrap_err();
    assert_eq!(e.code(), errtrace::code::EINVAL);
    assert_eq!(e.origin().line, line!() - 30, "origin at the `?`");
    assert_eq!(e.event().unwrap().hops().count(), 0, "made there: no hop");
    e.handled();
    let e = parse_then_narrow("x").unwrap_err();
    #[cfg(feature = "std")]
    assert_eq!(e.detail(), Some("invalid digit found in string"));
    e.handled();
    parse_then_narrow("300").unwrap_err().handled();
    assert_eq!(parse_then_narrow("7").ok(), Some(7));
    assert!(io_result("abc").is_ok());
    let g: Result<u8, Box<dyn std::error::Error + Send + Sync>> = generic(300);
    assert!(g.is_err());
    opaque(1).unwrap_err().handled();
}

#[test]
fn errtrace_errors_still_hop_at_each_question_mark() {
    let e = outer().unwrap_err();
    assert_eq!(e.event().unwrap().hops().count(), 2);
    e.handled();
    let e = opaque(1).unwrap_err();
    assert_eq!(
        e.event().unwrap().hops().count(),
        1,
        "the older rewrite too"
    );
    e.handled();
}
