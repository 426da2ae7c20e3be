//! Replays the committed fuzz corpus (`crates/errtrace/fuzz/corpus/control/`) through
//! `control::apply` and `control::query::parse` with the fuzz target's own checks
//! (`fuzz/fuzz_targets/common.rs`): no panic, `apply` agrees with `parse`, and a rejected input's
//! error line and column point inside the input. The fuzzer itself needs cargo-fuzz (see
//! `crates/errtrace/fuzz/README.md`); this is its short replay on stable `cargo test`.
#![cfg(feature = "std")]

#[path = "../fuzz/fuzz_targets/common.rs"]
mod common;

use errtrace::control::query;
use std::path::PathBuf;

fn corpus() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/control");
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a directory entry").path();
            let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, data)
        })
        .collect();
    files.sort();
    files
}

fn accepted(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    query::parse(&text, |_| {}).is_ok()
}

#[test]
fn corpus_replays_without_panics() {
    let files = corpus();
    assert!(files.len() >= 30, "only {} corpus files", files.len());
    for (path, data) in &files {
        let result = std::panic::catch_unwind(|| common::run_bytes(data));
        assert!(
            result.is_ok(),
            "{} ({:?}) failed its checks",
            path.display(),
            String::from_utf8_lossy(data)
        );
    }
}

#[test]
fn corpus_holds_every_grammar_element_in_an_accepted_query() {
    let files = corpus();
    let ok: Vec<String> = files
        .iter()
        .filter(|(_, d)| accepted(d))
        .map(|(_, d)| String::from_utf8_lossy(d).into_owned())
        .collect();
    let rejected = files.len() - ok.len();
    assert!(rejected > 0, "no rejected input in the corpus");
    for element in [
        "file ",
        "func ",
        "module ",
        "format \"",
        "line ",
        "code ",
        " once",
        " quiet",
        " always",
        " debug",
        "ratelimit=",
        " +p",
        " -p",
        " =",
        "fail ",
        "name=",
        "probability=",
        "interval=",
        "times=",
        "times=-1",
        "code=",
        " off",
        ";",
        "\n",
    ] {
        assert!(
            ok.iter().any(|q| q.contains(element)),
            "no accepted corpus input has {element:?}"
        );
    }
}

#[test]
fn rejected_inputs_point_inside_the_input() {
    let mut rejected = 0;
    for (path, data) in corpus() {
        let text = String::from_utf8_lossy(&data);
        if let Err(e) = query::parse(&text, |_| {}) {
            rejected += 1;
            let r = std::panic::catch_unwind(|| common::check_position(&text, &e));
            assert!(r.is_ok(), "{}: {e} for {text:?}", path.display());
        }
    }
    assert!(rejected > 0);
}

#[test]
fn a_known_error_position() {
    let text = "file a +p\nfunc b once\nline 9-1 +p";
    let e = query::parse(text, |_| {}).unwrap_err();
    assert_eq!((e.line, e.column), (3, 6));
    common::check_position(text, &e);
}
