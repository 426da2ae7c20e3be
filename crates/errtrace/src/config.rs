//! Build-time capacities.
//!
//! errtrace's storage is fixed-size statics, zero-initialised (in `.bss`), so nothing allocates.
//! Static sites (`err!`, `fail_point!`) carry their own state and need no capacity. The sizes are read at
//! compile time from environment variables, which works under Cargo and under a plain `rustc`
//! invocation such as the Linux kernel's build (set them in the environment of the build):
//!
//! | variable | default | `embedded` | meaning |
//! |---|---|---|---|
//! | `ERRTRACE_LOCATION_SITES` | 256 | 8 | entries in the pool of location sites (`Error::new`, `?` on foreign errors, `.log()`, boundaries); 1..=65535; more locations share one site (their errors keep their exact origin) |
//! | `ERRTRACE_RECORDER_SLOTS` | 256 | 16 | events in the [flight recorder](crate::recorder) (a power of two, at least the shard count, max 32768) |
//! | `ERRTRACE_COUNTED_SITES` | 256 | 1 | sites (the first to fire) whose counts of errors made and travelled are kept per shard, so CPUs do not share a line; later sites count in one shared atomic (1..=65535; 1 keeps none per shard, all a single core needs) |
//! | `ERRTRACE_RECORDER_SHARDS` | 4 | 1 | shards of the recorder and the per-site counters: with `std` each thread owns one of shards 1.. while one is free (others share shard 0), without it the shard the platform's shard hooks name (the Linux glue: 1 + the CPU in task context, 0 in interrupts), else the shard of the CPU id modulo the count (a power of two, 1..=64) |
//! | `ERRTRACE_HOPS` | 8 | 8 | hops kept per error (1..=64); more are counted as "+N more" |
//! | `ERRTRACE_EXPECT_CONTEXTS` | 32 | 2 | threads or tasks that can be inside [`expecting`](crate::expecting()) at once (1..=1024); beyond that, a scope holds nothing back (its errors print as without it) |
//! | `ERRTRACE_FAIL_CONFIGS` | 32 | 4 | `fail name=` patterns configured at once ([`fault`](crate::fault), 1..=1024) |
//! | `ERRTRACE_STANDING_BYTES` | 1024 | 256 | without `std`: bytes of queries kept to apply to sites that appear later ([`control`](crate::control), 64..=65536) |
//!
//! `ERRTRACE_PROFILE` picks the defaults: unset or `default` (the second column), or
//! `embedded` (the third: a microcontroller's single core and a few KiB of RAM; the sizes it
//! takes are measured in the guide's configuration chapter). A variable set on its own still
//! wins over its profile's default.
//!
//! A value that is not a number, or is out of range, is a compile-time error.
//!
//! # Examples
//!
//! ```
//! assert!(errtrace::config::LOCATION_SITES >= 1);
//! assert!(errtrace::config::RECORDER_SLOTS.is_power_of_two());
//! assert!(errtrace::config::EXPECT_CONTEXTS >= 1);
//! ```

/// Whether `ERRTRACE_PROFILE=embedded` was set at build time.
pub const EMBEDDED: bool = profile(option_env!("ERRTRACE_PROFILE"));

/// Entries in the pool of location sites.
pub const LOCATION_SITES: usize = parse(option_env!("ERRTRACE_LOCATION_SITES"), pick(256, 8));
/// Events kept by the flight recorder.
pub const RECORDER_SLOTS: usize = parse(option_env!("ERRTRACE_RECORDER_SLOTS"), pick(256, 16));
/// Sites whose made/travelled counts are kept per shard (the first this many sites to fire).
pub const COUNTED_SITES: usize = parse(option_env!("ERRTRACE_COUNTED_SITES"), pick(256, 1));
/// Shards of the flight recorder.
pub const RECORDER_SHARDS: usize = parse(option_env!("ERRTRACE_RECORDER_SHARDS"), pick(4, 1));
/// Hops kept per error.
pub const HOPS: usize = parse(option_env!("ERRTRACE_HOPS"), pick(8, 8));
/// Threads or tasks that can be inside [`expecting`](crate::expecting()) at once.
pub const EXPECT_CONTEXTS: usize = parse(option_env!("ERRTRACE_EXPECT_CONTEXTS"), pick(32, 2));
/// `fail name=` patterns configured at once.
pub const FAIL_CONFIGS: usize = parse(option_env!("ERRTRACE_FAIL_CONFIGS"), pick(32, 4));
/// Without `std`: bytes of queries that stand for sites appearing later.
pub const STANDING_BYTES: usize = parse(option_env!("ERRTRACE_STANDING_BYTES"), pick(1024, 256));

const _: () = assert!(
    LOCATION_SITES >= 1 && LOCATION_SITES <= 65535,
    "ERRTRACE_LOCATION_SITES must be in 1..=65535"
);
const _: () = assert!(
    COUNTED_SITES >= 1 && COUNTED_SITES <= 65535,
    "ERRTRACE_COUNTED_SITES must be in 1..=65535"
);
const _: () = assert!(
    RECORDER_SHARDS.is_power_of_two() && RECORDER_SHARDS <= 64,
    "ERRTRACE_RECORDER_SHARDS must be a power of two, at most 64"
);
const _: () = assert!(
    RECORDER_SLOTS.is_power_of_two()
        && RECORDER_SLOTS <= 32768
        && RECORDER_SLOTS >= RECORDER_SHARDS,
    "ERRTRACE_RECORDER_SLOTS must be a power of two, at least ERRTRACE_RECORDER_SHARDS, at most 32768"
);
const _: () = assert!(HOPS >= 1 && HOPS <= 64, "ERRTRACE_HOPS must be in 1..=64");
const _: () = assert!(
    EXPECT_CONTEXTS >= 1 && EXPECT_CONTEXTS <= 1024,
    "ERRTRACE_EXPECT_CONTEXTS must be in 1..=1024"
);
const _: () = assert!(
    FAIL_CONFIGS >= 1 && FAIL_CONFIGS <= 1024,
    "ERRTRACE_FAIL_CONFIGS must be in 1..=1024"
);
const _: () = assert!(
    STANDING_BYTES >= 64 && STANDING_BYTES <= 65536,
    "ERRTRACE_STANDING_BYTES must be in 64..=65536"
);

/// The default of the build's profile: `normal`, or `small` under `ERRTRACE_PROFILE=embedded`.
const fn pick(normal: usize, small: usize) -> usize {
    if EMBEDDED {
        small
    } else {
        normal
    }
}

/// `ERRTRACE_PROFILE`: unset or `default` is the default profile, `embedded` the small one;
/// anything else is a compile-time error.
const fn profile(value: Option<&str>) -> bool {
    let bytes = match value {
        Some(v) => v.as_bytes(),
        None => return false,
    };
    if eq(bytes, b"embedded") {
        return true;
    }
    assert!(
        eq(bytes, b"default"),
        "ERRTRACE_PROFILE must be `default` or `embedded`"
    );
    false
}

const fn eq(mut a: &[u8], mut b: &[u8]) -> bool {
    loop {
        match (a, b) {
            ([], []) => return true,
            ([x, ra @ ..], [y, rb @ ..]) if *x == *y => {
                a = ra;
                b = rb;
            }
            _ => return false,
        }
    }
}

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
        n = n.wrapping_mul(10).wrapping_add((*b - b'0') as usize);
        bytes = rest;
    }
    n
}
