//! A site's mutable state: its id, list link, counters, runtime control flags and policy word,
//! and its rate-limit streams. All zeros when new. Part of the storage layer's sites.

use super::*;

/// A snapshot of a site's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Errors made here.
    pub created: u32,
    /// Errors made here that travelled through at least one recorded hop.
    pub propagated: u32,
    /// Messages printed for this site.
    pub logged: u32,
    /// Messages held back by the policy (rate limit, once, quiet).
    pub suppressed: u32,
    /// Errors made here that were dropped unhandled.
    pub dropped: u32,
}

/// Rate-limit state of one stream of messages (the algorithm is in `policy::ratelimit`).
pub(crate) struct RateState {
    /// The token bucket: when the next message may print (see `policy::ratelimit`).
    pub(crate) next: AtomicU32,
    /// `once`: 1 after the first message.
    pub(crate) printed: AtomicU32,
    /// Messages held back since the last one printed.
    pub(crate) missed: AtomicU32,
    /// Without a clock: the messages seen (the bucket's clock).
    pub(crate) events: AtomicU32,
}

impl RateState {
    /// Refills the bucket and forgets its counts (a new test starts from nothing).
    #[cfg(feature = "testing")]
    pub(crate) fn reset(&self) {
        self.next.store(0, Ordering::Relaxed);
        self.printed.store(0, Ordering::Relaxed);
        self.missed.store(0, Ordering::Relaxed);
        self.events.store(0, Ordering::Relaxed);
    }

    loom_const_fn! {
        pub(crate) fn new() -> RateState {
            RateState {
                next: AtomicU32::new(0),
                printed: AtomicU32::new(0),
                missed: AtomicU32::new(0),
                events: AtomicU32::new(0),
            }
        }
    }
}

/// `id` while the first user links the site. Its low 16 bits are 0 (the id an error carries)
/// and it is above every counted id.
pub(super) const LINKING: u32 = 0xFFFF_0000;
/// `id` of a linked site beyond the 65535th (low 16 bits 0, like `LINKING`).
pub(super) const NO_ID: u32 = 0xFFFE_0000;

/// `marks`: the kind hint of a location site (two bits)...
pub(super) const HINT_LOG: u32 = 1;
pub(super) const HINT_BOUNDARY: u32 = 2;
pub(super) const HINT_MASK: u32 = 3;
/// ...and whether the appeared hook still has to run for the site (the platform deferred it).
pub(super) const APPEARED_PENDING: u32 = 4;

/// A site's counters, control state and list link. All zeros when new (so pools of them live in
/// `.bss`).
///
/// # Invariants
///
/// `id` goes 0 → `LINKING` → the site's id (≥ 1), never back; `site` (static sites) or `loc`
/// (location sites) is written before the site is linked, and never changes after; `next` is
/// written once, before the Release compare-and-swap that links the site.
pub(crate) struct SiteState {
    pub(super) id: AtomicU32,
    pub(super) next: AtomicRef<SiteState>,
    pub(super) site: AtomicRef<Site>,
    pub(super) loc: AtomicRef<Location<'static>>,
    /// The kind hint (`HINT_*`) and `APPEARED_PENDING`.
    pub(super) marks: AtomicU32,
    pub(crate) created: AtomicU32,
    pub(crate) propagated: AtomicU32,
    pub(crate) logged: AtomicU32,
    pub(crate) suppressed: AtomicU32,
    pub(crate) dropped: AtomicU32,
    /// Control flags (see [`flags`]), including the print override bits.
    pub(crate) flags: AtomicU32,
    /// Runtime policy override (see `policy::Policy::encode`); 0 = none.
    pub(crate) policy: AtomicU32,
    /// The last code seen here, for listing and `code` matching.
    pub(crate) last_code: AtomicU32,
    pub(crate) log_rate: RateState,
    pub(crate) drop_rate: RateState,
}

impl SiteState {
    loom_const_fn! {
        pub(crate) fn new() -> SiteState {
            SiteState {
                id: AtomicU32::new(0),
                next: AtomicRef::none(),
                site: AtomicRef::none(),
                loc: AtomicRef::none(),
                marks: AtomicU32::new(0),
                created: AtomicU32::new(0),
                propagated: AtomicU32::new(0),
                logged: AtomicU32::new(0),
                suppressed: AtomicU32::new(0),
                dropped: AtomicU32::new(0),
                flags: AtomicU32::new(0),
                policy: AtomicU32::new(0),
                last_code: AtomicU32::new(0),
                log_rate: RateState::new(),
                drop_rate: RateState::new(),
            }
        }
    }

