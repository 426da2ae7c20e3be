//! Conversions from foreign errors, each recording its origin at the `?` or call that
//! converts, and with `std` keeping the foreign error's text ([`Error::detail`]); the general
//! escape [`WithCode::with_code`] for any other error; and, with `std`, both ways between
//! `std::io::Error` and [`Error`] (`interop/io.rs`).
//!
//! | from | code |
//! |---|---|
//! | `ParseIntError`, `ParseBoolError`, `ParseCharError`, `AddrParseError` | `EINVAL` |
//! | `Utf8Error`, `CharTryFromError`, `DecodeUtf16Error`, `TryFromIntError`, `TryFromSliceError` | `EINVAL` |
//! | [`core::fmt::Error`], [`InvalidErrno`] | `EINVAL` |
//! | `ParseFloatError`, `FromUtf8Error`, `FromUtf16Error`, `NulError`, `IntoStringError` (`std`) | `EINVAL` |
//! | `TryReserveError` (`std`) | `ENOMEM` |
//! | `std::io::Error` (`std`) | the errtrace error it carries (with a hop there), else its raw OS error, else the errno of its [`kind`](std::io::ErrorKind) (`NotFound` → `ENOENT`, …; `EIO` for `Other`) |
//! | anything else that is `Display`: [`WithCode::with_code`] | the code you give |
//!
//! The core conversions exist without `std` too (without the text).
//!
//! # Examples
//!
//! ```
//! use errtrace::code::EINVAL;
//! fn parse(b: &[u8]) -> errtrace::Result<u8> {
//!     let s = core::str::from_utf8(b)?;          // Utf8Error -> EINVAL, origin here
//!     let v: u8 = s.trim().parse()?;             // ParseIntError -> EINVAL
//!     Ok(v)
//! }
//! let e = parse(&[0xff]).unwrap_err();
//! assert_eq!(e.code(), EINVAL);
//! assert_eq!(e.origin().line, line!() - 6);
//! e.handled();
//! let e = parse(b"300").unwrap_err();
//! assert_eq!(e.detail(), Some("number too large to fit in target type"));
//! e.handled();
//! ```

mod carrier;
#[cfg(feature = "std")]
mod io;
mod traced;
pub use carrier::Carrier;
#[cfg(feature = "std")]
pub use io::errno_of_kind;
pub use traced::{Coded, Traced};

use crate::code::{self, Code, InvalidErrno};
use crate::error::Error;
use core::panic::Location;

/// The error made for a foreign `e`: `code`, origin at `loc`, and with `std` `e`'s text.
#[inline(never)]
fn foreign<E: core::fmt::Display + ?Sized>(
    e: &E,
    code: Code,
    loc: &'static Location<'static>,
) -> Error {
    #[allow(unused_mut)]
    let mut err = core::mem::ManuallyDrop::new(Error::at_location(code, loc));
    // (Held in `ManuallyDrop`: if formatting the text unwound, the new error would not be
    // dropped on the way, so it would not report itself as dropped unhandled.)
    #[cfg(feature = "std")]
    keep_text(&mut err, e);
    #[cfg(not(feature = "std"))]
    let _ = e;
    core::mem::ManuallyDrop::into_inner(err)
}

/// Formats `e` into a bounded stack buffer (no allocation while formatting) and keeps it as
/// the error's detail.
#[cfg(feature = "std")]
#[inline(never)]
fn keep_text<E: core::fmt::Display + ?Sized>(err: &mut Error, e: &E) {
    use core::fmt::Write as _;
    /// Up to `DETAIL_MAX` bytes; the rest is dropped at a character boundary.
    struct Bounded {
        buf: [u8; 256],
        len: usize,
    }
    impl core::fmt::Write for Bounded {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            for ch in s.chars() {
                let mut b = [0u8; 4];
                let bytes = ch.encode_utf8(&mut b).as_bytes();
                let end = self.len.saturating_add(bytes.len());
                let Some(dst) = self.buf.get_mut(self.len..end) else {
                    return Err(core::fmt::Error);
                };
                for (d, s) in dst.iter_mut().zip(bytes) {
                    *d = *s;
                }
                self.len = end;
            }
            Ok(())
        }
    }
    let mut b = Bounded {
        buf: [0; 256],
        len: 0,
    };
    let _ = write!(b, "{e}");
    let text = b.buf.get(..b.len).unwrap_or(&[]);
    if let Ok(text) = core::str::from_utf8(text) {
        err.set_detail(text);
    }
}

