//! The binary: exit codes 0/1/2, `--deny`, `cargo errtrace audit` argument form, errors.

mod common;

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-errtrace"))
        .args(args)
        .output()
        .expect("run the binary");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn fixture(name: &str) -> String {
    common::fixtures().join(name).display().to_string()
}

#[test]
fn findings_without_deny_exit_0() {
    let (code, out, _) = run(&["audit", &fixture("silent_chain.rs"), "--color", "never"]);
    assert_eq!(code, 0);
    assert!(out.contains("warning[silent-chain]"), "{out}");
    assert!(out.contains("^"), "a caret under the origin: {out}");
}

#[test]
fn denied_findings_exit_1() {
    let (code, _, _) = run(&["audit", &fixture("silent_chain.rs"), "--deny", "silent-chain"]);
    assert_eq!(code, 1);
    // `discarded` denies everything at or above it.
    let (code, _, _) = run(&["audit", &fixture("panic.rs"), "--panics", "--deny", "discarded"]);
    assert_eq!(code, 1);
    // Without `--panics` the panics are not looked for: nothing to deny in that file.
    let (code, _, _) = run(&["audit", &fixture("panic.rs"), "--deny", "discarded"]);
    assert_eq!(code, 0);
    // Denying `panic` by name looks for them.
    let (code, _, _) = run(&["audit", &fixture("panic.rs"), "--deny", "panic"]);
    assert_eq!(code, 1);
    // `panic` is above `silent-chain`: a file with only chains passes `--deny panic`.
    let (code, _, _) = run(&["audit", &fixture("silent_chain.rs"), "--deny", "panic"]);
    assert_eq!(code, 0);
}

#[test]
fn clean_code_with_deny_exits_0() {
    let (code, _, _) = run(&["audit", &fixture("logged_inspect_err.rs"), "--deny", "all"]);
    assert_eq!(code, 0);
}

#[test]
fn parse_errors_can_be_denied() {
    let (code, out, _) = run(&["audit", &fixture("parse_error.rs"), "--color", "never"]);
    assert_eq!(code, 0);
    assert!(out.contains("could not parse"), "{out}");
    let (code, _, _) = run(&["audit", &fixture("parse_error.rs"), "--deny", "parse-error"]);
    assert_eq!(code, 1);
}

