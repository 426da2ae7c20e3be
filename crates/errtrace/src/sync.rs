//! The atomics errtrace is built on: `core`'s normally; with the `portable-atomic` feature those
//! of the [`portable-atomic`](https://docs.rs/portable-atomic) crate, for targets without
//! compare-and-swap (Cortex-M0, `thumbv6m-none-eabi`; see the crate docs); `loom`'s under
//! `--cfg loom` so the model checker can explore every interleaving of the recorder, the site
//! table and the rate limiter.

#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering,
};

#[cfg(all(not(loom), not(feature = "portable-atomic"), target_has_atomic = "32"))]
#[allow(unused_imports)] // `AtomicBool` is used with `std` only
pub(crate) use core::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering,
};

// A target without compare-and-swap (Cortex-M0) needs the `portable-atomic` feature: `no_cas`
// says so in one error, instead of one per atomic operation errtrace uses.
#[cfg(all(
    not(loom),
    not(feature = "portable-atomic"),
    not(target_has_atomic = "32")
))]
mod no_cas;
#[cfg(all(
    not(loom),
    not(feature = "portable-atomic"),
    not(target_has_atomic = "32")
))]
#[allow(unused_imports)]
pub(crate) use no_cas::{fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering};

#[cfg(all(not(loom), feature = "portable-atomic"))]
#[allow(unused_imports)] // `AtomicBool` is used with `std` only
pub(crate) use portable_atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering,
};

/// Declares a constructor that is `const` normally and a plain `fn` under loom (whose atomics
/// cannot be built in constant context).
macro_rules! loom_const_fn {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($args:tt)*) -> $ret:ty $body:block) => {
        #[cfg(not(loom))]
        $(#[$m])*
        $vis const fn $name($($args)*) -> $ret $body
        #[cfg(loom)]
        $(#[$m])*
        $vis fn $name($($args)*) -> $ret $body
    };
}
pub(crate) use loom_const_fn;
