// Shared helpers for the integration tests.
#![allow(dead_code)]

use errtrace_audit::{audit, Config, Options, Report};
use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
}

pub fn audit_path(p: &Path) -> Report {
    let opts = Options {
        root: p.to_path_buf(),
        config: Config::default(),
        jobs: Some(2),
    };
    match audit(&opts) {
        Ok(r) => r,
        Err(e) => panic!("audit of {} failed: {e}", p.display()),
    }
}

pub fn audit_fixture(name: &str) -> Report {
    audit_path(&fixtures().join(name))
}
