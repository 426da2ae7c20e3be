//! Who logs, and how often: per-site policies, the default class of each code, and rate limits.
//!
//! A *log decision* happens when an error is made with a message ([`err!`](crate::err)`(EIO, "…")`),
//! when [`ResultExt::log`](crate::ResultExt::log) sees an `Err`, at a
//! [boundary](crate::boundary()), and when an error is dropped unhandled. The decision follows,
//! first match wins:
//!
//! 1. the site's runtime control state ([`control`](crate::control): `-p` silences, `+p` makes a
//!    quiet or debug site print, a policy word replaces the policy);
//! 2. the policy written at the site (`err!(quiet, EAGAIN)`, `err!(once, EIO, "…")`,
//!    `err!(ratelimit(5, 1000), EIO, "…")`);
//! 3. the default class of the error's code: [`Policy::Quiet`] for codes that are normal in a
//!    kernel (`EAGAIN`, `EINTR`, `ERESTARTSYS` and its kin, `EPROBE_DEFER`, `ENOMEM`), like
//!    `dev_err_probe`; configurable at build time (`ERRTRACE_QUIET_CODES=11,4,512`) and at
//!    start-up ([`set_code_policy`]);
//! 4. otherwise [`Policy::RateLimited`] with the default burst and interval (10 per 5 s, like
//!    `printk_ratelimited`; [`set_default_ratelimit`]).
//!
//! A quiet or rate-limited error still counts as logged: it is recorded and counted, and nobody
//! prints it later (it was decided not to print).
//!
//! # Rate limits
//!
//! Each site has its own state, like the kernel's `DEFINE_RATELIMIT_STATE` per call site. A window
//! opens at the first message; up to `burst` messages print in it; the rest are counted. The first
//! message after the window closes first prints "`<site>`: N messages suppressed" (or call
//! [`flush_suppressed`] to print pending counts now). `interval` 0 never limits; `burst` 0
//! suppresses everything.
//!
//! Without a clock ([`platform`](crate::platform): `no_std` and none installed) the window is
//! counted in events instead of time: it closes after `burst × 100` events at the site.
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::{EAGAIN, EIO}, policy::{self, Policy}};
//!
//! assert_eq!(policy::default_for(EAGAIN), Policy::Quiet);
//! assert_eq!(policy::default_for(EIO), Policy::RateLimited { burst: 10, interval_ms: 5000 });
//! ```

use crate::code::{Code, MAX_ERRNO};
use crate::site::{RateState, SiteState, SourcePolicy};
use crate::sync::Ordering;
#[cfg(not(loom))]
use crate::sync::{AtomicU32, AtomicU8};

/// How often a site's messages print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Every time.
    Always,
    /// The first time only, like `pr_err_once`.
    Once,
    /// At most `burst` per `interval_ms`, then a count of the suppressed ones.
    RateLimited {
        /// Messages per window.
        burst: u32,
        /// Window length in milliseconds.
        interval_ms: u32,
    },
    /// Never printed; recorded in the flight recorder and counted.
    Quiet,
    /// Printed only when enabled at runtime (`+p` in [`control`](crate::control)).
    Debug,
}

impl core::fmt::Display for Policy {
    /// `always`, `once`, `ratelimit(10/5s)`, `quiet`, `debug`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Policy::Always => f.write_str("always"),
            Policy::Once => f.write_str("once"),
            Policy::Quiet => f.write_str("quiet"),
            Policy::Debug => f.write_str("debug"),
            Policy::RateLimited { burst, interval_ms } => {
                if interval_ms % 1000 == 0 {
                    write!(f, "ratelimit({}/{}s)", burst, interval_ms / 1000)
                } else {
                    write!(f, "ratelimit({}/{}ms)", burst, interval_ms)
                }
            }
        }
    }
}

