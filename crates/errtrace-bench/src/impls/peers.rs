//! The peers, each used the way its documentation shows: make the error at the leaf, `?` at every
//! frame, a context message per frame in S3, and the crate's own report (Debug or Display) in S4.

use core::fmt::Write as _;
use core::hint::black_box;

/// Consumes a result: reads an `Ok`, drops an `Err`.
#[inline(always)]
fn done<E>(r: Result<u64, E>) {
    if let Ok(v) = &r {
        black_box(*v);
    }
    drop(r);
}

/// `anyhow`: `anyhow!("…")` at the leaf (a boxed message), `.context()` per frame, `{:?}` report
/// (message and "Caused by" chain; backtraces are off, as without `RUST_BACKTRACE`).
pub mod anyhow_impl {
    use super::*;
    use anyhow::Context as _;

    type R = anyhow::Result<u64>;

    #[inline(never)]
    fn leaf(fail: bool, x: u64) -> R {
        if fail {
            return Err(anyhow::anyhow!("I/O error"));
        }
        Ok(x ^ 0x5a)
    }

    chain!(mod plain: R = leaf);
    chain!(mod ctx: R = leaf, |r, msg| r.context(msg));

    #[inline(always)]
    fn report(e: &anyhow::Error, w: &mut crate::harness::Discard) {
        let _ = write!(w, "{e:?}");
    }

    scenarios!(plain = plain, ctx = ctx, done = done, report = report);
}

/// `eyre`: `eyre!("…")` at the leaf (the default handler records the location), `.wrap_err()` per
/// frame, `{:?}` report.
pub mod eyre_impl {
    use super::*;
    use eyre::WrapErr as _;

    type R = eyre::Result<u64>;

    #[inline(never)]
    fn leaf(fail: bool, x: u64) -> R {
        if fail {
            return Err(eyre::eyre!("I/O error"));
        }
        Ok(x ^ 0x5a)
    }

    chain!(mod plain: R = leaf);
    chain!(mod ctx: R = leaf, |r, msg| r.wrap_err(msg));

    #[inline(always)]
    fn report(e: &eyre::Report, w: &mut crate::harness::Discard) {
        let _ = write!(w, "{e:?}");
    }

    scenarios!(plain = plain, ctx = ctx, done = done, report = report);
}

/// `error-stack`: `Report::new(IoError)` at the leaf (records the location; default features,
/// so a backtrace capture that is disabled without `RUST_BACKTRACE`), `.attach("…")` per frame,
/// `{:?}` report (the frame tree with locations).
pub mod error_stack_impl {
    use super::*;
    use error_stack::{Report, ResultExt as _};

    /// The context of the leaf error.
    #[derive(Debug)]
    pub struct IoError;

    impl core::fmt::Display for IoError {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("I/O error")
        }
    }

    impl core::error::Error for IoError {}

    type R = Result<u64, Report<IoError>>;

    #[inline(never)]
    fn leaf(fail: bool, x: u64) -> R {
        if fail {
            return Err(Report::new(IoError));
        }
        Ok(x ^ 0x5a)
    }

    chain!(mod plain: R = leaf);
    chain!(mod ctx: R = leaf, |r, msg| r.attach(msg));

    #[inline(always)]
    fn report(e: &Report<IoError>, w: &mut crate::harness::Discard) {
        let _ = write!(w, "{e:?}");
    }

    scenarios!(plain = plain, ctx = ctx, done = done, report = report);
}

/// `snafu`: an enum with an implicit `Location` (the origin), a context selector at the leaf; S3
/// wraps the error at every frame in a `Frame` variant (boxed source, its own location); `{:?}`
/// report (the derived Debug shows every location).
pub mod snafu_impl {
    use super::*;
    use snafu::{ResultExt as _, Snafu};

    /// The error type.
    #[derive(Debug, Snafu)]
    pub enum SnafuError {
        /// The leaf error.
        #[snafu(display("I/O error"))]
        Io {
            /// Where it was made.
            #[snafu(implicit)]
            location: snafu::Location,
        },
        /// A context added by a frame.
        #[snafu(display("{msg}"))]
        Frame {
            /// The message.
            msg: &'static str,
            /// The error it wraps.
            #[snafu(source(from(SnafuError, Box::new)))]
            source: Box<SnafuError>,
            /// Where the context was added.
            #[snafu(implicit)]
            location: snafu::Location,
        },
    }

    type R = Result<u64, SnafuError>;

    #[inline(never)]
    fn leaf(fail: bool, x: u64) -> R {
        if fail {
            return IoSnafu.fail();
        }
        Ok(x ^ 0x5a)
    }

    chain!(mod plain: R = leaf);
    chain!(mod ctx: R = leaf, |r, msg| r.context(FrameSnafu { msg }));

    #[inline(always)]
    fn report(e: &SnafuError, w: &mut crate::harness::Discard) {
        let _ = write!(w, "{e:?}");
    }

    scenarios!(plain = plain, ctx = ctx, done = done, report = report);
}

/// `thiserror`: a derived enum that records nothing but the variant; S3 wraps the error at every
/// frame (boxed source); the report is the Display chain (`msg: cause: …`).
pub mod thiserror_impl {
    use super::*;

    /// The error type.
    #[derive(Debug, thiserror::Error)]
    pub enum ThisError {
        /// The leaf error.
        #[error("I/O error")]
        Io,
        /// A context added by a frame.
        #[error("{msg}")]
        Frame {
            /// The message.
            msg: &'static str,
            /// The error it wraps.
            #[source]
            source: Box<ThisError>,
        },
    }

    type R = Result<u64, ThisError>;

    #[inline(never)]
    fn leaf(fail: bool, x: u64) -> R {
        if fail {
            return Err(ThisError::Io);
        }
        Ok(x ^ 0x5a)
    }

    chain!(mod plain: R = leaf);
    chain!(mod ctx: R = leaf, |r, msg| r.map_err(|e| ThisError::Frame {
        msg,
        source: Box::new(e)
    }));

    #[inline(always)]
    fn report(e: &ThisError, w: &mut crate::harness::Discard) {
        let _ = write!(w, "{e}");
        let mut cur: &dyn core::error::Error = e;
        while let Some(s) = cur.source() {
            let _ = write!(w, ": {s}");
            cur = s;
        }
    }

    scenarios!(plain = plain, ctx = ctx, done = done, report = report);
}

/// A reference point, not in the JSON: ten frames of plain `u64` arithmetic, no `Result`.
pub mod plain_u64 {
    use super::*;

    #[inline(never)]
    fn leaf(x: u64) -> u64 {
        x ^ 0x5a
    }

    macro_rules! frames_u64 {
        ($($name:ident -> $next:ident + $k:literal;)*) => {
            $(
                #[inline(never)]
                fn $name(x: u64) -> u64 {
                    $next(x).wrapping_add($k)
                }
            )*
        };
    }

    frames_u64! {
        f1 -> f2 + 1; f2 -> f3 + 2; f3 -> f4 + 3; f4 -> f5 + 4; f5 -> f6 + 5;
        f6 -> f7 + 6; f7 -> f8 + 7; f8 -> f9 + 8; f9 -> f10 + 9; f10 -> leaf + 10;
    }

    /// S1 without `Result`.
    pub fn s1(n: u64) {
        for i in 0..n {
            black_box(f1(black_box(i)));
        }
    }
}
