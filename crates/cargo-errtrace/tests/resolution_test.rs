//! What call resolution follows: parameter types, `self`, trait dispatch, type aliases,
//! `use` imports; and that calls do not jump into crates a file does not import.

use errtrace_audit::{audit, audit_sources, Config, Kind, Options};

fn chains(src: &str) -> Vec<Vec<String>> {
    let r = audit_sources(&[("a.rs", src)], &Config::default());
    r.findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain)
        .map(|f| f.chain.iter().map(|s| s.function.clone()).collect())
        .collect()
}

#[test]
fn method_on_a_typed_parameter() {
    let src = "struct Dev; impl Dev { fn read(&self) -> Result<u32, E> { Err(E) } }\n\
               struct Other; impl Other { fn read(&self) -> Result<u32, E> { Ok(1) } }\n\
               fn main() -> Result<(), E> { run(&Dev)?; Ok(()) }\n\
               fn run(dev: &Dev) -> Result<u32, E> { dev.read() }\n";
    assert_eq!(
        chains(src),
        vec![vec!["crate::Dev::read", "crate::run", "crate::main"]]
    );
}

#[test]
fn self_methods_and_type_aliases() {
    let src = "type Res<T> = Result<T, E>;\n\
               struct S; impl S { fn inner(&self) -> Res<()> { Err(E) } fn outer(&self) -> Res<()> { self.inner()?; Ok(()) } }\n\
               fn main() -> Res<()> { S.outer() }\n";
    // `S.outer()` is a method on a non-parameter: resolved because `outer` is unique.
    assert_eq!(
        chains(src),
        vec![vec!["crate::S::inner", "crate::S::outer", "crate::main"]]
    );
}

#[test]
fn generic_dispatch_reaches_every_impl() {
    let src = "trait Drv { fn probe() -> Result<(), E>; }\n\
               struct A; impl Drv for A { fn probe() -> Result<(), E> { Err(E) } }\n\
               struct B; impl Drv for B { fn probe() -> Result<(), E> { Err(E) } }\n\
               #[no_mangle] extern \"C\" fn cb<T: Drv>() -> i32 { from_result(|| { T::probe()?; Ok(0) }) }\n";
    // Each impl's `probe` is itself a driver-probe boundary, and both reach `cb`: each origin is
    // one finding, at its nearest boundary (its own `probe`), naming `cb` as also reached.
    let r = audit_sources(&[("a.rs", src)], &Config::default());
    for imp in ["crate::A::probe", "crate::B::probe"] {
        let f = r
            .findings
            .iter()
            .find(|f| f.kind == Kind::SilentChain && f.function == imp)
            .unwrap_or_else(|| panic!("no finding in {imp}: {:#?}", r.findings));
        assert_eq!(f.also_reaches, vec!["crate::cb".to_string()], "{f:#?}");
    }
}

#[test]
fn logged_hop_breaks_the_chain() {
    let src = "fn low() -> Result<(), E> { Err(E) }\n\
               fn mid() -> Result<(), E> { low().inspect_err(|e| pr_err!(\"{:?}\", e))?; Ok(()) }\n\
               fn main() -> Result<(), E> { mid()?; Ok(()) }\n";
    assert!(chains(src).is_empty());
}

