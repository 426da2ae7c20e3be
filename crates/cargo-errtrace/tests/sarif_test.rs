//! The SARIF output has the shape GitHub code scanning reads (SARIF 2.1.0).

mod common;

use errtrace_audit::output::{render, Format};
use std::path::Path;

#[test]
fn sarif_shape() {
    let r = common::audit_path(&common::fixtures());
    let text = render(&r, Format::Sarif, Path::new("."), false);
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "cargo-errtrace");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["discarded", "swallowed", "silent-chain", "panic"]);
    for rule in rules {
        assert!(rule["shortDescription"]["text"].is_string());
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), r.findings.len());
    assert!(!results.is_empty());
    for res in results {
        let id = res["ruleId"].as_str().unwrap();
        assert!(ids.contains(&id));
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(ids[idx], id);
        assert!(matches!(
            res["level"].as_str().unwrap(),
            "warning" | "note" | "error"
        ));
        assert!(!res["message"]["text"].as_str().unwrap().is_empty());
        let loc = &res["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.ends_with(".rs") && !uri.starts_with('/'));
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(loc["region"]["startColumn"].as_u64().unwrap() >= 1);
        if id == "silent-chain" {
            let flow = &res["codeFlows"][0]["threadFlows"][0]["locations"];
            assert!(!flow.as_array().unwrap().is_empty());
        }
    }
    let notes = run["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    assert_eq!(notes.len(), 1, "the parse error is a notification");
}

/// Every result has its own fingerprint, and an edit that only moves lines keeps them (the fingerprint was kind, file, function and boundary, so two findings in one
/// function shared one, and code scanning merged or flapped them).
#[test]
fn fingerprints_are_unique_and_do_not_hold_line_numbers() {
    let r = common::audit_path(&common::fixtures());
    let text = render(&r, Format::Sarif, Path::new("."), false);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let prints: Vec<String> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|res| {
            res["partialFingerprints"]["errtraceAudit/v2"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let unique: std::collections::BTreeSet<&String> = prints.iter().collect();
    assert_eq!(unique.len(), prints.len(), "{prints:#?}");
    for (res, fp) in v["runs"][0]["results"].as_array().unwrap().iter().zip(&prints) {
        let line = res["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap();
        assert!(!fp.contains(&format!(":{line}:")), "{fp} holds its line");
    }
}

/// Chains listed on request (`--user-space`, `--guards`) are notes in SARIF, below the default
/// report's warnings, so code scanning does not rank them with the silent chains.
#[test]
fn chains_listed_on_request_are_notes() {
    let config = errtrace_audit::Config {
        user_space: true,
        guards: true,
        ..Default::default()
    };
    let r = common::audit_with(&common::fixtures(), config);
    let text = render(&r, Format::Sarif, Path::new("."), false);
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let results = v["runs"][0]["results"].as_array().unwrap();
    let level_at = |file: &str, line: u64| {
        results
            .iter()
            .find(|res| {
                let loc = &res["locations"][0]["physicalLocation"];
                loc["artifactLocation"]["uri"].as_str().unwrap().ends_with(file)
                    && loc["region"]["startLine"].as_u64() == Some(line)
            })
            .map(|res| res["level"].as_str().unwrap().to_string())
    };
    assert_eq!(
        level_at("user_space_entry.rs", 8).as_deref(),
        Some("note"),
        "to user space"
    );
    assert_eq!(
        level_at("overflow_guard.rs", 6).as_deref(),
        Some("note"),
        "a guard"
    );
    assert_eq!(
        level_at("overflow_guard.rs", 16).as_deref(),
        Some("warning"),
        "a plain chain"
    );
}
