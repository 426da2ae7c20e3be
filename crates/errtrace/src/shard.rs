//! Which shard of the recorder and the counters the current context writes, and whether it owns
//! it. Storage layer.
//!
//! The recorder's slots and the per-site counters are split into
//! [`config::RECORDER_SHARDS`](crate::config::RECORDER_SHARDS) shards. A shard is written in
//! one of two ways:
//!
//! - **Owned** (user space, with `std`): shard 0 stays shared; each other shard can be leased by
//!   one thread at a time, the first time that thread makes an error (one compare-and-exchange
//!   per thread), and is given back when the thread ends. Only the lease holder claims slots and
//!   counts in its shard, so it does so with plain loads and stores: no read-modify-write on the
//!   error path. Threads beyond the leases share shard 0.
//! - **Owned by a context** (without `std`, with the platform's
//!   shard hooks, `errtrace::platform::set_shard_hooks`): while it makes an error, a context owns
//!   the shard the hooks name (the kernel: its CPU's, with preemption off, in task context);
//!   others (the kernel: interrupts) share shard 0.
//! - **Shared**: without `std` and without shard hooks (bare metal) every shard is shared: a
//!   context writes the shard of its CPU (or thread) id modulo the shard count, with atomic
//!   read-modify-writes, since an interrupt or another task may write it at once.
//!
//! A shard is never written both ways: owned shards are never shared ones (with leases or
//! hooks only shard 0 is shared, and it is never owned).
//!
//! # Examples
//!
//! ```
//! // Every error of this thread is recorded in its own shard when one is free.
//! let e = errtrace::Error::new(errtrace::code::EIO);
//! assert!(e.seq().is_some());
//! e.handled();
//! ```

use crate::config::RECORDER_SHARDS;

/// Where the current context records and counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shard {
    /// The shard's index (below [`RECORDER_SHARDS`], or any value to be taken modulo it).
    pub(crate) index: u32,
    /// Whether this context holds the shard's lease: it alone writes there.
    pub(crate) owned: bool,
}

impl Shard {
    /// A shared shard (any context may write it).
    pub(crate) const fn shared(index: u32) -> Shard {
        Shard {
            index,
            owned: false,
        }
    }
}

/// Whether shard `index` may be written by any context (shared). Owned shards are not: only
/// their lease holder (or the context the platform's hooks gave it to) writes them.
#[inline(always)]
pub(crate) fn is_shared(index: usize) -> bool {
    index == 0 || !(LEASES_POSSIBLE || hooks_installed())
}

/// Whether the platform gave each context a shard (`set_shard_hooks`).
#[inline(always)]
fn hooks_installed() -> bool {
    #[cfg(all(not(feature = "std"), not(loom)))]
    return crate::raw::shard_hooks().is_some();
    #[cfg(not(all(not(feature = "std"), not(loom))))]
    false
}

/// The current context's shard, for as long as this lives: what [`current`] says, or, with
/// the platform's shard hooks, the shard they name, left again when this is dropped.
pub(crate) struct Entered {
    /// Where the context records and counts meanwhile.
    pub(crate) shard: Shard,
    /// The platform's `exit`, to call when done.
    #[cfg(all(not(feature = "std"), not(loom)))]
    exit: Option<fn()>,
}

impl Drop for Entered {
    #[inline(always)]
    fn drop(&mut self) {
        #[cfg(all(not(feature = "std"), not(loom)))]
        if let Some(exit) = self.exit {
            exit();
        }
    }
}

/// Enters the current context's shard (`cpu`: its CPU or thread id) for the stores of one
/// error: its counts and its recorder slot.
#[inline(always)]
pub(crate) fn enter(cpu: u32) -> Entered {
    #[cfg(all(not(feature = "std"), not(loom)))]
    if let Some((enter, exit)) = crate::raw::shard_hooks() {
        return Entered {
            shard: of_hook(enter()),
            exit: Some(exit),
        };
    }
    Entered {
        shard: current(cpu),
        #[cfg(all(not(feature = "std"), not(loom)))]
        exit: None,
    }
}

