//! Every method of `ResultExt` is in `errtrace::vocabulary::RESULT_EXT`, the list the audit tool
//! reads to know which calls log and which pass the error on (`.not_expected()` was once
//! missing from the audit's list, which made it report a chain that was logged).

use std::collections::BTreeSet;

/// The method names declared in `pub trait ResultExt` (read from the source, so a new method
/// cannot be forgotten).
fn declared() -> BTreeSet<String> {
    let src =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/trail.rs")).unwrap();
    let start = src.find("pub trait ResultExt").unwrap();
    let body = &src[start..];
    let end = body.find("\n}\n").unwrap();
    body[..end]
        .lines()
        .filter_map(|l| l.trim().strip_prefix("fn "))
        .map(|l| l.split(['(', '<']).next().unwrap().to_string())
        .collect()
}

#[test]
fn every_result_ext_method_is_classified() {
    let listed: BTreeSet<String> = errtrace::vocabulary::RESULT_EXT
        .iter()
        .map(|(m, _)| m.to_string())
        .collect();
    assert_eq!(declared(), listed);
}

#[test]
fn logging_methods_include_not_expected_and_or_log() {
    let logs: Vec<&str> = errtrace::vocabulary::logging_methods().collect();
    for m in ["log", "log_with", "not_expected", "or_log"] {
        assert!(logs.contains(&m), "{m} logs");
    }
    assert!(!logs.contains(&"trace"));
}

/// The reporting functions are the public `pub fn`s of `boundary.rs` (read from the source, so
/// a new one cannot be forgotten by the audit).
#[test]
fn every_boundary_function_is_a_reporting_function() {
    let src =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/boundary.rs")).unwrap();
    let declared: BTreeSet<String> = src
        .lines()
        .filter_map(|l| l.strip_prefix("pub fn "))
        .map(|l| l.split(['(', '<']).next().unwrap().to_string())
        .collect();
    let listed: BTreeSet<String> = errtrace::vocabulary::REPORTING_FUNCTIONS
        .iter()
        .map(|f| f.to_string())
        .collect();
    assert_eq!(declared, listed);
}
