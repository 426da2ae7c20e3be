//! Sites: every distinct place that makes, logs or injects errors, with its counters and its
//! runtime control state. Storage layer.
//!
//! There are two kinds of site, and both carry their own state, so nothing here has a capacity
//! that the number of sites in a program can exceed:
//!
//! - **static sites**, one `static` [`Site`] per macro call ([`err!`](crate::err),
//!   [`fail_point!`](crate::fail_point)), like tracing-core's callsites. The first time a site
//!   fires it links itself into an intrusive, lock-free list of all sites (one compare-and-swap
//!   on the list head; a failed swap means another site was linked, so a registration retries at
//!   most once per site in the program: wait-free in the number of sites). Every later use costs
//!   one relaxed load. Two threads firing a new site at once link it exactly once: the first
//!   claims it, the second uses its state without waiting.
//! - **location sites**, made by `#[track_caller]` constructors ([`Error::new`](crate::Error::new),
//!   `?` on a foreign error, `.log()`, boundaries), which have no `static` of their own. They live
//!   in a pool of [`config::LOCATION_SITES`](crate::config::LOCATION_SITES) entries, interned by
//!   their [`Location`] (one compare-and-swap publishes the key, so a location gets one entry
//!   even under a race). When the pool is full, further locations share one *overflow site*,
//!   listed as `<location sites overflow>` and reachable by queries (`file <location*`); the
//!   error still reports its exact origin (the flight recorder keeps the location), and
//!   [`overflowed()`] counts the lookups that found the pool full: one per error made (or per
//!   `.log()` or boundary passed) at a location without an entry of its own. It does not count
//!   distinct locations: telling them apart would need the storage that was full.
//!
//! Each site gets a 16-bit id when it is linked (the id an [`Error`](crate::Error) carries and
//! the probes report).
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::EIO, Error};
//!
//! let e = Error::new(EIO);
//! let site = e.site().expect("a site");
//! assert_eq!(site.origin().line, line!() - 2);
//! assert!(site.counters().created >= 1);
//! e.handled();
//! ```

#[cfg(not(loom))]
use crate::code::Code;
use crate::policy::kind::Policy;
use crate::raw::{AtomicRef, SetOnce};
use crate::sync::{loom_const_fn, AtomicU32, Ordering};
use core::panic::Location;

#[cfg(feature = "dyndbg")]
pub(crate) mod dyndbg;
mod list;
mod origin;
mod pool;
mod state;

#[cfg(not(loom))]
use list::first_code;
pub(crate) use list::SiteList;
#[cfg(not(loom))]
pub(crate) use list::SITES;
#[cfg(all(not(loom), feature = "control"))]
pub(crate) use list::{run_deferred_appeared, set_appeared_hook};
#[doc(hidden)]
pub use origin::function_path;
pub use origin::Origin;
#[cfg(feature = "control")]
pub(crate) use origin::{after_last, before_first};
#[cfg(all(test, loom))]
pub(crate) use pool::LocationPool;
#[cfg(not(loom))]
pub(crate) use pool::{at_location, count, overflow_origin, overflowed, take_overflow_notice};
pub use state::Counters;
pub(crate) use state::{RateState, SiteState};
use state::{HINT_BOUNDARY, HINT_LOG, HINT_MASK, LINKING};

/// Per-site control flags.
pub mod flags {
    /// `+p` was given: print even quiet and debug sites.
    pub const PRINT_ON: u32 = 1 << 0;
    /// `-p` was given: never print this site.
    pub const PRINT_OFF: u32 = 1 << 1;
    /// `f`: prefix the function name.
    pub const FUNCTION: u32 = 1 << 2;
    /// `l`: prefix the line number.
    pub const LINE: u32 = 1 << 3;
    /// `m`: prefix the module path.
    pub const MODULE: u32 = 1 << 4;
    /// `t`: prefix the thread/CPU id.
    pub const THREAD: u32 = 1 << 5;
    /// `h`: print the trail (origin and hops) after the message.
    pub const TRAIL: u32 = 1 << 6;
    /// `s`: prefix the source file name (dynamic_debug's `s`).
    pub const SOURCE: u32 = 1 << 7;
    /// The decoration flags.
    pub const DECORATIONS: u32 = FUNCTION | LINE | MODULE | THREAD | TRAIL | SOURCE;
}

