//! Attachable probes: where a tracer sees every error made and every hop recorded.
//!
//! Two mechanisms, each behind its feature (without either, the probes compile to nothing):
//!
//! - **Tracepoint hooks** (`tracepoints` feature, any target): the platform installs a `Tracer`
//!   (two functions) with `set_tracer` and switches each event on or off with `set_enabled`,
//!   typically from its tracepoints' registration callbacks. A disabled event costs one relaxed
//!   load and a branch; an enabled one calls the installed function out of line. The Linux kernel
//!   module in `kernel/` forwards them to the real tracepoints `errtrace:errtrace_error` and
//!   `errtrace:errtrace_hop`.
//! - **SDT probes** (`sdt` feature, Linux user space), described below.
//!
//! With the `sdt` feature (Linux user space), two USDT probes fire:
//!
//! - `errtrace:error` at every error creation, with arguments
//!   `(code: u16, site: u32, seq: u32, file: *const u8, line: u32)`;
//! - `errtrace:hop` at every recorded hop, with `(code: u16, site: u32, seq: u32,
//!   file: *const u8, line: u32)` of the hop's location.
//!
//! With no tracer attached each probe is a single `nop` (behind one call: both probes live in one
//! function that is never inlined, so each has exactly one note in a linked function). `file` points to the file name's
//! bytes, which are not NUL-terminated in Rust: read them with the length you know or up to
//! `.rs`. For example, with bpftrace:
//!
//! ```text
//! bpftrace -e 'usdt:./target/debug/examples/driver:errtrace:error {
//!     printf("errno %d site %d at %s:%d\n", arg0, arg1, str(arg3, 64), arg4); }'
//! ```
//!
//! or with gdb: `break -probe-stap errtrace:error`, then `print $_probe_arg0`.
//! Without the feature the functions below compile to nothing.

use crate::code::Code;
use crate::site::SiteRef;
use core::panic::Location;

#[cfg(feature = "tracepoints")]
pub use hooks::{set_enabled, set_tracer, ErrorEvent, Event, HopEvent, Tracer};

#[inline(always)]
pub(crate) fn error(code: Code, site: SiteRef, id: u32, seq: u32) {
    #[cfg(feature = "tracepoints")]
    hooks::error(code, site, id, seq);
    sdt_error(code, site, id, seq);
}

#[inline(always)]
pub(crate) fn hop(code: Code, site: u32, seq: u32, at: &'static Location<'static>) {
    #[cfg(feature = "tracepoints")]
    hooks::hop(code, site, seq, at);
    sdt_hop(code, site, seq, at);
}

/// Whether a hop must be told to a tracer: always with SDT probes (each is a `nop` a tracer
/// may turn into a breakpoint at any time), with the hooks while their hop event is enabled,
/// never without either feature. A hop nobody is told of stays inline (see `lifecycle.rs`).
#[inline(always)]
pub(crate) fn hop_wanted() -> bool {
    if cfg!(all(feature = "sdt", not(loom))) {
        return true;
    }
    #[cfg(feature = "tracepoints")]
    if hooks::hop_enabled() {
        return true;
    }
    false
}

#[cfg(all(feature = "sdt", not(loom)))]
#[inline(always)]
fn sdt_error(code: Code, site: SiteRef, id: u32, seq: u32) {
    let o = site.origin();
    fire(false, code.get(), id, seq, o.file.as_ptr(), o.line);
}

#[cfg(not(all(feature = "sdt", not(loom))))]
#[inline(always)]
fn sdt_error(_code: Code, _site: SiteRef, _id: u32, _seq: u32) {}

#[cfg(all(feature = "sdt", not(loom)))]
#[inline(always)]
fn sdt_hop(code: Code, site: u32, seq: u32, at: &'static Location<'static>) {
    fire(true, code.get(), site, seq, at.file().as_ptr(), at.line());
}

#[cfg(not(all(feature = "sdt", not(loom))))]
#[inline(always)]
fn sdt_hop(_code: Code, _site: u32, _seq: u32, _at: &'static Location<'static>) {}

/// Both probes, in one function that is never inlined: each probe has exactly one note, in
/// code that every program making an error links. (A probe inlined into a function the linker
/// then discards leaves its note behind with an address of nothing; a tracer attaching there
/// writes its breakpoint at a bogus address.)
#[cfg(all(feature = "sdt", not(loom)))]
#[inline(never)]
fn fire(hop: bool, code: u16, site: u32, seq: u32, file: *const u8, line: u32) {
    if hop {
        probe::probe!(errtrace, hop, code, site, seq, file, line);
    } else {
        probe::probe!(errtrace, error, code, site, seq, file, line);
    }
}

/// The tracepoint hooks: an installed [`Tracer`] and one enabled bit per event.
#[cfg(feature = "tracepoints")]
mod hooks {
    use super::{Code, Location, SiteRef};
    use crate::platform::AlreadySet;
    use crate::raw::SetOnce;
    use crate::sync::{AtomicU32, Ordering};
    use crate::Origin;

