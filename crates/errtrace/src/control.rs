//! Runtime control of sites, in the model of the kernel's dynamic_debug: list every site, and
//! change what prints, and how often, without rebuilding.
//!
//! ```text
//! src/bus.rs:42 [demo::bus]read_reg =p code=EIO created=17 logged=3 suppressed=14 policy=ratelimit(10/5s)
//! ```
//!
//! [`list`] writes one line per site like the above; [`apply`] takes queries in dynamic_debug's
//! grammar (see [`query`] for the full grammar):
//!
//! | query | effect |
//! |---|---|
//! | `file *bus* +p` | print the errors of every site in files matching `*bus*`, even quiet ones |
//! | `func read_reg -p` | silence a noisy site |
//! | `module demo::* =pfl` | print, with function and line prefixes |
//! | `file src/bus.rs:40-50 +h` | print the trail (hops) after each message |
//! | `code EAGAIN quiet` | make every site that made `EAGAIN` quiet |
//! | `func probe ratelimit=5/1s` | a tighter rate limit |
//! | `fail name=alloc_buf probability=100 times=3 code=ENOMEM` | inject faults ([`fault`](crate::fault)) |
//!
//! The whole grammar, with every word and its limits, is in the guide's chapter on the control
//! language (`docs/src/control.md` in the repository, "The grammar"); it is stated there once.
//!
//! Several queries may be separated by `;` or newlines; an input applies completely or not at
//! all. A query stays in force for sites that appear later (errtrace interns some sites on
//! first use), like a `dyndbg=` boot parameter: with `std` all of them; without it up to
//! [`STANDING_BYTES`], and an input that would not fit is rejected whole, with an error.
//!
//! Sources of queries: this API; with `std`, the `ERRTRACE` environment variable and the file
//! named by `ERRTRACE_FILE`, read once by [`crate::init`] or [`init_from_env`], or else by the
//! first [`apply`] or [`list`] (never while an error is being made); in the Linux kernel
//! module, its `ctl=` parameter and debugfs file.
//!
//! # Flags
//!
//! `p` print (`+p` makes quiet and debug sites print, `-p` silences any site), `f` prefix the
//! function, `l` the line, `m` the module, `t` the thread/CPU id, `s` append the trail, `_` none.
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::EAGAIN, control, err};
//!
//! fn poll() -> errtrace::Result { Err(err!(EAGAIN, "device busy")) } // quiet by default
//!
//! poll().unwrap_err();
//! let applied = control::apply("func poll +p").unwrap();
//! assert_eq!(applied.matched, 1);
//! let e = poll().unwrap_err(); // now prints
//! assert!(e.is_logged());
//!
//! let mut listing = String::new();
//! control::list(&mut listing).unwrap();
//! assert!(listing.lines().any(|l| l.contains("]poll =p code=EAGAIN")));
//!
//! let bad = control::apply("fiel x +p").unwrap_err();
//! assert!(bad.to_string().starts_with("line 1, column 1: expected 'file', 'func'"));
//! assert!(bad.to_string().ends_with("found 'fiel'"));
//! ```

// Public only for the fuzz target and the property tests, which parse without applying.
#[doc(hidden)]
pub mod query;

use crate::policy::kind::Policy;
#[cfg(not(feature = "std"))]
use crate::raw::{AppendError, AppendOnlyText};
use core::fmt;
use core::sync::atomic::Ordering;
use query::Command;
pub use query::QueryError;

pub use crate::site::{flags, Counters, FlagOp, SiteKind, SiteRef};

/// Every site that has fired, newest first (with the `registry` feature, [`list`] first links
/// every `err!` and `fail_point!` site of the program, so they appear before they fire).
///
/// # Examples
///
/// ```
/// use errtrace::code::EIO;
/// let e = errtrace::err!(EIO);
/// assert!(errtrace::control::sites().any(|s| s.origin().line == line!() - 1));
/// e.handled();
/// ```
pub fn sites() -> impl Iterator<Item = SiteRef> {
    crate::site::all()
}

/// How many sites have fired (or were listed).
pub fn site_count() -> usize {
    crate::site::count()
}

