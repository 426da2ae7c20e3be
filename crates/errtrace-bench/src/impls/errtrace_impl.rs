//! errtrace: `errtrace-origin` (plain `?`, the origin is recorded where the error is made) and
//! `errtrace-trail` (every frame `#[errtrace::trace]`, so every `?` records a hop), plus the
//! errtrace-only scenarios S5 (suppressed log), S6 (disarmed drop), S7 (disabled fail point) and
//! the diagnostics that split S2 into its parts.

use core::fmt::Write as _;
use core::hint::black_box;
use errtrace::{
    code::{EAGAIN, EIO, ENOMEM},
    err, Error, ResultExt,
};

type R = errtrace::Result<u64>;

/// The leaf of S1–S4: `err!(EIO)` (a static site; its table index is cached in the site).
#[inline(never)]
fn leaf(fail: bool, x: u64) -> R {
    if fail {
        return Err(err!(EIO));
    }
    Ok(x ^ 0x5a)
}

/// The leaf of diagnostic S2.new: `Error::new(EIO)`, a `#[track_caller]` location site looked
/// up in the site table by hashing the location.
#[inline(never)]
fn leaf_new(fail: bool, x: u64) -> R {
    if fail {
        return Err(Error::new(errtrace::code::EIO));
    }
    Ok(x ^ 0x5a)
}

/// The baseline of S5: a code whose default policy is quiet, made without a message.
#[inline(never)]
fn leaf_eagain(fail: bool, x: u64) -> R {
    if fail {
        return Err(err!(EAGAIN));
    }
    Ok(x ^ 0x5a)
}

/// S5 (quiet): the creator "logs", the quiet policy holds it back.
#[inline(never)]
fn leaf_quiet(fail: bool, x: u64) -> R {
    if fail {
        return Err(err!(quiet, EAGAIN, "device busy, retrying"));
    }
    Ok(x ^ 0x5a)
}

/// S5 (rate limit): one message per hour; after the warm-up every message is past the burst.
#[inline(never)]
fn leaf_ratelimited(fail: bool, x: u64) -> R {
    if fail {
        return Err(err!(ratelimit(1, 3_600_000), EIO, "read failed"));
    }
    Ok(x ^ 0x5a)
}

