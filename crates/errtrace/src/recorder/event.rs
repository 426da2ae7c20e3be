//! What a reader gets from the recorder: a consistent copy of one event (its code, origin,
//! thread or CPU, and kept hops), or why there is none. Part of the storage layer's recorder.

use super::*;

/// A consistent copy of one event.
#[derive(Clone, Copy, Debug)]
pub struct Event<const H: usize = { crate::config::HOPS }> {
    pub(super) seq: u64,
    pub(super) code: Code,
    pub(super) site: Option<SiteRef>,
    pub(super) loc: Option<&'static Location<'static>>,
    pub(super) cpu: u32,
    pub(super) live: bool,
    pub(super) total_hops: u32,
    pub(super) hops: [Option<Hop>; H],
}

impl<const H: usize> Event<H> {
    /// The event's sequence number (also in the error: [`Error::seq`](crate::Error::seq)):
    /// its number in its shard and its slot, `number << 16 | slot`.
    pub fn seq(&self) -> u64 {
        self.seq
    }
    /// The event's number in its shard (the shard's count of errors before it): what
    /// [`dump`] prints after `#`.
    pub fn number(&self) -> u32 {
        (self.seq >> 16) as u32
    }
    /// The error code.
    pub fn code(&self) -> Code {
        self.code
    }
    /// The origin's site.
    pub fn site(&self) -> Option<SiteRef> {
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
    /// All hops taken, including those beyond the ones kept, up to [`Event::HOPS_COUNTED`]: past
    /// it the count stays there and [`Event::hops_saturated`] is `true` (the count is then a lower
    /// bound).
    pub fn total_hops(&self) -> u32 {
        self.total_hops
    }
    /// The most hops [`Event::total_hops`] counts.
    pub const HOPS_COUNTED: u32 = crate::raw::HOP_COUNT_MAX;
    /// Whether the hop count reached [`Event::HOPS_COUNTED`] and stopped there: the error took at
    /// least that many hops.
    pub fn hops_saturated(&self) -> bool {
        self.total_hops >= Self::HOPS_COUNTED
    }
    /// Hops taken but not kept (the "+N more").
    pub fn more_hops(&self) -> u32 {
        self.total_hops.saturating_sub(H as u32)
    }
    /// The kept hops, oldest (nearest the origin) first.
    pub fn hops(&self) -> impl Iterator<Item = Hop> + '_ {
        self.hops.iter().flatten().copied()
    }
    /// The origin.
    pub fn origin(&self) -> Option<Origin> {
        origin_of(self.loc, self.site)
    }
}

/// An event's origin: the exact location a location site's error was made at, else its site's.
pub(super) fn origin_of(
    loc: Option<&'static Location<'static>>,
    site: Option<SiteRef>,
) -> Option<Origin> {
    match (loc, site) {
        (Some(l), _) => Some(Origin::from_location(l)),
        (None, Some(s)) => Some(s.origin()),
        (None, None) => None,
    }
}

/// Why the recorder has no trail for a sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The error was never recorded (every slot held a live error).
    Unrecorded,
    /// The event was overwritten by newer ones (only possible for errors that no longer exist):
    /// its slot holds a later error's event now.
    Overwritten {
        /// How many claims its shard made since: the newer events, and the slots a claim found
        /// held by a live error and passed over (so at least the number of newer events).
        newer: u32,
    },
    /// Readers kept colliding with writers; try again.
    Busy,
}