/// How a flags action combines with a site's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagOp {
    /// `+`: add these flags.
    Add,
    /// `-`: remove these flags.
    Remove,
    /// `=`: set exactly these flags.
    Set,
}

/// What a site does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SiteKind {
    /// Makes errors (`err!`, `Error::new`, `From`).
    Error,
    /// Logs errors made elsewhere (`.log()`, `.log_with()`, `.or_log()`).
    Log,
    /// A fault-injection point (`fail_point!`).
    FailPoint,
    /// Where errors leave Rust code (`boundary`).
    Boundary,
}

/// A static call site, made by errtrace's macros. Not built by hand.
#[doc(hidden)]
pub struct Site {
    pub(crate) file: &'static str,
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) module: &'static str,
    pub(crate) function: fn() -> &'static str,
    pub(crate) format: &'static str,
    pub(crate) kind: SiteKind,
    /// The policy written at the site (`err!(quiet, …)`); `None`: the code's default class.
    pub(crate) policy: Option<Policy>,
    /// Whether the code written at the site is quiet by its build-time class (`EAGAIN`, … written
    /// by name): what the site's policy is before it first makes an error (the listing shows it).
    #[cfg_attr(not(feature = "control"), allow(dead_code))]
    pub(crate) quiet_code: bool,
    pub(crate) state: SiteState,
    /// The site's dynamic_debug descriptor and the site's check of its `p` (`dyndbg` feature).
    #[cfg(feature = "dyndbg")]
    pub(crate) dyndbg: Option<dyndbg::Attached>,
    /// Whether the site prints by default (then the descriptor's `p` changes nothing).
    #[cfg(feature = "dyndbg")]
    pub(crate) dyndbg_prints: bool,
}

impl core::fmt::Debug for Site {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Site({}:{}:{})", self.file, self.line, self.column)
    }
}

#[cfg(not(loom))]
impl Site {
    /// Used by the macros.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        file: &'static str,
        line: u32,
        column: u32,
        module: &'static str,
        function: fn() -> &'static str,
        format: &'static str,
        kind: SiteKind,
        policy: Option<Policy>,
    ) -> Site {
        Site {
            file,
            line,
            column,
            module,
            function,
            format,
            kind,
            policy,
            quiet_code: false,
            state: SiteState::new(),
            #[cfg(feature = "dyndbg")]
            dyndbg: None,
            #[cfg(feature = "dyndbg")]
            dyndbg_prints: false,
        }
    }

    /// Used by the macros: whether the site's code is quiet by its build-time class.
    pub const fn with_quiet_code(self, quiet_code: bool) -> Site {
        Site { quiet_code, ..self }
    }

    /// Used by the macros (`dyndbg` feature, after [`Site::with_quiet_code`]): the site with its
    /// dynamic_debug descriptor and the site's check of the descriptor's `p` (`print`).
    #[cfg(feature = "dyndbg")]
    pub const fn with_dyndbg(
        self,
        descriptor: &'static dyndbg::DynDebug,
        print: fn() -> bool,
    ) -> Site {
        let prints = dyndbg::prints_by_default(
            self.kind,
            self.policy,
            !self.format.is_empty(),
            self.quiet_code,
        );
        Site {
            dyndbg: Some((descriptor, print)),
            dyndbg_prints: prints,
            ..self
        }
    }

    /// This site's state, linking it into the list of sites on first use.
    #[inline]
    pub(crate) fn get(&'static self) -> SiteRef {
        if self.state.id.load(Ordering::Relaxed) == 0 {
            return self.register();
        }
        SiteRef { state: &self.state }
    }

    #[cold]
    #[inline(never)]
    fn register(&'static self) -> SiteRef {
        if self
            .state
            .id
            .compare_exchange(0, LINKING, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            self.state.site.store(Some(self), Ordering::Relaxed);
            SITES.link(&self.state);
        }
        SiteRef { state: &self.state }
    }
}

/// A handle to one site.
#[derive(Clone, Copy)]
pub struct SiteRef {
    pub(crate) state: &'static SiteState,
}

