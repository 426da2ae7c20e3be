//! Replays the audit's committed fuzz corpus (`fuzz/corpus/audit/`) with the fuzz target's own
//! checks (`fuzz/fuzz_targets/common.rs`): no input makes the audit panic, and every report is
//! consistent. The fuzzer itself needs cargo-fuzz (see `fuzz/README.md`); this is its replay on
//! stable `cargo test` (the audit had no fuzz target).

#[path = "../fuzz/fuzz_targets/common.rs"]
mod common;

#[test]
fn the_corpus_replays_without_a_panic() {
    // The corpus (hostile shapes) and the test fixtures (every idiom the audit knows), which
    // are also the fuzzer's seeds (see fuzz/README.md).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = ["fuzz/corpus/audit", "tests/fixtures"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 40, "{} corpus files", files.len());
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let r = std::panic::catch_unwind(|| common::run_bytes(&data));
        assert!(
            r.is_ok(),
            "{} made the audit (or its checks) panic",
            path.display()
        );
    }
}