/// The shard a platform hook's `index` names: owned in `1..RECORDER_SHARDS`, else shard 0.
#[cfg_attr(any(feature = "std", loom), allow(dead_code))]
#[inline(always)]
fn of_hook(index: u32) -> Shard {
    if index != 0 && (index as usize) < RECORDER_SHARDS {
        Shard { index, owned: true }
    } else {
        Shard::shared(0)
    }
}

/// Whether leases are handed out in this build (user space with `std`, more than one shard).
const LEASES_POSSIBLE: bool = cfg!(all(feature = "std", not(loom))) && RECORDER_SHARDS > 1;

/// The current context's shard; `cpu` is its CPU or thread id.
#[cfg(all(feature = "std", not(loom)))]
#[inline(always)]
fn current(cpu: u32) -> Shard {
    if !LEASES_POSSIBLE {
        return Shard::shared(cpu);
    }
    lease::current()
}

/// The current context's shard; `cpu` is its CPU or thread id.
#[cfg(not(all(feature = "std", not(loom))))]
#[inline(always)]
fn current(cpu: u32) -> Shard {
    Shard::shared(cpu)
}

/// A table of `S` shard leases: entry 0 (the shared shard) is never handed out.
///
/// # Invariants
///
/// An entry is `true` while exactly one holder has it: set by [`Leases::take`]'s Acquire
/// exchange, cleared by that holder's [`Leases::give_back`] (Release), so everything a holder
/// wrote in its shard happens before the next holder's first write there.
// Leases are handed out with `std` only (and tested everywhere).
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) struct Leases<const S: usize> {
    leased: [crate::sync::AtomicBool; S],
}

#[cfg_attr(not(feature = "std"), allow(dead_code))]
impl<const S: usize> Leases<S> {
    /// No shard leased.
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Leases<S> {
        Leases {
            leased: [const { crate::sync::AtomicBool::new(false) }; S],
        }
    }

    /// No shard leased.
    #[cfg(loom)]
    pub(crate) fn new() -> Leases<S> {
        Leases {
            leased: core::array::from_fn(|_| crate::sync::AtomicBool::new(false)),
        }
    }

    /// Takes a free shard (1..S), if any.
    pub(crate) fn take(&self) -> Option<u32> {
        (1..S).find_map(|i| {
            let l = self.leased.get(i)?;
            l.compare_exchange(
                false,
                true,
                crate::sync::Ordering::Acquire,
                crate::sync::Ordering::Relaxed,
            )
            .is_ok()
            .then_some(i as u32)
        })
    }

    /// Gives shard `index` back (its holder only).
    pub(crate) fn give_back(&self, index: u32) {
        if let Some(l) = self.leased.get(index as usize).filter(|_| index != 0) {
            l.store(false, crate::sync::Ordering::Release);
        }
    }
}

#[cfg(all(feature = "std", not(loom)))]
mod lease {
    use super::{Leases, Shard};
    use crate::config::RECORDER_SHARDS;
    use core::cell::Cell;

    /// The process's leases.
    static LEASES: Leases<RECORDER_SHARDS> = Leases::new();

    /// Not asked yet.
    const UNASKED: u32 = 0;
    /// No shard was free, or the thread is ending: the thread uses the shared shard.
    const NONE: u32 = u32::MAX;

    std::thread_local! {
        /// The thread's lease: `UNASKED`, `NONE`, or the shard it holds (1..RECORDER_SHARDS).
        /// Constant-initialised and without a destructor: reading it is one TLS load.
        static HELD: Cell<u32> = const { Cell::new(UNASKED) };
        /// Gives the lease back when the thread ends (touched once, when the lease is taken,
        /// which registers its destructor).
        static GUARD: Guard = const { Guard };
    }

    /// The destructor of a thread's lease.
    struct Guard;

