// SPDX-License-Identifier: GPL-2.0
//! Device context: errtrace lines about a device print like `dev_err!`'s (driver and device
//! name first), and a probe's error leaves with `dev_err_probe`'s rules.
//!
//! - [`probe`]`(dev, || body())`: a probe's body in a device scope, ended by
//!   [`probe_result`]'s rules; what a Rust driver's `probe` returns.
//! - [`with_device`]`(dev, || body())`: while `body` runs, every errtrace line this task
//!   prints — a creator's line, a boundary's report, a rate limit's summary — goes through
//!   `dev_printk` for the device: `errtrace-demo errtrace-demo.2: chip busy …`. Four identical
//!   devices failing the same way print four distinguishable lines. The scope is a closure,
//!   not a guard: no order of drops and no `mem::forget` can end it early or leave it behind,
//!   because safe code never holds it; it ends when `body` returns, and scopes nest strictly.
//!   Only a task that dies inside `body` (an oops) leaves it behind, harmlessly (below).
//! - [`probe_result`]: the end of a probe. `EPROBE_DEFER` becomes the device's deferral reason
//!   through the kernel's own `dev_err_probe` (listed in `/sys/kernel/debug/devices_deferred`
//!   with the error's origin); `ENOMEM` prints nothing (both are quiet by errtrace's default
//!   policy, like `dev_err_probe`); any other error that nobody reported is printed once, on
//!   the device, with its origin and trail; one its creator logged is not printed again.
//!
//! The scope is a slot in a small table keyed by the task (`current`): only the task that
//! claimed a slot writes it, so a lookup (which compares against its own task) never sees a
//! half-made entry, and nothing blocks or allocates. A scope holds a reference to its device
//! (`get_device()`), and a claimed slot one to its task (`get_task_struct()`): a task that dies
//! inside a scope (an oops runs no `Drop`) leaves its slot claimed, but the device it names stays
//! allocated and its `task_struct` cannot be reused, so no later task finds the slot and nothing
//! prints on a freed device. The cost of such a death is one slot and two references, leaked. Lookups happen only in task context: an
//! interrupt that makes an error does not borrow the interrupted task's device. A scope
//! entered while the task already has one (a probe that adds a child device synchronously)
//! swaps the device and restores it when its closure returns. With all slots taken, the scope is
//! inactive and lines print without the device (the module's `pr_*` prefix), which is the only
//! loss.

use crate::text::SliceWriter;
use core::fmt::Write;
use core::ptr;
use core::sync::atomic::{AtomicPtr, Ordering};
use errtrace::code::EPROBE_DEFER;
use kernel::device::Device;
use kernel::ffi::{c_int, c_void};

extern "C" {
    fn errtrace_linux_scope_hold(task: *mut c_void, dev: *mut c_void);
    fn errtrace_linux_scope_release(task: *mut c_void, dev: *mut c_void);
    fn errtrace_linux_dev_printk(dev: *mut c_void, level: c_int, text: *const u8, len: usize);
    fn errtrace_linux_dev_err_probe(
        dev: *mut c_void,
        err: c_int,
        text: *const u8,
        len: usize,
    ) -> c_int;
}

/// Tasks that can be inside a device scope at once (concurrent probes of this module).
const SLOTS: usize = 8;

/// One task's device.
///
/// # Invariants
///
/// `task` is null (free) or the task that claimed the slot, of which the slot holds a reference
/// (`get_task_struct()`) until it is freed; only that task writes `dev` and frees the slot. While
/// `task` is non-null, `dev` is null or a device of which the scope that stored it holds a
/// reference (`get_device()`) for as long as it is stored.
struct Slot {
    task: AtomicPtr<c_void>,
    dev: AtomicPtr<c_void>,
}

static TABLE: [Slot; SLOTS] = [const {
    Slot {
        task: AtomicPtr::new(ptr::null_mut()),
        dev: AtomicPtr::new(ptr::null_mut()),
    }
}; SLOTS];

/// The `struct device *` of `dev`, as C sees it.
pub fn raw(dev: &Device) -> *mut c_void {
    // `Device` is `#[repr(transparent)]` over `Opaque<bindings::device>` (6.12's `as_raw` is
    // not public): the same address.
    (dev as *const Device).cast_mut().cast()
}

/// Runs `body` in a device scope for `dev` in this task (see the module docs) and returns what
/// it returns.
pub fn with_device<R>(dev: &Device, body: impl FnOnce() -> R) -> R {
    crate::hooks::warn_if_not_installed();
    let _scope = Scope::enter(raw(dev));
    body()
}

