//! Expected codes: the caller's say. Storage layer: the table of contexts inside an
//! [`expecting`] scope and the codes each expects; the creator's log decision
//! ([`emit`](crate::emit)) asks it whether to hold a message back.
//!
//! The table has [`config::EXPECT_CONTEXTS`](crate::config::EXPECT_CONTEXTS) entries. An entry
//! is claimed by the context (thread, task) that enters its first scope, with one
//! compare-and-exchange, and freed when that scope ends; only its context writes its codes, and
//! lookups compare against their own context, so nobody reads a half-made entry of someone
//! else's. While no scope is open anywhere, asking costs one relaxed load.

use crate::code::{Code, CodeSet};
#[cfg(not(loom))]
use crate::raw::Expecting;
use crate::sync::{AtomicU32, AtomicUsize, Ordering};

/// One context's expected codes.
///
/// # Invariants
///
/// `context` is 0 (free) or the context that claimed the entry; only that context writes
/// `codes` and frees the entry.
struct Entry {
    context: AtomicUsize,
    codes: [AtomicU32; 8],
}

impl Entry {
    crate::sync::loom_const_fn! {
        fn new() -> Entry {
            Entry {
                context: AtomicUsize::new(0),
                codes: [
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                    AtomicU32::new(0),
                ],
            }
        }
    }

    /// Whether the entry's codes include `code`: one load of the word holding its bit.
    fn contains(&self, code: Code) -> bool {
        let Some(b) = crate::code::set::bit(code) else {
            return false;
        };
        self.codes
            .get((b / 32) as usize)
            .is_some_and(|w| w.load(Ordering::Relaxed) & (1 << (b % 32)) != 0)
    }

    fn load(&self) -> CodeSet {
        let mut words = [0u32; 8];
        for (w, cell) in words.iter_mut().zip(&self.codes) {
            *w = cell.load(Ordering::Relaxed);
        }
        CodeSet::from_words(words)
    }

    fn store(&self, set: CodeSet) {
        for (w, v) in self.codes.iter().zip(set.to_words()) {
            w.store(v, Ordering::Relaxed);
        }
    }
}

/// The table of contexts inside a scope.
struct Table<const N: usize> {
    entries: [Entry; N],
    /// Entries claimed: 0 means no scope is open anywhere.
    claimed: AtomicU32,
}

/// What entering a scope did, to undo when it ends.
#[must_use]
enum Entered<'t> {
    /// No context here (an interrupt), or every entry was taken: the scope holds nothing back.
    Inactive,
    /// The scope claimed `entry` (the context's outermost scope): free it at the end.
    Claimed(&'t Entry),
    /// The context was already in a scope: give `entry` back its `previous` codes at the end.
    Nested(&'t Entry, CodeSet),
}

impl<const N: usize> Table<N> {
    /// An empty table.
    #[cfg(not(loom))]
    const fn new() -> Self {
        Table {
            entries: [const { Entry::new() }; N],
            claimed: AtomicU32::new(0),
        }
    }

    /// An empty table.
    #[cfg(loom)]
    fn new() -> Self {
        Table {
            entries: core::array::from_fn(|_| Entry::new()),
            claimed: AtomicU32::new(0),
        }
    }

    fn find(&self, context: usize) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.context.load(Ordering::Relaxed) == context)
    }

    /// `context` starts expecting `codes` too.
    fn enter(&self, context: usize, codes: CodeSet) -> Entered<'_> {
        if context == 0 {
            return Entered::Inactive;
        }
        if let Some(e) = self.find(context) {
            let previous = e.load();
            e.store(previous.union(codes));
            return Entered::Nested(e, previous);
        }
        for e in &self.entries {
            if e.context
                .compare_exchange(0, context, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                e.store(codes);
                self.claimed.fetch_add(1, Ordering::Relaxed);
                return Entered::Claimed(e);
            }
        }
        Entered::Inactive
    }

    /// Ends the scope `entered` started (in the same context).
    fn leave(&self, entered: Entered<'_>) {
        match entered {
            Entered::Inactive => {}
            Entered::Nested(e, previous) => e.store(previous),
            Entered::Claimed(e) => {
                e.store(CodeSet::EMPTY);
                self.claimed.fetch_sub(1, Ordering::Relaxed);
                e.context.store(0, Ordering::Release);
            }
        }
    }

    /// Whether some scope is open anywhere (one relaxed load).
    #[inline(always)]
    fn any(&self) -> bool {
        self.claimed.load(Ordering::Relaxed) != 0
    }

    /// Whether `context` is inside a scope that expects `code`.
    fn expects(&self, context: usize, code: Code) -> bool {
        context != 0 && self.find(context).is_some_and(|e| e.contains(code))
    }
}

