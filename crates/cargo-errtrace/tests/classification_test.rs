//! The syntax-tree walk and the token scan of macro bodies read one table of what a method does
//! with an error (`Names::method_role`), so the same line gives the same verdict in plain code
//! and inside a macro body that is not Rust syntax (the two classification
//! paths, `classify` and `classify_tokens`, had drifted apart).

use errtrace_audit::{audit_sources, Config, Kind};

fn verdict(src: &str) -> (u64, u64) {
    let r = audit_sources(&[("a.rs", src)], &Config::default());
    assert!(r.parse_errors.is_empty(), "{src}: {:?}", r.parse_errors);
    (r.count(Kind::SilentChain), r.summary.log_calls)
}

#[test]
fn plain_code_and_macro_bodies_agree() {
    let idioms = [
        "load()?",
        "load().log(\"loading\")?",
        "load().not_expected(\"always there\")?",
        "load().during(\"loading\")?",
        "load().map_err(|e| { pr_err!(\"{:?}\", e); e })?",
        "load().map_err(|e| e)?",
        "load().inspect_err(|e| pr_warn!(\"{:?}\", e))?",
        "opt().ok_or(EINVAL)?",
        "opt().ok_or_else(|| { pr_err!(\"none\"); EINVAL })?",
        "to_result(raw())?",
    ];
    let prelude = "fn load() -> Result<u32, E> { Err(EIO) }\n";
    for idiom in idioms {
        let plain = format!("{prelude}fn main() -> Result<(), E> {{ {idiom}; Ok(()) }}\n");
        // `@` makes the body no Rust expression or statement: the token scan reads it.
        let tokens = format!("{prelude}fn main() -> Result<(), E> {{ m!(@ {idiom}); Ok(()) }}\n");
        assert_eq!(verdict(&plain), verdict(&tokens), "{idiom}");
    }
}
