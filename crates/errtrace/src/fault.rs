//! Fault injection: named points in code that can be forced to fail at runtime, with the kernel's
//! fault-injection semantics, to prove that every error path is handled.
//!
//! ```
//! use errtrace::{fail_point, code::ENOMEM, control};
//!
//! fn alloc_buf() -> errtrace::Result<u32> {
//!     fail_point!("alloc_buf", ENOMEM); // returns Err(ENOMEM) here when armed
//!     Ok(4096)
//! }
//!
//! assert_eq!(alloc_buf().ok(), Some(4096));
//! control::apply("fail name=alloc_buf probability=100 times=2").unwrap();
//! let e = alloc_buf().unwrap_err();
//! assert_eq!(e.code(), ENOMEM);
//! assert!(e.origin().line > 0); // the origin is the fail point
//! e.handled();
//! alloc_buf().unwrap_err().handled();
//! assert_eq!(alloc_buf().ok(), Some(4096)); // times=2 used up
//! ```
//!
//! # Semantics (as the kernel's `fault_attr`)
//!
//! `fail name=GLOB [probability=P] [interval=N] [times=T] [code=CODE]` or `fail name=GLOB off`.
//! A reached point fails when: times is not 0, the call count is a multiple of `interval`
//! (default 1), and a random draw in `0..100` is below `probability` (percent; default 100 in a
//! query, since naming a point is asking for it to fail); then `times` is decremented unless it is
//! -1 (unlimited; default 1). The injected error is an ordinary error with its origin at the fail
//! point and the query's `code` (default: the point's own), so the whole reporting path runs.
//! Each injection prints one warning line at the fail point (`fault injected at NAME: …`), like
//! the kernel's fault injection; the error itself is not marked as reported.
//!
//! The random source is a counter stepped by the golden ratio and mixed (one atomic add, never a
//! retry loop), deterministic for a given [`set_seed`] in a single thread.
//!
//! A disarmed point costs one atomic load and a branch.

use crate::code::Code;
use crate::control::query::{FailQuery, Pattern, QueryError};
use crate::error::Error;
use crate::raw::AtomicRef;
use crate::sink::{Level, Record, RecordKind};
use crate::site::{Origin, Site};
use crate::sync::{AtomicU32, AtomicU8, Ordering};

const UNKNOWN: u32 = 0;
const DISARMED: u32 = 1;
const ARMED: u32 = 2;

/// A fail point, declared by [`fail_point!`](crate::fail_point). Not built by hand.
#[doc(hidden)]
pub struct FailPoint {
    name: &'static str,
    code: Code,
    site: &'static Site,
    state: AtomicU32,
    hits: AtomicU32,
    /// 0 until the first user claims linking it into [`POINTS`], then 1.
    linked: AtomicU32,
    next: AtomicRef<FailPoint>,
}

impl FailPoint {
    /// Used by the macro.
    pub const fn new(name: &'static str, code: Code, site: &'static Site) -> FailPoint {
        FailPoint {
            name,
            code,
            site,
            state: AtomicU32::new(UNKNOWN),
            hits: AtomicU32::new(0),
            linked: AtomicU32::new(0),
            next: AtomicRef::none(),
        }
    }

    /// The fast path: false when the point is known to be disarmed.
    #[inline(always)]
    pub fn may_fail(&self) -> bool {
        self.state.load(Ordering::Relaxed) != DISARMED
    }

    /// The slow path: registers the point on first use and decides whether this call fails.
    #[cold]
    #[inline(never)]
    pub fn check(&'static self) -> Option<Error> {
        if self.state.load(Ordering::Acquire) == UNKNOWN {
            register(self);
            refresh(self);
        }
        self.hits.fetch_add(1, Ordering::Relaxed);
        if self.state.load(Ordering::Acquire) != ARMED {
            return None;
        }
        let slot = find_config(self.name)?;
        let code = slot.decide()?.unwrap_or(self.code);
        // Not dropped if the sink panics (see `boundary`).
        let e = core::mem::ManuallyDrop::new(Error::__at_site(self.site, code));
        injected(self.site, &e);
        Some(core::mem::ManuallyDrop::into_inner(e))
    }

