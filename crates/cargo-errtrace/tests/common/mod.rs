// Shared helpers for the integration tests.
#![allow(dead_code)]

use errtrace_audit::{audit, Config, Options, Report};
use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

/// The audit with every rule on (`panics` included), as the fixtures test each rule.
pub fn audit_path(p: &Path) -> Report {
    audit_with(
        p,
        Config {
            panics: true,
            ..Config::default()
        },
    )
}

pub fn audit_with(p: &Path, config: Config) -> Report {
    let opts = Options {
        root: p.to_path_buf(),
        config,
        jobs: Some(2),
        facts: None,
        kernel_tree: None,
    };
    match audit(&opts) {
        Ok(r) => r,
        Err(e) => panic!("audit of {} failed: {e}", p.display()),
    }
}

pub fn audit_fixture(name: &str) -> Report {
    audit_path(&fixtures().join(name))
}
