//! Fault injection: kernel semantics (probability, interval, times), injected errors are ordinary
//! errors with their origin at the fail point, and the exercise helper.

use errtrace::code::EIO;
use errtrace::{control, fail_point, fault, ResultExt};
use std::sync::Mutex;

/// Fail points are process-wide: these tests run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    let g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    fault::reset();
    g
}

fn alloc_buf() -> errtrace::Result<u32> {
    fail_point!("alloc_buf", ENOMEM);
    Ok(4096)
}

fn count_failures(n: usize) -> usize {
    (0..n)
        .filter(|_| match alloc_buf() {
            Ok(_) => false,
            Err(e) => {
                e.handled();
                true
            }
        })
        .count()
}

#[test]
fn disarmed_points_pass() {
    let _g = lock();
    assert_eq!(count_failures(100), 0);
}

#[test]
fn times_counts_down() {
    let _g = lock();
    control::apply("fail name=alloc_buf probability=100 times=3").unwrap();
    assert_eq!(count_failures(10), 3);
    control::apply("fail name=alloc_buf times=-1").unwrap();
    assert_eq!(count_failures(10), 10);
    control::apply("fail name=alloc_buf off").unwrap();
    assert_eq!(count_failures(10), 0);
}

#[test]
fn interval_fails_every_nth_call() {
    let _g = lock();
    control::apply("fail name=alloc_buf interval=4 times=-1").unwrap();
    let pattern: Vec<bool> = (0..8)
        .map(|_| alloc_buf().map_err(|e| e.handled()).is_err())
        .collect();
    assert_eq!(
        pattern,
        [false, false, false, true, false, false, false, true]
    );
}

#[test]
fn probability_is_deterministic_under_a_seed() {
    let _g = lock();
    let run = || {
        fault::set_seed(42);
        control::apply("fail name=alloc_buf probability=30 times=-1").unwrap();
        count_failures(1000)
    };
    let a = run();
    let b = run();
    assert_eq!(a, b);
    assert!((200..400).contains(&a), "30% of 1000, got {a}");
    control::apply("fail name=alloc_buf probability=0 times=-1").unwrap();
    assert_eq!(count_failures(100), 0);
}

#[test]
fn injected_error_is_ordinary_with_origin_at_the_fail_point() {
    let _g = lock();
    control::apply("fail name=alloc_* code=EIO").unwrap();
    let e = alloc_buf().context("allocating").unwrap_err();
    assert_eq!(e.code(), EIO, "the query's code wins");
    let line = include_str!("test_fault.rs")
        .lines()
        .position(|l| l.contains("fail_point!(\"alloc_buf\", ENOMEM);"))
        .unwrap() as u32
        + 1;
    assert_eq!(e.origin().line, line);
    assert_eq!(e.origin().function, Some("test_fault::alloc_buf"));
    assert_eq!(e.event().unwrap().total_hops(), 1);
    e.handled();
}

/// `fault::exercise` needs `std`.
#[cfg(feature = "std")]
mod exercise {
    use super::*;
    use errtrace::code::{ENODEV, ENOMEM};

    fn open_dev() -> errtrace::Result<u32> {
        fail_point!("open_dev", ENODEV);
        Ok(1)
    }
    fn map_regs() -> errtrace::Result<u32> {
        fail_point!("map_regs", ENOMEM);
        Ok(2)
    }
    fn probe_ok() -> errtrace::Result<u32> {
        let a = open_dev()?;
        let b = map_regs().log("mapping registers")?;
        Ok(a + b)
    }
    fn probe_forgetful() -> errtrace::Result<u32> {
        let a = open_dev()?;
        // Forgets the error of map_regs: the helper catches it.
        let b = map_regs().unwrap_or(0);
        Ok(a + b)
    }

    #[test]
    fn exercise_forces_every_point_in_turn() {
        let _g = lock();
        let outcomes = fault::exercise(|| errtrace::boundary("probe", probe_ok()));
        let names: Vec<_> = outcomes.iter().map(|o| o.point).collect();
        assert_eq!(names, ["map_regs", "open_dev"]);
        for o in &outcomes {
            assert!(o.injected);
            assert_eq!(o.dropped_unhandled, 0, "{}", o.point);
        }
        assert_eq!(outcomes[0].result, Err(ENOMEM));
        assert_eq!(outcomes[1].result, Err(ENODEV));

        let outcomes = fault::exercise(|| errtrace::boundary("probe", probe_forgetful()));
        let bad: Vec<_> = outcomes
            .iter()
            .filter(|o| o.dropped_unhandled > 0)
            .map(|o| o.point)
            .collect();
        assert_eq!(bad, ["map_regs"]);
    }
}

#[test]
fn the_table_of_points() {
    let _g = lock();
    let _ = alloc_buf();
    let mut seen = Vec::new();
    fault::list(|name, _| seen.push(name));
    assert!(seen.contains(&"alloc_buf"));
}
