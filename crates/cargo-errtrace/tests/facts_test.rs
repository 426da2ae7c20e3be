//! Resolution by the compiler (`--facts`): each fixture under `tests/facts/` is compiled by
//! `errtrace-rustc` (built here with its own toolchain, rustup's 1.85.0 with `rustc-dev`, unless
//! `ERRTRACE_RUSTC` names a built one), then audited without and with the facts it wrote.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use errtrace_audit::{audit, Config, Kind, Options, Report};

fn driver_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../errtrace-rustc")
}

/// The toolchain `errtrace-rustc` is built with: its `rust-toolchain.toml`'s channel.
fn channel() -> String {
    let text =
        std::fs::read_to_string(driver_dir().join("rust-toolchain.toml")).expect("rust-toolchain.toml");
    text.lines()
        .find_map(|l| l.trim().strip_prefix("channel = "))
        .map(|c| c.trim_matches('"').to_string())
        .expect("a channel in rust-toolchain.toml")
}

/// The driver: `ERRTRACE_RUSTC`, or built once from `crates/errtrace-rustc`.
fn driver() -> &'static Path {
    static DRIVER: OnceLock<PathBuf> = OnceLock::new();
    DRIVER.get_or_init(|| {
        if let Some(p) = std::env::var_os("ERRTRACE_RUSTC") {
            return PathBuf::from(p);
        }
        let channel = channel();
        // `rustup run` rather than `cargo`: inside `cargo test`, `cargo` is this toolchain's.
        let status = Command::new("rustup")
            .args(["run", &channel, "cargo", "build", "--release", "--quiet"])
            .current_dir(driver_dir())
            .env_remove("RUSTUP_TOOLCHAIN")
            .env_remove("RUSTC")
            .env_remove("RUSTC_WRAPPER")
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR")
            .status()
            .expect("cannot run rustup");
        assert!(
            status.success(),
            "cannot build errtrace-rustc: it needs rustup's {channel} toolchain with its compiler crates \
             (`rustup toolchain install {channel} -c rustc-dev -c rust-src`)"
        );
        driver_dir().join("target/release/errtrace-rustc")
    })
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/facts")
        .join(name)
}

/// A fresh directory of its own for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("errtrace-facts-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Compile a fixture's `main.rs` with the driver; the facts directory it wrote.
fn compile(name: &str, scratch: &Path) -> PathBuf {
    compile_from(&fixture(name), Path::new("main.rs"), scratch)
}

/// Compile `source` (relative to `dir`, the compiler's working directory) with the driver,
/// writing the facts to `scratch/facts`; that directory.
fn compile_from(dir: &Path, source: &Path, scratch: &Path) -> PathBuf {
    let facts = scratch.join("facts");
    let out = Command::new(driver())
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "bin",
            "--emit",
            "metadata",
            "--cap-lints",
            "allow",
            "-o",
        ])
        .arg(scratch.join("out.rmeta"))
        .arg(source)
        .current_dir(dir)
        .env("ERRTRACE_FACTS_DIR", &facts)
        .output()
        .expect("cannot run errtrace-rustc");
    assert!(
        out.status.success(),
        "errtrace-rustc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    facts
}

fn audit_of(name: &str, facts: Option<PathBuf>) -> Report {
    let opts = Options {
        root: fixture(name),
        config: Config::default(),
        jobs: Some(1),
        facts,
        kernel_tree: None,
    };
    audit(&opts).unwrap_or_else(|e| panic!("audit of {name} failed: {e}"))
}

/// Each silent chain as (its origin's function, or what the origin says when it is a call the
/// audit did not follow; the functions of the chain).
fn chains(r: &Report) -> Vec<(String, Vec<String>)> {
    r.findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain)
        .map(|f| {
            let what = f.message.split(" reaches ").next().unwrap_or("").to_string();
            (what, f.chain.iter().map(|s| s.function.clone()).collect())
        })
        .collect()
}

