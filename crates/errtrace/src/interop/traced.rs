//! Your own error value with errtrace's origin and trail beside it: [`Traced<E>`].

use super::Carrier;
use crate::code::Code;
use crate::error::Error;
use core::fmt;
use core::panic::Location;

/// What code an error value of your own stands for, so that `?` can turn it into a
/// [`Traced`] (or [`Traced::new`] be called without one).
///
/// ```
/// use errtrace::code::{Code, EINVAL, ENOENT};
///
/// #[derive(Debug)]
/// enum ConfigError {
///     Missing(&'static str),
///     Invalid { key: &'static str },
/// }
/// impl errtrace::Coded for ConfigError {
///     fn code(&self) -> Code {
///         match self {
///             ConfigError::Missing(_) => ENOENT,
///             ConfigError::Invalid { .. } => EINVAL,
///         }
///     }
/// }
/// # use errtrace::Coded as _;
/// assert_eq!(ConfigError::Missing("port").code(), ENOENT);
/// ```
pub trait Coded {
    /// The errno this value stands for.
    fn code(&self) -> Code;
}

/// Your error value `E` and an errtrace [`Error`] beside it: the value stays yours (match it,
/// [`Deref`](core::ops::Deref) to it, downcast to `Traced<E>` through `anyhow`), the error
/// gives it an origin, a trail, the recorder, the boundary and the drop check. 8 bytes more
/// than `E`; nothing allocated.
///
/// - `?` on a `Result<_, E>` (`E: Coded + Display`) in a function returning
///   `Result<_, Traced<E>>` makes one, with its origin at that `?`;
/// - `#[errtrace::trace]` records a hop at each `?` it passes (it is a [`Carrier`]);
/// - `?` into an `errtrace::Result` gives the errtrace error on (the value's text is its
///   [`detail`](Error::detail) with `std`);
/// - its `Display` is the value's; its [`source`](core::error::Error::source) is the errtrace
///   error, whose line and trail an error-chain printer (anyhow's `{:?}`) then shows;
/// - dropped without [`handled`](Traced::handled) or [`into_parts`](Traced::into_parts), it warns
///   like any unhandled errtrace error.
///
/// ```
/// use errtrace::code::{Code, ENOENT};
/// use errtrace::{Coded, Traced};
///
/// #[derive(Debug, PartialEq)]
/// enum ConfigError {
///     Missing(&'static str),
/// }
/// impl core::fmt::Display for ConfigError {
///     fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
///         match self {
///             ConfigError::Missing(key) => write!(f, "no `{key}` in the config"),
///         }
///     }
/// }
/// impl Coded for ConfigError {
///     fn code(&self) -> Code {
///         ENOENT
///     }
/// }
///
/// fn lookup(key: &'static str) -> Result<u16, ConfigError> {
///     Err(ConfigError::Missing(key))
/// }
/// #[errtrace::trace]
/// fn port() -> Result<u16, Traced<ConfigError>> {
///     Ok(lookup("port")?) // made here: the origin
/// }
/// #[errtrace::trace]
/// fn start() -> Result<u16, Traced<ConfigError>> {
///     Ok(port()? + 1) // a hop
/// }
///
/// let e = start().unwrap_err();
/// assert_eq!(*e, ConfigError::Missing("port")); // the value, as made
/// assert_eq!(e.code(), ENOENT);
/// assert_eq!(e.error().event().unwrap().hops().count(), 1);
/// assert_eq!(e.to_string(), "no `port` in the config");
/// let value: ConfigError = e.handled();
/// assert!(matches!(value, ConfigError::Missing("port")));
/// ```
#[must_use = "a Traced warns when dropped unhandled: return it, or end it with `.handled()`"]
pub struct Traced<E> {
    value: E,
    error: Error,
}

impl<E> Traced<E> {
    /// `value`, standing for `code`, with its origin at the caller; with `std` the value's text
    /// is the error's [`detail`](Error::detail).
    #[track_caller]
    pub fn new(value: E, code: Code) -> Self
    where
        E: fmt::Display,
    {
        let error = super::foreign(&value, code, Location::caller());
        Traced { value, error }
    }

    /// `value` with an errtrace error that already exists (its origin and trail go on).
    pub fn with_error(value: E, error: Error) -> Self {
        Traced { value, error }
    }

    /// The value.
    pub fn value(&self) -> &E {
        &self.value
    }

    /// The errtrace error: its code, origin, trail and report.
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The code.
    pub fn code(&self) -> Code {
        self.error.code()
    }

    /// The value and the errtrace error, each yours to end.
    pub fn into_parts(self) -> (E, Error) {
        (self.value, self.error)
    }

    /// Ends the errtrace error as handled (no message, no warning) and gives the value back.
    pub fn handled(self) -> E {
        self.error.handled();
        self.value
    }
}

impl<E> core::ops::Deref for Traced<E> {
    type Target = E;
    fn deref(&self) -> &E {
        &self.value
    }
}

impl<E: Coded + fmt::Display> From<E> for Traced<E> {
    /// The value with a new errtrace error of its code, its origin at the `?` (or the call).
    #[track_caller]
    fn from(value: E) -> Self {
        let code = value.code();
        Traced::new(value, code)
    }
}

impl<E> From<Traced<E>> for Error {
    /// The errtrace error goes on (the value ends here; its text is the error's detail).
    fn from(t: Traced<E>) -> Error {
        t.error
    }
}

impl<E> Carrier for Traced<E> {
    fn errtrace_mut(&mut self) -> Option<&mut Error> {
        Some(&mut self.error)
    }
}

impl<E: fmt::Display> fmt::Display for Traced<E> {
    /// The value's text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

impl<E: fmt::Debug> fmt::Debug for Traced<E> {
    /// The value's `Debug`, then the errtrace error's report (origin and trail): what
    /// `fn main() -> Result<(), Traced<E>>` prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}\n{:?}", self.value, self.error)
    }
}

#[cfg(feature = "std")]
impl<E: fmt::Debug + fmt::Display> core::error::Error for Traced<E> {
    /// The errtrace error: its line, then its trail.
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}