    /// Applies a control flags action, atomically (`p` sets `PRINT_ON` and clears `PRINT_OFF`;
    /// removing it, or setting flags without it, does the opposite).
    #[cfg(feature = "control")]
    pub(crate) fn update_flags(&self, op: FlagOp, bits: u32) {
        use flags::*;
        let _ = self
            .flags
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
                Some(match op {
                    FlagOp::Add => {
                        let mut n = old | bits;
                        if bits & PRINT_ON != 0 {
                            n &= !PRINT_OFF;
                        }
                        n
                    }
                    FlagOp::Remove => {
                        let mut n = old & !bits;
                        if bits & PRINT_ON != 0 {
                            n |= PRINT_OFF;
                        }
                        n
                    }
                    FlagOp::Set => {
                        if bits & PRINT_ON != 0 {
                            bits
                        } else {
                            bits | PRINT_OFF
                        }
                    }
                })
            });
    }

    pub(crate) fn counters(&self) -> Counters {
        #[cfg(not(loom))]
        let (created, propagated) = {
            use crate::counters::{Count, COUNTERS};
            let id = self.id();
            (
                COUNTERS.sum(id, Count::Created),
                COUNTERS.sum(id, Count::Propagated),
            )
        };
        #[cfg(loom)]
        let (created, propagated) = (0u32, 0u32);
        Counters {
            created: self.created.load(Ordering::Relaxed).wrapping_add(created),
            propagated: self
                .propagated
                .load(Ordering::Relaxed)
                .wrapping_add(propagated),
            logged: self.logged.load(Ordering::Relaxed),
            suppressed: self.suppressed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }

    /// The control flags in force: errtrace's own (its control queries), plus with the `dyndbg`
    /// feature what the kernel's dynamic_debug flags on the site's descriptor add.
    #[inline]
    pub(crate) fn flags(&self, order: Ordering) -> u32 {
        let f = self.flags.load(order);
        #[cfg(all(feature = "dyndbg", not(loom)))]
        let f = f | self.dyndbg_flags();
        f
    }

    #[cfg(all(feature = "dyndbg", not(loom)))]
    #[inline]
    fn dyndbg_flags(&self) -> u32 {
        match self.site.load(Ordering::Relaxed) {
            Some(site) => site
                .dyndbg
                .map_or(0, |(d, print)| dyndbg::overrides(d, site, print)),
            None => 0,
        }
    }

    /// Counts one `which` for this site: in `shard`'s block of the per-shard counters, or in
    /// the site's own atomic when its id has no counter in the blocks.
    #[inline(always)]
    pub(crate) fn count(&self, shard: crate::shard::Shard, which: crate::counters::Count) {
        #[cfg(not(loom))]
        if crate::counters::COUNTERS.add(shard, self.raw_id(), which) {
            return;
        }
        #[cfg(loom)]
        let _ = shard;
        let own = match which {
            crate::counters::Count::Created => &self.created,
            crate::counters::Count::Propagated => &self.propagated,
        };
        own.fetch_add(1, Ordering::Relaxed);
    }

    /// Marks the site as waiting for the appeared hook (see `list::appeared`).
    #[inline]
    pub(super) fn mark_appeared(&self) {
        self.marks.fetch_or(APPEARED_PENDING, Ordering::SeqCst);
    }

    /// Clears the appeared mark: whether it was set (the caller runs the hook then).
    #[inline]
    pub(super) fn take_appeared(&self) -> bool {
        self.marks.fetch_and(!APPEARED_PENDING, Ordering::SeqCst) & APPEARED_PENDING != 0
    }

    /// The raw id word: the id, or a value whose low 16 bits are 0 and which is above every
    /// counted id while the site is being linked (or beyond the 65535th site). For the hot path.
    #[inline(always)]
    pub(crate) fn raw_id(&self) -> u32 {
        self.id.load(Ordering::Relaxed)
    }

    /// The site's id (0 while it is being linked).
    #[inline]
    pub(crate) fn id(&self) -> u32 {
        match self.id.load(Ordering::Relaxed) {
            LINKING | NO_ID => 0,
            id => id,
        }
    }
}
