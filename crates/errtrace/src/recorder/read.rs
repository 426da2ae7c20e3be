//! Reading the recorder: a consistent copy of one event, and every readable event in order.
//! Readers never block a writer; they retry a slot that changed under them and say why an
//! event is gone. Part of the storage layer's recorder.

use super::*;

impl<const S: usize, const P: usize, const N: usize, const H: usize> Recorder<S, P, N, H> {
    /// Reads a consistent copy of the event `seq`.
    pub(crate) fn read(&self, seq: u32) -> Result<Event<H>, Missing> {
        let Some(slot) = self.slot(seq) else {
            return Err(Missing::Unrecorded);
        };
        let tag = seq >> 16;
        match slot.copy(tag) {
            Ok(c) => {
                let Some(code) = Code::new((c.code & 0xFFF) as u16) else {
                    return Err(Missing::Unrecorded);
                };
                Ok(Event {
                    seq: (c.tag << 16) | (seq & 0xFFFF),
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
            Err(CopyError::Empty | CopyError::Other { ahead: None }) => Err(Missing::Unrecorded),
            Err(CopyError::Other { ahead: Some(_) }) => {
                let shard = ((seq & 0xFFFF) as usize / P.max(1)) & S.wrapping_sub(1);
                let head = self
                    .heads
                    .get(shard)
                    .map_or(0, |h| h.next.load(Ordering::Relaxed));
                Err(Missing::Overwritten {
                    newer: (head.wrapping_sub(tag) & 0xFFFF).wrapping_sub(1),
                })
            }
        }
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
                    if let Ok(ev) = self.read((tag << 16) | index as u32) {
                        f(&ev);
                    }
                }
            }
            let first = next.wrapping_sub(P as u32);
            let mut counter = if next >= P as u32 { first } else { 0 };
            while counter != next {
                let index = base.wrapping_add(counter as usize & P.wrapping_sub(1));
                let seq = ((counter & 0xFFFF) << 16) | index as u32;
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

/// Reads one event of the global recorder.
///
/// # Errors
///
/// [`Missing`] when the event is not there.
#[cfg(not(loom))]
pub fn read(seq: u32) -> Result<Event, Missing> {
    RECORDER.read(seq)
}
