//! Fault injection by the platform: a hook asked by point name (the Linux glue answers with the
//! kernel's `should_fail()` on a `fault_attr`), with or without the control language.

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use errtrace::code::ENODEV;
use errtrace::{fail_point, fault};

/// Whether the platform's fault injection says "fail" for `probe_dev`.
static ARMED: AtomicBool = AtomicBool::new(false);
/// How many times the hook was asked, and about which point last.
static ASKED: AtomicU32 = AtomicU32::new(0);
static ASKED_OTHER: AtomicU32 = AtomicU32::new(0);

fn hook(name: &'static str) -> bool {
    ASKED.fetch_add(1, Ordering::Relaxed);
    if name != "probe_dev" {
        ASKED_OTHER.fetch_add(1, Ordering::Relaxed);
        return false;
    }
    ARMED.load(Ordering::Relaxed)
}

fn probe_dev() -> errtrace::Result<u32> {
    fail_point!("probe_dev", ENODEV);
    Ok(7)
}

fn map_regs() -> errtrace::Result<u32> {
    fail_point!("map_regs");
    Ok(8)
}

#[test]
fn the_platform_hook_arms_points_by_name_with_their_own_code() {
    // Reached before the hook: disarmed, the hook is never asked.
    assert_eq!(probe_dev().ok(), Some(7));
    assert_eq!(ASKED.load(Ordering::Relaxed), 0);

    fault::set_platform_hook(hook).unwrap();
    assert!(
        fault::set_platform_hook(hook).is_err(),
        "the first hook stays"
    );

    // Installed but saying no: asked at each point reached (points reached earlier included).
    assert_eq!(probe_dev().ok(), Some(7));
    assert_eq!(map_regs().ok(), Some(8));
    assert_eq!(ASKED.load(Ordering::Relaxed), 2);
    assert_eq!(ASKED_OTHER.load(Ordering::Relaxed), 1);

    // Saying yes for one name: that point fails with its own code, its origin at the point.
    ARMED.store(true, Ordering::Relaxed);
    let e = probe_dev().unwrap_err();
    assert_eq!(e.code(), ENODEV);
    assert!(e.origin().file.ends_with("test_fault_hook.rs"));
    assert_eq!(e.origin().line, 24);
    e.handled();
    // The other point is not named: it does not fail.
    assert_eq!(map_regs().ok(), Some(8));

    ARMED.store(false, Ordering::Relaxed);
    assert_eq!(probe_dev().ok(), Some(7));

    // `fault::reset()` forgets queries' configurations; the platform's hook stays in force.
    fault::reset();
    ARMED.store(true, Ordering::Relaxed);
    let e = probe_dev().unwrap_err();
    assert_eq!(e.code(), ENODEV);
    e.handled();
    ARMED.store(false, Ordering::Relaxed);

    // With the control language, a `fail` query is decided first and its `code=` is used.
    #[cfg(feature = "control")]
    {
        errtrace::control::apply("fail name=map_regs times=1 code=EBUSY").unwrap();
        let e = map_regs().unwrap_err();
        assert_eq!(e.code(), errtrace::code::EBUSY);
        e.handled();
        // Its one failure used, the hook is asked again (and says no for map_regs).
        assert_eq!(map_regs().ok(), Some(8));
    }
}
