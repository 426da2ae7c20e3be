//! The flight recorder: an always-on, lock-free ring of the most recent error events.
//!
//! Every error gets one event slot when it is made: its code, origin and the thread/CPU that made
//! it; each hop it takes appends to the slot (the trail lives here, out of line, so an
//! [`Error`](crate::Error) stays 8 bytes). The recorder never allocates and never blocks; any
//! number of threads, CPUs or interrupt handlers may record and read at once.
//!
//! # How it stays correct without locks
//!
//! A slot is *live* while the error that owns it exists: only that error (which is not `Copy`,
//! so there is exactly one) appends to it, and nobody may reuse it. When the error is consumed
//! (handled, logged and dropped, returned as an errno…) the slot is released and becomes part of
//! history, to be overwritten by a newer event once the ring wraps. A new error that finds its
//! slot still live tries the next one; after a few tries it is marked *unrecorded* (its origin is
//! still in the error itself; its report says the trail was not recorded). So a live error's
//! trail is never overwritten, and a report never shows another error's trail. Readers use a
//! sequence check (a seqlock) and skip slots that changed under them.
//!
//! The ring holds [`config::RECORDER_SLOTS`](crate::config::RECORDER_SLOTS) events of
//! [`config::HOPS`](crate::config::HOPS) hops each.
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::EIO, recorder, Error, ResultExt};
//!
//! fn leaf() -> errtrace::Result<u32> { Err(Error::new(EIO)) }
//! fn mid() -> errtrace::Result<u32> { Ok(leaf().context("reading the id")? + 1) }
//!
//! let e = mid().unwrap_err();
//! let mut found = false;
//! recorder::for_each(|ev| {
//!     if ev.seq() == e.seq().unwrap() {
//!         found = true;
//!         assert_eq!(ev.code(), EIO);
//!         assert_eq!(ev.hops().count(), 1);
//!     }
//! });
//! assert!(found);
//! e.handled();
//! ```

use crate::code::Code;
use crate::raw::{AtomicRef, AtomicStr};
use crate::site::{Origin, Site};
use crate::sync::{fence, loom_const_fn, AtomicU32, Ordering};
use core::panic::Location;

const LIVE: u32 = 1 << 15;
const BUSY: u32 = 1 << 14;
/// The error was reported (its report formatted): it no longer counts as unhandled.
const REPORTED: u32 = 1 << 13;
const COUNT: u32 = REPORTED - 1;
const OWNER_MASK: u32 = !(COUNT | REPORTED);
const CLAIM_TRIES: u32 = 4;
const READ_TRIES: u32 = 8;

#[inline]
fn tag(seq: u32) -> u32 {
    seq << 16
}

/// One hop of a trail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Where the error passed (the `?`, `.trace()` or `.context()`).
    pub location: &'static Location<'static>,
    /// The `.context()` message, if any.
    pub message: Option<&'static str>,
}

impl core::fmt::Display for Hop {
    /// `src/sensor.rs:88:9 "reading chip id"`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let l = self.location;
        write!(f, "{}:{}:{}", l.file(), l.line(), l.column())?;
        if let Some(m) = self.message {
            write!(f, " \"{m}\"")?;
        }
        Ok(())
    }
}

struct HopCell {
    loc: AtomicRef<Location<'static>>,
    msg: AtomicStr,
}

impl HopCell {
    loom_const_fn! {
        fn new() -> HopCell {
            HopCell { loc: AtomicRef::none(), msg: AtomicStr::none() }
        }
    }
}

/// One event slot.
///
/// # Invariants
///
/// `state` is `seq << 16 | LIVE? | BUSY? | REPORTED? | count`. While BUSY is set, one claimer owns every
/// field. While LIVE is set (and BUSY clear) only the owning error writes, and only `hops[count]`
/// followed by a Release store of `state` with `count + 1`.
struct Slot<const H: usize> {
    state: AtomicU32,
    seq: AtomicU32,
    code_site: AtomicU32,
    cpu: AtomicU32,
    origin_loc: AtomicRef<Location<'static>>,
    origin_site: AtomicRef<Site>,
    hops: [HopCell; H],
}