#[cfg(not(loom))]
static TABLE: Table<{ crate::config::EXPECT_CONTEXTS }> = Table::new();

/// Whether the current context expects `code`: its creator's message is held back.
#[cfg(not(loom))]
#[inline]
pub(crate) fn held_back(code: Code) -> bool {
    TABLE.any() && held_back_slow(code)
}

#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn held_back_slow(code: Code) -> bool {
    TABLE.expects(crate::platform::context(), code)
}

/// Runs `f` expecting errors of `codes`: while it runs, in this thread (in user space), this
/// task (in the kernel, with the glue's context hook) or the one context of a bare-metal
/// program, the creator's message of an error of one of those codes is held back, as the kernel
/// does for a caller's `__GFP_NOWARN`, `request_firmware_nowarn()` or
/// `platform_get_irq_optional()`.
///
/// - A held-back message is counted at its site as suppressed (`control::list()` shows it), the
///   error is in the [flight recorder](crate::recorder) as any other, and `+p` on the site still
///   prints it.
/// - An expected error is not an ignored one: it is not marked as logged, so if it is then
///   dropped unhandled or leaves through a [boundary](crate::boundary()), that still reports it
///   in full. The caller handles it (`.handled()`, `.recover(code)`, `match e.into_code()`).
/// - `codes` is a [`Code`], an array of codes or a [`CodeSet`]. Scopes nest: an inner one
///   expects its codes and the outer ones'.
/// - Only the creator's message (`err!` with a message) is held back: a `.log()` the caller
///   writes inside the scope prints as it would outside. A code whose policy holds its message
///   back anyway (quiet: `EAGAIN`, `ENOMEM`, … by default) is unchanged: its error counts as
///   logged, as everywhere.
/// - A closure, not a guard: no `mem::forget` can leave a scope open. With every entry of the
///   table taken ([`config::EXPECT_CONTEXTS`](crate::config::EXPECT_CONTEXTS) contexts inside a
///   scope at once), a scope holds nothing back: its errors print as they would without it.
///
/// # Examples
///
/// ```
/// use errtrace::code::{EIO, EREMOTEIO};
/// use errtrace::err;
///
/// fn read_byte(addr: u8) -> errtrace::Result<u8> {
///     if addr != 0x48 {
///         // Printed wherever nobody said they expect it.
///         return Err(err!(EREMOTEIO, "i2c1: no ACK from {:#x}", addr));
///     }
///     Ok(0x42)
/// }
///
/// fn is_present(addr: u8) -> errtrace::Result<bool> {
///     match errtrace::expecting(EREMOTEIO, || read_byte(addr)) {
///         Ok(_) => Ok(true),
///         Err(e) => {
///             e.recover(EREMOTEIO)?; // anything else goes up
///             Ok(false)
///         }
///     }
/// }
///
/// // A bus scan: absent addresses print nothing.
/// let found: Vec<u8> = (0x40..0x50).filter(|a| is_present(*a) == Ok(true)).collect();
/// assert_eq!(found, [0x48]);
/// # let _ = EIO;
/// ```
///
/// For `async` code, [`expecting_async`]: a closure that returns a future does not compile
/// here (the future's errors would be made when it is polled, after the scope ended).
#[cfg(not(loom))]
pub fn expecting<R: ScopeOutput>(codes: impl Into<CodeSet>, f: impl FnOnce() -> R) -> R {
    in_scope(codes.into(), f)
}

#[cfg(not(loom))]
fn in_scope<R>(codes: CodeSet, f: impl FnOnce() -> R) -> R {
    let scope = Scope(Some(TABLE.enter(crate::platform::context(), codes)));
    let r = f();
    drop(scope);
    r
}

/// What an [`expecting`] closure returns: a value whose errors were made inside the scope (a
/// `Result`, an `Option`, `()`, a `bool` or a number; wrap anything else in `Ok`). Not a
/// future: its errors are made when it is polled, after the scope ended, so
/// `expecting(CODE, || fetch())` with an `async fn fetch` would expect nothing; that is
/// [`expecting_async`]'s job.
#[diagnostic::on_unimplemented(
    message = "`errtrace::expecting` holds its scope only while the closure runs, and it returns `{Self}`",
    label = "returns `{Self}`",
    note = "a future's errors are made when it is polled, after the scope ended: use `errtrace::expecting_async(codes, future)`, which holds the scope on every poll",
    note = "any other value: return a `Result` or an `Option` from the closure"
)]
pub trait ScopeOutput {}

