//! The audit inside a kernel tree: what each C callee does on failure is read from the tree's
//! C definitions, and the built-in name lists are only the fallback.

use errtrace_audit::csource::KernelTree;
use errtrace_audit::{audit, Config, Options};
use std::path::PathBuf;

fn tree() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures-trees/kernel_tree_c")
}

fn messages(kernel_tree: Option<KernelTree>) -> Vec<String> {
    let opts = Options {
        root: tree().join("drivers/misc/foo"),
        config: Config::default(),
        jobs: Some(1),
        facts: None,
        kernel_tree,
    };
    let r = audit(&opts).expect("audit");
    r.findings.into_iter().map(|f| f.message).collect()
}

/// A C callee that prints its failures, fails only by allocating or cannot fail makes no
/// silent path; one that returns `-EBUSY` with nothing printed does, and the finding says why.
#[test]
fn the_tree_tells_which_c_callees_are_silent() {
    let t = KernelTree::above(&tree().join("drivers/misc/foo")).expect("the fixture is a tree");
    let m = messages(Some(t));
    assert_eq!(
        m,
        [
            "error from `to_result(…)` of C `quiet_busy`, which can fail with -EBUSY, prints \
          nothing (drivers/base/thing.c:5), leaves driver probe `foo::Foo::probe` without a \
          log line"
        ],
    );
}

/// Without the tree, the same driver has four silent paths: the lists do not know these
/// callees.
#[test]
fn without_the_tree_every_unknown_c_callee_is_an_origin() {
    let m = messages(None);
    assert_eq!(m.len(), 4, "{m:?}");
    assert!(m.iter().all(|m| m.contains("of C `")), "{m:?}");
}