/// How many times a location found the pool of location sites full: one count per error made
/// (or per `.log()` or boundary passed) at a location without an entry of its own. Such
/// locations share the site `<location sites overflow>`, which is listed and reachable by
/// queries; their errors still report their exact origin. Distinct locations are not counted
/// (telling them apart would need the storage that was full); a warning record reports the
/// first overflow once. Raise `ERRTRACE_LOCATION_SITES` when this is not 0.
///
/// # Examples
///
/// ```
/// assert_eq!(errtrace::control::location_overflow(), 0);
/// ```
pub fn location_overflow() -> u32 {
    crate::site::overflowed()
}

/// What an input changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Queries in the input.
    pub queries: usize,
    /// Sites matched (summed over the site queries; a site matched twice counts twice).
    pub matched: usize,
    /// Fail-point configurations set by `fail` queries.
    pub fail_points: usize,
}

impl fmt::Display for Applied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "{} quer{}, {} site{} matched, {} fail point{} set",
            self.queries,
            if self.queries == 1 { "y" } else { "ies" },
            self.matched,
            s(self.matched),
            self.fail_points,
            s(self.fail_points)
        )
    }
}

/// Validates and applies `input`: all of it, or (on error) nothing.
///
/// # Errors
///
/// [`QueryError`], naming the line, column and what was expected.
pub fn apply(input: &str) -> Result<Applied, QueryError> {
    #[cfg(feature = "std")]
    init_from_env();
    // Validate everything first: nothing is applied unless the whole input parses and its
    // `fail` names fit the fault table.
    let mut site_queries = false;
    let queries = query::parse(input, |c| site_queries |= matches!(c, Command::Site(_)))?;
    fail_room(input)?;
    let mut applied = Applied {
        queries,
        ..Applied::default()
    };
    // Remember first, then apply: a site that appears meanwhile gets the query from the
    // standing text (applying twice is harmless: every action is idempotent).
    // Only site queries stand (fail points are all found when a `fail` query is applied).
    if site_queries {
        remember(input)?;
    }
    let mut fail_err = None;
    let _ = query::parse(input, |c| match c {
        Command::Site(q) => {
            for s in crate::site::all() {
                if matches(&q, s) {
                    act(&q, s);
                    applied.matched = applied.matched.wrapping_add(1);
                }
            }
        }
        Command::Fail(q) => match crate::fault::configure(&q) {
            Ok(()) => applied.fail_points = applied.fail_points.wrapping_add(1),
            Err(e) => fail_err = Some(e),
        },
    });
    match fail_err {
        // Checked before applying; only another writer taking the last slots at the same
        // moment can make it happen.
        Some(e) => Err(e),
        None => Ok(applied),
    }
}

/// Whether the input's new `fail` names (each counted once) fit the free configuration slots.
#[inline(never)]
fn fail_room(input: &str) -> Result<(), QueryError> {
    let mut needed = 0usize;
    let mut k = 0usize;
    let _ = query::parse(input, |c| {
        let Command::Fail(q) = c else { return };
        if !earlier_fail_name(input, k, &q.name) && !crate::fault::is_configured(q.name.as_str()) {
            needed = needed.wrapping_add(1);
        }
        k = k.wrapping_add(1);
    });
    if needed > crate::fault::free_slots() {
        return Err(QueryError::table_full());
    }
    Ok(())
}

/// Whether one of the first `k` `fail` queries of `input` names `name` (it was counted then).
#[inline(never)]
fn earlier_fail_name(input: &str, k: usize, name: &query::Pattern) -> bool {
    let mut j = 0usize;
    let mut earlier = false;
    let _ = query::parse(input, |c| {
        if let Command::Fail(q) = c {
            earlier |= j < k && q.name == *name;
            j = j.wrapping_add(1);
        }
    });
    earlier
}

fn basename(path: &str) -> &str {
    crate::site::after_last(crate::site::after_last(path, b"/"), b"\\")
}

