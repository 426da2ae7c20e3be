//! Fault injection: kernel semantics (probability, interval, times), injected errors are ordinary
//! errors with their origin at the fail point, and the exercise helper.
#![cfg(feature = "control")]

use errtrace::code::{EIO, ENOMEM};
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
    let e = alloc_buf().during("allocating").unwrap_err();
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

// ---- fail points and configurations that size themselves ----

/// Forty fail points (only `exercise`, a std helper, uses them all).
#[cfg_attr(not(feature = "std"), allow(dead_code))]
mod many {
    use super::*;

    pub(super) fn fp_many_0() -> errtrace::Result {
        fail_point!("many_0");
        Ok(())
    }
    fn fp_many_1() -> errtrace::Result {
        fail_point!("many_1");
        Ok(())
    }
    fn fp_many_2() -> errtrace::Result {
        fail_point!("many_2");
        Ok(())
    }
    fn fp_many_3() -> errtrace::Result {
        fail_point!("many_3");
        Ok(())
    }
    fn fp_many_4() -> errtrace::Result {
        fail_point!("many_4");
        Ok(())
    }
    fn fp_many_5() -> errtrace::Result {
        fail_point!("many_5");
        Ok(())
    }
    fn fp_many_6() -> errtrace::Result {
        fail_point!("many_6");
        Ok(())
    }
    fn fp_many_7() -> errtrace::Result {
        fail_point!("many_7");
        Ok(())
    }
    fn fp_many_8() -> errtrace::Result {
        fail_point!("many_8");
        Ok(())
    }
    fn fp_many_9() -> errtrace::Result {
        fail_point!("many_9");
        Ok(())
    }
    fn fp_many_10() -> errtrace::Result {
        fail_point!("many_10");
        Ok(())
    }
    fn fp_many_11() -> errtrace::Result {
        fail_point!("many_11");
        Ok(())
    }
    fn fp_many_12() -> errtrace::Result {
        fail_point!("many_12");
        Ok(())
    }
    fn fp_many_13() -> errtrace::Result {
        fail_point!("many_13");
        Ok(())
    }
    fn fp_many_14() -> errtrace::Result {
        fail_point!("many_14");
        Ok(())
    }
    fn fp_many_15() -> errtrace::Result {
        fail_point!("many_15");
        Ok(())
    }
    fn fp_many_16() -> errtrace::Result {
        fail_point!("many_16");
        Ok(())
    }
    fn fp_many_17() -> errtrace::Result {
        fail_point!("many_17");
        Ok(())
    }
    fn fp_many_18() -> errtrace::Result {
        fail_point!("many_18");
        Ok(())
    }
    fn fp_many_19() -> errtrace::Result {
        fail_point!("many_19");
        Ok(())
    }
    fn fp_many_20() -> errtrace::Result {
        fail_point!("many_20");
        Ok(())
    }
    fn fp_many_21() -> errtrace::Result {
        fail_point!("many_21");
        Ok(())
    }
    fn fp_many_22() -> errtrace::Result {
        fail_point!("many_22");
        Ok(())
    }
    fn fp_many_23() -> errtrace::Result {
        fail_point!("many_23");
        Ok(())
    }
    fn fp_many_24() -> errtrace::Result {
        fail_point!("many_24");
        Ok(())
    }
    fn fp_many_25() -> errtrace::Result {
        fail_point!("many_25");
        Ok(())
    }
    fn fp_many_26() -> errtrace::Result {
        fail_point!("many_26");
        Ok(())
    }
    fn fp_many_27() -> errtrace::Result {
        fail_point!("many_27");
        Ok(())
    }
    fn fp_many_28() -> errtrace::Result {
        fail_point!("many_28");
        Ok(())
    }
    fn fp_many_29() -> errtrace::Result {
        fail_point!("many_29");
        Ok(())
    }
    fn fp_many_30() -> errtrace::Result {
        fail_point!("many_30");
        Ok(())
    }
    fn fp_many_31() -> errtrace::Result {
        fail_point!("many_31");
        Ok(())
    }
    fn fp_many_32() -> errtrace::Result {
        fail_point!("many_32");
        Ok(())
    }
    fn fp_many_33() -> errtrace::Result {
        fail_point!("many_33");
        Ok(())
    }
    fn fp_many_34() -> errtrace::Result {
        fail_point!("many_34");
        Ok(())
    }
    fn fp_many_35() -> errtrace::Result {
        fail_point!("many_35");
        Ok(())
    }
    fn fp_many_36() -> errtrace::Result {
        fail_point!("many_36");
        Ok(())
    }
    fn fp_many_37() -> errtrace::Result {
        fail_point!("many_37");
        Ok(())
    }
    fn fp_many_38() -> errtrace::Result {
        fail_point!("many_38");
        Ok(())
    }
    fn fp_many_39() -> errtrace::Result {
        fail_point!("many_39");
        Ok(())
    }

    pub(super) const MANY: [fn() -> errtrace::Result; 40] = [
        fp_many_0, fp_many_1, fp_many_2, fp_many_3, fp_many_4, fp_many_5, fp_many_6, fp_many_7,
        fp_many_8, fp_many_9, fp_many_10, fp_many_11, fp_many_12, fp_many_13, fp_many_14,
        fp_many_15, fp_many_16, fp_many_17, fp_many_18, fp_many_19, fp_many_20, fp_many_21,
        fp_many_22, fp_many_23, fp_many_24, fp_many_25, fp_many_26, fp_many_27, fp_many_28,
        fp_many_29, fp_many_30, fp_many_31, fp_many_32, fp_many_33, fp_many_34, fp_many_35,
        fp_many_36, fp_many_37, fp_many_38, fp_many_39,
    ];
}
use many::fp_many_0;
#[cfg(feature = "std")]
use many::MANY;

#[cfg(feature = "std")]
/// `exercise` over 40 fail points reports 40 outcomes (before: the 33rd name found the table of
/// 32 configurations full, so 8 points were silently left out).
#[test]
fn exercise_covers_more_points_than_configurations() {
    let _g = lock();
    let outcomes = fault::exercise(|| MANY.iter().map(|f| f()).filter(|r| r.is_err()).count());
    let many = outcomes
        .iter()
        .filter(|o| o.point.starts_with("many_"))
        .count();
    assert_eq!(many, 40);
    assert!(outcomes.iter().all(|o| o.injected));
}

/// Names that come and go never fill the table: 'off' frees a name's slot (before: after 32
/// distinct names none could ever be configured).
#[test]
fn configurations_come_and_go() {
    let _g = lock();
    for i in 0..100 {
        control::apply(&format!("fail name=come_and_go_{i} times=1")).unwrap();
        control::apply(&format!("fail name=come_and_go_{i} off")).unwrap();
    }
}

/// An input with more new names than free slots is rejected whole: nothing is armed (before:
/// the first 32 were armed and an error returned).
#[test]
fn too_many_fail_names_change_nothing() {
    let _g = lock();
    fault::reset();
    let input: String = std::iter::once("fail name=many_0".to_string())
        .chain((1..=32).map(|i| format!("fail name=not_a_point_{i}")))
        .collect::<Vec<_>>()
        .join("; ");
    let e = control::apply(&input).unwrap_err();
    assert!(e.to_string().contains("room in the fault table"), "{e}");
    assert!(fp_many_0().is_ok(), "nothing was armed");
    fault::reset();
}
