//! Extension methods on `Result`: record hops, add context, log once, and the non-panicking
//! replacement for `.expect()`.

use crate::emit::Unexpected;
use crate::error::{Error, Result};
use crate::raw::LOGGED_HERE;
use crate::sink::{ErrorMessage, RecordKind};
use core::fmt;
use core::panic::Location;

/// Methods on `errtrace::Result<T>`.
///
/// # Examples
///
/// ```
/// use errtrace::{code::EIO, err, ResultExt};
///
/// fn read() -> errtrace::Result<u8> { Err(err!(EIO)) }
/// fn probe() -> errtrace::Result<u8> {
///     let a = read().trace()?;                       // records a hop
///     let b = read().during("reading the id")?;     // a hop with a message
///     Ok(a + b)
/// }
/// let e = probe().unwrap_err();
/// assert_eq!(e.event().unwrap().hops().count(), 1);
/// e.handled();
/// ```
pub trait ResultExt<T>: Sized {
    /// Records a hop at the caller (use before `?`).
    #[track_caller]
    fn trace(self) -> Result<T>;

    /// Records a hop at the caller with a static message: what was being done when the error
    /// passed (`read_reg(0x80).during("reading chip id")?`). It shows in the trail as
    /// `via: src/sensor.rs:88:9 "reading chip id"`.
    ///
    /// The name differs from anyhow's and snafu's `.context()` on purpose: both crates'
    /// `Context` traits apply to `errtrace::Result` too (an errtrace `Error` is a standard
    /// error), so a shared name would make every call ambiguous (E0034) in code that imports both.
    #[track_caller]
    fn during(self, message: &'static str) -> Result<T>;

    /// If `Err`, logs `message` with the error at the caller, per the caller's site policy, and
    /// passes the error on. An error that was already logged is not logged again.
    ///
    /// ```
    /// use errtrace::{code::EIO, Error, ResultExt};
    /// fn probe() -> errtrace::Result { Err(Error::new(EIO)).log("while probing") }
    /// let e = probe().unwrap_err();
    /// assert!(e.is_logged());
    /// ```
    #[track_caller]
    fn log(self, message: &'static str) -> Result<T>;

    /// Like [`log`](ResultExt::log) with a message written by `write` (called only if the
    /// message is printed).
    ///
    /// ```
    /// use errtrace::{code::EIO, Error, ResultExt};
    /// let reg = 0x10;
    /// let r: errtrace::Result = Err(Error::new(EIO));
    /// let e = r.log_with(|e, f| write!(f, "reg {reg:#x}: {}", e.name())).unwrap_err();
    /// assert!(e.is_logged());
    /// ```
    #[track_caller]
    fn log_with<F>(self, write: F) -> Result<T>
    where
        F: Fn(&Error, &mut fmt::Formatter<'_>) -> fmt::Result;

    /// A retry loop's end: if `Err`, this error is the operation's final failure. Logs `message`
    /// with the error at the caller at error level, at the caller's rate limit (the default,
    /// 10 per 5 s, unless the control language set another; `-p` silences it), whatever the
    /// code's class: a quiet code (`EAGAIN`, `ETIMEDOUT` made quiet, …) is quiet while it is
    /// retried, and said once when it is given up on. An error that was already printed is not
    /// printed again; one held back by its policy (a quiet creator) is.
    ///
    /// Without it, a quiet code that leaves a [boundary](crate::boundary()) is counted there and
    /// not printed: the boundary cannot tell a final `EAGAIN` from one its caller retries.
    ///
    /// ```
    /// use errtrace::{code::EAGAIN, err, ResultExt};
    /// fn poll_ready() -> errtrace::Result { Err(err!(EAGAIN, "chip busy")) } // quiet
    /// fn reset() -> errtrace::Result {
    ///     let mut r = poll_ready();
    ///     for _ in 0..4 {
    ///         if r.is_ok() { break; }
    ///         if let Err(e) = r { e.handled() } // retried: stays quiet
    ///         r = poll_ready();
    ///     }
    ///     r.gave_up("chip still busy after 5 polls")
    /// }
    /// let e = reset().unwrap_err();
    /// assert!(e.is_logged());
    /// e.handled();
    /// ```
    #[track_caller]
    fn gave_up(self, message: &'static str) -> Result<T>;

    /// Instead of `.expect()`: if `Err`, logs "should not fail: `why`" with the full report at
    /// error level (once per site) and passes the error on. Never panics.
    ///
    /// ```
    /// use errtrace::{code::EIO, Error, ResultExt};
    /// fn f() -> errtrace::Result<u8> {
    ///     let v: errtrace::Result<u8> = Err(Error::new(EIO));
    ///     v.not_expected("the register is always readable")
    /// }
    /// assert!(f().unwrap_err().is_logged());
    /// ```
    #[track_caller]
    fn not_expected(self, why: &'static str) -> Result<T>;

    /// Instead of `.expect()` where a fallback exists: if `Err`, logs like
    /// [`not_expected`](ResultExt::not_expected) and returns `fallback`.
    ///
    /// ```
    /// use errtrace::{code::EIO, Error, ResultExt};
    /// let v: errtrace::Result<u32> = Err(Error::new(EIO));
    /// assert_eq!(v.or_log("config is optional", 7), 7);
    /// ```
    #[track_caller]
    fn or_log(self, why: &'static str, fallback: T) -> T;

    /// The result with the error's code in place of the error, which counts as handled: for
    /// assertions (`assert_eq!(parse("x").into_code_result(), Err(EINVAL))`) and for `match`.
    ///
    /// ```
    /// use errtrace::{code::EIO, Error, ResultExt};
    /// let r: errtrace::Result<u32> = Err(Error::new(EIO));
    /// assert_eq!(r.into_code_result(), Err(EIO));
    /// ```
    fn into_code_result(self) -> core::result::Result<T, crate::code::Code>;

    /// The explicit `.ok()`: the error is expected and dealt with by the caller's `None`
    /// branch, so it does not warn when dropped.
    ///
    /// ```
    /// use errtrace::{code::ENOENT, Error, ResultExt};
    /// let v: errtrace::Result<u32> = Err(Error::new(ENOENT));
    /// assert_eq!(v.handled_ok(), None);
    /// ```
    fn handled_ok(self) -> Option<T>;
}

struct WithFn<'a, F>(&'a F);

impl<F> ErrorMessage for WithFn<'_, F>
where
    F: Fn(&Error, &mut fmt::Formatter<'_>) -> fmt::Result,
{
    fn write(&self, e: &Error, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (self.0)(e, f)
    }
}

struct StaticMessage(&'static str);

impl ErrorMessage for StaticMessage {
    fn write(&self, _: &Error, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl<T> ResultExt<T> for Result<T> {
    #[track_caller]
    #[inline]
    fn trace(self) -> Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(mut e) => {
                e.hop_at(Location::caller(), None);
                Err(e)
            }
        }
    }

    #[track_caller]
    #[inline]
    fn during(self, message: &'static str) -> Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(mut e) => {
                e.hop_at(Location::caller(), Some(message));
                Err(e)
            }
        }
    }

    #[track_caller]
    #[inline]
    fn log(self, message: &'static str) -> Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(log_here(
                e,
                Location::caller(),
                &StaticMessage(message),
                Logging::PerPolicy,
            )),
        }
    }

    #[track_caller]
    #[inline]
    fn log_with<F>(self, write: F) -> Result<T>
    where
        F: Fn(&Error, &mut fmt::Formatter<'_>) -> fmt::Result,
    {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(log_here(
                e,
                Location::caller(),
                &WithFn(&write),
                Logging::PerPolicy,
            )),
        }
    }

    #[track_caller]
    #[inline]
    fn gave_up(self, message: &'static str) -> Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(log_here(
                e,
                Location::caller(),
                &StaticMessage(message),
                Logging::Final,
            )),
        }
    }

    #[track_caller]
    #[inline]
    fn not_expected(self, why: &'static str) -> Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(unexpected(
                e,
                Location::caller(),
                why,
                Unexpected::NotExpected,
            )),
        }
    }

    #[track_caller]
    #[inline]
    fn or_log(self, why: &'static str, fallback: T) -> T {
        match self {
            Ok(v) => v,
            Err(e) => {
                unexpected(e, Location::caller(), why, Unexpected::Fallback).dispose();
                fallback
            }
        }
    }

    #[inline]
    fn into_code_result(self) -> core::result::Result<T, crate::code::Code> {
        self.map_err(Error::into_code)
    }

    #[inline]
    fn handled_ok(self) -> Option<T> {
        match self {
            Ok(v) => Some(v),
            Err(e) => {
                e.handled();
                None
            }
        }
    }
}