/// Whether a site query's match terms select `site`.
pub(crate) fn matches(q: &query::SiteQuery, site: SiteRef) -> bool {
    let o = site.origin();
    if let Some(p) = &q.file {
        if !(p.matches(o.file) || p.matches(basename(o.file))) {
            return false;
        }
    }
    if let Some(p) = &q.func {
        let ok = match (o.function, o.function_name()) {
            (Some(path), Some(name)) => p.matches(name) || p.matches(path),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    if let Some(p) = &q.module {
        let ok = o
            .module
            .is_some_and(|m| p.matches(m) || p.matches(crate::site::before_first(m, b"::")));
        if !ok {
            return false;
        }
    }
    if let Some(p) = &q.format {
        if !o.format.is_some_and(|f| p.matches(f)) {
            return false;
        }
    }
    if let Some((lo, hi)) = q.lines {
        if o.line < lo || o.line > hi {
            return false;
        }
    }
    if let Some(c) = q.code {
        if site.last_code() != Some(c) {
            return false;
        }
    }
    true
}

fn act(q: &query::SiteQuery, site: SiteRef) {
    let st = site.state();
    if let Some((op, bits)) = q.flags {
        st.update_flags(op, bits);
    }
    if let Some(p) = q.policy {
        st.policy.store(p.to_word(), Ordering::Release);
    }
}

/// Writes every known site, one a line, in dynamic_debug's style.
///
/// With the `registry` feature, sites made by `err!` and `fail_point!` are listed before they
/// first fire; without it (e.g. in the kernel module), sites appear when first used.
///
/// # Errors
///
/// The writer's error.
pub fn list(out: &mut dyn fmt::Write) -> fmt::Result {
    #[cfg(feature = "std")]
    init_from_env();
    register_all();
    for s in crate::site::all() {
        write_site(out, s)?;
        out.write_char('\n')?;
    }
    Ok(())
}

/// Interns every statically registered site (a no-op without the `registry` feature).
pub fn register_all() {
    #[cfg(feature = "registry")]
    for site in crate::__private::SITE_REGISTRY {
        site.get();
    }
}

fn effective_print(site: SiteRef, p: Option<Policy>) -> bool {
    let f = site.state().flags(Ordering::Relaxed);
    if f & flags::PRINT_OFF != 0 {
        return false;
    }
    f & flags::PRINT_ON != 0 || !matches!(p, Some(Policy::Quiet | Policy::Debug))
}

/// One listing line for `site` (without the newline).
///
/// # Errors
///
/// The writer's error.
pub fn write_site(out: &mut dyn fmt::Write, site: SiteRef) -> fmt::Result {
    let o = site.origin();
    write!(
        out,
        "{}:{} [{}]{}",
        o.file,
        o.line,
        o.module.unwrap_or("?"),
        o.function_name().unwrap_or("?")
    )?;
    let code = site.last_code();
    let pol = match code {
        Some(c) => Some(crate::policy::decide::effective(Some(site), c)),
        // Before its first error: the runtime policy, the one written at the site, or the
        // build-time class of the code written there (`err!(EAGAIN, …)` is quiet).
        None => {
            let w = site.state().policy.load(Ordering::Relaxed);
            Policy::from_word(w)
                .or(site.source_policy())
                .or(site.quiet_code().then_some(Policy::Quiet))
        }
    };
    let f = site.state().flags(Ordering::Relaxed);
    out.write_str(" =")?;
    let mut any = false;
    if effective_print(site, pol) {
        out.write_char('p')?;
        any = true;
    }
    // dynamic_debug's order, then errtrace's own `h`.
    for (bit, c) in [
        (flags::MODULE, 'm'),
        (flags::FUNCTION, 'f'),
        (flags::SOURCE, 's'),
        (flags::LINE, 'l'),
        (flags::THREAD, 't'),
        (flags::TRAIL, 'h'),
    ] {
        if f & bit != 0 {
            out.write_char(c)?;
            any = true;
        }
    }
    if !any {
        out.write_char('_')?;
    }
    match code {
        Some(c) => write!(out, " code={c:?}")?,
        None => out.write_str(" code=-")?,
    }
    let n = site.counters();
    write!(
        out,
        " created={} logged={} suppressed={}",
        n.created, n.logged, n.suppressed
    )?;
    match pol {
        Some(p) => write!(out, " policy={p}")?,
        None => out.write_str(" policy=default")?,
    }
    if n.dropped > 0 {
        write!(out, " dropped={}", n.dropped)?;
    }
    match site.kind() {
        crate::site::SiteKind::Error => {}
        crate::site::SiteKind::Log => out.write_str(" kind=log")?,
        crate::site::SiteKind::FailPoint => out.write_str(" kind=fail")?,
        crate::site::SiteKind::Boundary => out.write_str(" kind=boundary")?,
        #[allow(unreachable_patterns)]
        _ => {}
    }
    Ok(())
}

// ---- standing queries: applied again to sites that appear later ----

/// Without `std`: how many bytes of queries stand for sites that appear later (an input that
/// would not fit is rejected whole), [`config::STANDING_BYTES`](crate::config::STANDING_BYTES).
/// With `std` there is no limit.
pub const STANDING_BYTES: usize = crate::config::STANDING_BYTES;

#[cfg(not(feature = "std"))]
static STANDING: AppendOnlyText<STANDING_BYTES> = AppendOnlyText::new();

/// Keeps a validated input for sites that appear later.
///
/// # Errors
///
/// Without `std`: the standing space is full (nothing of the input is applied then).
fn remember(input: &str) -> Result<(), QueryError> {
    let input = input.trim_ascii();
    if input.is_empty() {
        return Ok(());
    }
    crate::site::set_appeared_hook(on_new_site);
    #[cfg(feature = "std")]
    {
        standing_list::push(input)
    }
    #[cfg(not(feature = "std"))]
    {
        // Control writers are rare; one that finds another appending retries a bounded number
        // of times (control is never on an error path).
        for _ in 0..1000 {
            match STANDING.append(input, b'\n') {
                Ok(()) => return Ok(()),
                Err(AppendError::Full) => break,
                Err(AppendError::Busy) => core::hint::spin_loop(),
            }
        }
        Err(QueryError::standing_full())
    }
}

/// With `std`: the standing queries as a list of inputs that only grows (each kept on the heap
/// for the life of the process), appended by one writer at a time and read without locks.
#[cfg(feature = "std")]
mod standing_list {
    use crate::raw::AtomicRef;
    use crate::sync::{AtomicBool, Ordering};

    /// One stored input.
    ///
    /// # Invariants
    ///
    /// `next` is written once, by the writer that appends the next node, before the node is
    /// reachable from it.
    pub(super) struct Node {
        pub(super) text: &'static str,
        next: AtomicRef<Node>,
    }

    static HEAD: AtomicRef<Node> = AtomicRef::none();
    static TAIL: AtomicRef<Node> = AtomicRef::none();
    static WRITER: AtomicBool = AtomicBool::new(false);

    /// Appends `input` (waits for another writer: control is never on an error path).
    ///
    /// # Errors
    ///
    /// The allocation failed (nothing of the input is applied then).
    #[inline(never)]
    pub(super) fn push(input: &str) -> Result<(), super::QueryError> {
        let oom = super::QueryError::out_of_memory;
        let text = crate::raw::leak_str(input).ok_or_else(oom)?;
        let node = crate::raw::leak(Node {
            text,
            next: AtomicRef::none(),
        })
        .ok_or_else(oom)?;
        while WRITER
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::thread::yield_now();
        }
        match TAIL.load(Ordering::Relaxed) {
            Some(tail) => tail.next.store(Some(node), Ordering::SeqCst),
            None => HEAD.store(Some(node), Ordering::SeqCst),
        }
        TAIL.store(Some(node), Ordering::Relaxed);
        WRITER.store(false, Ordering::Release);
        Ok(())
    }

    /// Every stored input, oldest first.
    pub(super) fn iter() -> impl Iterator<Item = &'static str> {
        let mut cur = HEAD.load(Ordering::SeqCst);
        core::iter::from_fn(move || {
            let n = cur?;
            cur = n.next.load(Ordering::Acquire);
            Some(n.text)
        })
    }
}

