//! The flight recorder: an always-on, lock-free record of recent errors. Storage layer.
//!
//! Every error gets one event slot when it is made: its code, origin and the thread/CPU that made
//! it; each hop it takes appends to the slot (the trail lives here, out of line, so an
//! [`Error`](crate::Error) stays 8 bytes). The recorder never allocates, never blocks and never
//! waits; any number of threads, CPUs or interrupt handlers may record and read at once.
//!
//! # Shards
//!
//! The slots are split into [`config::RECORDER_SHARDS`](crate::config::RECORDER_SHARDS) shards,
//! each with its own head on its own cache line. An error is recorded in the shard its context
//! writes (see `shard.rs`):
//!
//! - in user space, a thread's own shard, leased for the thread's life: only that thread claims
//!   slots there, so a claim is an index increment, plain stores and one Release store that
//!   publishes the event (no read-modify-write); threads beyond the leases share shard 0;
//! - in the kernel, a task's CPU's shard while it makes the error, with preemption off (the
//!   platform's shard hooks, `errtrace::platform::set_shard_hooks`), claimed the same way;
//!   interrupts share shard 0, claimed with a compare-and-exchange;
//! - on bare metal without shard hooks, the shard of the CPU (or thread) id, claimed with a
//!   compare-and-exchange, since an interrupt may claim there at once.
//!
//! Either way CPUs making errors at once do not write one shared line. Sequence numbers count
//! per shard; [`for_each`] and [`dump`] go shard by shard, oldest first within each.
//!
//! # No holes
//!
//! A slot is *live* while the error that owns it exists: only that error (which is not `Copy`,
//! so there is exactly one) appends to it, and nobody may reuse it. When the error is consumed
//! (handled, logged and dropped, returned as an errno…) the slot is released and becomes part of
//! history, to be overwritten once the shard wraps. A new error skips live slots: a live error
//! that outlasts a lap keeps its trail, and later errors take the next free slots. Only when every
//! slot of every shard holds a live error at once is an error *unrecorded* (its origin is still
//! known; its report says why; [`unrecorded()`] counts them). A report never shows another
//! error's trail. Readers of released events use a sequence check (a seqlock) and skip slots that
//! changed under them.
//!
//! The storage is all zeros until used (it lives in `.bss`); its size is a build-time choice
//! ([`config`](crate::config)).
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::EIO, recorder, Error, ResultExt};
//!
//! fn leaf() -> errtrace::Result<u32> { Err(Error::new(EIO)) }
//! fn mid() -> errtrace::Result<u32> { Ok(leaf().during("reading the id")? + 1) }
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
use crate::counters::Count;
pub use crate::raw::Hop;
use crate::shard::{is_shared, Shard};

mod dump;
mod event;
mod read;
use crate::raw::{CopyError, Fill, Slot};
use crate::site::{Origin, SiteRef, SiteState};
use crate::sync::{AtomicU32, Ordering};
use core::panic::Location;
#[cfg(not(loom))]
pub use dump::{dump, write_event};
use event::origin_of;
pub use event::{Event, Missing};
#[cfg(not(loom))]
pub use read::{for_each, read};

/// A shard's head, on its own cache line.
#[repr(align(64))]
struct Head {
    next: AtomicU32,
}

/// What a new event starts with.
#[derive(Clone, Copy)]
pub(crate) struct NewEvent {
    /// The shard its context writes.
    pub(crate) shard: Shard,
    /// The error code.
    pub(crate) code: Code,
    /// The origin's site.
    pub(crate) site: SiteRef,
    /// The exact origin location, for location sites.
    pub(crate) location: Option<&'static Location<'static>>,
    /// Thread or CPU id.
    pub(crate) cpu: u32,
}

