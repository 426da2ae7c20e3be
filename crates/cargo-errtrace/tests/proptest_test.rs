//! Arbitrary token soup and random text never make the audit panic.

use errtrace_audit::{audit_sources, summarize_source, Config};
use proptest::prelude::*;

const VOCAB: &[&str] = &[
    "fn",
    "f",
    "g",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "?",
    "!",
    ";",
    ",",
    ".",
    "::",
    ":",
    "=",
    "=>",
    "->",
    "Err",
    "Ok",
    "return",
    "match",
    "if",
    "let",
    "else",
    "_",
    "..",
    "impl",
    "for",
    "trait",
    "struct",
    "mod",
    "Result",
    "Option",
    "self",
    "Self",
    "pr_err",
    "dev_err",
    "err",
    "log",
    "unwrap",
    "expect",
    "ok",
    "drop",
    "macro_rules",
    "$",
    "Sized",
    "\"s\"",
    "1",
    "'a",
    "#",
    "extern",
    "\"C\"",
    "unsafe",
    "async",
    "await",
    "|",
    "&",
    "*",
    "-",
    "+",
    "move",
    "main",
    "init",
    "probe",
    "Module",
    "<-",
    "try_pin_init",
    "quote",
    "//",
    "/*",
    "*/",
    "\n",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCAB), 0..400).prop_map(|v| v.join(" "))
}

/// Runs on a thread with a big stack, as the audit's workers do.
fn on_big_stack<F: FnOnce() + Send + 'static>(f: F) {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(src in soup()) {
        on_big_stack(move || {
            let _ = summarize_source(&src, "soup.rs", &Config::default());
            let r = audit_sources(&[("a.rs", &src), ("b.rs", "fn main() -> Result<(), E> { f()?; Ok(()) }")], &Config::default());
            let _ = errtrace_audit::output::render(&r, errtrace_audit::output::Format::Sarif, std::path::Path::new("."), false);
        });
    }

    #[test]
    fn random_text_never_panics(src in "\\PC{0,400}") {
        on_big_stack(move || {
            let _ = summarize_source(&src, "text.rs", &Config::default());
        });
    }

    #[test]
    fn valid_code_with_soup_in_a_body_never_panics(body in soup()) {
        on_big_stack(move || {
            let src = format!("fn main() -> Result<(), E> {{ m!({body}); Ok(()) }}\nfn g() {{ {body} }}");
            let r = audit_sources(&[("a.rs", &src)], &Config::default());
            let _ = errtrace_audit::output::render(&r, errtrace_audit::output::Format::Json, std::path::Path::new("."), false);
        });
    }
}
