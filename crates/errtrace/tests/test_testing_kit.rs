//! The testing kit. Before it, the guide's capture pattern broke in a real
//! test binary: a second `set_sink(&CAPTURE).unwrap()` panicked with `AlreadySet`, the capture
//! saw only its own thread, rate-limit and `once` state leaked from one test into the next, and
//! `assert_eq!(f(), Ok(1))` did not compile.
#![cfg(feature = "testing")]

use errtrace::code::{EIO, ENODEV};
use errtrace::sink::RecordKind;
use errtrace::{err, testing, Error, ResultExt};

fn storm_site() -> errtrace::Result {
    // The default policy of EIO: 10 messages per 5 s at this site.
    Err(err!(EIO, "sensor read failed"))
}

/// Run by two tests: each expects exactly its own ten lines, whichever runs first and
/// whether or not they run at the same time.
fn ten_lines_from_one_site() {
    let cap = testing::capture();
    for _ in 0..10 {
        storm_site().unwrap_err().handled();
    }
    let lines = cap.take();
    assert_eq!(lines.len(), 10, "{lines:#?}");
    assert!(lines.iter().all(|l| l.kind == RecordKind::Created));
}

#[test]
fn rate_limits_start_fresh_in_each_capture_a() {
    ten_lines_from_one_site();
}

#[test]
fn rate_limits_start_fresh_in_each_capture_b() {
    ten_lines_from_one_site();
}

#[test]
fn records_from_other_threads_are_captured() {
    let cap = testing::capture();
    std::thread::spawn(|| {
        let _ = Error::new(ENODEV); // dropped unhandled on another thread
    })
    .join()
    .unwrap();
    let lines = cap.take();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert_eq!(lines[0].kind, RecordKind::Unhandled);
    assert!(lines[0]
        .text
        .starts_with("ENODEV (-19) dropped unhandled; where is unknown"));
}

#[test]
fn capture_can_be_taken_again_and_again() {
    for _ in 0..3 {
        let cap = testing::capture();
        err!(always, EIO, "again").handled();
        assert_eq!(cap.take_text().len(), 1);
    }
}

fn seven() -> errtrace::Result<u32> {
    Ok(7)
}

fn fails() -> errtrace::Result<u32> {
    Err(Error::new(EIO))
}

#[test]
fn results_compare_with_values_and_codes() {
    let cap = testing::capture();
    assert_eq!(seven(), Ok(7));
    assert_eq!(fails().into_code_result(), Err(EIO));
    let e = fails().unwrap_err();
    assert_eq!(e, EIO);
    e.handled();
    // The documented forgetful pattern warns; the kit shows it.
    assert!(fails().is_err());
    let lines = cap.take();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert_eq!(lines[0].kind, RecordKind::Unhandled);
}

fn read_reg(reg: u8) -> errtrace::Result<u8> {
    Err(err!(EIO, "read of reg {:#x} failed", reg))
}

/// A captured record carries its origin and message as fields: a test asserts on the function
/// and the message, not on `file:line:col` text that moves with every edit.
#[test]
fn captured_records_carry_origin_and_message_as_fields() {
    let cap = testing::capture();
    read_reg(0x10).unwrap_err().handled();
    let lines = cap.take();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    let c = &lines[0];
    assert!(c.made_in("read_reg"), "{c:#?}");
    assert!(!c.made_in("storm_site"));
    assert_eq!(c.message.as_deref(), Some("read of reg 0x10 failed"));
    assert_eq!(c.at.function_name(), Some("read_reg"));
    let origin = c.origin.expect("a created record has its error's origin");
    assert!(origin.file.ends_with("test_testing_kit.rs"), "{origin:?}");
    assert_eq!(c.code, EIO);
}
