//! Sites: every distinct place that makes, logs or injects errors, with its counters and its
//! runtime control state.
//!
//! There are two kinds of site, interned into one fixed-size, lock-free table:
//!
//! - **static sites**, one `static` [`Site`] per macro call ([`err!`](crate::err),
//!   [`fail_point!`](crate::fail_point), …), like tracing-core's callsites: the static caches its
//!   table index in an atomic, so after the first use finding it costs one load;
//! - **location sites**, made by `#[track_caller]` constructors ([`Error::new`](crate::Error::new),
//!   `From`, `.log()`): interned by their [`Location`] on first use.
//!
//! The table never shrinks and never allocates. Its capacity is
//! [`config::SITES`](crate::config::SITES); when it is full, new origins are still reported
//! correctly (the flight recorder keeps the location itself for as long as the error lives) and
//! [`overflowed()`] counts them.
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::EIO, Error};
//!
//! let e = Error::new(EIO);
//! let site = e.site().expect("the table has room");
//! assert_eq!(site.origin().line, line!() - 2);
//! assert!(site.counters().created >= 1);
//! e.handled();
//! ```

#[cfg(not(loom))]
use crate::code::Code;
use crate::raw::AtomicRef;
use crate::sync::{loom_const_fn, AtomicU32, Ordering};
use core::panic::Location;

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
    /// `s`: print the trail after the message.
    pub const TRAIL: u32 = 1 << 6;
    /// The decoration flags.
    pub const DECORATIONS: u32 = FUNCTION | LINE | MODULE | THREAD | TRAIL;
}

/// How a flags action combines with a site's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlagChange {
    Add,
    Remove,
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

/// The source-level policy override written at a macro site (`err!(quiet, EAGAIN)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum SourcePolicy {
    /// Use the code's default class.
    Default,
    /// `always`.
    Always,
    /// `once`.
    Once,
    /// `quiet`.
    Quiet,
    /// `debug`.
    Debug,
    /// `ratelimit(burst, interval_ms)`.
    RateLimited(u32, u32),
}

/// A static call site, made by errtrace's macros. Not built by hand.
///
/// # Invariants
///
/// `index` is 0 (not yet interned), `u32::MAX` (the table was full), or a valid 1-based index
/// into the site table whose entry refers back to this `Site`.
#[doc(hidden)]
pub struct Site {
    pub(crate) file: &'static str,
    pub(crate) line: u32,
    pub(crate) column: u32,
    pub(crate) module: &'static str,
    pub(crate) function: fn() -> &'static str,
    pub(crate) format: &'static str,
    pub(crate) kind: SiteKind,
    pub(crate) policy: SourcePolicy,
    index: core::sync::atomic::AtomicU32,
}

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
        policy: SourcePolicy,
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
            index: core::sync::atomic::AtomicU32::new(0),
        }
    }

    /// The table index (1-based; 0 when the table is full), interning on first use.
    #[cfg(not(loom))]
    #[inline]
    pub(crate) fn index(&'static self) -> u32 {
        let i = self.index.load(core::sync::atomic::Ordering::Relaxed);
        if i != 0 {
            return if i == u32::MAX { 0 } else { i };
        }
        self.register()
    }

    #[cfg(not(loom))]
    #[cold]
    pub(crate) fn register(&'static self) -> u32 {
        let i = SITES.intern_static(self);
        let cached = if i == 0 { u32::MAX } else { i };
        self.index
            .store(cached, core::sync::atomic::Ordering::Relaxed);
        i
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
        self.function
            .map(|f| f.rsplit_once("::").map_or(f, |(_, name)| name))
    }
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

/// Rate-limit state of one stream of messages.
pub(crate) struct RateState {
    pub(crate) start_ms: AtomicU32,
    pub(crate) printed: AtomicU32,
    pub(crate) missed: AtomicU32,
    pub(crate) events: AtomicU32,
}

