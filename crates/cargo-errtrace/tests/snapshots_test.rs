//! Snapshots of the human and JSON output over the fixtures directory.

use errtrace_audit::output::{render, Format};
use errtrace_audit::{audit, Config, Options};
use std::path::Path;

fn report() -> errtrace_audit::Report {
    // Relative to the crate directory (where `cargo test` runs), so `root` is stable.
    let root = Path::new("tests/fixtures");
    // Every rule, `panic` (opt-in) included.
    let opts = Options {
        root: root.to_path_buf(),
        config: Config {
            panics: true,
            ..Config::default()
        },
        jobs: Some(2),
        facts: None,
        kernel_tree: None,
    };
    audit(&opts).expect("audit of the fixtures")
}

#[test]
fn human_output() {
    let r = report();
    let text = render(&r, Format::Human, Path::new("tests/fixtures"), false);
    insta::assert_snapshot!("human", text);
}

#[test]
fn json_output() {
    let r = report();
    let text = render(&r, Format::Json, Path::new("tests/fixtures"), false);
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    insta::assert_json_snapshot!("json", v);
}

#[test]
fn json_schema_keys() {
    let r = report();
    let v: serde_json::Value =
        serde_json::from_str(&render(&r, Format::Json, Path::new("."), false)).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["root"], "tests/fixtures");
    assert!(v["files"].as_u64().unwrap() > 10);
    for k in [
        "question_marks",
        "log_calls",
        "silent_chain",
        "discarded",
        "swallowed",
        "panic",
        "parse_errors",
    ] {
        assert!(v["summary"][k].is_u64(), "summary.{k}");
    }
    let f = &v["findings"][0];
    for k in ["kind", "file", "line", "column", "function", "message"] {
        assert!(!f[k].is_null(), "findings[0].{k}");
    }
    let chain = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "silent-chain")
        .unwrap();
    for k in ["file", "line", "function"] {
        assert!(!chain["chain"][0][k].is_null(), "chain[0].{k}");
    }
    for k in ["file", "line", "column", "message"] {
        assert!(!v["parse_errors"][0][k].is_null(), "parse_errors[0].{k}");
    }
    for k in ["file", "question_marks", "log_calls"] {
        assert!(!v["per_file"][0][k].is_null(), "per_file[0].{k}");
    }
    // Paths are relative to the root.
    assert!(!v["findings"][0]["file"].as_str().unwrap().contains("fixtures"));
}
