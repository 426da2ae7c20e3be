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
//! - Linux 6.12 has no Rust tracepoint support: the C file writes out the same
//!   `rust_do_trace_<event>()` functions, calling `trace_*()`, and Rust calls them.
//!
//! On both, errtrace calls [`error`]/[`hop`] only while the event is enabled: the tracepoints'
//! `reg` and `unreg` callbacks switch errtrace's flag through [`errtrace_linux_tp_enabled`], so
//! while nobody traces, an error costs one load and a branch here.

use errtrace::probe::{ErrorEvent, Event, HopEvent, Tracer};
use kernel::ffi::c_int;

extern "C" {
    /// Fires `errtrace:errtrace_error` (errtrace_tp.c: made by `CREATE_RUST_TRACE_POINTS` on 6.13+,
    /// written out on 6.12, where it calls `trace_errtrace_error()`).
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
    /// Fires `errtrace:errtrace_hop` (as above).
    fn rust_do_trace_errtrace_hop(
        err: c_int,
        seq: u32,
        file: *const u8,
        file_len: usize,
        line: u32,
    );
}

// `struct tracepoint` holds a `lock_class_key`, which is empty without lockdep: rustc calls the
// type not FFI-safe, but Rust only takes these statics' addresses.
#[cfg(linux_6_13)]
#[allow(improper_ctypes)]
extern "C" {
    static __tracepoint_errtrace_error: kernel::bindings::tracepoint;
    static __tracepoint_errtrace_hop: kernel::bindings::tracepoint;
}

/// Calls `$do_trace($args)` when the tracepoint `$tp` is enabled: on 6.13+ a static branch on its
/// key (the kernel's Rust tracepoint support); on 6.12 always (the C function's `trace_*()`
/// checks the key).
macro_rules! fire {
    ($tp:ident, $do_trace:ident($($args:expr),* $(,)?)) => {{
        // SAFETY: `$tp` is the tracepoint's own `struct tracepoint`, defined in errtrace_tp.c
        // for the life of the module; querying its key is always allowed.
        #[cfg(linux_6_13)]
        let on = unsafe {
            kernel::jump_label::static_branch_unlikely!($tp, kernel::bindings::tracepoint, key)
        };
        #[cfg(not(linux_6_13))]
        let on = true;
        if on {
            // SAFETY: the arguments are as `$do_trace`'s C prototype says (see the callers).
            unsafe { $do_trace($($args),*) }
        }
    }};
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
}

fn hop(h: &HopEvent) {
    // As in `error`: a `&'static str` and its length.
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
}

/// Called by the tracepoints' `reg` (first probe attached) and `unreg` (last probe gone)
/// callbacks, in process context under the tracepoints mutex. `which`: 0 errors, 1 hops.
#[no_mangle]
extern "C" fn errtrace_linux_tp_enabled(which: u32, on: bool) {
    let event = if which == 0 { Event::Error } else { Event::Hop };
    errtrace::probe::set_enabled(event, on);
}
