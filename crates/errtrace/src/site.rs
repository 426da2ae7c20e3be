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
    /// by name): what the site's policy is before it first makes an error.
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

/// Trims the helper function name the macros use to learn the enclosing function's path.
#[doc(hidden)]
pub fn function_path(raw: &'static str) -> &'static str {
    let mut s = raw.strip_suffix("::__errtrace_here").unwrap_or(raw);
    while let Some(rest) = s.strip_suffix("::{{closure}}") {
        s = rest;
    }
    s
}

/// Where a site is, and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Source file, as `file!()` gives it.
    pub file: &'static str,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
    /// The module path (`demo::bus`), known for macro sites.
    pub module: Option<&'static str>,
    /// The enclosing function's path (`demo::bus::read_reg`), known for macro sites.
    pub function: Option<&'static str>,
    /// The message format string of an `err!`/`.log` site, if any.
    pub format: Option<&'static str>,
}

impl Origin {
    pub(crate) const UNKNOWN: Origin = Origin {
        file: "<unknown>",
        line: 0,
        column: 0,
        module: None,
        function: None,
        format: None,
    };

    pub(crate) fn from_location(loc: &'static Location<'static>) -> Origin {
        Origin {
            file: loc.file(),
            line: loc.line(),
            column: loc.column(),
            module: None,
            function: None,
            format: None,
        }
    }

    pub(crate) fn from_site(site: &'static Site) -> Origin {
        Origin {
            file: site.file,
            line: site.line,
            column: site.column,
            module: Some(site.module),
            function: Some(function_path((site.function)())),
            format: if site.format.is_empty() {
                None
            } else {
                Some(site.format)
            },
        }
    }

    /// The last segment of the function path (`read_reg`), as dynamic_debug lists it.
    pub fn function_name(&self) -> Option<&'static str> {
        self.function.map(|f| after_last(f, b"::"))
    }
}

/// The part of `s` after the last `sep` (all of `s` when there is none). Byte search with
/// checked slicing: no panic path, whatever the input.
pub(crate) fn after_last<'a>(s: &'a str, sep: &[u8]) -> &'a str {
    let b = s.as_bytes();
    let n = sep.len();
    let mut i = b.len();
    while i >= n && n > 0 {
        let start = i.wrapping_sub(n);
        if b.get(start..i) == Some(sep) {
            return s.get(i..).unwrap_or(s);
        }
        i = i.wrapping_sub(1);
    }
    s
}

/// The part of `s` before the first `sep` (all of `s` when there is none).
pub(crate) fn before_first<'a>(s: &'a str, sep: &[u8]) -> &'a str {
    let b = s.as_bytes();
    let n = sep.len();
    let mut i = 0usize;
    while n > 0 && i.wrapping_add(n) <= b.len() {
        if b.get(i..i.wrapping_add(n)) == Some(sep) {
            return s.get(..i).unwrap_or(s);
        }
        i = i.wrapping_add(1);
    }
    s
}

impl core::fmt::Display for Origin {
    /// `src/bus.rs:42:13`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A snapshot of a site's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Errors made here.
    pub created: u32,
    /// Errors made here that travelled through at least one recorded hop.
    pub propagated: u32,
    /// Messages printed for this site.
    pub logged: u32,
    /// Messages held back by the policy (rate limit, once, quiet).
    pub suppressed: u32,
    /// Errors made here that were dropped unhandled.
    pub dropped: u32,
}

/// Rate-limit state of one stream of messages (the algorithm is in `policy::ratelimit`).
pub(crate) struct RateState {
    pub(crate) start_ms: AtomicU32,
    pub(crate) printed: AtomicU32,
    pub(crate) missed: AtomicU32,
    pub(crate) events: AtomicU32,
}

impl RateState {
    /// Forgets the window and its counts (a new test starts from nothing).
    #[cfg(feature = "testing")]
    pub(crate) fn reset(&self) {
        self.start_ms.store(0, Ordering::Relaxed);
        self.printed.store(0, Ordering::Relaxed);
        self.missed.store(0, Ordering::Relaxed);
        self.events.store(0, Ordering::Relaxed);
    }

