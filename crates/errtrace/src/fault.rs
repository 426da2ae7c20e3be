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
//!
//! # Without the `control` feature, or beside it: the platform's fault injection
//!
//! A platform arms points with its own facility through [`set_platform_hook`]: the hook is asked,
//! by point name, each time an armed point is reached, and a `true` injects the point's own code.
//! The Linux glue answers with the kernel's `should_fail()` on a `struct fault_attr` of the module
//! (debugfs `fail_<module>/`: probability, interval, times, space, verbose) for the points its
//! `fail_points=` parameter names. While a hook is installed every point takes the slow path (a
//! call to the hook), as a C fault site calls `should_fail()`.

use crate::code::Code;
use crate::error::Error;
use crate::raw::{AtomicRef, SetOnce};
use crate::sink::{Level, Record, RecordKind};
use crate::site::{Origin, Site};
use crate::sync::{AtomicU32, Ordering};

#[cfg(feature = "control")]
mod armed;
#[cfg(all(feature = "std", feature = "control"))]
mod exercise;

#[cfg(feature = "control")]
pub use armed::set_seed;
#[cfg(feature = "control")]
pub(crate) use armed::{configure, free_slots, is_configured};
#[cfg(all(feature = "std", feature = "control"))]
pub use exercise::{exercise, Outcome};

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
        let code = self.decide()?;
        // Not dropped if the sink panics (see `boundary`).
        let e = core::mem::ManuallyDrop::new(Error::__at_site(self.site, code));
        injected(self.site, &e);
        Some(core::mem::ManuallyDrop::into_inner(e))
    }

    /// The point's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether this call fails, and with which code: a `fail` query's configuration first, then
    /// the platform's hook.
    fn decide(&self) -> Option<Code> {
        #[cfg(feature = "control")]
        if let Some(code) = armed::find_config(self.name).and_then(|c| c.decide()) {
            return Some(code.unwrap_or(self.code));
        }
        let hook = HOOK.get()?;
        hook(self.name).then_some(self.code)
    }
}

/// The platform's fault injection: asked, with the point's name, whether this call fails.
pub type PlatformHook = fn(&'static str) -> bool;

static HOOK: SetOnce<PlatformHook> = SetOnce::new();

/// Installs the platform's fault injection (once; see the module docs). Points already reached
/// take the slow path from now on.
///
/// # Errors
///
/// A hook was already installed.
pub fn set_platform_hook(hook: PlatformHook) -> Result<(), crate::platform::AlreadySet> {
    HOOK.set(hook).map_err(|_| crate::platform::AlreadySet)?;
    refresh_all();
    Ok(())
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
    #[cfg(feature = "control")]
    let armed = armed::find_config(p.name).is_some_and(|c| c.is_on());
    #[cfg(not(feature = "control"))]
    let armed = false;
    let observing = OBSERVE.load(Ordering::Acquire) != 0;
    let hooked = HOOK.get().is_some();
    p.state.store(
        if armed || observing || hooked {
            ARMED
        } else {
            DISARMED
        },
        Ordering::Release,
    );
}

/// Refreshes every point's state (after a configuration or the hook changed).
fn refresh_all() {
    register_statics();
    for p in points() {
        refresh(p);
    }
}

/// Disarms every fail point and forgets every `fail` configuration (the platform's hook stays).
pub fn reset() {
    #[cfg(feature = "control")]
    armed::forget_all();
    for p in points() {
        refresh(p);
    }
}

/// While non-zero, every point takes the slow path so reaching it is counted.
static OBSERVE: AtomicU32 = AtomicU32::new(0);
