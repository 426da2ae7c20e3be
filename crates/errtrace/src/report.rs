//! Report formatting: one line for `Display`, the whole story for `{:#}` and
//! [`Error::report`]. Everything writes into a `core::fmt::Write`; nothing allocates.
//!
//! ```text
//! error EIO (-5): Input/output error
//!   origin: src/bus.rs:42:13 in demo::bus::read_reg
//!   via:    src/sensor.rs:88:9 "reading chip id"
//!   via:    src/main.rs:17:5
//!   (+2 more hops)
//! ```

use crate::error::Error;
#[cfg(feature = "std")]
use crate::raw::Story;
use crate::record::{Record, RecordKind};
use crate::site::flags;
use core::fmt;

/// The multi-line report of an error; see [`Error::report`].
pub struct Report<'a>(&'a Error);

impl Error {
    /// The whole story: code, origin, every hop (and how many more were not kept).
    ///
    /// Formatting a report counts as reporting the error: it no longer warns when dropped, and a
    /// boundary does not print it again.
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::{code::EIO, Error, ResultExt};
    /// let r: errtrace::Result = Err(Error::new(EIO));
    /// let e = r.during("reading chip id").unwrap_err();
    /// let text = e.report().to_string();
    /// let mut lines = text.lines();
    /// assert_eq!(lines.next(), Some("error EIO (-5): Input/output error"));
    /// assert!(lines.next().unwrap().starts_with("  origin: "));
    /// assert!(lines.next().unwrap().ends_with("\"reading chip id\""));
    /// ```
    pub fn report(&self) -> Report<'_> {
        Report(self)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        e.mark_reported();
        let code = e.code();
        write!(
            f,
            "error {:?} ({}): {}",
            code,
            code.to_errno(),
            code.description()
        )?;
        write_body(f, e, "  ")
    }
}

fn write_body(f: &mut dyn fmt::Write, e: &Error, indent: &str) -> fmt::Result {
    write_origin(f, e, indent)?;
    write_trail(f, e, indent)
}

#[inline(never)]
fn write_origin(f: &mut dyn fmt::Write, e: &Error, indent: &str) -> fmt::Result {
    let origin = e.origin();
    write!(f, "\n{indent}origin: {origin}")?;
    if let Some(func) = origin.function {
        write!(f, " in {func}")?;
    }
    #[cfg(feature = "std")]
    if let Some(detail) = e.detail() {
        write!(f, "\n{indent}detail: {detail}")?;
    }
    Ok(())
}

#[inline(never)]
fn write_trail(f: &mut dyn fmt::Write, e: &Error, indent: &str) -> fmt::Result {
    match e.trail() {
        Ok((hops, total)) => {
            let mut kept = 0u32;
            for hop in hops {
                write!(f, "\n{indent}via:    {hop}")?;
                kept = kept.wrapping_add(1);
            }
            let more = total.saturating_sub(kept);
            if more > 0 {
                write!(
                    f,
                    "\n{indent}(+{more}{} more hops)",
                    crate::recorder::or_more(total)
                )?;
            }
        }
        Err(_) => write!(
            f,
            "\n{indent}(trail not recorded: every recorder slot it could take held a live error)"
        )?,
    }
    Ok(())
}

impl fmt::Display for Error {
    /// One line: `EIO: Input/output error (at src/bus.rs:42:13)`; with `{:#}`, the report.
    ///
    /// The one line is a label, not a report: formatting it does not count as reporting the
    /// error (a boundary still prints it, and dropping it still warns). `{:#}` and
    /// [`Error::report`] do count. Once the error was reported, the line says where
    /// (`EIO: Input/output error (at src/bus.rs:42:13), already reported at src/bus.rs:42:13`)
    /// and its [`source`](core::error::Error::source) is gone, so an error-chain printer
    /// (anyhow's `main`) prints that one line, not the report again.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return fmt::Display::fmt(&self.report(), f);
        }
        write_label(f, self.code(), &self.origin())?;
        if self.was_reported() {
            f.write_str(", ")?;
            write_already_reported(f, self)?;
        }
        Ok(())
    }
}

/// `already reported at X` (the place it was printed), or `already reported (origin X)` when
/// only its report was formatted.
fn write_already_reported(f: &mut fmt::Formatter<'_>, e: &Error) -> fmt::Result {
    match e.reported_at() {
        Some(at) => write!(f, "already reported at {at}"),
        None => write!(f, "already reported (origin {})", e.origin()),
    }
}

impl fmt::Display for crate::Snapshot {
    /// The error's one line: `EIO: Input/output error (at src/bus.rs:42:13)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_label(f, self.code(), &self.origin())
    }
}

/// An error's one line, its label: `EIO: Input/output error (at src/bus.rs:42:13)`.
fn write_label(
    f: &mut fmt::Formatter<'_>,
    code: crate::code::Code,
    origin: &crate::Origin,
) -> fmt::Result {
    write!(f, "{:?}: {} (at {})", code, code.description(), origin)
}