/// Applies the standing queries to a site that just appeared (the hook the site list calls).
/// Reads the standing text in place (it only grows, so no copy and no retry): a query being
/// stored at the same moment is applied to this site by its writer, which walks the list after
/// storing it.
fn on_new_site(site: SiteRef) {
    let apply_to_site = |c: Command| {
        if let Command::Site(q) = c {
            if matches(&q, site) {
                act(&q, site);
            }
        }
    };
    #[cfg(feature = "std")]
    for text in standing_list::iter() {
        let _ = query::parse(text, apply_to_site);
    }
    #[cfg(not(feature = "std"))]
    let _ = query::parse(STANDING.get(), apply_to_site);
}

/// With `std`: applies the `ERRTRACE` environment variable and the file named by
/// `ERRTRACE_FILE`, once per process (later calls do nothing), and arranges for the messages
/// rate limits still hold back to be reported when the calling thread ends (for `main`'s thread:
/// when the process exits). The first [`apply`] or [`list`]
/// calls it; call it (or [`crate::init`]) at start-up so that the queries stand before the
/// first error. Making an error never reads the environment or a file.
///
/// Returns the first problem met, if any: an unreadable file or a bad query (also printed to
/// stderr).
#[cfg(feature = "std")]
pub fn init_from_env() -> Option<std::string::String> {
    static DONE: crate::sync::AtomicBool = crate::sync::AtomicBool::new(false);
    if DONE.swap(true, Ordering::AcqRel) {
        return None;
    }
    // A storm's "N messages suppressed" is announced when this thread ends (for `main`'s thread,
    // when the process exits), not lost with it: touching the thread-local registers its drop.
    let _ = FLUSH_AT_EXIT.try_with(|_| {});
    let mut problem = None;
    if let Some(q) = std::env::var_os("ERRTRACE") {
        match q.to_str() {
            Some(q) => {
                if let Err(e) = apply(q) {
                    problem = Some(std::format!("ERRTRACE: {e}"));
                }
            }
            None => {
                let mut p = std::string::String::new();
                let _ = fmt::Write::write_str(&mut p, "ERRTRACE is not valid UTF-8: ignored");
                problem = Some(p);
            }
        }
    }
    if let Some(path) = std::env::var_os("ERRTRACE_FILE") {
        // Any path the system takes, UTF-8 or not.
        let path = std::path::PathBuf::from(path);
        let shown = path.display();
        match apply_file(&path) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => problem = problem.or(Some(std::format!("ERRTRACE_FILE {shown}: {e}"))),
            Err(e) => {
                // Not dropped while formatting can unwind (its drop could unwind too).
                let e = core::mem::ManuallyDrop::new(e);
                let text = std::format!("ERRTRACE_FILE {shown}: {}", *e);
                drop(core::mem::ManuallyDrop::into_inner(e));
                problem = problem.or(Some(text));
            }
        }
    }
    if let Some(p) = &problem {
        std::eprintln!("errtrace: {p}");
    }
    problem
}

