//! The macros reach the standard macros through `::core` (issue 12, item 4): before, `err!`
//! called an unqualified `format_args!` and `file!`/`line!`, so a user macro of that name
//! changed what errtrace recorded and printed.
#![cfg(feature = "std")]
#![allow(unused_macros)]

mod common;
use common::Capture;

macro_rules! format_args {
    ($($t:tt)*) => {
        ::core::format_args!("hijacked")
    };
}
macro_rules! file {
    () => {
        "hijacked.rs"
    };
}
macro_rules! line {
    () => {
        0
    };
}

static CAPTURE: Capture = Capture::new();

#[test]
fn user_macros_named_like_std_ones_do_not_change_err() {
    let _ = errtrace::sink::set_sink(&CAPTURE);
    CAPTURE.take();
    let e = errtrace::err!(EIO, "read of reg {:#x} failed", 0x10);
    let o = e.origin();
    e.handled();
    assert!(o.file.ends_with("test_macro_hygiene.rs"), "{}", o.file);
    assert!(o.line > 0);
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0]
            .text
            .starts_with("read of reg 0x10 failed: EIO (-5) at "),
        "{}",
        lines[0].text
    );
    assert_eq!(point().ok(), Some(1));
}

fn point() -> errtrace::Result<u8> {
    errtrace::fail_point!("hygiene_point");
    Ok(1)
}

mod names {
    /// A constant of the user's own with an errno's name (and another value).
    pub const ENODEV: errtrace::code::Code = errtrace::code::EPERM;
}
use names::ENODEV as MY_ENODEV;

/// How `err!` reads a code name, as documented: a bare name is errtrace's code, a path or any
/// other expression is evaluated as written, local variables come first.
#[test]
fn code_names_resolve_as_documented() {
    let e = errtrace::err!(ENODEV);
    assert_eq!(e.code(), errtrace::code::ENODEV);
    e.handled();
    let e = errtrace::err!(names::ENODEV);
    assert_eq!(
        e.code(),
        errtrace::code::EPERM,
        "a path is the user's constant"
    );
    e.handled();
    let e = errtrace::err!(MY_ENODEV);
    assert_eq!(e.code(), errtrace::code::EPERM);
    e.handled();
    let code = errtrace::code::EBUSY;
    let e = errtrace::err!(code);
    assert_eq!(e.code(), errtrace::code::EBUSY, "a local variable");
    e.handled();
}