impl RateState {
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

/// Per-site counters and control state, kept in the table.
pub(crate) struct SiteState {
    pub(crate) created: AtomicU32,
    pub(crate) propagated: AtomicU32,
    pub(crate) logged: AtomicU32,
    pub(crate) suppressed: AtomicU32,
    pub(crate) dropped: AtomicU32,
    /// Control flags (see `control::flags`), including the print override bits.
    pub(crate) flags: AtomicU32,
    /// Runtime policy override (see `policy::encode`); 0 = none.
    pub(crate) policy: AtomicU32,
    /// The last code seen here, for listing and `code` matching.
    pub(crate) last_code: AtomicU32,
    /// For location sites: what uses them (0 error, 1 log, 2 boundary).
    pub(crate) kind_hint: AtomicU32,
    pub(crate) log_rate: RateState,
    pub(crate) drop_rate: RateState,
}

impl SiteState {
    loom_const_fn! {
        pub(crate) fn new() -> SiteState {
            SiteState {
                created: AtomicU32::new(0),
                propagated: AtomicU32::new(0),
                logged: AtomicU32::new(0),
                suppressed: AtomicU32::new(0),
                dropped: AtomicU32::new(0),
                flags: AtomicU32::new(0),
                policy: AtomicU32::new(0),
                last_code: AtomicU32::new(0),
                kind_hint: AtomicU32::new(0),
                log_rate: RateState::new(),
                drop_rate: RateState::new(),
            }
        }
    }

    /// Applies a control flags action, atomically (`p` sets `PRINT_ON` and clears `PRINT_OFF`;
    /// removing it, or setting flags without it, does the opposite).
    pub(crate) fn update_flags(&self, op: FlagChange, bits: u32) {
        use flags::*;
        let _ = self
            .flags
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
                Some(match op {
                    FlagChange::Add => {
                        let mut n = old | bits;
                        if bits & PRINT_ON != 0 {
                            n &= !PRINT_OFF;
                        }
                        n
                    }
                    FlagChange::Remove => {
                        let mut n = old & !bits;
                        if bits & PRINT_ON != 0 {
                            n |= PRINT_OFF;
                        }
                        n
                    }
                    FlagChange::Set => {
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
        Counters {
            created: self.created.load(Ordering::Relaxed),
            propagated: self.propagated.load(Ordering::Relaxed),
            logged: self.logged.load(Ordering::Relaxed),
            suppressed: self.suppressed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
        }
    }
}

const EMPTY: u32 = 0;
const CLAIMING: u32 = 1;
const LOCATION: u32 = 2;
const STATIC: u32 = 3;

/// How far a lookup probes before it declares the table full.
const MAX_PROBE: usize = 64;

/// One table entry.
///
/// # Invariants
///
/// `kind` goes EMPTY → CLAIMING → LOCATION or STATIC, never back; `loc` (for LOCATION) or `site`
/// (for STATIC) is written before the Release store that publishes the kind, and never again.
pub(crate) struct Entry {
    kind: AtomicU32,
    loc: AtomicRef<Location<'static>>,
    site: AtomicRef<Site>,
    pub(crate) state: SiteState,
}

impl Entry {
    loom_const_fn! {
        fn new() -> Entry {
            Entry {
                kind: AtomicU32::new(EMPTY),
                loc: AtomicRef::none(),
                site: AtomicRef::none(),
                state: SiteState::new(),
            }
        }
    }

    /// The origin of a published entry.
    pub(crate) fn origin(&self) -> Option<Origin> {
        match self.kind.load(Ordering::Acquire) {
            LOCATION => self.loc.load(Ordering::Relaxed).map(Origin::from_location),
            STATIC => self.site.load(Ordering::Relaxed).map(Origin::from_site),
            _ => None,
        }
    }

    pub(crate) fn static_site(&self) -> Option<&'static Site> {
        match self.kind.load(Ordering::Acquire) {
            STATIC => self.site.load(Ordering::Relaxed),
            _ => None,
        }
    }
}

/// The site table: a fixed-capacity, insert-only, lock-free hash table.
///
/// The global one is used through [`Error`](crate::Error) and the macros; this type is public so
/// that model-checking tests can build small private tables.
pub struct SiteTable<const N: usize> {
    entries: [Entry; N],
    used: AtomicU32,
    overflow: AtomicU32,
    /// A private table (not the process-wide one, whose new entries get the standing control
    /// queries). `false` for the global table so that it is all zeros and lives in `.bss`.
    local: bool,
}

fn same_location(a: &Location<'_>, b: &Location<'_>) -> bool {
    core::ptr::eq(a, b)
        || (a.line() == b.line() && a.column() == b.column() && a.file() == b.file())
}

fn hash(file: &str, line: u32, column: u32) -> usize {
    let h = line.wrapping_mul(0x9E37_79B1)
        ^ column.wrapping_mul(0x85EB_CA6B)
        ^ (file.len() as u32).wrapping_mul(0xC2B2_AE35);
    (h ^ (h >> 15)) as usize
}

impl<const N: usize> SiteTable<N> {
    /// An empty table.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        SiteTable {
            entries: [const { Entry::new() }; N],
            used: AtomicU32::new(0),
            overflow: AtomicU32::new(0),
            local: true,
        }
    }

