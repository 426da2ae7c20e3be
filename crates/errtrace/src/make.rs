//! Making errors at a location: [`Error::new`], [`Error::from_errno`], [`Error::at_location`]
//! (and so `Err(EINVAL)?` and every `From` conversion of a foreign error). Emission layer:
//! with `+p` on the location's site, each error made there prints a line, like `err!` without a
//! message; otherwise making one is the storage layer's `Error::make` and one relaxed load.

use crate::code::{Code, InvalidErrno};
use crate::error::Error;
use crate::site::{flags, SiteRef};
use core::panic::Location;
use core::sync::atomic::Ordering;

impl Error {
    /// Makes an error with `code`, recording the caller's location as its origin.
    ///
    /// # Examples
    ///
    /// ```
    /// let e = errtrace::Error::new(errtrace::code::ENOMEM);
    /// assert_eq!(e.origin().line, line!() - 1);
    /// e.handled();
    /// ```
    #[track_caller]
    #[inline]
    pub fn new(code: Code) -> Error {
        Error::at_location(code, Location::caller())
    }

    /// Makes an error from an errno in the kernel's negative convention or positive.
    ///
    /// # Errors
    ///
    /// [`InvalidErrno`] for 0 or a magnitude above 4095: never silently `EINVAL`.
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::{code, Error};
    /// let e = Error::from_errno(-5).unwrap();
    /// assert_eq!(e.code(), code::EIO);
    /// e.handled();
    /// assert!(Error::from_errno(0).is_err());
    /// ```
    #[track_caller]
    #[inline]
    pub fn from_errno(errno: i32) -> core::result::Result<Error, InvalidErrno> {
        let code = Code::from_errno(errno)?;
        Ok(Error::at_location(code, Location::caller()))
    }

    /// Makes an error whose origin is `loc`. With `+p` on the location's site, every error made
    /// there prints a line (its origin and code), as `err!` without a message does.
    #[inline]
    pub fn at_location(code: Code, loc: &'static Location<'static>) -> Error {
        let site = crate::site::at_location(loc);
        let e = Error::make(code, site, Some(loc));
        if site.state().flags(Ordering::Relaxed) & flags::PRINT_ON != 0 {
            return made_slow(e, site);
        }
        e
    }
}

/// An error made at a location site with `+p`: its making traced as `err!` without a message
/// traces it (by value in and out, so the caller keeps the error in a register). The line does
/// not count as logging the error: dropped unhandled, it still warns.
#[cold]
#[inline(never)]
fn made_slow(e: Error, site: SiteRef) -> Error {
    // Not dropped if the sink panics (a second report while unwinding).
    let e = core::mem::ManuallyDrop::new(e);
    crate::emit::trace_made(&e, site);
    core::mem::ManuallyDrop::into_inner(e)
}
