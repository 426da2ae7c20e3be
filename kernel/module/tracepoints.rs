// SPDX-License-Identifier: GPL-2.0
//! errtrace's events as kernel tracepoints: `errtrace:errtrace_error` and `errtrace:errtrace_hop`
//! (declared in `errtrace_trace.h`, defined in `errtrace_tp.c`).
//!
//! - Linux 6.13 and later (`cfg(linux_6_13)`): the kernel's own Rust tracepoint support. The C
//!   file also defines `rust_do_trace_<event>()` (`CREATE_RUST_TRACE_POINTS`, as for Rust
//!   binder's events), and Rust checks the tracepoint's static key with the kernel's
//!   `static_branch_unlikely!` before calling it: disabled, an event is a NOP. (The kernel's
//!   `declare_trace!` names its tracepoints in `kernel::bindings`, which an out-of-tree module's
//!   header is not part of, so the two halves it expands to are written out here.)
//! - Linux 6.12 has no Rust tracepoint support: Rust calls a C function that calls `trace_*()`.
//!
//! On both, errtrace calls [`error`]/[`hop`] only while the event is enabled: the tracepoints'
//! `reg` and `unreg` callbacks switch errtrace's flag through [`errtrace_glue_tp_enabled`], so
//! while nobody traces, an error costs one load and a branch here.

use errtrace::probe::{ErrorEvent, Event, HopEvent, Tracer};
use kernel::ffi::c_int;

// `struct tracepoint` holds a `lock_class_key`, which is empty without lockdep: rustc calls the
// type not FFI-safe, but Rust only takes these statics' addresses.
#[cfg(linux_6_13)]
#[allow(improper_ctypes)]
extern "C" {
    static __tracepoint_errtrace_error: kernel::bindings::tracepoint;
    static __tracepoint_errtrace_hop: kernel::bindings::tracepoint;
    #[allow(clippy::too_many_arguments)]
    fn rust_do_trace_errtrace_error(
        err: c_int,
        name: *const u8,
        name_len: usize,
        file: *const u8,
        file_len: usize,
        line: u32,
        func: *const u8,
        func_len: usize,
        site: u32,
        seq: u32,
    );
    fn rust_do_trace_errtrace_hop(
        err: c_int,
        seq: u32,
        file: *const u8,
        file_len: usize,
        line: u32,
    );
}

/// Fires the tracepoint `$name` with `$args` when its static key is on.
#[cfg(linux_6_13)]
macro_rules! fire {
    ($tp:ident, $do_trace:ident($($args:expr),* $(,)?)) => {{
        // SAFETY: `$tp` is the tracepoint's own `struct tracepoint`, defined in errtrace_tp.c
        // for the life of the module; querying its key is always allowed.
        let on = unsafe {
            kernel::jump_label::static_branch_unlikely!($tp, kernel::bindings::tracepoint, key)
        };
        if on {
            // SAFETY: the arguments are as `$do_trace`'s C prototype says (see the callers).
            unsafe { $do_trace($($args),*) }
        }
    }};
}

#[cfg(not(linux_6_13))]
extern "C" {
    #[allow(clippy::too_many_arguments)]
    fn errtrace_tp_error(
        err: c_int,
        name: *const u8,
        name_len: usize,
        file: *const u8,
        file_len: usize,
        line: u32,
        func: *const u8,
        func_len: usize,
        site: u32,
        seq: u32,
    );
    fn errtrace_tp_hop(err: c_int, seq: u32, file: *const u8, file_len: usize, line: u32);
}

/// Installs the tracer. Call once, in `init`, before the first error.
pub(crate) fn install() {
    // A second call (never made) would keep the first tracer, which is the same one.
    let _ = errtrace::probe::set_tracer(Tracer { error, hop });
}

fn error(e: &ErrorEvent) {
    let name = e.code.name();
    let file = e.origin.file;
    let func = e.origin.function.unwrap_or("");
    // Every pointer comes with its length and points into a `&'static str`; the C side copies
    // exactly that many bytes (`__string_len`). Callable from any context.
    #[cfg(linux_6_13)]
    fire!(
        __tracepoint_errtrace_error,
        rust_do_trace_errtrace_error(
            e.code.to_errno(),
            name.as_ptr(),
            name.len(),
            file.as_ptr(),
            file.len(),
            e.origin.line,
            func.as_ptr(),
            func.len(),
            e.site,
            e.seq,
        )
    );
    // SAFETY: as above.
    #[cfg(not(linux_6_13))]
    unsafe {
        errtrace_tp_error(
            e.code.to_errno(),
            name.as_ptr(),
            name.len(),
            file.as_ptr(),
            file.len(),
            e.origin.line,
            func.as_ptr(),
            func.len(),
            e.site,
            e.seq,
        )
    }
}

fn hop(h: &HopEvent) {
    // As in `error`: a `&'static str` and its length.
    #[cfg(linux_6_13)]
    fire!(
        __tracepoint_errtrace_hop,
        rust_do_trace_errtrace_hop(
            h.code.to_errno(),
            h.seq,
            h.file.as_ptr(),
            h.file.len(),
            h.line
        )
    );
    // SAFETY: as in `error`: a `&'static str` and its length.
    #[cfg(not(linux_6_13))]
    unsafe {
        errtrace_tp_hop(
            h.code.to_errno(),
            h.seq,
            h.file.as_ptr(),
            h.file.len(),
            h.line,
        )
    }
}

/// Called by the tracepoints' `reg` (first probe attached) and `unreg` (last probe gone)
/// callbacks, in process context under the tracepoints mutex. `which`: 0 errors, 1 hops.
#[no_mangle]
pub(crate) extern "C" fn errtrace_glue_tp_enabled(which: u32, on: bool) {
    let event = if which == 0 { Event::Error } else { Event::Hop };
    errtrace::probe::set_enabled(event, on);
}
