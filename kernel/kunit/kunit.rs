// SPDX-License-Identifier: GPL-2.0
//! `errtrace_kunit.ko`: the KUnit suite `errtrace_recorder` for errtrace's flight recorder, with
//! its own copy of errtrace (Linux 6.13 and later: `#[kunit_tests]`). KUnit runs the suite when
//! the module is loaded; the scenarios load it right after boot.
//!
//! - `wrap_around`: a shard that wraps overwrites released events (reading one says how many
//!   newer events replaced it) and keeps a live error's slot and trail through two laps;
//! - `writers_on_every_cpu`: every online CPU makes errors at once (in the IPI of
//!   `on_each_cpu()`); each error is readable, with its own code and origin, while alive, or
//!   counted as unrecorded; nothing else;
//! - `readers_during_writes`: half the CPUs read every event of the recorder while the others
//!   write; a read event is always one of the writers' (its code goes with its origin line);
//! - `each_context_in_its_shard`: on every CPU at once, an error made in task context is
//!   recorded in its CPU's own shard (`shard.c`), one made in an interrupt (the IPI of
//!   `on_each_cpu()` on the other CPUs) in the shared shard 0.

use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
use kernel::prelude::*;

module! {
    type: ErrtraceKunit,
    name: "errtrace_kunit",
    authors: ["errtrace developers"],
    description: "KUnit suite for errtrace's flight recorder",
    license: "GPL",
}

extern "C" {
    fn errtrace_kunit_on_this_cpu(f: extern "C" fn(*mut c_void), arg: *mut c_void);
    fn errtrace_kunit_on_each_cpu(f: extern "C" fn(*mut c_void), arg: *mut c_void);
    fn errtrace_kunit_cpu_id() -> u32;
    fn errtrace_kunit_in_task() -> bool;
}

fn cpu_id() -> u32 {
    // SAFETY: a plain C helper around raw_smp_processor_id(), callable from any context.
    unsafe { errtrace_kunit_cpu_id() }
}

struct ErrtraceKunit;

impl kernel::Module for ErrtraceKunit {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // Errors go to their CPU's shard, as in a real module: a task's own, with preemption
        // off while it makes one; interrupts share shard 0. (KUnit runs the suite after init.)
        // SAFETY: first in `init`; the suite makes its errors after init (KUnit runs it then).
        unsafe { errtrace_linux::install_shards() };
        let _ = errtrace::platform::set_cpu_id(cpu_id);
        Ok(ErrtraceKunit)
    }
}

/// Runs `f` on this CPU with preemption off.
fn on_this_cpu(f: extern "C" fn(*mut c_void), arg: *mut c_void) {
    // SAFETY: `f` is a function that takes `arg` as what its caller passed (see the callers).
    unsafe { errtrace_kunit_on_this_cpu(f, arg) }
}

/// Runs `f` on every online CPU at once and waits.
fn on_each_cpu(f: extern "C" fn(*mut c_void), arg: *mut c_void) {
    // SAFETY: as above; `f` only touches atomics and errtrace (callable in hard IRQ context).
    unsafe { errtrace_kunit_on_each_cpu(f, arg) }
}

/// Results of a callback, by reference through its `*mut c_void` argument.
#[derive(Default)]
struct Counts {
    cpus: AtomicU32,
    in_task: AtomicU32,
    made: AtomicU32,
    readable: AtomicU32,
    unrecorded: AtomicU32,
    wrong: AtomicU32,
    read: AtomicU32,
}

impl Counts {
    fn arg(&self) -> *mut c_void {
        (self as *const Counts).cast_mut().cast()
    }

    /// # Safety
    ///
    /// `arg` came from [`Counts::arg`] of a `Counts` that outlives the call.
    unsafe fn from<'a>(arg: *mut c_void) -> &'a Counts {
        // SAFETY: the caller's contract.
        unsafe { &*arg.cast::<Counts>() }
    }
}

/// Errors per CPU in the concurrent tests.
const PER_CPU: u32 = 500;

/// A writer's error: its code and origin line go together (`EIO` here, `ENXIO` in `other`).
fn made_here() -> errtrace::Error {
    errtrace::err!(quiet, errtrace::code::EIO)
}