/// The scope of one [`with_device`] call. Private: made and dropped only there, so scopes
/// end in the reverse order of their start, each exactly once.
///
/// # Invariants
///
/// `slot`, when set, is this task's slot; `previous` is what it held before this scope; `dev`
/// is the device this scope stored there, of which it holds a reference.
struct Scope {
    slot: Option<&'static Slot>,
    dev: *mut c_void,
    /// The device this task had before (a nested scope), restored on drop.
    previous: *mut c_void,
    /// Whether this scope claimed the slot (and so frees it).
    owner: bool,
}

impl Scope {
    fn enter(dev: *mut c_void) -> Scope {
        let me = crate::hooks::task();
        let mut scope = Scope {
            slot: None,
            dev,
            previous: ptr::null_mut(),
            owner: false,
        };
        if me.is_null() {
            return scope;
        }
        if let Some(slot) = TABLE.iter().find(|s| s.task.load(Ordering::Relaxed) == me) {
            // SAFETY: `dev` is borrowed by the caller for the scope's closure; the reference
            // taken here is dropped by this scope's `Drop`.
            unsafe { errtrace_linux_scope_hold(ptr::null_mut(), dev) };
            scope.previous = slot.dev.swap(dev, Ordering::Relaxed);
            scope.slot = Some(slot);
            return scope;
        }
        for slot in &TABLE {
            if slot
                .task
                .compare_exchange(ptr::null_mut(), me, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                // SAFETY: `me` is the current task and `dev` a device borrowed by the caller;
                // both references are dropped by this scope's `Drop`.
                unsafe { errtrace_linux_scope_hold(me, dev) };
                slot.dev.store(dev, Ordering::Relaxed);
                scope.slot = Some(slot);
                scope.owner = true;
                break;
            }
        }
        scope
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let Some(slot) = self.slot else { return };
        slot.dev.store(self.previous, Ordering::Relaxed);
        let task = if self.owner {
            let task = slot.task.load(Ordering::Relaxed);
            slot.task.store(ptr::null_mut(), Ordering::Release);
            task
        } else {
            ptr::null_mut()
        };
        // SAFETY: the references `enter` took: the device's, and the task's if this scope
        // claimed the slot.
        unsafe { errtrace_linux_scope_release(task, self.dev) };
    }
}

/// Slots claimed by some task (the scope self-check: none once every scope has ended).
pub fn claimed() -> usize {
    TABLE
        .iter()
        .filter(|s| !s.task.load(Ordering::Relaxed).is_null())
        .count()
}

/// The device of this task's scope, if it is in one (task context only).
pub(crate) fn current() -> Option<*mut c_void> {
    let me = crate::hooks::task();
    if me.is_null() {
        return None;
    }
    TABLE
        .iter()
        .find(|s| s.task.load(Ordering::Relaxed) == me)
        .map(|s| s.dev.load(Ordering::Relaxed))
        .filter(|d| !d.is_null())
}

/// Prints one line on `dev` at printk level `level` (3 err, 4 warning, 6 info, 7 debug).
///
/// # Safety
///
/// `dev` is a device a scope of this task holds (so it is alive).
pub(crate) unsafe fn dev_printk(dev: *mut c_void, level: c_int, line: &str) {
    // SAFETY: `dev` is alive by the caller's contract; `line` is valid for its length.
    unsafe { errtrace_linux_dev_printk(dev, level, line.as_ptr(), line.len()) };
}

/// A probe of `dev`: `body` runs in a device scope, and its error leaves with
/// [`probe_result`]'s rules, as the kernel error the driver core expects.
pub fn probe<T>(
    dev: &Device,
    body: impl FnOnce() -> errtrace::Result<T>,
) -> Result<T, kernel::error::Error> {
    with_device(dev, || match body() {
        Ok(v) => Ok(v),
        Err(e) => Err(kernel::error::Error::from_errno(probe_failed(dev, e))),
    })
}

/// The end of a probe of `dev`, with `dev_err_probe`'s rules (see the module docs): `0` on
/// success, the negative errno on failure (for a probe called from C).
pub fn probe_result(dev: &Device, result: errtrace::Result) -> c_int {
    let Err(e) = result else { return 0 };
    with_device(dev, || probe_failed(dev, e))
}

fn probe_failed(dev: &Device, e: errtrace::Error) -> c_int {
    if e.is(EPROBE_DEFER) {
        // The reason: the error's one line (code and origin); a label, not a report.
        let mut buf = [0u8; 160];
        let mut out = SliceWriter::new(&mut buf);
        let _ = write!(out, "{}", e);
        let len = out.finish();
        // SAFETY: `dev` is borrowed for this call; `buf` holds `len` initialised bytes.
        unsafe { errtrace_linux_dev_err_probe(raw(dev), e.to_errno(), buf.as_ptr(), len) };
    }
    errtrace::boundary_errno("probe", Err(e))
}