impl fmt::Debug for Error {
    /// The report, so that `main() -> errtrace::Result` prints the whole story on failure; an
    /// error that was already reported is one line pointing there instead
    /// (`EIO (-5): Input/output error, already reported at src/main.rs:17:5`), so `main` does
    /// not print it twice.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.was_reported() {
            return fmt::Display::fmt(&self.report(), f);
        }
        let code = self.code();
        write!(
            f,
            "{:?} ({}): {}, ",
            code,
            code.to_errno(),
            code.description()
        )?;
        write_already_reported(f, self)
    }
}

/// The trail on one line (`a.rs:1:2 -> b.rs:3:4 "ctx"`), for structured sinks.
#[cfg(feature = "tracing")]
pub(crate) struct TrailLine<'a>(pub(crate) &'a Error);

#[cfg(feature = "tracing")]
impl fmt::Display for TrailLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_trail_line(f, self.0).map(|_| ())
    }
}

/// Writes the trail on one line; `Ok(false)` when there was nothing to write (no hops).
#[cfg(any(feature = "std", feature = "tracing"))]
fn write_trail_line(f: &mut fmt::Formatter<'_>, e: &Error) -> Result<bool, fmt::Error> {
    match e.trail() {
        Ok((hops, total)) => {
            let mut kept = 0u32;
            for hop in hops {
                if kept > 0 {
                    f.write_str(" -> ")?;
                }
                kept = kept.wrapping_add(1);
                write!(f, "{hop}")?;
            }
            let more = total.saturating_sub(kept);
            if more > 0 {
                write!(f, " (+{more}{} more hops)", crate::recorder::or_more(total))?;
            }
            Ok(total > 0)
        }
        Err(_) => {
            f.write_str(
                "trail not recorded (every recorder slot it could take held a live error)",
            )?;
            Ok(true)
        }
    }
}

#[cfg(feature = "std")]
impl fmt::Display for Story {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        e.mark_reported();
        let func = e.origin().function;
        let trail = e.trail().map(|(_, total)| total);
        let recorded = trail.is_ok();
        let has_trail = trail != Ok(0);
        if let Some(detail) = e.detail() {
            write!(f, "{detail}")?;
            if func.is_some() || has_trail {
                f.write_str("; ")?;
            }
        }
        if let Some(func) = func {
            write!(f, "in {func}")?;
            if has_trail {
                f.write_str("; ")?;
            }
        }
        if has_trail {
            if recorded {
                f.write_str("via ")?;
            }
            write_trail_line(f, e)?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl Story {
    /// Whether the story says anything the error's one line does not: a detail, the function
    /// that made it, or a trail (or that its trail was not recorded).
    fn adds_to_the_label(&self) -> bool {
        let e = &self.0;
        e.detail().is_some() || e.origin().function.is_some() || !matches!(e.trail(), Ok((_, 0)))
    }
}

#[cfg(feature = "std")]
impl fmt::Debug for Story {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(feature = "std")]
impl core::error::Error for Story {}

impl core::error::Error for Error {
    /// With `std`: the rest of the story (the function that made the error and its trail, on
    /// one line), so that error-chain printers that know nothing of errtrace (anyhow's `{:#}`
    /// and `{:?}`, `Box<dyn Error>`, an `io::Error` carrying it) print the trail too. Printing it
    /// counts as reporting the error, like `{:#}`. Without `std` (the kernel, where nothing
    /// walks error chains): `None`, to keep the code small.
    ///
    /// An error already reported has no source: its one line says where it was reported. Nor
    /// has one whose story would add nothing to its one line (no detail, no function, no hops):
    /// an error-chain printer would show an empty cause.
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        #[cfg(feature = "std")]
        return (!self.was_reported() && Story::of(self).adds_to_the_label())
            .then(|| Story::of(self) as _);
        #[cfg(not(feature = "std"))]
        None
    }
}

/// A structured event's message: the record's message only (`true`: the creator's or
/// `.log()`'s words, the rest is in fields), or the record's whole text.
#[cfg(feature = "tracing")]
pub(crate) struct EventMessage<'a, 'b>(pub(crate) &'a Record<'b>, pub(crate) bool);

#[cfg(feature = "tracing")]
impl fmt::Display for EventMessage<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.1 {
            return fmt::Display::fmt(self.0, f);
        }
        match self.0.message {
            Some(m) => f.write_fmt(m),
            None => f.write_str(self.0.code.description()),
        }
    }
}

fn decorations(f: &mut fmt::Formatter<'_>, r: &Record<'_>) -> fmt::Result {
    if r.flags & flags::THREAD != 0 {
        let cpu = r.error.map_or(crate::platform::cpu_id(), |e| e.cpu());
        write!(f, "[{cpu}] ")?;
    }
    let mut any = false;
    if r.flags & flags::MODULE != 0 {
        if let Some(m) = r.at.module {
            write!(f, "{m}:")?;
            any = true;
        }
    }
    if r.flags & flags::FUNCTION != 0 {
        if let Some(func) = r.at.function_name() {
            write!(f, "{func}:")?;
            any = true;
        }
    }
    if r.flags & flags::SOURCE != 0 {
        write!(f, "{}:", r.at.file)?;
        any = true;
    }
    if r.flags & flags::LINE != 0 {
        write!(f, "{}:", r.at.line)?;
        any = true;
    }
    if any {
        f.write_str(" ")?;
    }
    Ok(())
}