/// The kernel's `DEFAULT_RATELIMIT_BURST`.
pub const DEFAULT_BURST: u32 = 10;
/// The kernel's `DEFAULT_RATELIMIT_INTERVAL` (5 s), in milliseconds.
pub const DEFAULT_INTERVAL_MS: u32 = 5000;

#[cfg(not(loom))]
static BURST: AtomicU32 = AtomicU32::new(DEFAULT_BURST);
#[cfg(not(loom))]
static INTERVAL: AtomicU32 = AtomicU32::new(DEFAULT_INTERVAL_MS);

/// Codes quiet by default, from `ERRTRACE_QUIET_CODES` at build time when set.
const BUILD_QUIET: [u16; 16] = quiet_codes(option_env!("ERRTRACE_QUIET_CODES"));

// Evaluated only at compile time (for `BUILD_QUIET`): an out-of-range index or a bad value is a
// compile error, never a runtime panic.
#[allow(clippy::indexing_slicing, clippy::panic)]
const fn quiet_codes(env: Option<&str>) -> [u16; 16] {
    let mut out = [0u16; 16];
    let Some(text) = env else {
        // EAGAIN, EINTR, ENOMEM, ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND,
        // ERESTART_RESTARTBLOCK, EPROBE_DEFER.
        let d = [11u16, 4, 12, 512, 513, 514, 516, 517];
        let mut i = 0;
        while i < d.len() {
            out[i] = d[i];
            i += 1;
        }
        return out;
    };
    let mut bytes = text.as_bytes();
    let mut n: u32 = 0;
    let mut count = 0;
    let mut any = false;
    loop {
        let (b, rest) = match bytes {
            [b, rest @ ..] => (Some(*b), rest),
            [] => (None, bytes),
        };
        match b {
            Some(d @ b'0'..=b'9') => {
                n = n * 10 + (d - b'0') as u32;
                any = true;
                assert!(
                    n <= MAX_ERRNO as u32,
                    "ERRTRACE_QUIET_CODES: value above 4095"
                );
            }
            Some(b',') | Some(b' ') | None => {
                if any {
                    assert!(count < 16, "ERRTRACE_QUIET_CODES: at most 16 codes");
                    out[count] = n as u16;
                    count += 1;
                }
                n = 0;
                any = false;
                if b.is_none() {
                    return out;
                }
            }
            Some(_) => panic!("ERRTRACE_QUIET_CODES: expected comma-separated errno numbers"),
        }
        bytes = rest;
    }
}

const CLASS_DEFAULT: u8 = 0;
const CLASS_RATELIMIT: u8 = 1;
const CLASS_QUIET: u8 = 2;
const CLASS_ALWAYS: u8 = 3;
const CLASS_ONCE: u8 = 4;
const CLASS_DEBUG: u8 = 5;

#[cfg(not(loom))]
static CLASS: [AtomicU8; MAX_ERRNO as usize + 1] =
    [const { AtomicU8::new(CLASS_DEFAULT) }; MAX_ERRNO as usize + 1];

/// The default policy of errors with `code` (before any per-site setting).
pub fn default_for(code: Code) -> Policy {
    let class = class_of(code);
    let (burst, interval_ms) = default_ratelimit();
    match class {
        CLASS_QUIET => Policy::Quiet,
        CLASS_ALWAYS => Policy::Always,
        CLASS_ONCE => Policy::Once,
        CLASS_DEBUG => Policy::Debug,
        _ => Policy::RateLimited { burst, interval_ms },
    }
}

#[cfg(not(loom))]
fn class_of(code: Code) -> u8 {
    let c = CLASS
        .get(code.get() as usize)
        .map_or(CLASS_DEFAULT, |c| c.load(Ordering::Relaxed));
    if c != CLASS_DEFAULT {
        return c;
    }
    if BUILD_QUIET.contains(&code.get()) {
        CLASS_QUIET
    } else {
        CLASS_RATELIMIT
    }
}