    /// The point's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// The one warning line of an injected fault (its own frame: the origin and the record).
#[inline(never)]
fn injected(site: &'static Site, e: &Error) {
    let at = Origin::from_site(site);
    let r = Record::new(Level::Warning, RecordKind::Injected, e.code(), &at).with_error(e);
    crate::sink::emit(&r);
}

/// Marks a place that can be forced to fail; in a function returning a `Result` whose error
/// converts from [`Error`], returns `Err` when the point is armed ([`control`](crate::control):
/// `fail name=NAME …`).
///
/// `fail_point!("name", CODE)` injects `CODE` (a name in [`code`](crate::code) or a `Code`
/// expression) unless the query says `code=`; `fail_point!("name")` injects the query's code, or
/// `EIO`.
///
/// # Examples
///
/// ```
/// fn read_reg() -> errtrace::Result<u8> {
///     errtrace::fail_point!("read_reg");
///     Ok(1)
/// }
/// assert_eq!(read_reg().ok(), Some(1));
/// ```
#[macro_export]
macro_rules! fail_point {
    ($name:literal) => {
        $crate::fail_point!($name, $crate::code::EIO)
    };
    ($name:literal, $code:expr) => {{
        $crate::__site!(
            __ERRTRACE_FP_SITE,
            FailPoint,
            [::core::option::Option::None][false],
            $name
        );
        static __ERRTRACE_FP: $crate::__private::FailPoint =
            $crate::__private::FailPoint::new($name, $crate::__code!($code), &__ERRTRACE_FP_SITE);
        $crate::__register!(
            FAIL_REGISTRY,
            $crate::__private::FailPoint,
            __ERRTRACE_FP_REGISTERED,
            __ERRTRACE_FP
        );
        if __ERRTRACE_FP.may_fail() {
            if let ::core::option::Option::Some(e) = __ERRTRACE_FP.check() {
                return ::core::result::Result::Err(::core::convert::From::from(e));
            }
        }
    }};
}

// ---- registered points ----

/// Every fail point reached (or listed) so far: an intrusive list, newest first, as the sites'.
static POINTS: AtomicRef<FailPoint> = AtomicRef::none();

/// Links `p` into [`POINTS`], once (the first caller links; others go on without waiting).
fn register(p: &'static FailPoint) {
    if p.linked
        .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
        .is_err()
    {
        return;
    }
    let mut head = POINTS.load(Ordering::Relaxed);
    loop {
        p.next.store(head, Ordering::Relaxed);
        // A failed swap means another point was linked: at most one retry per point.
        match POINTS.compare_exchange(head, Some(p)) {
            Ok(()) => return,
            Err(now) => head = now,
        }
    }
}

fn points() -> impl Iterator<Item = &'static FailPoint> {
    let mut cur = POINTS.load(Ordering::SeqCst);
    core::iter::from_fn(move || {
        let p = cur?;
        cur = p.next.load(Ordering::Acquire);
        Some(p)
    })
}

fn register_statics() {
    #[cfg(feature = "registry")]
    for p in crate::__private::FAIL_REGISTRY {
        if p.state.load(Ordering::Acquire) == UNKNOWN {
            register(p);
            refresh(p);
        }
    }
}

