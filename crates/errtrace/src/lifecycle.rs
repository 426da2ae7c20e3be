//! Making errors, their hops and their end: every [`Error`] owns a flight-recorder slot and
//! belongs to a site. Storage layer (it writes the [`site`](crate::site) counters and the
//! [`recorder`](crate::recorder)).

use crate::code::Code;
use crate::counters::Count;
use crate::error::{
    Error, Result, DETAIL, HOPS_MASK, HOPS_SHIFT, HOP_ONE, LOGGED, PRINTED, SEQ_SHIFT, SITE_MASK,
    SITE_SHIFT, UNRECORDED,
};
use crate::recorder::{Event, Missing, NewEvent, RECORDER};
use crate::site::{Origin, Site, SiteRef};
use crate::unrecorded::MARKS_OF_UNRECORDED;
use core::mem::ManuallyDrop;
use core::num::NonZeroU64;
use core::panic::Location;

impl Error {
    /// Used by the macros: makes an error at a static site.
    #[doc(hidden)]
    #[inline]
    pub fn __at_site(site: &'static Site, code: Code) -> Error {
        Error::make(code, site.get(), None)
    }

    #[inline(always)]
    pub(crate) fn make(
        code: Code,
        site: SiteRef,
        loc: Option<&'static Location<'static>>,
    ) -> Error {
        let st = site.state();
        let raw_id = st.raw_id();
        let cpu = crate::platform::cpu_id();
        site.note_code(u32::from(code.get()));
        let claimed = counted_and_claimed(code, site, loc, cpu);
        let id = raw_id & 0xFFFF;
        let (seq, flags) = match claimed {
            // No hops yet.
            Some(seq) => (seq, 0),
            // An identity of its own, for the mark that says it was reported, and its site.
            None => (
                MARKS_OF_UNRECORDED.next_id(),
                UNRECORDED | (u64::from(if id <= SITE_MASK { id } else { 0 }) << SITE_SHIFT),
            ),
        };
        crate::probe::error(code, site, id, seq);
        let bits = u64::from(code.get()) | flags | (u64::from(seq) << SEQ_SHIFT);
        match NonZeroU64::new(bits) {
            Some(v) => Error(v),
            // Unreachable: a Code is never 0.
            None => Error(NonZeroU64::MIN),
        }
    }

    /// The site where the error was made.
    pub fn site(&self) -> Option<SiteRef> {
        match self.handle() {
            Some(seq) => RECORDER.site_owned(seq),
            None => SiteRef::find(self.site_index()),
        }
    }

    /// Where the error was made.
    ///
    /// Known for every error: the flight recorder keeps the exact origin in the event this error
    /// owns; an unrecorded error finds it through its site id.
    pub fn origin(&self) -> Origin {
        let known = match self.handle() {
            Some(seq) => RECORDER.origin_owned(seq),
            None => SiteRef::find(self.site_index()).map(|s| s.origin()),
        };
        known.unwrap_or(Origin::UNKNOWN)
    }

    /// The CPU or thread that made the error (`u32::MAX` when unknown).
    pub(crate) fn cpu(&self) -> u32 {
        self.handle()
            .and_then(|seq| RECORDER.cpu_owned(seq))
            .unwrap_or(u32::MAX)
    }

    /// The trail: `(kept hops, total hops)`, or why there is none.
    pub(crate) fn trail(
        &self,
    ) -> core::result::Result<(impl Iterator<Item = crate::recorder::Hop> + '_, u32), Missing> {
        match self.handle() {
            Some(seq) => Ok(RECORDER.trail_owned(seq, hops_of(self.0.get()))),
            None => Err(Missing::Unrecorded),
        }
    }