#[test]
fn usage_and_io_errors_exit_2() {
    let (code, _, err) = run(&["audit", "/no/such/path/anywhere"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    let (code, _, err) = run(&["audit", &fixture("panic.rs"), "--deny", "everything"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown kind"), "{err}");
    let (code, _, _) = run(&["audit", "--format", "xml"]);
    assert_eq!(code, 2);
    let (code, _, _) = run(&["frobnicate"]);
    assert_eq!(code, 2);
}

#[test]
fn bad_config_exits_2() {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("errtrace-audit.toml"), "log_macro = [\"typo\"]\n").unwrap();
    std::fs::write(dir.join("a.rs"), "fn main() {}\n").unwrap();
    let (code, _, err) = run(&["audit", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid config"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_adds_log_macros_boundaries_and_discards() {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-cfg2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = "fn op() -> Result<(), E> { Err(E) }\n\
               fn handler() -> Result<(), E> { op()?; Ok(()) }\n\
               fn quiet() -> Result<(), E> { if x() { my_log!(\"bad\"); return Err(E); } Ok(()) }\n\
               fn entry() -> Result<(), E> { quiet()?; Ok(()) }\n\
               fn tidy() { let _ = std::fs::remove_file(\"x\"); }\n";
    std::fs::write(dir.join("a.rs"), src).unwrap();
    let (_, out, _) = run(&["audit", dir.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["silent_chain"], 0, "no boundary without config");
    assert_eq!(v["summary"]["discarded"], 0);
    std::fs::write(
        dir.join("errtrace-audit.toml"),
        "boundaries = [\"handler\", \"entry\"]\nlog_macros = [\"my_log\"]\ndiscard_functions = [\"remove_file\"]\n",
    )
    .unwrap();
    let (_, out, _) = run(&["audit", dir.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["silent_chain"], 1, "{out}");
    assert_eq!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "silent-chain")
            .count(),
        1
    );
    assert_eq!(v["summary"]["discarded"], 1);
    assert_eq!(v["summary"]["log_calls"], 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cargo_subcommand_form_and_formats() {
    let (code, out, _) = run(&[
        "errtrace",
        "audit",
        &fixture("panic.rs"),
        "--panics",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["panic"], 5);
    let (code, out, _) = run(&["audit", &fixture("panic.rs"), "--format", "sarif"]);
    assert_eq!(code, 0);
    assert!(out.contains("\"2.1.0\""));
}

/// A file with a 200,000-call chain (0.8 MB on one line) among ordinary files: the run finishes,
/// names that file as not analysed (without printing its line), and audits the others (such a file overflowed the worker's stack and aborted the whole run, exit 134).
#[test]
fn a_huge_flat_expression_does_not_abort_the_run() {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("chain.rs"),
        format!("fn f() {{ a{}; }}\n", ".b()".repeat(200_000)),
    )
    .unwrap();
    std::fs::copy(
        common::fixtures().join("silent_chain.rs"),
        dir.join("silent_chain.rs"),
    )
    .unwrap();
    let (code, out, err) = run(&["audit", &dir.display().to_string(), "--color", "never"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("warning[silent-chain]"),
        "the other file is audited: {out}"
    );
    assert!(out.contains("operators in a row"), "{out}");
    assert!(out.len() < 100_000, "the long line is not printed back");
}

/// A symbolic link to a `.rs` file is not followed, and the output says so (such files were skipped silently).
#[cfg(unix)]
#[test]
fn a_symlinked_file_is_mentioned_not_skipped_silently() {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-link-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(common::fixtures().join("silent_chain.rs"), dir.join("real.rs")).unwrap();
    std::os::unix::fs::symlink(dir.join("real.rs"), dir.join("linked.rs")).unwrap();
    let (code, out, _) = run(&["audit", &dir.display().to_string(), "--color", "never"]);
    let (_, json, _) = run(&["audit", &dir.display().to_string(), "--format", "json"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0);
    assert!(
        out.contains("note: skipped linked.rs: a symbolic link, not followed"),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["skipped"][0]["file"], "linked.rs");
    assert_eq!(v["files"], 1);
}

/// Many symbolic links (a module folder that links errtrace's sources, as the kernel chapter's
/// layout does) give one note that counts them, not one note per link; the JSON lists each.
#[cfg(unix)]
#[test]
fn many_symlinked_files_are_one_note() {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(common::fixtures().join("silent_chain.rs"), dir.join("real.rs")).unwrap();
    for i in 0..5 {
        std::os::unix::fs::symlink(dir.join("real.rs"), dir.join(format!("l{i}.rs"))).unwrap();
    }
    let (code, out, _) = run(&["audit", &dir.display().to_string(), "--color", "never"]);
    let (_, json, _) = run(&["audit", &dir.display().to_string(), "--format", "json"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0);
    let notes: Vec<&str> = out.lines().filter(|l| l.starts_with("note: skipped")).collect();
    assert_eq!(
        notes,
        ["note: skipped 5 files (l0.rs, l1.rs, l2.rs and 2 more): a symbolic link, not followed (audit its target's directory)"],
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["skipped"].as_array().map(Vec::len), Some(5));
}

/// A file larger than the audit analyses (a generated table of tens of megabytes) is reported
/// as not analysed, and the rest of the tree is audited (a 50 MB file took
/// 53 s and 7.8 GB).
#[test]
fn a_huge_file_is_reported_not_parsed() {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let line = "pub const T: [u8; 4] = [1, 2, 3, 4];\n";
    let n = (errtrace_audit::MAX_FILE_BYTES as usize) / line.len() + 1;
    std::fs::write(dir.join("table.rs"), line.repeat(n)).unwrap();
    std::fs::copy(
        common::fixtures().join("silent_chain.rs"),
        dir.join("silent_chain.rs"),
    )
    .unwrap();
    let (code, out, err) = run(&["audit", &dir.display().to_string(), "--color", "never"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("more than the 8388608 the audit analyses"), "{out}");
    assert!(out.contains("warning[silent-chain]"), "{out}");
}
