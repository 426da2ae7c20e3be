//! The shared shape of every scenario: ten `#[inline(never)]` frames `f1 → … → f10 → leaf`,
//! each doing `let v = next(fail, x)?; Ok(v + k)`, so every frame has real work on the success
//! path, a `?` on the error path, and no frame can become a tail call.

/// Declares `pub mod $m` with `f1 … f10` returning `$R`, the last one calling `$leaf`.
///
/// ```text
/// chain!(#[attr] mod plain: Result<u64, E> = leaf);                      // `next(..)?`
/// chain!(mod ctx: Result<u64, E> = leaf, |r, msg| r.context(msg));       // `(step)?`
/// ```
///
/// Attributes (for example `#[errtrace::trace]`) go on every frame. In the second form `step`
/// sees the callee's result as `r` and the frame's static message (`"frame 3"`) as `msg`; the
/// `?` is applied to what it returns.
macro_rules! chain {
    ($(#[$attr:meta])* mod $m:ident: $R:ty = $leaf:path) => {
        chain!(@gen [$(#[$attr])*] $m, $R, $leaf, |r, _msg| r);
    };
    ($(#[$attr:meta])* mod $m:ident: $R:ty = $leaf:path, |$r:ident, $msg:ident| $step:expr) => {
        chain!(@gen [$(#[$attr])*] $m, $R, $leaf, |$r, $msg| $step);
    };
    (@gen [$($attr:tt)*] $m:ident, $R:ty, $leaf:path, |$r:ident, $msg:ident| $step:expr) => {
        pub mod $m {
            #[allow(unused_imports)]
            use super::*;
            chain!(@frame [$($attr)*] $R, f1, f2, "frame 1", 1, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f2, f3, "frame 2", 2, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f3, f4, "frame 3", 3, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f4, f5, "frame 4", 4, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f5, f6, "frame 5", 5, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f6, f7, "frame 6", 6, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f7, f8, "frame 7", 7, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f8, f9, "frame 8", 8, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f9, f10, "frame 9", 9, |$r, $msg| $step);
            chain!(@frame [$($attr)*] $R, f10, $leaf, "frame 10", 10, |$r, $msg| $step);
        }
    };
    (@frame [$($attr:tt)*] $R:ty, $name:ident, $next:path, $text:literal, $k:literal,
     |$r:ident, $msg:ident| $step:expr) => {
        $($attr)*
        #[inline(never)]
        pub fn $name(fail: bool, x: u64) -> $R {
            let v = {
                let $r = $next(fail, x);
                #[allow(unused_variables)]
                let $msg: &'static str = $text;
                $step
            }?;
            Ok(v.wrapping_add($k))
        }
    };
}

/// Declares the four standard scenarios of one implementation as `pub fn s1(n)` … `s4(n)`:
/// S1 success, S2 error + drop, S3 error with a context per frame + drop, S4 error + report.
///
/// `$plain` and `$ctx` are chain modules; `$done` consumes a result (drops it, or for errtrace
/// calls `handled()`); `$report` formats an error into a [`Discard`](crate::harness::Discard).
macro_rules! scenarios {
    (plain = $plain:ident, ctx = $ctx:ident, done = $done:path, report = $report:path) => {
        /// S1: success through ten frames.
        pub fn s1(n: u64) {
            for i in 0..n {
                $done($plain::f1(
                    core::hint::black_box(false),
                    core::hint::black_box(i),
                ));
            }
        }

        /// S2: an error at the leaf, ten `?`, then dropped (errtrace: handled).
        pub fn s2(n: u64) {
            for i in 0..n {
                $done($plain::f1(
                    core::hint::black_box(true),
                    core::hint::black_box(i),
                ));
            }
        }

        /// S3: S2 with a context message added at every frame.
        pub fn s3(n: u64) {
            for i in 0..n {
                $done($ctx::f1(
                    core::hint::black_box(true),
                    core::hint::black_box(i),
                ));
            }
        }

        /// S4: S2, then the full report is formatted into a discarding sink.
        pub fn s4(n: u64) {
            for i in 0..n {
                let r = $plain::f1(core::hint::black_box(true), core::hint::black_box(i));
                if let Err(e) = &r {
                    $report(e, &mut $crate::harness::Discard);
                }
                $done(r);
            }
        }
    };
}
