//! A capturing sink for the integration tests, written here (tests always have std) so that the
//! tests also run against the `no_std` build of errtrace (`--no-default-features`), where the
//! library's own `sink::Capture` does not exist.
#![allow(dead_code)]

use errtrace::code::Code;
use errtrace::sink::{Level, Record, RecordKind, Sink};
use std::cell::RefCell;

/// One captured record.
#[derive(Clone, Debug)]
pub struct Captured {
    pub level: Level,
    pub kind: RecordKind,
    pub code: Code,
    pub text: String,
    pub suppressed: u32,
}

thread_local! {
    static CAPTURED: RefCell<Vec<Captured>> = const { RefCell::new(Vec::new()) };
}

/// Keeps each thread's records apart, so tests running in parallel see only their own.
pub struct Capture;

impl Capture {
    pub const fn new() -> Capture {
        Capture
    }

    pub fn take(&self) -> Vec<Captured> {
        CAPTURED.with(|c| std::mem::take(&mut *c.borrow_mut()))
    }
}

impl Sink for Capture {
    fn emit(&self, record: &Record<'_>) {
        let c = Captured {
            level: record.level,
            kind: record.kind,
            code: record.code,
            text: record.to_string(),
            suppressed: record.suppressed,
        };
        let _ = CAPTURED.try_with(|v| v.borrow_mut().push(c));
    }
}
