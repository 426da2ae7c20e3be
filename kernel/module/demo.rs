// SPDX-License-Identifier: GPL-2.0
//! errtrace demo module, phase 1 of issue 6: proves the linking.
//!
//! One `.ko` made of this crate, the separately compiled `errtrace` library
//! crate, a host proc-macro (`#[errtrace_macros::trace]`) and a C object
//! (`demo_ctl.c`: module parameters and a debugfs file served by the
//! `extern "C"` functions below). Replaced by the real demo in a later phase.

// The kernel's own C types: kernel::ffi::c_char is u8, unlike core::ffi::c_char (i8 on x86-64).
use kernel::ffi::{c_char, c_int, c_long};
use core::fmt::Write;
use core::sync::atomic::{AtomicU32, Ordering};
use errtrace::{FixedBuf, Level, Sink, SinkSlot, SliceBuf};
use kernel::prelude::*;

module! {
    type: ErrtraceDemo,
    name: "errtrace_demo",
    author: "errtrace developers",
    description: "errtrace kernel demo (phase 1: linking a separate crate, a proc-macro and C)",
    license: "GPL",
}

extern "C" {
    fn errtrace_demo_c_init() -> c_int;
    fn errtrace_demo_c_exit();
    fn errtrace_demo_param_ctl() -> *const c_char;
    fn errtrace_demo_param_fail() -> c_int;
}

/// errtrace sink over printk.
struct Printk;

impl Sink for Printk {
    fn write(&self, level: Level, args: core::fmt::Arguments<'_>) {
        match level {
            Level::Err => pr_err!("{}\n", args),
            Level::Info => pr_info!("{}\n", args),
        }
    }
}

static PRINTK: Printk = Printk;
static PRINTK_SLOT: SinkSlot = SinkSlot(&PRINTK);

/// Number of writes to the control file.
static WRITES: AtomicU32 = AtomicU32::new(0);

/// The last query written to the control file.
struct Last(core::cell::UnsafeCell<FixedBuf<256>>);
// SAFETY: only accessed from the control file callbacks, which demo_ctl.c
// calls with its mutex held.
unsafe impl Sync for Last {}
static LAST: Last = Last(core::cell::UnsafeCell::new(FixedBuf::new()));

#[errtrace_macros::trace]
fn layer_b(n: u32) -> Result<u32, errtrace::Error> {
    if n > 2 {
        return Err(errtrace::Error::new(-22));
    }
    Ok(n)
}

#[errtrace_macros::trace]
fn layer_a(n: u32) -> Result<u32, errtrace::Error> {
    // A closure, not `map_err(errtrace::Error::hop)`: through a fn pointer,
    // #[track_caller] reports a line inside core::ops::function.
    let v = layer_b(n).map_err(|e| e.hop())?;
    Ok(v + 1)
}

fn to_kernel(e: errtrace::Error) -> Error {
    Error::from_errno(e.code())
}

/// Handles a write to debugfs `errtrace_demo/control`.
///
/// # Safety
///
/// `buf` points to `len` readable bytes; called with demo_ctl.c's mutex held.
#[no_mangle]
pub unsafe extern "C" fn errtrace_demo_control_write(buf: *const c_char, len: usize) -> c_long {
    // SAFETY: guaranteed by the caller.
    let bytes = unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) };
    let Ok(query) = core::str::from_utf8(bytes) else {
        return EINVAL.to_errno() as c_long;
    };
    let query = query.trim();
    if query == "fail" {
        pr_err!("control: rejected query {:?}\n", query);
        return EINVAL.to_errno() as c_long;
    }
    WRITES.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the mutex held by the caller serializes access to LAST.
    let last = unsafe { &mut *LAST.0.get() };
    last.clear();
    let _ = last.write_str(query);
    pr_info!("control: query {:?}\n", query);
    0
}

/// Fills `buf` with the control file's contents; returns the length.
///
/// # Safety
///
/// `buf` points to `len` writable bytes; called with demo_ctl.c's mutex held.
#[no_mangle]
pub unsafe extern "C" fn errtrace_demo_control_read(buf: *mut c_char, len: usize) -> c_long {
    // SAFETY: guaranteed by the caller.
    let out = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    let mut w = SliceBuf::new(out);
    // SAFETY: the mutex held by the caller serializes access to LAST.
    let last = unsafe { &*LAST.0.get() };
    let _ = writeln!(w, "writes: {}", WRITES.load(Ordering::Relaxed));
    let _ = writeln!(w, "last: {}", last.as_str());
    let _ = writeln!(w, "created: {}", errtrace::created());
    if let Some(site) = errtrace::last_site() {
        let _ = writeln!(w, "last_site: {}:{}", site.file(), site.line());
    }
    w.len() as c_long
}

struct ErrtraceDemo;

impl kernel::Module for ErrtraceDemo {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: plain getter in demo_ctl.c.
        if unsafe { errtrace_demo_param_fail() } == 1 {
            // Today's picture: init fails and the kernel prints nothing.
            return Err(EINVAL);
        }
        errtrace::set_sink(&PRINTK_SLOT);
        pr_info!("loaded ({})\n", errtrace::version());
        // SAFETY: demo_ctl.c returns its NUL-terminated parameter buffer.
        let ctl = unsafe { CStr::from_char_ptr(errtrace_demo_param_ctl()) };
        pr_info!("param ctl=\"{}\"\n", ctl);

        // A separate crate, #[track_caller] and a proc-macro-rewritten chain.
        match layer_a(3) {
            Ok(v) => pr_err!("layer_a unexpectedly returned {}\n", v),
            Err(e) => {
                let k = to_kernel(e);
                pr_info!(
                    "layer_a failed: {:?} (errno {}), origin {}:{}:{}, seq {}\n",
                    k,
                    e.code(),
                    e.origin().file(),
                    e.origin().line(),
                    e.origin().column(),
                    e.seq()
                );
            }
        }
        let ok = layer_a(1).map_err(to_kernel)?;
        pr_info!("layer_a(1) = {}\n", ok);
        pr_info!("type_name: {}\n", errtrace::type_name_of(&PRINTK_SLOT));
        let mut b = FixedBuf::<16>::new();
        let _ = write!(b, "{}-{}-{}", "fixed", "buffer", "truncates here");
        pr_info!("fixed buffer: \"{}\"\n", b.as_str());

        // SAFETY: called once, undone in drop.
        kernel::error::to_result(unsafe { errtrace_demo_c_init() })?;
        pr_info!("debugfs control file ready\n");
        Ok(ErrtraceDemo)
    }
}

impl Drop for ErrtraceDemo {
    fn drop(&mut self) {
        // SAFETY: init succeeded, so errtrace_demo_c_init ran.
        unsafe { errtrace_demo_c_exit() };
        errtrace::clear_sink();
        pr_info!("unloaded\n");
    }
}
