//! The atomics errtrace is built on: `core`'s normally, `loom`'s under `--cfg loom` so the model
//! checker can explore every interleaving of the recorder, the site table and the rate limiter.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering};

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{fence, AtomicPtr, AtomicU32, AtomicU8, AtomicUsize, Ordering};

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