impl fmt::Display for Record<'_> {
    /// The text form every text sink uses.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.code;
        match self.kind {
            RecordKind::Created | RecordKind::Logged => {
                decorations(f, self)?;
                if let Some(m) = self.message {
                    f.write_fmt(m)?;
                    f.write_str(": ")?;
                }
                write!(f, "{:?} ({}) at {}", code, code.to_errno(), self.at)?;
                if let Some(e) = self.error {
                    let o = e.origin();
                    let same_place = o.line == self.at.line
                        && o.column == self.at.column
                        && o.file == self.at.file;
                    if self.kind == RecordKind::Logged && !same_place {
                        write!(f, ", from {o}")?;
                    }
                    if self.flags & flags::TRAIL != 0 {
                        write_body(f, e, "  ")?;
                    }
                }
                Ok(())
            }
            RecordKind::Boundary => {
                write!(
                    f,
                    "{}: returning {:?} ({}), not reported before:",
                    self.boundary.unwrap_or("boundary"),
                    code,
                    code.to_errno()
                )?;
                self.full(f)
            }
            RecordKind::AlreadyReported => {
                write!(
                    f,
                    "{}: returning {:?} ({}), ",
                    self.boundary.unwrap_or("boundary"),
                    code,
                    code.to_errno(),
                )?;
                self.write_earlier(f)?;
                if self.flags & flags::TRAIL != 0 {
                    self.full(f)?;
                }
                Ok(())
            }
            RecordKind::Injected => {
                write!(
                    f,
                    "fault injected at {}: {:?} ({}) at {}",
                    self.at.format.unwrap_or("?"),
                    code,
                    code.to_errno(),
                    self.at
                )
            }
            RecordKind::Unhandled => {
                write!(f, "{:?} ({}) dropped unhandled", code, code.to_errno())?;
                if let Some(e) = self.error {
                    write_last_seen(f, e)?;
                }
                f.write_str(":")?;
                self.full(f)
            }
            RecordKind::Unexpected | RecordKind::Fallback => {
                if self.kind == RecordKind::Unexpected {
                    f.write_str("should not fail: ")?;
                }
                if let Some(m) = self.message {
                    f.write_fmt(m)?;
                    f.write_str(": ")?;
                }
                write!(f, "{:?} ({})", code, code.to_errno())?;
                if self.kind == RecordKind::Fallback {
                    f.write_str(", using the fallback")?;
                }
                if self.already_reported.is_some() {
                    f.write_str("; ")?;
                    return self.write_earlier(f);
                }
                f.write_str(":")?;
                self.full(f)
            }
            RecordKind::Suppressed => {
                write!(f, "{}:{}", self.at.file, self.at.line)?;
                if let (Some(m), Some(func)) = (self.at.module, self.at.function_name()) {
                    write!(f, " [{m}]{func}")?;
                }
                write!(f, ": {} messages suppressed", self.suppressed)
            }
            RecordKind::Overflow => write!(
                f,
                "the pool of location sites is full ({} entries): further locations share the \
                 site {} (their errors keep their exact origin); raise ERRTRACE_LOCATION_SITES",
                self.suppressed, self.at.file
            ),
        }
    }
}

/// Where an error dropped unhandled was last seen: `Drop` has no caller location, so the
/// last place it passed through with a hop (a `#[trace]` `?`, `.trace()`, `.during()`) is the
/// nearest errtrace knows; the drop is in that function or one that called it.
fn write_last_seen(f: &mut fmt::Formatter<'_>, e: &Error) -> fmt::Result {
    let Ok((hops, total)) = e.trail() else {
        return f.write_str("; where is unknown (its trail was not recorded)");
    };
    let (kept, last) = hops.fold((0u32, None), |(n, _), h| (n.wrapping_add(1), Some(h)));
    match last {
        None => f.write_str(
            "; where is unknown (no hop since its origin: #[errtrace::trace] or .during() on \
             its way would tell)",
        ),
        Some(h) if kept >= total => write!(
            f,
            ", last seen at {} (its last hop: dropped there or in a caller)",
            h.location
        ),
        Some(h) => write!(
            f,
            "; where is unknown (after {} it took {}{} more hops than are kept)",
            h.location,
            total.wrapping_sub(kept),
            crate::recorder::or_more(total)
        ),
    }
}

impl Record<'_> {
    /// "already reported at X" (or "already reported (origin X)" when the place is unknown).
    fn write_earlier(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let origin = self.error.map_or(*self.at, |e| e.origin());
        match self.already_reported {
            Some(at) if at.line != 0 => write!(f, "already reported at {at}"),
            Some(_) => write!(f, "already reported (origin {origin})"),
            None => write!(f, "held back by its policy (origin {origin})"),
        }
    }

    fn full(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = self.error {
            e.mark_reported();
            let code = e.code();
            write!(
                f,
                "\n  error {:?} ({}): {}",
                code,
                code.to_errno(),
                code.description()
            )?;
            write_body(f, e, "    ")?;
        }
        Ok(())
    }
}