fn other() -> errtrace::Error {
    errtrace::err!(quiet, errtrace::code::ENXIO)
}

/// The origin line of each kind of error, read from one of each.
fn lines() -> (u32, u32) {
    let (a, b) = (made_here(), other());
    let lines = (a.origin().line, b.origin().line);
    a.handled();
    b.handled();
    lines
}

static LINES: [AtomicU32; 2] = [AtomicU32::new(0), AtomicU32::new(0)];

/// Whether an event read from the recorder is one a writer made: its code with its origin.
fn consistent(code: errtrace::code::Code, line: u32) -> bool {
    (code == errtrace::code::EIO && line == LINES[0].load(Relaxed))
        || (code == errtrace::code::ENXIO && line == LINES[1].load(Relaxed))
}

/// Makes errors and checks each against the recorder while it is alive.
fn write(c: &Counts) {
    for i in 0..PER_CPU {
        let e = if i % 2 == 0 { made_here() } else { other() };
        c.made.fetch_add(1, Relaxed);
        match e.seq().map(errtrace::recorder::read) {
            Some(Ok(ev)) => {
                let line = ev.origin().map_or(0, |o| o.line);
                if ev.code() == e.code() && consistent(ev.code(), line) {
                    c.readable.fetch_add(1, Relaxed);
                } else {
                    c.wrong.fetch_add(1, Relaxed);
                }
            }
            Some(Err(errtrace::recorder::Missing::Unrecorded)) | None => {
                c.unrecorded.fetch_add(1, Relaxed);
            }
            // A live error's event is never overwritten and never busy for its own CPU.
            Some(Err(_)) => {
                c.wrong.fetch_add(1, Relaxed);
            }
        }
        e.handled();
    }
}

/// Reads every event of the recorder, `PER_CPU` times over.
fn read_all(c: &Counts) {
    for _ in 0..PER_CPU / 10 {
        errtrace::recorder::for_each(|ev| {
            let line = ev.origin().map_or(0, |o| o.line);
            c.read.fetch_add(1, Relaxed);
            if !consistent(ev.code(), line) {
                c.wrong.fetch_add(1, Relaxed);
            }
        });
    }
}

extern "C" fn writers(arg: *mut c_void) {
    // SAFETY: `arg` is the test's `Counts`, alive until `on_each_cpu` returns.
    let c = unsafe { Counts::from(arg) };
    c.cpus.fetch_add(1, Relaxed);
    write(c);
}

extern "C" fn readers_and_writers(arg: *mut c_void) {
    // SAFETY: as in `writers`.
    let c = unsafe { Counts::from(arg) };
    c.cpus.fetch_add(1, Relaxed);
    if cpu_id() % 2 == 1 {
        read_all(c);
    } else {
        write(c);
    }
}

extern "C" fn wrap(arg: *mut c_void) {
    // SAFETY: as in `writers`.
    let c = unsafe { Counts::from(arg) };
    let per_shard = (errtrace::config::RECORDER_SLOTS / errtrace::config::RECORDER_SHARDS) as u32;
    // A released event, then a full lap of newer ones in the same shard: overwritten.
    let first = made_here();
    let first_seq = first.seq();
    first.handled();
    // A live error through two laps: its slot is skipped, its trail kept.
    let live = other();
    for _ in 0..2 * per_shard {
        made_here().handled();
        c.made.fetch_add(1, Relaxed);
    }
    let last = made_here();
    let ok_first = matches!(
        first_seq.map(errtrace::recorder::read),
        Some(Err(errtrace::recorder::Missing::Overwritten { newer })) if newer >= per_shard
    );
    let ok_live = matches!(
        live.seq().map(errtrace::recorder::read),
        Some(Ok(ref ev)) if ev.code() == errtrace::code::ENXIO && ev.is_live()
    );
    let ok_last = matches!(
        last.seq().map(errtrace::recorder::read),
        Some(Ok(ref ev)) if ev.code() == errtrace::code::EIO
    );
    live.handled();
    last.handled();
    if ok_first {
        c.readable.fetch_add(1, Relaxed);
    }
    if ok_live {
        c.readable.fetch_add(1, Relaxed);
    }
    if ok_last {
        c.readable.fetch_add(1, Relaxed);
    }
}