chain!(mod origin_chain: R = leaf);
chain!(#[errtrace::trace] mod trail_chain: R = leaf);
chain!(mod ctx_chain: R = leaf, |r, msg| r.during(msg));
chain!(mod new_chain: R = leaf_new);
chain!(mod eagain_chain: R = leaf_eagain);
chain!(mod quiet_chain: R = leaf_quiet);
chain!(mod ratelimit_chain: R = leaf_ratelimited);

/// Consumes a result the documented way: an `Err` is `handled()` (a bare drop of an error
/// nobody handled or logged would warn, by design).
#[inline(always)]
fn done(r: R) {
    match r {
        Ok(v) => {
            black_box(v);
        }
        Err(e) => e.handled(),
    }
}

/// The full report (`{:#}`: code, origin with function, every kept hop).
#[inline(always)]
fn report(e: &Error, w: &mut crate::harness::Discard) {
    let _ = write!(w, "{e:#}");
}

/// `errtrace-origin`.
pub mod origin {
    use super::*;
    scenarios!(
        plain = origin_chain,
        ctx = ctx_chain,
        done = done,
        report = report
    );
}

/// `errtrace-trail`. S3 uses the same frames as `errtrace-origin`: `.during()` already records
/// a hop at every frame (under `#[trace]` each frame would record two).
pub mod trail {
    use super::*;
    scenarios!(
        plain = trail_chain,
        ctx = ctx_chain,
        done = done,
        report = report
    );
}

/// Runs `chain` on the error path `n` times, handling each error.
#[inline(always)]
fn error_path(n: u64, f1: fn(bool, u64) -> R) {
    for i in 0..n {
        done(f1(black_box(true), black_box(i)));
    }
}

/// S2 with `Error::new` at the leaf.
pub fn s2_new(n: u64) {
    error_path(n, new_chain::f1);
}

/// S2 with `err!(EAGAIN)`: the baseline of S5 (quiet).
pub fn s2_eagain(n: u64) {
    error_path(n, eagain_chain::f1);
}

/// S5 (quiet): S2 with `err!(quiet, EAGAIN, "…")`.
pub fn s5_quiet(n: u64) {
    error_path(n, quiet_chain::f1);
}

/// S5 (rate limit): S2 with `err!(ratelimit(1, 3_600_000), EIO, "…")` past its burst.
pub fn s5_ratelimit(n: u64) {
    error_path(n, ratelimit_chain::f1);
}

// ---- S6: disposal, measured by toggling collection on these functions only ----

/// `handled()`: releases the recorder slot, no unhandled check.
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_dispose_handled(e: Error) {
    e.handled();
}

/// A bare drop of an error that was logged (its `Drop` sees the logged bit, then releases).
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_dispose_drop_logged(e: Error) {
    drop(e);
}

/// Made outside the collected function: an `err!(EIO)`.
#[inline(never)]
fn make_eio() -> Error {
    err!(EIO)
}

/// S6: `n` errors made (not collected) and handed to `errtrace_bench_dispose_handled`.
pub fn s6_handled(n: u64) {
    // Called through an opaque pointer, like the errno64 baseline.
    let dispose: fn(Error) = black_box(errtrace_bench_dispose_handled);
    for _ in 0..n {
        dispose(make_eio());
    }
}

/// Diagnostic: `n` logged (quiet) errors dropped with a bare `drop`.
pub fn s6_drop_logged(n: u64) {
    let dispose: fn(Error) = black_box(errtrace_bench_dispose_drop_logged);
    for _ in 0..n {
        dispose(err!(quiet, EAGAIN, "held back"));
    }
}

// ---- S7: a disabled fail point ----

/// A function with a disarmed fail point.
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_fail_point_on(x: u64) -> R {
    errtrace::fail_point!("bench_fp", ENOMEM);
    Ok(x.wrapping_add(1))
}

/// The same function without it.
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_fail_point_off(x: u64) -> R {
    Ok(x.wrapping_add(1))
}

/// Calls `f` `n` times through an opaque pointer, so that the loop is the same machine code for
/// both functions (with a direct call, the optimiser would see that the function without the
/// fail point never fails and drop the `Err` arm from the loop, which is not the fail point's
/// cost).
#[inline(always)]
fn call_loop(n: u64, f: fn(u64) -> R) {
    let f = black_box(f);
    for i in 0..n {
        done(f(black_box(i)));
    }
}

/// S7 with the fail point.
pub fn s7_on(n: u64) {
    call_loop(n, errtrace_bench_fail_point_on);
}

/// S7 without it.
pub fn s7_off(n: u64) {
    call_loop(n, errtrace_bench_fail_point_off);
}

// ---- Diagnostics: each part of the error path on its own (collected functions only) ----

/// Making an error with `err!` (cached site index, recorder claim).
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_make_err() -> Error {
    err!(EIO)
}

/// Making an error with `Error::new` (site lookup by location hash, recorder claim).
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_make_new() -> Error {
    Error::new(errtrace::code::EIO)
}

/// One hop (the first of an error also counts it as propagated at its site).
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_hop(e: &mut Error) {
    e.hop();
}

/// A hop with a `.during()` message.
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_hop_context(r: R) -> R {
    r.during("frame")
}

/// Formatting the full report of an error with ten hops (eight kept).
#[no_mangle]
#[inline(never)]
pub fn errtrace_bench_report(e: &Error) {
    report(e, &mut crate::harness::Discard);
}

/// `err!` alone.
pub fn d_make_err(n: u64) {
    for _ in 0..n {
        errtrace_bench_make_err().handled();
    }
}

/// `Error::new` alone.
pub fn d_make_new(n: u64) {
    for _ in 0..n {
        errtrace_bench_make_new().handled();
    }
}

/// The first hop alone.
pub fn d_hop_first(n: u64) {
    for _ in 0..n {
        let mut e = make_eio();
        errtrace_bench_hop(&mut e);
        e.handled();
    }
}

/// A second hop alone.
pub fn d_hop_next(n: u64) {
    for _ in 0..n {
        let mut e = make_eio();
        e.hop();
        errtrace_bench_hop(&mut e);
        e.handled();
    }
}

/// A context hop alone (the error has hopped before).
pub fn d_hop_context(n: u64) {
    for _ in 0..n {
        let mut e = make_eio();
        e.hop();
        if let Err(e) = errtrace_bench_hop_context(Err(e)) {
            e.handled();
        }
    }
}

/// The report of a ten-hop error alone.
pub fn d_report(n: u64) {
    for i in 0..n {
        if let Err(e) = trail_chain::f1(black_box(true), black_box(i)) {
            errtrace_bench_report(&e);
            e.handled();
        }
    }
}
