//! The audit inside a kernel tree: what each C callee does on failure is read from the tree's
//! C definitions, and the built-in name lists are only the fallback.

use errtrace_audit::csource::KernelTree;
use errtrace_audit::{audit, Config, Options};
use std::path::PathBuf;

fn tree() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures-trees/kernel_tree_c")
}

fn findings(kernel_tree: Option<KernelTree>) -> Vec<errtrace_audit::Finding> {
    let opts = Options {
        root: tree().join("drivers/misc/foo"),
        config: Config::default(),
        jobs: Some(1),
        facts: None,
        kernel_tree,
    };
    audit(&opts).expect("audit").findings
}

fn messages(kernel_tree: Option<KernelTree>) -> Vec<String> {
    findings(kernel_tree)
        .into_iter()
        .filter(|f| f.message.contains("of C `"))
        .map(|f| f.message)
        .collect()
}

/// An error the kernel crate makes without a word is reported with its chain into the driver,
/// and the log line to add is the driver's, where the error enters it, not the kernel crate's.
#[test]
fn the_fix_goes_where_the_error_enters_the_audited_code() {
    let t = KernelTree::above(&tree().join("drivers/misc/foo")).expect("the fixture is a tree");
    let f = findings(Some(t));
    let map = f
        .iter()
        .find(|f| f.function.ends_with("io::map"))
        .expect("the kernel crate's origin");
    assert!(map.file.ends_with("rust/kernel/lib.rs"), "{}", map.file);
    let fix = map.fix.as_ref().expect("a fix");
    assert_eq!((fix.file.as_str(), fix.line), ("foo.rs", 18), "{fix:?}");
    assert!(
        fix.insert
            .starts_with(".inspect_err(|e| pr_err!(\"probe: map failed"),
        "{fix:?}"
    );
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

/// A C callee whose only unprinted failure the driver handles by name (`Err(e) if e == ENOENT
/// => fallback`) makes no silent path with the tree; without it, its failures are not known and
/// the call is one.
#[test]
fn a_c_callees_unprinted_code_handled_by_name_is_no_silent_path() {
    let t = KernelTree::above(&tree().join("drivers/misc/foo")).expect("the fixture is a tree");
    let with = findings(Some(t));
    assert!(!with.iter().any(|f| f.message.contains("`sharing`")), "{with:#?}");
    let without = findings(None);
    assert!(
        without.iter().any(|f| f.message.contains("`sharing`")),
        "{without:#?}"
    );
}

/// The JSON report names the C callee with what its code does.
#[test]
fn a_finding_carries_its_c_callee() {
    let t = KernelTree::above(&tree().join("drivers/misc/foo")).expect("the fixture is a tree");
    let f = findings(Some(t));
    let quiet = f
        .iter()
        .find(|f| f.message.contains("`quiet_busy`"))
        .expect("the silent callee");
    let c = quiet.c_callee.as_ref().expect("its C callee");
    assert_eq!(
        (
            c.name.as_str(),
            c.verdict.as_str(),
            c.codes.as_slice(),
            c.defined_at.as_str()
        ),
        (
            "quiet_busy",
            "silent",
            &["EBUSY".to_string()][..],
            "drivers/base/thing.c:5"
        )
    );
    let json = serde_json::to_value(quiet).unwrap();
    assert_eq!(json["c_callee"]["verdict"], "silent");
}

/// Without the tree, the same driver has five silent paths: the lists do not know these
/// callees.
#[test]
fn without_the_tree_every_unknown_c_callee_is_an_origin() {
    let m = messages(None);
    assert_eq!(m.len(), 5, "{m:?}");
    assert!(m.iter().all(|m| m.contains("of C `")), "{m:?}");
}