#[cfg(loom)]
fn class_of(code: Code) -> u8 {
    if BUILD_QUIET.contains(&code.get()) {
        CLASS_QUIET
    } else {
        CLASS_RATELIMIT
    }
}

/// Sets the default class of `code` at start-up. Only the kind of `policy` matters for
/// [`Policy::RateLimited`]: its numbers come from [`set_default_ratelimit`].
///
/// # Examples
///
/// ```
/// use errtrace::{code::ETIMEDOUT, policy::{self, Policy}};
/// policy::set_code_policy(ETIMEDOUT, Policy::Quiet);
/// assert_eq!(policy::default_for(ETIMEDOUT), Policy::Quiet);
/// ```
#[cfg(not(loom))]
pub fn set_code_policy(code: Code, policy: Policy) {
    let class = match policy {
        Policy::Always => CLASS_ALWAYS,
        Policy::Once => CLASS_ONCE,
        Policy::Quiet => CLASS_QUIET,
        Policy::Debug => CLASS_DEBUG,
        Policy::RateLimited { .. } => CLASS_RATELIMIT,
    };
    if let Some(c) = CLASS.get(code.get() as usize) {
        c.store(class, Ordering::Relaxed);
    }
}

/// Sets the default burst and interval of rate-limited sites.
#[cfg(not(loom))]
pub fn set_default_ratelimit(burst: u32, interval_ms: u32) {
    BURST.store(burst, Ordering::Relaxed);
    INTERVAL.store(interval_ms, Ordering::Relaxed);
}

/// The default `(burst, interval_ms)`.
#[cfg(not(loom))]
pub fn default_ratelimit() -> (u32, u32) {
    (
        BURST.load(Ordering::Relaxed),
        INTERVAL.load(Ordering::Relaxed),
    )
}

#[cfg(loom)]
fn default_ratelimit() -> (u32, u32) {
    (DEFAULT_BURST, DEFAULT_INTERVAL_MS)
}

// ---- runtime (control) policy encoding, stored in SiteState::policy ----

pub(crate) const RT_NONE: u32 = 0;
const RT_ALWAYS: u32 = 1;
const RT_ONCE: u32 = 2;
const RT_QUIET: u32 = 3;
const RT_DEBUG: u32 = 4;
const RT_RATELIMIT: u32 = 5;

/// Largest burst a runtime policy word holds.
pub const MAX_RUNTIME_BURST: u32 = 0x1FFF;
/// Largest interval a runtime policy word holds, in milliseconds (32767 s).
pub const MAX_RUNTIME_INTERVAL_MS: u32 = 0x7FFF * 1000;

/// Encodes a policy in one word, so that a control change and a decision racing with it never
/// see half of each: kind in bits 0..3, burst in bits 3..16, interval in bits 16..31 (in ms, or
/// in whole seconds when bit 31 is set, for intervals above 32767 ms).
pub(crate) fn encode(policy: Policy) -> u32 {
    match policy {
        Policy::Always => RT_ALWAYS,
        Policy::Once => RT_ONCE,
        Policy::Quiet => RT_QUIET,
        Policy::Debug => RT_DEBUG,
        Policy::RateLimited { burst, interval_ms } => {
            let interval = if interval_ms <= 0x7FFF {
                interval_ms
            } else {
                (1 << 15) | (interval_ms / 1000).min(0x7FFF)
            };
            RT_RATELIMIT | (burst.min(MAX_RUNTIME_BURST) << 3) | (interval << 16)
        }
    }
}

pub(crate) fn decode(word: u32) -> Option<Policy> {
    match word & 0x7 {
        RT_ALWAYS => Some(Policy::Always),
        RT_ONCE => Some(Policy::Once),
        RT_QUIET => Some(Policy::Quiet),
        RT_DEBUG => Some(Policy::Debug),
        RT_RATELIMIT => {
            let interval = word >> 16;
            let interval_ms = if interval & (1 << 15) != 0 {
                (interval & 0x7FFF) * 1000
            } else {
                interval
            };
            Some(Policy::RateLimited {
                burst: (word >> 3) & MAX_RUNTIME_BURST,
                interval_ms,
            })
        }
        _ => None,
    }
}

