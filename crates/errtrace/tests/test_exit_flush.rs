//! A storm's count of suppressed messages is announced when the process exits, and at a
//! boundary once its window is over (before, it was printed only if something
//! called `flush_suppressed()` or the site logged again, so a program that exited first lost it).
#![cfg(feature = "std")]

use errtrace::code::EIO;
use std::process::Command;

fn storm() {
    for _ in 0..10 {
        errtrace::err!(ratelimit(1, 3_600_000), EIO, "storm").handled();
    }
}

/// Run as a child process: a storm, then a normal exit without any flush.
#[test]
fn child_storm_then_exit() {
    if std::env::var_os("ERRTRACE_TEST_CHILD").is_none() {
        return;
    }
    errtrace::init();
    storm();
}

#[test]
fn suppressed_count_is_announced_at_exit() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_storm_then_exit",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("ERRTRACE_TEST_CHILD", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("storm: EIO (-5) at ").count(), 1, "{stderr}");
    assert!(stderr.contains(": 9 messages suppressed"), "{stderr}");
}