/// A flight recorder of `S` shards (a power of two) of `P` slots each (a power of two);
/// `N = S × P` slots in all, `H` hops each.
///
/// # Invariants
///
/// An error's handle (in its bits) is `tag << 16 | index`: `index` is the slot's place in
/// `slots` (shard `index / P`), `tag` the low 16 bits of the shard's counter when it was
/// claimed, also kept in the top 16 bits of the slot's state while the event is there. The
/// counter's high 16 bits are kept in the top 16 bits of the slot's code word, so the slot
/// knows the whole claim number: an event's sequence number is `claim << 16 | index` (48
/// bits; its low 32 bits are the handle), and a number kept after its event was overwritten
/// never reads a later event, until the shard's counter wraps (2^32 claims in one shard).
pub(crate) struct Recorder<const S: usize, const P: usize, const N: usize, const H: usize> {
    heads: [Head; S],
    slots: [Slot<SiteState, H>; N],
    unrecorded: AtomicU32,
}

impl<const S: usize, const P: usize, const N: usize, const H: usize> Recorder<S, P, N, H> {
    const CHECKED: () = {
        assert!(S.is_power_of_two() && S <= 64);
        assert!(P.is_power_of_two());
        assert!(N == S * P && N <= 32768);
    };

    /// An empty recorder.
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CHECKED;
        Recorder {
            heads: [const {
                Head {
                    next: AtomicU32::new(0),
                }
            }; S],
            slots: [const { Slot::new() }; N],
            unrecorded: AtomicU32::new(0),
        }
    }

    /// An empty recorder.
    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CHECKED;
        Recorder {
            heads: core::array::from_fn(|_| Head {
                next: AtomicU32::new(0),
            }),
            slots: core::array::from_fn(|_| Slot::new()),
            unrecorded: AtomicU32::new(0),
        }
    }

    #[inline(always)]
    fn slot(&self, seq: u32) -> Option<&Slot<SiteState, H>> {
        self.slots.get((seq & 0xFFFF) as usize & N.wrapping_sub(1))
    }

    /// Records a new event in the shard `ev.shard` names (or, when its next slot is live, the
    /// next free one there, then in the shared shards); returns its sequence number, or `None`
    /// when every slot it may claim holds a live error.
    #[inline(always)]
    pub(crate) fn claim(&self, ev: NewEvent) -> Option<u32> {
        let shard = (ev.shard.index as usize) & S.wrapping_sub(1);
        let claimed = if ev.shard.owned {
            self.try_claim_owned(shard, &ev)
        } else {
            self.try_claim(shard, &ev)
        };
        match claimed {
            Some(seq) => Some(seq),
            None => self.claim_slow(ev),
        }
    }

    /// The slot index and tag of claim number `counter` in `shard`.
    #[inline(always)]
    fn place(shard: usize, counter: u32) -> (usize, u32) {
        let index = shard
            .wrapping_mul(P)
            .wrapping_add(counter as usize & P.wrapping_sub(1))
            & N.wrapping_sub(1);
        (index, counter & 0xFFFF)
    }

    /// The next slot of the shared `shard`, if it is free (a compare-and-exchange).
    #[inline(always)]
    fn try_claim(&self, shard: usize, ev: &NewEvent) -> Option<u32> {
        let counter = self.heads.get(shard)?.next.fetch_add(1, Ordering::Relaxed);
        let (index, tag) = Self::place(shard, counter);
        let slot = self.slots.get(index)?;
        slot.try_claim(tag, &fill_of(ev, counter))
            .then_some((tag << 16) | index as u32)
    }

    /// The next slot of `shard`, owned by the caller (it alone claims there), if it is free:
    /// the head moves on with a load and a store, the slot is taken with plain stores.
    #[inline(always)]
    fn try_claim_owned(&self, shard: usize, ev: &NewEvent) -> Option<u32> {
        let head = &self.heads.get(shard)?.next;
        let counter = head.load(Ordering::Relaxed);
        head.store(counter.wrapping_add(1), Ordering::Relaxed);
        let (index, tag) = Self::place(shard, counter);
        let slot = self.slots.get(index)?;
        slot.try_claim_owned(tag, &fill_of(ev, counter))
            .then_some((tag << 16) | index as u32)
    }

    /// Skips live slots: tries every slot of `ev`'s shard once, then of every shared shard.
    #[cold]
    #[inline(never)]
    fn claim_slow(&self, ev: NewEvent) -> Option<u32> {
        let first = ev.shard.index as usize;
        if ev.shard.owned {
            let own = first & S.wrapping_sub(1);
            for _ in 0..P {
                if let Some(seq) = self.try_claim_owned(own, &ev) {
                    return Some(seq);
                }
            }
        }
        for k in 0..S {
            let shard = first.wrapping_add(k) & S.wrapping_sub(1);
            if !is_shared(shard) {
                continue;
            }
            for _ in 0..P {
                if let Some(seq) = self.try_claim(shard, &ev) {
                    return Some(seq);
                }
            }
        }
        self.unrecorded.fetch_add(1, Ordering::Relaxed);
        None
    }

    /// Whether `seq` is the live event in its slot.
    #[cfg(test)]
    pub(crate) fn owns(&self, seq: u32) -> bool {
        self.slot(seq).is_some_and(|slot| slot.is_live(seq >> 16))
    }

    /// Writes hop number `n` of the live event `seq`, on behalf of the one error that owns it
    /// (and counts its hops).
    #[inline(always)]
    pub(crate) fn hop_owned(
        &self,
        seq: u32,
        n: u32,
        location: &'static Location<'static>,
        message: Option<&'static str>,
    ) {
        if let Some(slot) = self.slot(seq) {
            slot.hop_owned(n, location, message);
        }
    }

    /// Whether the live event `seq` was made at `location` (owner only).
    #[inline]
    pub(crate) fn made_at(&self, seq: u32, location: &'static Location<'static>) -> bool {
        self.slot(seq).is_some_and(|slot| slot.made_at(location))
    }

    /// Counts the live event `seq`, which took a hop, at its site ("propagated"), in the
    /// counters of `shard` (the releasing context's); its owner calls this before releasing it.
    pub(crate) fn travelled(&self, seq: u32, shard: Shard) {
        let Some(slot) = self.slot(seq) else { return };
        if let Some(site) = slot.site() {
            site.count(shard, Count::Propagated);
        }
    }

    /// The origin site of the live event `seq` (owner only).
    #[inline]
    pub(crate) fn site_owned(&self, seq: u32) -> Option<SiteRef> {
        self.slot(seq)?.site().map(|state| SiteRef { state })
    }

    /// The origin of the live event `seq` (owner only).
    pub(crate) fn origin_owned(&self, seq: u32) -> Option<Origin> {
        let slot = self.slot(seq)?;
        origin_of(slot.loc(), slot.site().map(|state| SiteRef { state }))
    }

    /// The CPU that made the live event `seq` (owner only).
    pub(crate) fn cpu_owned(&self, seq: u32) -> Option<u32> {
        Some(self.slot(seq)?.cpu())
    }

    /// The trail of the live event `seq`, which took `hops` hops, read in place:
    /// `(kept hops, total hops)` (for its owner always whole).
    pub(crate) fn trail_owned(&self, seq: u32, hops: u32) -> (impl Iterator<Item = Hop> + '_, u32) {
        let mut trail = self.slot(seq).and_then(|s| s.trail(seq >> 16, hops));
        let total = trail.as_ref().map_or(0, |(_, total)| *total);
        // One trail or none (no `Flatten`, which would keep three on a report's stack).
        (core::iter::from_fn(move || trail.as_mut()?.0.next()), total)
    }

    /// Releases the live event `seq`, which took `hops` hops (owner only): its error is gone;
    /// the event stays readable, with its hop count, until the shard wraps over it.
    #[inline]
    pub(crate) fn release_owned(&self, seq: u32, hops: u32) {
        if let Some(slot) = self.slot(seq) {
            slot.release_owned(hops);
        }
    }

    /// Keeps the foreign error's text for the live event `seq` (owner only).
    #[cfg(all(feature = "std", not(loom)))]
    pub(crate) fn set_detail_owned(&self, seq: u32, text: &str) {
        if let Some(slot) = self.slot(seq) {
            slot.set_detail_owned(seq >> 16, text);
        }
    }

    /// The foreign error's text of the live event `seq`. Owner only, through a borrow of the
    /// error: the result must not outlive that borrow (see `Error::detail`).
    #[cfg(all(feature = "std", not(loom)))]
    pub(crate) fn detail_owned(&self, seq: u32) -> Option<&str> {
        self.slot(seq)?.detail_owned(seq >> 16)
    }

    /// Frees the foreign error's text of the live event `seq` (owner only, before releasing).
    #[cfg(all(feature = "std", not(loom)))]
    pub(crate) fn free_detail_owned(&self, seq: u32) {
        if let Some(slot) = self.slot(seq) {
            slot.free_detail_owned();
        }
    }

    /// Marks the live event `seq` as reported.
    #[inline]
    pub(crate) fn mark_reported(&self, seq: u32) {
        if let Some(slot) = self.slot(seq) {
            slot.mark_reported(seq >> 16);
        }
    }

    /// The sequence number of the live event `seq` (owner only): its whole claim number and
    /// its index.
    pub(crate) fn seq_owned(&self, seq: u32) -> u64 {
        let high = self
            .slot(seq)
            .map_or(0, |slot| slot.code_owned() & !CODE_BITS);
        (u64::from(high | (seq >> 16)) << 16) | u64::from(seq & 0xFFFF)
    }

    /// Whether the live event `seq` was marked reported.
    #[inline]
    pub(crate) fn is_reported(&self, seq: u32) -> bool {
        self.slot(seq)
            .is_some_and(|slot| slot.is_reported(seq >> 16))
    }

    /// Events that could not be recorded because every slot held a live error.
    pub(crate) fn unrecorded(&self) -> u32 {
        self.unrecorded.load(Ordering::Relaxed)
    }
}