pub(crate) fn from_source(p: SourcePolicy) -> Option<Policy> {
    match p {
        SourcePolicy::Default => None,
        SourcePolicy::Always => Some(Policy::Always),
        SourcePolicy::Once => Some(Policy::Once),
        SourcePolicy::Quiet => Some(Policy::Quiet),
        SourcePolicy::Debug => Some(Policy::Debug),
        SourcePolicy::RateLimited(burst, interval_ms) => {
            Some(Policy::RateLimited { burst, interval_ms })
        }
    }
}

/// What a rate limiter said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Verdict {
    /// Print this message.
    pub emit: bool,
    /// A window closed with this many suppressed messages: report them first.
    pub closed_missed: u32,
}

/// A standalone rate-limit state, for model-checking tests of [`ratelimit`]'s concurrency.
#[doc(hidden)]
pub struct RateLimiter(RateState);

#[cfg(not(loom))]
impl Default for RateLimiter {
    fn default() -> Self {
        Self::new()
    }
}

impl RateLimiter {
    crate::sync::loom_const_fn! {
        /// A fresh state.
        pub fn new() -> RateLimiter {
            RateLimiter(RateState::new())
        }
    }

    /// One message: the verdict of the kernel's `___ratelimit`.
    pub fn check(&self, burst: u32, interval_ms: u32, now_ms: Option<u32>) -> Verdict {
        ratelimit(&self.0, burst, interval_ms, now_ms)
    }

    /// Messages held back in the current window.
    pub fn missed(&self) -> u32 {
        self.0.missed.load(Ordering::Acquire)
    }
}

/// The kernel's `___ratelimit`, lock-free.
///
/// `now_ms` is `None` without a clock: the window then spans `burst × 100` events.
pub(crate) fn ratelimit(
    rs: &RateState,
    burst: u32,
    interval_ms: u32,
    now_ms: Option<u32>,
) -> Verdict {
    if interval_ms == 0 {
        return Verdict {
            emit: true,
            closed_missed: 0,
        };
    }
    if burst == 0 {
        rs.missed.fetch_add(1, Ordering::Relaxed);
        return Verdict {
            emit: false,
            closed_missed: 0,
        };
    }
    let mut closed_missed = 0;
    match now_ms {
        Some(now) => {
            let now = now.max(1);
            let start = rs.start_ms.load(Ordering::Acquire);
            if start == 0 {
                let _ = rs
                    .start_ms
                    .compare_exchange(0, now, Ordering::AcqRel, Ordering::Acquire);
            } else if window_over(now, start, interval_ms)
                && rs
                    .start_ms
                    .compare_exchange(start, now, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                // This thread closed the window.
                closed_missed = rs.missed.swap(0, Ordering::AcqRel);
                rs.printed.store(0, Ordering::Release);
            }
        }
        None => {
            let window = burst.saturating_mul(100);
            let n = rs.events.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
            if n > window
                && rs
                    .events
                    .compare_exchange(n, 1, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                closed_missed = rs.missed.swap(0, Ordering::AcqRel);
                rs.printed.store(0, Ordering::Release);
            }
        }
    }
    let printed = rs.printed.fetch_add(1, Ordering::AcqRel);
    if printed < burst {
        Verdict {
            emit: true,
            closed_missed,
        }
    } else {
        rs.missed.fetch_add(1, Ordering::Relaxed);
        Verdict {
            emit: false,
            closed_missed,
        }
    }
}

/// Whether a window that opened at `start` is over at `now` (both in wrapping milliseconds).
///
/// A thread that read the clock before another thread opened a newer window sees `now` behind
/// `start`: that is inside the new window, not 49 days later (found by the loom model).
fn window_over(now: u32, start: u32, interval_ms: u32) -> bool {
    let elapsed = now.wrapping_sub(start);
    (elapsed as i32) >= 0 && elapsed >= interval_ms
}