/// How a `.log()`-like call decides.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Logging {
    /// `.log()`: by the caller's site policy (a quiet code stays quiet); once logged, never again.
    PerPolicy,
    /// `.gave_up()`: the final failure, whatever the code's class; once printed, never again.
    Final,
}

#[inline(never)]
fn log_here(
    e: Error,
    loc: &'static Location<'static>,
    message: &dyn ErrorMessage,
    how: Logging,
) -> Error {
    let done = match how {
        Logging::PerPolicy => e.is_logged(),
        // Held back by its policy is not said: only an error printed before is.
        Logging::Final => e.was_reported(),
    };
    if done {
        return e;
    }
    // Not dropped if the sink panics (see `boundary`).
    let mut e = core::mem::ManuallyDrop::new(e);
    let site = crate::site::at_location(loc);
    site.set_kind(crate::site::SiteKind::Log);
    match how {
        Logging::PerPolicy => crate::emit::log_at(&mut e, site, RecordKind::Logged, Some(message)),
        Logging::Final => crate::emit::log_final(&mut e, site, message),
    }
    if e.was_reported() {
        e.hop_at(loc, Some(LOGGED_HERE));
    }
    core::mem::ManuallyDrop::into_inner(e)
}

#[inline(never)]
fn unexpected(
    e: Error,
    loc: &'static Location<'static>,
    why: &'static str,
    how: Unexpected,
) -> Error {
    // Not dropped if the sink panics (see `boundary`).
    let mut e = core::mem::ManuallyDrop::new(e);
    let site = crate::site::at_location(loc);
    site.set_kind(crate::site::SiteKind::Log);
    if crate::emit::unexpected_at(&mut e, site, loc, why, how) {
        e.hop_at(loc, Some(LOGGED_HERE));
    }
    core::mem::ManuallyDrop::into_inner(e)
}

/// Converts a foreign `Result` into an `errtrace::Result`, recording the caller as the origin.
///
/// `result.map_err(Error::from)` would record a location inside `core` (a function pointer
/// loses `#[track_caller]`); `?` and this method record the right place.
///
/// # Examples
///
/// ```
/// use errtrace::IntoErrtrace;
/// let r: Result<u8, core::num::TryFromIntError> = u8::try_from(300u32);
/// let e = r.into_errtrace().unwrap_err();
/// assert_eq!(e.code(), errtrace::code::EINVAL);
/// assert_eq!(e.origin().line, line!() - 2);
/// e.handled();
/// ```
pub trait IntoErrtrace<T> {
    /// The conversion, with the origin at the caller.
    #[track_caller]
    fn into_errtrace(self) -> Result<T>;
}

impl<T, E> IntoErrtrace<T> for core::result::Result<T, E>
where
    Error: From<E>,
{
    #[track_caller]
    #[inline]
    fn into_errtrace(self) -> Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(Error::from(e)),
        }
    }
}
