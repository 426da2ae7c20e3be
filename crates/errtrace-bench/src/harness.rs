//! What runs inside the measured process: the entry point callgrind collects, the counting
//! allocator, the discarding report sink and the no-op errtrace sink.

use core::sync::atomic::{AtomicU64, Ordering};
use std::alloc::{GlobalAlloc, Layout, System};

/// The function callgrind collects (`--toggle-collect=errtrace_bench_measure`): it runs `n`
/// iterations of one case. Its fixed cost (this call, the loop set-up) cancels out in the
/// difference of two runs with different `n`.
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_measure(run: fn(u64), n: u64) {
    run(core::hint::black_box(n));
}

/// A `core::fmt::Write` sink that discards everything (it only stops the optimiser from
/// deleting the formatting).
pub struct Discard;

impl core::fmt::Write for Discard {
    #[inline]
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        core::hint::black_box(s);
        Ok(())
    }
}

/// Heap allocations (alloc, alloc_zeroed, realloc) since the start or the last [`reset_allocs`].
static ALLOCS: AtomicU64 = AtomicU64::new(0);

/// Counts allocations, then defers to the system allocator. Counting costs one `lock add`
/// per allocation, which is inside the measured code of the peers that allocate.
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the same arguments; counting has no effect on
// the memory handed out.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations so far.
pub fn allocs() -> u64 {
    ALLOCS.load(Ordering::Relaxed)
}

/// Starts counting from zero.
pub fn reset_allocs() {
    ALLOCS.store(0, Ordering::Relaxed);
}

/// An errtrace sink that drops every record, so the benchmark prints nothing.
struct NoopSink;

impl errtrace::sink::Sink for NoopSink {
    fn emit(&self, record: &errtrace::sink::Record<'_>) {
        core::hint::black_box(record);
    }
}

static NOOP: NoopSink = NoopSink;

/// Installs the no-op sink (before the first error of the process).
pub fn install_noop_sink() {
    // Only fails if a sink was set before, in which case that one stays: nothing to do.
    let _ = errtrace::sink::set_sink(&NOOP);
}
