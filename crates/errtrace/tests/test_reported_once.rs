//! "Reported" means the same for every error, and nobody prints an error twice.
//!
//! Before this change: formatting the report of an error that got no recorder slot did not mark
//! it (it warned when dropped and a boundary printed it again); `.or_log()` on an error its
//! creator had logged printed "should not fail: …" with the full report again; and `{:?}` (what
//! `main() -> errtrace::Result` prints) repeated the full report of an error `.log_with()` had
//! printed. Each test below failed then.

#![cfg(feature = "testing")]

use errtrace::code::EIO;
use errtrace::sink::{Level, RecordKind};
use errtrace::testing::{self, Capture};
use errtrace::{boundary, err, Error, ResultExt};

/// The test kit's capture: every thread, one test at a time (tests that fill the recorder with
/// live errors run alone), rate limits fresh.
fn setup() -> Capture {
    testing::capture()
}

fn kinds(cap: &Capture) -> Vec<(RecordKind, String)> {
    cap.take().into_iter().map(|c| (c.kind, c.text)).collect()
}

#[test]
fn an_unrecorded_error_counts_as_reported_once_its_report_is_printed() {
    let cap = setup();
    // Every recorder slot holds a live error, so the next one is unrecorded.
    let held: Vec<Error> = (0..errtrace::config::RECORDER_SLOTS)
        .map(|_| Error::new(EIO))
        .collect();
    let e = Error::new(EIO);
    assert_eq!(e.seq(), None, "the recorder is full");
    let report = format!("{e:#}");
    assert!(report.contains("trail not recorded"), "{report}");
    assert!(e.is_logged(), "its report was printed");
    // A boundary does not print it again; dropping another one that was reported does not warn.
    assert_eq!(boundary("probe", Err::<(), _>(e)), Err(EIO));
    let e2 = Error::new(EIO);
    assert_eq!(e2.seq(), None);
    let _ = format!("{e2:?}");
    drop(e2);
    // One that was not reported still warns: the marks are per error.
    let e3 = Error::new(EIO);
    drop(e3);
    for e in held {
        e.handled();
    }
    let records = kinds(&cap);
    let printed: Vec<_> = records
        .iter()
        .filter(|(k, _)| matches!(k, RecordKind::Boundary | RecordKind::Unhandled))
        .collect();
    assert_eq!(printed.len(), 1, "{records:#?}");
    assert_eq!(printed[0].0, RecordKind::Unhandled);
}

fn creator_logs() -> errtrace::Result<u32> {
    Err(err!(EIO, "reading the calibration"))
}

#[test]
fn or_log_on_a_logged_error_is_one_line_pointing_at_the_creator() {
    let cap = setup();
    let v = creator_logs().or_log("calibration is optional", 1);
    assert_eq!(v, 1);
    let records = kinds(&cap);
    assert_eq!(records.len(), 2, "{records:#?}");
    assert_eq!(records[0].0, RecordKind::Created);
    let (kind, text) = &records[1];
    assert_eq!(*kind, RecordKind::Fallback);
    assert!(
        text.starts_with(
            "calibration is optional: EIO (-5), using the fallback; already reported at crates/errtrace/tests/test_reported_once.rs:"
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(!text.contains("should not fail"), "{text}");
}

#[test]
fn or_log_on_an_unreported_error_is_a_warning_with_the_report() {
    let cap = setup();
    fn quiet() -> errtrace::Result<u32> {
        Err(Error::new(EIO))
    }
    assert_eq!(quiet().or_log("calibration is optional", 1), 1);
    let c = cap.take();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].level, Level::Warning);
    assert!(
        c[0].text.starts_with(
            "calibration is optional: EIO (-5), using the fallback:\n  error EIO (-5)"
        ),
        "{}",
        c[0].text
    );
}

#[test]
fn not_expected_on_a_logged_error_points_at_the_log() {
    let cap = setup();
    fn logged() -> errtrace::Result<u32> {
        Err(Error::new(EIO)).log("while probing")
    }
    let e = logged()
        .not_expected("the probe succeeds on this board")
        .unwrap_err();
    let records = kinds(&cap);
    assert_eq!(records.len(), 2, "{records:#?}");
    let text = &records[1].1;
    assert!(
        text.starts_with("should not fail: the probe succeeds on this board: EIO (-5); already reported at crates/errtrace/tests/test_reported_once.rs:"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");
    // The trail says where it was printed.
    let report = e.report().to_string();
    assert!(report.contains(" (logged here)"), "{report}");
    e.handled();
}

#[test]
fn main_style_debug_of_a_logged_error_is_one_line_pointing_at_the_log() {
    let _cap = setup();
    fn run() -> errtrace::Result {
        let r: errtrace::Result = Err(Error::new(EIO));
        r.log_with(|e, f| write!(f, "reg 0x10: {}", e.name()))
    }
    let e = run().unwrap_err();
    let line = run_line();
    // What `main() -> errtrace::Result` prints after `Error: `.
    let debug = format!("{e:?}");
    assert_eq!(
        debug,
        format!(
            "EIO (-5): Input/output error, already reported at crates/errtrace/tests/test_reported_once.rs:{line}:11"
        )
    );
    e.handled();
    // An error that was never printed still gets the full report.
    let e = Error::new(EIO);
    assert!(format!("{e:?}").starts_with("error EIO (-5): Input/output error\n  origin: "));
    e.handled();
}

/// The line of `r.log_with(…)` in `run` above.
fn run_line() -> u32 {
    line!() - 21
}

#[test]
fn a_boundary_with_p_points_at_where_the_error_was_printed() {
    let cap = setup();
    let line = line!() + 2;
    errtrace::control::apply(&format!("file test_reported_once.rs line {line} +p")).unwrap();
    let r = boundary("probe", creator_logs());
    assert_eq!(r, Err(EIO));
    let records = kinds(&cap);
    let already: Vec<_> = records
        .iter()
        .filter(|(k, _)| *k == RecordKind::AlreadyReported)
        .collect();
    assert_eq!(already.len(), 1, "{records:#?}");
    assert!(
        already[0].1.starts_with("probe: returning EIO (-5), already reported at crates/errtrace/tests/test_reported_once.rs:"),
        "{}",
        already[0].1
    );
}

/// Run as a child process: returns an error that `.log_with()` printed, the way
/// `main() -> errtrace::Result` would (the test harness prints `Error: {:?}` like `main`).
#[test]
fn child_returns_a_logged_error() -> errtrace::Result {
    if std::env::var_os("ERRTRACE_TEST_CHILD").is_none() {
        return Ok(());
    }
    errtrace::init();
    let r: errtrace::Result = Err(err!(EIO));
    r.log_with(|e, f| write!(f, "reg 0x10: {}", e.name()))
}

#[cfg(feature = "std")]
#[test]
fn returning_a_logged_error_from_main_prints_it_once() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_returns_a_logged_error", "--nocapture"])
        .env("ERRTRACE_TEST_CHILD", "1")
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{all}");
    assert_eq!(
        all.matches("reg 0x10: EIO: EIO (-5) at ").count(),
        1,
        "{all}"
    );
    assert!(
        all.contains("Error: EIO (-5): Input/output error, already reported at crates/errtrace/tests/test_reported_once.rs:"),
        "{all}"
    );
    assert!(!all.contains("origin:"), "printed twice: {all}");
}
