//! Where log lines go: a `&'static dyn Sink` installed at run time.

mod nop;

use core::fmt;
use core::sync::atomic::{AtomicPtr, Ordering};

/// Severity of a log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// An error (printk `KERN_ERR`).
    Err,
    /// Information (printk `KERN_INFO`).
    Info,
}

/// Receives formatted log lines.
pub trait Sink: Sync {
    /// Writes one line (without a trailing newline).
    fn write(&self, level: Level, args: fmt::Arguments<'_>);
}

/// A `&'static dyn Sink` with a thin address, so an `AtomicPtr` can hold it.
pub struct SinkSlot(pub &'static dyn Sink);

/// The sink used before one is installed: a `&'static dyn Trait` global.
static DEFAULT_SINK: &dyn Sink = &nop::Nop;

static SINK: AtomicPtr<SinkSlot> = AtomicPtr::new(core::ptr::null_mut());

/// Installs `slot` as the sink.
pub fn set_sink(slot: &'static SinkSlot) {
    SINK.store(slot as *const SinkSlot as *mut SinkSlot, Ordering::Release);
}

/// Goes back to the default (silent) sink.
pub fn clear_sink() {
    SINK.store(core::ptr::null_mut(), Ordering::Release);
}

/// Sends one line to the installed sink.
pub fn emit(level: Level, args: fmt::Arguments<'_>) {
    let p = SINK.load(Ordering::Acquire);
    // SAFETY: only ever set from a `&'static SinkSlot`.
    match unsafe { p.as_ref() } {
        Some(slot) => slot.0.write(level, args),
        None => DEFAULT_SINK.write(level, args),
    }
}
