//! The error value: an errno that knows where it was made and which way it went. Value layer:
//! the type, its bits and what can be read from them alone. Making errors, hops and their end
//! are in `lifecycle.rs` (storage layer); reports in `report.rs`; `Drop` in `emit.rs`.

use crate::code::Code;
use core::num::NonZeroU64;

/// `core::result::Result` with errtrace's [`Error`], defaulting to `()` like the kernel's.
pub type Result<T = (), E = Error> = core::result::Result<T, E>;

pub(crate) const CODE_MASK: u64 = 0xFFF;
/// A log decision was made for this error (printed, or held back by its policy): nobody prints it
/// again, and dropping it is not "unhandled".
pub(crate) const LOGGED: u64 = 1 << 12;
/// The error keeps a foreign error's text in its slot (freed when it is released).
pub(crate) const DETAIL: u64 = 1 << 14;
/// A record carrying this error was emitted (by its creator, `.log()`, `.not_expected()` or
/// `.or_log()`): it was reported. Always set with `LOGGED`.
pub(crate) const PRINTED: u64 = 1 << 15;
/// An unrecorded error's site id (bits 16..31).
pub(crate) const SITE_SHIFT: u32 = 16;
/// The site ids an unrecorded error keeps (a later site's unrecorded errors keep 0).
pub(crate) const SITE_MASK: u32 = 0x7FFF;
/// A recorded error's hop count (bits 16..31, up to the most a slot counts).
pub(crate) const HOPS_SHIFT: u32 = 16;
/// The bits of the hop count.
pub(crate) const HOPS_MASK: u64 = 0x7FFF << HOPS_SHIFT;
/// The recorder had no free slot: `seq` is meaningless. Above the hop count, so that one
/// comparison of the low 32 bits tells a recorded error's hop count range.
pub(crate) const UNRECORDED: u64 = 1 << 31;
/// One hop in the count.
pub(crate) const HOP_ONE: u64 = 1 << HOPS_SHIFT;
pub(crate) const SEQ_SHIFT: u32 = 32;

/// An errno with its origin and its trail, in 8 bytes.
///
/// - **Code**: a Linux errno ([`code`](crate::code)), so it converts to and from the kernel's
///   `-EINVAL` convention without loss.
/// - **Origin**: every way of making an `Error` records the file, line and column where it was
///   made ([`Error::new`], [`Error::from_errno`], `Err(EINVAL)?`, `From` conversions of foreign
///   errors, and [`err!`](crate::err), which also records the enclosing function).
/// - **Trail**: the hops it took on the way up ([`ResultExt::trace`](crate::ResultExt::trace),
///   [`ResultExt::during`](crate::ResultExt::during), and every `?` of a function marked
///   `#[errtrace::trace]`), kept out of line in the [flight recorder](crate::recorder).
/// - **Never silent**: an error dropped without being handled, logged or returned through a
///   [boundary](crate::boundary()) warns, with its origin and trail (see [`Error::handled`] for
///   the idioms that count as handled).
///
/// Not `Clone`: an error owns its flight-recorder slot and ends exactly once. To keep a copy
/// (in a `#[derive(Clone)]` struct), hold its [`Code`] or its [`Snapshot`](crate::Snapshot)
/// (`e.snapshot()`).
///
/// `size_of::<Error>()` is 8; `Option<Error>` and `Result<(), Error>` are 8 too, and
/// `Result<u64, Error>` is 16 bytes returned in two registers, like a bare errno.
///
/// # Invariants
///
/// Bits 0..12 hold a valid [`Code`] (so the value is never zero); bit 13 is 0; bits 32..64 hold
/// the recorder sequence number, whose slot this error owns while it is live, and bits 16..31
/// the hops it took (at most the most a slot counts), which its slot does not count while it is
/// live; or, when `UNRECORDED` (bit 31) is set, bits 32..64 hold the error's own number among
/// unrecorded errors (never 0) and bits 16..31 its origin site's id (0: beyond the 32767th
/// site).
///
/// # Examples
///
/// ```
/// use errtrace::{code::EIO, err, Error, ResultExt};
///
/// fn read_reg(reg: u32) -> errtrace::Result<u32> {
///     if reg > 0x40 {
///         return Err(err!(EIO));
///     }
///     Ok(reg)
/// }
///
/// fn probe() -> errtrace::Result<u32> {
///     let id = read_reg(0x80).during("reading chip id")?;
///     Ok(id)
/// }
///
/// let e = probe().unwrap_err();
/// assert_eq!(e.code(), EIO);
/// assert_eq!(e.to_errno(), -5);
/// assert!(e.to_string().starts_with("EIO: Input/output error (at "));
/// let report = e.report().to_string();
/// assert!(report.contains("in rust_out::read_reg") || report.contains("read_reg"));
/// assert!(report.contains("\"reading chip id\""));
/// e.handled();
/// ```
#[repr(transparent)]
#[must_use = "an errtrace::Error warns when dropped unhandled: return it, or end it with `.handled()` or `.ignore(\"why\")` (not `let _ =`)"]
pub struct Error(pub(crate) NonZeroU64);