    loom_const_fn! {
        pub(crate) fn new() -> RateState {
            RateState {
                start_ms: AtomicU32::new(0),
                printed: AtomicU32::new(0),
                missed: AtomicU32::new(0),
                events: AtomicU32::new(0),
            }
        }
    }
}

/// `id` while the first user links the site. Its low 16 bits are 0 (the id an error carries)
/// and it is above every counted id.
const LINKING: u32 = 0xFFFF_0000;
/// `id` of a linked site beyond the 65535th (low 16 bits 0, like `LINKING`).
const NO_ID: u32 = 0xFFFE_0000;

/// Kind hints of location sites.
const HINT_LOG: u32 = 1;
const HINT_BOUNDARY: u32 = 2;

/// A site's counters, control state and list link. All zeros when new (so pools of them live in
/// `.bss`).
///
/// # Invariants
///
/// `id` goes 0 → `LINKING` → the site's id (≥ 1), never back; `site` (static sites) or `loc`
/// (location sites) is written before the site is linked, and never changes after; `next` is
/// written once, before the Release compare-and-swap that links the site.
pub(crate) struct SiteState {
    id: AtomicU32,
    next: AtomicRef<SiteState>,
    site: AtomicRef<Site>,
    loc: AtomicRef<Location<'static>>,
    kind_hint: AtomicU32,
    pub(crate) created: AtomicU32,
    pub(crate) propagated: AtomicU32,
    pub(crate) logged: AtomicU32,
    pub(crate) suppressed: AtomicU32,
    pub(crate) dropped: AtomicU32,
    /// Control flags (see [`flags`]), including the print override bits.
    pub(crate) flags: AtomicU32,
    /// Runtime policy override (see `policy::Policy::encode`); 0 = none.
    pub(crate) policy: AtomicU32,
    /// The last code seen here, for listing and `code` matching.
    pub(crate) last_code: AtomicU32,
    pub(crate) log_rate: RateState,
    pub(crate) drop_rate: RateState,
}

impl SiteState {
    loom_const_fn! {
        pub(crate) fn new() -> SiteState {
            SiteState {
                id: AtomicU32::new(0),
                next: AtomicRef::none(),
                site: AtomicRef::none(),
                loc: AtomicRef::none(),
                kind_hint: AtomicU32::new(0),
                created: AtomicU32::new(0),
                propagated: AtomicU32::new(0),
                logged: AtomicU32::new(0),
                suppressed: AtomicU32::new(0),
                dropped: AtomicU32::new(0),
                flags: AtomicU32::new(0),
                policy: AtomicU32::new(0),
                last_code: AtomicU32::new(0),
                log_rate: RateState::new(),
                drop_rate: RateState::new(),
            }
        }
    }

