//! Stand-in for the errtrace core crate, used by phase 1 of issue 6 only.
//!
//! It proves that a crate kept outside `kernel/` (a `lib.rs` root with
//! submodules in sibling files and directories) compiles inside a kernel
//! module build as crate `errtrace`, using the language features the real
//! core relies on: `#[track_caller]` with `core::panic::Location`, atomics in
//! statics (`AtomicU32`, `AtomicU64`, `AtomicPtr`), `core::fmt::Write`,
//! `core::any::type_name` and a `&'static dyn Trait` global.
//! The real crate (`crates/errtrace/src`) replaces it.
#![no_std]

pub mod buf;
pub mod sink;

pub use buf::{FixedBuf, SliceBuf};
pub use sink::{clear_sink, emit, set_sink, Level, Sink, SinkSlot};

use core::panic::Location;
use core::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};

/// Number of errors created so far.
static CREATED: AtomicU32 = AtomicU32::new(0);
/// Sequence number of the last error created.
static SEQ: AtomicU64 = AtomicU64::new(0);
/// Where the last error was created (null before the first one).
static LAST_SITE: AtomicPtr<Location<'static>> = AtomicPtr::new(core::ptr::null_mut());

/// A stand-in error: a negative errno and the place where it was created.
#[derive(Clone, Copy, Debug)]
pub struct Error {
    code: i32,
    seq: u64,
    origin: &'static Location<'static>,
}

impl Error {
    /// Creates an error with a negative errno, recording the caller's location
    /// and logging it once through the installed sink.
    #[track_caller]
    pub fn new(code: i32) -> Self {
        let origin = Location::caller();
        CREATED.fetch_add(1, Ordering::Relaxed);
        let seq = SEQ.fetch_add(1, Ordering::Relaxed) + 1;
        LAST_SITE.store(origin as *const Location<'static> as *mut _, Ordering::Release);
        emit(
            Level::Err,
            format_args!("error {} created at {}:{} (#{})", code, origin.file(), origin.line(), seq),
        );
        Error { code, seq, origin }
    }

    /// The negative errno.
    pub fn code(&self) -> i32 {
        self.code
    }

    /// The sequence number given at creation.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Where the error was created.
    pub fn origin(&self) -> &'static Location<'static> {
        self.origin
    }

    /// Records a hop (where `?` or an explicit call passed the error on).
    #[track_caller]
    pub fn hop(self) -> Self {
        let at = Location::caller();
        emit(Level::Info, format_args!("  hop at {}:{}", at.file(), at.line()));
        self
    }
}

/// Number of errors created so far.
pub fn created() -> u32 {
    CREATED.load(Ordering::Relaxed)
}

/// Where the last error was created.
pub fn last_site() -> Option<&'static Location<'static>> {
    let p = LAST_SITE.load(Ordering::Acquire);
    // SAFETY: only ever set from a `&'static Location<'static>`; never written through.
    unsafe { p.as_ref() }
}

/// The type name of a value, as `core::any::type_name` gives it.
pub fn type_name_of<T: ?Sized>(_: &T) -> &'static str {
    core::any::type_name::<T>()
}

/// Called by the stand-in `#[trace]` attribute at the start of each traced function.
pub fn enter(function: &'static str) {
    emit(Level::Info, format_args!("enter {}", function));
}

/// Identifies this crate in logs.
pub fn version() -> &'static str {
    "errtrace stand-in (kernel phase 1)"
}
