//! One slot of the flight recorder: a state word, the event's fields and its trail, and the
//! protocol that lets any number of readers copy a slot without locks while its owner writes
//! it. The recorder (`recorder.rs`) decides which slot an error gets; this module decides how a
//! slot is written and read, so every read of a text here is checked by the same code that
//! writes it.
//!
//! # The state word
//!
//! `tag << 16 | LIVE? | BUSY? | REPORTED? | WRITTEN? | count`: `tag` tells events apart (the
//! low 16 bits of the shard's count when the slot was claimed), LIVE that its error exists, BUSY
//! that a claimer is filling the fields, WRITTEN that it ever held an event, `count` the hops
//! taken, once the error is released or has taken more hops than the slot keeps.
//!
//! # The trail
//!
//! A live error counts its own hops (in its bits), so a hop writes the slot and nothing else:
//! hop `n` stores the end mark (null) in cell `n + 1`, then its location in cell `n` (Release).
//! A claim ends the trail at cell 0. A reader takes the cells up to the first end mark, so it
//! sees a prefix of the trail as it stands, never a cell of an earlier event; the state word
//! tells it whether the slot was claimed again meanwhile.

use crate::sync::{fence, AtomicU32, Ordering};
use core::panic::Location;

use super::hop::{message, Hop, HopLocs, HopMessage};
use super::AtomicRef;

const LIVE: u32 = 1 << 15;
const BUSY: u32 = 1 << 14;
/// The error was reported (its report formatted): it no longer counts as unhandled.
const REPORTED: u32 = 1 << 13;
/// The slot holds an event (a zeroed slot holds none).
const WRITTEN: u32 = 1 << 12;
const COUNT: u32 = WRITTEN - 1;
/// The most hops a slot counts; an error that took more shows this many ("or more").
pub(crate) const HOP_COUNT_MAX: u32 = COUNT;
const OWNER_MASK: u32 = !(COUNT | REPORTED);
const READ_TRIES: u32 = 8;

/// What a claimer writes into a slot.
pub(crate) struct Fill<T: Sync + 'static> {
    /// The event's code, and whatever else the recorder keeps beside it (its claim number's
    /// high half).
    pub(crate) code: u32,
    pub(crate) cpu: u32,
    pub(crate) site: &'static T,
    pub(crate) loc: Option<&'static Location<'static>>,
}

/// A consistent copy of a slot's event (without its trail's texts' validation left to do).
pub(crate) struct Copied<T: Sync + 'static, const H: usize> {
    pub(crate) tag: u32,
    pub(crate) code: u32,
    pub(crate) cpu: u32,
    pub(crate) site: Option<&'static T>,
    pub(crate) loc: Option<&'static Location<'static>>,
    pub(crate) live: bool,
    pub(crate) total_hops: u32,
    pub(crate) hops: [Option<Hop>; H],
}

/// Why a copy failed.
pub(crate) enum CopyError {
    /// The slot never held an event.
    Empty,
    /// The slot holds another event: its tag and code word (read consistently), from which
    /// the recorder tells whether it is newer or older than the one asked for.
    Other { tag: u32, code: u32 },
    /// Writers kept changing it.
    Busy,
}

/// An event slot, `T` the type of its site.
///
/// # Invariants
///
/// While BUSY is set, one claimer owns every field; it ends the trail at `locs[0]`. While LIVE
/// is set (and BUSY clear) only the owning error writes: hop `n` (the error counts them) ends
/// the trail at `locs[n + 1]` (for the last kept hop, the cell past them), writes `msgs[n]` if
/// it has a message, then `locs[n]` with a Release store; a hop past the kept cells stores the
/// count in the state instead (Release); the REPORTED bit; at last the release, which clears
/// LIVE and stores the count. So the cells
/// before the first end mark belong to the event the state names. A claim changes the state
/// (CAS to BUSY with a new tag, then a Release fence) before any field or cell is written again,
/// so a reader that saw a write made after the state it read first sees another state when it
/// looks again after an Acquire fence.
pub(crate) struct Slot<T: Sync + 'static, const H: usize> {
    state: AtomicU32,
    code: AtomicU32,
    cpu: AtomicU32,
    site: AtomicRef<T>,
    loc: AtomicRef<Location<'static>>,
    locs: HopLocs<H>,
    msgs: [HopMessage; H],
    /// With `std`: the foreign error's text (owner only; freed when its error ends).
    #[cfg(all(feature = "std", not(loom)))]
    detail: super::detail::DetailCell,
}

