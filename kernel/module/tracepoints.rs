// SPDX-License-Identifier: GPL-2.0
//! errtrace's events as kernel tracepoints: `errtrace:errtrace_error` and `errtrace:errtrace_hop`
//! (declared in `errtrace_trace.h`, defined in `errtrace_tp.c`; Linux 6.12 has no Rust
//! tracepoint support, so the C part owns them, as Rust binder's header does in later kernels).
//!
//! errtrace calls [`error`]/[`hop`] only while the event is enabled: the tracepoints' `reg` and
//! `unreg` callbacks switch errtrace's flag through [`errtrace_glue_tp_enabled`], so while nobody
//! traces, an error costs one load and a branch here.

use errtrace::probe::{ErrorEvent, Event, HopEvent, Tracer};
use kernel::ffi::c_int;

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
    // SAFETY: every pointer comes with its length and points into a `&'static str`; the C side
    // copies exactly that many bytes (`__string_len`). Callable from any context.
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
    // SAFETY: as in `error`: a `&'static str` and its length.
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
