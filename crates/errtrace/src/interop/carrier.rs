//! Error types that can carry an errtrace [`Error`] inside them: where `#[errtrace::trace]`
//! records the hop of a `?` that converts into one of them.
//!
//! A `?` in a function that returns `anyhow::Result`, `io::Result`, `Result<_, Box<dyn Error>>`
//! or a user's own error type converts the operand's error with `From`, and an errtrace error
//! may then travel inside the converted one. `#[trace]` converts as `?` would, asks the result
//! for the errtrace error it carries ([`Carrier::errtrace_mut`]) and records the hop there. A
//! function whose error type is not a `Carrier` is refused at compile time, naming the trait:
//! the attribute never compiles to nothing.

use crate::error::Error;

/// An error type that may carry an errtrace [`Error`]: `#[errtrace::trace]` records a hop in it
/// at each `?` of a function that returns `Result<_, Self>`.
///
/// Implemented for [`Traced<E>`](crate::Traced), and with `std` for `std::io::Error` and
/// `Box<dyn Error (+ Send (+ Sync))>` (the errtrace error they were made from), with the
/// `anyhow` feature for `anyhow::Error` (the errtrace error it wraps, also under a `.context`).
/// For your own error enum, give the variant that holds one:
///
/// ```
/// use errtrace::code::EIO;
/// use errtrace::{err, Carrier, Error};
///
/// #[derive(Debug)]
/// enum AppError {
///     Device(Error),
///     Config(&'static str),
/// }
/// impl From<Error> for AppError {
///     fn from(e: Error) -> Self {
///         AppError::Device(e)
///     }
/// }
/// impl Carrier for AppError {
///     fn errtrace_mut(&mut self) -> Option<&mut Error> {
///         match self {
///             AppError::Device(e) => Some(e),
///             AppError::Config(_) => None,
///         }
///     }
/// }
///
/// fn read() -> errtrace::Result<u32> {
///     Err(err!(EIO))
/// }
/// #[errtrace::trace]
/// fn start() -> Result<u32, AppError> {
///     Ok(read()? + 1) // a hop here, in the error the AppError carries
/// }
/// match start() {
///     Err(AppError::Device(e)) => {
///         assert_eq!(e.event().unwrap().hops().count(), 1);
///         e.handled();
///     }
///     _ => unreachable!(),
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[errtrace::trace]` cannot record a hop in `{Self}`: it is no `errtrace::Carrier`",
    label = "the `?`s of this function convert into `{Self}`",
    note = "the attribute records hops in functions that return `errtrace::Result`, `io::Result`, `anyhow::Result` (errtrace's `anyhow` feature), `Result<_, Box<dyn Error>>` or `Result<_, errtrace::Traced<E>>`",
    note = "for your own error type, implement `errtrace::Carrier` (give the variant that holds an `errtrace::Error`); else remove the attribute: no `?` here carries an errtrace error"
)]
pub trait Carrier {
    /// The errtrace error this value carries, if it carries one.
    fn errtrace_mut(&mut self) -> Option<&mut Error>;
}

#[cfg(feature = "std")]
mod std_impls {
    use super::{Carrier, Error};
    use std::boxed::Box;
    use std::error::Error as StdError;

    /// The errtrace error in a type-erased error: itself, or the one an `io::Error` carries
    /// (`?` boxes an `io::Result`'s error as it is).
    pub(super) fn in_dyn<'a>(e: &'a mut (dyn StdError + 'static)) -> Option<&'a mut Error> {
        if e.is::<Error>() {
            return e.downcast_mut::<Error>();
        }
        e.downcast_mut::<std::io::Error>()?.errtrace_mut()
    }

    impl Carrier for Box<dyn StdError + Send + Sync + 'static> {
        fn errtrace_mut(&mut self) -> Option<&mut Error> {
            in_dyn(&mut **self)
        }
    }

    impl Carrier for Box<dyn StdError + Send + 'static> {
        fn errtrace_mut(&mut self) -> Option<&mut Error> {
            in_dyn(&mut **self)
        }
    }

    impl Carrier for Box<dyn StdError + 'static> {
        fn errtrace_mut(&mut self) -> Option<&mut Error> {
            in_dyn(&mut **self)
        }
    }

    impl Carrier for std::io::Error {
        fn errtrace_mut(&mut self) -> Option<&mut Error> {
            self.get_mut()?.downcast_mut::<Error>()
        }
    }
}

#[cfg(feature = "anyhow")]
impl Carrier for anyhow::Error {
    fn errtrace_mut(&mut self) -> Option<&mut Error> {
        if self.is::<Error>() {
            return self.downcast_mut::<Error>();
        }
        self.downcast_mut::<std::io::Error>()?.errtrace_mut()
    }
}