    /// Applies a control flags action, atomically (`p` sets `PRINT_ON` and clears `PRINT_OFF`;
    /// removing it, or setting flags without it, does the opposite).
    pub(crate) fn update_flags(&self, op: FlagOp, bits: u32) {
        use flags::*;
        let _ = self
            .flags
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
                Some(match op {
                    FlagOp::Add => {
                        let mut n = old | bits;
                        if bits & PRINT_ON != 0 {
                            n &= !PRINT_OFF;
                        }
                        n
                    }
                    FlagOp::Remove => {
                        let mut n = old & !bits;
                        if bits & PRINT_ON != 0 {
                            n |= PRINT_OFF;
                        }
                        n
                    }
                    FlagOp::Set => {
                        if bits & PRINT_ON != 0 {
                            bits
                        } else {
                            bits | PRINT_OFF
                        }
                    }
                })
            });
    }

    pub(crate) fn counters(&self) -> Counters {
        #[cfg(not(loom))]
        let (created, propagated) = {
            use crate::counters::{Count, COUNTERS};
            let id = self.id();
            (
                COUNTERS.sum(id, Count::Created),
                COUNTERS.sum(id, Count::Propagated),
            )
        };
        #[cfg(loom)]
        let (created, propagated) = (0u32, 0u32);
        Counters {
            created: self.created.load(Ordering::Relaxed).wrapping_add(created),
            propagated: self
                .propagated
                .load(Ordering::Relaxed)
                .wrapping_add(propagated),
            logged: self.logged.load(Ordering::Relaxed),
            suppressed: self.suppressed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }

    /// The control flags in force: errtrace's own (its control queries), plus with the `dyndbg`
    /// feature what the kernel's dynamic_debug flags on the site's descriptor add.
    #[inline]
    pub(crate) fn flags(&self, order: Ordering) -> u32 {
        let f = self.flags.load(order);
        #[cfg(all(feature = "dyndbg", not(loom)))]
        let f = f | self.dyndbg_flags();
        f
    }

    #[cfg(all(feature = "dyndbg", not(loom)))]
    #[inline]
    fn dyndbg_flags(&self) -> u32 {
        match self.site.load(Ordering::Relaxed) {
            Some(site) => site
                .dyndbg
                .map_or(0, |(d, print)| dyndbg::overrides(d, site, print)),
            None => 0,
        }
    }

    /// Counts one `which` for this site: in `shard`'s block of the per-shard counters, or in
    /// the site's own atomic when its id has no counter in the blocks.
    #[inline(always)]
    pub(crate) fn count(&self, shard: u32, which: crate::counters::Count) {
        #[cfg(not(loom))]
        if crate::counters::COUNTERS.add(shard, self.raw_id(), which) {
            return;
        }
        #[cfg(loom)]
        let _ = shard;
        let own = match which {
            crate::counters::Count::Created => &self.created,
            crate::counters::Count::Propagated => &self.propagated,
        };
        own.fetch_add(1, Ordering::Relaxed);
    }

    /// The raw id word: the id, or a value whose low 16 bits are 0 and which is above every
    /// counted id while the site is being linked (or beyond the 65535th site). For the hot path.
    #[inline(always)]
    pub(crate) fn raw_id(&self) -> u32 {
        self.id.load(Ordering::Relaxed)
    }

    /// The site's id (0 while it is being linked).
    #[inline]
    pub(crate) fn id(&self) -> u32 {
        match self.id.load(Ordering::Relaxed) {
            LINKING | NO_ID => 0,
            id => id,
        }
    }
}

/// The list of every site that has fired (or was listed), newest first.
///
/// # Invariants
///
/// Every site reachable from `head` is `'static` and linked exactly once; `next_id` counts the
/// ids handed out.
pub(crate) struct SiteList {
    head: AtomicRef<SiteState>,
    next_id: AtomicU32,
}

/// Called (through [`set_appeared_hook`]) with every site as it is linked.
pub(crate) type AppearedHook = fn(SiteRef);

impl SiteList {
    loom_const_fn! {
        pub(crate) fn new() -> SiteList {
            SiteList { head: AtomicRef::none(), next_id: AtomicU32::new(0) }
        }
    }

    /// Links a site whose `id` this thread set to `LINKING`.
    #[cold]
    pub(crate) fn link(&self, state: &'static SiteState) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        // Ids are 16 bits in an `Error`; past 65535 sites, errors reach their site through the
        // flight recorder only (id 0 never matches `find`).
        let id = if id > 0xFFFF { 0 } else { id };
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            state.next.store(head, Ordering::Relaxed);
            // SeqCst: a control writer that stores its query and then walks the list, and this
            // thread that links and then reads the stored queries, cannot both miss each other.
            match self.head.compare_exchange(head, Some(state)) {
                Ok(()) => break,
                Err(now) => head = now,
            }
        }
        state
            .id
            .store(if id == 0 { NO_ID } else { id }, Ordering::Release);
        #[cfg(not(loom))]
        if let Some(hook) = APPEARED.get() {
            hook(SiteRef { state });
        }
    }

    /// Every linked site, newest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &'static SiteState> {
        let mut cur = self.head.load(Ordering::SeqCst);
        core::iter::from_fn(move || {
            let s = cur?;
            cur = s.next.load(Ordering::Acquire);
            Some(s)
        })
    }

    /// The site with id `id`.
    pub(crate) fn find(&self, id: u32) -> Option<&'static SiteState> {
        if id == 0 {
            return None;
        }
        self.iter().find(|s| s.id() == id)
    }
}