extern "C" fn in_own_shard(arg: *mut c_void) {
    // SAFETY: as in `writers`.
    let c = unsafe { Counts::from(arg) };
    c.cpus.fetch_add(1, Relaxed);
    // SAFETY: a C function without arguments, callable in any context.
    let task = unsafe { errtrace_kunit_in_task() };
    let own = 1 + cpu_id();
    let expected = if task && (own as usize) < errtrace::config::RECORDER_SHARDS {
        own
    } else {
        0
    };
    let per_shard = (errtrace::config::RECORDER_SLOTS / errtrace::config::RECORDER_SHARDS) as u32;
    let e = made_here();
    c.made.fetch_add(1, Relaxed);
    match e.seq() {
        Some(seq) if (seq & 0xFFFF) as u32 / per_shard == expected => {
            c.readable.fetch_add(1, Relaxed);
            if task {
                c.in_task.fetch_add(1, Relaxed);
            }
        }
        Some(_) => {
            c.wrong.fetch_add(1, Relaxed);
        }
        None => {
            c.unrecorded.fetch_add(1, Relaxed);
        }
    }
    e.handled();
}

fn setup() {
    let (a, b) = lines();
    LINES[0].store(a, Relaxed);
    LINES[1].store(b, Relaxed);
}

#[kunit_tests(errtrace_recorder)]
mod tests {
    use super::*;

    #[test]
    fn wrap_around() {
        setup();
        let unrecorded = errtrace::recorder::unrecorded();
        let c = Counts::default();
        on_this_cpu(wrap, c.arg());
        // The overwritten first event, the live one kept through two laps, the last one.
        assert_eq!(c.readable.load(Relaxed), 3);
        assert_eq!(errtrace::recorder::unrecorded(), unrecorded);
    }

    #[test]
    fn writers_on_every_cpu() {
        setup();
        let unrecorded = errtrace::recorder::unrecorded();
        let c = Counts::default();
        on_each_cpu(writers, c.arg());
        let cpus = c.cpus.load(Relaxed);
        assert!(cpus >= 1);
        assert_eq!(c.made.load(Relaxed), cpus * PER_CPU);
        assert_eq!(c.wrong.load(Relaxed), 0);
        assert_eq!(
            c.readable.load(Relaxed) + c.unrecorded.load(Relaxed),
            cpus * PER_CPU
        );
        assert_eq!(
            errtrace::recorder::unrecorded().wrapping_sub(unrecorded),
            c.unrecorded.load(Relaxed)
        );
        kernel::pr_info!(
            "errtrace_recorder: {} CPUs wrote {} errors, {} readable while alive, {} unrecorded\n",
            cpus,
            c.made.load(Relaxed),
            c.readable.load(Relaxed),
            c.unrecorded.load(Relaxed)
        );
    }

    #[test]
    fn each_context_in_its_shard() {
        setup();
        let c = Counts::default();
        on_each_cpu(in_own_shard, c.arg());
        assert_eq!(c.wrong.load(Relaxed), 0);
        assert_eq!(c.unrecorded.load(Relaxed), 0);
        assert_eq!(c.readable.load(Relaxed), c.cpus.load(Relaxed));
        // on_each_cpu() runs the function on its own CPU in task context (interrupts off).
        assert_eq!(c.in_task.load(Relaxed), 1);
        kernel::pr_info!(
            "errtrace_recorder: {} CPUs, {} error in a task's own shard, {} in interrupts in the shared one\n",
            c.cpus.load(Relaxed),
            c.in_task.load(Relaxed),
            c.cpus.load(Relaxed) - c.in_task.load(Relaxed)
        );
    }

    #[test]
    fn readers_during_writes() {
        setup();
        let c = Counts::default();
        on_each_cpu(readers_and_writers, c.arg());
        assert_eq!(c.wrong.load(Relaxed), 0);
        assert_eq!(
            c.readable.load(Relaxed) + c.unrecorded.load(Relaxed),
            c.made.load(Relaxed)
        );
        kernel::pr_info!(
            "errtrace_recorder: {} CPUs, {} errors written, {} events read meanwhile, 0 inconsistent\n",
            c.cpus.load(Relaxed),
            c.made.load(Relaxed),
            c.read.load(Relaxed)
        );
    }
}