impl<const H: usize> Slot<H> {
    #[cfg(not(loom))]
    const fn new() -> Self {
        Slot {
            state: AtomicU32::new(0),
            seq: AtomicU32::new(0),
            code_site: AtomicU32::new(0),
            cpu: AtomicU32::new(0),
            origin_loc: AtomicRef::none(),
            origin_site: AtomicRef::none(),
            hops: [const { HopCell::new() }; H],
        }
    }

    #[cfg(loom)]
    fn new() -> Self {
        Slot {
            state: AtomicU32::new(0),
            seq: AtomicU32::new(0),
            code_site: AtomicU32::new(0),
            cpu: AtomicU32::new(0),
            origin_loc: AtomicRef::none(),
            origin_site: AtomicRef::none(),
            hops: core::array::from_fn(|_| HopCell::new()),
        }
    }
}

/// What a new event starts with.
#[derive(Clone, Copy)]
pub struct NewEvent {
    /// The error code.
    pub code: Code,
    /// The 1-based site index, 0 when the site table was full.
    pub site: u32,
    /// The origin location, kept only when `site` is 0 (to report it all the same).
    pub location: Option<&'static Location<'static>>,
    /// The static origin site, kept only when `site` is 0.
    pub static_site: Option<&'static Site>,
    /// Thread or CPU id.
    pub cpu: u32,
}

/// A consistent copy of one event.
#[derive(Clone, Copy, Debug)]
pub struct Event<const H: usize = { crate::config::HOPS }> {
    seq: u32,
    code: Code,
    site: u32,
    cpu: u32,
    origin_loc: Option<&'static Location<'static>>,
    origin_site: Option<&'static Site>,
    live: bool,
    total_hops: u32,
    hops: [Option<Hop>; H],
}

impl core::fmt::Debug for Site {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Site({}:{}:{})", self.file, self.line, self.column)
    }
}

impl<const H: usize> Event<H> {
    /// The event's sequence number (also in the error: [`Error::seq`](crate::Error::seq)).
    pub fn seq(&self) -> u32 {
        self.seq
    }
    /// The error code.
    pub fn code(&self) -> Code {
        self.code
    }
    /// The 1-based site index of the origin (0: the site table was full).
    pub fn site_index(&self) -> u32 {
        self.site
    }
    /// Thread/CPU id (`u32::MAX` when unknown).
    pub fn cpu(&self) -> u32 {
        self.cpu
    }
    /// Whether the error still exists.
    pub fn is_live(&self) -> bool {
        self.live
    }
    /// All hops taken, including those beyond the ones kept.
    pub fn total_hops(&self) -> u32 {
        self.total_hops
    }
    /// Hops taken but not kept (the "+N more").
    pub fn more_hops(&self) -> u32 {
        self.total_hops.saturating_sub(H as u32)
    }
    /// The kept hops, oldest (nearest the origin) first.
    pub fn hops(&self) -> impl Iterator<Item = Hop> + '_ {
        self.hops.iter().flatten().copied()
    }
    /// The origin as kept in the event itself (when the site table was full).
    pub(crate) fn fallback_origin(&self) -> Option<Origin> {
        if let Some(s) = self.origin_site {
            return Some(Origin::from_site(s));
        }
        self.origin_loc.map(Origin::from_location)
    }
    /// The origin.
    #[cfg(not(loom))]
    pub fn origin(&self) -> Option<Origin> {
        crate::site::SITES
            .origin(self.site)
            .or_else(|| self.fallback_origin())
    }
}

/// Why [`Recorder::read`] found no trail for a sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The error was never recorded (the recorder was full of live errors).
    Unrecorded,
    /// The event was overwritten by newer ones (only possible for errors that no longer exist).
    Overwritten {
        /// How many newer events were recorded since.
        newer: u32,
    },
    /// Readers kept colliding with writers; try again.
    Busy,
}

