//! What to keep of an error in a value that must be `Clone`: a [`Snapshot`]. Storage layer (it reads the error's origin).
//!
//! An [`Error`] is not `Clone`: it owns its flight-recorder slot (the trail) and it must end
//! exactly once (handled, logged, returned through a boundary, or warned about when dropped).
//! Two copies would mean two ends. A struct that derives `Clone` (a device's last failure, a
//! cached result, a test's expectation) holds what it needs of the error instead:
//!
//! - its [`Code`], when only the code matters (`e.code()`, `Copy`, the kernel's own errno);
//! - its [`Snapshot`]: the code, the origin and the recorder sequence number, `Copy` and
//!   comparable, which prints the error's one line and still finds the trail in the recorder
//!   while the event is there ([`recorder::read`](crate::recorder::read)).

use crate::code::Code;
use crate::error::Error;
use crate::site::Origin;

/// A copy of what identifies an error: code, origin and recorder sequence number. `Copy`,
/// `Eq`, and printable as the error's one line.
///
/// # Examples
///
/// ```
/// use errtrace::{code::EIO, Error, Snapshot};
///
/// #[derive(Clone, Debug)]
/// struct Device {
///     last_failure: Option<Snapshot>,
/// }
///
/// let e = Error::new(EIO);
/// let dev = Device { last_failure: Some(e.snapshot()) };
/// e.handled();
/// let copy = dev.clone();
/// let s = copy.last_failure.unwrap();
/// assert_eq!(s.code(), EIO);
/// assert!(s.to_string().starts_with("EIO: Input/output error (at "));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    code: Code,
    origin: Origin,
    seq: Option<u64>,
}

impl Snapshot {
    /// The code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// Where the error was made.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The recorder sequence number of the error's event (its trail, while the recorder still
    /// holds it: [`recorder::read`](crate::recorder::read)); `None` when it was not recorded.
    pub fn seq(&self) -> Option<u64> {
        self.seq
    }
}

impl Error {
    /// A `Copy` of what identifies this error, to keep where an `Error` cannot go (a
    /// `#[derive(Clone)]` struct); see [`Snapshot`].
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            code: self.code(),
            origin: self.origin(),
            seq: self.seq(),
        }
    }
}

impl PartialEq<Code> for Snapshot {
    fn eq(&self, other: &Code) -> bool {
        self.code == *other
    }
}