const _: () = assert!(core::mem::size_of::<Error>() == 8);
const _: () = assert!(core::mem::size_of::<Option<Error>>() == 8);
const _: () = assert!(core::mem::size_of::<Result<(), Error>>() == 8);
const _: () = assert!(core::mem::size_of::<Result<u64, Error>>() == 16);

impl Error {
    /// The errno code.
    #[inline]
    pub fn code(&self) -> Code {
        match Code::new((self.0.get() & CODE_MASK) as u16) {
            Some(c) => c,
            None => crate::code::EINVAL,
        }
    }

    /// Whether this error has `code`.
    #[inline]
    pub fn is(&self, code: Code) -> bool {
        self.code() == code
    }

    /// The kernel's convention: the negative errno (`EIO` → `-5`). Does not consume the error;
    /// see [`boundary`](crate::boundary()) to hand an error back as an errno.
    #[inline]
    pub fn to_errno(&self) -> i32 {
        self.code().to_errno()
    }

    /// The code's name (`"EIO"`).
    pub fn name(&self) -> &'static str {
        self.code().name()
    }

    /// The code's description (`"Input/output error"`).
    pub fn description(&self) -> &'static str {
        self.code().description()
    }

    /// The handle of this error's event in the recorder (`None` when it was not recorded):
    /// the low 32 bits of its sequence number, which the error's bits hold.
    pub(crate) fn handle(&self) -> Option<u32> {
        if self.0.get() & UNRECORDED != 0 {
            None
        } else {
            Some((self.0.get() >> SEQ_SHIFT) as u32)
        }
    }

    /// An unrecorded error's site id.
    pub(crate) fn site_index(&self) -> u32 {
        ((self.0.get() >> SITE_SHIFT) as u32) & SITE_MASK
    }

    #[inline]
    pub(crate) fn mark_logged(&mut self) {
        self.set_bits(LOGGED);
    }

    #[inline]
    pub(crate) fn set_bits(&mut self, bits: u64) {
        if let Some(v) = NonZeroU64::new(self.0.get() | bits) {
            self.0 = v;
        }
    }

    /// A copy of the raw bits, for the probes and tests.
    #[doc(hidden)]
    pub fn __bits(&self) -> u64 {
        self.0.get()
    }
}

impl PartialEq<Code> for Error {
    fn eq(&self, other: &Code) -> bool {
        self.code() == *other
    }
}

/// Two errors are equal when their codes are: what an error *is* is its code; its origin and
/// trail are where it came from. So `assert_eq!(read(), Ok(7))` compiles and compares. To
/// compare a failure with a code, compare the code (`assert_eq!(e, EIO)`, or
/// [`ResultExt::into_code_result`](crate::ResultExt::into_code_result) for a whole result):
/// building an `Error` only to compare it would make an error that is then dropped unhandled.
impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        self.code() == other.code()
    }
}

impl Eq for Error {}
