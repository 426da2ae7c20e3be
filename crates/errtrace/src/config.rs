//! Build-time capacities.
//!
//! Every table errtrace keeps is a fixed-size static, so nothing allocates. The sizes are read at
//! compile time from environment variables, which works under Cargo and under a plain `rustc`
//! invocation such as the Linux kernel's build (set them in the environment of the build):
//!
//! | variable | default | meaning |
//! |---|---|---|
//! | `ERRTRACE_SITES` | 4096 | entries in the [site table](crate::site) (max 65535) |
//! | `ERRTRACE_RECORDER_SLOTS` | 256 | events in the [flight recorder](crate::recorder) (a power of two, max 32768) |
//! | `ERRTRACE_HOPS` | 8 | hops kept per error (1..=64); more are counted as "+N more" |
//!
//! A value that is not a number, or is out of range, is a compile-time error.
//!
//! # Examples
//!
//! ```
//! assert!(errtrace::config::SITES >= 4096 || option_env!("ERRTRACE_SITES").is_some());
//! assert!(errtrace::config::RECORDER_SLOTS.is_power_of_two());
//! ```

/// Entries in the site table.
pub const SITES: usize = parse(option_env!("ERRTRACE_SITES"), 4096);
/// Events kept by the flight recorder.
pub const RECORDER_SLOTS: usize = parse(option_env!("ERRTRACE_RECORDER_SLOTS"), 256);
/// Hops kept per error.
pub const HOPS: usize = parse(option_env!("ERRTRACE_HOPS"), 8);

const _: () = assert!(
    SITES >= 1 && SITES <= 65535,
    "ERRTRACE_SITES must be in 1..=65535"
);
const _: () = assert!(
    RECORDER_SLOTS.is_power_of_two() && RECORDER_SLOTS <= 32768,
    "ERRTRACE_RECORDER_SLOTS must be a power of two, at most 32768"
);
const _: () = assert!(HOPS >= 1 && HOPS <= 64, "ERRTRACE_HOPS must be in 1..=64");

const fn parse(value: Option<&str>, default: usize) -> usize {
    let mut bytes = match value {
        Some(v) => v.as_bytes(),
        None => return default,
    };
    // An empty or non-numeric value yields 0, which the range checks above reject.
    if bytes.is_empty() {
        return 0;
    }
    let mut n: usize = 0;
    while let [b, rest @ ..] = bytes {
        if !b.is_ascii_digit() || n > 1_000_000 {
            return 0;
        }
        n = n * 10 + (*b - b'0') as usize;
        bytes = rest;
    }
    n
}
