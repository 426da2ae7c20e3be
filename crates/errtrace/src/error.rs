//! The error value: an errno that knows where it was made and which way it went.

use crate::code::{Code, InvalidErrno};
use crate::recorder::{Event, Missing, NewEvent, RECORDER};
use crate::site::{Origin, Site, SiteRef, SITES};
use core::mem::ManuallyDrop;
use core::num::NonZeroU64;
use core::panic::Location;

/// `core::result::Result` with errtrace's [`Error`], defaulting to `()` like the kernel's.
pub type Result<T = (), E = Error> = core::result::Result<T, E>;

const CODE_MASK: u64 = 0xFFF;
/// A log decision was made for this error (printed, or held back by its policy): nobody prints it
/// again, and dropping it is not "unhandled".
const LOGGED: u64 = 1 << 12;
/// The recorder had no free slot: `seq` is meaningless.
const UNRECORDED: u64 = 1 << 13;
const SITE_SHIFT: u32 = 16;
const SEQ_SHIFT: u32 = 32;

/// An errno with its origin and its trail, in 8 bytes.
///
/// - **Code**: a Linux errno ([`code`](crate::code)), so it converts to and from the kernel's
///   `-EINVAL` convention without loss.
/// - **Origin**: every way of making an `Error` records the file, line and column where it was
///   made ([`Error::new`], [`Error::from_errno`], `Err(EINVAL)?`, `From` conversions of foreign
///   errors, and [`err!`](crate::err), which also records the enclosing function).
/// - **Trail**: the hops it took on the way up ([`ResultExt::trace`](crate::ResultExt::trace),
///   [`ResultExt::context`](crate::ResultExt::context), and every `?` of a function marked
///   `#[errtrace::trace]`), kept out of line in the [flight recorder](crate::recorder).
/// - **Never silent**: an error dropped without being handled, logged or returned through a
///   [boundary](crate::boundary()) warns, with its origin and trail (see [`Error::handled`] for
///   the idioms that count as handled).
///
/// `size_of::<Error>()` is 8; `Option<Error>` and `Result<(), Error>` are 8 too, and
/// `Result<u64, Error>` is 16 bytes returned in two registers, like a bare errno.
///
/// # Invariants
///
/// Bits 0..12 hold a valid [`Code`] (so the value is never zero); bits 16..32 hold the 1-based
/// site index (0: the site table was full); bits 32..64 the recorder sequence number, whose slot
/// this error owns while it is live (unless `UNRECORDED` is set).
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
///     let id = read_reg(0x80).context("reading chip id")?;
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
#[must_use = "an errtrace::Error warns when dropped unhandled"]
pub struct Error(NonZeroU64);

