//! Model checking of the lock-free parts with loom: run with
//! `RUSTFLAGS="--cfg loom" cargo test -p errtrace --test loom --release`.
#![cfg(loom)]

use core::panic::Location;
use errtrace::code::{EIO, ENOMEM};
use errtrace::policy::RateLimiter;
use errtrace::recorder::{NewEvent, Recorder};
use errtrace::site::SiteTable;
use loom::sync::Arc;
use loom::thread;

#[track_caller]
fn here() -> &'static Location<'static> {
    Location::caller()
}

fn event(code: errtrace::code::Code) -> NewEvent {
    NewEvent {
        code,
        site: 1,
        location: None,
        static_site: None,
        cpu: 0,
    }
}

/// One error records and appends a hop while another thread makes its own and reads the whole
/// ring: a reader never sees one error's hop under another error's code, and each owner always
/// reads back its own event intact.
#[test]
fn recorder_concurrent_claim_hop_read() {
    loom::model(|| {
        let rec: Arc<Recorder<2, 1>> = Arc::new(Recorder::new());
        let (la, lb) = (here(), here());
        let writer = {
            let rec = rec.clone();
            thread::spawn(move || {
                if let Some(seq) = rec.claim(event(EIO)) {
                    rec.hop(seq, la, None);
                    let ev = rec.read(seq).expect("own live event is readable");
                    assert_eq!(ev.code(), EIO);
                    assert_eq!(ev.hops().count(), 1);
                }
            })
        };
        if let Some(seq) = rec.claim(event(ENOMEM)) {
            rec.hop(seq, lb, None);
        }
        rec.for_each(|ev| {
            let want = if ev.code() == EIO { la } else { lb };
            for h in ev.hops() {
                assert!(core::ptr::eq(h.location, want), "hop of another error");
            }
            assert_eq!(
                ev.hops().count() as u32,
                ev.total_hops(),
                "a counted hop is missing"
            );
        });
        writer.join().unwrap();
    });
}

/// A one-slot ring: a live error's slot is never taken; a released one is reused, and the old
/// sequence number then reads as overwritten, never as the new event.
#[test]
fn recorder_overwrite_and_pinning() {
    loom::model(|| {
        let rec: Arc<Recorder<1, 2>> = Arc::new(Recorder::new());
        let la = here();
        let first = rec.claim(event(EIO)).expect("empty ring");
        rec.hop(first, la, Some("first"));
        let rec2 = rec.clone();
        let t = thread::spawn(move || rec2.claim(event(ENOMEM)));
        rec.release(first);
        let second = t.join().unwrap();
        match second {
            Some(seq) => {
                // The slot was reused after release: the old event must not show the new one.
                match rec.read(first) {
                    Err(errtrace::recorder::Missing::Overwritten { .. }) => {}
                    Ok(ev) => panic!("old seq read as {:?}", ev.code()),
                    Err(e) => panic!("{e:?}"),
                }
                let ev = rec.read(seq).unwrap();
                assert_eq!(ev.code(), ENOMEM);
                assert_eq!(ev.hops().count(), 0, "no stale hops");
            }
            None => {
                // The claim ran while `first` was live: the event is intact.
                let ev = rec.read(first).unwrap();
                assert_eq!(ev.code(), EIO);
                assert_eq!(ev.hops().next().unwrap().message, Some("first"));
            }
        }
    });
}

/// Concurrent interning: each thread gets an entry whose origin is its own location; one
/// location interned twice may get two entries (documented), never a wrong one.
#[test]
fn site_table_concurrent_intern() {
    loom::model(|| {
        let table: Arc<SiteTable<4>> = Arc::new(SiteTable::new());
        let (la, lb) = (here(), here());
        let t1 = {
            let t = table.clone();
            thread::spawn(move || t.intern_location(la))
        };
        let t2 = {
            let t = table.clone();
            thread::spawn(move || t.intern_location(lb))
        };
        let again = table.intern_location(la);
        let (i1, i2) = (t1.join().unwrap(), t2.join().unwrap());
        assert!(i1 != 0 && i2 != 0 && again != 0);
        assert_ne!(i1, i2);
        assert_eq!(table.origin(i1).unwrap().line, la.line());
        assert_eq!(table.origin(again).unwrap().line, la.line());
        assert_eq!(table.origin(i2).unwrap().line, lb.line());
        assert_eq!(table.intern_location(la), table.intern_location(la));
    });
}

/// The rate limiter under contention: in one window exactly `burst` messages print and the
/// rest are counted, whatever the interleaving.
#[test]
fn ratelimit_burst_is_exact_under_contention() {
    loom::model(|| {
        let rl = Arc::new(RateLimiter::new());
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let rl = rl.clone();
                thread::spawn(move || rl.check(1, 5000, Some(100)).emit)
            })
            .collect();
        let mine = rl.check(1, 5000, Some(100)).emit;
        let emitted = handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|e| *e)
            .count()
            + usize::from(mine);
        assert_eq!(emitted, 1);
        assert_eq!(rl.missed(), 2);
    });
}

/// A window closing while another thread logs: every suppressed message is either reported in
/// a closed window's count or still pending, never lost or counted twice.
#[test]
fn ratelimit_window_close_accounts_for_every_message() {
    loom::model(|| {
        let rl = Arc::new(RateLimiter::new());
        assert!(rl.check(1, 10, Some(1)).emit);
        assert!(!rl.check(1, 10, Some(2)).emit); // one pending
        let rl2 = rl.clone();
        let t = thread::spawn(move || rl2.check(1, 10, Some(5)));
        let late = rl.check(1, 10, Some(20));
        let early = t.join().unwrap();
        let reported = late.closed_missed + early.closed_missed;
        let suppressed_now = u32::from(!late.emit) + u32::from(!early.emit);
        assert_eq!(reported + rl.missed(), 1 + suppressed_now);
        // The thread that closes the window reports every message pending then (1, or 2 when
        // the other thread was suppressed first).
        assert!(late.closed_missed >= 1 || early.closed_missed >= 1);
    });
}

/// Control changes (`-p`, `+p`, a policy word) made while another thread's errors fire: every
/// decision is counted once, as printed or held back, and the flags never end up both on and off.
#[test]
fn control_changes_while_errors_fire() {
    use errtrace::policy::{ControlledSite, Policy};
    loom::model(|| {
        let site = Arc::new(ControlledSite::new());
        let firing = {
            let site = site.clone();
            thread::spawn(move || {
                let a = site.decide(EIO, 10);
                let b = site.decide(EIO, 10);
                usize::from(a) + usize::from(b)
            })
        };
        site.set_print(false);
        site.set_policy(Policy::Always);
        site.set_print(true);
        let printed = firing.join().unwrap();
        let (logged, suppressed) = site.counters();
        assert_eq!(logged as usize, printed);
        assert_eq!(logged + suppressed, 2);
        let f = site.flags();
        assert!(f & 1 != 0 && f & 2 == 0, "+p was applied last: {f:#x}");
        // After the changes have settled: always prints.
        assert!(site.decide(EIO, 10));
    });
}
