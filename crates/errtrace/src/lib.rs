//! errtrace: errors that remember where they came from, log once where they belong, and never
//! leave silently — for kernel-style `no_std` Rust, at the cost of a bare errno.
//!
//! # The five-minute tour
//!
//! An [`Error`] is an errno ([`code`]) in 8 bytes that also knows its **origin** (file, line,
//! column, and for [`err!`] the function) and its **trail** (every hop it took), kept out of line
//! in an always-on, lock-free [flight recorder](recorder).
//!
//! ```
//! use errtrace::{err, boundary, code::{EIO, ENODEV}, ResultExt};
//!
//! // The creator logs, once, at its site's policy (rate-limited by default).
//! fn read_reg(reg: u8) -> errtrace::Result<u8> {
//!     if reg == 0x10 {
//!         return Err(err!(EIO, "read of reg {:#x} failed", reg));
//!     }
//!     Ok(0x42)
//! }
//!
//! // `#[errtrace::trace]` records a hop at every `?` of the function.
//! #[errtrace::trace]
//! fn chip_id() -> errtrace::Result<u8> {
//!     let id = read_reg(0x10)?;
//!     Ok(id)
//! }
//!
//! // `.during()` records a hop with a message; `Err(ENODEV)?` makes an error at the `?`.
//! fn probe() -> errtrace::Result {
//!     let id = chip_id().during("reading chip id")?;
//!     if id != 0x42 {
//!         Err(ENODEV)?;
//!     }
//!     Ok(())
//! }
//!
//! // A boundary: an error nobody reported is printed here with its full report; then its code
//! // is handed back (this one was logged by its creator, so it is not printed twice).
//! assert_eq!(boundary("demo probe", probe()), Err(EIO));
//! ```
//!
//! The pieces:
//!
//! - [`Error`], [`Result`], [`code`]: the value; `Display` is one line, `{:#}` /
//!   [`Error::report`] the whole story.
//! - [`ResultExt`]: [`trace`](ResultExt::trace), [`during`](ResultExt::during),
//!   [`log`](ResultExt::log), [`log_with`](ResultExt::log_with), and instead of `.expect()`:
//!   [`not_expected`](ResultExt::not_expected), [`or_log`](ResultExt::or_log).
//! - [`policy`]: who logs, how often (`always`, `once`, rate limits, `quiet`, `debug`), the
//!   default class of each code; [`expecting()`], the caller's say (codes it expects are not
//!   printed by their creator, like the kernel's `__GFP_NOWARN`); [`boundary()`] where errors
//!   leave; dropped-unhandled warnings.
//! - [`sink`]: where records go (stderr, `log`, `tracing`, `defmt`, your own, a test capture).
//! - [`recorder`]: the flight recorder; [`control`]: every site with its counters, and
//!   dynamic_debug-style runtime control; [`fault`]: fault injection; [`probe`]: where tracers
//!   see errors and hops (SDT probes, or a platform's tracepoints; see the guide's Probes chapter).
//! - [`platform`]: clock and CPU-id hooks; [`config`]: build-time capacities.
//!
//! # Design: five layers
//!
//! Each layer imports only from the ones below it (checked by the test `tests/test_layers.rs`);
//! where a lower layer must call up, the upper one installs a hook (a site appearing calls
//! control's standing queries through a hook that `control` installs).
//!
//! ```text
//! control/boundary  control, fault, boundary, ResultExt, interop, the macros
//!        |          (and the crate root and `policy`: the public facade)
//! emission          logging and the dropped-unhandled warning, sinks, report text
//!        |
//! decision          policies, the default of each code, rate limits
//!        |
//! storage           sites (an intrusive list of statics, a pool of location sites), their
//!        |          dynamic_debug descriptors, the flight recorder (sharded by CPU), per-CPU
//!        |          counters, making errors and hops, the probes
//! value             the error's bits, codes, the policy encoding, configuration, platform
//!                   hooks, and `raw`: the only module with `unsafe` code
//! ```
//!
//! # `no_std`
//!
//! The crate is `#![no_std]` and never allocates: static sites carry their own state, and the
//! rest is fixed-size, zero-initialised statics. Turn off
//! default features for `no_std`; install a [`sink`] (and a [clock](platform::set_clock) for
//! time-based rate limits). The Linux kernel glue in the repository's `kernel/` does exactly that.
//!
//! # Features
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `std` | yes | stderr sink, std clock and thread ids, `std::io::Error` conversions, [`sink::Capture`] |
//! | `registry` | yes | lists `err!` sites before they first fire (`linkme` link-time registry) |
//! | `macros` | yes | `#[errtrace::trace]` |
//! | `control` | yes | the control language: [`control::apply`] and [`control::list`] (dynamic_debug's grammar), fail points armed by `fail` queries, standing queries, `ERRTRACE`/`ERRTRACE_FILE` with `std`; without it a platform controls sites with its own facilities (the Linux glue: dynamic_debug and `fault_attr`) |
//! | `log` | no | `sink::LogSink` |
//! | `tracing` | no | `sink::TracingSink` |
//! | `defmt` | no | `sink::DefmtSink` |
//! | `sdt` | no | SystemTap SDT probes `errtrace:error` and `errtrace:hop` |
//! | `tracepoints` | no | `probe::set_tracer`: errors and hops go to functions a platform installs (the kernel module's tracepoints) |
//! | `dyndbg` | no | every static site is also a Linux dynamic_debug descriptor in the `__dyndbg` section (kernel modules; see the guide's kernel chapter) |
//! | `testing` | no | `errtrace::testing`: capture records from every thread, one test at a time, with fresh rate limits (enable it in `[dev-dependencies]`) |
//! | `anyhow` | no | [`Carrier`] for `anyhow::Error`: `#[errtrace::trace]` records the hop at a `?` in a function that returns `anyhow::Result` |
//! | `portable-atomic` | no | `portable-atomic`'s atomics, for targets without compare-and-swap (`thumbv6m-none-eabi`: add portable-atomic's `critical-section` feature, or `--cfg portable_atomic_unsafe_assume_single_core` on a single core) |
#![no_std]
#![cfg_attr(loom, allow(dead_code, unused_imports))]
#![warn(missing_docs)]
// All unsafe code of this crate is in `raw.rs`, each block with its SAFETY argument. Two macros
// expand `unsafe` into the user's crate for the kernel's `dynamic_debug` (`__dyndbg!`: the
// descriptor's `link_section`; `__dyndbg_print!`: the kernel's `arch_static_branch!`), each with
// its SAFETY argument in `macros.rs`.
#![deny(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic
    )
)]