#[test]
fn no_calls_into_crates_that_are_not_imported() {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-xcrate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (krate, src) in [
        (
            "app",
            "fn main() -> Result<(), E> { let s = String::from_utf8(v)?; helper::go()?; Ok(()) }\n",
        ),
        (
            "other",
            "pub struct String; impl String { pub fn from_utf8(v: V) -> Result<String, E> { Err(E) } }\n",
        ),
        ("helper", "pub fn go() -> Result<(), E> { Err(E) }\n"),
    ] {
        std::fs::create_dir_all(dir.join(krate).join("src")).unwrap();
        std::fs::write(
            dir.join(krate).join("Cargo.toml"),
            format!("[package]\nname = \"{krate}\"\n"),
        )
        .unwrap();
        let file = if krate == "app" { "main.rs" } else { "lib.rs" };
        std::fs::write(dir.join(krate).join("src").join(file), src).unwrap();
    }
    let r = audit(&Options {
        root: dir.clone(),
        config: Config::default(),
        jobs: Some(1),
        facts: None,
        kernel_tree: None,
    })
    .unwrap();
    let fns: Vec<Vec<&str>> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain)
        .map(|f| f.chain.iter().map(|s| s.function.as_str()).collect())
        .collect();
    // `String::from_utf8` is std's, not `other`'s (app does not import `other`): an origin
    // in main. `helper::go` names its crate: followed.
    assert!(fns.contains(&vec!["app::main"]), "{fns:?}");
    assert!(fns.contains(&vec!["helper::go", "app::main"]), "{fns:?}");
    assert!(!fns.iter().flatten().any(|f| f.starts_with("other::")), "{fns:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A parameter behind a smart pointer resolves to the pointee's method (`this: ArcBorrow<'_, Process>` resolved as `ArcBorrow::register`, and a method name shared
/// by two types, `register`, was then not resolved at all).
#[test]
fn methods_through_smart_pointer_parameters() {
    let src = "struct Process; impl Process { fn register(&self) -> Result<u32, E> { Err(EINVAL) } }\n\
               struct Shrinker; impl Shrinker { fn register(&self) -> Result<u32, E> { Ok(1) } }\n\
               fn main() -> Result<(), E> { let p = get(); run(p)?; Ok(()) }\n\
               fn run(this: ArcBorrow<'_, Process>) -> Result<u32, E> { this.register() }\n\
               fn pinned(this: Pin<&mut Process>) -> Result<u32, E> { this.register() }\n\
               fn boxed(this: &Arc<Process>) -> Result<u32, E> { this.register() }\n";
    let c = chains(src);
    assert!(
        c.contains(&vec![
            "crate::Process::register".to_string(),
            "crate::run".to_string(),
            "crate::main".to_string()
        ]),
        "{c:#?}"
    );
}

/// Audits a tree of `files` (relative path, text) written to a fresh temporary directory.
fn audit_tree(name: &str, files: &[(&str, &str)]) -> errtrace_audit::Report {
    let dir = std::env::temp_dir().join(format!("errtrace-audit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let r = audit(&Options {
        root: dir.clone(),
        config: Config::default(),
        jobs: Some(1),
        facts: None,
        kernel_tree: None,
    })
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// A module that only test builds compile (`#[cfg(any(test, testlib))] mod allocator_test;`,
/// as in the kernel's `alloc`) reaches no real boundary: its errors are not findings, while
/// the real module beside it is analysed as before. (Before: two false chains from
/// `rust/kernel/alloc/allocator_test.rs` into `rust_minimal`'s init.)
#[test]
fn modules_compiled_only_for_tests_reach_no_boundary() {
    let r = audit_tree(
        "testmods",
        &[
            (
                "rust_demo.rs",
                "use kernel::prelude::*;\n#[cfg(not(any(test, testlib)))]\nmod allocator;\n\
                 #[cfg(any(test, testlib))]\nmod allocator_test;\n#[cfg(test)]\nmod helpers;\n\
                 struct Demo;\nimpl kernel::Module for Demo {\n    fn init(_m: &'static ThisModule) -> Result<Self> {\n\
                 \x20       allocator::grow()?;\n        allocator_test::grow()?;\n        helpers::fake::setup()?;\n        Ok(Demo)\n    }\n}\n",
            ),
            ("allocator.rs", "pub(crate) fn grow() -> Result<()> { Err(EOVERFLOW) }\n"),
            ("allocator_test.rs", "pub(crate) fn grow() -> Result<()> { Err(EOVERFLOW) }\n"),
            ("helpers.rs", "pub(crate) mod fake;\n"),
            ("helpers/fake.rs", "pub(crate) fn setup() -> Result<()> { Err(EIO) }\n"),
        ],
    );
    let origins: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain)
        .map(|f| f.file.as_str())
        .collect();
    assert!(origins.contains(&"allocator.rs"), "{origins:?}");
    assert!(!origins.contains(&"allocator_test.rs"), "{origins:?}");
    assert!(
        !origins.contains(&"helpers/fake.rs"),
        "a test-only module's submodule: {origins:?}"
    );
}

/// A driver of several files without a `Cargo.toml` is one crate, built from its root's `mod`
/// items the way rustc builds it (each file was a crate of its own, so an
/// in-tree callee in another file was outside the tree, or took the wrong function).
#[test]
fn a_multi_file_driver_is_one_crate_from_its_mod_items() {
    let r = audit_tree(
        "mods",
        &[
            (
                "rust_demo.rs",
                "use kernel::prelude::*;\nmod regs;\n#[path = \"rust_demo/fifo_impl.rs\"]\nmod fifo;\n\
                 struct Demo;\nimpl kernel::Module for Demo {\n    fn init(_m: &'static ThisModule) -> Result<Self> {\n\
                 \x20       regs::read_id()?;\n        fifo::drain()?;\n        Ok(Demo)\n    }\n}\n",
            ),
            (
                "regs.rs",
                "mod bits;\npub(crate) fn read_id() -> Result<u32> { bits::check()?; Ok(1) }\n",
            ),
            ("regs/bits.rs", "pub(crate) fn check() -> Result<()> { Err(EIO) }\n"),
            ("rust_demo/fifo_impl.rs", "pub(crate) fn drain() -> Result<()> { Err(EAGAIN) }\n"),
        ],
    );
    let chains: Vec<Vec<String>> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain)
        .map(|f| f.chain.iter().map(|s| s.function.clone()).collect())
        .collect();
    assert!(
        chains.contains(&vec![
            "rust_demo::regs::bits::check".to_string(),
            "rust_demo::regs::read_id".to_string(),
            "rust_demo::Demo::init".to_string(),
        ]),
        "{chains:#?}"
    );
    assert!(
        chains.contains(&vec![
            "rust_demo::fifo::drain".to_string(),
            "rust_demo::Demo::init".to_string()
        ]),
        "{chains:#?}"
    );
}