impl<T, E> ScopeOutput for core::result::Result<T, E> {}
impl<T> ScopeOutput for Option<T> {}
macro_rules! plain_scope_outputs {
    ($($t:ty),*) => { $(impl ScopeOutput for $t {})* };
}
plain_scope_outputs!(
    (),
    bool,
    char,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize
);

/// [`expecting`] for `async` code: a future that holds the scope while `future` is polled, on
/// every poll, in the context (thread, task) that polls it, and not between polls (where other
/// futures run on that context).
///
/// # Examples
///
/// ```
/// use core::future::Future;
/// use core::pin::pin;
/// use core::task::{Context, Poll, Waker};
/// use errtrace::{code::EREMOTEIO, err};
///
/// async fn read_byte(addr: u8) -> errtrace::Result<u8> {
///     Err(err!(EREMOTEIO, "i2c1: no ACK from {:#x}", addr)) // held back below
/// }
///
/// let mut probe = pin!(errtrace::expecting_async(EREMOTEIO, read_byte(0x40)));
/// let Poll::Ready(r) = probe.as_mut().poll(&mut Context::from_waker(Waker::noop())) else {
///     unreachable!()
/// };
/// r.unwrap_err().recover(EREMOTEIO).unwrap();
/// ```
#[cfg(not(loom))]
pub fn expecting_async<F: core::future::Future>(
    codes: impl Into<CodeSet>,
    future: F,
) -> Expecting<F> {
    Expecting {
        codes: codes.into(),
        future,
    }
}

#[cfg(not(loom))]
impl<F: core::future::Future> core::future::Future for Expecting<F> {
    type Output = F::Output;

    fn poll(
        self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<F::Output> {
        let (codes, future) = self.project();
        in_scope(codes, || future.poll(cx))
    }
}

/// Ends a scope when `expecting` returns or unwinds. Private: made and dropped only there, so
/// scopes end in the reverse order of their start, each exactly once.
#[cfg(not(loom))]
struct Scope(Option<Entered<'static>>);

#[cfg(not(loom))]
impl Drop for Scope {
    fn drop(&mut self) {
        if let Some(entered) = self.0.take() {
            TABLE.leave(entered);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::code::{EAGAIN, EINTR, EIO};

    #[test]
    fn nesting_unions_and_restores() {
        let t: Table<2> = Table::new();
        assert!(!t.any());
        let outer = t.enter(7, EAGAIN.into());
        assert!(t.expects(7, EAGAIN) && !t.expects(7, EINTR) && !t.expects(8, EAGAIN));
        let inner = t.enter(7, CodeSet::of(&[EINTR]));
        assert!(t.expects(7, EAGAIN) && t.expects(7, EINTR));
        t.leave(inner);
        assert!(t.expects(7, EAGAIN) && !t.expects(7, EINTR));
        t.leave(outer);
        assert!(!t.any() && !t.expects(7, EAGAIN));
    }

    #[test]
    fn no_context_and_full_table_hold_nothing_back() {
        let t: Table<1> = Table::new();
        let none = t.enter(0, EIO.into());
        assert!(matches!(none, Entered::Inactive) && !t.expects(0, EIO));
        let a = t.enter(1, EIO.into());
        let b = t.enter(2, EIO.into());
        assert!(matches!(b, Entered::Inactive));
        assert!(t.expects(1, EIO) && !t.expects(2, EIO));
        t.leave(b);
        t.leave(a);
        t.leave(none);
        let c = t.enter(2, EIO.into());
        assert!(t.expects(2, EIO));
        t.leave(c);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::code::{EAGAIN, EINTR};
    extern crate std;
    use std::boxed::Box;

    /// Two threads entering and leaving scopes at once on a table with room for one: each sees
    /// only its own codes, and an entry is never claimed twice.
    #[test]
    fn expect_table() {
        loom::model(|| {
            let t: &'static Table<1> = Box::leak(Box::new(Table::new()));
            let other = loom::thread::spawn(move || {
                let e = t.enter(2, EINTR.into());
                let claimed = matches!(e, Entered::Claimed(_));
                assert_eq!(t.expects(2, EINTR), claimed);
                assert!(!t.expects(2, EAGAIN));
                t.leave(e);
            });
            let e = t.enter(1, EAGAIN.into());
            let claimed = matches!(e, Entered::Claimed(_));
            assert_eq!(t.expects(1, EAGAIN), claimed);
            assert!(!t.expects(1, EINTR));
            t.leave(e);
            other.join().unwrap();
            assert!(!t.any());
        });
    }
}
