//! The recorder as text: every event, one block each, for a debugfs file, a serial console or
//! a test. Part of the storage layer's recorder.

use super::*;

/// Writes the global recorder's events, one block per event:
///
/// ```text
/// #41 EIO (-5) cpu 0 released: crates/demo/src/bus.rs:42:13 in demo::bus::read_reg
///     via crates/demo/src/sensor.rs:88:9 "reading chip id"
/// ```
///
/// # Errors
///
/// The writer's error.
///
/// # Examples
///
/// ```
/// use errtrace::code::EIO;
/// let e = errtrace::err!(EIO);
/// let mut out = String::new();
/// errtrace::recorder::dump(&mut out).unwrap();
/// assert!(out.contains("EIO (-5)"));
/// e.handled();
/// ```
#[cfg(not(loom))]
pub fn dump(out: &mut dyn core::fmt::Write) -> core::fmt::Result {
    let mut result = Ok(());
    RECORDER.for_each(|ev| {
        if result.is_err() {
            return;
        }
        result = write_event(out, ev);
    });
    result
}

/// Writes one event as [`dump`] does.
///
/// # Errors
///
/// The writer's error.
#[cfg(not(loom))]
pub fn write_event(out: &mut dyn core::fmt::Write, ev: &Event) -> core::fmt::Result {
    write!(
        out,
        "#{} {:?} ({})",
        ev.number(),
        ev.code(),
        ev.code().to_errno()
    )?;
    if ev.cpu() != u32::MAX {
        write!(out, " cpu {}", ev.cpu())?;
    }
    out.write_str(if ev.is_live() { " live" } else { " released" })?;
    match ev.origin() {
        Some(o) => {
            write!(out, ": {o}")?;
            if let Some(f) = o.function {
                write!(out, " in {f}")?;
            }
        }
        None => out.write_str(": <unknown origin>")?,
    }
    out.write_char('\n')?;
    for hop in ev.hops() {
        writeln!(out, "    via {hop}")?;
    }
    if ev.more_hops() > 0 {
        writeln!(
            out,
            "    (+{}{} more hops)",
            ev.more_hops(),
            or_more(ev.total_hops())
        )?;
    }
    Ok(())
}
