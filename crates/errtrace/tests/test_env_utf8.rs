//! An `ERRTRACE` that is not UTF-8 is reported, not ignored (before,
//! `std::env::var` failed and the variable was skipped without a word). Its own test binary:
//! the variable is process-wide.
#![cfg(all(feature = "std", unix))]

use std::os::unix::ffi::OsStringExt;

#[test]
fn non_utf8_errtrace_is_reported() {
    // SAFETY (edition 2021: safe): the only test of this binary, before its first error.
    std::env::set_var(
        "ERRTRACE",
        std::ffi::OsString::from_vec(vec![b'f', 0xff, b'x']),
    );
    let problem = errtrace::control::init_from_env().expect("a problem is reported");
    assert!(problem.contains("ERRTRACE is not valid UTF-8"), "{problem}");
}
