//! A log record: what a [`Sink`](crate::sink::Sink) receives (its kind, level, code, the place
//! that logs, the error, the message), and the message of a record about an error. Emission
//! layer: built by [`emit`](crate::emit) and the boundaries, written by
//! [`report`](crate::report), delivered by [`sink`](crate::sink), which re-exports the public
//! types.

use crate::code::Code;
use crate::error::Error;
use crate::site::Origin;
use core::fmt;

/// Severity, as the kernel's printk levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// `KERN_ERR`.
    Error,
    /// `KERN_WARNING`.
    Warning,
    /// `KERN_INFO`.
    Info,
    /// `KERN_DEBUG`.
    Debug,
}

impl Level {
    /// `"error"`, `"warning"`, `"info"`, `"debug"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }
}

/// Why a record was emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordKind {
    /// The creator logs: `err!(EIO, "…")`.
    Created,
    /// `.log()` / `.log_with()` on an `Err`.
    Logged,
    /// An unreported error reached a boundary: full report.
    Boundary,
    /// A boundary saw an error that was already reported, or held back by its policy (debug
    /// level, with `+p` on the boundary's site).
    AlreadyReported,
    /// An error was dropped unhandled: full report.
    Unhandled,
    /// A rate limit held back `suppressed` messages (reported before its next message, or when
    /// flushed).
    Suppressed,
    /// Something that "should not fail" failed (the replacement for `.expect()`): full report,
    /// or one line when the error was already reported.
    Unexpected,
    /// An error was replaced by a fallback value (`.or_log()`, warning level): full report, or
    /// one line when the error was already reported.
    Fallback,
    /// A fail point injected a fault (one line at the fail point, like the kernel's
    /// `FAULT_INJECTION: forcing a failure`). The injected error itself is not marked as
    /// reported: it goes on to be handled, logged or reported like any other.
    Injected,
    /// The pool of location sites is full (reported once, before the next record): further
    /// locations share the site `<location sites overflow>`; `suppressed` holds the pool's size.
    Overflow,
}

/// One log record.
#[non_exhaustive]
pub struct Record<'a> {
    /// Severity.
    pub level: Level,
    /// Why it was emitted.
    pub kind: RecordKind,
    /// The error code.
    pub code: Code,
    /// The site that logs: the creator, the `.log()` call, the boundary, or the origin.
    pub at: &'a Origin,
    /// The logging site's control flags (`f`, `l`, `m`, `t`, `s`; see [`control`](crate::control)).
    pub flags: u32,
    /// The error, for its origin and trail (`None` for [`RecordKind::Suppressed`]).
    pub error: Option<&'a Error>,
    /// The message, formatted only if the sink writes it.
    pub message: Option<fmt::Arguments<'a>>,
    /// For [`RecordKind::Suppressed`]: how many messages were held back.
    pub suppressed: u32,
    /// For boundary records: the boundary's name.
    pub boundary: Option<&'a str>,
    /// For [`RecordKind::AlreadyReported`], [`RecordKind::Unexpected`] and
    /// [`RecordKind::Fallback`]: the error was reported before, at this place (where its
    /// creator or a `.log()` printed it; `<unknown>` when only its report was formatted). Text
    /// sinks then print one line pointing there instead of the report again.
    pub already_reported: Option<&'a Origin>,
}

/// A message about an error, written only when a record is emitted.
pub(crate) trait ErrorMessage {
    fn write(&self, e: &Error, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

/// A message from `format_args!` (the `err!` macro's).
pub(crate) struct ArgsMessage<'a>(pub(crate) fmt::Arguments<'a>);

impl ErrorMessage for ArgsMessage<'_> {
    fn write(&self, _: &Error, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_fmt(self.0)
    }
}

/// Displays an [`ErrorMessage`] for one error.
pub(crate) struct Rendered<'a>(pub(crate) &'a Error, pub(crate) &'a dyn ErrorMessage);

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.1.write(self.0, f)
    }
}
