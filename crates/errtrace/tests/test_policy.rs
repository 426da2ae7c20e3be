//! Who logs and how often, with a fake clock: burst, window reset, suppressed counts, once,
//! quiet-but-recorded, and no double logging across a 10-deep chain.

use errtrace::code::{EAGAIN, EIO, ENOLINK, ENOMEM, EPROBE_DEFER, ETIMEDOUT};
use errtrace::policy::{self, Policy};
mod common;
use common::Capture;
use errtrace::sink::RecordKind;
use errtrace::{boundary, err, Error, ResultExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

static CAPTURE: Capture = Capture::new();
static NOW_NS: AtomicU64 = AtomicU64::new(1_000_000_000);
/// Tests that move the fake clock run one at a time.
static CLOCK: Mutex<()> = Mutex::new(());

fn fake_clock() -> u64 {
    NOW_NS.load(Ordering::SeqCst)
}

fn setup() -> std::sync::MutexGuard<'static, ()> {
    let _ = errtrace::sink::set_sink(&CAPTURE);
    let _ = errtrace::platform::set_clock(fake_clock);
    let g = CLOCK.lock().unwrap_or_else(|p| p.into_inner());
    CAPTURE.take();
    g
}

fn advance_ms(ms: u64) {
    NOW_NS.fetch_add(ms * 1_000_000, Ordering::SeqCst);
}

fn storm_site() -> errtrace::Result {
    Err(err!(ETIMEDOUT, "transfer timed out"))
}

#[test]
fn default_rate_limit_burst_refill_and_suppressed_count() {
    let _g = setup();
    for _ in 0..1000 {
        storm_site().unwrap_err().handled();
    }
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 10, "{lines:#?}");
    assert!(lines.iter().all(|l| l.kind == RecordKind::Created));
    assert!(lines[0]
        .text
        .starts_with("transfer timed out: ETIMEDOUT (-110) at "));
    // The bucket (10 per 5 s) refills one message every 500 ms: nothing more before that.
    advance_ms(499);
    storm_site().unwrap_err().handled();
    assert!(CAPTURE.take().is_empty());
    // One message's worth: the suppressed count comes first, then the message.
    advance_ms(1);
    storm_site().unwrap_err().handled();
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert_eq!(lines[0].kind, RecordKind::Suppressed);
    assert_eq!(lines[0].suppressed, 991);
    assert!(
        lines[0]
            .text
            .ends_with("]storm_site: 991 messages suppressed"),
        "{}",
        lines[0].text
    );
    assert_eq!(lines[1].kind, RecordKind::Created);
    // Empty again at once.
    let e = storm_site().unwrap_err();
    assert!(CAPTURE.take().is_empty());
    let c = e.site().unwrap().counters();
    assert_eq!(c.created, 1003);
    // The burst of 10 + the one 500 ms later; this one is held back.
    assert_eq!(c.logged, 11);
    assert_eq!(c.suppressed, 992);
    e.handled();
    // Report the one still held back here, not at a later test's boundary.
    errtrace::policy::flush_suppressed();
    assert_eq!(CAPTURE.take().len(), 1);
}

fn custom_limit() -> errtrace::Result {
    Err(err!(ratelimit(2, 100), EIO, "custom"))
}

#[test]
fn per_site_rate_limit_from_source_and_flush() {
    let _g = setup();
    for _ in 0..5 {
        custom_limit().unwrap_err().handled();
    }
    assert_eq!(CAPTURE.take().len(), 2);
    policy::flush_suppressed();
    let lines = CAPTURE.take();
    let ours: Vec<_> = lines
        .iter()
        .filter(|l| l.text.contains("custom_limit"))
        .collect();
    assert_eq!(ours.len(), 1, "{lines:#?}");
    assert_eq!(ours[0].suppressed, 3);
    advance_ms(100);
    custom_limit().unwrap_err().handled();
    assert_eq!(
        CAPTURE.take().len(),
        1,
        "flushed count is not reported twice"
    );
}

fn once_site() -> errtrace::Result {
    Err(err!(once, EIO, "only once"))
}

#[test]
fn once_prints_once_ever() {
    let _g = setup();
    for _ in 0..3 {
        once_site().unwrap_err().handled();
        advance_ms(60_000);
    }
    assert_eq!(CAPTURE.take().len(), 1);
}

fn always_site(i: u32) -> errtrace::Result {
    Err(err!(always, EIO, "always {}", i))
}

#[test]
fn always_is_never_limited() {
    let _g = setup();
    for i in 0..50 {
        always_site(i).unwrap_err().handled();
    }
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 50);
    assert!(lines[49].text.starts_with("always 49: EIO"));
}

fn quiet_by_code() -> errtrace::Result {
    Err(err!(EAGAIN, "try again"))
}