    /// With `std`: the text of the foreign error this error was converted from
    /// (`invalid digit found in string` for a `ParseIntError`, the message of an `io::Error`),
    /// up to 256 bytes; `None` for an error made from a code, or one the recorder had no slot
    /// for. Reports print it on a `detail:` line.
    ///
    /// ```
    /// fn parse(s: &str) -> errtrace::Result<u32> {
    ///     Ok(s.parse::<u32>()?)
    /// }
    /// let e = parse("12x").unwrap_err();
    /// assert_eq!(e.code(), errtrace::code::EINVAL);
    /// assert_eq!(e.detail(), Some("invalid digit found in string"));
    /// e.handled();
    /// ```
    #[cfg(feature = "std")]
    pub fn detail(&self) -> Option<&str> {
        self.handle().and_then(|seq| RECORDER.detail_owned(seq))
    }

    /// Keeps `text` as the error's detail (the foreign error's text).
    #[cfg(feature = "std")]
    pub(crate) fn set_detail(&mut self, text: &str) {
        if let Some(seq) = self.handle() {
            RECORDER.set_detail_owned(seq, text);
            // Released through the slow path, which frees the text.
            self.set_bits(DETAIL);
        }
    }

    /// The sequence number of this error's event in the flight recorder (`None` when it was
    /// not recorded): keep it to read the event later with
    /// [`recorder::read`](crate::recorder::read), which gives this error's event while the
    /// recorder holds it, then [`Missing::Overwritten`], never another error's.
    ///
    /// ```
    /// use errtrace::{code::EIO, recorder, Error};
    ///
    /// let e = Error::new(EIO);
    /// let seq = e.seq().unwrap();
    /// e.handled();
    /// assert_eq!(recorder::read(seq).unwrap().code(), EIO);
    /// ```
    pub fn seq(&self) -> Option<u64> {
        self.handle().map(|handle| RECORDER.seq_owned(handle))
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
        self.0.get() & LOGGED != 0 || self.report_marked()
    }

    /// Whether the error was reported: a record carrying it was emitted (by its creator,
    /// `.log()`, …) or its report was formatted. Unlike [`is_logged`](Error::is_logged), an
    /// error held back by its policy was not reported.
    pub(crate) fn was_reported(&self) -> bool {
        self.0.get() & PRINTED != 0 || self.report_marked()
    }

    /// Where the error was reported: the last place a `.log()` (or `.not_expected()`,
    /// `.or_log()`) printed it, else its origin when its creator printed it; `None` when it was
    /// reported only by formatting its report, or not at all.
    #[inline(never)]
    pub(crate) fn reported_at(&self) -> Option<Origin> {
        if let Ok((hops, _)) = self.trail() {
            if let Some(h) = hops.filter(crate::recorder::Hop::is_where_logged).last() {
                return Some(Origin::from_location(h.location));
            }
        }
        (self.0.get() & PRINTED != 0).then(|| self.origin())
    }

    /// Whether the error's report was formatted (marked in its recorder slot or, for an
    /// unrecorded error, in the marks of unrecorded errors).
    fn report_marked(&self) -> bool {
        let bits = self.0.get();
        let id = (bits >> SEQ_SHIFT) as u32;
        if bits & UNRECORDED == 0 {
            RECORDER.is_reported(id)
        } else {
            MARKS_OF_UNRECORDED.is_marked(id)
        }
    }

    /// Marks the error as reported (its report was formatted).
    pub(crate) fn mark_reported(&self) {
        let bits = self.0.get();
        let id = (bits >> SEQ_SHIFT) as u32;
        if bits & LOGGED != 0 {
            return;
        }
        if bits & UNRECORDED == 0 {
            RECORDER.mark_reported(id);
        } else {
            let _ = MARKS_OF_UNRECORDED.mark(id);
        }
    }

    /// A record carrying the error was emitted: it was reported.
    #[inline]
    pub(crate) fn mark_printed(&mut self) {
        self.set_bits(LOGGED | PRINTED);
    }

    /// Records a hop at the caller's location.
    #[track_caller]
    #[inline]
    pub fn hop(&mut self) {
        self.hop_at(Location::caller(), None)
    }

