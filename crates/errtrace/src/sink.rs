//! Sinks: where log records go.
//!
//! One global sink is set once at start-up with [`set_sink`] (a `&'static dyn Sink`: no
//! allocation, usable in `no_std`). Records carry the error, its origin and trail, and the message
//! as [`core::fmt::Arguments`]: nothing is formatted unless a record is actually emitted, and then
//! only by the sink.
//!
//! With the `std` feature and no sink set, records go to standard error ([`StderrSink`]). In
//! `no_std` with no sink set nothing prints, but the recorder still records and the counters still
//! count. Adapters: `LogSink` (feature `log`), `TracingSink` (feature `tracing`),
//! `DefmtSink` (feature `defmt`), and `Capture` for tests (feature `std`).
//!
//! # Examples
//!
//! ```
//! use errtrace::sink::{Record, Sink};
//!
//! struct Counting(core::sync::atomic::AtomicUsize);
//! impl Sink for Counting {
//!     fn emit(&self, record: &Record<'_>) {
//!         self.0.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
//!         let _line = format!("{record}"); // formats only here
//!     }
//! }
//! static SINK: Counting = Counting(core::sync::atomic::AtomicUsize::new(0));
//! // The first call in a process wins.
//! let _ = errtrace::sink::set_sink(&SINK);
//! ```

#[cfg(not(loom))]
mod deliver;
#[cfg(all(feature = "std", not(loom)))]
pub use deliver::{nested_records, sink_panics};

use crate::raw::SetOnce;
#[cfg(feature = "std")]
use crate::{code::Code, error::Error, site::Origin};
#[cfg(feature = "std")]
use core::fmt;
#[cfg(feature = "std")]
use std::{string::String, vec::Vec};

pub(crate) use crate::record::{ArgsMessage, ErrorMessage, Rendered};
pub use crate::record::{Level, Record, RecordKind};