/// Reports the messages rate limits still hold back when the thread that called
/// [`init_from_env`] ends: for `main`'s thread, when the process exits.
#[cfg(feature = "std")]
struct FlushAtExit;

#[cfg(feature = "std")]
impl Drop for FlushAtExit {
    fn drop(&mut self) {
        crate::emit::flush_suppressed();
    }
}

#[cfg(feature = "std")]
std::thread_local! {
    static FLUSH_AT_EXIT: FlushAtExit = const { FlushAtExit };
}

/// The most a query file may hold: queries are lines of text, and a bigger file is a mistake
/// (`/dev/zero`, a log named by accident), not a configuration.
#[cfg(feature = "std")]
pub const MAX_QUERY_FILE: u64 = 1 << 20;

/// A query file's text: a regular file only (a FIFO without a writer would block the open, a
/// device could be endless), at most [`MAX_QUERY_FILE`] bytes. Both are decided from the
/// file's metadata, which does not open it.
#[cfg(feature = "std")]
fn read_query_file(path: &std::path::Path) -> std::io::Result<std::string::String> {
    use std::io::{Error, ErrorKind};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not a regular file (a FIFO or a device is not read)",
        ));
    }
    if meta.len() > MAX_QUERY_FILE {
        return Err(Error::new(
            ErrorKind::InvalidData,
            "larger than 1 MiB (control::MAX_QUERY_FILE): not a query file",
        ));
    }
    std::fs::read_to_string(path)
}

/// With `std`: applies the queries in a file (one per line; `#` starts a comment that runs to
/// the end of its line). An error's line and column are the file's own. Only a regular file of
/// at most [`MAX_QUERY_FILE`] bytes is read: a FIFO or a device is refused without opening it.
///
/// # Errors
///
/// The I/O error reading the file (or refusing it); the inner result is [`apply`]'s.
#[cfg(feature = "std")]
pub fn apply_file(path: &std::path::Path) -> std::io::Result<Result<Applied, QueryError>> {
    let text = read_query_file(path)?;
    // Comments are part of the language, so an error's line is the file's own line.
    Ok(apply(&text))
}