    /// `hop_at(location, None)` by value (consumed and given back, so the error is never in a
    /// place that would drop it while the hop is recorded), for `#[trace]` and conversions: the
    /// error travels in a register, so the caller's success path neither spills the result nor
    /// keeps the hop's bookkeeping in registers.
    #[inline(always)]
    pub(crate) fn hopped(self, location: &'static Location<'static>) -> Error {
        let this = ManuallyDrop::new(self);
        Error(hop_bits(this.0, location, None, false))
    }

    /// Moves the error out of `self` (in a container that will drop it), leaving an inert
    /// error there: logged, unrecorded with number 0, so dropping it says and frees nothing.
    #[cfg(feature = "std")]
    pub(crate) fn take_out(&mut self) -> Error {
        let inert = self.0.get() & crate::error::CODE_MASK | LOGGED | UNRECORDED;
        core::mem::replace(
            self,
            Error(NonZeroU64::new(inert).unwrap_or(NonZeroU64::MIN)),
        )
    }

    /// The error with a hop at `location`, unless it was made there (a `?` whose `From` made
    /// it: its origin is already that place). By value in and out.
    #[inline(always)]
    pub(crate) fn hopped_unless_made_at(self, location: &'static Location<'static>) -> Error {
        let this = ManuallyDrop::new(self);
        Error(hop_bits(this.0, location, None, true))
    }

    /// Records a hop at `location`, unless the error was made there (then the origin is it).
    #[inline]
    pub(crate) fn hop_unless_made_at(&mut self, location: &'static Location<'static>) {
        self.0 = hop_bits(self.0, location, None, true);
    }