#[cfg(any(feature = "std", test))]
extern crate std;

// Under `--cfg loom` only the lock-free storage and decision code is built, with loom's atomics,
// for the model-checking tests inside those modules.
#[cfg(not(loom))]
mod boundary;
pub mod code;
pub mod config;
#[cfg(not(loom))]
pub mod control;
mod counters;
#[cfg(not(loom))]
mod emit;
#[cfg(not(loom))]
mod error;
mod expect;
#[cfg(not(loom))]
pub mod fault;
#[cfg(not(loom))]
pub mod interop;
#[cfg(not(loom))]
mod lifecycle;
mod macros;
#[cfg(not(loom))]
mod make;
pub mod platform;
pub mod policy;
#[cfg(not(loom))]
pub mod probe;
#[allow(unsafe_code)]
mod raw;
#[cfg(not(loom))]
mod record;
pub mod recorder;
#[cfg(not(loom))]
mod report;
mod shard;
#[cfg(not(loom))]
pub mod sink;
mod site;
#[cfg(not(loom))]
mod snapshot;
mod sync;
#[cfg(all(feature = "testing", not(loom)))]
pub mod testing;
#[cfg(not(loom))]
mod trail;
mod unrecorded;
#[doc(hidden)]
pub mod vocabulary;

#[cfg(not(loom))]
pub use boundary::{boundary, boundary_errno};
#[cfg(not(loom))]
pub use error::{Error, Result};
#[cfg(not(loom))]
pub use expect::{expecting, expecting_async, ScopeOutput};
#[cfg(not(loom))]
pub use interop::{Carrier, Coded, Traced, WithCode};
#[cfg(not(loom))]
pub use raw::Expecting;
#[cfg(not(loom))]
pub use report::Report;
pub use site::Origin;
#[cfg(not(loom))]
pub use snapshot::Snapshot;
#[cfg(not(loom))]
pub use trail::{IntoErrtrace, ResultExt};

/// Reads the start-up configuration: with `std`, the `ERRTRACE` environment variable and the
/// file named by `ERRTRACE_FILE` ([`control::init_from_env`]), once per process. Making an error
/// never reads the environment or a file; call this at start-up so their queries stand before
/// the first error (the first [`control::apply`] or [`control::list`] calls it too). Without
/// `std` it does nothing.
///
/// # Examples
///
/// ```
/// errtrace::init();
/// ```
#[cfg(not(loom))]
pub fn init() {
    #[cfg(all(feature = "std", feature = "control"))]
    let _ = control::init_from_env();
    #[cfg(all(feature = "std", not(feature = "control")))]
    control::flush_at_exit();
}

