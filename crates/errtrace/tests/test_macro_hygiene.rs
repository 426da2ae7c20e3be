//! The macros reach the standard macros through `::core`: before, `err!`
//! called an unqualified `format_args!` and `file!`/`line!`, so a user macro of that name
//! changed what errtrace recorded and printed.
#![cfg(feature = "std")]
#![allow(unused_macros)]

mod common;
use common::Capture;
use errtrace::code::EIO;

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

/// The code is an expression resolved where the user writes it: the user's own
/// constant named like an errno is the user's, not shadowed by errtrace's; an import of
/// errtrace's code is what `err!` uses (this file denies unused imports, so an import that the
/// macro bypassed would fail the build); local variables and paths work as anywhere else.
mod resolution {
    #![deny(unused_imports)]
    use errtrace::code::{EBUSY, EIO};

    const ENODEV: errtrace::code::Code = super::names::ENODEV;

    #[test]
    fn the_users_constant_is_not_shadowed() {
        let e = errtrace::err!(ENODEV);
        assert_eq!(e.code(), errtrace::code::EPERM, "the user's const ENODEV");
        e.handled();
        let e = errtrace::err!(once, ENODEV, "with a message");
        assert_eq!(e.code(), errtrace::code::EPERM);
        e.handled();
    }

    #[test]
    fn an_imported_code_is_used() {
        let e = errtrace::err!(EIO);
        assert_eq!(e.code(), errtrace::code::EIO);
        e.handled();
    }

    #[test]
    fn paths_and_locals_are_expressions() {
        let e = errtrace::err!(errtrace::code::ENOENT);
        assert_eq!(e.code(), errtrace::code::ENOENT);
        e.handled();
        let e = errtrace::err!(super::names::ENODEV);
        assert_eq!(e.code(), errtrace::code::EPERM);
        e.handled();
        let code = EBUSY;
        let e = errtrace::err!(code);
        assert_eq!(e.code(), errtrace::code::EBUSY, "a local variable");
        e.handled();
    }
}

/// A stand-in for the kernel crate: its prelude brings its own codes into scope (a
/// `kernel::error::Error` with `to_errno()`), which kernel code returns as `Err(EINVAL)`.
mod kernel {
    #[derive(Clone, Copy)]
    pub struct Error(i32);
    impl Error {
        pub fn to_errno(self) -> i32 {
            self.0
        }
    }
    pub mod prelude {
        pub const EINVAL: super::Error = super::Error(-22);
        pub const EBUSY: super::Error = super::Error(-16);
        pub const BOGUS: super::Error = super::Error(-5000);
    }
}

/// In kernel code, `err!` takes the kernel prelude's codes as they are: the same errno.
mod kernel_code {
    use super::kernel::prelude::*;

    #[test]
    fn the_kernel_preludes_codes_are_accepted() {
        let e = errtrace::err!(EINVAL, "bad argument");
        assert_eq!(e.code(), errtrace::code::EINVAL);
        e.handled();
        let e = errtrace::err!(quiet, EBUSY);
        assert_eq!(e.code(), errtrace::code::EBUSY);
        e.handled();
        let e = errtrace::err!(BOGUS);
        assert_eq!(e.code(), errtrace::code::EINVAL, "not an errno: EINVAL");
        e.handled();
    }
}
