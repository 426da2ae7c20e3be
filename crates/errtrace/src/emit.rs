//! Logging: runs a log decision and emits the record. Emission layer.
//!
//! Every record is built here, by [`Record::new`] and its `with_*` setters: the creator's
//! message (`err!` with a message), `.log()`, the `.expect()` replacement, a rate limit's
//! count of held-back messages, and the warning for an error dropped unhandled (`Drop`).

use crate::code::Code;
use crate::error::{Error, LOGGED};
use crate::policy::decide::{self, effective, Decision};
use crate::policy::kind::Policy;
use crate::policy::ratelimit;
use crate::sink::{self, ArgsMessage, ErrorMessage, Level, Record, RecordKind, Rendered};
use crate::site::{Origin, Site, SiteRef};
use crate::sync::{AtomicU32, Ordering};
use core::panic::Location;

impl<'a> Record<'a> {
    /// The one constructor: a record with no error, flags, message, count or boundary.
    pub(crate) fn new(level: Level, kind: RecordKind, code: Code, at: &'a Origin) -> Record<'a> {
        Record {
            level,
            kind,
            code,
            at,
            flags: 0,
            error: None,
            message: None,
            suppressed: 0,
            boundary: None,
            already_reported: None,
        }
    }

    pub(crate) fn with_error(mut self, e: &'a Error) -> Record<'a> {
        self.error = Some(e);
        self
    }

    pub(crate) fn with_flags(mut self, flags: u32) -> Record<'a> {
        self.flags = flags;
        self
    }

    pub(crate) fn with_boundary(mut self, name: &'a str) -> Record<'a> {
        self.boundary = Some(name);
        self
    }

    pub(crate) fn with_message(mut self, message: core::fmt::Arguments<'a>) -> Record<'a> {
        self.message = Some(message);
        self
    }
}

/// Reports the count of messages a rate limit held back at `site`.
pub(crate) fn report_missed(site: SiteRef, code: Code, missed: u32) {
    if missed == 0 {
        return;
    }
    emit_missed(&site.origin(), code, missed);
}

/// The record of a rate limit's held-back count (its own frame: the record).
#[inline(never)]
fn emit_missed(at: &Origin, code: Code, missed: u32) {
    let mut r = Record::new(Level::Warning, RecordKind::Suppressed, code, at);
    r.suppressed = missed;
    sink::emit(&r);
}

/// Runs a log decision for `e`, which nobody has logged yet, at `site`: emits the message if the
/// policy allows, and marks the error as logged either way.
pub(crate) fn log_at(
    e: &mut Error,
    site: SiteRef,
    kind: RecordKind,
    message: Option<&dyn ErrorMessage>,
) {
    e.mark_logged();
    if decide_and_emit(e, site, site.source_policy(), kind, message) {
        e.mark_printed();
    }
}

/// `.gave_up()`: the operation's final failure, at the site's rate limit — the default one, not
/// the code's class (a quiet code prints here), unless the control language set the site's
/// policy or `-p`.
pub(crate) fn log_final(e: &mut Error, site: SiteRef, message: &dyn ErrorMessage) {
    let (burst, interval_ms) = crate::policy::classes::default_ratelimit();
    let source = Some(Policy::RateLimited { burst, interval_ms });
    e.mark_logged();
    if decide_and_emit(e, site, source, RecordKind::Logged, Some(message)) {
        e.mark_printed();
    }
}

/// The decision at a location site for `e`'s code under the written policy `source` (the
/// site's runtime state first), and the record if it emits; notes the code at the site.
fn decide_and_emit(
    e: &Error,
    site: SiteRef,
    source: Option<Policy>,
    kind: RecordKind,
    message: Option<&dyn ErrorMessage>,
) -> bool {
    let code = e.code();
    site.note_code(u32::from(code.get()));
    let decision = decide::decide_state(site.state(), source, code, crate::platform::now_ms());
    emit_decided(e, site, kind, message, decision)
}

/// The part of a log decision that writes: a closed window's count, then the message. Returns
/// whether the message was emitted.
#[inline(never)]
fn emit_decided(
    e: &Error,
    site: SiteRef,
    kind: RecordKind,
    message: Option<&dyn ErrorMessage>,
    decision: Decision,
) -> bool {
    let code = e.code();
    report_missed(site, code, decision.closed_missed());
    if !decision.emits() {
        return false;
    }
    // A debug site enabled with `+p` prints at debug level, like `pr_debug`.
    let level = if effective(Some(site), code) == Policy::Debug {
        Level::Debug
    } else {
        Level::Error
    };
    emit_record(e, site, kind, level, message);
    true
}

/// Builds the record of a decided message and emits it.
#[inline(never)]
fn emit_record(
    e: &Error,
    site: SiteRef,
    kind: RecordKind,
    level: Level,
    message: Option<&dyn ErrorMessage>,
) {
    let f = site.state().flags(Ordering::Relaxed);
    let at = site.origin();
    match message {
        Some(m) => emit_with_message(level, kind, f, &at, e, m),
        None => emit_plain(level, kind, f, &at, e),
    }
}

/// Emits a record without a message (its own frame).
#[inline(never)]
fn emit_plain(level: Level, kind: RecordKind, flags: u32, at: &Origin, e: &Error) {
    sink::emit(
        &Record::new(level, kind, e.code(), at)
            .with_flags(flags)
            .with_error(e),
    );
}

/// Emits a record with `m` rendered for `e` (its own frame: the formatting arguments).
#[inline(never)]
fn emit_with_message(
    level: Level,
    kind: RecordKind,
    flags: u32,
    at: &Origin,
    e: &Error,
    m: &dyn ErrorMessage,
) {
    let r = Record::new(level, kind, e.code(), at)
        .with_flags(flags)
        .with_error(e);
    sink::emit(&r.with_message(format_args!("{}", Rendered(e, m))));
}

/// What `.not_expected()` and `.or_log()` say.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unexpected {
    /// "should not fail", at error level.
    NotExpected,
    /// "using the fallback", at warning level.
    Fallback,
}

/// The `.expect()` replacement: logs once per site with the full report (one line pointing at
/// the earlier report when the error was already reported). Returns whether it printed.
pub(crate) fn unexpected_at(
    e: &mut Error,
    site: SiteRef,
    loc: &'static Location<'static>,
    why: &'static str,
    how: Unexpected,
) -> bool {
    let first = decide::decide_once(site);
    e.mark_logged();
    if first {
        emit_unexpected(e, loc, why, how);
        e.mark_printed();
    }
    first
}

#[inline(never)]
fn emit_unexpected(e: &Error, loc: &'static Location<'static>, why: &'static str, how: Unexpected) {
    let at = Origin::from_location(loc);
    if e.was_reported() {
        emit_unexpected_pointing(e, &at, why, how);
    } else {
        emit_unexpected_record(e, &at, None, why, how);
    }
}

/// The record of `.not_expected()` / `.or_log()` for an error reported before, pointing where
/// (its own frame: that place).
#[inline(never)]
fn emit_unexpected_pointing(e: &Error, at: &Origin, why: &'static str, how: Unexpected) {
    let earlier = e.reported_at().unwrap_or(Origin::UNKNOWN);
    emit_unexpected_record(e, at, Some(&earlier), why, how);
}

/// The record of `.not_expected()` / `.or_log()` (its own frame: the record).
#[inline(never)]
fn emit_unexpected_record(
    e: &Error,
    at: &Origin,
    earlier: Option<&Origin>,
    why: &'static str,
    how: Unexpected,
) {
    let (level, kind) = match how {
        Unexpected::NotExpected => (Level::Error, RecordKind::Unexpected),
        Unexpected::Fallback => (Level::Warning, RecordKind::Fallback),
    };
    let mut r = Record::new(level, kind, e.code(), at).with_error(e);
    r.already_reported = earlier;
    sink::emit(&r.with_message(format_args!("{why}")));
}

/// Used by `err!` with a message. The error was made just now at `site`: nobody can have
/// logged it, and making it stored its code in the site's `last_code`, so the decision is taken
/// directly; only a message that prints (or a rate limit's held-back count) leaves this path.
///
/// - A code the caller expects ([`expecting`](crate::expecting())) is held back unless the
///   site has `+p`: counted as suppressed, and not marked logged (whoever drops it unhandled or
///   lets it leave through a boundary reports it then).
/// - Otherwise, a storm's message that finds its rate limit's bucket empty is held back and
///   counted without the full decision ([`decide::suppressed_in_window`]).
/// - Everything else takes the full decision, out of line.
#[inline(always)]
pub(crate) fn log_created(
    e: &mut Error,
    site: &'static Site,
    args: core::fmt::Arguments<'_>,
    code: Code,
) {
    if crate::expect::held_back(code) {
        if expected_not_printed(site) {
            return;
        }
    } else if decide::suppressed_in_window(&site.state, site.policy, code) {
        e.mark_logged();
        return;
    }
    log_created_decided(e, site, args);
}

/// The creator's full log decision for `err!` with a message.
#[inline(never)]
fn log_created_decided(e: &mut Error, site: &'static Site, args: core::fmt::Arguments<'_>) {
    e.mark_logged();
    if decide_fresh(e, site, Some(&ArgsMessage(args))) {
        e.mark_printed();
    }
}

/// `err!` without a message at a site with `+p`: a log decision as for a creator that logs,
/// with no message (the line has the origin and the code). The line traces the making: it
/// does not count as logging the error, so `+p` changes what prints but not what warns when
/// dropped unhandled or what a boundary reports.
pub(crate) fn log_made(e: &Error, site: &'static Site) {
    let _ = decide_fresh(e, site, None);
}

/// The same for an error made at a location site with `+p` (`Error::new`, `from_errno`,
/// `Err(CODE)?`, a foreign error's `?`): traced, not logged.
pub(crate) fn trace_made(e: &Error, site: SiteRef) {
    let _ = decide_and_emit(e, site, site.source_policy(), RecordKind::Created, None);
}

/// The creator's log decision for an error made just now at `site`; returns whether the
/// message was emitted.
#[inline(always)]
fn decide_fresh(e: &Error, site: &'static Site, message: Option<&dyn ErrorMessage>) -> bool {
    let s = site.get();
    let decision =
        decide::decide_state(s.state(), site.policy, e.code(), crate::platform::now_ms());
    if decision == (Decision::Suppress { closed_missed: 0 }) {
        return false;
    }
    emit_decided(e, s, RecordKind::Created, message, decision)
}

/// An expected error's message at `site`: held back (counted as suppressed) unless the site
/// has `+p`. Returns whether it was held back.
#[cold]
#[inline(never)]
fn expected_not_printed(site: &'static Site) -> bool {
    let st = &site.state;
    if st.flags(Ordering::Relaxed) & crate::site::flags::PRINT_ON != 0 {
        return false;
    }
    st.suppressed.fetch_add(1, Ordering::Relaxed);
    true
}

/// The inline part of `err!(…, "msg")` for quiet sites: a site that is quiet by its written
/// policy (or by its code's default) and has no runtime control state is decided here, without
/// a call: counted as suppressed, the error marked logged. Returns false when the full decision
/// is needed.
#[inline(always)]
pub(crate) fn quiet_fast_path(e: &mut Error, site: &'static Site, code: Code) -> bool {
    let st = &site.state;
    if !decide::quiet_without_control(st, site.policy, code) {
        return false;
    }
    st.suppressed.fetch_add(1, Ordering::Relaxed);
    e.mark_logged();
    true
}

static UNHANDLED: AtomicU32 = AtomicU32::new(0);

/// How many errors were dropped unhandled so far in this process.
pub fn unhandled_drops() -> u32 {
    UNHANDLED.load(Ordering::Relaxed)
}

/// Called by `Drop` for an error nobody handled or logged.
#[cold]
#[inline(never)]
fn unhandled_drop(e: &Error) {
    if e.is_logged() {
        return;
    }
    UNHANDLED.fetch_add(1, Ordering::Relaxed);
    // Beyond the 65535th site and unrecorded there is nothing to rate-limit by: warn.
    let emits = match e.site() {
        Some(site) => {
            let d = decide::decide_drop(site);
            report_missed(site, e.code(), d.closed_missed());
            d.emits()
        }
        None => true,
    };
    if emits {
        let at = e.origin();
        let r = Record::new(Level::Warning, RecordKind::Unhandled, e.code(), &at).with_error(e);
        sink::emit(&r);
    }
}

impl Drop for Error {
    #[inline]
    fn drop(&mut self) {
        if self.0.get() & LOGGED == 0 {
            unhandled_drop(self);
        }
        self.release();
    }
}

/// Prints, for every site, the messages its rate limit is holding back now (closing their
/// windows). Useful after a storm and before unloading.
///
/// # Examples
///
/// ```
/// errtrace::policy::flush_suppressed();
/// ```
pub fn flush_suppressed() {
    for s in crate::site::all() {
        flush_site(s, None);
    }
}

/// Reports the held-back counts of every rate limit whose bucket has room again (they would
/// otherwise wait for the site's next message, which may never come). Boundaries call it: where
/// errors leave is where a storm's summary belongs. Empty buckets are left alone, so rate limits
/// keep their meaning.
#[inline(never)]
pub(crate) fn flush_expired() {
    let Some(now) = crate::platform::now_ms() else {
        return;
    };
    for s in crate::site::all() {
        flush_site(s, Some(now));
    }
}

/// Reports and closes `s`'s held-back counts: every window (`now` `None`), or only the windows
/// that are over at `now`.
#[inline(never)]
fn flush_site(s: SiteRef, now: Option<u32>) {
    let st = s.state();
    if st.log_rate.missed.load(Ordering::Relaxed) == 0
        && st.drop_rate.missed.load(Ordering::Relaxed) == 0
    {
        return;
    }
    let code = s.last_code().unwrap_or(crate::code::EIO);
    let default = crate::policy::classes::default_ratelimit();
    let close = |rs: &crate::site::RateState, (burst, interval_ms): (u32, u32)| match now {
        None => ratelimit::close(rs),
        Some(now) => ratelimit::close_if_over(rs, burst, interval_ms, now),
    };
    let log_limit = match effective(Some(s), code) {
        Policy::RateLimited { burst, interval_ms } => (burst, interval_ms),
        _ => default,
    };
    report_missed(s, code, close(&st.log_rate, log_limit));
    report_missed(s, code, close(&st.drop_rate, default));
}