macro_rules! convert {
    ($($ty:ty => $code:ident),* $(,)?) => {$(
        impl From<$ty> for Error {
            #[doc = concat!("`", stringify!($code), "`, with the origin at the conversion (and, \
                with `std`, the foreign error's text as the [`detail`](Error::detail)).")]
            #[track_caller]
            #[inline]
            fn from(e: $ty) -> Error {
                foreign(&e, code::$code, Location::caller())
            }
        }
    )*};
}

convert! {
    core::num::TryFromIntError => EINVAL,
    core::num::ParseIntError => EINVAL,
    core::str::ParseBoolError => EINVAL,
    core::str::Utf8Error => EINVAL,
    core::char::ParseCharError => EINVAL,
    core::char::CharTryFromError => EINVAL,
    core::char::DecodeUtf16Error => EINVAL,
    core::array::TryFromSliceError => EINVAL,
    core::net::AddrParseError => EINVAL,
    core::fmt::Error => EINVAL,
    InvalidErrno => EINVAL,
}

#[cfg(feature = "std")]
convert! {
    std::collections::TryReserveError => ENOMEM,
    // In `core` too, but the kernel builds `core` without float parsing.
    std::num::ParseFloatError => EINVAL,
    std::string::FromUtf8Error => EINVAL,
    std::string::FromUtf16Error => EINVAL,
    std::ffi::NulError => EINVAL,
    std::ffi::IntoStringError => EINVAL,
}

/// `?` on any error: gives a foreign error the code you choose.
///
/// The orphan rule lets only errtrace write `From<TheirError> for errtrace::Error`; for the
/// errors it does not cover, `result.with_code(EINVAL)?` converts at the call, which becomes the
/// origin; with `std` the foreign error's text is kept as the [`detail`](Error::detail) and
/// printed in reports. An errtrace error passed through it keeps its own code and story (the
/// call is a hop).
///
/// # Examples
///
/// ```
/// use errtrace::{code::EINVAL, WithCode};
///
/// #[derive(Debug)]
/// struct BadMagic(u32);
/// impl core::fmt::Display for BadMagic {
///     fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
///         write!(f, "bad magic {:#x}", self.0)
///     }
/// }
/// fn check(m: u32) -> Result<(), BadMagic> {
///     if m == 0x5a { Ok(()) } else { Err(BadMagic(m)) }
/// }
/// fn probe() -> errtrace::Result {
///     check(0x42).with_code(EINVAL)?;
///     Ok(())
/// }
/// let e = probe().unwrap_err();
/// assert_eq!(e.code(), EINVAL);
/// assert_eq!(e.detail(), Some("bad magic 0x42"));
/// e.handled();
/// ```
pub trait WithCode<T> {
    /// The error as an errtrace error with `code`, its origin at the caller.
    #[track_caller]
    fn with_code(self, code: Code) -> crate::Result<T>;
}

impl<T, E: core::fmt::Display + 'static> WithCode<T> for core::result::Result<T, E> {
    #[track_caller]
    #[inline]
    fn with_code(self, code: Code) -> crate::Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(with_code_at(e, code, Location::caller())),
        }
    }
}

/// `e` as an errtrace error: itself (with a hop) if it is one, else a new one with `code`.
fn with_code_at<E: core::fmt::Display + 'static>(
    e: E,
    code: Code,
    loc: &'static Location<'static>,
) -> Error {
    let mut held = Some(e);
    let any: &mut dyn core::any::Any = &mut held;
    if let Some(own) = any.downcast_mut::<Option<Error>>().and_then(Option::take) {
        let mut own = own;
        own.hop_at(loc, None);
        return own;
    }
    match held {
        Some(e) => foreign(&e, code, loc),
        // Not reached: only an errtrace error is taken out above.
        None => Error::at_location(code, loc),
    }
}