/// `Once`: true for the first caller only.
pub(crate) fn once(rs: &RateState) -> bool {
    rs.printed
        .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
}

/// The outcome of a log decision.
pub(crate) enum Decision {
    /// Print; first report this many suppressed messages from a closed window.
    Emit { closed_missed: u32 },
    /// Held back (counted in `suppressed`); still report a closed window's count.
    Suppress { closed_missed: u32 },
}

impl From<Verdict> for Decision {
    fn from(v: Verdict) -> Decision {
        let closed_missed = v.closed_missed;
        if v.emit {
            Decision::Emit { closed_missed }
        } else {
            Decision::Suppress { closed_missed }
        }
    }
}

/// The effective policy of a site's state: its runtime word, else its source policy, else the
/// code's default class.
pub(crate) fn effective_state(st: &SiteState, source: SourcePolicy, code: Code) -> Policy {
    let w = st.policy.load(Ordering::Acquire);
    if w != RT_NONE {
        if let Some(p) = decode(w) {
            return p;
        }
    }
    if let Some(p) = from_source(source) {
        return p;
    }
    default_for(code)
}

/// Decides whether a message at a site prints, updating its counters. Reads the control flags
/// and the policy word once each, so a concurrent control change is seen whole or not at all.
pub(crate) fn decide_state(
    st: &SiteState,
    source: SourcePolicy,
    code: Code,
    now_ms: Option<u32>,
) -> Decision {
    use crate::site::flags;
    let f = st.flags.load(Ordering::Acquire);
    let limited = |(burst, interval_ms): (u32, u32)| {
        Decision::from(ratelimit(&st.log_rate, burst, interval_ms, now_ms))
    };
    let d = if f & flags::PRINT_OFF != 0 {
        Decision::Suppress { closed_missed: 0 }
    } else {
        match effective_state(st, source, code) {
            Policy::Always => Decision::Emit { closed_missed: 0 },
            Policy::Once => {
                if once(&st.log_rate) {
                    Decision::Emit { closed_missed: 0 }
                } else {
                    Decision::Suppress { closed_missed: 0 }
                }
            }
            Policy::Quiet | Policy::Debug => {
                if f & flags::PRINT_ON != 0 {
                    limited(default_ratelimit())
                } else {
                    Decision::Suppress { closed_missed: 0 }
                }
            }
            Policy::RateLimited { burst, interval_ms } => limited((burst, interval_ms)),
        }
    };
    match d {
        Decision::Emit { .. } => st.logged.fetch_add(1, Ordering::Relaxed),
        Decision::Suppress { .. } => st.suppressed.fetch_add(1, Ordering::Relaxed),
    };
    d
}

/// One site's counters and control state on its own, for model-checking control changes made
/// while errors fire (`tests/loom.rs`).
#[doc(hidden)]
pub struct ControlledSite(SiteState);

#[cfg(not(loom))]
impl Default for ControlledSite {
    fn default() -> Self {
        Self::new()
    }
}

impl ControlledSite {
    crate::sync::loom_const_fn! {
        /// A fresh site.
        pub fn new() -> ControlledSite {
            ControlledSite(SiteState::new())
        }
    }

    /// `+p` (`on`) or `-p`, as the control language applies it.
    pub fn set_print(&self, on: bool) {
        let op = if on {
            crate::site::FlagChange::Add
        } else {
            crate::site::FlagChange::Remove
        };
        self.0.update_flags(op, crate::site::flags::PRINT_ON);
    }

    /// A policy word, as the control language applies it.
    pub fn set_policy(&self, p: Policy) {
        self.0.policy.store(encode(p), Ordering::Release);
    }

    /// A log decision for `code` at time `now_ms`: whether it prints.
    pub fn decide(&self, code: Code, now_ms: u32) -> bool {
        matches!(
            decide_state(&self.0, SourcePolicy::Default, code, Some(now_ms)),
            Decision::Emit { .. }
        )
    }