#[test]
fn normal_codes_are_quiet_but_recorded_and_counted() {
    let _g = setup();
    for c in [EAGAIN, ENOMEM, EPROBE_DEFER] {
        assert_eq!(policy::default_for(c), Policy::Quiet);
    }
    let e = quiet_by_code().unwrap_err();
    assert!(CAPTURE.take().is_empty());
    assert!(e.is_logged(), "a quiet decision counts as reported");
    let seq = e.seq().unwrap();
    let ev = errtrace::recorder::read(seq).unwrap();
    assert_eq!(ev.code(), EAGAIN);
    let c = e.site().unwrap().counters();
    assert_eq!(c.suppressed, 1);
    // A boundary does not print it again either.
    assert_eq!(boundary("poll", Err::<(), _>(e)), Err(EAGAIN));
    let after = CAPTURE.take();
    assert!(after.is_empty(), "{after:#?}");
}

fn quiet_in_source() -> errtrace::Result {
    Err(err!(quiet, EIO, "expected here"))
}

#[test]
fn quiet_override_in_source() {
    let _g = setup();
    quiet_in_source().unwrap_err().handled();
    assert!(CAPTURE.take().is_empty());
}

fn deep(n: u32) -> errtrace::Result<u32> {
    if n == 0 {
        return Err(err!(EIO, "register read failed"));
    }
    deep(n - 1).log("while going up").trace()
}

#[test]
fn nobody_logs_twice_across_a_10_deep_chain() {
    let _g = setup();
    let r = deep(10);
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].text.starts_with("register read failed: EIO"));
    // The boundary sees it was reported: no second print.
    assert_eq!(boundary("probe", r), Err(EIO));
    assert!(CAPTURE.take().is_empty());
}

fn unlogged(n: u32) -> errtrace::Result<u32> {
    if n == 0 {
        return Err(err!(EIO));
    }
    unlogged(n - 1).trace()
}

#[test]
fn log_logs_an_unlogged_error_once_and_boundary_reports_unlogged() {
    let _g = setup();
    let e = unlogged(3).log("while probing").log("again").unwrap_err();
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].text.starts_with("while probing: EIO (-5) at "),
        "{}",
        lines[0].text
    );
    assert!(lines[0]
        .text
        .contains(", from crates/errtrace/tests/test_policy.rs:"));
    e.handled();

    let r = unlogged(3);
    assert_eq!(boundary("demo init", r), Err(EIO));
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].kind, RecordKind::Boundary);
    let text = &lines[0].text;
    assert!(
        text.starts_with("demo init: returning EIO (-5), not reported before:"),
        "{text}"
    );
    assert!(
        text.contains("origin: crates/errtrace/tests/test_policy.rs:"),
        "{text}"
    );
    assert_eq!(text.matches("via:").count(), 3, "{text}");
}

#[test]
fn boundary_errno_for_ffi() {
    let _g = setup();
    assert_eq!(errtrace::boundary_errno("ffi", Ok(())), 0);
    assert_eq!(errtrace::boundary_errno("ffi", Err(Error::new(EIO))), -5);
    assert_eq!(CAPTURE.take().len(), 1);
}

#[test]
fn log_with_formats_only_when_printed() {
    let _g = setup();
    use std::sync::atomic::AtomicU32;
    static CALLS: AtomicU32 = AtomicU32::new(0);
    let f = || -> errtrace::Result {
        Err(Error::new(EAGAIN)).log_with(|e, w| {
            CALLS.fetch_add(1, Ordering::SeqCst);
            write!(w, "custom {}", e.name())
        })
    };
    f().unwrap_err().handled();
    assert_eq!(CALLS.load(Ordering::SeqCst), 0, "quiet: never formatted");
    let g = || -> errtrace::Result {
        Err(Error::new(EIO)).log_with(|e, w| {
            CALLS.fetch_add(1, Ordering::SeqCst);
            write!(w, "custom {}", e.name())
        })
    };
    g().unwrap_err().handled();
    assert_eq!(CALLS.load(Ordering::SeqCst), 1);
    assert!(CAPTURE.take()[0].text.starts_with("custom EIO: EIO (-5)"));
}

#[test]
fn instead_of_expect() {
    let _g = setup();
    let f = || -> errtrace::Result<u8> {
        Err(Error::new(EIO)).not_expected("the id register always reads")
    };
    for _ in 0..3 {
        f().unwrap_err().handled();
    }
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1, "once per site");
    assert_eq!(lines[0].kind, RecordKind::Unexpected);
    assert!(lines[0]
        .text
        .starts_with("should not fail: the id register always reads: EIO (-5):"));
    assert!(lines[0].text.contains("origin: "));
    let v: errtrace::Result<u8> = Err(Error::new(EIO));
    assert_eq!(v.or_log("optional", 9), 9);
}

#[test]
fn default_class_configurable_at_start_up() {
    let _g = setup();
    let code = errtrace::code::ENOLINK;
    assert!(matches!(
        policy::default_for(code),
        Policy::RateLimited { .. }
    ));
    policy::set_code_policy(code, Policy::Quiet).unwrap();
    assert_eq!(policy::default_for(code), Policy::Quiet);
    let e = err!(ENOLINK, "link down");
    assert!(CAPTURE.take().is_empty());
    e.handled();
    policy::set_code_policy(
        code,
        Policy::RateLimited {
            burst: 0,
            interval_ms: 0,
        },
    )
    .unwrap();
}