#[test]
fn the_compiler_types_receivers_picks_traits_and_sees_macro_made_functions() {
    let dir = scratch("dispatch");
    let facts = compile("dispatch", &dir);
    let before = chains(&audit_of("dispatch", None));
    let after_report = audit_of("dispatch", Some(facts));
    let after = chains(&after_report);
    let _ = std::fs::remove_dir_all(&dir);
    // By syntax: `chip().bus.read()` has two candidates and so has `R570.load()` (the macro
    // stamps `load` into two types); neither is followed.
    assert_eq!(
        before,
        vec![
            (
                "error EINVAL made here and returned as the tail expression".to_string(),
                vec![
                    "main::Gsp::reset".to_string(),
                    "main::boot".into(),
                    "main::main".into()
                ]
            ),
            (
                "error from `.read` (2 in-tree candidates, not resolved)".to_string(),
                vec!["main::boot".to_string(), "main::main".into()]
            ),
            (
                "error from `R570.load` (2 in-tree candidates, not resolved)".to_string(),
                vec!["main::boot".to_string(), "main::main".into()]
            ),
        ]
    );
    // By the compiler: each to its real origin (`Cache::read`, `Sec2::reset`, `Copy::reset`
    // and `R580::load` do not fail and are not named).
    let made = "error EINVAL made here and returned as the tail expression".to_string();
    assert_eq!(
        after,
        vec![
            (
                "error EIO made here and returned as the tail expression".to_string(),
                vec![
                    "main::Bus::read".to_string(),
                    "main::boot".into(),
                    "main::main".into()
                ]
            ),
            (
                made.clone(),
                vec![
                    "main::Gsp::reset".to_string(),
                    "main::boot".into(),
                    "main::main".into()
                ]
            ),
            (
                made,
                vec![
                    "main::R570::load".to_string(),
                    "main::boot".into(),
                    "main::main".into()
                ]
            ),
        ]
    );
    let resolution = after_report
        .resolution
        .expect("the report says how calls were resolved");
    assert_eq!(resolution.compiler.len(), 1);
    assert_eq!(resolution.compiler[0].krate, "main");
    assert_eq!(resolution.compiler[0].root, "main.rs");
    assert!(resolution.syntax.is_empty(), "{:?}", resolution.syntax);
}

#[test]
fn facts_match_a_copy_of_the_tree_by_their_paths_under_the_compilers_directory() {
    let dir = scratch("copy");
    // Compiled from the fixtures' directory, as a kernel build compiles from its tree.
    let facts = compile_from(&fixture(""), Path::new("dispatch/main.rs"), &dir);
    let copy = dir.join("copy");
    std::fs::create_dir_all(copy.join("dispatch")).unwrap();
    std::fs::copy(fixture("dispatch").join("main.rs"), copy.join("dispatch/main.rs")).unwrap();
    let report = audit(&Options {
        root: copy,
        config: Config::default(),
        jobs: Some(1),
        facts: Some(facts),
        kernel_tree: None,
    })
    .expect("audit of the copy");
    let _ = std::fs::remove_dir_all(&dir);
    let origins: Vec<String> = chains(&report)
        .into_iter()
        .filter_map(|(_, c)| c.first().cloned())
        .collect();
    assert_eq!(
        origins,
        ["main::Bus::read", "main::Gsp::reset", "main::R570::load"]
    );
    let resolution = report.resolution.expect("resolution");
    assert_eq!(resolution.compiler[0].root, "dispatch/main.rs");
}

#[test]
fn facts_that_cannot_be_read_stop_the_audit_with_a_reason() {
    let dir = scratch("unreadable");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let opts = |facts: &Path| Options {
        root: fixture("dispatch"),
        config: Config::default(),
        jobs: Some(1),
        facts: Some(facts.to_path_buf()),
        kernel_tree: None,
    };
    let e = audit(&opts(&empty))
        .expect_err("no facts is an error")
        .to_string();
    assert!(
        e.contains("no facts in") && e.contains("RUSTC=errtrace-rustc"),
        "{e}"
    );
    let e = audit(&opts(&dir.join("missing")))
        .expect_err("a missing directory is an error")
        .to_string();
    assert!(e.contains("cannot read the facts directory"), "{e}");
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("x.json"),
        r#"{"format":99,"krate":"x","root":"/x.rs","workdir":"/","calls":[]}"#,
    )
    .unwrap();
    let e = audit(&opts(&other))
        .expect_err("another format is an error")
        .to_string();
    assert!(e.contains("facts format 99"), "{e}");
    std::fs::write(other.join("x.json"), "not json").unwrap();
    let e = audit(&opts(&other))
        .expect_err("a file that is not facts is an error")
        .to_string();
    assert!(e.contains("is not errtrace-rustc facts"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