/// Every fail point known so far: `(name, times reached while observed or armed)`.
pub fn list(mut f: impl FnMut(&'static str, u32)) {
    register_statics();
    for p in points() {
        f(p.name, p.hits.load(Ordering::Relaxed));
    }
}

fn refresh(p: &FailPoint) {
    let armed = find_config(p.name).is_some_and(|c| c.is_on());
    let observing = OBSERVE.load(Ordering::Acquire) != 0;
    p.state.store(
        if armed || observing { ARMED } else { DISARMED },
        Ordering::Release,
    );
}

// ---- configurations ----

/// How many `fail` configurations can exist at once
/// ([`config::FAIL_CONFIGS`](crate::config::FAIL_CONFIGS)).
pub const MAX_CONFIGS: usize = crate::config::FAIL_CONFIGS;

struct Config {
    /// 0 free, 1 being written, 2 in use.
    used: AtomicU32,
    name: [AtomicU8; crate::control::query::MAX_PATTERN],
    name_len: AtomicU32,
    probability: AtomicU32,
    interval: AtomicU32,
    /// Failures left, as i32 bits (-1 unlimited).
    times: AtomicU32,
    code: AtomicU32,
    calls: AtomicU32,
    /// When it was last configured (a global count): the newest matching configuration wins.
    generation: AtomicU32,
}

static GENERATION: AtomicU32 = AtomicU32::new(0);

impl Config {
    const fn new() -> Config {
        Config {
            used: AtomicU32::new(0),
            name: [const { AtomicU8::new(0) }; crate::control::query::MAX_PATTERN],
            name_len: AtomicU32::new(0),
            probability: AtomicU32::new(0),
            // Read as 1 (`decide`); 0 keeps the table all zeros, in `.bss`.
            interval: AtomicU32::new(0),
            times: AtomicU32::new(0),
            code: AtomicU32::new(0),
            calls: AtomicU32::new(0),
            generation: AtomicU32::new(0),
        }
    }

    fn name_is(&self, pat: &str) -> bool {
        let len = self.name_len.load(Ordering::Acquire) as usize;
        len == pat.len()
            && self
                .name
                .iter()
                .zip(pat.bytes())
                .all(|(c, b)| c.load(Ordering::Relaxed) == b)
    }

    fn glob_matches(&self, point: &str) -> bool {
        let mut buf = [0u8; crate::control::query::MAX_PATTERN];
        let len = (self.name_len.load(Ordering::Acquire) as usize).min(buf.len());
        for (b, c) in buf.iter_mut().zip(self.name.iter()) {
            *b = c.load(Ordering::Relaxed);
        }
        buf.get(..len)
            .is_some_and(|pat| crate::control::query::glob(pat, point.as_bytes()))
    }

    fn is_on(&self) -> bool {
        self.probability.load(Ordering::Relaxed) > 0 && self.times.load(Ordering::Relaxed) != 0
    }

    /// The kernel's `should_fail`: `Some(code override)` when this call fails.
    fn decide(&self) -> Option<Option<Code>> {
        let times = self.times.load(Ordering::Acquire) as i32;
        if times == 0 {
            return None;
        }
        let interval = self.interval.load(Ordering::Relaxed).max(1);
        let calls = self.calls.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
        if interval > 1 && calls.checked_rem(interval) != Some(0) {
            return None;
        }
        let p = self.probability.load(Ordering::Relaxed);
        if p == 0 || (p < 100 && random_below_100() >= p) {
            return None;
        }
        if times != -1 {
            // Take one failure; lose the race quietly if another thread took the last one.
            let taken = self
                .times
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                    let t = t as i32;
                    if t > 0 {
                        Some(t.wrapping_sub(1) as u32)
                    } else {
                        None
                    }
                })
                .is_ok();
            if !taken {
                return None;
            }
        }
        Some(Code::new(self.code.load(Ordering::Relaxed) as u16))
    }
}

static CONFIGS: [Config; MAX_CONFIGS] = [const { Config::new() }; MAX_CONFIGS];

fn find_config(point: &str) -> Option<&'static Config> {
    // The most recently configured matching configuration wins (`fail name=alloc_* off` after
    // `fail name=alloc_buf …` disarms alloc_buf, and the other way round).
    CONFIGS
        .iter()
        .filter(|c| c.used.load(Ordering::Acquire) == 2 && c.glob_matches(point))
        .max_by_key(|c| c.generation.load(Ordering::Acquire))
}