/// Every site of the program that has fired.
#[cfg(not(loom))]
pub(crate) static SITES: SiteList = SiteList::new();

#[cfg(not(loom))]
static APPEARED: SetOnce<AppearedHook> = SetOnce::new();

/// Calls the appeared hook again for a site that makes its first code (it was linked before
/// its code was known): standing `code` queries may select it now.
#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn first_code(site: SiteRef) {
    if let Some(hook) = APPEARED.get() {
        hook(site);
    }
}

/// Installs the hook called with every site as it is linked (control's standing queries). The
/// first hook stays.
#[cfg(not(loom))]
pub(crate) fn set_appeared_hook(hook: AppearedHook) {
    let _ = APPEARED.set(hook);
}

/// The pool of location sites.
///
/// # Invariants
///
/// An entry's `loc` goes from null to one location by compare-and-swap, never back, so a
/// location has at most one entry.
pub(crate) struct LocationPool<const N: usize> {
    entries: [SiteState; N],
    overflow: AtomicU32,
}

fn same_location(a: &Location<'_>, b: &Location<'_>) -> bool {
    core::ptr::eq(a, b)
        || (a.line() == b.line() && a.column() == b.column() && a.file() == b.file())
}

/// The pool place of a location, from its line and column (two locations on one line and
/// column of different files share a chain).
#[inline(always)]
fn hash(loc: &Location<'_>) -> usize {
    let h = loc.line().wrapping_mul(0x9E37_79B1) ^ loc.column().wrapping_mul(0x85EB_CA6B);
    (h ^ (h >> 15)) as usize
}

impl<const N: usize> LocationPool<N> {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        LocationPool {
            entries: [const { SiteState::new() }; N],
            overflow: AtomicU32::new(0),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        LocationPool {
            entries: core::array::from_fn(|_| SiteState::new()),
            overflow: AtomicU32::new(0),
        }
    }

    /// Finds or adds the entry for `loc`, linking a new one into `list`; `None` when full.
    #[inline]
    pub(crate) fn intern(
        &'static self,
        loc: &'static Location<'static>,
        list: &SiteList,
    ) -> Option<&'static SiteState> {
        let start = hash(loc);
        // The common case: the location is where its hash puts it, with the same pointer.
        if let Some(e) = self.entries.get(start % N) {
            if e.loc
                .load(Ordering::Acquire)
                .is_some_and(|l| core::ptr::eq(l, loc))
            {
                return Some(e);
            }
        }
        self.intern_slow(loc, list, start)
    }

    #[cold]
    #[inline(never)]
    fn intern_slow(
        &'static self,
        loc: &'static Location<'static>,
        list: &SiteList,
        start: usize,
    ) -> Option<&'static SiteState> {
        for probe in 0..N {
            let e = self.entries.get(start.wrapping_add(probe) % N)?;
            match e.loc.load(Ordering::Acquire) {
                Some(l) if same_location(l, loc) => return Some(e),
                Some(_) => continue,
                None => match e.loc.compare_exchange(None, Some(loc)) {
                    Ok(()) => {
                        if e.id
                            .compare_exchange(0, LINKING, Ordering::Acquire, Ordering::Relaxed)
                            .is_ok()
                        {
                            list.link(e);
                        }
                        return Some(e);
                    }
                    Err(Some(l)) if same_location(l, loc) => return Some(e),
                    Err(_) => continue,
                },
            }
        }
        self.overflow.fetch_add(1, Ordering::Relaxed);
        None
    }

    fn overflowed(&self) -> u32 {
        self.overflow.load(Ordering::Relaxed)
    }
}

/// The location sites.
#[cfg(not(loom))]
static LOCATIONS: LocationPool<{ crate::config::LOCATION_SITES }> = LocationPool::new();

/// The site that locations share once the pool is full.
#[cfg(not(loom))]
static OVERFLOW: Site = Site::new(
    "<location sites overflow>",
    0,
    0,
    "errtrace",
    || "errtrace::site::overflow",
    "",
    SiteKind::Error,
    None,
);