    /// An error was made: what the `error` function of a [`Tracer`] receives.
    #[derive(Clone, Copy, Debug)]
    #[non_exhaustive]
    pub struct ErrorEvent {
        /// The error's code.
        pub code: Code,
        /// The site's id, as `control::sites()` lists it (0 while the site is being linked).
        pub site: u32,
        /// The low 32 bits of the error's sequence number ([`Error::seq`](crate::Error::seq)):
        /// the same for the error and each of its hops, unique among the errors that exist.
        pub seq: u32,
        /// Where the error was made: file, line, and for macro sites the function.
        pub origin: Origin,
    }

    /// A hop was recorded: what the `hop` function of a [`Tracer`] receives.
    #[derive(Clone, Copy, Debug)]
    #[non_exhaustive]
    pub struct HopEvent {
        /// The error's code.
        pub code: Code,
        /// The id of the site that made the error.
        pub site: u32,
        /// The low 32 bits of the error's sequence number, as in its [`ErrorEvent`].
        pub seq: u32,
        /// The hop's source file (not NUL-terminated).
        pub file: &'static str,
        /// The hop's line.
        pub line: u32,
    }

    /// The functions that receive the events. Called in the context that made the error or the
    /// hop (any context in a kernel: process, softirq, hard IRQ, NMI), so they must not block,
    /// allocate or take locks.
    #[derive(Clone, Copy, Debug)]
    pub struct Tracer {
        /// Called for every error made while [`Event::Error`] is enabled.
        pub error: fn(&ErrorEvent),
        /// Called for every recorded hop while [`Event::Hop`] is enabled.
        pub hop: fn(&HopEvent),
    }

    /// An event a tracer can enable.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Event {
        /// An error made ([`ErrorEvent`]).
        Error,
        /// A recorded hop ([`HopEvent`]).
        Hop,
    }

    impl Event {
        const fn bit(self) -> u32 {
            match self {
                Event::Error => 1,
                Event::Hop => 2,
            }
        }
    }

    static TRACER: SetOnce<Tracer> = SetOnce::new();
    static ENABLED: AtomicU32 = AtomicU32::new(0);

    /// Installs the tracer, once per program (a kernel module: once per module). Events are
    /// delivered only while enabled with [`set_enabled`].
    ///
    /// # Errors
    ///
    /// [`AlreadySet`] when a tracer was installed before (the first one stays).
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::probe::{set_enabled, set_tracer, ErrorEvent, Event, HopEvent, Tracer};
    /// fn on_error(e: &ErrorEvent) { println!("{} at {}:{}", e.code, e.origin.file, e.origin.line) }
    /// fn on_hop(_: &HopEvent) {}
    /// set_tracer(Tracer { error: on_error, hop: on_hop }).unwrap();
    /// set_enabled(Event::Error, true);
    /// ```
    pub fn set_tracer(tracer: Tracer) -> Result<(), AlreadySet> {
        TRACER.set(tracer).map_err(|_| AlreadySet)
    }

    /// Switches delivery of one event on or off; for a kernel tracepoint, from its `reg` and
    /// `unreg` callbacks, so that the events cost a load and a branch while nobody traces.
    pub fn set_enabled(event: Event, on: bool) {
        if on {
            ENABLED.fetch_or(event.bit(), Ordering::Relaxed);
        } else {
            ENABLED.fetch_and(!event.bit(), Ordering::Relaxed);
        }
    }

    #[inline(always)]
    pub(crate) fn error(code: Code, site: SiteRef, id: u32, seq: u32) {
        if ENABLED.load(Ordering::Relaxed) & Event::Error.bit() != 0 {
            fire_error(code, site, id, seq);
        }
    }

    #[cold]
    #[inline(never)]
    fn fire_error(code: Code, site: SiteRef, id: u32, seq: u32) {
        if let Some(t) = TRACER.get() {
            (t.error)(&ErrorEvent {
                code,
                site: id,
                seq,
                origin: site.origin(),
            });
        }
    }

    #[inline(always)]
    pub(crate) fn hop(code: Code, site: u32, seq: u32, at: &'static Location<'static>) {
        if hop_enabled() {
            fire_hop(code, site, seq, at);
        }
    }

    /// Whether the hop event is enabled.
    #[inline(always)]
    pub(crate) fn hop_enabled() -> bool {
        ENABLED.load(Ordering::Relaxed) & Event::Hop.bit() != 0
    }

    #[cold]
    #[inline(never)]
    fn fire_hop(code: Code, site: u32, seq: u32, at: &'static Location<'static>) {
        if let Some(t) = TRACER.get() {
            (t.hop)(&HopEvent {
                code,
                site,
                seq,
                file: at.file(),
                line: at.line(),
            });
        }
    }
}