impl<T: Sync + 'static, const H: usize> Slot<T, H> {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        Slot {
            state: AtomicU32::new(0),
            code: AtomicU32::new(0),
            cpu: AtomicU32::new(0),
            site: AtomicRef::none(),
            loc: AtomicRef::none(),
            locs: HopLocs::new(),
            msgs: [const { HopMessage::new() }; H],
            #[cfg(feature = "std")]
            detail: super::detail::DetailCell::new(),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Slot {
            state: AtomicU32::new(0),
            code: AtomicU32::new(0),
            cpu: AtomicU32::new(0),
            site: AtomicRef::none(),
            loc: AtomicRef::none(),
            locs: HopLocs::new(),
            msgs: core::array::from_fn(|_| HopMessage::new()),
        }
    }

    /// The state a claim of the slot for `tag` starts from and the one it publishes, if the
    /// slot holds no live event (its state read with `order`).
    #[inline(always)]
    fn claimable(&self, tag: u32, order: Ordering) -> Option<(u32, u32)> {
        let cur = self.state.load(order);
        (cur & (LIVE | BUSY) == 0).then_some((cur, (tag << 16) | LIVE | WRITTEN))
    }

    /// Takes the slot for a new live event with `tag` (16 bits) if it holds no live event.
    #[inline(always)]
    pub(crate) fn try_claim(&self, tag: u32, fill: &Fill<T>) -> bool {
        let Some((cur, new)) = self.claimable(tag, Ordering::Relaxed) else {
            return false;
        };
        if self
            .state
            .compare_exchange(cur, new | BUSY, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.fill(new, fill);
        true
    }

    /// Takes the slot for a new live event with `tag` (16 bits) if it holds no live event, on
    /// behalf of the one context that claims slots in its shard (so nobody else claims it at
    /// once): plain stores, with the seqlock's BUSY state around them for readers.
    #[inline(always)]
    pub(crate) fn try_claim_owned(&self, tag: u32, fill: &Fill<T>) -> bool {
        // Acquire: the last owner's writes (its hops, its release) happen before these.
        let Some((_, new)) = self.claimable(tag, Ordering::Acquire) else {
            return false;
        };
        self.state.store(new | BUSY, Ordering::Relaxed);
        self.fill(new, fill);
        true
    }

    /// Writes a claimed slot's fields and publishes it as `new` (the claimer, with BUSY set).
    #[inline(always)]
    fn fill(&self, new: u32, fill: &Fill<T>) {
        // Make BUSY visible before any field changes (the seqlock writer's fence).
        fence(Ordering::Release);
        self.code.store(fill.code, Ordering::Relaxed);
        self.cpu.store(fill.cpu, Ordering::Relaxed);
        self.site.store(Some(fill.site), Ordering::Relaxed);
        self.loc.store(fill.loc, Ordering::Relaxed);
        if let Some(first) = self.locs.cells.first() {
            first.end();
        }
        self.state.store(new, Ordering::Release);
    }

    /// The code word of the live event (owner only: it wrote the word, or took the slot over
    /// with the error that did).
    pub(crate) fn code_owned(&self) -> u32 {
        self.code.load(Ordering::Relaxed)
    }

    /// Whether the slot holds the live event `tag`.
    #[cfg(test)]
    pub(crate) fn is_live(&self, tag: u32) -> bool {
        self.state.load(Ordering::Relaxed) & OWNER_MASK == (tag << 16) | LIVE | WRITTEN
    }

    /// Writes hop number `n` (the hops the error took before it), on behalf of the one error
    /// that owns the slot (which holds it live, so nobody else writes it). A hop past the kept
    /// cells only counts: the count goes to the state word, for readers.
    #[inline(always)]
    pub(crate) fn hop_owned(
        &self,
        n: u32,
        location: &'static Location<'static>,
        message: Option<&'static str>,
    ) {
        let i = n as usize;
        let Some(cell) = self.locs.cells.get(i) else {
            self.count_past_cells(n);
            return;
        };
        self.locs.end_after(i);
        let with_message = match (message, self.msgs.get(i)) {
            (Some(m), Some(halves)) => {
                halves.len.store(m.len(), Ordering::Relaxed);
                halves.ptr.store(m.as_ptr().cast_mut(), Ordering::Relaxed);
                true
            }
            _ => false,
        };
        // Release: the end mark and the message before the location.
        cell.set(location, with_message, Ordering::Release);
    }

    /// Publishes hop count `n + 1` in the state word (owner only), for a hop past the cells
    /// (reached out of line: the inline hop keeps below them).
    #[inline(always)]
    fn count_past_cells(&self, n: u32) {
        let st = self.state.load(Ordering::Relaxed);
        let total = n.wrapping_add(1).min(COUNT);
        self.state.store((st & !COUNT) | total, Ordering::Release);
    }

    /// Whether the event's origin is `location` (owner only).
    #[inline]
    pub(crate) fn made_at(&self, location: &'static Location<'static>) -> bool {
        self.loc().is_some_and(|l| core::ptr::eq(l, location))
    }

    /// Ends the live event, which took `hops` hops (owner only): its error is gone; the event
    /// stays readable, with its hop count, until the slot is claimed again.
    #[inline(always)]
    pub(crate) fn release_owned(&self, hops: u32) {
        let st = self.state.load(Ordering::Relaxed);
        let count = hops.min(COUNT);
        self.state
            .store((st & !(LIVE | COUNT)) | count, Ordering::Release);
    }

    /// Keeps the foreign error's text for the live event `tag` (owner only).
    #[cfg(all(feature = "std", not(loom)))]
    pub(crate) fn set_detail_owned(&self, tag: u32, text: &str) {
        self.detail.set(tag, text);
    }

    /// The foreign error's text of the live event `tag`, for as long as the caller's borrow of
    /// its error (owner only: the caller holds the error that owns this slot).
    #[cfg(all(feature = "std", not(loom)))]
    pub(crate) fn detail_owned(&self, tag: u32) -> Option<&str> {
        // SAFETY: the caller owns the slot (this is only reached through a live `&Error`, and
        // only its owner frees the text, when the error ends), and `set_detail_owned` needs the
        // error's `&mut`, which cannot coexist with the borrow the result is tied to.
        unsafe { self.detail.get(tag) }
    }

    /// Frees the foreign error's text (owner only, before it releases the slot).
    #[cfg(all(feature = "std", not(loom)))]
    pub(crate) fn free_detail_owned(&self) {
        self.detail.free();
    }

    /// Marks the live event `tag` as reported.
    #[inline]
    pub(crate) fn mark_reported(&self, tag: u32) {
        let st = self.state.load(Ordering::Relaxed);
        if st & OWNER_MASK == (tag << 16) | LIVE | WRITTEN && st & REPORTED == 0 {
            self.state.store(st | REPORTED, Ordering::Release);
        }
    }

    /// Whether the live event `tag` was marked reported.
    #[inline]
    pub(crate) fn is_reported(&self, tag: u32) -> bool {
        let st = self.state.load(Ordering::Relaxed);
        st & OWNER_MASK == (tag << 16) | LIVE | WRITTEN && st & REPORTED != 0
    }

    /// The site (as written by the last claim; the owner's own).
    #[inline]
    pub(crate) fn site(&self) -> Option<&'static T> {
        self.site.load(Ordering::Relaxed)
    }

    /// The exact origin location, for location sites (the owner's own).
    #[inline]
    pub(crate) fn loc(&self) -> Option<&'static Location<'static>> {
        self.loc.load(Ordering::Relaxed)
    }

    /// The CPU or thread id (the owner's own).
    #[inline]
    pub(crate) fn cpu(&self) -> u32 {
        self.cpu.load(Ordering::Relaxed)
    }

    /// The tag of the live event the slot holds, if it holds one.
    pub(crate) fn live_tag(&self) -> Option<u32> {
        let st = self.state.load(Ordering::Acquire);
        (st & (LIVE | WRITTEN) == LIVE | WRITTEN).then_some(st >> 16)
    }

    /// The trail of event `tag`, which took `hops` hops (its owner knows), read in place:
    /// `(kept hops, total hops)`, `None` when the slot holds another event. Each hop is checked
    /// against the state word as it is read, and the trail ends early if the slot changed (never
    /// for its owner, which is the only writer).
    pub(crate) fn trail(&self, tag: u32, hops: u32) -> Option<(Trail<'_, T, H>, u32)> {
        let s1 = self.state.load(Ordering::Acquire);
        if s1 & WRITTEN == 0 || s1 & BUSY != 0 || s1 >> 16 != tag {
            return None;
        }
        Some((
            Trail {
                slot: self,
                state: s1,
                next: 0,
                end: (hops as usize).min(H),
            },
            hops,
        ))
    }

    /// A consistent copy of event `tag`.
    pub(crate) fn copy(&self, tag: u32) -> Result<Copied<T, H>, CopyError> {
        for _ in 0..READ_TRIES {
            let s1 = self.state.load(Ordering::Acquire);
            if s1 & BUSY != 0 {
                continue;
            }
            let code = self.code.load(Ordering::Relaxed);
            let cpu = self.cpu.load(Ordering::Relaxed);
            let site = self.site.load(Ordering::Relaxed);
            let loc = self.loc.load(Ordering::Relaxed);
            let mut raw = [(None, (core::ptr::null_mut(), 0usize)); H];
            let mut kept = 0u32;
            for (r, (cell, halves)) in raw
                .iter_mut()
                .zip(self.locs.cells.iter().zip(self.msgs.iter()))
            {
                // Acquire: the hop's end mark and message were written before its location.
                let Some((location, with_message)) = cell.get(Ordering::Acquire) else {
                    break;
                };
                let text = if with_message {
                    halves.halves()
                } else {
                    (core::ptr::null_mut(), 0)
                };
                *r = (Some(location), text);
                kept = kept.wrapping_add(1);
            }
            fence(Ordering::Acquire);
            if self.state.load(Ordering::Relaxed) != s1 {
                continue;
            }
            if s1 & WRITTEN == 0 {
                return Err(CopyError::Empty);
            }
            let stored = s1 >> 16;
            if stored != tag {
                return Err(CopyError::Other { tag: stored, code });
            }
            let mut hops = [None; H];
            for (h, (loc, (ptr, len))) in hops.iter_mut().zip(raw.iter()) {
                if let Some(location) = loc {
                    // SAFETY: the state word was the same before and after the reads (with the
                    // Acquire fence between), so the slot was not claimed again and the cells
                    // read belong to this event (the slot's invariant); a message's halves were
                    // read after its location marked `WITH_MESSAGE` (Acquire), so they are the
                    // halves of one `&'static str` (the message cell's invariant).
                    let message = unsafe { message(*ptr, *len) };
                    *h = Some(Hop { location, message });
                }
            }
            return Ok(Copied {
                tag,
                code,
                cpu,
                site,
                loc,
                live: s1 & LIVE != 0,
                // The state's count once released or past the cells, else the cells taken.
                total_hops: (s1 & COUNT).max(kept),
                hops,
            });
        }
        Err(CopyError::Busy)
    }
}

