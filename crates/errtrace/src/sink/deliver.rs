//! Handing a record to the sink: never recursively, and (with `std`) never unwinding into the
//! error path.
//!
//! - **Re-entry.** A sink that makes errors itself (directly, or through code it calls) would
//!   emit their records from inside its own `emit`, and so on until the stack overflows. With
//!   `std`, a thread-local flag marks the thread as inside the sink: an error made there is
//!   recorded (flight recorder, counters, probes) but its records are not emitted;
//!   [`nested_records`] counts them. Without `std` there is no thread-local storage to tell a
//!   nested call from another CPU's, so a `no_std` sink must not make errors that log (the
//!   kernel glue's sink only formats and prints).
//! - **Panics.** With `std` and unwinding, a sink that panics (or a `.log_with()` message that
//!   panics while the sink formats it) is caught here: the panic does not unwind through a
//!   boundary, a `Drop` or a `.log()`, where it would report the error again or abort the
//!   process. One fixed line on standard error says which record was lost, and
//!   [`sink_panics`] counts them.

use super::{Record, Sink};

#[cfg(feature = "std")]
use crate::sync::{AtomicU32, Ordering};

#[cfg(feature = "std")]
static NESTED: AtomicU32 = AtomicU32::new(0);
#[cfg(feature = "std")]
static PANICS: AtomicU32 = AtomicU32::new(0);

#[cfg(feature = "std")]
std::thread_local! {
    static IN_SINK: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// How many records were not emitted because they were made inside the sink (`std`).
#[cfg(feature = "std")]
pub fn nested_records() -> u32 {
    NESTED.load(Ordering::Relaxed)
}

/// How many records were lost because the sink panicked on them (`std`).
#[cfg(feature = "std")]
pub fn sink_panics() -> u32 {
    PANICS.load(Ordering::Relaxed)
}

/// Gives `record` to `sink`.
#[cfg(feature = "std")]
pub(crate) fn deliver(sink: &dyn Sink, record: &Record<'_>) {
    // A thread whose thread-locals are gone (it is exiting) has no flag: deliver unguarded.
    let outer = IN_SINK.try_with(|f| !f.replace(true)).unwrap_or(true);
    if !outer {
        NESTED.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let caught = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| sink.emit(record)));
    let _ = IN_SINK.try_with(|f| f.set(false));
    if let Err(payload) = caught {
        // Dropping a payload runs its destructor, which could panic in turn: leak it (one box).
        core::mem::forget(payload);
        PANICS.fetch_add(1, Ordering::Relaxed);
        lost(record);
    }
}

/// The fixed line for a record the sink panicked on (nothing here runs user code).
#[cfg(feature = "std")]
#[cold]
#[inline(never)]
fn lost(record: &Record<'_>) {
    use std::io::Write;
    let code = record.code;
    let _ = writeln!(
        std::io::stderr(),
        "errtrace: the sink panicked on a {:?} record of {:?} ({}) at {}; the record is lost",
        record.kind,
        code,
        code.to_errno(),
        record.at
    );
}

/// Gives `record` to `sink`.
#[cfg(not(feature = "std"))]
#[inline]
pub(crate) fn deliver(sink: &dyn Sink, record: &Record<'_>) {
    sink.emit(record);
}