    /// `(logged, suppressed)`.
    pub fn counters(&self) -> (u32, u32) {
        let c = self.0.counters();
        (c.logged, c.suppressed)
    }

    /// The raw flags.
    pub fn flags(&self) -> u32 {
        self.0.flags.load(Ordering::Acquire)
    }
}

#[cfg(not(loom))]
pub use decide::*;

#[cfg(not(loom))]
mod decide {
    use super::*;
    use crate::error::Error;
    use crate::sink::{self, Level, Record, RecordKind};
    use crate::site::{flags, SiteRef};

    /// The effective policy at a site for `code`.
    pub fn effective(site: Option<SiteRef>, code: Code) -> Policy {
        effective_with(site, code, None)
    }

    /// [`effective`] with the site's source policy when the caller has it at hand (a static
    /// site), which saves finding the static site again through the table.
    #[inline]
    fn effective_with(site: Option<SiteRef>, code: Code, source: Option<SourcePolicy>) -> Policy {
        match site {
            Some(s) => {
                effective_state(s.state(), source.unwrap_or_else(|| s.source_policy()), code)
            }
            None => default_for(code),
        }
    }

    /// Decides whether a message at `site` for `code` prints, updating the counters.
    pub(crate) fn decide(site: Option<SiteRef>, code: Code) -> Decision {
        decide_with(site, code, None)
    }

    #[inline]
    fn decide_with(site: Option<SiteRef>, code: Code, source: Option<SourcePolicy>) -> Decision {
        let Some(s) = site else {
            return fallback_decision();
        };
        let source = source.unwrap_or_else(|| s.source_policy());
        decide_state(s.state(), source, code, crate::platform::now_ms())
    }

    static FALLBACK: RateState = RateState::new();

    /// Sites that found the table full share one rate limit.
    fn fallback_decision() -> Decision {
        let (burst, interval_ms) = default_ratelimit();
        Decision::from(ratelimit(
            &FALLBACK,
            burst,
            interval_ms,
            crate::platform::now_ms(),
        ))
    }

    /// Reports a closed window's suppressed count for `site`.
    pub(crate) fn report_missed(site: Option<SiteRef>, code: Code, missed: u32) {
        if missed == 0 {
            return;
        }
        let origin = match site {
            Some(s) => s.origin(),
            None => crate::site::Origin::from_location(core::panic::Location::caller()),
        };
        sink::emit(&Record {
            level: Level::Warning,
            kind: RecordKind::Suppressed,
            code,
            at: origin,
            flags: 0,
            error: None,
            message: None,
            suppressed: missed,
            boundary: None,
        });
    }

    /// Runs a log decision for `e`, which nobody has logged yet, at `site`: emits the message
    /// if the policy allows, and marks the error as logged either way.
    pub(crate) fn log_at(
        e: &mut Error,
        site: Option<SiteRef>,
        kind: RecordKind,
        message: Option<&dyn crate::sink::ErrorMessage>,
    ) {
        // The caller (`.log()`) has already seen that `e` was not logged.
        let code = e.code();
        if let Some(s) = site {
            s.state()
                .last_code
                .store(u32::from(code.get()), Ordering::Relaxed);
        }
        let decision = decide(site, code);
        e.mark_logged();
        emit_decided(e, site, kind, message, decision);
    }

