//! The log decision: does a message at a site print, now? Decision layer.
//!
//! First match wins: the site's runtime control state (`-p` silences, `+p` makes a quiet or
//! debug site print, a policy word replaces the policy), the policy written at the site, the
//! default of the error's code ([`classes`](super::classes)).

use crate::code::Code;
use crate::policy::classes::{default_for, default_ratelimit, kind_of};
use crate::policy::kind::{self, Policy};
use crate::policy::ratelimit::{once, ratelimit, Verdict};
use crate::site::{flags, SiteRef, SiteState};
use crate::sync::Ordering;

/// The outcome of a log decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Print; first report this many messages held back since the last one printed.
    Emit { closed_missed: u32 },
    /// Held back (counted in `suppressed`); still report this many held back before.
    Suppress { closed_missed: u32 },
}

impl Decision {
    /// Whether the message prints.
    pub(crate) fn emits(self) -> bool {
        matches!(self, Decision::Emit { .. })
    }

    /// The count of held-back messages to report first.
    pub(crate) fn closed_missed(self) -> u32 {
        match self {
            Decision::Emit { closed_missed } | Decision::Suppress { closed_missed } => {
                closed_missed
            }
        }
    }
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
/// code's default.
pub(crate) fn effective_state(st: &SiteState, source: Option<Policy>, code: Code) -> Policy {
    let w = st.policy.load(Ordering::Acquire);
    if let Some(p) = Policy::from_word(w) {
        return p;
    }
    source.unwrap_or_else(|| default_for(code))
}

/// The effective policy at a site for `code`.
pub fn effective(site: Option<SiteRef>, code: Code) -> Policy {
    match site {
        Some(s) => effective_state(s.state(), s.source_policy(), code),
        None => default_for(code),
    }
}

/// Whether a message at a site with no runtime control state, written policy `source`, for
/// `code`, is quiet: decided without touching anything but the site's two control words.
#[inline(always)]
pub(crate) fn quiet_without_control(st: &SiteState, source: Option<Policy>, code: Code) -> bool {
    let quiet = match source {
        Some(Policy::Quiet) => true,
        None => kind_of(code) == kind::QUIET,
        Some(_) => false,
    };
    quiet && without_control(st)
}

/// Whether a site has no runtime control state: no flags, no policy word (two relaxed loads).
#[inline(always)]
fn without_control(st: &SiteState) -> bool {
    st.flags(Ordering::Relaxed) == 0 && st.policy.load(Ordering::Relaxed) == kind::NONE
}

/// The common case of a rate-limited creator, decided without the full decision: a site with no
/// runtime control state whose policy (written, or its code's default) is a rate limit, whose
/// bucket is empty ([`held_back`](crate::policy::ratelimit::held_back): one load of the bucket).
/// Then the message is held back: counted as missed and as suppressed at the site, and `true` is
/// returned. Everything else (`false`: nothing was touched) takes [`decide_state`], which reaches
/// the same verdict for this case.
#[inline]
pub(crate) fn suppressed_in_window(st: &SiteState, source: Option<Policy>, code: Code) -> bool {
    if !without_control(st) {
        return false;
    }
    let (burst, interval_ms) = match source {
        Some(Policy::RateLimited { burst, interval_ms }) => (burst, interval_ms),
        None if kind_of(code) == kind::RATELIMIT => default_ratelimit(),
        _ => return false,
    };
    if interval_ms == 0 || burst == 0 {
        return false;
    }
    match crate::platform::now_ms() {
        Some(now) if crate::policy::ratelimit::held_back(&st.log_rate, burst, interval_ms, now) => {
        }
        _ => return false,
    }
    st.log_rate.missed.fetch_add(1, Ordering::Relaxed);
    st.suppressed.fetch_add(1, Ordering::Relaxed);
    true
}

/// Decides whether a message at a site prints, updating its counters. Reads the control flags
/// and the policy word once each, so a concurrent control change is seen whole or not at all.
pub(crate) fn decide_state(
    st: &SiteState,
    source: Option<Policy>,
    code: Code,
    now_ms: Option<u32>,
) -> Decision {
    let f = st.flags(Ordering::Acquire);
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
    if d.emits() {
        st.logged.fetch_add(1, Ordering::Relaxed);
    } else {
        st.suppressed.fetch_add(1, Ordering::Relaxed);
    }
    d
}

/// Decides whether a message at `site` for `code` prints, now, updating the counters.
pub(crate) fn decide(site: SiteRef, code: Code) -> Decision {
    decide_state(
        site.state(),
        site.source_policy(),
        code,
        crate::platform::now_ms(),
    )
}

/// The `.expect()` replacement's decision: once per site, unless `-p`.
pub(crate) fn decide_once(site: SiteRef) -> bool {
    let st = site.state();
    let off = st.flags(Ordering::Relaxed) & flags::PRINT_OFF != 0;
    let go = !off && once(&st.log_rate);
    if go {
        st.logged.fetch_add(1, Ordering::Relaxed);
    } else {
        st.suppressed.fetch_add(1, Ordering::Relaxed);
    }
    go
}

/// The decision for a warning about an error dropped unhandled at `site` (its own rate limit,
/// at the default burst and interval).
pub(crate) fn decide_drop(site: SiteRef) -> Decision {
    let st = site.state();
    st.dropped.fetch_add(1, Ordering::Relaxed);
    let (burst, interval_ms) = default_ratelimit();
    Decision::from(ratelimit(
        &st.drop_rate,
        burst,
        interval_ms,
        crate::platform::now_ms(),
    ))
}

// With `std`: the test needs the default clock.
#[cfg(all(test, not(loom), feature = "std"))]
mod tests {
    use super::*;
    use crate::code::EIO;
    use crate::site::FlagOp;