/// Every errno has its own class cell; a code that is not one is refused with an error, not
/// ignored.
#[test]
fn only_errnos_have_a_default_policy() {
    let _g = setup();
    for c in errtrace::code::Code::all() {
        let before = policy::default_for(c);
        policy::set_code_policy(c, before).unwrap();
        assert_eq!(policy::default_for(c), before);
    }
    let not_errno = errtrace::code::Code::new(3000).unwrap();
    assert_eq!(
        policy::set_code_policy(not_errno, Policy::Quiet),
        Err(policy::NotAnErrno(not_errno))
    );
    assert!(matches!(
        policy::default_for(not_errno),
        Policy::RateLimited { .. }
    ));
}

/// A default rate limit errtrace could not honour is refused and leaves the default as it was
/// (before, a burst of 2,000,000,000 printed 1 of 100 messages at once, and an interval of
/// 3,000,000,000 ms let 1,100 messages through in 1,000 s where 10 were allowed). What it
/// accepts, it honours, up to the largest values: a burst of 8191 prints 8191 at once and no
/// more; an interval of 32,767 s lets nothing more through until it is over.
/// A site of its own: the largest limits leave its bucket far ahead of the clock.
fn range_site() -> errtrace::Result {
    Err(err!(ETIMEDOUT, "range"))
}

#[test]
fn default_rate_limit_range_is_honoured_or_refused() {
    let _g = setup();
    let before = policy::default_ratelimit();
    for (burst, interval) in [
        (2_000_000_000, 5000),
        (u32::MAX, 5000),
        (10, 3_000_000_000),
        (10, u32::MAX),
        (policy::MAX_RUNTIME_BURST + 1, 5000),
        (10, policy::MAX_RUNTIME_INTERVAL_MS + 1000),
        (10, 40_500),
    ] {
        let e = policy::set_default_ratelimit(burst, interval).unwrap_err();
        assert_eq!((e.burst, e.interval_ms), (burst, interval));
        assert!(e.to_string().contains("out of range"), "{e}");
        assert_eq!(policy::default_ratelimit(), before);
    }

    // The largest burst: that many at once, then nothing in the same instant.
    policy::set_default_ratelimit(policy::MAX_RUNTIME_BURST, 5000).unwrap();
    advance_ms(3_600_000);
    for _ in 0..policy::MAX_RUNTIME_BURST + 100 {
        range_site().unwrap_err().handled();
    }
    let created = CAPTURE.take();
    let printed = created
        .iter()
        .filter(|c| c.kind == RecordKind::Created)
        .count();
    assert_eq!(printed, policy::MAX_RUNTIME_BURST as usize);

    // The largest interval: 10 at once, then none for 1,000 s of messages, one a second.
    policy::set_default_ratelimit(10, policy::MAX_RUNTIME_INTERVAL_MS).unwrap();
    advance_ms(u64::from(policy::MAX_RUNTIME_INTERVAL_MS) * 2);
    for _ in 0..1000 {
        range_site().unwrap_err().handled();
        advance_ms(1000);
    }
    let printed = CAPTURE
        .take()
        .iter()
        .filter(|c| c.kind == RecordKind::Created)
        .count();
    assert_eq!(printed, 10);
    policy::set_default_ratelimit(before.0, before.1).unwrap();
    // Report the counts still held back here, not at a later test's boundary.
    errtrace::policy::flush_suppressed();
    CAPTURE.take();
}

fn poll_busy() -> errtrace::Result {
    Err(err!(EAGAIN, "chip busy"))
}

/// A retry loop: four quiet EAGAINs retried, the fifth returned.
fn reset_chip(give_up: bool) -> errtrace::Result {
    for _ in 0..4 {
        match poll_busy() {
            Ok(()) => return Ok(()),
            Err(e) => e.handled(),
        }
    }
    let r = poll_busy();
    if give_up {
        r.gave_up("chip still busy after 5 polls")
    } else {
        r
    }
}

/// A quiet code that is the operation's final result: without `.gave_up()` the boundary counts
/// it and prints nothing (it cannot tell a final EAGAIN from one its caller retries); with it,
/// the give-up prints once at error level, whatever the code's class, and the boundary does not
/// print it again. The retries stay quiet either way.
#[test]
fn a_quiet_code_given_up_on_is_said_once() {
    let _g = setup();
    advance_ms(60_000);
    assert_eq!(boundary("reset", reset_chip(false)), Err(EAGAIN));
    assert!(CAPTURE.take().is_empty());

    assert_eq!(boundary("reset", reset_chip(true)), Err(EAGAIN));
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert_eq!(lines[0].kind, RecordKind::Logged);
    assert_eq!(lines[0].level, errtrace::sink::Level::Error);
    assert!(
        lines[0]
            .text
            .starts_with("chip still busy after 5 polls: EAGAIN (-11) at "),
        "{}",
        lines[0].text
    );

    // Already printed: given up on again (by a caller's loop), it is not printed twice.
    let e = reset_chip(true).unwrap_err();
    CAPTURE.take();
    let e = Err::<(), _>(e).gave_up("again").unwrap_err();
    assert!(CAPTURE.take().is_empty());
    e.handled();
}
