//! Runtime control of sites, in the model of the kernel's dynamic_debug: list every site, and
//! change what prints, and how often, without rebuilding.
//!
//! ```text
//! src/bus.rs:42 [demo::bus]read_reg =p code=EIO created=17 logged=3 suppressed=14 policy=ratelimit(10/5s)
//! ```
//!
//! [`list`] writes one line per site like the above; [`apply`] takes queries in dynamic_debug's
//! grammar (see [`query`] for the full grammar):
//!
//! | query | effect |
//! |---|---|
//! | `file *bus* +p` | print the errors of every site in files matching `*bus*`, even quiet ones |
//! | `func read_reg -p` | silence a noisy site |
//! | `module demo::* =pfl` | print, with function and line prefixes |
//! | `file src/bus.rs:40-50 +h` | print the trail (hops) after each message |
//! | `code EAGAIN quiet` | make every site that made `EAGAIN` quiet |
//! | `func probe ratelimit=5/1s` | a tighter rate limit |
//! | `fail name=alloc_buf probability=100 times=3 code=ENOMEM` | inject faults ([`fault`](crate::fault)) |
//!
//! The whole grammar, with every word and its limits, is in the guide's chapter on the control
//! language (`docs/src/control.md` in the repository, "The grammar"); it is stated there once.
//!
//! Several queries may be separated by `;` or newlines; an input applies completely or not at
//! all. A query stays in force for sites that appear later (errtrace interns some sites on
//! first use), like a `dyndbg=` boot parameter: with `std` all of them; without it up to
//! [`config::STANDING_BYTES`](crate::config::STANDING_BYTES), and an input that would not fit
//! is rejected whole, with an error.
//!
//! Sources of queries: this API; with `std`, the `ERRTRACE` environment variable and the file
//! named by `ERRTRACE_FILE`, read once by [`crate::init`] or [`init_from_env`], or else by the
//! first [`apply`] or [`list`] (never while an error is being made); in the Linux kernel
//! module, its `ctl=` parameter and debugfs file.
//!
//! # Flags
//!
//! `p` print (`+p` makes quiet and debug sites print, `-p` silences any site), `f` prefix the
//! function, `l` the line, `m` the module, `t` the thread/CPU id, `s` append the trail, `_` none.
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::EAGAIN, control, err};
//!
//! fn poll() -> errtrace::Result { Err(err!(EAGAIN, "device busy")) } // quiet by default
//!
//! poll().unwrap_err();
//! let applied = control::apply("func poll +p").unwrap();
//! assert_eq!(applied.matched, 1);
//! let e = poll().unwrap_err(); // now prints
//! assert!(e.is_logged());
//!
//! let mut listing = String::new();
//! control::list(&mut listing).unwrap();
//! assert!(listing.lines().any(|l| l.contains("]poll =p code=EAGAIN")));
//!
//! let bad = control::apply("fiel x +p").unwrap_err();
//! assert!(bad.to_string().starts_with("line 1, column 1: expected 'file', 'func'"));
//! assert!(bad.to_string().ends_with("found 'fiel'"));
//! ```

//! # Without the `control` feature
//!
//! The query language ([`apply`], [`list`], standing queries, the environment) is the `control`
//! feature (on by default). Without it, this module keeps what reads the sites ([`sites`],
//! [`site_count`], [`SiteRef::counters`]) and a platform controls them with its own facilities:
//! the Linux glue sets the print flags from dynamic_debug's and arms fail points through the
//! kernel's `fault_attr` ([`fault::set_platform_hook`](crate::fault::set_platform_hook)).

// Public only for the fuzz target and the property tests, which parse without applying.
#[cfg(feature = "control")]
#[doc(hidden)]
pub mod query;

#[cfg(feature = "control")]
mod apply;
#[cfg(feature = "std")]
mod env;
#[cfg(feature = "control")]
mod listing;

#[cfg(feature = "control")]
pub use apply::{apply, Applied};
#[cfg(all(feature = "std", not(feature = "control")))]
pub(crate) use env::flush_at_exit;
#[cfg(all(feature = "std", feature = "control"))]
pub use env::{apply_file, init_from_env, MAX_QUERY_FILE};
#[cfg(feature = "control")]
pub use listing::{list, write_site};
#[cfg(feature = "control")]
pub use query::QueryError;

pub use crate::site::{flags, Counters, FlagOp, SiteKind, SiteRef};

/// Every site that has fired, newest first (with the `registry` feature, [`list`] first links
/// every `err!` and `fail_point!` site of the program, so they appear before they fire).
///
/// # Examples
///
/// ```
/// use errtrace::code::EIO;
/// let e = errtrace::err!(EIO);
/// assert!(errtrace::control::sites().any(|s| s.origin().line == line!() - 1));
/// e.handled();
/// ```
pub fn sites() -> impl Iterator<Item = SiteRef> {
    crate::site::all()
}

/// How many sites have fired (or were listed).
pub fn site_count() -> usize {
    crate::site::count()
}

/// How many times a location found the pool of location sites full: one count per error made
/// (or per `.log()` or boundary passed) at a location without an entry of its own. Such
/// locations share the site `<location sites overflow>`, which is listed and reachable by
/// queries; their errors still report their exact origin. Distinct locations are not counted
/// (telling them apart would need the storage that was full); a warning record reports the
/// first overflow once. Raise `ERRTRACE_LOCATION_SITES` when this is not 0.
///
/// # Examples
///
/// ```
/// assert_eq!(errtrace::control::location_overflow(), 0);
/// ```
pub fn location_overflow() -> u32 {
    crate::site::overflowed()
}

/// Applies the standing queries to the sites that appeared where the platform deferred it (an
/// NMI: see [`platform::set_defer`](crate::platform::set_defer)); the platform calls this from
/// a context that may parse them. Sites without a deferred application are left as they are.
#[cfg(feature = "control")]
pub fn apply_deferred() {
    crate::site::run_deferred_appeared();
}

/// Interns every statically registered site (a no-op without the `registry` feature).
pub fn register_all() {
    #[cfg(feature = "registry")]
    for site in crate::__private::SITE_REGISTRY {
        site.get();
    }
}