    /// The fast path holds back exactly what the full decision would, and touches nothing when
    /// it declines.
    #[test]
    fn the_fast_path_agrees_with_the_full_decision() {
        let st = SiteState::new();
        let p = Some(Policy::RateLimited {
            burst: 2,
            interval_ms: 3_600_000,
        });
        let now = crate::platform::now_ms();
        assert!(now.is_some(), "std has a clock");
        // A full bucket, then inside the burst: the full decision prints.
        assert!(!suppressed_in_window(&st, p, EIO));
        assert!(decide_state(&st, p, EIO, now).emits());
        assert!(!suppressed_in_window(&st, p, EIO));
        assert!(decide_state(&st, p, EIO, now).emits());
        // Past the burst, the bucket empty: both hold back, and count alike.
        assert!(suppressed_in_window(&st, p, EIO));
        assert!(!decide_state(&st, p, EIO, now).emits());
        let c = st.counters();
        assert_eq!((c.logged, c.suppressed), (2, 2));
        assert_eq!(st.log_rate.missed.load(Ordering::Relaxed), 2);
        // Runtime control state, or a policy that is not a rate limit: the full decision.
        st.update_flags(FlagOp::Add, flags::PRINT_ON);
        assert!(!suppressed_in_window(&st, p, EIO));
        assert_eq!(st.counters().suppressed, 2);
        let always = SiteState::new();
        assert!(!suppressed_in_window(&always, Some(Policy::Always), EIO));
        // A bucket that has refilled: the full decision prints.
        let st = SiteState::new();
        let short = Some(Policy::RateLimited {
            burst: 1,
            interval_ms: 1,
        });
        let then = now.map(|n| n.wrapping_sub(10));
        assert!(decide_state(&st, short, EIO, then).emits());
        assert!(!suppressed_in_window(&st, short, EIO));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// A control change (`-p`, then a policy word) racing with decisions: every decision sees
    /// either the old state or the new one whole; after `-p` is seen nothing prints.
    #[test]
    fn control_changes_while_errors_fire() {
        loom::model(|| {
            let st = Arc::new(SiteState::new());
            let s2 = st.clone();
            let ctl = thread::spawn(move || {
                s2.update_flags(crate::site::FlagOp::Remove, flags::PRINT_ON);
                s2.policy.store(Policy::Always.to_word(), Ordering::Release);
            });
            let a = decide_state(&st, None, crate::code::EIO, Some(10));
            ctl.join().unwrap();
            let b = decide_state(&st, None, crate::code::EIO, Some(10));
            assert!(!b.emits(), "-p is seen after the change");
            let c = st.counters();
            assert_eq!(c.logged + c.suppressed, 2);
            let _ = a;
        });
    }
}