impl core::fmt::Debug for SiteRef {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SiteRef({})", self.origin())
    }
}

impl PartialEq for SiteRef {
    fn eq(&self, other: &SiteRef) -> bool {
        core::ptr::eq(self.state, other.state)
    }
}

impl Eq for SiteRef {}

impl SiteRef {
    /// The site with `id`, if it has fired.
    #[cfg(not(loom))]
    pub(crate) fn find(id: u32) -> Option<SiteRef> {
        SITES.find(id).map(|state| SiteRef { state })
    }

    /// The site's id (≥ 1; stable for the life of the program; the `site id` the probes
    /// report). 0 only for sites beyond the 65535th.
    pub fn index(&self) -> u32 {
        self.state.id()
    }

    /// The static site, for macro sites.
    pub(crate) fn static_site(&self) -> Option<&'static Site> {
        self.state.site.load(Ordering::Relaxed)
    }

    /// Where the site is.
    pub fn origin(&self) -> Origin {
        if let Some(s) = self.static_site() {
            return Origin::from_site(s);
        }
        match self.state.loc.load(Ordering::Acquire) {
            Some(l) => Origin::from_location(l),
            None => Origin::UNKNOWN,
        }
    }

    /// What the site does.
    pub fn kind(&self) -> SiteKind {
        match self.static_site() {
            Some(s) => s.kind,
            None => match self.state.marks.load(Ordering::Relaxed) & HINT_MASK {
                HINT_LOG => SiteKind::Log,
                HINT_BOUNDARY => SiteKind::Boundary,
                _ => SiteKind::Error,
            },
        }
    }

    pub(crate) fn set_kind(&self, kind: SiteKind) {
        let hint = match kind {
            SiteKind::Log => HINT_LOG,
            SiteKind::Boundary => HINT_BOUNDARY,
            _ => 0,
        };
        let marks = &self.state.marks;
        if marks.load(Ordering::Relaxed) & HINT_MASK != hint {
            let _ = marks.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |m| {
                Some(m & !HINT_MASK | hint)
            });
        }
    }

    /// Its counters.
    pub fn counters(&self) -> Counters {
        self.state.counters()
    }

    /// Stores `code` (a `u16` errno) as the last code made or logged here; the site's first
    /// code runs the appeared hook again, so standing `code` queries reach it. Writes only when
    /// the code changes (sites shared by CPUs keep their line clean).
    #[cfg(not(loom))]
    #[inline(always)]
    pub(crate) fn note_code(&self, code: u32) {
        let st = self.state;
        let prev = st.last_code.load(Ordering::Relaxed);
        if prev != code {
            st.last_code.store(code, Ordering::Relaxed);
            if prev == 0 {
                first_code(*self);
            }
        }
    }

    /// The last code made or logged here.
    #[cfg(not(loom))]
    pub fn last_code(&self) -> Option<Code> {
        let v = self.state.last_code.load(Ordering::Relaxed);
        Code::new(v as u16)
    }

    /// The policy written at the site, if any.
    pub(crate) fn source_policy(&self) -> Option<Policy> {
        self.static_site().and_then(|s| s.policy)
    }

    /// Whether the code written at the site is quiet by its build-time class (known before the
    /// site first makes an error).
    #[cfg(feature = "control")]
    pub(crate) fn quiet_code(&self) -> bool {
        self.static_site().is_some_and(|s| s.quiet_code)
    }

    pub(crate) fn state(&self) -> &'static SiteState {
        self.state
    }
}