/// Rewrites every `?` in a function's body so that each records a hop at its location (zero
/// cost on the success path). Only the function's own body: `?` inside nested closures,
/// `async` blocks and nested items is left alone.
///
/// The function returns an `errtrace::Result`, or a `Result` whose error type can carry an
/// errtrace error (a [`Carrier`]: `io::Error`, `Box<dyn Error>`, [`Traced<E>`], `anyhow::Error`
/// with the `anyhow` feature, your own enum): there the hop is recorded in the errtrace error
/// the converted error carries. A `?` in a function with any other return type (an `Option`, a
/// `Result<_, String>`) is refused at compile time, with a message that says what works; a
/// function with no `?` has nothing to record and is left as it is.
///
/// An error type that erases what it holds (`anyhow::Error`, `Box<dyn Error>`) is searched for
/// an `errtrace::Error` (directly, or in an `io::Error`); a [`Traced<E>`] inside one is not found
/// (its `E` is not known there), so its hops are recorded only while the function returns
/// `Result<_, Traced<E>>`.
#[cfg(feature = "macros")]
pub use errtrace_macros::trace;

#[doc(hidden)]
#[cfg(not(loom))]
pub mod __private {
    use core::panic::Location;

    pub use crate::policy::kind::CheckedRateLimit;

    /// Wraps the operand of a `#[trace]` `?`. For an `errtrace::Result` the inherent
    /// `__errtrace_hop` (chosen before any trait method) records the hop; for every other type
    /// [`HopOther`] hands the operand back untouched.
    pub struct Hop<X>(pub X);

    impl<T> Hop<crate::Result<T>> {
        /// Records the hop if `Err` (the success path only tests the result).
        #[track_caller]
        #[inline(always)]
        pub fn __errtrace_hop(self) -> crate::Result<T> {
            match self.0 {
                Ok(v) => Ok(v),
                Err(e) => Err(e.hopped(Location::caller())),
            }
        }
    }

    /// The fallback for operands that are not `errtrace::Result`s (`Option`, foreign results).
    pub trait HopOther {
        /// The operand.
        type Out;
        /// Gives the operand back.
        fn __errtrace_hop(self) -> Self::Out;
    }

    impl<X> HopOther for Hop<X> {
        type Out = X;
        #[inline(always)]
        fn __errtrace_hop(self) -> X {
            self.0
        }
    }

    /// A `#[trace]` function's return type `R`, as a type: the attribute declares one at the top
    /// of the body and ties `R` to the function's return type (`if false { return r.unify() }`),
    /// so that each `?` can pick its conversion by the *function's* error type, after `From`,
    /// whatever the operand's type is still to be inferred.
    pub struct Ret<R>(core::marker::PhantomData<fn() -> R>);

    impl<R> Ret<R> {
        /// The marker.
        #[inline(always)]
        #[allow(clippy::new_without_default)]
        pub fn new() -> Self {
            Ret(core::marker::PhantomData)
        }

        /// Never called (the attribute calls it under `if false`): its type ties `R` to the
        /// function's return type.
        #[allow(clippy::empty_loop)]
        pub fn unify(&self) -> R {
            loop {}
        }
    }

    /// `?` in a function that returns an `errtrace::Result`: converts the operand's error with
    /// `From` (as `?` would), then records a hop at the `?` unless the error was made right there
    /// by that conversion (its origin is then the `?`). Chosen by method resolution before
    /// [`TraceCarrier`], whose receiver needs one more `&`.
    pub trait TraceErrtrace {
        /// The operand, its error converted and hopped.
        #[track_caller]
        fn __errtrace_q<U, E>(&self, r: core::result::Result<U, E>) -> crate::Result<U>
        where
            crate::Error: From<E>;
    }

    impl<T> TraceErrtrace for Ret<crate::Result<T>> {
        #[track_caller]
        #[inline(always)]
        fn __errtrace_q<U, E>(&self, r: core::result::Result<U, E>) -> crate::Result<U>
        where
            crate::Error: From<E>,
        {
            match r {
                Ok(v) => Ok(v),
                Err(e) => Err(crate::Error::from(e).hopped_unless_made_at(Location::caller())),
            }
        }
    }