/// Applies a parsed `fail` query (from [`control::apply`](crate::control::apply)).
pub(crate) fn configure(q: &FailQuery) -> Result<(), QueryError> {
    let name = q.name.as_str();
    let slot = match configured(name) {
        Some(c) => c,
        None => {
            let Some(c) = CONFIGS.iter().find(|c| {
                c.used
                    .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            }) else {
                return Err(table_full(q.name));
            };
            for (cell, b) in c.name.iter().zip(name.bytes()) {
                cell.store(b, Ordering::Relaxed);
            }
            c.name_len.store(name.len() as u32, Ordering::Relaxed);
            c.used.store(2, Ordering::Release);
            c
        }
    };
    slot.generation.store(
        GENERATION.fetch_add(1, Ordering::AcqRel).wrapping_add(1),
        Ordering::Release,
    );
    if q.off {
        slot.probability.store(0, Ordering::Relaxed);
        slot.times.store(0, Ordering::Relaxed);
        // An 'off' that overrides no other configuration needs no slot: free it, so names that
        // come and go (as `exercise` makes them) never fill the table.
        let overrides = CONFIGS.iter().any(|c| {
            !core::ptr::eq(c, slot) && c.used.load(Ordering::Acquire) == 2 && c.glob_matches(name)
        });
        if !overrides {
            slot.used.store(0, Ordering::Release);
        }
    } else {
        slot.probability
            .store(q.probability.unwrap_or(100), Ordering::Relaxed);
        slot.interval
            .store(q.interval.unwrap_or(1), Ordering::Relaxed);
        slot.times
            .store(q.times.unwrap_or(1) as u32, Ordering::Relaxed);
        slot.code
            .store(q.code.map_or(0, |c| u32::from(c.get())), Ordering::Relaxed);
        slot.calls.store(0, Ordering::Relaxed);
    }
    register_statics();
    for p in points() {
        refresh(p);
    }
    Ok(())
}

/// Whether a `fail` configuration with exactly this name exists.
pub(crate) fn is_configured(name: &str) -> bool {
    configured(name).is_some()
}

/// The configuration with exactly this name.
fn configured(name: &str) -> Option<&'static Config> {
    CONFIGS
        .iter()
        .find(|c| c.used.load(Ordering::Acquire) == 2 && c.name_is(name))
}

/// Free configuration slots.
pub(crate) fn free_slots() -> usize {
    CONFIGS
        .iter()
        .filter(|c| c.used.load(Ordering::Acquire) == 0)
        .fold(0usize, |n, _| n.wrapping_add(1))
}

fn table_full(name: Pattern) -> QueryError {
    let _ = name;
    QueryError::table_full()
}

/// Disarms every fail point and forgets every `fail` configuration.
pub fn reset() {
    for c in CONFIGS.iter() {
        c.probability.store(0, Ordering::Relaxed);
        c.times.store(0, Ordering::Relaxed);
        c.used.store(0, Ordering::Release);
    }
    for p in points() {
        refresh(p);
    }
}

// ---- randomness ----

static RNG: AtomicU32 = AtomicU32::new(0x2545_F491);

/// Seeds the generator behind `probability` (the default seed is fixed, so runs repeat).
pub fn set_seed(seed: u32) {
    RNG.store(seed.max(1), Ordering::Relaxed);
}

/// A draw in `0..100`: a counter stepped by the golden ratio (one atomic add, wait-free), then
/// mixed (the 32-bit finaliser of MurmurHash3).
fn random_below_100() -> u32 {
    let mut x = RNG.fetch_add(0x9E37_79B9, Ordering::Relaxed);
    x ^= x >> 16;
    x = x.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 13;
    x = x.wrapping_mul(0xC2B2_AE35);
    x ^= x >> 16;
    x % 100
}

// ---- the test helper ----

/// While non-zero, every point takes the slow path so reaching it is counted.
static OBSERVE: AtomicU32 = AtomicU32::new(0);

/// What happened when one fail point was forced to fail.
#[cfg(feature = "std")]
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
#[cfg(feature = "std")]
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
        if configure(&q).is_err() {
            continue;
        }
        let config = find_config(point.name);
        let drops = crate::policy::unhandled_drops();
        let result = f();
        let injected = config.is_some_and(|c| c.times.load(Ordering::Relaxed) == 0);
        let dropped_unhandled = crate::policy::unhandled_drops().wrapping_sub(drops);
        let _ = configure(&FailQuery { off: true, ..q });
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
