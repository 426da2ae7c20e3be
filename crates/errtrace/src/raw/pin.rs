//! The future of [`expecting_async`](crate::expecting_async), whose inner future is pinned.
//! Its `Future` impl (the scope around each poll) is in `expect.rs`.

use crate::code::CodeSet;
use core::pin::Pin;

/// The future of [`expecting_async`](crate::expecting_async): `future`, polled inside a scope
/// that expects `codes`.
///
/// # Invariants
///
/// `future` is pinned whenever `self` is (structural pinning: it is never moved out of a
/// pinned `Expecting`, and `Expecting` has no `Drop` of its own; it is `Unpin` only when `F`
/// is, by the auto impl).
#[must_use = "futures do nothing unless polled"]
pub struct Expecting<F> {
    pub(crate) codes: CodeSet,
    pub(crate) future: F,
}

impl<F> Expecting<F> {
    /// The codes and the pinned inner future.
    pub(crate) fn project(self: Pin<&mut Self>) -> (CodeSet, Pin<&mut F>) {
        let codes = self.codes;
        // SAFETY: `future` is structurally pinned (the type's invariant), so a pinned
        // `Expecting` pins its `future`; the closure only reaches that field and moves nothing.
        let future = unsafe { self.map_unchecked_mut(|s| &mut s.future) };
        (codes, future)
    }
}
