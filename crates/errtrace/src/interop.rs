//! Conversions from foreign errors (each recording its origin at the `?` or call that converts)
//! and, with `std`, to and from `std::io::Error`.
//!
//! | from | code |
//! |---|---|
//! | [`core::num::TryFromIntError`] | `EINVAL` |
//! | [`core::str::Utf8Error`] | `EINVAL` |
//! | [`core::fmt::Error`] | `EINVAL` |
//! | [`InvalidErrno`](crate::code::InvalidErrno) | `EINVAL` |
//! | `std::collections::TryReserveError` (`std`) | `ENOMEM` |
//! | `std::io::Error` (`std`) | the errtrace error it carries (with a hop there), else its raw OS error if it is an errno, else `EIO` |
//!
//! # Examples
//!
//! ```
//! use errtrace::code::EINVAL;
//! fn parse(b: &[u8]) -> errtrace::Result<u8> {
//!     let s = core::str::from_utf8(b)?;          // Utf8Error -> EINVAL, origin here
//!     let v: u8 = u8::try_from(s.len() as u32)?; // TryFromIntError -> EINVAL
//!     Ok(v)
//! }
//! let e = parse(&[0xff]).unwrap_err();
//! assert_eq!(e.code(), EINVAL);
//! assert_eq!(e.origin().line, line!() - 6);
//! e.handled();
//! ```

use crate::code::{self, InvalidErrno};
use crate::error::Error;

macro_rules! convert {
    ($($ty:ty => $code:ident),* $(,)?) => {$(
        impl From<$ty> for Error {
            #[doc = concat!("`", stringify!($code), "`, with the origin at the conversion.")]
            #[track_caller]
            #[inline]
            fn from(_: $ty) -> Error {
                Error::new(code::$code)
            }
        }
    )*};
}

convert! {
    core::num::TryFromIntError => EINVAL,
    core::str::Utf8Error => EINVAL,
    core::fmt::Error => EINVAL,
    InvalidErrno => EINVAL,
}

#[cfg(feature = "std")]
convert! {
    std::collections::TryReserveError => ENOMEM,
}

#[cfg(feature = "std")]
impl From<std::io::Error> for Error {
    /// An `io::Error` that carries an errtrace error (made by `From<Error> for io::Error`) gives
    /// it back, story and all, with a hop at the conversion. Any other: the raw OS error when it
    /// is an errno, else `EIO`, with the origin at the conversion.
    #[track_caller]
    fn from(e: std::io::Error) -> Error {
        use core::mem::ManuallyDrop;
        // Owned values are held in `ManuallyDrop` across calls, and dropped only where nothing
        // else is owned: no destructor runs on an unwinding path here.
        let mut e = ManuallyDrop::new(e);
        let carried = ManuallyDrop::new(
            e.get_mut()
                .and_then(|inner| inner.downcast_mut::<Error>())
                .map(Error::take_out),
        );
        let raw = e.raw_os_error();
        drop(ManuallyDrop::into_inner(e));
        match ManuallyDrop::into_inner(carried) {
            Some(inner) => inner.hopped_at(core::panic::Location::caller()),
            None => Error::new(
                raw.and_then(|n| code::Code::from_errno(n).ok())
                    .unwrap_or(code::EIO),
            ),
        }
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    /// An `io::Error` that carries the errtrace error on, so nothing of its story is lost:
    ///
    /// - its [`kind`](std::io::Error::kind) is the errno's (`ENOENT` → `NotFound`);
    /// - it prints as the error does: one line with `{}`, the whole report with `{:#}`;
    /// - the errtrace error is reachable with `get_ref()`/`into_inner()` and `downcast`, and
    ///   `?` back into an `errtrace::Result` takes it out again (with a hop there);
    /// - dropped without being reported, it warns like the error itself would.
    ///
    /// `raw_os_error()` is `None` (the payload is the errtrace error, not an OS code): read the
    /// code with `errtrace::Error::from(io_error).code()` or from the payload.
    ///
    /// ```
    /// use errtrace::{code::ENOENT, Error};
    /// fn open() -> std::io::Result<u32> {
    ///     let r: errtrace::Result<u32> = Err(Error::new(ENOENT));
    ///     Ok(r?)
    /// }
    /// let io = open().unwrap_err();
    /// assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    /// assert!(io.to_string().starts_with("ENOENT: No such file or directory (at "));
    /// let back = Error::from(io);
    /// assert_eq!(back.code(), ENOENT);
    /// back.handled();
    /// ```
    fn from(e: Error) -> std::io::Error {
        // The kind std gives the errno; an OS-code `io::Error` owns nothing, so not dropping it
        // loses nothing and keeps drops out of this function's unwinding paths.
        let os = core::mem::ManuallyDrop::new(std::io::Error::from_raw_os_error(i32::from(
            e.code().get(),
        )));
        let kind = os.kind();
        std::io::Error::new(kind, e)
    }
}
