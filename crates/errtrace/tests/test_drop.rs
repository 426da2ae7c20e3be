//! Dropped unhandled: every documented "handled" idiom stays silent; every forgetful pattern
#![allow(clippy::match_like_matches_macro, clippy::single_match)]
//! warns, with the origin.

use errtrace::code::{EAGAIN, EIO};
mod common;
use common::Capture;
use errtrace::sink::RecordKind;
use errtrace::{boundary, err, Error, ResultExt};

static CAPTURE: Capture = Capture::new();

fn setup() {
    let _ = errtrace::sink::set_sink(&CAPTURE);
    CAPTURE.take();
}

fn fails() -> errtrace::Result<u32> {
    Err(err!(EIO))
}

fn warnings() -> Vec<common::Captured> {
    CAPTURE
        .take()
        .into_iter()
        .filter(|c| c.kind == RecordKind::Unhandled)
        .collect()
}

fn assert_silent(what: &str) {
    let w = warnings();
    assert!(w.is_empty(), "{what} warned: {w:#?}");
}

fn assert_warned(what: &str) {
    let w = warnings();
    assert_eq!(w.len(), 1, "{what} should warn once: {w:#?}");
    assert!(
        w[0].text.starts_with(
            "EIO (-5) dropped unhandled; where is unknown (no hop since its origin: \
             #[errtrace::trace] or .during() on its way would tell):\n"
        ),
        "{}",
        w[0].text
    );
    assert!(
        w[0].text
            .contains("origin: crates/errtrace/tests/test_drop.rs:"),
        "{}",
        w[0].text
    );
}

// ---- idioms that count as handled ----

#[test]
fn propagating_with_question_mark() {
    setup();
    fn up() -> errtrace::Result<u32> {
        let v = fails()?;
        Ok(v)
    }
    let e = up().unwrap_err();
    assert_silent("moving through ?");
    e.handled();
    assert_silent("handled()");
}

#[test]
fn ignore_with_reason() {
    setup();
    fails().unwrap_err().ignore("polled again next tick");
    assert_silent("ignore()");
}

#[test]
fn match_on_code() {
    setup();
    let retry = match fails() {
        Ok(_) => false,
        Err(e) => match e.into_code() {
            EIO => true,
            _ => false,
        },
    };
    assert!(retry);
    assert_silent("into_code()");
}

#[test]
fn recover_from_a_code() {
    setup();
    fn poll() -> errtrace::Result {
        if let Err(e) = Err::<(), _>(Error::new(EAGAIN)) {
            e.recover(EAGAIN)?;
        }
        Ok(())
    }
    assert!(poll().is_ok());
    assert_silent("recover()");
}

#[test]
fn logging_it() {
    setup();
    drop(fails().log("while testing"));
    assert_silent("log() then drop");
    drop(Err::<(), _>(err!(EIO, "creator logs")));
    assert_silent("err! with message then drop");
    let v: errtrace::Result<u32> = fails();
    assert_eq!(v.or_log("fallback", 1), 1);
    assert_silent("or_log()");
}

#[test]
fn reporting_it() {
    setup();
    let e = fails().unwrap_err();
    let _ = format!("{e:#}");
    drop(e);
    assert_silent("report formatted then drop");
}

/// The one-line `Display` is a label, not a report (before, `to_string()`
/// counted as reporting, so the drop below was silent and a boundary printed nothing).
#[test]
fn a_label_is_not_a_report() {
    setup();
    let e = fails().unwrap_err();
    let _label = e.to_string();
    drop(e);
    assert_warned("Display then drop");
    fn labelled() -> errtrace::Result<u32> {
        let e = fails().unwrap_err();
        let _label = e.to_string();
        Err(e)
    }
    assert_eq!(boundary("probe", labelled()), Err(EIO));
    let printed = CAPTURE
        .take()
        .into_iter()
        .filter(|c| c.kind == RecordKind::Boundary)
        .count();
    assert_eq!(printed, 1, "the boundary prints the labelled error");
}

#[test]
fn returning_through_a_boundary() {
    setup();
    assert_eq!(boundary("init", fails()), Err(EIO));
    assert_silent("boundary");
}

#[test]
fn explicit_ok() {
    setup();
    assert_eq!(fails().handled_ok(), None);
    assert_silent("handled_ok()");
}

// ---- forgetful patterns that warn ----

#[test]
fn let_underscore() {
    setup();
    let _ = fails();
    assert_warned("let _ = f()");
}

#[test]
fn dot_ok() {
    setup();
    fails().ok();
    assert_warned("f().ok()");
}

#[test]
fn if_let_ok_without_else() {
    setup();
    if let Ok(v) = fails() {
        let _ = v;
    }
    assert_warned("if let Ok(x) = f() {}");
}

#[test]
fn match_arm_err_underscore() {
    setup();
    match fails() {
        Ok(_) => {}
        Err(_) => {}
    }
    assert_warned("Err(_) => {}");
}