/// A flight recorder of `N` events (a power of two) with `H` hops each.
///
/// The global recorder is used through [`Error`](crate::Error); this type is public so that
/// model-checking tests and special uses can make private ones.
pub struct Recorder<const N: usize, const H: usize> {
    head: AtomicU32,
    unrecorded: AtomicU32,
    slots: [Slot<H>; N],
}

impl<const N: usize, const H: usize> Recorder<N, H> {
    const MASK: u32 = {
        assert!(N.is_power_of_two() && N <= 32768);
        (N - 1) as u32
    };

    /// An empty recorder.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Recorder {
            head: AtomicU32::new(1),
            unrecorded: AtomicU32::new(0),
            slots: [const { Slot::new() }; N],
        }
    }

    /// An empty recorder.
    #[cfg(loom)]
    pub fn new() -> Self {
        Recorder {
            head: AtomicU32::new(1),
            unrecorded: AtomicU32::new(0),
            slots: core::array::from_fn(|_| Slot::new()),
        }
    }

    #[inline]
    fn slot(&self, seq: u32) -> Option<&Slot<H>> {
        self.slots.get((seq & Self::MASK) as usize)
    }

    /// Records a new event; returns its sequence number, or `None` when no slot was free.
    #[inline]
    pub fn claim(&self, ev: NewEvent) -> Option<u32> {
        for _ in 0..CLAIM_TRIES {
            let seq = self.head.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = self.slot(seq) else { break };
            let cur = slot.state.load(Ordering::Relaxed);
            if cur & (LIVE | BUSY) != 0 {
                continue;
            }
            if slot
                .state
                .compare_exchange(
                    cur,
                    tag(seq) | LIVE | BUSY,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                )
                .is_err()
            {
                continue;
            }
            // Make BUSY visible before any field changes (the seqlock writer's fence).
            fence(Ordering::Release);
            slot.seq.store(seq, Ordering::Relaxed);
            slot.code_site.store(
                u32::from(ev.code.get()) | (ev.site << 16),
                Ordering::Relaxed,
            );
            slot.cpu.store(ev.cpu, Ordering::Relaxed);
            slot.origin_loc.store(ev.location, Ordering::Relaxed);
            slot.origin_site.store(ev.static_site, Ordering::Relaxed);
            slot.state.store(tag(seq) | LIVE, Ordering::Release);
            return Some(seq);
        }
        self.unrecorded.fetch_add(1, Ordering::Relaxed);
        None
    }

    /// Appends a hop to the live event `seq`. Returns the number of hops taken so far (1 for the
    /// first), or 0 when `seq` does not own its slot (a bug in the caller; nothing is written).
    #[inline]
    pub fn hop(
        &self,
        seq: u32,
        location: &'static Location<'static>,
        message: Option<&'static str>,
    ) -> u32 {
        if !self.owns(seq) {
            return 0;
        }
        self.hop_owned(seq, location, message)
    }

    /// Whether `seq` is the live event in its slot.
    #[inline]
    fn owns(&self, seq: u32) -> bool {
        self.slot(seq)
            .is_some_and(|slot| slot.state.load(Ordering::Relaxed) & OWNER_MASK == tag(seq) | LIVE)
    }

    /// [`hop`](Self::hop) on behalf of the error that owns `seq`, without the owner check: a
    /// live slot is written only by its owner and `claim` never takes a live slot, so the check
    /// cannot fail for the one `Error` that holds `seq`.
    #[inline]
    pub(crate) fn hop_owned(
        &self,
        seq: u32,
        location: &'static Location<'static>,
        message: Option<&'static str>,
    ) -> u32 {
        let Some(slot) = self.slot(seq) else { return 0 };
        let st = slot.state.load(Ordering::Relaxed);
        let count = st & COUNT;
        if let Some(cell) = self.slots_hop(slot, count) {
            cell.loc.store(Some(location), Ordering::Relaxed);
            cell.msg.store(message);
        }
        if count < COUNT {
            slot.state.store(st + 1, Ordering::Release);
        }
        count + 1
    }

    /// [`release`](Self::release) on behalf of the owning error (see
    /// [`hop_owned`](Self::hop_owned) for why no check is needed).
    #[inline]
    pub(crate) fn release_owned(&self, seq: u32) {
        let Some(slot) = self.slot(seq) else { return };
        let st = slot.state.load(Ordering::Relaxed);
        slot.state.store(st & !LIVE, Ordering::Release);
    }

    #[inline]
    fn slots_hop<'a>(&self, slot: &'a Slot<H>, count: u32) -> Option<&'a HopCell> {
        slot.hops.get(count as usize)
    }

    /// Releases the live event `seq`: its error is gone; the event stays readable until the ring
    /// wraps over it. Does nothing when `seq` does not own its slot.
    #[inline]
    pub fn release(&self, seq: u32) {
        if self.owns(seq) {
            self.release_owned(seq);
        }
    }

    /// Marks the live event `seq` as reported.
    #[inline]
    pub fn mark_reported(&self, seq: u32) {
        let Some(slot) = self.slot(seq) else { return };
        let st = slot.state.load(Ordering::Relaxed);
        if st & OWNER_MASK == tag(seq) | LIVE {
            slot.state.store(st | REPORTED, Ordering::Release);
        }
    }

    /// Whether the live event `seq` was marked reported.
    #[inline]
    pub fn is_reported(&self, seq: u32) -> bool {
        self.slot(seq).is_some_and(|slot| {
            let st = slot.state.load(Ordering::Relaxed);
            st & OWNER_MASK == tag(seq) | LIVE && st & REPORTED != 0
        })
    }

    /// Reads a consistent copy of the event `seq`.
    ///
    /// # Errors
    ///
    /// [`Missing`] says why there is no such event.
    pub fn read(&self, seq: u32) -> Result<Event<H>, Missing> {
        let Some(slot) = self.slot(seq) else {
            return Err(Missing::Unrecorded);
        };
        for _ in 0..READ_TRIES {
            let s1 = slot.state.load(Ordering::Acquire);
            if s1 & BUSY != 0 {
                continue;
            }
            let stored_seq = slot.seq.load(Ordering::Relaxed);
            let code_site = slot.code_site.load(Ordering::Relaxed);
            let cpu = slot.cpu.load(Ordering::Relaxed);
            let origin_loc = slot.origin_loc.load(Ordering::Relaxed);
            let origin_site = slot.origin_site.load(Ordering::Relaxed);
            let count = s1 & COUNT;
            let mut hops = [None; H];
            let mut raw = [None; H];
            for (i, cell) in slot.hops.iter().enumerate().take(count as usize) {
                if let Some(r) = raw.get_mut(i) {
                    *r = Some((cell.loc.load(Ordering::Relaxed), cell.msg.load()));
                }
            }
            fence(Ordering::Acquire);
            let s2 = slot.state.load(Ordering::Relaxed);
            if s1 != s2 {
                continue;
            }
            if s1 >> 16 != seq & 0xFFFF || stored_seq != seq {
                // The slot holds another event: a newer one overwrote ours, or ours never got it.
                if (stored_seq.wrapping_sub(seq) as i32) > 0 {
                    let head = self.head.load(Ordering::Relaxed);
                    return Err(Missing::Overwritten {
                        newer: head.wrapping_sub(seq).wrapping_sub(1),
                    });
                }
                return Err(Missing::Unrecorded);
            }
            for (h, r) in hops.iter_mut().zip(raw.iter()) {
                if let Some((Some(loc), msg)) = r {
                    *h = Some(Hop {
                        location: loc,
                        message: msg.get(true),
                    });
                }
            }
            let Some(code) = Code::new((code_site & 0xFFF) as u16) else {
                return Err(Missing::Unrecorded);
            };
            return Ok(Event {
                seq,
                code,
                site: code_site >> 16,
                cpu,
                origin_loc,
                origin_site,
                live: s1 & LIVE != 0,
                total_hops: count,
                hops,
            });
        }
        Err(Missing::Busy)
    }

    /// Calls `f` for each readable event, oldest first.
    pub fn for_each(&self, mut f: impl FnMut(&Event<H>)) {
        let head = self.head.load(Ordering::Acquire);
        let first = head.wrapping_sub(N as u32).max(1);
        let mut seq = if head > N as u32 { first } else { 1 };
        while seq != head {
            if let Ok(ev) = self.read(seq) {
                f(&ev);
            }
            seq = seq.wrapping_add(1);
        }
    }

    /// Events that could not be recorded because every slot tried was live.
    pub fn unrecorded(&self) -> u32 {
        self.unrecorded.load(Ordering::Relaxed)
    }

    /// The next sequence number to be handed out.
    pub fn head(&self) -> u32 {
        self.head.load(Ordering::Relaxed)
    }
}

