//! The only `unsafe` code compiled in errtrace itself (two macros expand `unsafe` into the
//! user's crate for the kernel's dynamic_debug: see `macros.rs`): atomic cells holding
//! `'static` references, a value set once, text that only grows, the coarse clock, an error seen
//! as its story (`Story`), the flight recorder's slot protocol ([`slot`]), and the future pinned
//! inside [`Expecting`].
//!
//! The flight recorder and the sites are written by many threads at once without locks, so the
//! references they hold (`&'static Location`, `&'static SiteState`, `&'static str`) live in
//! atomics. Turning a stored pointer back into a reference is the `unsafe` step; it is sound
//! because only `'static` references are ever stored (nothing is ever freed), which the types
//! here enforce, and, for a text's two halves, because the slot protocol that writes them is the
//! one that checks a read of them.
//!
//! These cells are exercised under valgrind's memcheck by the CI (see `.ci/run`).

#[cfg(feature = "dyndbg")]
pub(crate) mod ddebug;
#[cfg(all(feature = "std", not(loom)))]
pub(crate) mod detail;
pub(crate) mod hop;
mod pin;
pub(crate) mod slot;

pub use hop::Hop;
pub(crate) use hop::LOGGED_HERE;
pub use pin::Expecting;
pub(crate) use slot::{CopyError, Fill, Slot, HOP_COUNT_MAX};

#[cfg(all(not(loom), any(all(not(feature = "std"), feature = "control"), test)))]
use crate::sync::AtomicUsize;
use crate::sync::{AtomicPtr, AtomicU8, Ordering};
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

/// An atomic `Option<&'static T>`.
///
/// # Invariants
///
/// `ptr` is null or was obtained from a `&'static T`.
pub(crate) struct AtomicRef<T: Sync + 'static> {
    ptr: AtomicPtr<T>,
}

impl<T: Sync + 'static> AtomicRef<T> {
    #[cfg(not(loom))]
    pub(crate) const fn none() -> Self {
        AtomicRef {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    #[cfg(loom)]
    pub(crate) fn none() -> Self {
        AtomicRef {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    #[inline]
    pub(crate) fn store(&self, value: Option<&'static T>, order: Ordering) {
        let p = match value {
            Some(r) => r as *const T as *mut T,
            None => core::ptr::null_mut(),
        };
        self.ptr.store(p, order);
    }

    /// Replaces `current` with `new` (sequentially consistent); gives back what was there when
    /// it was not `current`.
    #[inline]
    pub(crate) fn compare_exchange(
        &self,
        current: Option<&'static T>,
        new: Option<&'static T>,
    ) -> Result<(), Option<&'static T>> {
        let p = |v: Option<&'static T>| match v {
            Some(r) => r as *const T as *mut T,
            None => core::ptr::null_mut(),
        };
        match self
            .ptr
            .compare_exchange(p(current), p(new), Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => Ok(()),
            // SAFETY: by the type invariant every stored pointer is null or came from a
            // `&'static T`, valid for `'static` reads.
            Err(now) => Err(unsafe { now.as_ref() }),
        }
    }

    #[inline]
    pub(crate) fn load(&self, order: Ordering) -> Option<&'static T> {
        let p = self.ptr.load(order);
        // SAFETY: by the type invariant `p` is null or came from a `&'static T`; the referent is
        // never freed or mutated through this pointer, so it is valid for `'static` reads.
        unsafe { p.as_ref() }
    }
}

/// The rest of an error's story, as the [`source`](core::error::Error::source) of every
/// [`Error`]: the function that made it and the trail, on one line
/// (`in demo::bus::read_reg; via src/sensor.rs:88:9 "reading chip id" -> src/main.rs:17:5`).
///
/// Error-chain printers that know nothing of errtrace walk `source()`: anyhow's `{:#}` and
/// `{:?}`, eyre, `std::error::Report`, a `Box<dyn Error>` or an `io::Error` carrying an errtrace
/// error. Through this piece of the chain they print the trail too, so an errtrace error keeps
/// its story wherever it travels. Formatting it is printing the whole story: it counts as
/// reporting the error, like `{:#}`.
///
/// # Invariants
///
/// Only ever exists behind a reference made from a `&Error` (`repr(transparent)`, see
/// [`Story::of`]): never built, moved or dropped by value.
#[cfg(all(feature = "std", not(loom)))]
#[repr(transparent)]
pub(crate) struct Story(pub(crate) crate::Error);

