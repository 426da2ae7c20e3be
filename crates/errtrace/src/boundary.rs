//! Boundaries: where errors leave Rust code (module init, driver probe, a syscall or ioctl
//! return, an `extern "C"` function, `main`). No error leaves silently.

use crate::code::Code;
use crate::error::{Error, Result};
use crate::policy::decide;
use crate::policy::kind::Policy;
use crate::sink::{self, Level, Record, RecordKind};
use crate::site::{flags, Origin, SiteKind};
use core::mem::ManuallyDrop;
use core::panic::Location;
use core::sync::atomic::Ordering;

/// Hands `result` out of Rust code: an error that nobody reported is printed here with its full
/// report (origin and trail) at error level; then the error is consumed and its code handed back.
///
/// - An error that was already reported (logged by its creator or by `.log()`, or its report
///   printed), or held back by its policy, is not printed again; with `+p` on this boundary's
///   site, a debug-level line says "already reported at" the place it was printed (or "held
///   back by its policy"), and with `+h` that line carries the full report (origin and trail).
/// - Codes whose policy is quiet (`EAGAIN`, `EPROBE_DEFER`, … by default) are not printed, but
///   counted at this site, like the kernel's probe path.
/// - The boundary's own site (its caller's location) is rate-limited like any site.
///
/// # Examples
///
/// ```
/// use errtrace::{code::EIO, err, boundary};
///
/// fn init() -> errtrace::Result { Err(err!(EIO)) }
///
/// // In a kernel module: `fn init(..) -> Result<Self> { ... boundary("demo init", init()) ... }`
/// let r: Result<(), errtrace::code::Code> = boundary("demo init", init());
/// assert_eq!(r, Err(EIO));
/// assert_eq!(r.unwrap_err().to_errno(), -5);
/// ```
#[track_caller]
pub fn boundary<T>(name: &str, result: Result<T>) -> core::result::Result<T, Code> {
    match result {
        Ok(v) => Ok(v),
        Err(e) => Err(leave(name, e, Location::caller())),
    }
}

/// [`boundary`] for `extern "C"` returns: `0` on success, the negative errno on failure.
///
/// # Examples
///
/// ```
/// use errtrace::{code::ENODEV, Error};
/// #[no_mangle]
/// extern "C" fn demo_probe() -> i32 {
///     errtrace::boundary_errno("demo_probe", Err(Error::new(ENODEV)))
/// }
/// assert_eq!(demo_probe(), -19);
/// ```
#[track_caller]
pub fn boundary_errno(name: &str, result: Result) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => leave(name, e, Location::caller()).to_errno(),
    }
}

#[inline(never)]
fn leave(name: &str, e: Error, loc: &'static Location<'static>) -> Code {
    // Not dropped if a sink panics: unwinding must not report it again as dropped unhandled.
    let e = ManuallyDrop::new(e);
    let code = e.code();
    let site = crate::site::at_location(loc);
    site.set_kind(SiteKind::Boundary);
    site.note_code(u32::from(code.get()));
    let st = site.state();
    if e.is_logged() {
        let f = st.flags(Ordering::Relaxed);
        if f & (flags::PRINT_ON | flags::TRAIL) != 0 {
            emit_at(Level::Debug, RecordKind::AlreadyReported, f, &e, loc, name);
        }
        ManuallyDrop::into_inner(e).dispose();
        crate::emit::flush_expired();
        return code;
    }
    // The origin's class decides whether an unreported error prints here: quiet codes do not.
    let origin_policy = decide::effective(e.site(), code);
    let emit = if matches!(origin_policy, Policy::Quiet | Policy::Debug) {
        st.suppressed.fetch_add(1, Ordering::Relaxed);
        false
    } else {
        decide::decide(site, code).emits()
    };
    if emit {
        emit_at(Level::Error, RecordKind::Boundary, 0, &e, loc, name);
    }
    ManuallyDrop::into_inner(e).dispose();
    // Storms whose windows are over are announced here, not only at their next message.
    crate::emit::flush_expired();
    code
}

/// A boundary's record (its own frame: the origin and the record).
#[inline(never)]
fn emit_at(
    level: Level,
    kind: RecordKind,
    flags: u32,
    e: &Error,
    loc: &'static Location<'static>,
    name: &str,
) {
    let at = Origin::from_location(loc);
    if kind == RecordKind::AlreadyReported && e.was_reported() {
        emit_pointing(level, kind, flags, e, &at, name);
    } else {
        emit_record(level, kind, flags, e, &at, None, name);
    }
}

/// The record of an error reported before, pointing where (its own frame: that place).
#[inline(never)]
fn emit_pointing(level: Level, kind: RecordKind, flags: u32, e: &Error, at: &Origin, name: &str) {
    let earlier = e.reported_at().unwrap_or(Origin::UNKNOWN);
    emit_record(level, kind, flags, e, at, Some(&earlier), name);
}

/// The boundary's record (its own frame: the record).
#[inline(never)]
fn emit_record(
    level: Level,
    kind: RecordKind,
    flags: u32,
    e: &Error,
    at: &Origin,
    earlier: Option<&Origin>,
    name: &str,
) {
    let mut r = Record::new(level, kind, e.code(), at)
        .with_flags(flags)
        .with_error(e)
        .with_boundary(name);
    r.already_reported = earlier;
    sink::emit(&r);
}