/// A local whose type the source states resolves its method calls like a typed parameter
/// (`read`, shared by two types, was not resolved on a local).
#[test]
fn methods_on_typed_locals() {
    let types = "struct Dev; impl Dev { fn new() -> Result<Dev, E> { Ok(Dev) } fn read(&self) -> Result<u32, E> { Err(EIO) } }\n\
                 struct Other; impl Other { fn read(&self) -> Result<u32, E> { Ok(1) } }\n";
    for body in [
        "fn main() -> Result<(), E> { let dev = Dev::new()?; dev.read()?; Ok(()) }\n",
        "fn main() -> Result<(), E> { let dev: Dev = Dev; dev.read()?; Ok(()) }\n",
    ] {
        let c = chains(&format!("{types}{body}"));
        assert!(
            c.contains(&vec!["crate::Dev::read".to_string(), "crate::main".to_string()]),
            "{body}: {c:#?}"
        );
    }
}

/// `self.field.m(…)` resolves through the field's declared type (a method
/// name shared by two types was not resolved on a field).
#[test]
fn methods_on_self_fields() {
    let src = "struct Regs; impl Regs { fn read(&self) -> Result<u32, E> { Err(EIO) } }\n\
               struct Other; impl Other { fn read(&self) -> Result<u32, E> { Ok(1) } }\n\
               struct Dev { regs: Arc<Regs>, other: Other }\n\
               impl Dev { fn id(&self) -> Result<u32, E> { self.regs.read() } }\n\
               fn main() -> Result<(), E> { Dev { regs: todo!(), other: Other }.id()?; Ok(()) }\n";
    let c = chains(src);
    assert!(
        c.iter()
            .any(|ch| ch.first().map(String::as_str) == Some("crate::Regs::read")
                && ch.get(1).map(String::as_str) == Some("crate::Dev::id")),
        "{c:#?}"
    );
}

/// A type re-exported from a private module (`mod wrapper; pub(crate) use
/// self::wrapper::CritIncrWrapper;` in binder's `node.rs`) is the same type where it is
/// imported: `CritIncrWrapper::new()` resolves in-tree (before: "outside the analysed tree").
#[test]
fn re_exported_types_resolve_in_tree() {
    let r = audit_tree(
        "reexport",
        &[
            (
                "rust_demo.rs",
                "use kernel::prelude::*;\nmod node;\nuse crate::node::CritIncrWrapper;\n\
                 struct Demo;\nimpl kernel::Module for Demo {\n    fn init(_m: &'static ThisModule) -> Result<Self> {\n\
                 \x20       CritIncrWrapper::new()?;\n        Ok(Demo)\n    }\n}\n",
            ),
            (
                "node.rs",
                "mod wrapper;\npub(crate) use self::wrapper::CritIncrWrapper;\n",
            ),
            (
                "node/wrapper.rs",
                "pub(crate) struct CritIncrWrapper;\nimpl CritIncrWrapper {\n    \
                 pub(crate) fn new() -> Result<Self> {\n        Err(EBUSY)\n    }\n}\n",
            ),
        ],
    );
    let chains: Vec<(&str, u32)> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain)
        .map(|f| (f.file.as_str(), f.line))
        .collect();
    assert_eq!(chains, [("node/wrapper.rs", 4)], "{:#?}", r.findings);
}

