//! The tracepoint hooks (`tracepoints` feature): a platform installs a tracer and enables its
//! events; every error made and every hop recorded reaches it while enabled, and nothing does
//! while disabled. The kernel module forwards these to `errtrace:errtrace_error` and
//! `errtrace:errtrace_hop`; `kernel/check.sh` checks the tracefs lines.
//!
//! One test in this binary: the tracer and its enabled bits are global to the process.
#![cfg(feature = "tracepoints")]

use errtrace::code::{EIO, ENODEV};
use errtrace::probe::{set_enabled, set_tracer, ErrorEvent, Event, HopEvent, Tracer};
use errtrace::{err, Result, ResultExt};
use std::sync::Mutex;

#[derive(Debug, Clone, PartialEq)]
enum Seen {
    Error {
        code: i32,
        seq: u32,
        file: &'static str,
        line: u32,
        function: Option<&'static str>,
    },
    Hop {
        code: i32,
        seq: u32,
        file: &'static str,
        line: u32,
    },
}

static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

fn on_error(e: &ErrorEvent) {
    SEEN.lock().unwrap().push(Seen::Error {
        code: e.code.to_errno(),
        seq: e.seq,
        file: e.origin.file,
        line: e.origin.line,
        function: e.origin.function,
    });
}

fn on_hop(h: &HopEvent) {
    SEEN.lock().unwrap().push(Seen::Hop {
        code: h.code.to_errno(),
        seq: h.seq,
        file: h.file,
        line: h.line,
    });
}

fn take() -> Vec<Seen> {
    std::mem::take(&mut *SEEN.lock().unwrap())
}

const LEAF_LINE: u32 = line!() + 2;
fn leaf() -> Result<u32> {
    Err(err!(quiet, EIO))
}

const HOP_LINE: u32 = line!() + 3;
#[errtrace::trace]
fn middle() -> Result<u32> {
    let v = leaf()?;
    Ok(v)
}

#[test]
fn events_reach_the_tracer_only_while_enabled() {
    set_tracer(Tracer {
        error: on_error,
        hop: on_hop,
    })
    .unwrap();
    assert!(set_tracer(Tracer {
        error: on_error,
        hop: on_hop,
    })
    .is_err());

    // Installed but not enabled: nothing arrives.
    middle().unwrap_err().handled();
    assert_eq!(take(), []);

    // Errors only.
    set_enabled(Event::Error, true);
    let e = middle().unwrap_err();
    // The probes carry the low 32 bits of the sequence number.
    let seq = e.seq().unwrap() as u32;
    e.handled();
    let seen = take();
    assert_eq!(
        seen,
        [Seen::Error {
            code: -5,
            seq,
            file: file!(),
            line: LEAF_LINE,
            function: Some("test_tracepoints::leaf"),
        }]
    );

    // Errors and hops; a location site (`Error::new`) is reported too.
    set_enabled(Event::Hop, true);
    let e = middle().unwrap_err();
    // The probes carry the low 32 bits of the sequence number.
    let seq = e.seq().unwrap() as u32;
    e.handled();
    let new_line = line!() + 1;
    let other = errtrace::Error::new(ENODEV);
    let other_seq = other.seq().unwrap() as u32;
    other.handled();
    assert_eq!(
        take(),
        [
            Seen::Error {
                code: -5,
                seq,
                file: file!(),
                line: LEAF_LINE,
                function: Some("test_tracepoints::leaf"),
            },
            Seen::Hop {
                code: -5,
                seq,
                file: file!(),
                line: HOP_LINE,
            },
            Seen::Error {
                code: -19,
                seq: other_seq,
                file: file!(),
                line: new_line,
                function: None,
            },
        ]
    );

    // A hop made with `.during()` is a hop too.
    let r: Result<u32> = leaf().during("reading");
    let hop_line = line!() - 1;
    let e = r.unwrap_err();
    // The probes carry the low 32 bits of the sequence number.
    let seq = e.seq().unwrap() as u32;
    e.handled();
    let seen = take();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        seen[1],
        Seen::Hop {
            code: -5,
            seq,
            file: file!(),
            line: hop_line,
        }
    );

    // Disabled again: nothing.
    set_enabled(Event::Error, false);
    set_enabled(Event::Hop, false);
    middle().unwrap_err().handled();
    assert_eq!(take(), []);
}
