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
//! | `std::io::Error` (`std`) | its raw OS error if it is an errno, else `EIO` |
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
    /// The raw OS error when it is an errno, else `EIO`; the origin is the conversion.
    #[track_caller]
    fn from(e: std::io::Error) -> Error {
        let c = e
            .raw_os_error()
            .and_then(|n| code::Code::from_errno(n).ok())
            .unwrap_or(code::EIO);
        drop(e);
        Error::new(c)
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    /// An `io::Error` from the raw OS error; the errtrace error counts as handled (its report is
    /// formatted into nothing: the `io::Error` carries the code on).
    fn from(e: Error) -> std::io::Error {
        let c = e.into_code();
        std::io::Error::from_raw_os_error(i32::from(c.get()))
    }
}