/// Receives records. Implementations must not block for long and must not allocate if they are
/// to be used in atomic context.
///
/// With `std`, errors made while a sink runs (by the sink or code it calls) are recorded but
/// their records are not emitted ([`nested_records`] counts them), and a sink that panics loses
/// that record, not the program ([`sink_panics`]). Without `std`, a sink must not make errors
/// that log: there is no thread-local storage to tell such a nested call apart.
pub trait Sink: Sync {
    /// Handles one record.
    fn emit(&self, record: &Record<'_>);
}

#[cfg(not(loom))]
static SINK: SetOnce<&'static dyn Sink> = SetOnce::new();

/// Installs the global sink.
///
/// # Errors
///
/// [`AlreadySet`](crate::platform::AlreadySet) when a sink was set before; the first stays.
#[cfg(not(loom))]
pub fn set_sink(sink: &'static dyn Sink) -> Result<(), crate::platform::AlreadySet> {
    SINK.set(sink).map_err(|_| crate::platform::AlreadySet)
}

/// Whether `sink` is the installed global sink.
#[cfg(all(feature = "testing", not(loom)))]
pub(crate) fn is_current(sink: &'static dyn Sink) -> bool {
    SINK.get()
        .is_some_and(|s| core::ptr::addr_eq(s as *const dyn Sink, sink as *const dyn Sink))
}

/// Sends a record to the global sink (or the default one), after the one-time notice that the
/// pool of location sites overflowed, if it did.
#[cfg(not(loom))]
pub(crate) fn emit(record: &Record<'_>) {
    if crate::site::take_overflow_notice() {
        overflow_notice();
    }
    emit_now(record);
}

#[cold]
#[inline(never)]
fn overflow_notice() {
    let at = crate::site::overflow_origin();
    let mut r = Record::new(
        Level::Warning,
        RecordKind::Overflow,
        crate::code::ENOSPC,
        &at,
    );
    r.suppressed = crate::config::LOCATION_SITES as u32;
    emit_now(&r);
}

#[cfg(not(loom))]
fn emit_now(record: &Record<'_>) {
    match SINK.get() {
        Some(s) => deliver::deliver(s, record),
        // With std and no sink set: standard error. Without std: nothing prints (the recorder
        // and the counters still have everything).
        #[cfg(feature = "std")]
        None => deliver::deliver(&StderrSink, record),
        #[cfg(not(feature = "std"))]
        None => {}
    }
}

#[cfg(loom)]
pub(crate) fn emit(_record: &Record<'_>) {}

/// Writes records as text to standard error, one line each (plus the report lines for
/// boundary, unhandled and unexpected records). Debug-level records are written too: they are
/// only produced when enabled at runtime.
#[cfg(feature = "std")]
pub struct StderrSink;

#[cfg(feature = "std")]
impl Sink for StderrSink {
    fn emit(&self, record: &Record<'_>) {
        use std::io::Write;
        /// Writes to standard error; a failing stream ends the record, never a panic.
        struct Stderr(std::io::Stderr);
        impl fmt::Write for Stderr {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.0.write_all(s.as_bytes()).map_err(|_| fmt::Error)
            }
        }
        let mut out = Stderr(std::io::stderr());
        let _ = fmt::Write::write_fmt(&mut out, format_args!("errtrace: {record}\n"));
    }
}

/// Forwards records to the `log` crate (target `errtrace`), formatted as [`Record`]'s `Display`.
#[cfg(feature = "log")]
pub struct LogSink;

#[cfg(feature = "log")]
impl Sink for LogSink {
    fn emit(&self, record: &Record<'_>) {
        let level = match record.level {
            Level::Error => log::Level::Error,
            Level::Warning => log::Level::Warn,
            Level::Info => log::Level::Info,
            Level::Debug => log::Level::Debug,
        };
        log::log!(target: "errtrace", level, "{}", record);
    }
}

/// Emits `tracing` events (target `errtrace`) at the record's level, with every field of the
/// [`Record`]: `kind`, `code`, `errno`, `at` (the site that logs), `origin`, `trail` and, with
/// `std`, `detail` (when there is an error), `boundary` (boundary records), `suppressed`
/// (windows' counts, the pool size of an overflow), `already_reported` (where an error was
/// printed before) and `flags`. The event's message is the creator's or `.log()`'s message for
/// those records, and the record's text (as [`Record`]'s `Display`) for every other kind.
#[cfg(feature = "tracing")]
pub struct TracingSink;

#[cfg(feature = "tracing")]
impl Sink for TracingSink {
    fn emit(&self, record: &Record<'_>) {
        let code = record.code.name();
        let errno = record.code.to_errno();
        let at = tracing::field::display(record.at);
        let origin = record.error.map(|e| tracing::field::display(e.origin()));
        let trail = record
            .error
            .map(|e| tracing::field::display(crate::report::TrailLine(e)));
        #[cfg(feature = "std")]
        let detail = record.error.and_then(|e| e.detail());
        #[cfg(not(feature = "std"))]
        let detail: Option<&str> = None;
        let kind = tracing::field::debug(record.kind);
        let boundary = record.boundary;
        let suppressed = record.suppressed;
        let already_reported = record.already_reported.map(tracing::field::display);
        let flags = record.flags;
        let message_only = matches!(record.kind, RecordKind::Created | RecordKind::Logged);
        let msg = crate::report::EventMessage(record, message_only);
        macro_rules! event {
            ($m:ident) => {
                tracing::$m!(
                    target: "errtrace",
                    ?kind, code, errno, %at, origin, trail, detail, boundary, suppressed,
                    already_reported, flags, "{}", msg
                )
            };
        }
        match record.level {
            Level::Error => event!(error),
            Level::Warning => event!(warn),
            Level::Info => event!(info),
            Level::Debug => event!(debug),
        }
    }
}

/// Emits records with `defmt` (embedded targets), through `defmt::Display2Format`.
#[cfg(feature = "defmt")]
pub struct DefmtSink;

#[cfg(feature = "defmt")]
impl Sink for DefmtSink {
    fn emit(&self, record: &Record<'_>) {
        let text = defmt::Display2Format(record);
        match record.level {
            Level::Error => defmt::error!("errtrace: {}", text),
            Level::Warning => defmt::warn!("errtrace: {}", text),
            Level::Info => defmt::info!("errtrace: {}", text),
            Level::Debug => defmt::debug!("errtrace: {}", text),
        }
    }
}

/// A sink for tests: keeps the formatted records of each thread separately, so tests running in
/// parallel see only their own.
///
/// # Examples
///
/// ```
/// use errtrace::code::EIO;
/// use errtrace::sink::Capture;
/// static CAPTURE: Capture = Capture::new();
/// let _ = errtrace::sink::set_sink(&CAPTURE);
///
/// let e = errtrace::err!(always, EIO, "read of reg {:#x} failed", 0x10);
/// e.handled();
/// let lines = CAPTURE.take();
/// assert_eq!(lines.len(), 1);
/// assert!(lines[0].text.contains("read of reg 0x10 failed"));
/// ```
#[cfg(feature = "std")]
pub struct Capture {
    _private: (),
}

/// One captured record.
#[cfg(feature = "std")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// Severity.
    pub level: Level,
    /// Why it was emitted.
    pub kind: RecordKind,
    /// The code.
    pub code: Code,
    /// The record as the stderr sink would print it (without the `errtrace: ` prefix).
    pub text: String,
    /// The suppressed count, for [`RecordKind::Suppressed`].
    pub suppressed: u32,
    /// The site that logged (the creator, the `.log()` call, the boundary): its function and
    /// file as fields, for assertions that do not depend on line numbers.
    pub at: Origin,
    /// The error's origin (`None` for [`RecordKind::Suppressed`]).
    pub origin: Option<Origin>,
    /// The record's message, formatted (`None` when it has none).
    pub message: Option<String>,
}