    impl Drop for Guard {
        /// The thread ends: errors it still makes (in other destructors) use the shared shard,
        /// and its shard is free for another thread.
        fn drop(&mut self) {
            let held = HELD.with(|h| h.replace(NONE));
            if held != UNASKED && held != NONE {
                LEASES.give_back(held);
            }
        }
    }

    /// The current thread's shard: its lease, taken on first use if one is free; else the
    /// shared shard 0.
    #[inline(always)]
    pub(super) fn current() -> Shard {
        match HELD.with(Cell::get) {
            NONE => Shard::shared(0),
            UNASKED => take(),
            index => Shard { index, owned: true },
        }
    }

    /// Takes a free shard's lease for this thread (once per thread).
    #[cold]
    #[inline(never)]
    fn take() -> Shard {
        let Some(index) = LEASES.take() else {
            HELD.with(|h| h.set(NONE));
            return Shard::shared(0);
        };
        // Registers the guard's destructor; fails only while the thread is being torn down.
        if GUARD.try_with(|_| ()).is_err() {
            LEASES.give_back(index);
            HELD.with(|h| h.set(NONE));
            return Shard::shared(0);
        }
        HELD.with(|h| h.set(index));
        Shard { index, owned: true }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_hook_index_names_an_owned_shard_or_the_shared_one() {
        assert_eq!(of_hook(0), Shard::shared(0));
        assert_eq!(of_hook(RECORDER_SHARDS as u32), Shard::shared(0));
        assert_eq!(of_hook(u32::MAX), Shard::shared(0));
        if RECORDER_SHARDS > 1 {
            let last = RECORDER_SHARDS as u32 - 1;
            assert_eq!(
                of_hook(1),
                Shard {
                    index: 1,
                    owned: true
                }
            );
            assert_eq!(
                of_hook(last),
                Shard {
                    index: last,
                    owned: true
                }
            );
        }
    }

    #[test]
    fn leases_skip_the_shared_shard_and_come_back() {
        let l: Leases<4> = Leases::new();
        assert_eq!(
            [l.take(), l.take(), l.take(), l.take()],
            [Some(1), Some(2), Some(3), None]
        );
        l.give_back(2);
        l.give_back(0); // never leased: nothing happens
        assert_eq!(l.take(), Some(2));
        assert_eq!(l.take(), None);
        let one: Leases<1> = Leases::new();
        assert_eq!(one.take(), None, "a single shard is always shared");
    }

    /// A thread holds one lease for its life; shard 0 is never leased.
    #[cfg(feature = "std")]
    #[test]
    fn a_thread_keeps_its_shard() {
        let (a, b) = std::thread::spawn(|| (current(7), current(7)))
            .join()
            .unwrap();
        assert_eq!(a, b, "one lease per thread");
        if RECORDER_SHARDS > 1 && a.owned {
            assert!(a.index >= 1 && (a.index as usize) < RECORDER_SHARDS);
            assert!(!is_shared(a.index as usize));
        } else {
            assert_eq!(a, Shard::shared(0));
        }
        assert!(is_shared(0));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::{AtomicU32, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    /// Two threads take leases of a two-shard table while one gives its back: never both hold
    /// shard 1, and a holder's plain write to its shard is seen by the next holder.
    #[test]
    fn one_holder_at_a_time_and_handover_is_ordered() {
        loom::model(|| {
            let l: Arc<Leases<2>> = Arc::new(Leases::new());
            let data = Arc::new(AtomicU32::new(0));
            let first = l.take();
            assert_eq!(first, Some(1));
            let (l2, d2) = (l.clone(), data.clone());
            let t = thread::spawn(move || {
                if l2.take() == Some(1) {
                    // The previous holder's write is visible (a plain, relaxed read).
                    assert_eq!(d2.load(Ordering::Relaxed), 5);
                    d2.store(6, Ordering::Relaxed);
                    l2.give_back(1);
                }
            });
            data.store(5, Ordering::Relaxed);
            l.give_back(1);
            t.join().unwrap();
        });
    }
}