    /// The part of a log decision that writes: a closed window's count, then the message.
    #[inline(never)]
    fn emit_decided(
        e: &Error,
        site: Option<SiteRef>,
        kind: RecordKind,
        message: Option<&dyn crate::sink::ErrorMessage>,
        decision: Decision,
    ) {
        let code = e.code();
        let (emit, missed) = match decision {
            Decision::Emit { closed_missed } => (true, closed_missed),
            Decision::Suppress { closed_missed } => (false, closed_missed),
        };
        report_missed(site, code, missed);
        if emit {
            let at = match site {
                Some(s) => s.origin(),
                None => e.origin(),
            };
            let f = site.map_or(0, |s| s.state().flags.load(Ordering::Relaxed));
            // A debug site enabled with `+p` prints at debug level, like `pr_debug`.
            let level = if effective(site, code) == Policy::Debug {
                Level::Debug
            } else {
                Level::Error
            };
            match message {
                Some(m) => sink::emit(&Record {
                    level,
                    kind,
                    code,
                    at,
                    flags: f,
                    error: Some(e),
                    message: Some(format_args!("{}", crate::sink::Rendered(e, m))),
                    suppressed: 0,
                    boundary: None,
                }),
                None => sink::emit(&Record {
                    level,
                    kind,
                    code,
                    at,
                    flags: f,
                    error: Some(e),
                    message: None,
                    suppressed: 0,
                    boundary: None,
                }),
            }
        }
    }

    /// The `.expect()` replacement: logs once per site, at error level, with the full report.
    pub(crate) fn unexpected_at(
        e: &mut Error,
        site: Option<SiteRef>,
        loc: &'static core::panic::Location<'static>,
        why: &'static str,
    ) {
        let first = match site {
            Some(s) => {
                let st = s.state();
                let off = st.flags.load(Ordering::Relaxed) & flags::PRINT_OFF != 0;
                let go = !off && once(&st.log_rate);
                if go {
                    st.logged.fetch_add(1, Ordering::Relaxed);
                } else {
                    st.suppressed.fetch_add(1, Ordering::Relaxed);
                }
                go
            }
            None => fallback_decision_emits(),
        };
        e.mark_logged();
        if first {
            let e: &Error = e;
            sink::emit(&Record {
                level: Level::Error,
                kind: RecordKind::Unexpected,
                code: e.code(),
                at: crate::site::Origin::from_location(loc),
                flags: 0,
                error: Some(e),
                message: Some(format_args!("{why}")),
                suppressed: 0,
                boundary: None,
            });
        }
    }

    fn fallback_decision_emits() -> bool {
        matches!(fallback_decision(), Decision::Emit { .. })
    }

    /// Used by `err!` with a message. The error was made just now at `site`: nobody can have
    /// logged it, and making it stored its code in the site's `last_code`, so the decision is
    /// taken directly; only a message that prints (or a closed window's count) leaves this path.
    #[inline]
    pub(crate) fn log_created(
        e: &mut Error,
        site: &'static crate::site::Site,
        args: core::fmt::Arguments<'_>,
    ) {
        let s = SiteRef::get(site.index());
        let decision = decide_with(s, e.code(), Some(site.policy));
        e.mark_logged();
        if let Decision::Suppress { closed_missed: 0 } = decision {
            return;
        }
        let m = crate::sink::ArgsMessage(args);
        emit_decided(e, s, RecordKind::Created, Some(&m), decision);
    }

    /// The inline part of `err!(…, "msg")` for quiet sites: a site that is quiet by its source
    /// policy (or by its code's default class) and has no runtime control state is decided here,
    /// without a call: counted as suppressed, the error marked logged. Returns false when the
    /// full decision is needed.
    #[inline(always)]
    pub(crate) fn quiet_fast_path(e: &mut Error, site: &'static crate::site::Site) -> bool {
        let quiet = match site.policy {
            SourcePolicy::Quiet => true,
            SourcePolicy::Default => class_of(e.code()) == CLASS_QUIET,
            _ => false,
        };
        if !quiet {
            return false;
        }
        let Some(entry) = crate::site::SITES.entry(site.index()) else {
            return false;
        };
        let st = &entry.state;
        if st.flags.load(Ordering::Relaxed) != 0 || st.policy.load(Ordering::Relaxed) != RT_NONE {
            return false;
        }
        st.suppressed.fetch_add(1, Ordering::Relaxed);
        e.mark_logged();
        true
    }

