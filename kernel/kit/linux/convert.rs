// SPDX-License-Identifier: GPL-2.0
//! Between `kernel::error::Error` and errtrace: [`from_kernel`] and
//! [`KernelResultExt::errtrace`] (kernel → errtrace, with the origin at the caller), [`to_kernel`]
//! (an errtrace code → kernel, after `errtrace::boundary` where errors leave the driver).
//!
//! There is no `From` between the two types (both are foreign here), so `?` cannot silently
//! turn one into the other: an errtrace error leaves only through a boundary or
//! [`crate::probe`].

use core::panic::Location;
use errtrace::code::Code;
use kernel::error::Error;

/// `kernel::error::Error` → `errtrace::Error`, with the origin at the call of this function.
///
/// Call it: `.map_err(|e| from_kernel(e))` records the line of the closure, while
/// `.map_err(from_kernel)` would record a line inside `core` (a function passed by name is
/// called by `map_err`, and `#[track_caller]` sees that caller). [`KernelResultExt::errtrace`]
/// has no such trap: prefer `result.errtrace()?`.
#[track_caller]
pub fn from_kernel(e: Error) -> errtrace::Error {
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
            Err(e) => Err(from_kernel(e)),
        }
    }
}