/// The code word's bits that hold the code; the others hold the claim number's high half.
const CODE_BITS: u32 = 0xFFFF;

/// What claim number `counter` writes into a slot for `ev`.
#[inline(always)]
fn fill_of(ev: &NewEvent, counter: u32) -> Fill<SiteState> {
    Fill {
        code: u32::from(ev.code.get()) | (counter & !CODE_BITS),
        cpu: ev.cpu,
        site: ev.site.state(),
        loc: ev.location,
    }
}

/// `" or"` when a hop count is saturated (the error took at least that many hops), for
/// "(+N or more hops)".
pub(crate) fn or_more(total: u32) -> &'static str {
    if total >= crate::raw::HOP_COUNT_MAX {
        " or"
    } else {
        ""
    }
}

/// The global recorder.
#[cfg(not(loom))]
pub(crate) static RECORDER: Recorder<
    { crate::config::RECORDER_SHARDS },
    { crate::config::RECORDER_SLOTS / crate::config::RECORDER_SHARDS },
    { crate::config::RECORDER_SLOTS },
    { crate::config::HOPS },
> = Recorder::new();

/// Errors that found no free slot (every slot held a live error).
#[cfg(not(loom))]
pub fn unrecorded() -> u32 {
    RECORDER.unrecorded()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn site() -> SiteRef {
        crate::site::at_location(Location::caller())
    }

    fn ev(cpu: u32) -> NewEvent {
        NewEvent {
            shard: Shard::shared(cpu),
            code: crate::code::EIO,
            site: site(),
            location: None,
            cpu,
        }
    }

    fn owned(shard: u32) -> NewEvent {
        NewEvent {
            shard: Shard {
                index: shard,
                owned: true,
            },
            ..ev(shard)
        }
    }

    /// Live errors that outlast a lap keep their slots; later errors take the free ones: an
    /// owner's in its own shard, then in the shared one; no error is unrecorded until every
    /// slot it may claim is live. A shared claimer never claims in an owned shard.
    #[test]
    fn no_holes() {
        static R: Recorder<2, 4, 8, 2> = Recorder::new();
        // Four live errors in the owned shard 1 (a full shard), then many short-lived ones.
        let live: std::vec::Vec<u32> = (0..4).map(|_| R.claim(owned(1)).unwrap()).collect();
        assert!(live.iter().all(|s| (s & 0xFFFF) >= 4), "in shard 1");
        for _ in 0..20 {
            let s = R.claim(owned(1)).expect("the shared shard has room");
            assert!((s & 0xFFFF) < 4, "in shard 0");
            R.release_owned(s, 0);
        }
        assert_eq!(R.unrecorded(), 0);
        for s in &live {
            assert!(R.owns(*s), "a live error keeps its slot");
        }
        // Fill the shared shard too: only now is an error unrecorded.
        let more: std::vec::Vec<u32> = (0..4).map(|_| R.claim(ev(0)).unwrap()).collect();
        assert!(R.claim(owned(1)).is_none());
        assert_eq!(R.unrecorded(), 1);
        for s in live.iter().chain(more.iter()) {
            R.release_owned(*s, 0);
        }
        assert!(R.claim(owned(1)).is_some());
    }

    /// Shared claimers stay out of owned shards, even when those have room (with `std`: only
    /// there are shards owned).
    #[cfg(feature = "std")]
    #[test]
    fn shared_claims_never_enter_an_owned_shard() {
        static R: Recorder<2, 2, 4, 1> = Recorder::new();
        let shared: std::vec::Vec<u32> = (0..2).map(|_| R.claim(ev(0)).unwrap()).collect();
        assert!(shared.iter().all(|s| (s & 0xFFFF) < 2), "{shared:?}");
        assert!(R.claim(ev(0)).is_none(), "shard 1 is owned");
        let mine = R.claim(owned(1)).unwrap();
        assert!((mine & 0xFFFF) >= 2);
    }

    #[test]
    fn overwritten_and_unrecorded_are_told_apart() {
        static R: Recorder<1, 4, 4, 2> = Recorder::new();
        assert_eq!(
            R.read(0).unwrap_err(),
            Missing::Unrecorded,
            "a zeroed slot is empty"
        );
        let s = R.claim(ev(0)).unwrap();
        R.hop_owned(s, 0, Location::caller(), Some("ctx"));
        let (hops, total) = R.trail_owned(s, 1);
        assert_eq!(total, 1);
        assert_eq!(
            hops.map(|h| h.message).collect::<std::vec::Vec<_>>(),
            [Some("ctx")]
        );
        let seq = R.seq_owned(s);
        assert_eq!(R.read(seq).unwrap().total_hops(), 1, "a live event's cells");
        R.release_owned(s, 1);
        let e = R.read(seq).unwrap();
        assert!(!e.is_live());
        assert_eq!(e.total_hops(), 1);
        for _ in 0..4 {
            let n = R.claim(ev(0)).unwrap();
            R.release_owned(n, 0);
        }
        assert_eq!(R.read(seq).unwrap_err(), Missing::Overwritten { newer: 4 });
    }

    /// A number kept after its error ended never reads a later event, also when the later one
    /// has the same handle (its slot's claim 2^16 claims on: the handle's tag has wrapped).
    #[test]
    fn a_stale_number_never_reads_a_later_event() {
        static R: Recorder<1, 2, 2, 1> = Recorder::new();
        let s = R
            .claim(NewEvent {
                code: crate::code::EIO,
                ..ev(0)
            })
            .unwrap();
        let old = R.seq_owned(s);
        R.release_owned(s, 0);
        let mut same_handle = None;
        for _ in 0..(1u32 << 16) {
            let n = R
                .claim(NewEvent {
                    code: crate::code::ENOENT,
                    ..ev(0)
                })
                .unwrap();
            if n == s {
                same_handle = Some(R.seq_owned(n));
            }
            R.release_owned(n, 0);
        }
        let new = same_handle.expect("the handle comes round after 2^16 claims");
        assert_eq!(new as u32, old as u32, "the same low 32 bits");
        assert_ne!(new, old);
        assert_eq!(R.read(new).unwrap().code(), crate::code::ENOENT);
        assert_eq!(
            R.read(old).unwrap_err(),
            Missing::Overwritten { newer: 1 << 16 }
        );
        // A number from the future (never claimed) is nobody's.
        assert_eq!(R.read(new + (1 << 32)).unwrap_err(), Missing::Unrecorded);
    }

    /// An error counts its hops; its slot keeps the first ones and, past them, the count (for
    /// readers while it lives), and at its release the total.
    #[test]
    fn hops_past_the_cells_are_counted_in_the_state() {
        static R: Recorder<1, 2, 2, 2> = Recorder::new();
        let s = R.claim(ev(0)).unwrap();
        for n in 0..5 {
            R.hop_owned(s, n, Location::caller(), None);
        }
        let live = R.read(R.seq_owned(s)).unwrap();
        assert_eq!(live.total_hops(), 5);
        assert_eq!(live.hops().count(), 2);
        let (hops, total) = R.trail_owned(s, 5);
        assert_eq!((hops.count(), total), (2, 5));
        R.release_owned(s, 5);
        assert_eq!(R.read(R.seq_owned(s)).unwrap().total_hops(), 5);
        // The next event in the slot starts with no trail, though cells hold the last one's.
        let n = R.claim(ev(0)).unwrap();
        let n = if n & 0xFFFF == s & 0xFFFF {
            n
        } else {
            R.claim(ev(0)).unwrap()
        };
        assert_eq!(n & 0xFFFF, s & 0xFFFF);
        let fresh = R.read(R.seq_owned(n)).unwrap();
        assert_eq!((fresh.total_hops(), fresh.hops().count()), (0, 0));
    }

    /// A detail lives as long as its event's error, and a new event in the slot starts
    /// without one, even when the old one was never freed (a leaked error).
    #[cfg(feature = "std")]
    #[test]
    fn detail_is_freed_when_the_slot_is_claimed_again() {
        static R: Recorder<1, 2, 2, 2> = Recorder::new();
        let s = R.claim(ev(0)).unwrap();
        R.set_detail_owned(s, "invalid digit found in string");
        assert_eq!(R.detail_owned(s), Some("invalid digit found in string"));
        R.release_owned(s, 0);
        for _ in 0..2 {
            let n = R.claim(ev(0)).unwrap();
            assert_eq!(
                R.detail_owned(n),
                None,
                "no stale text from an earlier event"
            );
            R.release_owned(n, 0);
        }
    }

    #[test]
    #[allow(unsafe_code)]
    fn storage_is_zero_initialised() {
        // The global recorder is all zeros until used, so it lives in .bss, not .data.
        static R: Recorder<4, 8, 32, 8> = Recorder::new();
        // SAFETY: reading the bytes of a static made only of atomics, which no thread writes.
        let bytes = unsafe {
            core::slice::from_raw_parts(
                &R as *const _ as *const u8,
                core::mem::size_of::<Recorder<4, 8, 32, 8>>(),
            )
        };
        assert!(bytes.iter().all(|b| *b == 0));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::thread;

    fn leak<T>(t: T) -> &'static T {
        std::boxed::Box::leak(std::boxed::Box::new(t))
    }

    fn ev(cpu: u32) -> NewEvent {
        let list: &'static crate::site::SiteList = leak(crate::site::SiteList::new());
        let pool: &'static crate::site::LocationPool<1> = leak(crate::site::LocationPool::new());
        let state = pool.intern(Location::caller(), list).unwrap();
        NewEvent {
            shard: Shard::shared(cpu),
            code: crate::code::EIO,
            site: SiteRef { state },
            location: None,
            cpu,
        }
    }

    /// A reader never sees a torn event or another error's trail while the owner hops and
    /// releases and another thread claims over it.
    #[test]
    fn claim_hop_read_release() {
        loom::model(|| {
            let r: &'static Recorder<1, 2, 2, 2> = leak(Recorder::new());
            let e = ev(0);
            let handle = r.claim(e).unwrap();
            let seq = r.seq_owned(handle);
            let owner = thread::spawn(move || {
                r.hop_owned(handle, 0, Location::caller(), Some("one"));
                r.release_owned(handle, 1);
            });
            let other = thread::spawn(move || {
                if let Some(s) = r.claim(e) {
                    r.hop_owned(s, 0, Location::caller(), Some("other"));
                    r.release_owned(s, 1);
                }
            });
            match r.read(seq) {
                Ok(ev) => {
                    assert_eq!(ev.seq(), seq);
                    for h in ev.hops() {
                        assert_eq!(h.message, Some("one"), "never another error's trail");
                    }
                }
                Err(Missing::Busy | Missing::Overwritten { .. }) => {}
                Err(Missing::Unrecorded) => panic!("a claimed event is never unrecorded"),
            }
            owner.join().unwrap();
            other.join().unwrap();
        });
    }

    /// Two threads claim at once in a one-slot shard pair: both get a slot (the second
    /// shard), never the same one.
    #[test]
    fn concurrent_claims_take_distinct_slots() {
        loom::model(|| {
            let r: &'static Recorder<2, 1, 2, 1> = leak(Recorder::new());
            let e = ev(0);
            let t = thread::spawn(move || r.claim(e));
            let a = r.claim(e);
            let b = t.join().unwrap();
            assert!(a.is_some() && b.is_some());
            assert_ne!(a, b);
            assert_eq!(r.unrecorded(), 0);
        });
    }

    /// The owner of a shard claims its one slot again while the error that held it is hopped
    /// and released on another thread and a third thread reads it: the owner's plain claim takes
    /// the slot only once it was released (else it records in the shared shard), and neither
    /// event ever shows the other's trail.
    #[test]
    fn owned_claim_after_a_release_elsewhere() {
        loom::model(|| {
            let r: &'static Recorder<2, 1, 2, 1> = leak(Recorder::new());
            let mut e = ev(1);
            e.shard = Shard {
                index: 1,
                owned: true,
            };
            let handle = r.claim(e).unwrap();
            assert_eq!(handle & 0xFFFF, 1, "shard 1's slot");
            let seq = r.seq_owned(handle);
            let other = thread::spawn(move || {
                r.hop_owned(handle, 0, Location::caller(), Some("one"));
                r.release_owned(handle, 1);
            });
            let reader = thread::spawn(move || match r.read(seq) {
                Ok(ev) => assert!(ev.hops().all(|h| h.message == Some("one"))),
                Err(Missing::Busy | Missing::Overwritten { .. }) => {}
                Err(Missing::Unrecorded) => panic!("a claimed event is never unrecorded"),
            });
            let again = r.claim(e).unwrap();
            assert_ne!(again, handle);
            r.hop_owned(again, 0, Location::caller(), Some("two"));
            let (hops, total) = r.trail_owned(again, 1);
            assert_eq!(total, 1);
            assert!(hops.into_iter().all(|h| h.message == Some("two")));
            other.join().unwrap();
            reader.join().unwrap();
            r.release_owned(again, 1);
        });
    }

    /// The trail's publication: the owner of a live error hops (a plain hop, then one with a
    /// message) while another thread reads the event. The slot held an earlier event with more
    /// hops, so stale cells lie past the live trail's end. The reader sees a prefix of the live
    /// trail (each hop's message with it), never a cell of the earlier event, and its count is
    /// the hops it sees.
    #[test]
    fn hops_publish_a_prefix_without_a_count() {
        loom::model(|| {
            let r: &'static Recorder<1, 1, 1, 3> = leak(Recorder::new());
            let e = ev(0);
            let old = r.claim(e).unwrap();
            for n in 0..3 {
                r.hop_owned(old, n, Location::caller(), Some("old"));
            }
            r.release_owned(old, 3);
            let handle = r.claim(e).unwrap();
            let seq = r.seq_owned(handle);
            let plain: &'static Location<'static> = Location::caller();
            let owner = thread::spawn(move || {
                r.hop_owned(handle, 0, plain, None);
                r.hop_owned(handle, 1, Location::caller(), Some("new"));
                handle
            });
            match r.read(seq) {
                Ok(ev) => {
                    let hops: std::vec::Vec<_> = ev.hops().collect();
                    assert!(hops.len() <= 2, "{hops:?}");
                    assert_eq!(ev.total_hops() as usize, hops.len());
                    if let Some(first) = hops.first() {
                        assert!(core::ptr::eq(first.location, plain));
                        assert_eq!(first.message, None);
                    }
                    if let Some(second) = hops.get(1) {
                        assert_eq!(second.message, Some("new"));
                    }
                }
                Err(Missing::Busy) => {}
                Err(other) => panic!("the live event is readable: {other:?}"),
            }
            let handle = owner.join().unwrap();
            let (hops, total) = r.trail_owned(handle, 2);
            assert_eq!(total, 2);
            assert_eq!(hops.count(), 2);
            r.release_owned(handle, 2);
            assert_eq!(r.read(seq).unwrap().total_hops(), 2);
        });
    }
}
