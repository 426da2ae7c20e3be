// SPDX-License-Identifier: GPL-2.0
//! errtrace's platform hooks on Linux: the clock (`ktime_get_mono_fast_ns()`, NMI-safe), the
//! CPU id, the current task and the context of `errtrace::expecting` scopes (the current task;
//! none in interrupts),
//! and the defer hook (`defer.c`: in NMI, a new site's standing control queries are left to an
//! `irq_work`).

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

extern "C" {
    fn errtrace_linux_cpu_id() -> u32;
    fn errtrace_linux_clock_ns() -> u64;
    fn errtrace_linux_defer() -> bool;
    fn errtrace_linux_task() -> *mut kernel::ffi::c_void;
    fn errtrace_linux_defer_sync();
}

/// Whether [`install`] ran (a probe without it warns once: nothing of errtrace would print).
static INSTALLED: AtomicBool = AtomicBool::new(false);
static WARNED: AtomicBool = AtomicBool::new(false);

pub(crate) fn install() {
    INSTALLED.store(true, Relaxed);
    // Each hook can be set once per load of the module; a second call keeps the first.
    let _ = errtrace::platform::set_clock(clock_ns);
    let _ = errtrace::platform::set_cpu_id(cpu_id);
    let _ = errtrace::platform::set_context(task_context);
    let _ = errtrace::platform::set_defer(defer);
}

pub(crate) fn uninstall() {
    // SAFETY: `irq_work_sync()` on the module's own static irq_work, from process context.
    unsafe { errtrace_linux_defer_sync() };
}

fn clock_ns() -> u64 {
    // SAFETY: a C helper around ktime_get_mono_fast_ns(), callable from any context.
    unsafe { errtrace_linux_clock_ns() }
}

fn cpu_id() -> u32 {
    // SAFETY: a C helper around raw_smp_processor_id(), callable from any context.
    unsafe { errtrace_linux_cpu_id() }
}

/// The current task (`current`) in task context, 0 in interrupts: an interrupt does not take
/// the interrupted task's expectations.
fn task_context() -> usize {
    task() as usize
}

/// The current task in task context, null in interrupts.
pub(crate) fn task() -> *mut kernel::ffi::c_void {
    // SAFETY: a plain C helper, callable from any context.
    unsafe { errtrace_linux_task() }
}

/// Times [`defer`] said "later", and runs of the irq_work it queued.
static DEFERRED: AtomicU32 = AtomicU32::new(0);
static APPLIED_LATER: AtomicU32 = AtomicU32::new(0);

/// In NMI: queues the application of the standing queries (an irq_work) and says "later".
fn defer() -> bool {
    // SAFETY: `in_nmi()` and `irq_work_queue()` (NMI-safe) on the module's own irq_work.
    let later = unsafe { errtrace_linux_defer() };
    if later {
        DEFERRED.fetch_add(1, Relaxed);
    }
    later
}

/// The irq_work queued by [`defer`], once the NMI is over.
#[no_mangle]
extern "C" fn errtrace_linux_apply_deferred() {
    #[cfg(feature = "control")]
    errtrace::control::apply_deferred();
    APPLIED_LATER.fetch_add(1, Relaxed);
}

/// How many times errtrace left its standing queries for later (in NMI), and how many runs of
/// the irq_work applied them.
pub fn deferred_counts() -> (u32, u32) {
    (DEFERRED.load(Relaxed), APPLIED_LATER.load(Relaxed))
}

/// Warns once when errtrace is used without [`crate::install`]: errtrace would print nothing
/// (no sink), which a driver's author would take for a quiet driver.
pub(crate) fn warn_if_not_installed() {
    if INSTALLED.load(Relaxed) || WARNED.swap(true, Relaxed) {
        return;
    }
    crate::printk::print_line(
        4,
        "errtrace_linux::install() was not called in init: errtrace prints nothing",
    );
}
