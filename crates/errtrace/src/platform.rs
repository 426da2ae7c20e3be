//! Platform hooks: the monotonic clock (for rate limits), the thread/CPU id (for the recorder
//! and the `t` flag), and the context of [`expecting`](crate::expecting()) scopes.
//!
//! Each hook is set at most once, at start-up, from any context, without allocation:
//!
//! - With the `std` feature the clock defaults to the coarse monotonic clock on Linux
//!   (`CLOCK_MONOTONIC_COARSE`: tick-granular, read without a system call, enough for rate
//!   limits; on x86-64 a thread reuses its last reading until its time-stamp counter has moved
//!   on by 2²⁰ cycles) and to [`std::time::Instant`] elsewhere, and the id to a small
//!   per-thread number; call [`set_clock`] / [`set_cpu_id`] before the first error to replace them
//!   (tests install a fake clock this way).
//! - In `no_std` there is no default: the kernel glue installs `ktime_get_ns` and
//!   `raw_smp_processor_id`. With no clock at all, rate limiting falls back to counting events
//!   (see [`policy`](crate::policy)).
//! - Without `std`, the shards (`set_shard_hooks`, in `no_std` builds only): which shard of the recorder and the
//!   counters the current context owns while it makes an error (the kernel glue: its CPU's,
//!   with preemption off, in task context).
//! - The context: what an [`expecting`](crate::expecting()) scope belongs to. With `std`, the
//!   thread; in `no_std` without a hook, one context for the whole program (bare metal); the
//!   kernel glue installs the current task in task context and "none" in interrupts
//!   ([`set_context`]).
//!
//! # Examples
//!
//! ```
//! use core::sync::atomic::{AtomicU64, Ordering};
//! static NOW: AtomicU64 = AtomicU64::new(0);
//! fn fake_clock() -> u64 { NOW.load(Ordering::Relaxed) }
//!
//! // Succeeds only for the first caller in the process.
//! let _ = errtrace::platform::set_clock(fake_clock);
//! ```

#[cfg(not(loom))]
use crate::raw::SetOnce;

pub use crate::raw::AlreadySet;

#[cfg(all(not(feature = "std"), not(loom)))]
pub use crate::raw::{set_shard_hooks, ShardEnterFn, ShardExitFn};

/// A monotonic clock in nanoseconds.
pub type ClockFn = fn() -> u64;
/// The current thread or CPU id.
pub type CpuIdFn = fn() -> u32;
/// The current context's id (a thread, a task), or 0 where no scope applies (an interrupt).
pub type ContextFn = fn() -> usize;
/// Whether the current context must leave errtrace's heavier bookkeeping for later (see
/// [`set_defer`]).
pub type DeferFn = fn() -> bool;

#[cfg(not(loom))]
static CLOCK: SetOnce<ClockFn> = SetOnce::new();
#[cfg(not(loom))]
static CPU_ID: SetOnce<CpuIdFn> = SetOnce::new();
#[cfg(not(loom))]
static CONTEXT: SetOnce<ContextFn> = SetOnce::new();
#[cfg(not(loom))]
static DEFER: SetOnce<DeferFn> = SetOnce::new();

/// Installs the monotonic nanosecond clock used by rate limits.
///
/// # Errors
///
/// [`AlreadySet`] when a clock was installed before (the first one stays).
#[cfg(not(loom))]
pub fn set_clock(clock: ClockFn) -> Result<(), AlreadySet> {
    CLOCK.set(clock).map_err(|_| AlreadySet)
}

/// Installs the thread/CPU id hook recorded with every event.
///
/// # Errors
///
/// [`AlreadySet`] when a hook was installed before.
#[cfg(not(loom))]
pub fn set_cpu_id(hook: CpuIdFn) -> Result<(), AlreadySet> {
    CPU_ID.set(hook).map_err(|_| AlreadySet)
}

