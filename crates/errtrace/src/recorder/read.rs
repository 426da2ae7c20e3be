//! Reading the recorder: a consistent copy of one event, and every readable event in order.
//! Readers never block a writer; they retry a slot that changed under them and say why an
//! event is gone. Part of the storage layer's recorder.

use super::*;

impl<const S: usize, const P: usize, const N: usize, const H: usize> Recorder<S, P, N, H> {
    /// Reads a consistent copy of the event `seq` (`claim << 16 | index`).
    pub(crate) fn read(&self, seq: u64) -> Result<Event<H>, Missing> {
        let (Ok(claim), Ok(index)) = (u32::try_from(seq >> 16), u16::try_from(seq & 0xFFFF)) else {
            return Err(Missing::Unrecorded);
        };
        let handle = ((claim & 0xFFFF) << 16) | u32::from(index);
        let Some(slot) = self.slot(handle) else {
            return Err(Missing::Unrecorded);
        };
        // The slot holds `stored`: the event asked for was overwritten if that is later.
        let other = |stored: u32| {
            if stored.wrapping_sub(claim) >= 1 << 31 {
                return Missing::Unrecorded;
            }
            let shard = (usize::from(index) / P.max(1)) & S.wrapping_sub(1);
            let head = self
                .heads
                .get(shard)
                .map_or(0, |h| h.next.load(Ordering::Relaxed));
            Missing::Overwritten {
                newer: head.wrapping_sub(claim).wrapping_sub(1),
            }
        };
        match slot.copy(claim & 0xFFFF) {
            Ok(c) => {
                let Some(code) = Code::new((c.code & CODE_BITS) as u16) else {
                    return Err(Missing::Unrecorded);
                };
                // The same low half: the slot holds this claim, or one 2^16·k claims away.
                let stored = (c.code & !CODE_BITS) | c.tag;
                if stored != claim {
                    return Err(other(stored));
                }
                Ok(Event {
                    seq: (u64::from(claim) << 16) | u64::from(index),
                    code,
                    site: c.site.map(|state| SiteRef { state }),
                    loc: c.loc,
                    cpu: c.cpu,
                    live: c.live,
                    total_hops: c.total_hops,
                    hops: c.hops,
                })
            }
            Err(CopyError::Busy) => Err(Missing::Busy),
            Err(CopyError::Empty) => Err(Missing::Unrecorded),
            Err(CopyError::Other { tag, code }) => Err(other((code & !CODE_BITS) | tag)),
        }
    }

    /// Reads the event slot `index` holds with the claim number whose low half is `tag`.
    fn read_tagged(&self, index: usize, tag: u32) -> Result<Event<H>, Missing> {
        let slot = self.slots.get(index).ok_or(Missing::Unrecorded)?;
        let high = slot.copy(tag).map_or(0, |c| c.code & !CODE_BITS);
        self.read((u64::from(high | tag) << 16) | index as u64)
    }

    /// Calls `f` for each readable event, shard by shard: in each, first the live events older
    /// than the shard's last lap (their errors kept their slots), then the last lap, oldest
    /// first.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&Event<H>)) {
        for (shard, head) in self.heads.iter().enumerate() {
            let next = head.next.load(Ordering::Acquire);
            let base = shard.wrapping_mul(P);
            for i in 0..P {
                let index = base.wrapping_add(i);
                let Some(tag) = self.slots.get(index).and_then(|s| s.live_tag()) else {
                    continue;
                };
                let age = (next & 0xFFFF).wrapping_sub(tag) & 0xFFFF;
                if age > P as u32 {
                    if let Ok(ev) = self.read_tagged(index, tag) {
                        f(&ev);
                    }
                }
            }
            let first = next.wrapping_sub(P as u32);
            let mut counter = if next >= P as u32 { first } else { 0 };
            while counter != next {
                let index = base.wrapping_add(counter as usize & P.wrapping_sub(1));
                let seq = (u64::from(counter) << 16) | index as u64;
                if let Ok(ev) = self.read(seq) {
                    f(&ev);
                }
                counter = counter.wrapping_add(1);
            }
        }
    }
}

/// Calls `f` for each event in the global recorder, shard by shard, oldest first within a
/// shard.
#[cfg(not(loom))]
pub fn for_each(f: impl FnMut(&Event)) {
    RECORDER.for_each(f)
}

/// Reads one event of the global recorder by its sequence number ([`Error::seq`],
/// [`Event::seq`], [`Snapshot::seq`](crate::Snapshot::seq)).
///
/// A number kept after its error ended reads that error's event while the recorder still holds
/// it, then [`Missing::Overwritten`]: never a later error's event (the number carries the whole
/// claim count of its shard, which would have to wrap, 2^32 errors in one shard, to repeat).
///
/// # Errors
///
/// [`Missing`] when the event is not there.
///
/// [`Error::seq`]: crate::Error::seq
#[cfg(not(loom))]
pub fn read(seq: u64) -> Result<Event, Missing> {
    RECORDER.read(seq)
}
