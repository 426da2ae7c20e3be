//! The error value: size, codes, origin for every way of making an error, trail, reports.

use errtrace::code::{self, Code, EINVAL, EIO, ENODEV, ENOMEM};
use errtrace::{err, Error, ResultExt};
use std::mem::size_of;
use std::sync::Mutex;

/// The tests of this binary run one at a time: some fill the process-wide flight recorder with
/// live errors, which would leave the others' errors unrecorded.
static RING: Mutex<()> = Mutex::new(());

fn ring() -> std::sync::MutexGuard<'static, ()> {
    RING.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn sizes() {
    let _g = ring();
    assert_eq!(size_of::<Error>(), 8);
    assert_eq!(size_of::<Option<Error>>(), 8);
    assert_eq!(size_of::<errtrace::Result>(), 8);
    assert_eq!(size_of::<errtrace::Result<u64>>(), 16);
}

#[test]
fn errno_conventions() {
    let _g = ring();
    let e = Error::from_errno(-22).unwrap();
    assert_eq!(e.code(), EINVAL);
    assert_eq!(e.to_errno(), -22);
    assert_eq!(e.name(), "EINVAL");
    assert_eq!(e.description(), "Invalid argument");
    e.handled();
    let e = Error::from_errno(22).unwrap();
    assert_eq!(e.to_errno(), -22);
    e.handled();
    for bad in [0, 4096, -4096, i32::MIN, i32::MAX] {
        let err = Error::from_errno(bad).unwrap_err();
        assert_eq!(err.value(), bad);
    }
    assert_eq!(code::EPROBE_DEFER.to_errno(), -517);
    assert_eq!(Code::from_name("ERESTARTSYS").map(Code::get), Some(512));
}

fn line_of(e: &Error) -> u32 {
    e.origin().line
}

#[test]
fn origin_of_new_and_from_errno() {
    let _g = ring();
    let e = Error::new(EIO);
    assert_eq!(line_of(&e), line!() - 1);
    assert!(e.origin().file.ends_with("test_error.rs"));
    e.handled();
    let e = Error::from_errno(-5).unwrap();
    assert_eq!(line_of(&e), line!() - 1);
    e.handled();
}

fn question_mark_on_code() -> errtrace::Result<u8> {
    Err(ENOMEM)?;
    Ok(0)
}

#[test]
fn origin_of_err_code_question_mark() {
    let _g = ring();
    let e = question_mark_on_code().unwrap_err();
    assert_eq!(e.code(), ENOMEM);
    // The origin is the `?` in question_mark_on_code.
    let src = include_str!("test_error.rs");
    let expected = src
        .lines()
        .position(|l| l.contains("Err(ENOMEM)?;"))
        .unwrap() as u32
        + 1;
    assert_eq!(e.origin().line, expected);
    e.handled();
}

fn foreign() -> errtrace::Result<u8> {
    let n: i64 = -1;
    let v = u8::try_from(n)?;
    Ok(v)
}

#[test]
fn origin_of_foreign_conversions() {
    let _g = ring();
    let e = foreign().unwrap_err();
    assert_eq!(e.code(), EINVAL);
    let src = include_str!("test_error.rs");
    let expected = src
        .lines()
        .position(|l| l.contains("u8::try_from(n)?"))
        .unwrap() as u32
        + 1;
    assert_eq!(e.origin().line, expected);
    e.handled();
}

#[cfg(feature = "std")]
#[test]
fn io_error_conversions() {
    let _g = ring();
    let io = std::io::Error::from_raw_os_error(13);
    let e: Error = io.into();
    assert_eq!(e.code(), code::EACCES);
    e.handled();
    let io = std::io::Error::other("not an errno");
    let e: Error = io.into();
    assert_eq!(e.code(), EIO);
    let back: std::io::Error = e.into();
    assert_eq!(back.kind(), std::io::Error::from_raw_os_error(5).kind());
    let e = Error::from(back);
    assert_eq!(e.code(), EIO);
    e.handled();
}

mod bus {
    use errtrace::code::EIO;

    pub fn read_reg() -> errtrace::Error {
        errtrace::err!(EIO)
    }
}

#[test]
fn err_macro_records_function_and_module() {
    let _g = ring();
    let e = bus::read_reg();
    let o = e.origin();
    assert_eq!(o.module, Some("test_error::bus"));
    assert_eq!(o.function, Some("test_error::bus::read_reg"));
    assert_eq!(o.function_name(), Some("read_reg"));
    let closure = || err!(EIO);
    let e2 = closure();
    assert_eq!(
        e2.origin().function,
        Some("test_error::err_macro_records_function_and_module")
    );
    e.handled();
    e2.handled();
}

fn leaf() -> errtrace::Result<u64> {
    Err(err!(EIO))
}

fn level(n: u32) -> errtrace::Result<u64> {
    if n == 0 {
        return leaf();
    }
    level(n - 1).trace()
}

/// The hop count stops at `Event::HOPS_COUNTED`, and says so: 10,000 hops read as saturated,
/// a few as exact.
#[test]
fn a_saturated_hop_count_says_so() {
    let _g = ring();
    let mut r: errtrace::Result<u64> = leaf();
    for _ in 0..10_000 {
        r = r.trace();
    }
    let e = r.unwrap_err();
    let ev = e.event().unwrap();
    assert_eq!(ev.total_hops(), <errtrace::recorder::Event>::HOPS_COUNTED);
    assert!(ev.hops_saturated());
    assert!(e.report().to_string().contains(" or more hops)"));
    let e = level(3).unwrap_err();
    let ev = e.event().unwrap();
    assert_eq!(ev.total_hops(), 3);
    assert!(!ev.hops_saturated());
}