    #[cfg(not(loom))]
    const fn new_global() -> Self {
        let mut t = Self::new();
        t.local = false;
        t
    }

    /// An empty table.
    #[cfg(loom)]
    pub fn new() -> Self {
        SiteTable {
            entries: core::array::from_fn(|_| Entry::new()),
            used: AtomicU32::new(0),
            overflow: AtomicU32::new(0),
            local: true,
        }
    }

    /// Finds or adds the entry for `loc`; returns its 1-based index, 0 when the table is full.
    #[inline]
    pub fn intern_location(&self, loc: &'static Location<'static>) -> u32 {
        let start = hash(loc.file(), loc.line(), loc.column());
        for probe in 0..MAX_PROBE.min(N) {
            let i = (start.wrapping_add(probe)) % N;
            let Some(e) = self.entries.get(i) else { break };
            loop {
                match e.kind.load(Ordering::Acquire) {
                    LOCATION => {
                        if let Some(l) = e.loc.load(Ordering::Relaxed) {
                            if same_location(l, loc) {
                                return i as u32 + 1;
                            }
                        }
                        break;
                    }
                    EMPTY => {
                        if e.kind
                            .compare_exchange(EMPTY, CLAIMING, Ordering::Acquire, Ordering::Acquire)
                            .is_ok()
                        {
                            e.loc.store(Some(loc), Ordering::Relaxed);
                            e.kind.store(LOCATION, Ordering::Release);
                            self.used.fetch_add(1, Ordering::Relaxed);
                            self.appeared(i as u32 + 1);
                            return i as u32 + 1;
                        }
                        // Lost the race for this entry: look at what the winner put there.
                    }
                    // Being claimed by another thread, or a static site: move on. Two threads
                    // interning one new location at once may each get an entry; both are correct.
                    _ => break,
                }
            }
        }
        self.overflow.fetch_add(1, Ordering::Relaxed);
        0
    }

    /// Finds or adds the entry for a static site; returns its 1-based index, 0 when full.
    pub fn intern_static(&self, site: &'static Site) -> u32 {
        let start = hash(site.file, site.line, site.column) ^ 0x5bd1_e995;
        for probe in 0..MAX_PROBE.min(N) {
            let i = (start.wrapping_add(probe)) % N;
            let Some(e) = self.entries.get(i) else { break };
            loop {
                match e.kind.load(Ordering::Acquire) {
                    STATIC => {
                        if e.site
                            .load(Ordering::Relaxed)
                            .is_some_and(|s| core::ptr::eq(s, site))
                        {
                            return i as u32 + 1;
                        }
                        break;
                    }
                    EMPTY => {
                        if e.kind
                            .compare_exchange(EMPTY, CLAIMING, Ordering::Acquire, Ordering::Acquire)
                            .is_ok()
                        {
                            e.site.store(Some(site), Ordering::Relaxed);
                            e.kind.store(STATIC, Ordering::Release);
                            self.used.fetch_add(1, Ordering::Relaxed);
                            self.appeared(i as u32 + 1);
                            return i as u32 + 1;
                        }
                    }
                    _ => break,
                }
            }
        }
        self.overflow.fetch_add(1, Ordering::Relaxed);
        0
    }

