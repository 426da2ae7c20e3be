//! Per-shard counters of the hottest per-site counts (errors made, errors that travelled), so
//! that CPUs or threads making errors at the same site do not write one shared cache line.
//! Storage layer.
//!
//! Shard `s` (the shard the context writes, as in the recorder: see `shard.rs`) has its own block
//! of counters, written with plain loads and stores by the thread that owns the shard (user
//! space), or with atomic adds where contexts share it (the kernel, bare metal); one per site id
//! below
//! [`config::COUNTED_SITES`](crate::config::COUNTED_SITES) (entry 0 unused); a site's count is its own atomic
//! (for ids beyond the blocks, and for sites still being linked) plus its counter in every
//! block. Blocks start on their own cache lines; all zeros until used (`.bss`).

use crate::shard::Shard;
use crate::sync::{AtomicU32, Ordering};

/// One shard's block: `created` then `propagated`, indexed by site id (`1..M`; entry 0 is
/// never used, so an id indexes directly).
#[repr(align(64))]
struct Block<const M: usize> {
    created: [AtomicU32; M],
    propagated: [AtomicU32; M],
}

/// Which count.
#[derive(Clone, Copy)]
pub(crate) enum Count {
    /// Errors made at the site.
    Created,
    /// Errors made at the site that took at least one recorded hop.
    Propagated,
}

/// `S` shards of counters for the sites with ids `1..M`.
pub(crate) struct ShardedCounters<const S: usize, const M: usize> {
    blocks: [Block<M>; S],
}

impl<const S: usize, const M: usize> ShardedCounters<S, M> {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        ShardedCounters {
            blocks: [const {
                Block {
                    created: [const { AtomicU32::new(0) }; M],
                    propagated: [const { AtomicU32::new(0) }; M],
                }
            }; S],
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        ShardedCounters {
            blocks: core::array::from_fn(|_| Block {
                created: core::array::from_fn(|_| AtomicU32::new(0)),
                propagated: core::array::from_fn(|_| AtomicU32::new(0)),
            }),
        }
    }

    #[inline(always)]
    fn cell(&self, shard: u32, id: u32, which: Count) -> Option<&AtomicU32> {
        let block = self.blocks.get(shard as usize & S.wrapping_sub(1))?;
        let index = id as usize;
        if index == 0 {
            return None;
        }
        match which {
            Count::Created => block.created.get(index),
            Count::Propagated => block.propagated.get(index),
        }
    }

    /// Adds one to `which` of site `id` in `shard`'s block: a load and a store when the caller
    /// owns the shard (nobody else writes there), else an atomic add. False when the id has no
    /// counter here (0, or `M` and above): the caller counts in the site itself.
    #[inline]
    pub(crate) fn add(&self, shard: Shard, id: u32, which: Count) -> bool {
        match self.cell(shard.index, id, which) {
            Some(c) if shard.owned => {
                c.store(c.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
                true
            }
            Some(c) => {
                c.fetch_add(1, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// The sum of `which` of site `id` over all blocks.
    pub(crate) fn sum(&self, id: u32, which: Count) -> u32 {
        (0..S as u32).fold(0u32, |n, shard| {
            n.wrapping_add(
                self.cell(shard, id, which)
                    .map_or(0, |c| c.load(Ordering::Relaxed)),
            )
        })
    }
}

/// The global counters.
#[cfg(not(loom))]
pub(crate) static COUNTERS: ShardedCounters<
    { crate::config::RECORDER_SHARDS },
    { crate::config::COUNTED_SITES },
> = ShardedCounters::new();

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn blocks_sum_and_fall_back() {
        static C: ShardedCounters<4, 3> = ShardedCounters::new();
        let shared = Shard::shared;
        let owned = |index| Shard { index, owned: true };
        assert!(C.add(shared(0), 1, Count::Created));
        assert!(C.add(shared(3), 1, Count::Created));
        assert!(C.add(shared(7), 1, Count::Created)); // shard 7 is block 3
        assert!(C.add(owned(2), 1, Count::Created));
        assert!(C.add(owned(1), 2, Count::Propagated));
        assert!(
            !C.add(shared(0), 0, Count::Created),
            "id 0: not counted here"
        );
        assert!(
            !C.add(owned(1), 3, Count::Created),
            "beyond M: not counted here"
        );
        assert_eq!(C.sum(1, Count::Created), 4);
        assert_eq!(C.sum(1, Count::Propagated), 0);
        assert_eq!(C.sum(2, Count::Propagated), 1);
        // Different shards' blocks are on different cache lines.
        let a = &C.blocks[0] as *const _ as usize;
        let b = &C.blocks[1] as *const _ as usize;
        assert!(b - a >= 64 && a % 64 == 0);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// Two threads counting one site: one in the shard it owns (load and store) and in the
    /// shared one, the other in the shared one: no count is lost, and a reader summing while
    /// they count sees at most what was added.
    #[test]
    fn concurrent_adds_sum_up() {
        loom::model(|| {
            let c = Arc::new(ShardedCounters::<2, 2>::new());
            let (c2, c3) = (c.clone(), c.clone());
            let t = thread::spawn(move || {
                let own = Shard {
                    index: 1,
                    owned: true,
                };
                c2.add(own, 1, Count::Created);
                c2.add(own, 1, Count::Created);
                c2.add(Shard::shared(0), 1, Count::Created);
            });
            let reader = thread::spawn(move || c3.sum(1, Count::Created));
            c.add(Shard::shared(0), 1, Count::Created);
            t.join().unwrap();
            assert!(reader.join().unwrap() <= 4);
            assert_eq!(c.sum(1, Count::Created), 4);
        });
    }
}