    /// Records a hop at `location` with an optional static message.
    #[inline]
    pub fn hop_at(&mut self, location: &'static Location<'static>, message: Option<&'static str>) {
        self.0 = hop_bits(self.0, location, message, false);
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
    /// use errtrace::code::EBUSY;
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
    pub(crate) fn release(&self) {
        let bits = self.0.get();
        // Neither unrecorded, nor hopped (counted as travelled), nor keeping a text (freed).
        if bits & (UNRECORDED | DETAIL | HOPS_MASK) == 0 {
            RECORDER.release_owned((bits >> SEQ_SHIFT) as u32, 0);
        } else {
            release_slow(bits);
        }
    }
}

/// Counts a new error at its site and claims its recorder slot, in the current context's shard
/// (entered for just these stores); its sequence number, `None` when unrecorded. Inline with
/// `std`, where a thread's shard is one thread-local load; out of line without, where entering
/// the shard may call the platform's hooks and the claim has a shared path too, which would
/// otherwise be code at every place that makes an error.
#[cfg_attr(any(feature = "std", loom), inline(always))]
#[cfg_attr(not(any(feature = "std", loom)), inline(never))]
fn counted_and_claimed(
    code: Code,
    site: SiteRef,
    loc: Option<&'static Location<'static>>,
    cpu: u32,
) -> Option<u32> {
    let entered = crate::shard::enter(cpu);
    let shard = entered.shard;
    site.state().count(shard, Count::Created);
    RECORDER.claim(NewEvent {
        shard,
        code,
        site,
        location: loc,
        cpu,
    })
}

/// The hops a recorded error with `bits` took.
#[inline(always)]
fn hops_of(bits: u64) -> u32 {
    ((bits & HOPS_MASK) >> HOPS_SHIFT) as u32
}

/// The hops [`hop_bits`] records inline: those the slot keeps.
const INLINE_HOPS: u32 = crate::config::HOPS as u32;

/// The bits of the error `bits` after a hop at `location` with `message` (with
/// `unless_made_at`: none if it has no hop yet and was made there). A hop of a recorded error
/// whose slot keeps it, with no tracer to tell and no origin to compare, is inline: the slot's
/// stores and the count in the bits. Everything else is [`hop_slow`].
#[inline(always)]
fn hop_bits(
    bits: NonZeroU64,
    location: &'static Location<'static>,
    message: Option<&'static str>,
    unless_made_at: bool,
) -> NonZeroU64 {
    let b = bits.get();
    // One comparison of the low half: the hop count (bits 16..31) is below the kept hops and
    // UNRECORDED (bit 31) is clear. The first hop of a `?` compares the origin, out of line.
    let low = b as u32;
    let inline = low < INLINE_HOPS << HOPS_SHIFT && (!unless_made_at || low >= HOP_ONE as u32);
    if inline && !crate::probe::hop_wanted() {
        RECORDER.hop_owned(
            (b >> SEQ_SHIFT) as u32,
            low >> HOPS_SHIFT,
            location,
            message,
        );
        return counted(bits);
    }
    hop_slow(bits, location, message, unless_made_at)
}

/// `bits` with one more hop counted (below the most a slot counts).
#[inline(always)]
fn counted(bits: NonZeroU64) -> NonZeroU64 {
    // The count stays in its field, so the code bits stay and the value is never 0.
    NonZeroU64::new(bits.get().wrapping_add(HOP_ONE)).unwrap_or(bits)
}

/// [`hop_bits`] out of line: the first hop of a `?` (which compares the origin), hops past the
/// slot's cells (counted in its state), unrecorded errors (no hop), and hops a tracer is told
/// of.
#[cold]
#[inline(never)]
fn hop_slow(
    bits: NonZeroU64,
    location: &'static Location<'static>,
    message: Option<&'static str>,
    unless_made_at: bool,
) -> NonZeroU64 {
    let b = bits.get();
    if b & UNRECORDED != 0 {
        return bits;
    }
    let seq = (b >> SEQ_SHIFT) as u32;
    let n = hops_of(b);
    // A conversion at the `?` got the same `Location` (`#[track_caller]` hands the `?`'s
    // down), so one pointer comparison tells; only an event without hops is compared.
    if unless_made_at && n == 0 && RECORDER.made_at(seq, location) {
        return bits;
    }
    RECORDER.hop_owned(seq, n, location, message);
    announce_hop(b, location);
    if n < crate::raw::HOP_COUNT_MAX {
        counted(bits)
    } else {
        bits
    }
}

/// Releases an unrecorded error (its reported mark, if any, is freed), or one that travelled
/// (counted at its site) or kept a foreign error's text (freed).
#[cold]
#[inline(never)]
fn release_slow(bits: u64) {
    let seq = (bits >> SEQ_SHIFT) as u32;
    if bits & UNRECORDED != 0 {
        MARKS_OF_UNRECORDED.clear(seq);
        return;
    }
    // While still the owner: the text goes before the slot can be claimed again.
    #[cfg(feature = "std")]
    RECORDER.free_detail_owned(seq);
    let hops = hops_of(bits);
    if hops > 0 {
        let entered = crate::shard::enter(crate::platform::cpu_id());
        RECORDER.travelled(seq, entered.shard);
    }
    RECORDER.release_owned(seq, hops);
}

/// Tells the tracer (SDT probe, tracepoint hook) of a hop the recorded error `bits` took.
#[inline(always)]
fn announce_hop(bits: u64, location: &'static Location<'static>) {
    if !crate::probe::hop_wanted() {
        return;
    }
    let seq = (bits >> SEQ_SHIFT) as u32;
    let code = Code::new((bits & crate::error::CODE_MASK) as u16).unwrap_or(crate::code::EIO);
    let site = RECORDER
        .site_owned(seq)
        .map_or(0, |s| s.state().raw_id() & 0xFFFF);
    crate::probe::hop(code, site, seq, location);
}

impl From<Code> for Error {
    /// `Err(EINVAL)?` makes an error whose origin is the `?`.
    #[track_caller]
    #[inline]
    fn from(code: Code) -> Error {
        Error::new(code)
    }
}