    static UNHANDLED: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

    /// How many errors were dropped unhandled so far in this process.
    pub fn unhandled_drops() -> u32 {
        UNHANDLED.load(Ordering::Relaxed)
    }

    /// Called by `Drop` for an error nobody handled or logged.
    #[cold]
    pub(crate) fn unhandled_drop(e: &Error) {
        if e.is_logged() {
            return;
        }
        UNHANDLED.fetch_add(1, Ordering::Relaxed);
        let site = e.site();
        let (burst, interval_ms) = default_ratelimit();
        let v = match site {
            Some(s) => {
                s.state().dropped.fetch_add(1, Ordering::Relaxed);
                ratelimit(
                    &s.state().drop_rate,
                    burst,
                    interval_ms,
                    crate::platform::now_ms(),
                )
            }
            None => ratelimit(&FALLBACK, burst, interval_ms, crate::platform::now_ms()),
        };
        if v.closed_missed > 0 {
            report_missed(site, e.code(), v.closed_missed);
        }
        if v.emit {
            sink::emit(&Record {
                level: Level::Warning,
                kind: RecordKind::Unhandled,
                code: e.code(),
                at: e.origin(),
                flags: 0,
                error: Some(e),
                message: None,
                suppressed: 0,
                boundary: None,
            });
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
            let st = s.state();
            for rs in [&st.log_rate, &st.drop_rate] {
                let missed = rs.missed.swap(0, Ordering::AcqRel);
                if missed > 0 {
                    // Close the window: the next message opens a new one.
                    rs.start_ms.store(0, Ordering::Release);
                    rs.events.store(0, Ordering::Release);
                    rs.printed.store(0, Ordering::Release);
                    let code = s.last_code().unwrap_or(crate::code::EIO);
                    report_missed(Some(s), code, missed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_logic_with_clock() {
        let rs = RateState::new();
        let mut emitted = 0;
        for _ in 0..25 {
            if ratelimit(&rs, 10, 5000, Some(1000)).emit {
                emitted += 1;
            }
        }
        assert_eq!(emitted, 10);
        // Still inside the window.
        assert!(!ratelimit(&rs, 10, 5000, Some(5999)).emit);
        let v = ratelimit(&rs, 10, 5000, Some(6000));
        assert!(v.emit);
        assert_eq!(v.closed_missed, 16);
    }

    #[test]
    fn zero_interval_and_zero_burst() {
        let rs = RateState::new();
        assert!((0..100).all(|_| ratelimit(&rs, 1, 0, Some(5)).emit));
        assert!((0..100).all(|_| !ratelimit(&rs, 0, 5000, Some(5)).emit));
    }

    #[test]
    fn count_based_window() {
        let rs = RateState::new();
        let emitted = (0..1000)
            .filter(|_| ratelimit(&rs, 2, 5000, None).emit)
            .count();
        // Windows of 200 events, 2 printed in each.
        assert_eq!(emitted, 10);
    }

    #[test]
    fn once_is_once() {
        let rs = RateState::new();
        assert!(once(&rs));
        assert!(!once(&rs));
    }

    #[test]
    fn policy_display() {
        assert_eq!(
            std::format!(
                "{}",
                Policy::RateLimited {
                    burst: 10,
                    interval_ms: 5000
                }
            ),
            "ratelimit(10/5s)"
        );
        assert_eq!(
            std::format!(
                "{}",
                Policy::RateLimited {
                    burst: 3,
                    interval_ms: 250
                }
            ),
            "ratelimit(3/250ms)"
        );
    }

    #[test]
    fn encode_round_trip() {
        for p in [
            Policy::Always,
            Policy::Once,
            Policy::Quiet,
            Policy::Debug,
            Policy::RateLimited {
                burst: 7,
                interval_ms: 1234,
            },
        ] {
            assert_eq!(decode(encode(p)), Some(p));
        }
    }
}