#[cfg(not(loom))]
impl<const N: usize, const H: usize> Default for Recorder<N, H> {
    fn default() -> Self {
        Self::new()
    }
}

/// The global recorder.
#[cfg(not(loom))]
pub(crate) static RECORDER: Recorder<{ crate::config::RECORDER_SLOTS }, { crate::config::HOPS }> =
    Recorder::new();

/// Calls `f` for each event in the global recorder, oldest first.
#[cfg(not(loom))]
pub fn for_each(f: impl FnMut(&Event)) {
    RECORDER.for_each(f)
}

/// Reads one event of the global recorder.
///
/// # Errors
///
/// [`Missing`] when the event is not there.
#[cfg(not(loom))]
pub fn read(seq: u32) -> Result<Event, Missing> {
    RECORDER.read(seq)
}

/// Errors that found no free slot (every slot tried held a live error).
#[cfg(not(loom))]
pub fn unrecorded() -> u32 {
    RECORDER.unrecorded()
}

/// Writes the global recorder's events, oldest first, one block per event:
///
/// ```text
/// #41 EIO (-5) cpu 0 released: crates/demo/src/bus.rs:42:13 in demo::bus::read_reg
///     via crates/demo/src/sensor.rs:88:9 "reading chip id"
/// ```
///
/// # Errors
///
/// The writer's error.
///
/// # Examples
///
/// ```
/// let e = errtrace::err!(EIO);
/// let mut out = String::new();
/// errtrace::recorder::dump(&mut out).unwrap();
/// assert!(out.contains("EIO (-5)"));
/// e.handled();
/// ```
#[cfg(not(loom))]
pub fn dump(out: &mut dyn core::fmt::Write) -> core::fmt::Result {
    let mut result = Ok(());
    RECORDER.for_each(|ev| {
        if result.is_err() {
            return;
        }
        result = write_event(out, ev);
    });
    result
}

/// Writes one event as [`dump`] does.
///
/// # Errors
///
/// The writer's error.
#[cfg(not(loom))]
pub fn write_event(out: &mut dyn core::fmt::Write, ev: &Event) -> core::fmt::Result {
    write!(
        out,
        "#{} {:?} ({})",
        ev.seq(),
        ev.code(),
        ev.code().to_errno()
    )?;
    if ev.cpu() != u32::MAX {
        write!(out, " cpu {}", ev.cpu())?;
    }
    out.write_str(if ev.is_live() { " live" } else { " released" })?;
    match ev.origin() {
        Some(o) => {
            write!(out, ": {o}")?;
            if let Some(f) = o.function {
                write!(out, " in {f}")?;
            }
        }
        None => out.write_str(": <unknown origin>")?,
    }
    out.write_char('\n')?;
    for hop in ev.hops() {
        writeln!(out, "    via {hop}")?;
    }
    if ev.more_hops() > 0 {
        writeln!(out, "    (+{} more hops)", ev.more_hops())?;
    }
    Ok(())
}
