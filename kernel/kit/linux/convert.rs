// SPDX-License-Identifier: GPL-2.0
//! Between `kernel::error::Error` and errtrace: [`KernelResultExt::errtrace`] and
//! [`from_kernel!`](crate::from_kernel) (kernel → errtrace, with the origin at the call),
//! [`to_kernel`] (an errtrace code → kernel, after `errtrace::boundary` where errors leave the
//! driver).
//!
//! The conversion into errtrace is not a function: a `#[track_caller]` function passed by name
//! (`.map_err(from_kernel)`) is called by `map_err`, inside `core`, and would record that line
//! as every error's origin. As a method or a macro it cannot be passed: `.map_err(from_kernel)`
//! does not compile, `.map_err(|e| from_kernel!(e))` records the closure's line, and
//! `result.errtrace()?` the line of the call.
//!
//! There is no `From` between the two types (both are foreign here), so `?` cannot silently
//! turn one into the other: an errtrace error leaves only through a boundary or
//! [`crate::probe`].

use core::panic::Location;
use errtrace::code::Code;
use kernel::error::Error;

/// `kernel::error::Error` → `errtrace::Error`, with the origin at the caller (what
/// [`from_kernel!`](crate::from_kernel) expands to; not public, so that it cannot be passed).
#[doc(hidden)]
#[track_caller]
pub fn __from_kernel(e: Error) -> errtrace::Error {
    let code = Code::from_errno(e.to_errno()).unwrap_or(errtrace::code::EINVAL);
    errtrace::Error::at_location(code, Location::caller())
}

/// `errtrace::code::Code` → `kernel::error::Error` (the same errno).
pub fn to_kernel(code: Code) -> Error {
    Error::from_errno(code.to_errno())
}

/// Kernel results into errtrace results.
pub trait KernelResultExt<T> {
    /// The kernel error as an `errtrace::Error` whose origin is this call.
    #[track_caller]
    fn errtrace(self) -> errtrace::Result<T>;
}

impl<T> KernelResultExt<T> for Result<T, Error> {
    #[track_caller]
    fn errtrace(self) -> errtrace::Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(__from_kernel(e)),
        }
    }
}

/// `kernel::error::Error` → `errtrace::Error`, whose origin is the line of the macro:
/// `.map_err(|e| from_kernel!(e))`.
#[macro_export]
macro_rules! from_kernel {
    ($e:expr) => {
        $crate::__from_kernel($e)
    };
}
