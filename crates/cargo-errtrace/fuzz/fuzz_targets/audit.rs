//! `cargo fuzz run audit`: the audit (`errtrace_audit::audit_sources`) on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::run_bytes(data);
});