#[test]
fn trail_keeps_hops_in_order_and_counts_overflow() {
    let _g = ring();
    let e = level(11).unwrap_err();
    let ev = e.event().unwrap();
    assert_eq!(ev.total_hops(), 11);
    assert_eq!(ev.hops().count(), errtrace::config::HOPS);
    assert_eq!(ev.more_hops(), 11 - errtrace::config::HOPS as u32);
    let report = e.report().to_string();
    assert!(
        report.contains(&format!("(+{} more hops)", 11 - errtrace::config::HOPS)),
        "{report}"
    );
    e.handled();
}

fn ctx_chain() -> errtrace::Result<u64> {
    leaf().during("reading chip id")
}

#[test]
fn report_format() {
    let _g = ring();
    let e = ctx_chain().trace().unwrap_err();
    let text = format!("{e:#}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "error EIO (-5): Input/output error");
    assert!(
        lines[1].starts_with("  origin: crates/errtrace/tests/test_error.rs:"),
        "{text}"
    );
    assert!(lines[1].ends_with(" in test_error::leaf"), "{text}");
    assert!(lines[2].starts_with("  via:    crates/errtrace/tests/test_error.rs:"));
    assert!(lines[2].ends_with("\"reading chip id\""));
    assert!(lines[3].starts_with("  via:    "));
    assert_eq!(lines.len(), 4);
    let one = e.to_string();
    assert!(one.starts_with("EIO: Input/output error (at crates/errtrace/tests/test_error.rs:"));
    // Once its report was printed, `{:?}` (what `main` prints) points there in one line.
    let debug = format!("{e:?}");
    assert!(
        debug.starts_with("EIO (-5): Input/output error, already reported (origin crates/errtrace/tests/test_error.rs:"),
        "{debug}"
    );
    e.handled();
    let e = ctx_chain().unwrap_err();
    assert_eq!(
        format!("{e:?}").lines().next(),
        Some("error EIO (-5): Input/output error")
    );
    e.handled();
}

#[test]
fn origin_survives_many_newer_errors() {
    let _g = ring();
    let e = leaf().unwrap_err();
    let line = e.origin().line;
    for _ in 0..(errtrace::config::RECORDER_SLOTS * 3) {
        Error::new(EIO).handled();
    }
    assert_eq!(e.origin().line, line);
    // A live error keeps its slot: its trail is still there.
    assert!(e.event().is_ok());
    e.handled();
}

#[test]
fn released_events_are_overwritten_and_reported_as_such() {
    let _g = ring();
    let e = Error::new(EIO);
    let seq = e.seq().unwrap();
    e.handled();
    assert!(errtrace::recorder::read(seq).is_ok());
    for _ in 0..(errtrace::config::RECORDER_SLOTS * 2) {
        Error::new(EIO).handled();
    }
    match errtrace::recorder::read(seq) {
        Err(errtrace::recorder::Missing::Overwritten { newer }) => {
            assert!(newer as usize >= errtrace::config::RECORDER_SLOTS)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn recorder_full_of_live_errors_marks_unrecorded() {
    let _g = ring();
    // Hold more live errors than there are slots: the extra ones are unrecorded, and say so.
    let held: Vec<Error> = (0..errtrace::config::RECORDER_SLOTS + 8)
        .map(|_| Error::new(EIO))
        .collect();
    let unrecorded: Vec<&Error> = held.iter().filter(|e| e.seq().is_none()).collect();
    assert!(!unrecorded.is_empty());
    let report = unrecorded[0].report().to_string();
    assert!(report.contains("trail not recorded"), "{report}");
    // The origin is still known.
    assert!(
        report.contains("origin: crates/errtrace/tests/test_error.rs:"),
        "{report}"
    );
    for e in held {
        e.handled();
    }
    assert!(errtrace::recorder::unrecorded() > 0);
}

#[test]
fn site_counters_count() {
    let _g = ring();
    fn make() -> errtrace::Result {
        Err(err!(EIO))
    }
    for _ in 0..3 {
        make().trace().unwrap_err().handled();
    }
    let e = make().unwrap_err();
    let c = e.site().unwrap().counters();
    assert_eq!(c.created, 4);
    assert_eq!(c.propagated, 3);
    e.handled();
}

#[test]
fn core_error_trait() {
    let _g = ring();
    fn takes(_: &dyn core::error::Error) {}
    let e = Error::new(EIO);
    takes(&e);
    e.handled();
}

/// A trail longer than the recorder counts says "or more" instead of a wrong exact number
/// (before, 5000 hops read "(+8183 more hops)" without saying the count had
/// stopped).
#[test]
fn saturated_hop_count_says_so() {
    let _g = ring();
    let mut e = Error::new(EIO);
    for _ in 0..5000 {
        e.hop();
    }
    let report = e.report().to_string();
    assert!(report.contains(" or more hops)"), "{report}");
    let mut dump = String::new();
    errtrace::recorder::for_each(|ev| {
        if Some(ev.seq()) == e.seq() {
            let _ = errtrace::recorder::write_event(&mut dump, ev);
        }
    });
    assert!(dump.contains(" or more hops)"), "{dump}");
    e.handled();
}

/// A live error older than a lap of the recorder is still in a dump (before,
/// `for_each` went over the last lap's sequence numbers only and skipped it).
#[test]
fn dumps_show_live_errors_older_than_a_lap() {
    let _g = ring();
    let old = Error::new(ENODEV);
    let seq = old.seq().unwrap();
    for _ in 0..(errtrace::config::RECORDER_SLOTS * 2) {
        Error::new(EIO).handled();
    }
    let mut seen = false;
    errtrace::recorder::for_each(|ev| seen |= ev.seq() == seq && ev.is_live());
    assert!(seen, "the live error is in the dump");
    old.handled();
}