#[cfg(all(feature = "std", not(loom)))]
impl Story {
    /// `e` seen as its story.
    #[inline]
    pub(crate) fn of(e: &crate::Error) -> &Story {
        let p: *const crate::Error = e;
        // SAFETY: `Story` is `repr(transparent)` over `Error`, so both have one layout and a
        // valid `&Error` is a valid `&Story` for the same lifetime; a `Story` is never moved or
        // dropped by value (its invariant), so no second owner of the error is made.
        unsafe { &*p.cast::<Story>() }
    }
}

/// The hook was already set (a value set once, such as a platform hook or the sink); the first
/// one stays.
#[derive(Debug)]
pub struct AlreadySet;

impl core::fmt::Display for AlreadySet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("errtrace: this hook was already set")
    }
}

/// A value set at most once, then read by any thread without locks (the sink, the clock and the
/// CPU-id hook).
///
/// # Invariants
///
/// `value` is initialised exactly when `state` is `READY`, and is never written after that.
pub(crate) struct SetOnce<T: Copy> {
    state: AtomicU8,
    value: UnsafeCell<MaybeUninit<T>>,
}

const EMPTY: u8 = 0;
const WRITING: u8 = 1;
const READY: u8 = 2;

// SAFETY: the value is written once, by the thread that won the EMPTY→WRITING race, before the
// Release store of READY; readers read it only after an Acquire load of READY. `T: Send + Sync`
// makes sharing the copies across threads sound.
unsafe impl<T: Copy + Send + Sync> Sync for SetOnce<T> {}

impl<T: Copy> SetOnce<T> {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        SetOnce {
            state: AtomicU8::new(EMPTY),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        SetOnce {
            state: AtomicU8::new(EMPTY),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Sets the value; gives it back if a value was already set (or is being set).
    pub(crate) fn set(&self, value: T) -> Result<(), T> {
        if self
            .state
            .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return Err(value);
        }
        // SAFETY: winning EMPTY→WRITING gives this thread exclusive access to `value`; readers
        // do not look at it until READY is published below.
        unsafe { (*self.value.get()).write(value) };
        self.state.store(READY, Ordering::Release);
        Ok(())
    }

    #[inline]
    pub(crate) fn get(&self) -> Option<T> {
        if self.state.load(Ordering::Acquire) != READY {
            return None;
        }
        // SAFETY: READY (Acquire) means the value was initialised and will never change.
        Some(unsafe { (*self.value.get()).assume_init() })
    }
}

/// Enters the current context's shard: see [`set_shard_hooks`].
#[cfg(all(not(feature = "std"), not(loom)))]
pub type ShardEnterFn = fn() -> u32;
/// Leaves what [`ShardEnterFn`] entered.
#[cfg(all(not(feature = "std"), not(loom)))]
pub type ShardExitFn = fn();

/// The platform's shard hooks, without `std`: see [`set_shard_hooks`].
#[cfg(all(not(feature = "std"), not(loom)))]
static SHARD_HOOKS: SetOnce<(ShardEnterFn, ShardExitFn)> = SetOnce::new();

/// Gives each context its own shard of the flight recorder and of the per-site counters
/// (without `std`; with it, each thread leases one by itself): an error made between `enter`
/// and `exit` claims its slot and counts with plain loads and stores in the shard `enter`
/// returned, instead of compare-and-exchange and atomic adds in a shared one.
///
/// `enter` returns the current context's shard, an index in `1..`
/// [`RECORDER_SHARDS`](crate::config::RECORDER_SHARDS), or 0 (or any larger index) for the
/// shared shard 0 that every context may write; `exit` leaves it. errtrace calls them around
/// the few stores that make an error (and count one that travelled), never nested, and calls
/// nothing else in between. The Linux glue turns preemption off in `enter` and returns the
/// CPU's shard in task context and 0 in interrupts, which share shard 0.
///
/// # Errors
///
/// [`AlreadySet`] when hooks were installed before (the first ones stay).
///
/// # Safety
///
/// From a call of `enter` that returns an index `i` in `1..RECORDER_SHARDS` until the matching
/// call of `exit`, no other context (thread, task, interrupt, CPU) gets `i` from `enter`: the
/// shard's writes are plain, so two writers at once could both take one slot, and a report
/// could then read one error's message with another's length. Install the hooks before the
/// first error is made, while no other context can make one.
#[cfg(all(not(feature = "std"), not(loom)))]
pub unsafe fn set_shard_hooks(enter: ShardEnterFn, exit: ShardExitFn) -> Result<(), AlreadySet> {
    SHARD_HOOKS.set((enter, exit)).map_err(|_| AlreadySet)
}

/// The platform's shard hooks, if installed.
#[cfg(all(not(feature = "std"), not(loom)))]
#[inline]
pub(crate) fn shard_hooks() -> Option<(ShardEnterFn, ShardExitFn)> {
    SHARD_HOOKS.get()
}

/// Text that only grows: appended by one writer at a time, read by anyone without locks or
/// copies (control's standing queries).
///
/// # Invariants
///
/// `bytes[..len]` is valid UTF-8 and is never written again once `len` covers it; only the
/// holder of `writer` writes, and only past `len`.
#[cfg(all(not(loom), any(all(not(feature = "std"), feature = "control"), test)))]
pub(crate) struct AppendOnlyText<const N: usize> {
    bytes: UnsafeCell<[u8; N]>,
    len: AtomicUsize,
    writer: AtomicU8,
}

// SAFETY: readers only read `bytes[..len]` after an Acquire load of `len`, and those bytes are
// never written again; the one writer (holding `writer`) writes only past `len` and publishes
// with a Release store.
#[cfg(all(not(loom), any(all(not(feature = "std"), feature = "control"), test)))]
unsafe impl<const N: usize> Sync for AppendOnlyText<N> {}

/// Why an append did not happen.
#[cfg(all(not(loom), any(all(not(feature = "std"), feature = "control"), test)))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AppendError {
    /// Another writer is appending right now.
    Busy,
    /// No room left.
    Full,
}

