//! The C reading on small trees written here, in the kernel's style.

use super::*;

/// A tree with `rust/kernel/lib.rs`, `Kbuild` and the given C files.
fn tree(files: &[(&str, &str)]) -> (tempdir::Dir, KernelTree) {
    let dir = tempdir::Dir::new();
    std::fs::create_dir_all(dir.path().join("rust/kernel")).unwrap();
    std::fs::write(dir.path().join("rust/kernel/lib.rs"), "").unwrap();
    std::fs::write(dir.path().join("Kbuild"), "").unwrap();
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let t = KernelTree::at(dir.path()).unwrap();
    (dir, t)
}

mod tempdir {
    /// A directory removed when dropped.
    pub struct Dir(std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let p = std::env::temp_dir().join(format!("errtrace-csource-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
        pub fn path(&self) -> &std::path::Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Kernel-style C: the fixture tree's, which the audit's own test of a driver in a tree reads.
const BASE: &str = include_str!("../../tests/fixtures-trees/kernel_tree_c/drivers/base/thing.c");

fn knowledge(names: &[&str]) -> Knowledge {
    let (_dir, t) = tree(&[("drivers/base/thing.c", BASE)]);
    Knowledge::derive(&t, names.iter().map(|s| s.to_string()))
}

#[test]
fn a_goto_to_an_unprinted_return_is_silent_with_its_code() {
    let k = knowledge(&["quiet_busy"]);
    let f = k.fact("quiet_busy").unwrap();
    assert_eq!(f.verdict, Verdict::Silent);
    assert_eq!(f.codes, vec!["EBUSY".to_string()]);
    assert_eq!(f.defined_at, "drivers/base/thing.c:5");
    assert_eq!(
        k.describe("quiet_busy").unwrap(),
        "can fail with -EBUSY, prints nothing (drivers/base/thing.c:5)"
    );
}

#[test]
fn a_print_in_the_failing_branch_or_its_condition_reports_it() {
    let k = knowledge(&["loud", "probe_style", "label_prints"]);
    assert_eq!(k.fact("loud").unwrap().verdict, Verdict::Prints);
    assert_eq!(k.fact("probe_style").unwrap().verdict, Verdict::Prints);
    assert_eq!(k.fact("label_prints").unwrap().verdict, Verdict::Prints);
    assert_eq!(k.reported("loud"), Some(true));
}

#[test]
fn a_forwarded_failure_is_the_callees() {
    let k = knowledge(&["forwards"]);
    let f = k.fact("forwards").unwrap();
    assert_eq!(f.verdict, Verdict::Silent);
    assert_eq!(f.codes, vec!["EBUSY".to_string()]);
    assert_eq!(k.reported("forwards"), Some(false));
}

#[test]
fn allocation_failures_and_functions_that_cannot_fail() {
    let k = knowledge(&[
        "only_alloc",
        "enomem_only",
        "nothing",
        "always_zero",
        "checks_arguments",
    ]);
    assert_eq!(k.fact("only_alloc").unwrap().verdict, Verdict::OnlyAllocates);
    assert_eq!(k.fact("enomem_only").unwrap().verdict, Verdict::OnlyAllocates);
    assert_eq!(k.fact("nothing").unwrap().verdict, Verdict::CannotFail);
    assert_eq!(k.fact("always_zero").unwrap().verdict, Verdict::CannotFail);
    // `-EINVAL` for arguments a well-formed call does not pass: not counted.
    assert_eq!(
        k.fact("checks_arguments").unwrap().verdict,
        Verdict::OnlyAllocates
    );
}

#[test]
fn an_err_ptr_of_a_callee_is_not_its_null() {
    let (_dir, t) = tree(&[(
        "drivers/base/ptr.c",
        r#"
void *maybe(int n)
{
	if (n > 3)
		return NULL;
	return ERR_PTR(-EIO);
}

int user(int n)
{
	void *p = maybe(n);

	if (IS_ERR(p))
		return PTR_ERR(p);
	return 0;
}
"#,
    )]);
    let k = Knowledge::derive(&t, ["maybe".to_string(), "user".to_string()]);
    assert_eq!(k.fact("maybe").unwrap().codes, ["EIO", "NULL"]);
    assert_eq!(k.fact("user").unwrap().codes, ["EIO"]);
}

#[test]
fn a_callback_or_an_undefined_callee_is_not_known() {
    let k = knowledge(&["own_line", "get_ptr", "not_in_the_tree"]);
    assert_eq!(k.fact("own_line").unwrap().verdict, Verdict::Unknown);
    assert_eq!(k.fact("own_line").unwrap().defined_at, "drivers/base/thing.c:102");
    assert_eq!(k.fact("get_ptr").unwrap().verdict, Verdict::Unknown);
    assert!(k.fact("not_in_the_tree").is_none());
    assert_eq!(k.reported("own_line"), None);
}

#[test]
fn a_binding_of_an_inline_function_reads_its_rust_helper() {
    let helper = "int rust_helper_thing_ready(struct thing *t)\n{\n\treturn quiet_busy(t);\n}\n";
    let (_dir, t) = tree(&[("drivers/base/thing.c", BASE), ("rust/helpers/thing.c", helper)]);
    let k = Knowledge::derive(&t, ["thing_ready".to_string()]);
    let f = k.fact("thing_ready").unwrap();
    assert_eq!(f.verdict, Verdict::Silent);
    assert_eq!(f.defined_at, "rust/helpers/thing.c:1");
}

#[test]
fn definitions_are_found_the_way_the_kernel_writes_them() {
    let defs = index::definitions(BASE.as_bytes());
    let names: Vec<&str> = defs.iter().map(|d| d.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "quiet_busy",
            "loud",
            "probe_style",
            "forwards",
            "only_alloc",
            "enomem_only",
            "nothing",
            "checks_arguments",
            "by_kind",
            "always_zero",
            "own_line",
            "get_ptr",
            "label_prints",
            "defers",
            "through_ops",
            "sharing"
        ]
    );
    let own = defs.iter().find(|d| d.0 == "own_line").unwrap();
    assert!(own.3, "`static` on the line before the name");
}

#[test]
fn the_tree_is_found_above_a_path_inside_it() {
    let (dir, t) = tree(&[("drivers/misc/foo/foo.rs", "")]);
    let found = KernelTree::above(&dir.path().join("drivers/misc/foo")).unwrap();
    assert_eq!(
        std::fs::canonicalize(&found.root).unwrap(),
        std::fs::canonicalize(&t.root).unwrap()
    );
    assert!(KernelTree::above(&std::env::temp_dir()).is_none());
}

#[test]
fn a_deferral_is_no_failure_and_a_callback_is_said() {
    let k = knowledge(&["defers", "through_ops"]);
    assert_eq!(k.fact("defers").unwrap().verdict, Verdict::CannotFail);
    assert_eq!(
        k.describe("through_ops").unwrap(),
        "can fail with -EBUSY, what a callback returns, prints nothing (drivers/base/thing.c:138)"
    );
}

#[test]
fn a_macro_that_only_calls_a_function_fails_as_it_does() {
    let k = knowledge(&["quiet_alias"]);
    let f = k.fact("quiet_alias").unwrap();
    assert_eq!(f.verdict, Verdict::Silent);
    assert_eq!(f.codes, ["EBUSY"]);
    assert_eq!(
        index::macro_aliases(b"#define a(x) b(x, 1)\n#define c(x) \\\n\td(x)\n#define E 5\n"),
        [
            ("a".to_string(), "b".to_string()),
            ("c".to_string(), "d".to_string())
        ]
    );
}