    #[cold]
    fn appeared(&self, index: u32) {
        #[cfg(not(loom))]
        if !self.local {
            crate::control::on_new_site(index);
        }
        #[cfg(loom)]
        let _ = index;
    }

    /// The entry at a 1-based index.
    #[inline]
    pub(crate) fn entry(&self, index: u32) -> Option<&Entry> {
        self.entries.get((index as usize).checked_sub(1)?)
    }

    /// The origin recorded at a 1-based index.
    pub fn origin(&self, index: u32) -> Option<Origin> {
        self.entry(index)?.origin()
    }

    /// Number of entries in use.
    pub fn len(&self) -> usize {
        self.used.load(Ordering::Relaxed) as usize
    }

    /// Whether no site has been interned.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Origins that found the table full.
    pub fn overflowed(&self) -> u32 {
        self.overflow.load(Ordering::Relaxed)
    }

    /// Every published entry, with its 1-based index, in table order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u32, &Entry)> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e.kind.load(Ordering::Acquire), LOCATION | STATIC))
            .map(|(i, e)| (i as u32 + 1, e))
    }
}

#[cfg(not(loom))]
impl<const N: usize> Default for SiteTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The global site table.
#[cfg(not(loom))]
pub(crate) static SITES: SiteTable<{ crate::config::SITES }> = SiteTable::new_global();

/// Origins that found the global site table full.
///
/// # Examples
///
/// ```
/// assert_eq!(errtrace::site::overflowed(), 0);
/// ```
#[cfg(not(loom))]
pub fn overflowed() -> u32 {
    SITES.overflowed()
}

/// Number of sites in the global table.
#[cfg(not(loom))]
pub fn count() -> usize {
    SITES.len()
}

/// A handle to one site of the global table.
#[cfg(not(loom))]
#[derive(Clone, Copy)]
pub struct SiteRef {
    pub(crate) index: u32,
    pub(crate) entry: &'static Entry,
}

#[cfg(not(loom))]
impl SiteRef {
    pub(crate) fn get(index: u32) -> Option<SiteRef> {
        Some(SiteRef {
            index,
            entry: SITES.entry(index)?,
        })
    }

    /// The 1-based index in the table (stable for the life of the program; the `site id` the
    /// probes report).
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Where the site is.
    pub fn origin(&self) -> Origin {
        self.entry.origin().unwrap_or(Origin {
            file: "<unknown>",
            line: 0,
            column: 0,
            module: None,
            function: None,
            format: None,
        })
    }

    /// What the site does.
    pub fn kind(&self) -> SiteKind {
        match self.entry.static_site() {
            Some(s) => s.kind,
            None => match self.entry.state.kind_hint.load(Ordering::Relaxed) {
                1 => SiteKind::Log,
                2 => SiteKind::Boundary,
                _ => SiteKind::Error,
            },
        }
    }

    pub(crate) fn set_kind(&self, kind: SiteKind) {
        let hint = match kind {
            SiteKind::Log => 1,
            SiteKind::Boundary => 2,
            _ => 0,
        };
        self.entry.state.kind_hint.store(hint, Ordering::Relaxed);
    }

    /// Its counters.
    pub fn counters(&self) -> Counters {
        self.entry.state.counters()
    }

    /// The last code made or logged here.
    pub fn last_code(&self) -> Option<Code> {
        let v = self.entry.state.last_code.load(Ordering::Relaxed);
        Code::new(v as u16)
    }

    pub(crate) fn source_policy(&self) -> SourcePolicy {
        match self.entry.static_site() {
            Some(s) => s.policy,
            None => SourcePolicy::Default,
        }
    }

    pub(crate) fn state(&self) -> &'static SiteState {
        &self.entry.state
    }
}

/// Every site in the global table, in table order.
///
/// # Examples
///
/// ```
/// let e = errtrace::err!(EIO);
/// assert!(errtrace::site::all().any(|s| s.origin().line == line!() - 1));
/// e.handled();
/// ```
#[cfg(not(loom))]
pub fn all() -> impl Iterator<Item = SiteRef> {
    SITES
        .entries()
        .map(|(index, entry)| SiteRef { index, entry })
}