    /// The marker of a `#[trace]` function that returns a `Result` of error type `F`.
    #[diagnostic::on_unimplemented(
        message = "`#[errtrace::trace]` on a function that does not return a `Result`: it records hops only where `?` returns one",
        label = "this `?` returns no `Result`",
        note = "remove the attribute: no `?` of this function can carry an errtrace error out of it"
    )]
    pub trait ReturnsErr<F> {}

    impl<T, F> ReturnsErr<F> for &Ret<core::result::Result<T, F>> {}

    /// `?` in a function that returns a `Result` of another error type `F`: converts the
    /// operand's error with `From` (as `?` would), then records a hop in the errtrace error the
    /// result carries ([`Carrier`](crate::Carrier)), if it carries one, unless it was made right
    /// there. A function whose return type is no `Result`, or whose error type is no `Carrier`,
    /// is refused (the bounds are the method's, so the error names them).
    pub trait TraceCarrier {
        /// The operand, its error converted and hopped.
        #[track_caller]
        fn __errtrace_q<U, E, F>(
            &self,
            r: core::result::Result<U, E>,
        ) -> core::result::Result<U, F>
        where
            Self: ReturnsErr<F>,
            F: From<E> + crate::Carrier;
    }

    impl<R> TraceCarrier for &Ret<R> {
        #[track_caller]
        #[inline(always)]
        fn __errtrace_q<U, E, F>(&self, r: core::result::Result<U, E>) -> core::result::Result<U, F>
        where
            Self: ReturnsErr<F>,
            F: From<E> + crate::Carrier,
        {
            match r {
                Ok(v) => Ok(v),
                Err(e) => Err(carried(F::from(e), Location::caller())),
            }
        }
    }

    /// Records the hop at `at` in the errtrace error `f` carries (out of line: the error path).
    #[inline(never)]
    fn carried<F: crate::Carrier>(mut f: F, at: &'static Location<'static>) -> F {
        if let Some(e) = f.errtrace_mut() {
            e.hop_unless_made_at(at);
        }
        f
    }

    #[cfg(feature = "registry")]
    pub use linkme;

    pub use crate::fault::FailPoint;
    pub use crate::policy::classes::quiet_by_name;
    #[cfg(feature = "dyndbg")]
    pub use crate::raw::ddebug::DynDebug;
    pub use crate::site::{function_path, Site, SiteKind};

    /// The code of a macro's `CODE` argument, from its `to_errno()`: errtrace's
    /// [`Code`](crate::code::Code), or any value with a `to_errno()` in the kernel's negative
    /// convention, such as `kernel::error::code::EINVAL` that the kernel prelude brings into
    /// scope. A value that is not an errno (0, beyond 4095) becomes `EINVAL`, as the kernel's
    /// `Error::from_errno` does.
    #[inline(always)]
    pub const fn code_from_errno(errno: i32) -> crate::code::Code {
        match crate::code::Code::from_errno(errno) {
            Ok(c) => c,
            Err(_) => crate::code::EINVAL,
        }
    }

    /// All static sites of the program, collected at link time.
    #[cfg(feature = "registry")]
    #[linkme::distributed_slice]
    pub static SITE_REGISTRY: [&'static crate::site::Site];

    /// All fail points of the program, collected at link time.
    #[cfg(feature = "registry")]
    #[linkme::distributed_slice]
    pub static FAIL_REGISTRY: [&'static crate::fault::FailPoint];

    /// `err!` without a message: nothing to log, unless `+p` was given for the site, which then
    /// prints every error made there (a line with the origin and the code).
    #[inline(always)]
    pub fn made(e: crate::Error, site: &'static crate::site::Site) -> crate::Error {
        if site.state.flags(crate::sync::Ordering::Relaxed) & crate::site::flags::PRINT_ON != 0 {
            return made_slow(e, site);
        }
        e
    }

    /// By value in and out, so the caller keeps the error in a register.
    #[cold]
    #[inline(never)]
    fn made_slow(e: crate::Error, site: &'static crate::site::Site) -> crate::Error {
        // Not dropped if the sink panics (a second report while unwinding).
        let e = core::mem::ManuallyDrop::new(e);
        crate::emit::log_made(&e, site);
        core::mem::ManuallyDrop::into_inner(e)
    }

    /// `err!` with a message: the creator logs. A quiet site with no runtime control state
    /// is decided inline (counted, marked logged); everything else takes the full path.
    #[inline(always)]
    pub fn log_created(
        e: &mut crate::Error,
        site: &'static crate::site::Site,
        args: core::fmt::Arguments<'_>,
    ) {
        let code = e.code();
        if !crate::emit::quiet_fast_path(e, site, code) {
            log_created_slow(e, site, args, code)
        }
    }

    /// Out of line: an expected code's or a storm's held-back message is decided here without
    /// formatting anything; the rest takes the full decision. `code` is `e`'s.
    #[inline(never)]
    fn log_created_slow(
        e: &mut crate::Error,
        site: &'static crate::site::Site,
        args: core::fmt::Arguments<'_>,
        code: crate::code::Code,
    ) {
        crate::emit::log_created(e, site, args, code)
    }
}
