//! Applying control queries: validate an input whole, act on the sites it selects, configure the
//! fail points it names, and keep its site queries standing for sites that appear later.

use super::query::{self, Command, QueryError};
#[cfg(not(feature = "std"))]
use crate::raw::{AppendError, AppendOnlyText};
use crate::site::SiteRef;
use core::fmt;
use core::sync::atomic::Ordering;

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
    super::init_from_env();
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

// ---- standing queries: applied again to sites that appear later ----

/// Without `std`: the standing queries, at most
/// [`config::STANDING_BYTES`](crate::config::STANDING_BYTES) bytes (an input that would not fit
/// is rejected whole). With `std` there is no limit.
#[cfg(not(feature = "std"))]
static STANDING: AppendOnlyText<{ crate::config::STANDING_BYTES }> = AppendOnlyText::new();

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