/// Installs the context hook: the id of the thread or task an [`expecting`](crate::expecting())
/// scope belongs to, nonzero, the same for as long as the context lives and unique among live
/// contexts; 0 where no scope applies (in an interrupt, so that an interrupt does not take the
/// interrupted task's expectations). Install it before the first scope.
///
/// # Errors
///
/// [`AlreadySet`] when a hook was installed before.
#[cfg(not(loom))]
pub fn set_context(hook: ContextFn) -> Result<(), AlreadySet> {
    CONTEXT.set(hook).map_err(|_| AlreadySet)
}

/// Installs the defer hook, for platforms with a context that must not do more than the error
/// path (an NMI). The one work deferred today: applying the standing control queries
/// ([`control::apply`](crate::control::apply)) to a site that fires for the first time, a parse
/// of up to [`STANDING_BYTES`](crate::config::STANDING_BYTES) of text.
///
/// The hook returns `false` where that work may run now, and `true` where it must not, after it
/// has arranged a call to [`control::apply_deferred`](crate::control::apply_deferred) from a
/// context that may (the kernel glue: `in_nmi()`, then an `irq_work`). Until that call, the site
/// is decided by its defaults and the queries that were applied to it directly.
///
/// # Errors
///
/// [`AlreadySet`] when a hook was installed before.
#[cfg(not(loom))]
pub fn set_defer(hook: DeferFn) -> Result<(), AlreadySet> {
    DEFER.set(hook).map_err(|_| AlreadySet)
}

/// Whether the current context defers its heavier work (see [`set_defer`]); `false` without a
/// hook.
#[cfg(not(loom))]
pub(crate) fn defer() -> bool {
    DEFER.get().is_some_and(|h| h())
}

/// Milliseconds from the installed clock (or the `std` default), `None` without a clock.
#[cfg(not(loom))]
#[inline]
pub(crate) fn now_ms() -> Option<u32> {
    match CLOCK.get() {
        Some(c) => Some((c() / 1_000_000) as u32),
        None => default_clock_ms(),
    }
}

#[cfg(loom)]
pub(crate) fn now_ms() -> Option<u32> {
    None
}

/// The current thread/CPU id, `u32::MAX` when no hook is known.
#[cfg(not(loom))]
#[inline]
pub(crate) fn cpu_id() -> u32 {
    match CPU_ID.get() {
        Some(h) => h(),
        None => default_cpu_id(),
    }
}

#[cfg(loom)]
pub(crate) fn cpu_id() -> u32 {
    u32::MAX
}

/// The current context: the installed hook's, else the thread with `std`, else 1 (one context).
#[cfg(not(loom))]
pub(crate) fn context() -> usize {
    match CONTEXT.get() {
        Some(h) => h(),
        None => default_context(),
    }
}

#[cfg(all(feature = "std", not(loom)))]
fn default_context() -> usize {
    thread_number() as usize
}

#[cfg(all(not(feature = "std"), not(loom)))]
fn default_context() -> usize {
    1
}

/// The default clock in wrapping milliseconds.
#[cfg(all(feature = "std", target_os = "linux", not(loom)))]
#[inline]
fn default_clock_ms() -> Option<u32> {
    crate::raw::coarse_monotonic_ms()
}

#[cfg(all(feature = "std", not(target_os = "linux"), not(loom)))]
fn default_clock_ms() -> Option<u32> {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    let start = START.get_or_init(Instant::now);
    Some(start.elapsed().as_millis() as u32)
}

#[cfg(all(not(feature = "std"), not(loom)))]
fn default_clock_ms() -> Option<u32> {
    None
}

#[cfg(all(feature = "std", not(loom)))]
fn default_cpu_id() -> u32 {
    thread_number()
}

/// A small number of this thread's own (from 1), `u32::MAX` while the thread is being torn down.
#[cfg(all(feature = "std", not(loom)))]
fn thread_number() -> u32 {
    use crate::sync::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    std::thread_local! {
        // Constant-initialised and without a destructor: reading it is one TLS load.
        static ID: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
    }
    ID.try_with(|id| match id.get() {
        0 => {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            id.set(n);
            n
        }
        n => n,
    })
    .unwrap_or(u32::MAX)
}

#[cfg(all(not(feature = "std"), not(loom)))]
fn default_cpu_id() -> u32 {
    u32::MAX
}
