//! Runnable examples of errtrace, and the guide's and README's code, compiled and run as doc
//! tests: `cargo test -p errtrace-examples --doc` runs every ```` ```rust ```` block of the
//! README and of each chapter of the guide (`docs/src/*.md`).
//!
//! The demo is an example of this package: `cargo run --example driver`.

/// The README, whose example is tested here.
#[doc = include_str!("../README.md")]
pub mod readme {}

/// The guide (`docs/`, an mdBook: `mdbook build docs`), one module per chapter.
pub mod guide {
    macro_rules! chapters {
        ($($name:ident => $file:literal),* $(,)?) => {$(
            #[doc = include_str!(concat!("../docs/src/", $file))]
            pub mod $name {}
        )*};
    }

    chapters! {
        introduction => "introduction.md",
        error_handling => "error-handling.md",
        origin_and_trail => "origin-and-trail.md",
        recorder => "recorder.md",
        policies => "policies.md",
        when_to_log => "when-to-log.md",
        boundaries => "boundaries.md",
        control => "control.md",
        fault_injection => "fault-injection.md",
        testing => "testing.md",
        probes => "probes.md",
        configuration => "configuration.md",
        migrating => "migrating.md",
        migrating_kernel => "migrating-kernel.md",
        migrating_anyhow => "migrating-anyhow.md",
        migrating_thiserror => "migrating-thiserror.md",
        kernel => "kernel.md",
        performance => "performance.md",
    }
}
