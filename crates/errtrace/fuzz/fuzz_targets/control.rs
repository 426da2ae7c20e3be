//! `cargo fuzz run control`: errtrace's control language (`control::apply`, `query::parse`) on
//! arbitrary bytes. Valid UTF-8 goes in as is; anything else through `String::from_utf8_lossy`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    common::run_bytes(data);
});