#[cfg(all(not(loom), any(all(not(feature = "std"), feature = "control"), test)))]
impl<const N: usize> AppendOnlyText<N> {
    pub(crate) const fn new() -> Self {
        AppendOnlyText {
            bytes: UnsafeCell::new([0; N]),
            len: AtomicUsize::new(0),
            writer: AtomicU8::new(0),
        }
    }

    /// Appends `text` and then `end`, whole or not at all.
    pub(crate) fn append(&self, text: &str, end: u8) -> Result<(), AppendError> {
        if self
            .writer
            .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return Err(AppendError::Busy);
        }
        let len = self.len.load(Ordering::Relaxed);
        let result = match len.checked_add(text.len()).and_then(|n| n.checked_add(1)) {
            Some(new_len) if new_len <= N && end.is_ascii() => {
                let base = self.bytes.get() as *mut u8;
                // SAFETY: this thread holds `writer`, so it is the only one writing; it writes
                // only bytes `len..new_len` (in bounds: `new_len <= N`), through a raw pointer
                // (no reference to the whole buffer is made), and no reader looks at them before
                // the Release store of `new_len` below.
                unsafe {
                    core::ptr::copy_nonoverlapping(text.as_ptr(), base.add(len), text.len());
                    base.add(len.wrapping_add(text.len())).write(end);
                }
                self.len.store(new_len, Ordering::Release);
                Ok(())
            }
            _ => Err(AppendError::Full),
        };
        self.writer.store(0, Ordering::Release);
        result
    }

    /// Everything appended so far.
    pub(crate) fn get(&'static self) -> &'static str {
        let len = self.len.load(Ordering::Acquire);
        // SAFETY: by the invariant `bytes[..len]` is complete (published by the Release store
        // this Acquire load saw) and never written again, so a shared `'static` view of it is
        // sound; it was copied from `&str`s and ASCII bytes, so it is valid UTF-8.
        let bytes = unsafe { (*self.bytes.get()).get(..len).unwrap_or(&[]) };
        core::str::from_utf8(bytes).unwrap_or("")
    }
}

/// With `std`: a copy of `text` on the heap for the life of the process, or `None` when the
/// allocation fails (never a panic or an abort).
#[cfg(all(feature = "std", feature = "control", not(loom)))]
pub(crate) fn leak_str(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        return Some("");
    }
    let layout = std::alloc::Layout::array::<u8>(text.len()).ok()?;
    // SAFETY: `layout` has a non-zero size (the text is not empty).
    let ptr = unsafe { std::alloc::alloc(layout) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` is a fresh allocation of `text.len()` bytes, which cannot overlap `text`;
    // the bytes are copied from a `&str`, so they are UTF-8; the allocation is never freed, so
    // the result lives for `'static`.
    unsafe {
        core::ptr::copy_nonoverlapping(text.as_ptr(), ptr, text.len());
        Some(core::str::from_utf8_unchecked(core::slice::from_raw_parts(
            ptr,
            text.len(),
        )))
    }
}