/// An error a depended-on crate makes without a log line (a kernel-crate helper such as
/// `read_poll_timeout`), brought into a driver at several places: one finding for the origin,
/// naming every place it enters the driver unlogged (before: one search tree passed one of
/// them, and the others were not named; the blind Linux 7.3 corpus missed nova-core's
/// eight `read_poll_timeout` paths with the kernel crate).
#[test]
fn an_origin_in_a_depended_on_crate_names_every_entry() {
    let r = audit_tree(
        "entries",
        &[
            ("kernel/lib.rs", "pub mod poll;\npub mod prelude;\n"),
            ("kernel/prelude.rs", "pub use crate::poll::wait;\n"),
            (
                "kernel/poll.rs",
                "pub fn wait(ready: bool) -> Result<()> {\n    if ready {\n        return Ok(());\n    }\n    \
                 Err(ETIMEDOUT)\n}\n",
            ),
            (
                "rust_demo.rs",
                "use kernel::prelude::*;\nstruct Demo;\nimpl kernel::Module for Demo {\n    \
                 fn init(_m: &'static ThisModule) -> Result<Self> {\n        reset()?;\n        \
                 boot()?;\n        Ok(Demo)\n    }\n}\n\
                 fn reset() -> Result<()> {\n    kernel::poll::wait(false)?;\n    Ok(())\n}\n\
                 fn boot() -> Result<()> {\n    kernel::poll::wait(true)\n}\n",
            ),
        ],
    );
    let chains: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain && f.file == "kernel/poll.rs")
        .collect();
    assert_eq!(chains.len(), 1, "{:#?}", r.findings);
    let f = chains[0];
    let mut entries: Vec<(String, u32)> = f
        .chain
        .iter()
        .filter(|s| s.file == "rust_demo.rs" && s.function != "rust_demo::Demo::init")
        .map(|s| (s.file.clone(), s.line))
        .chain(f.also_enters.iter().map(|e| (e.file.clone(), e.line)))
        .collect();
    entries.sort();
    assert_eq!(
        entries,
        [("rust_demo.rs".to_string(), 11), ("rust_demo.rs".to_string(), 15)],
        "{f:#?}"
    );
    // SARIF names the other entry among the result's related locations.
    let sarif = errtrace_audit::output::sarif::render(&r);
    assert!(sarif.contains("also enters unlogged in `rust_demo::"), "{sarif}");
}

/// A platform driver audited inside a tree that holds the kernel crate (a copy of Linux's
/// `rust/`, as a developer auditing their own driver has it): `chip.init()` on a local made by
/// a struct literal is the driver's own `Chip::init`, not one of the kernel crate's `init`s, and
/// the PHY adapter's `T::probe` (`T: Driver`, phy's own trait) does not reach the driver's
/// `platform::Driver::probe`: each finding names only the probe it leaves.
#[test]
fn a_driver_beside_the_kernel_crate_keeps_its_own_calls_and_boundary() {
    let r = audit_tree(
        "beside-kernel",
        &[
            (
                "rust/kernel/lib.rs",
                "pub mod net;\npub mod platform;\npub mod sync;\n",
            ),
            ("rust/kernel/net.rs", "pub mod phy;\n"),
            (
                "rust/kernel/net/phy.rs",
                "pub trait Driver {\n    fn probe(dev: &mut Device) -> Result;\n}\n\
                 pub struct Adapter<T: Driver>(T);\n\
                 impl<T: Driver> Adapter<T> {\n    unsafe extern \"C\" fn probe_callback(dev: *mut Device) -> i32 {\n\
                 \x20       match T::probe(unsafe { &mut *dev }) {\n            Ok(()) => 0,\n            Err(e) => e.to_errno(),\n        }\n    }\n}\n",
            ),
            (
                "rust/kernel/platform.rs",
                "pub trait Driver {\n    fn probe(pdev: &Device) -> Result<Pin<KBox<Self>>>;\n}\n",
            ),
            (
                "rust/kernel/sync.rs",
                "pub struct Lock;\nimpl Lock {\n    pub fn init(&mut self) -> Result {\n        Err(EINVAL)\n    }\n}\n",
            ),
            (
                "drivers/misc/sensor.rs",
                "use kernel::{platform, prelude::*};\n\
                 struct Chip {\n    id: u32,\n}\n\
                 impl Chip {\n    fn init(&mut self) -> Result {\n        Err(EIO)\n    }\n}\n\
                 struct Sensor;\n\
                 impl platform::Driver for Sensor {\n    fn probe(pdev: &platform::Device) -> Result<Pin<KBox<Self>>> {\n\
                 \x20       let mut chip = Chip { id: 0 };\n        chip.init()?;\n        Ok(KBox::pin(Sensor, GFP_KERNEL)?)\n    }\n}\n",
            ),
        ],
    );
    let sensor: Vec<_> = r
        .findings
        .iter()
        .filter(|f| f.kind == Kind::SilentChain && f.file == "drivers/misc/sensor.rs")
        .collect();
    assert_eq!(sensor.len(), 1, "{sensor:#?}");
    let f = sensor[0];
    assert_eq!(f.line, 7, "the origin in Chip::init: {f:#?}");
    assert!(f.also_reaches.is_empty(), "no PHY adapter: {f:#?}");
}
