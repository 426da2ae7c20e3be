//! `errtrace::expecting`: the caller says which codes it expects; their creators' messages are
//! held back in that scope only (counted, recorded, printed under `+p`), and an expected error
//! that is then dropped or leaves through a boundary is still reported in full.

use errtrace::code::{EAGAIN, EINTR, EIO, EREMOTEIO};
use errtrace::sink::RecordKind;
#[cfg(feature = "control")]
use errtrace::ResultExt;
use errtrace::{boundary, err, expecting};
mod common;
use common::Capture;

static CAPTURE: Capture = Capture::new();

fn setup() {
    let _ = errtrace::sink::set_sink(&CAPTURE);
    // Without `std` errtrace knows one context for the whole program (bare metal); the tests
    // run in threads, so they say which thread is which, as the kernel glue says which task.
    #[cfg(not(feature = "std"))]
    let _ = errtrace::platform::set_context(thread_context);
    CAPTURE.take();
}

#[cfg(not(feature = "std"))]
fn thread_context() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    std::thread_local! {
        static ID: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    ID.with(|id| *id)
}

fn read_byte(addr: u8) -> errtrace::Result<u8> {
    if addr != 0x48 {
        return Err(err!(EREMOTEIO, "i2c1: no ACK from {:#x}", addr));
    }
    Ok(0x42)
}

fn is_present(addr: u8) -> errtrace::Result<bool> {
    match expecting(EREMOTEIO, || read_byte(addr)) {
        Ok(_) => Ok(true),
        Err(e) => {
            e.recover(EREMOTEIO)?;
            Ok(false)
        }
    }
}

/// The `suppressed` count of the site whose function is `func` (0 before it is listed: without
/// the `registry` feature a site is listed once it fired).
fn suppressed(func: &str) -> u32 {
    errtrace::control::register_all();
    errtrace::control::sites()
        .find(|s| s.origin().function_name() == Some(func))
        .map_or(0, |s| s.counters().suppressed)
}

#[test]
fn a_bus_scan_prints_nothing_for_absent_addresses() {
    setup();
    let found: Vec<u8> = (0x40..0x50)
        .filter(|a| is_present(*a) == Ok(true))
        .collect();
    assert_eq!(found, [0x48]);
    let records = CAPTURE.take();
    assert!(records.is_empty(), "{records:#?}");
    // The same failure where nobody expects it prints.
    let e = read_byte(0x49).unwrap_err();
    assert!(e.is_logged());
    e.handled();
    let records = CAPTURE.take();
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0].kind, RecordKind::Created);
    assert!(records[0]
        .text
        .starts_with("i2c1: no ACK from 0x49: EREMOTEIO (-121) at "));
}

fn scan_site() -> errtrace::Result {
    Err(err!(EREMOTEIO, "counted site"))
}

#[test]
fn held_back_messages_are_counted_and_recorded() {
    setup();
    let before = suppressed("scan_site");
    let e = expecting(EREMOTEIO, scan_site).unwrap_err();
    // Not logged: whoever ends it decides.
    assert!(!e.is_logged());
    // In the flight recorder, with its origin.
    let ev = e.event().unwrap();
    assert_eq!(ev.code(), EREMOTEIO);
    let origin = ev.origin().unwrap();
    assert!(origin.file.ends_with("test_expecting.rs"));
    assert_eq!(origin.function_name(), Some("scan_site"));
    e.handled();
    let after = suppressed("scan_site");
    assert_eq!(after, before + 1);
    assert!(CAPTURE.take().is_empty());
}

fn eagain_or_eintr(c: bool) -> errtrace::Result {
    if c {
        Err(err!(EAGAIN, "try again"))
    } else {
        Err(err!(always, EINTR, "interrupted"))
    }
}

fn policy_always_eagain() -> errtrace::Result {
    // EAGAIN is quiet by default; an `always` site prints it, unless it is expected.
    Err(err!(always, EAGAIN, "always printed"))
}

#[test]
fn scopes_nest_and_restore() {
    setup();
    expecting(EINTR, || {
        expecting([EAGAIN, EIO], || {
            policy_always_eagain().unwrap_err().handled();
            eagain_or_eintr(false).unwrap_err().handled();
        });
        assert!(CAPTURE.take().is_empty());
        // Back to the outer scope: EINTR still expected, EAGAIN no longer.
        eagain_or_eintr(false).unwrap_err().handled();
        assert!(CAPTURE.take().is_empty());
        policy_always_eagain().unwrap_err().handled();
        let r = CAPTURE.take();
        assert_eq!(r.len(), 1, "{r:#?}");
        assert!(r[0].text.starts_with("always printed: EAGAIN"));
    });
    eagain_or_eintr(false).unwrap_err().handled();
    let r = CAPTURE.take();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert!(r[0].text.starts_with("interrupted: EINTR"));
}

