//! The fuzz target's checks, shared with the corpus replay in `tests/fuzz_corpus_test.rs`: the
//! audit of any text, with every rule on, finishes without a panic, and its report is
//! consistent (its counts are its findings', and a text that does not parse is one parse
//! error with a position inside the text).

use errtrace_audit::{audit_sources, Config, Kind};

/// Audits `data` as one file (valid UTF-8 as is, anything else through a lossy conversion).
pub fn run_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let config = Config {
        panics: true,
        ..Config::default()
    };
    let r = audit_sources(&[("fuzz.rs", &text)], &config);
    for kind in Kind::ALL {
        let listed = r.findings.iter().filter(|f| f.kind == kind).count() as u64;
        assert_eq!(r.count(kind), listed, "{kind:?} count");
    }
    assert!(r.parse_errors.len() <= 1);
    let lines = text.lines().count().max(1) as u32;
    for e in &r.parse_errors {
        assert!(
            e.line >= 1 && e.line <= lines + 1,
            "parse error line {} of {lines}",
            e.line
        );
        assert!(e.column >= 1);
    }
}
