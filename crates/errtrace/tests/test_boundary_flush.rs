//! A boundary announces the suppressed count of every rate-limit window that is over (before, a storm's count waited for the site's next message, which may never come).
//! Its own test binary: it installs a fake clock.

mod common;
use common::Capture;
use errtrace::code::{EIO, ENODEV};
use errtrace::sink::RecordKind;
use std::sync::atomic::{AtomicU64, Ordering};

static CAPTURE: Capture = Capture::new();
static NOW_NS: AtomicU64 = AtomicU64::new(1_000_000_000);

fn clock() -> u64 {
    NOW_NS.load(Ordering::Relaxed)
}

fn storm() {
    for _ in 0..5 {
        errtrace::err!(ratelimit(1, 1000), EIO, "storm").handled();
    }
}

fn other() -> errtrace::Result {
    Err(errtrace::err!(always, ENODEV, "elsewhere"))
}

#[test]
fn a_boundary_announces_windows_that_are_over() {
    errtrace::platform::set_clock(clock).unwrap();
    errtrace::sink::set_sink(&CAPTURE).unwrap();
    storm();
    let first = CAPTURE.take();
    assert_eq!(first.len(), 1, "one printed, four held back: {first:#?}");

    // Still inside the storm's window: a boundary leaves it alone.
    let _ = errtrace::boundary("probe", other());
    assert!(CAPTURE
        .take()
        .iter()
        .all(|c| c.kind != RecordKind::Suppressed));

    // The window is over: the next boundary announces its count.
    NOW_NS.store(3_000_000_000, Ordering::Relaxed);
    let _ = errtrace::boundary("probe", other());
    let lines = CAPTURE.take();
    let suppressed: Vec<_> = lines
        .iter()
        .filter(|c| c.kind == RecordKind::Suppressed)
        .collect();
    assert_eq!(suppressed.len(), 1, "{lines:#?}");
    assert_eq!(suppressed[0].suppressed, 4);
}
