//! A sink that makes errors, or panics, does not take the error path down with it. Before: a sink that logged an error itself (`err!(always, …)` inside `emit`)
//! recursed until the stack overflowed, and a sink that panicked at a boundary made the error
//! report itself again as "dropped unhandled" while unwinding, or abort on a second panic.
#![cfg(feature = "std")]

use errtrace::code::{EINVAL, EIO};
use errtrace::sink::{self, Record, Sink};
use errtrace::{boundary, err, Error, ResultExt};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// Counts the records it sees; on a record whose message says "nest" it makes (and logs) an
/// error itself; on one that says "panic" it panics.
struct Awkward {
    seen: AtomicU32,
}

impl Sink for Awkward {
    fn emit(&self, record: &Record<'_>) {
        self.seen.fetch_add(1, Ordering::Relaxed);
        let text = record.to_string();
        if text.contains("nest") {
            // Logs by its creator: its record would come straight back here.
            err!(always, EINVAL, "made inside the sink").handled();
        }
        if text.contains("panic") {
            panic!("the sink panicked on purpose");
        }
    }
}

static SINK: Awkward = Awkward {
    seen: AtomicU32::new(0),
};
/// The sink and its counters are global: one test at a time.
static ONE: Mutex<()> = Mutex::new(());

fn setup() -> std::sync::MutexGuard<'static, ()> {
    let g = ONE.lock().unwrap_or_else(|p| p.into_inner());
    let _ = sink::set_sink(&SINK);
    g
}

#[test]
fn an_error_made_inside_the_sink_is_recorded_not_emitted() {
    let _g = setup();
    let seen = SINK.seen.load(Ordering::Relaxed);
    let nested = sink::nested_records();
    let made = errtrace::recorder::unrecorded();
    err!(always, EIO, "please nest").handled();
    // One record reached the sink: the outer one. The error made inside was recorded, and its
    // record counted as nested instead of recursing.
    assert_eq!(SINK.seen.load(Ordering::Relaxed) - seen, 1);
    assert_eq!(sink::nested_records() - nested, 1);
    assert_eq!(errtrace::recorder::unrecorded(), made);
    let mut inside = 0;
    errtrace::recorder::for_each(|ev| {
        if ev.code() == EINVAL
            && ev
                .origin()
                .is_some_and(|o| o.file.ends_with("test_sink_guard.rs"))
        {
            inside += 1;
        }
    });
    assert!(inside >= 1, "the nested error is in the recorder");
}

#[test]
fn a_panicking_sink_at_a_boundary_returns_the_code_and_reports_nothing_twice() {
    let _g = setup();
    let panics = sink::sink_panics();
    let before = errtrace::policy::unhandled_drops();
    fn fails() -> errtrace::Result {
        Err(Error::new(EIO))
    }
    // The boundary's record has the boundary's name in it: "panic probe".
    let r = boundary("panic probe", fails());
    assert_eq!(r, Err(EIO));
    assert_eq!(sink::sink_panics() - panics, 1);
    assert_eq!(
        errtrace::policy::unhandled_drops(),
        before,
        "not reported again as dropped"
    );
}

#[test]
fn a_panicking_log_message_loses_that_record_only() {
    let _g = setup();
    let panics = sink::sink_panics();
    let r: errtrace::Result = Err(Error::new(EIO));
    let e = r
        .log_with(|_, _| panic!("a message that panics"))
        .unwrap_err();
    assert!(e.is_logged());
    e.handled();
    assert_eq!(sink::sink_panics() - panics, 1);
    // The sink still works afterwards.
    let seen = SINK.seen.load(Ordering::Relaxed);
    err!(always, EIO, "after the panics").handled();
    assert_eq!(SINK.seen.load(Ordering::Relaxed) - seen, 1);
}