#[cfg(feature = "std")]
std::thread_local! {
    static CAPTURED: core::cell::RefCell<Vec<Captured>> = const { core::cell::RefCell::new(Vec::new()) };
}

#[cfg(feature = "std")]
impl Capture {
    /// A capture sink (make it a `static`).
    pub const fn new() -> Capture {
        Capture { _private: () }
    }

    /// Takes the records emitted so far on the calling thread.
    pub fn take(&self) -> Vec<Captured> {
        CAPTURED
            .try_with(|c| c.try_borrow_mut().map(|mut v| core::mem::take(&mut *v)))
            .ok()
            .and_then(|r| r.ok())
            .unwrap_or_default()
    }
}

#[cfg(feature = "std")]
impl Default for Capture {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl Captured {
    /// The record as captured.
    pub(crate) fn of(record: &Record<'_>) -> Captured {
        let mut text = String::new();
        let _ = fmt::Write::write_fmt(&mut text, format_args!("{record}"));
        Captured {
            level: record.level,
            kind: record.kind,
            code: record.code,
            text,
            suppressed: record.suppressed,
            at: *record.at,
            origin: record.error.map(Error::origin),
            message: record.message.map(|m| {
                let mut t = String::new();
                let _ = fmt::Write::write_fmt(&mut t, m);
                t
            }),
        }
    }

    /// Whether the error was made in the function named `name` (its last path segment, as in
    /// `read_reg`), whatever the file and line.
    pub fn made_in(&self, name: &str) -> bool {
        self.origin
            .and_then(|o| o.function_name())
            .is_some_and(|f| f == name)
    }
}

#[cfg(feature = "std")]
impl Sink for Capture {
    fn emit(&self, record: &Record<'_>) {
        let c = Captured::of(record);
        let _ = CAPTURED.try_with(|v| {
            if let Ok(mut v) = v.try_borrow_mut() {
                v.push(c);
            }
        });
    }
}