const _: () = assert!(core::mem::size_of::<Error>() == 8);
const _: () = assert!(core::mem::size_of::<Option<Error>>() == 8);
const _: () = assert!(core::mem::size_of::<Result<(), Error>>() == 8);
const _: () = assert!(core::mem::size_of::<Result<u64, Error>>() == 16);

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

    /// Makes an error whose origin is `loc`.
    #[inline]
    pub fn at_location(code: Code, loc: &'static Location<'static>) -> Error {
        let site = SITES.intern_location(loc);
        Error::make(code, site, Some(loc), None)
    }

    /// Used by the macros: makes an error at a static site.
    #[doc(hidden)]
    #[inline]
    pub fn __at_site(site: &'static Site, code: Code) -> Error {
        let index = site.index();
        Error::make(code, index, None, Some(site))
    }

    #[inline]
    fn make(
        code: Code,
        site: u32,
        loc: Option<&'static Location<'static>>,
        static_site: Option<&'static Site>,
    ) -> Error {
        if let Some(e) = SITES.entry(site) {
            e.state
                .created
                .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            e.state
                .last_code
                .store(u32::from(code.get()), core::sync::atomic::Ordering::Relaxed);
        }
        let (loc, static_site) = if site == 0 {
            (loc, static_site)
        } else {
            (None, None)
        };
        let claimed = RECORDER.claim(NewEvent {
            code,
            site,
            location: loc,
            static_site,
            cpu: crate::platform::cpu_id(),
        });
        let (seq, flags) = match claimed {
            Some(seq) => (seq, 0),
            None => (0, UNRECORDED),
        };
        crate::probe::error(code, site, seq);
        let bits = u64::from(code.get())
            | flags
            | (u64::from(site) << SITE_SHIFT)
            | (u64::from(seq) << SEQ_SHIFT);
        match NonZeroU64::new(bits) {
            Some(v) => Error(v),
            // Unreachable: a Code is never 0.
            None => Error(NonZeroU64::MIN),
        }
    }

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

    /// The recorder sequence number of this error's event (`None` when it was not recorded).
    pub fn seq(&self) -> Option<u32> {
        if self.0.get() & UNRECORDED != 0 {
            None
        } else {
            Some((self.0.get() >> SEQ_SHIFT) as u32)
        }
    }

    pub(crate) fn site_index(&self) -> u32 {
        ((self.0.get() >> SITE_SHIFT) & 0xFFFF) as u32
    }

    /// The origin's entry in the site table (`None` when the table was full).
    pub fn site(&self) -> Option<SiteRef> {
        SiteRef::get(self.site_index())
    }

    /// Where the error was made.
    ///
    /// Known for every error: from the site table, or (when the table was full) from the
    /// recorder's event, which this error owns as long as it exists. Only when both tables were
    /// full is it `<unknown>`.
    pub fn origin(&self) -> Origin {
        if let Some(o) = SITES.origin(self.site_index()) {
            return o;
        }
        if let Ok(ev) = self.event() {
            if let Some(o) = ev.fallback_origin() {
                return o;
            }
        }
        Origin {
            file: "<unknown: site table and recorder full>",
            line: 0,
            column: 0,
            module: None,
            function: None,
            format: None,
        }
    }

    /// This error's event in the flight recorder: its trail.
    ///
    /// # Errors
    ///
    /// [`Missing::Unrecorded`] when the recorder had no free slot when the error was made.
    pub fn event(&self) -> core::result::Result<Event, Missing> {
        match self.seq() {
            Some(seq) => RECORDER.read(seq),
            None => Err(Missing::Unrecorded),
        }
    }

    /// Whether a log decision was made for this error (it was printed, or held back by its
    /// policy). Such an error is not printed again and does not warn when dropped.
    pub fn is_logged(&self) -> bool {
        let bits = self.0.get();
        bits & LOGGED != 0
            || (bits & UNRECORDED == 0 && RECORDER.is_reported((bits >> SEQ_SHIFT) as u32))
    }

    /// Marks the error as reported (its report was formatted).
    pub(crate) fn mark_reported(&self) {
        let bits = self.0.get();
        if bits & (UNRECORDED | LOGGED) == 0 {
            RECORDER.mark_reported((bits >> SEQ_SHIFT) as u32);
        }
    }

    #[inline]
    pub(crate) fn mark_logged(&mut self) {
        self.set_bits(LOGGED);
    }

    #[inline]
    fn set_bits(&mut self, bits: u64) {
        if let Some(v) = NonZeroU64::new(self.0.get() | bits) {
            self.0 = v;
        }
    }

    /// Records a hop at the caller's location.
    #[track_caller]
    #[inline]
    pub fn hop(&mut self) {
        self.hop_at(Location::caller(), None)
    }

    /// `hop_at(location, None)` out of line, for `#[trace]`: the error travels by value in a
    /// register, so the caller's success path neither spills the result nor keeps the hop's
    /// bookkeeping in registers.
    #[inline(always)]
    pub(crate) fn hopped_out_of_line(self, location: &'static Location<'static>) -> Error {
        let this = ManuallyDrop::new(self);
        Error(hop_bits(this.0, location))
    }

    /// Records a hop at `location` with an optional static message.
    #[inline]
    pub fn hop_at(&mut self, location: &'static Location<'static>, message: Option<&'static str>) {
        let bits = self.0.get();
        if bits & UNRECORDED != 0 {
            return;
        }
        let seq = (bits >> SEQ_SHIFT) as u32;
        let n = RECORDER.hop_owned(seq, location, message);
        crate::probe::hop(self.code(), self.site_index(), seq, location);
        // The first hop of this error (the count saturates, never wraps back to 1).
        if n == 1 {
            if let Some(e) = SITES.entry(self.site_index()) {
                e.state
                    .propagated
                    .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// Consumes the error without any message: it was dealt with.
    ///
    /// Dropping an `Error` that was neither handled nor logged warns. These count as handled and
    /// never warn:
    ///
    /// - propagating it (`?`, `return Err(e)`): moving is not dropping;
    /// - [`handled`](Error::handled), [`ignore`](Error::ignore) with a reason;
    /// - [`into_code`](Error::into_code) (to `match` on the code), [`recover`](Error::recover);
    /// - logging it ([`err!`](crate::err) with a message, [`ResultExt::log`](crate::ResultExt::log),
    ///   [`ResultExt::log_with`](crate::ResultExt::log_with), [`ResultExt::or_log`](crate::ResultExt::or_log)),
    ///   even when its policy held the message back;
    /// - returning it through a [`boundary`](crate::boundary()), which reports it if nobody did;
    /// - [`ResultExt::handled_ok`](crate::ResultExt::handled_ok), the explicit form of `.ok()`.
    ///
    /// These are forgetful and do warn: `let _ = f();`, `f().ok();`, `if let Ok(x) = f() {…}`
    /// with no `else`, `drop(e)`, a `match` arm `Err(_) => {}`.
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::{code::EAGAIN, Error};
    /// let e = Error::new(EAGAIN);
    /// e.handled(); // no warning
    /// ```
    #[inline]
    pub fn handled(self) {
        self.dispose();
    }

    /// Consumes the error on purpose, saying why (the reason is for the reader of the code; it
    /// is not printed).
    ///
    /// # Examples
    ///
    /// ```
    /// let e = errtrace::err!(EBUSY);
    /// e.ignore("the device is polled again on the next tick");
    /// ```
    #[inline]
    pub fn ignore(self, reason: &'static str) {
        let _ = reason;
        self.dispose();
    }

    /// Consumes the error and returns its code, to `match` on it (this handles the error).
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::code::{EAGAIN, EIO};
    /// let e = errtrace::Error::new(EAGAIN);
    /// let retry = match e.into_code() {
    ///     EAGAIN => true,
    ///     _ => false,
    /// };
    /// assert!(retry);
    /// ```
    #[inline]
    pub fn into_code(self) -> Code {
        let c = self.code();
        self.dispose();
        c
    }

    /// Handles the error if it has `code`; otherwise gives it back (to propagate with `?`).
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::{code::{EAGAIN, EIO}, Error};
    /// fn poll(e: Error) -> errtrace::Result<bool> {
    ///     e.recover(EAGAIN)?;
    ///     Ok(false)
    /// }
    /// assert_eq!(poll(Error::new(EAGAIN)).ok(), Some(false));
    /// let other = poll(Error::new(EIO)).unwrap_err();
    /// assert_eq!(other.code(), EIO);
    /// other.handled();
    /// ```
    #[inline]
    pub fn recover(self, code: Code) -> Result<()> {
        if self.is(code) {
            self.dispose();
            Ok(())
        } else {
            Err(self)
        }
    }

    /// Ends the error's life without the unhandled check: releases its recorder slot.
    #[inline]
    pub(crate) fn dispose(self) {
        let this = ManuallyDrop::new(self);
        this.release();
    }

    #[inline]
    fn release(&self) {
        let bits = self.0.get();
        if bits & UNRECORDED == 0 {
            RECORDER.release_owned((bits >> SEQ_SHIFT) as u32);
        }
    }

    /// A copy of the raw bits, for the probes and tests.
    #[doc(hidden)]
    pub fn __bits(&self) -> u64 {
        self.0.get()
    }
}

#[cold]
#[inline(never)]
fn hop_bits(bits: NonZeroU64, location: &'static Location<'static>) -> NonZeroU64 {
    let mut e = ManuallyDrop::new(Error(bits));
    e.hop_at(location, None);
    e.0
}

impl Drop for Error {
    #[inline]
    fn drop(&mut self) {
        if self.0.get() & LOGGED == 0 {
            crate::policy::unhandled_drop(self);
        }
        self.release();
    }
}

impl From<Code> for Error {
    /// `Err(EINVAL)?` makes an error whose origin is the `?`.
    #[track_caller]
    #[inline]
    fn from(code: Code) -> Error {
        Error::new(code)
    }
}

impl PartialEq<Code> for Error {
    fn eq(&self, other: &Code) -> bool {
        self.code() == *other
    }
}

impl core::error::Error for Error {}
