//! Bare errnos: `errno32` (a `NonZeroI32`, the kernel's `kernel::error::Error` layout) and
//! `errno64` (a `NonZeroI64`, pointer-sized like errtrace's `Error`). They record the code only;
//! there is no context to add, so their S3 runs the S2 frames.

use core::fmt::Write as _;
use core::hint::black_box;
use core::num::{NonZeroI32, NonZeroI64};

/// The kernel layout: a negative errno in a `NonZeroI32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Errno32(NonZeroI32);

/// A negative errno in a `NonZeroI64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Errno64(NonZeroI64);

const EIO32: Errno32 = match NonZeroI32::new(-5) {
    Some(v) => Errno32(v),
    None => Errno32(NonZeroI32::MIN),
};
const EIO64: Errno64 = match NonZeroI64::new(-5) {
    Some(v) => Errno64(v),
    None => Errno64(NonZeroI64::MIN),
};

#[inline(never)]
fn leaf32(fail: bool, x: u64) -> Result<u64, Errno32> {
    if fail {
        return Err(EIO32);
    }
    Ok(x ^ 0x5a)
}

#[inline(never)]
fn leaf64(fail: bool, x: u64) -> Result<u64, Errno64> {
    if fail {
        return Err(EIO64);
    }
    Ok(x ^ 0x5a)
}

chain!(mod chain32: Result<u64, Errno32> = leaf32);
chain!(mod chain64: Result<u64, Errno64> = leaf64);

#[inline(always)]
fn done<E>(r: Result<u64, E>) {
    if let Ok(v) = &r {
        black_box(*v);
    }
    drop(r);
}

#[inline(always)]
fn report32(e: &Errno32, w: &mut crate::harness::Discard) {
    let _ = write!(w, "error {}", e.0);
}

#[inline(always)]
fn report64(e: &Errno64, w: &mut crate::harness::Discard) {
    let _ = write!(w, "error {}", e.0);
}

/// `errno32`.
pub mod e32 {
    use super::*;
    scenarios!(
        plain = chain32,
        ctx = chain32,
        done = done,
        report = report32
    );
}

/// `errno64`.
pub mod e64 {
    use super::*;
    scenarios!(
        plain = chain64,
        ctx = chain64,
        done = done,
        report = report64
    );

    /// S6's baseline: a bare drop of an errno (nothing to release).
    #[no_mangle]
    #[inline(never)]
    pub fn errtrace_bench_dispose_errno64(e: Errno64) {
        let _ = e;
    }

    /// S6's baseline loop.
    pub fn s6_drop(n: u64) {
        // Called through an opaque pointer: a call to an empty function would be deleted.
        let dispose: fn(Errno64) = black_box(errtrace_bench_dispose_errno64);
        for _ in 0..n {
            dispose(black_box(EIO64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_minus_eio() {
        assert_eq!(EIO32.0.get(), -5);
        assert_eq!(EIO64.0.get(), -5);
    }
}
