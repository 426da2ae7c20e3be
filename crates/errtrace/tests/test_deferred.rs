//! Standing queries reach a site that first fires where the platform defers work (an NMI in the
//! kernel): the site is decided by its defaults until the platform calls
//! `control::apply_deferred()`, and then the queries are in force.
#![cfg(feature = "control")]

use errtrace::code::ENXIO;
use errtrace::control;
use std::cell::Cell;
use std::sync::Mutex;

mod common;
use common::Capture;

static CAPTURE: Capture = Capture::new();

thread_local! {
    /// This thread plays an NMI while set.
    static IN_NMI: Cell<bool> = const { Cell::new(false) };
}

/// How many times the defer hook said "later" (the platform's irq_work, queued).
static QUEUED: Mutex<u32> = Mutex::new(0);

fn defer() -> bool {
    let in_nmi = IN_NMI.with(Cell::get);
    if in_nmi {
        *QUEUED.lock().unwrap() += 1;
    }
    in_nmi
}

fn in_nmi<T>(f: impl FnOnce() -> T) -> T {
    IN_NMI.with(|c| c.set(true));
    let r = f();
    IN_NMI.with(|c| c.set(false));
    r
}

// Location sites (`Error::new`): they appear when they first fire, with or without the
// link-time registry (which lists every `err!` site before it fires).
const NMI_LINE: u32 = line!() + 2;
fn nmi_handler() -> errtrace::Result {
    Err(errtrace::Error::new(ENXIO))
}

const TASK_LINE: u32 = line!() + 2;
fn task_work() -> errtrace::Result {
    Err(errtrace::Error::new(ENXIO))
}

/// The flags word (`=pm`, `=_`) of the site at `line` of this file.
fn flags_of(line: u32) -> String {
    let mut s = String::new();
    control::list(&mut s).unwrap();
    let at = format!("test_deferred.rs:{line} ");
    let listed = s
        .lines()
        .find(|l| l.contains(&at))
        .unwrap_or_else(|| panic!("no site at {at} in\n{s}"));
    listed
        .split_whitespace()
        .find(|w| w.starts_with('='))
        .unwrap()
        .to_string()
}

#[test]
fn a_site_that_appears_in_a_deferring_context_gets_the_standing_queries_later() {
    errtrace::platform::set_defer(defer).unwrap();
    let _ = errtrace::sink::set_sink(&CAPTURE);
    control::apply(&format!(
        "file *test_deferred.rs line {NMI_LINE} +pm; file *test_deferred.rs line {TASK_LINE} +pm"
    ))
    .unwrap();

    // Outside the deferring context the queries apply at once, to the first error.
    task_work().unwrap_err().handled();
    assert_eq!(flags_of(TASK_LINE), "=pm");
    assert_eq!(CAPTURE.take().len(), 1, "task_work's first error printed");
    assert_eq!(*QUEUED.lock().unwrap(), 0);

    // In the deferring context the site is decided by its defaults (an error made by
    // `Error::new` and handled prints nothing)...
    in_nmi(|| nmi_handler().unwrap_err().handled());
    assert!(!flags_of(NMI_LINE).contains('m'));
    assert!(
        CAPTURE.take().is_empty(),
        "nothing printed until the deferred run"
    );
    assert!(
        *QUEUED.lock().unwrap() >= 1,
        "the platform was asked to run it later"
    );

    // ...until the platform's deferred call, which applies them once.
    control::apply_deferred();
    assert_eq!(flags_of(NMI_LINE), "=pm");
    in_nmi(|| nmi_handler().unwrap_err().handled());
    assert_eq!(CAPTURE.take().len(), 1, "the query is in force now");

    // A later direct query is not undone by another deferred run.
    control::apply(&format!("file *test_deferred.rs line {NMI_LINE} -m")).unwrap();
    control::apply_deferred();
    assert_eq!(flags_of(NMI_LINE), "=p");
}