fn dropped_site() -> errtrace::Result {
    Err(err!(EIO, "made and dropped"))
}

#[test]
fn an_expected_error_dropped_or_leaving_is_reported_in_full() {
    setup();
    let r = expecting(EIO, dropped_site);
    drop(r);
    let w = CAPTURE.take();
    assert_eq!(w.len(), 1, "{w:#?}");
    assert_eq!(w[0].kind, RecordKind::Unhandled);
    assert!(
        w[0].text.starts_with("EIO (-5) dropped unhandled"),
        "{}",
        w[0].text
    );
    assert!(w[0]
        .text
        .contains("origin: crates/errtrace/tests/test_expecting.rs:"));

    let code = boundary("expecting test", expecting(EIO, dropped_site));
    assert_eq!(code, Err(EIO));
    let b = CAPTURE.take();
    assert_eq!(b.len(), 1, "{b:#?}");
    assert_eq!(b[0].kind, RecordKind::Boundary);
    assert!(b[0]
        .text
        .starts_with("expecting test: returning EIO (-5), not reported before:"));
}

#[cfg(feature = "control")]
fn printed_under_p() -> errtrace::Result {
    Err(err!(EIO, "printed under +p"))
}

#[cfg(feature = "control")]
#[test]
fn plus_p_still_prints_and_log_still_logs() {
    setup();
    errtrace::control::apply("func printed_under_p +p").unwrap();
    let e = expecting(EIO, printed_under_p).unwrap_err();
    assert!(e.is_logged());
    e.handled();
    let r = CAPTURE.take();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert!(r[0].text.starts_with("printed under +p: EIO"));
    // The caller's own `.log()` inside the scope is not the creator's message: it prints.
    let e = expecting(EIO, || dropped_site().log("the caller logs")).unwrap_err();
    e.handled();
    let r = CAPTURE.take();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert!(
        r[0].text.starts_with("the caller logs: EIO"),
        "{}",
        r[0].text
    );
}

#[test]
fn other_threads_are_not_affected() {
    setup();
    expecting(EREMOTEIO, || {
        let other = std::thread::spawn(|| {
            setup();
            read_byte(0x10).unwrap_err().handled();
            CAPTURE.take()
        });
        let r = other.join().unwrap();
        assert_eq!(r.len(), 1, "{r:#?}");
        assert!(r[0].text.starts_with("i2c1: no ACK from 0x10"));
        read_byte(0x11).unwrap_err().handled();
        assert!(CAPTURE.take().is_empty());
    });
}

#[test]
fn a_panic_inside_ends_the_scope() {
    setup();
    let caught = std::panic::catch_unwind(|| {
        expecting(EREMOTEIO, || -> () { panic!("inside the scope") });
    });
    assert!(caught.is_err());
    read_byte(0x12).unwrap_err().handled();
    let r = CAPTURE.take();
    assert_eq!(r.len(), 1, "{r:#?}");
}

// ---- async: the scope on every poll ----

use std::future::Future as _;

/// A future that is pending once before it makes its error, so the error is made on the
/// second poll: a scope held only while the future was made would miss it.
struct SecondPoll(bool);

impl std::future::Future for SecondPoll {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            std::task::Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }
}

async fn read_byte_later(addr: u8) -> errtrace::Result<u8> {
    SecondPoll(false).await;
    read_byte(addr)
}

/// Polls `f` to completion on this thread (no executor needed for these futures).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// `expecting_async` holds the scope on every poll: the error made on the second poll is held
/// back. Between polls the scope is not held: an error made then, on the same thread, prints.
#[test]
fn expecting_async_holds_the_scope_on_every_poll() {
    setup();
    let e = block_on(errtrace::expecting_async(EREMOTEIO, read_byte_later(0x40))).unwrap_err();
    e.recover(EREMOTEIO).unwrap();
    assert!(
        CAPTURE.take().is_empty(),
        "held back inside the async scope"
    );

    let mut f = std::pin::pin!(errtrace::expecting_async(EREMOTEIO, read_byte_later(0x41)));
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(f.as_mut().poll(&mut cx).is_pending());
    // Between polls, outside the scope: printed.
    read_byte(0x42).unwrap_err().handled();
    assert_eq!(CAPTURE.take().len(), 1);
    let std::task::Poll::Ready(r) = f.as_mut().poll(&mut cx) else {
        panic!("ready on the second poll")
    };
    r.unwrap_err().recover(EREMOTEIO).unwrap();
    assert!(CAPTURE.take().is_empty());

    // Without it, the same future's error prints.
    block_on(read_byte_later(0x43)).unwrap_err().handled();
    assert_eq!(CAPTURE.take().len(), 1);
}