/// Every site that has fired, newest first. With the `registry` feature,
/// [`control::list`](crate::control::list) first links every `err!` and `fail_point!` site of
/// the program, so they appear here before they fire.
#[cfg(not(loom))]
pub(crate) fn all() -> impl Iterator<Item = SiteRef> {
    SITES.iter().map(|state| SiteRef { state })
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::thread;

    fn leak<T>(t: T) -> &'static T {
        std::boxed::Box::leak(std::boxed::Box::new(t))
    }

    /// Two threads fire one new location at once while a third links another: the location
    /// gets one entry, linked once; the list holds exactly the two sites.
    #[test]
    fn location_interned_once_under_race() {
        loom::model(|| {
            let list: &'static SiteList = leak(SiteList::new());
            let pool: &'static LocationPool<2> = leak(LocationPool::new());
            let loc: &'static Location<'static> = Location::caller();
            let other: &'static Location<'static> = leak_other();
            let a = thread::spawn(move || pool.intern(loc, list).map(|s| s as *const _ as usize));
            let b = thread::spawn(move || pool.intern(loc, list).map(|s| s as *const _ as usize));
            let c = pool.intern(other, list).map(|s| s as *const _ as usize);
            let (a, b) = (a.join().unwrap(), b.join().unwrap());
            assert!(a.is_some() && a == b, "one entry for one location");
            assert_ne!(a, c);
            assert_eq!(list.iter().count(), 2, "each site linked once");
            let mut ids: std::vec::Vec<u32> = list.iter().map(|s| s.id()).collect();
            ids.sort();
            assert_eq!(ids, [1, 2]);
        });
    }

    /// A site appears (marked, then its hook run at once or left to the platform's deferred
    /// run) while a deferred run walks and the kind hint is written: the hook runs exactly
    /// once, and the kind hint and the mark do not overwrite each other.
    #[test]
    fn appeared_hook_runs_once_now_or_deferred() {
        for deferred in [false, true] {
            loom::model(move || {
                let state: &'static SiteState = leak(SiteState::new());
                let runs: &'static AtomicU32 = leak(AtomicU32::new(0));
                let run = move || {
                    if state.take_appeared() {
                        runs.fetch_add(1, Ordering::Relaxed);
                    }
                };
                let appears = thread::spawn(move || {
                    state.mark_appeared();
                    if !deferred {
                        run();
                    }
                });
                let walker = thread::spawn(run);
                SiteRef { state }.set_kind(SiteKind::Log);
                appears.join().unwrap();
                walker.join().unwrap();
                if deferred {
                    // The platform's run, arranged after the mark was made.
                    run();
                }
                assert_eq!(runs.load(Ordering::Relaxed), 1);
                assert_eq!(state.marks.load(Ordering::Relaxed) & HINT_MASK, HINT_LOG);
                assert!(!state.take_appeared());
            });
        }
    }

    /// The static sites' path: two threads fire one new site at once (each tries to claim it by
    /// its id word; the winner links it) while another site is linked and a reader walks the
    /// list: the site is linked once, and the reader sees only fully linked sites.
    #[test]
    fn static_site_linked_once_while_listed() {
        fn fire(state: &'static SiteState, list: &'static SiteList) {
            if state.id.load(Ordering::Relaxed) == 0
                && state
                    .id
                    .compare_exchange(0, LINKING, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                list.link(state);
            }
        }
        loom::model(|| {
            let list: &'static SiteList = leak(SiteList::new());
            let a: &'static SiteState = leak(SiteState::new());
            let b: &'static SiteState = leak(SiteState::new());
            let t1 = thread::spawn(move || fire(a, list));
            let t2 = thread::spawn(move || {
                fire(a, list);
                fire(b, list);
            });
            let seen = list.iter().count();
            assert!(seen <= 2);
            t1.join().unwrap();
            t2.join().unwrap();
            assert_eq!(list.iter().count(), 2, "a linked once, b once");
            assert_ne!(a.id(), b.id());
            assert!(a.id() >= 1 && b.id() >= 1);
        });
    }

    #[track_caller]
    fn other_location() -> &'static Location<'static> {
        Location::caller()
    }

    fn leak_other() -> &'static Location<'static> {
        other_location()
    }

    /// A full pool: a new location gets nothing (the caller uses the overflow site), counted.
    #[test]
    fn full_pool_counts_overflow() {
        loom::model(|| {
            let list: &'static SiteList = leak(SiteList::new());
            let pool: &'static LocationPool<1> = leak(LocationPool::new());
            let a = Location::caller();
            let b = leak_other();
            let t = thread::spawn(move || pool.intern(a, list).is_some());
            let got_b = pool.intern(b, list).is_some();
            let got_a = t.join().unwrap();
            assert!(got_a != got_b, "exactly one fits");
            assert_eq!(pool.overflowed(), 1);
            assert_eq!(list.iter().count(), 1);
        });
    }
}