/// The site of a location (its pool entry, or the shared overflow site when the pool is full).
#[cfg(not(loom))]
#[inline]
pub(crate) fn at_location(loc: &'static Location<'static>) -> SiteRef {
    match LOCATIONS.intern(loc, &SITES) {
        Some(state) => SiteRef { state },
        None => overflow_site(),
    }
}

#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn overflow_site() -> SiteRef {
    let _ = OVERFLOW_NOTICE.compare_exchange(
        NOTICE_NONE,
        NOTICE_PENDING,
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    OVERFLOW.get()
}

const NOTICE_NONE: u32 = 0;
const NOTICE_PENDING: u32 = 1;
const NOTICE_GIVEN: u32 = 2;

/// Whether the pool's overflow still has to be reported (once, by the next record emitted).
#[cfg(not(loom))]
static OVERFLOW_NOTICE: AtomicU32 = AtomicU32::new(NOTICE_NONE);

/// True exactly once after the pool of location sites first overflowed: the caller reports it.
/// One relaxed load otherwise.
#[cfg(not(loom))]
#[inline]
pub(crate) fn take_overflow_notice() -> bool {
    OVERFLOW_NOTICE.load(Ordering::Relaxed) == NOTICE_PENDING
        && OVERFLOW_NOTICE
            .compare_exchange(
                NOTICE_PENDING,
                NOTICE_GIVEN,
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok()
}

/// The overflow site's origin (`<location sites overflow>`), for its notice.
#[cfg(not(loom))]
pub(crate) fn overflow_origin() -> Origin {
    Origin::from_site(&OVERFLOW)
}

/// Lookups that found the location-site pool full: one per error made (or `.log()` or
/// boundary passed) at a location without an entry (such locations share the site
/// `<location sites overflow>`; their errors still report their exact origin).
#[cfg(not(loom))]
pub(crate) fn overflowed() -> u32 {
    LOCATIONS.overflowed()
}

/// Number of sites that have fired (or were listed).
#[cfg(not(loom))]
pub(crate) fn count() -> usize {
    SITES.iter().fold(0usize, |n, _| n.wrapping_add(1))
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
            None => match self.state.kind_hint.load(Ordering::Relaxed) {
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
        if self.state.kind_hint.load(Ordering::Relaxed) != hint {
            self.state.kind_hint.store(hint, Ordering::Relaxed);
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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// The first overflow is to be reported once; the overflow site is listed.
    #[test]
    fn overflow_notice_once() {
        assert!(!take_overflow_notice(), "nothing overflowed yet");
        let s = overflow_site();
        let _ = overflow_site();
        assert_eq!(s.origin().file, "<location sites overflow>");
        assert!(all().any(|x| x == s), "the overflow site is listed");
        assert!(take_overflow_notice());
        assert!(!take_overflow_notice(), "reported once");
    }

    /// The overflow count is per lookup, as documented (issue 11, item 9: the documentation
    /// said "locations" while the count was per error).
    #[test]
    fn overflow_counts_lookups_not_locations() {
        static LIST: SiteList = SiteList::new();
        static POOL: LocationPool<1> = LocationPool::new();
        let a = Location::caller();
        let b = other_location();
        assert!(POOL.intern(a, &LIST).is_some());
        assert!(POOL.intern(b, &LIST).is_none());
        assert!(POOL.intern(b, &LIST).is_none());
        assert_eq!(POOL.overflowed(), 2, "two lookups of one location");
    }

    #[track_caller]
    fn other_location() -> &'static Location<'static> {
        Location::caller()
    }

    #[test]
    fn path_segments() {
        assert_eq!(after_last("demo::bus::read_reg", b"::"), "read_reg");
        assert_eq!(after_last("read_reg", b"::"), "read_reg");
        assert_eq!(after_last("a::", b"::"), "");
        assert_eq!(after_last("src/bus.rs", b"/"), "bus.rs");
        assert_eq!(before_first("demo::bus", b"::"), "demo");
        assert_eq!(before_first("demo", b"::"), "demo");
        assert_eq!(after_last("é::ü", b"::"), "ü");
    }
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
