//! The test helper: every fail point a closure reaches, forced to fail once each.

use super::{armed, points, refresh, register_statics, reset, OBSERVE};
use crate::control::query::{FailQuery, Pattern};
use crate::sync::Ordering;

/// What happened when one fail point was forced to fail.
#[derive(Debug)]
pub struct Outcome<R> {
    /// The point forced to fail.
    pub point: &'static str,
    /// Whether the point was actually reached and failed in this run.
    pub injected: bool,
    /// What the closure returned.
    pub result: R,
    /// Errors dropped unhandled during the run (should be 0).
    pub dropped_unhandled: u32,
}

/// Runs `f` once with no fault to find the fail points it reaches, then once per point with
/// that point (only) forced to fail once, and returns what happened each time. Points first
/// reached in a faulted run are exercised too.
///
/// Fail points are process-wide: do not run two `exercise` calls, or other code that uses the
/// same points, at the same time.
///
/// # Examples
///
/// ```
/// use errtrace::{code::{ENODEV, ENOMEM}, fail_point, fault, ResultExt};
///
/// fn open() -> errtrace::Result<u32> { fail_point!("open_dev", ENODEV); Ok(1) }
/// fn map() -> errtrace::Result<u32> { fail_point!("map_regs", ENOMEM); Ok(2) }
/// fn probe() -> errtrace::Result<u32> { Ok(open()? + map().log("mapping registers")?) }
///
/// let outcomes = fault::exercise(|| errtrace::boundary("probe", probe()));
/// assert_eq!(outcomes.len(), 2);
/// for o in &outcomes {
///     assert!(o.injected, "{} not reached", o.point);
///     assert!(o.result.is_err());
///     assert_eq!(o.dropped_unhandled, 0);
/// }
/// ```
pub fn exercise<R>(mut f: impl FnMut() -> R) -> std::vec::Vec<Outcome<R>> {
    use std::vec::Vec;
    reset();
    OBSERVE.fetch_add(1, Ordering::AcqRel);
    register_statics();
    for p in points() {
        refresh(p);
    }
    let hits_before: Vec<(&'static str, u32)> = points()
        .map(|p| (p.name, p.hits.load(Ordering::Relaxed)))
        .collect();
    let reached_in = |before: &[(&'static str, u32)]| -> Vec<&'static str> {
        points()
            .filter(|p| {
                let b = before
                    .iter()
                    .find(|(n, _)| *n == p.name)
                    .map_or(0, |(_, h)| *h);
                p.hits.load(Ordering::Relaxed) > b
            })
            .map(|p| p.name)
            .collect()
    };
    let _ = f();
    let mut todo: Vec<&'static str> = reached_in(&hits_before);
    let mut done: Vec<&'static str> = Vec::new();
    let mut out = Vec::new();
    while let Some(name) = todo.pop() {
        if done.contains(&name) {
            continue;
        }
        done.push(name);
        let Some(point) = points().find(|p| p.name == name) else {
            continue;
        };
        let before: Vec<(&'static str, u32)> = points()
            .map(|p| (p.name, p.hits.load(Ordering::Relaxed)))
            .collect();
        let q = FailQuery {
            name: match Pattern::from_name(name) {
                Some(p) => p,
                None => continue,
            },
            probability: Some(100),
            interval: Some(1),
            times: Some(1),
            code: None,
            off: false,
        };
        if armed::configure(&q).is_err() {
            continue;
        }
        let config = armed::find_config(point.name);
        let drops = crate::policy::unhandled_drops();
        let result = f();
        let injected = config.is_some_and(|c| c.used_up());
        let dropped_unhandled = crate::policy::unhandled_drops().wrapping_sub(drops);
        let _ = armed::configure(&FailQuery { off: true, ..q });
        for n in reached_in(&before) {
            if !done.contains(&n) && !todo.contains(&n) {
                todo.push(n);
            }
        }
        out.push(Outcome {
            point: name,
            injected,
            result,
            dropped_unhandled,
        });
    }
    OBSERVE.fetch_sub(1, Ordering::AcqRel);
    reset();
    out.sort_by_key(|o| o.point);
    out
}