/// The hops of one event, read in place and checked one by one (see [`Slot::trail`]).
pub(crate) struct Trail<'a, T: Sync + 'static, const H: usize> {
    slot: &'a Slot<T, H>,
    state: u32,
    next: usize,
    end: usize,
}

impl<T: Sync + 'static, const H: usize> Iterator for Trail<'_, T, H> {
    type Item = Hop;

    // One copy for every reader of a trail (reports, dumps, probes): not inlined.
    #[inline(never)]
    fn next(&mut self) -> Option<Hop> {
        if self.next >= self.end {
            return None;
        }
        let cell = self.slot.locs.cells.get(self.next)?;
        let halves = self.slot.msgs.get(self.next)?;
        // Acquire: the hop's message was written before its location.
        let (location, with_message) = cell.get(Ordering::Acquire)?;
        let (ptr, len) = if with_message {
            halves.halves()
        } else {
            (core::ptr::null_mut(), 0)
        };
        fence(Ordering::Acquire);
        if self.slot.state.load(Ordering::Relaxed) != self.state {
            // The slot changed under us (only for a reader that does not own it): stop.
            self.end = 0;
            return None;
        }
        self.next = self.next.wrapping_add(1);
        // SAFETY: the state word is the one read (Acquire) before this trail began, again after
        // this cell's reads (with an Acquire fence between), so the slot was not claimed again
        // and `next` is below the hops its owner counted; the halves were read after the
        // location marked `WITH_MESSAGE` (Acquire), so they are the halves of one `&'static str`.
        let message = unsafe { message(ptr, len) };
        Some(Hop { location, message })
    }
}