#[test]
fn explicit_drop() {
    setup();
    drop(fails().unwrap_err());
    assert_warned("drop(e)");
}

fn storm() -> errtrace::Result {
    Err(err!(EIO))
}

#[test]
fn drop_warnings_are_rate_limited_per_origin() {
    setup();
    for _ in 0..100 {
        let _ = storm();
    }
    let w = warnings();
    assert_eq!(w.len(), 10, "burst of the default rate limit");
    let e = storm().unwrap_err();
    assert!(e.site().unwrap().counters().dropped >= 100);
    e.handled();
}

// ---- where it was dropped ----

fn hopped_twice() -> errtrace::Result<u32> {
    let v = fails().trace()?;
    Ok(v)
}

fn during_then_dropped() {
    let r = hopped_twice().during("reading the calibration");
    let _ = r;
}

/// The warning names the last place the error passed through (`.trace()`, `.during()`),
/// since `Drop` has no caller location; with no hop it says plainly that it cannot tell.
#[test]
fn the_warning_says_where_it_was_last_seen() {
    setup();
    during_then_dropped();
    let w = warnings();
    assert_eq!(w.len(), 1, "{w:#?}");
    let during_line = line_of("let r = hopped_twice().during(");
    let expected = format!(
        "EIO (-5) dropped unhandled, last seen at crates/errtrace/tests/test_drop.rs:{during_line}:28 \
         (its last hop: dropped there or in a caller):"
    );
    assert!(
        w[0].text.starts_with(&expected),
        "{}\nexpected: {expected}",
        w[0].text
    );
}

#[test]
fn beyond_the_kept_hops_it_says_it_cannot_tell() {
    setup();
    let mut e = fails().unwrap_err();
    for _ in 0..errtrace::config::HOPS + 3 {
        e.hop();
    }
    drop(e);
    let w = warnings();
    assert_eq!(w.len(), 1, "{w:#?}");
    assert!(
        w[0].text.contains(
            "dropped unhandled; where is unknown (after crates/errtrace/tests/test_drop.rs:"
        ) && w[0].text.contains(" it took 3 more hops than are kept):"),
        "{}",
        w[0].text
    );
}

/// The 1-based line of the one line of this file containing `text`.
fn line_of(text: &str) -> usize {
    let src = include_str!("test_drop.rs");
    let hits: Vec<usize> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(text) && !l.contains("line_of("))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(hits.len(), 1, "{text:?} on lines {hits:?}");
    hits[0]
}

// ---- `+p` traces the making; it does not handle the error ----

#[cfg(feature = "control")]
fn made_under_plus_p() -> errtrace::Result {
    Err(err!(EIO))
}

/// `+p` on a file prints each error made there; that line is a trace of the making, so the
/// error still warns when dropped unhandled and a boundary still gives its full report.
#[cfg(feature = "control")]
#[test]
fn plus_p_keeps_drop_detection() {
    setup();
    errtrace::control::apply("func made_under_plus_p +p").unwrap();
    drop(made_under_plus_p());
    let all = CAPTURE.take();
    let kinds: Vec<RecordKind> = all.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [RecordKind::Created, RecordKind::Unhandled],
        "{all:#?}"
    );
    assert_eq!(boundary("plus p", made_under_plus_p()), Err(EIO));
    let kinds: Vec<RecordKind> = CAPTURE.take().iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [RecordKind::Created, RecordKind::Boundary]);
}

/// The same for the errors a location site makes (`Error::new`, `Error::from_errno`,
/// `Err(CODE)?`, a foreign error's `?`): `+p` on their line prints the making, and each still
/// warns when dropped unhandled (before, `Error::new` at a `+p` site was marked logged by that
/// line and dropped without a count or a warning).
#[cfg(feature = "control")]
#[test]
fn plus_p_keeps_drop_detection_at_location_sites() {
    fn question_mark() -> errtrace::Result {
        Err(EIO)?
    }
    fn foreign() -> errtrace::Result {
        "x".parse::<u8>()?;
        Ok(())
    }
    setup();
    let makers: [fn() -> Error; 4] = [
        || Error::new(EIO),
        || Error::from_errno(-5).unwrap(),
        || question_mark().unwrap_err(),
        || foreign().unwrap_err(),
    ];
    for make in makers {
        // The line of the site: where the first error made by `make` comes from.
        let line = {
            let e = make();
            let line = e.origin().line;
            e.handled();
            line
        };
        errtrace::control::apply(&format!("file test_drop.rs:{line} +p")).unwrap();
        let before = errtrace::policy::unhandled_drops();
        drop(make());
        let all = CAPTURE.take();
        let kinds: Vec<RecordKind> = all.iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [RecordKind::Created, RecordKind::Unhandled],
            "line {line}: {all:#?}"
        );
        assert_eq!(
            errtrace::policy::unhandled_drops(),
            before + 1,
            "line {line}"
        );
        errtrace::control::apply(&format!("file test_drop.rs:{line} -p")).unwrap();
    }
}