/// With `std`: `value` moved to the heap for the life of the process, or `None` when the
/// allocation fails (never a panic or an abort). `T` must not be zero-sized.
#[cfg(all(feature = "std", feature = "control", not(loom)))]
pub(crate) fn leak<T: Sync>(value: T) -> Option<&'static T> {
    let layout = std::alloc::Layout::new::<T>();
    if layout.size() == 0 {
        return None;
    }
    // SAFETY: `layout` has a non-zero size (checked above).
    let ptr = unsafe { std::alloc::alloc(layout) }.cast::<T>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` is a fresh allocation for one `T`, aligned by its layout; it is written once
    // here and never freed, so a shared `'static` reference to it is valid (`T: Sync`).
    unsafe {
        ptr.write(value);
        Some(&*ptr)
    }
}

/// `CLOCK_MONOTONIC_COARSE` in wrapping milliseconds: the kernel's tick-granular monotonic clock, read
/// from the vDSO without a system call (a fraction of `Instant::now`'s cost); rate limits need
/// no finer. `None` if the call fails.
///
/// On x86-64 a thread reads the clock again only when its time-stamp counter has moved on by
/// [`REUSE_CYCLES`] since its last reading (well under the clock's own tick of 1 to 10 ms), and
/// otherwise returns that reading: a storm's messages cost one `rdtsc` each instead of a clock
/// read. A counter that went backwards (another CPU's) or jumped counts as moved on.
#[cfg(all(feature = "std", target_os = "linux", not(loom)))]
#[inline]
pub(crate) fn coarse_monotonic_ms() -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        std::thread_local! {
            // (time-stamp counter, milliseconds) of this thread's last clock reading; constant-
            // initialised, without a destructor: one TLS load.
            static LAST: core::cell::Cell<(u64, u32)> = const { core::cell::Cell::new((0, 0)) };
        }
        // SAFETY: `rdtsc` reads the time-stamp counter; it has no preconditions on x86-64.
        let tsc = unsafe { core::arch::x86_64::_rdtsc() };
        let (at, ms) = LAST.with(core::cell::Cell::get);
        if at != 0 && tsc.wrapping_sub(at) < REUSE_CYCLES {
            return Some(ms);
        }
        let ms = read_coarse_ms()?;
        LAST.with(|l| l.set((tsc, ms)));
        Some(ms)
    }
    #[cfg(not(target_arch = "x86_64"))]
    read_coarse_ms()
}

/// Time-stamp counter cycles for which a thread's last clock reading is reused: about 0.3 ms
/// at 3 GHz, 1 ms at 1 GHz.
#[cfg(all(
    feature = "std",
    target_os = "linux",
    target_arch = "x86_64",
    not(loom)
))]
const REUSE_CYCLES: u64 = 1 << 20;

/// Reads `CLOCK_MONOTONIC_COARSE` in wrapping milliseconds.
#[cfg(all(feature = "std", target_os = "linux", not(loom)))]
#[inline(never)]
fn read_coarse_ms() -> Option<u32> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec`; clock_gettime writes only into it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    if rc != 0 {
        return None;
    }
    // Wrapping milliseconds: the seconds' low bits times 1000, plus the milliseconds.
    let ms = (ts.tv_sec as u32)
        .wrapping_mul(1000)
        .wrapping_add((ts.tv_nsec / 1_000_000) as u32);
    Some(ms)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn atomic_ref_round_trip() {
        static X: u32 = 7;
        let r = AtomicRef::<u32>::none();
        assert!(r.load(Ordering::Acquire).is_none());
        r.store(Some(&X), Ordering::Release);
        assert_eq!(r.load(Ordering::Acquire), Some(&7));
        r.store(None, Ordering::Release);
        assert!(r.load(Ordering::Acquire).is_none());
    }

    #[cfg(feature = "std")]
    #[test]
    fn leaked_copies() {
        assert_eq!(leak_str("abc"), Some("abc"));
        assert_eq!(leak_str(""), Some(""));
        assert_eq!(leak(7u64).copied(), Some(7));
    }

    #[test]
    fn append_only_text() {
        static T: AppendOnlyText<8> = AppendOnlyText::new();
        assert_eq!(T.get(), "");
        assert_eq!(T.append("abc", b'\n'), Ok(()));
        assert_eq!(T.append("defg", b'\n'), Err(AppendError::Full));
        assert_eq!(T.get(), "abc\n");
        assert_eq!(T.append("de", b';'), Ok(()));
        assert_eq!(T.get(), "abc\nde;");
    }

    #[test]
    fn set_once_sets_once() {
        let c = SetOnce::<u64>::new();
        assert_eq!(c.get(), None);
        assert_eq!(c.set(1), Ok(()));
        assert_eq!(c.set(2), Err(2));
        assert_eq!(c.get(), Some(1));
    }
}
