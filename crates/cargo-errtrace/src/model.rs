//! The compact per-file summary that extraction produces and the cross-file analysis reads.
//!
//! A summary holds no syntax tree and no span: only names, positions (line and column) and
//! flags. Each file is parsed, summarised and its tree dropped on a worker thread, so the
//! memory held for the whole corpus is the sum of these summaries.

use crate::findings::Finding;
pub use crate::findings::ParseError;
use crate::suppress::Suppressions;

/// A position in a source file: 1-based line, 1-based column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
}

/// What a function returns, as far as the signature tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ret {
    /// No return type: `()`.
    Unit,
    /// A path type; the string is its last segment (`Result`, `Option`, an alias name, …).
    Named(String),
    /// Anything else (tuples, references, `impl Trait` without a known output, …).
    Other,
}

impl Ret {
    /// Is this `Option<…>`?
    pub fn is_option(&self) -> bool {
        matches!(self, Ret::Named(n) if n == "Option")
    }
}

/// Why a function is a boundary: where errors leave the analysed code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Boundary {
    /// `init` of an `impl kernel::Module` / `InPlaceModule`.
    ModuleInit,
    /// `probe` of a driver trait impl.
    Probe,
    /// `fn main`.
    Main,
    /// `extern "…" fn` with a body, `#[no_mangle]` or `#[export_name]`.
    Exported,
    /// An entry point from user space: `open`/`ioctl`/`read`/`write`/`mmap`… in a file
    /// operations trait impl, or an `extern "C"` function stored in such a member of a
    /// `file_operations`/`proc_ops` table. Its errno is the system call's result.
    FileOp,
    /// Any other method of a kernel driver trait impl (`impl phy::Driver for …`,
    /// `impl cpufreq::Driver for …`): the subsystem's C code calls it through an adapter.
    DriverCallback,
    /// A method of a `#[vtable] impl` of configfs's `AttributeOperations` or `GroupOperations`:
    /// an entry point from user space, its errno the result of read(2), write(2) or mkdir(2) in
    /// configfs.
    ConfigfsOp,
    /// A DRM driver's ioctl handler, registered with `declare_drm_ioctls!`: an entry point from
    /// user space, its errno the `ioctl`'s result.
    DrmIoctl,
    /// Named in the config's `boundaries`.
    Config,
}

impl Boundary {
    /// A short human description.
    pub fn describe(self) -> &'static str {
        match self {
            Boundary::ModuleInit => "module init",
            Boundary::Probe => "driver probe",
            Boundary::Main => "main",
            Boundary::Exported => "exported extern function",
            Boundary::FileOp => "file operation",
            Boundary::DriverCallback => "driver callback",
            Boundary::ConfigfsOp => "configfs operation",
            Boundary::DrmIoctl => "DRM ioctl",
            Boundary::Config => "configured boundary",
        }
    }

    /// What becomes of an error that leaves such a boundary unlogged.
    pub fn fate(self) -> &'static str {
        match self {
            Boundary::ModuleInit => {
                "errors leaving it are not printed by anyone: the kernel hands the errno to insmod"
            }
            Boundary::Probe => {
                "the driver core prints only \"probe … failed with error -N\", and nothing (debug \
                 level only) for ENODEV, ENXIO and EPROBE_DEFER"
            }
            Boundary::Main => {
                "the standard library prints only the error's Debug form, not where it came from"
            }
            Boundary::Exported => "its caller is not Rust and gets only the value; nobody prints the error",
            Boundary::FileOp => {
                "the errno is the system call's result, seen by the process that made it; \
                 nothing is printed"
            }
            Boundary::DriverCallback => {
                "the subsystem's C code gets only the errno; it prints nothing for most callbacks"
            }
            Boundary::ConfigfsOp => {
                "the errno is the result of the read(2), write(2) or mkdir(2) in configfs, seen \
                 by the process that made it; nothing is printed"
            }
            Boundary::DrmIoctl => {
                "the errno is the ioctl's result, seen by the process that made it; DRM prints \
                 only its number, at debug level (drm_ioctl's drm_dbg_core)"
            }
            Boundary::Config => "errors leaving it are not printed by anyone",
        }
    }
}

/// Driver-trait callbacks whose failure the subsystem's C code prints: not boundaries. The
/// cpufreq core prints "Failed to change cpu frequency: %d" when `target_index` fails
/// (`__target_index` in Linux 6.12); phylib's state machine warns with the callback's name when
/// `read_status` fails (`phy_error_precise`: `WARN(1, "%pS: returned: %d")`, Linux 6.12 and 7.3),
/// and `config_aneg` too (its state machine's `_phy_start_aneg`, the same warning: 7.3's
/// `drivers/net/phy/phy.c:1605-1613`); a PHY's `soft_reset` fails back through `phy_init_hw`
/// and `phy_attach_direct` (7.3's `drivers/net/phy/phy_device.c`) to the MAC driver attaching the
/// PHY, which reports the failed attach (two readers of the kernel's code judged it so, for the
/// in-tree PHY drivers' MACs);
/// a driver's `suspend` and `resume` run under the PM core, which prints a failing callback
/// (`dpm_run_callback` → `__suspend_report_result`: "%s(): %ps returns %d", and `pm_dev_err`).
pub const SUBSYSTEM_PRINTS: &[&str] = &[
    "target_index",
    "read_status",
    "config_aneg",
    "soft_reset",
    "suspend",
    "resume",
];

/// Whether `f` is a driver-trait callback whose failure the subsystem prints
/// ([`SUBSYSTEM_PRINTS`]): an error leaving it is reported by the C code that called it, so
/// no chain goes on into its caller (the kernel crate's adapter).
pub fn subsystem_prints(f: &FnSummary) -> bool {
    f.trait_name.as_deref() == Some("Driver") && SUBSYSTEM_PRINTS.contains(&f.name.as_str())
}

/// A called function as written at a call site, before resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callee {
    /// `f(…)`, `m::f(…)`, `Type::f(…)`, `Self::f(…)` (with `Self` already replaced when known).
    Path(Vec<String>),
    /// `self.m(…)`.
    SelfMethod(String),
    /// `x.m(…)` on any other receiver.
    Method(String),
    /// `T::m(…)` where `T` is a generic type parameter: some trait impl's `m`; with `T`'s
    /// trait bounds when the source states them (`T: Driver + Loadable`), those traits' impls.
    Generic(String, String, Vec<String>),
    /// `x.m(…)` where `x` holds what the call `path(…)` returned (`let hal = gsp_hal(chip);`):
    /// the `m` of that function's value type, found once the call is resolved.
    OnValueOf(Vec<String>, String),
    /// `S.m(…)` on a `static` or `const` (`crate::netlink::FAMILY.register()`): the `m` of the
    /// type it is declared with (a call out of the tree when that type is not in it).
    OnStatic(Vec<String>, String),
    /// `x.f.m(…)` where `x` has the type `T` (as written) and `f` is a field of `T` declared
    /// in another file: the `m` of `f`'s declared type.
    OnFieldOf(Vec<String>, String, String),
    /// `x.m(…)` where `x` is an item of an iterator of type `X` (`for cmd in SeqIter::new(…)`, or
    /// the `Ok(cmd)` of such an item): the `m` of `X`'s `Item` type.
    OnItemOf(String, String),
}

impl Callee {
    /// The called name (last path segment or method name).
    pub fn name(&self) -> &str {
        match self {
            Callee::Path(segs) => segs.last().map(String::as_str).unwrap_or(""),
            Callee::SelfMethod(m)
            | Callee::Method(m)
            | Callee::Generic(_, m, _)
            | Callee::OnValueOf(_, m)
            | Callee::OnStatic(_, m)
            | Callee::OnFieldOf(_, _, m)
            | Callee::OnItemOf(_, m) => m,
        }
    }

    /// The call as written, for messages.
    pub fn display(&self) -> String {
        match self {
            Callee::Path(segs) => segs.join("::"),
            Callee::SelfMethod(m) => format!("self.{m}"),
            Callee::Method(m) | Callee::OnValueOf(_, m) => format!(".{m}"),
            Callee::OnStatic(s, m) => format!("{}.{m}", s.join("::")),
            Callee::OnFieldOf(_, f, m) => format!(".{f}.{m}"),
            Callee::OnItemOf(_, m) => format!(".{m}"),
            Callee::Generic(t, m, _) => format!("{t}::{m}"),
        }
    }
}

/// How an error leaves a function at a site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// A `?` operator.
    Try,
    /// `return <expr>`.
    Return,
    /// The function's tail expression.
    Tail,
    /// `match call() { Err(e) => return Err(e), … }`: the error of `call` passed on unchanged.
    Rethrow,
}

/// What the error at a site comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// An error made here: `Err(…)`, `.ok_or(…)`, `.ok_or_else(…)`.
    Made,
    /// A call to an origin function (`from_errno`, `to_result`, `from_err_ptr`, config), with
    /// the C function whose value it makes an errno of (`to_result(unsafe { bindings::f(…) })`).
    OriginFn(String, Option<String>),
    /// The result of a call.
    Call(Callee),
}

/// One place where an error can leave a function.
#[derive(Debug, Clone)]
pub struct Site {
    /// Where the `?` / `return` / tail expression is.
    pub pos: Pos,
    /// How the error leaves.
    pub how: How,
    /// Where the error comes from.
    pub target: Target,
    /// A logging call is attached to it (`.inspect_err(|e| pr_err!(…))?`, `.log("…")?`,
    /// `Err(err!(EIO, "…"))`, `dev_err_probe(…)`).
    pub attached: bool,
    /// An earlier statement of the same block contains a logging call (it counts for an error
    /// made here, not for one a call returns after it).
    pub before: bool,
    /// Inside a closure or async block (the `?` leaves the closure, not the function).
    pub in_closure: bool,
    /// For an error made here: its errno when the source names it (`Err(EINVAL)`,
    /// `Err(code::ENODEV)`, `err!(EIO, …)`).
    pub errno: Option<String>,
    /// An allocation's failure, which the allocator has already warned about: an error made in
    /// the branch that handles a null from an allocating C function (`let p = unsafe {
    /// bindings::shrinker_alloc(…) }; if p.is_null() { return Err(…) }`), or `?` on a call
    /// with GFP flags (`RBTreeNodeReservation::new(GFP_KERNEL)?`).
    pub allocation: bool,
    /// The `?` of an arithmetic-overflow or integer-conversion guard (`a.checked_add(b)
    /// .ok_or(EOVERFLOW)?`, `u32::try_from(n)?`, `x.try_into()?`): code that must not panic
    /// checks what its invariants already exclude.
    pub guard: bool,
    /// The call's arguments that are themselves calls, by position (receiver not counted):
    /// when the callee takes a fallible initialiser there ([`FnSummary::init_params`]), the
    /// argument's error leaves through this call too (`Devres::new(dev, Sgt::new(…))`).
    pub init_args: Vec<(u32, Callee)>,
    /// For a re-thrown error (`Err(e) => return Err(e)`): the codes that arms before it handle
    /// by name (`Err(ERANGE) => continue`), which therefore never leave here.
    pub handled: Vec<String>,
}

/// The `method` of a [`CheckKind::UnwrapOr`] for `if let Ok(…) = f() { … }` without an
/// `else`, which drops the error as `.ok()` does.
pub const IF_LET_OK: &str = "if let Ok";

/// Codes a driver hands back on purpose, which nobody waits to read about: a deferral
/// (`EPROBE_DEFER`: the driver core records it and probes again) and the restart codes of a wait
/// a signal interrupted (`ERESTARTSYS` …: the syscall is restarted or returns `EINTR`; user
/// space never sees them).
pub const DELIBERATE_CODES: &[&str] = &[
    "EPROBE_DEFER",
    "ERESTARTSYS",
    "ERESTARTNOINTR",
    "ERESTARTNOHAND",
    "ERESTART_RESTARTBLOCK",
];

impl Site {
    /// Named by one of the [`DELIBERATE_CODES`]: not an error anyone waits to read about. (A
    /// made `ENOMEM` is quiet only where an allocation failed, which [`Site::allocation`]
    /// says: a bound check that returns `ENOMEM` fails without any message.)
    pub fn quiet_errno(&self) -> bool {
        self.errno
            .as_deref()
            .is_some_and(|e| DELIBERATE_CODES.contains(&e))
    }
}

/// A candidate finding that needs the whole-tree index to decide (does the callee return
/// `Result`? is the crate `no_std`?).
#[derive(Debug, Clone)]
pub struct Check {
    /// Where.
    pub pos: Pos,
    /// What.
    pub kind: CheckKind,
}

/// The kinds of deferred checks.
#[derive(Debug, Clone)]
pub enum CheckKind {
    /// `let _ = call()`, `_ = call()`, `drop(call())`: the string names the form.
    Discard {
        /// `let _ =`, `_ =`, `drop(…)`.
        form: &'static str,
        /// The call whose result is dropped.
        callee: Callee,
        /// A comment on the line before or at the end of the line says why: an acknowledged
        /// discard, counted apart rather than reported.
        acknowledged: bool,
        /// The dropped value is known to be a `Result` (`.ok();`), even when the callee is
        /// outside the tree.
        is_result: bool,
    },
    /// `.unwrap_or(…)` and friends, or `.ok()` (not as a statement), on a call, without a log.
    UnwrapOr {
        /// `unwrap_or`, `unwrap_or_default`, `unwrap_or_else`, `ok`.
        method: String,
        /// The call.
        callee: Callee,
    },
    /// `.unwrap()` / `.expect(…)` on a call.
    Unwrap {
        /// `unwrap` or `expect`.
        method: String,
        /// The call.
        callee: Callee,
    },
    /// `panic!`/`unreachable!`/`todo!`/`unimplemented!`: a finding if the function returns `Result`.
    PanicMacro(String),
}

/// A function (free, inherent or trait method, trait default method) with a body.
#[derive(Debug, Clone)]
pub struct FnSummary {
    /// The function's name.
    pub name: String,
    /// The implementing type's last path segment (`impl Foo`), or the trait's name for a
    /// default method in a trait definition.
    pub owner: Option<String>,
    /// The implemented trait's last path segment (`impl Trait for Foo`).
    pub trait_name: Option<String>,
    /// The implemented trait's path as written (`impl platform::Driver for Foo`).
    pub trait_path: Vec<String>,
    /// Module path from the crate root: file modules then inline `mod`s.
    pub module: Vec<String>,
    /// `crate::module::Type::name`, for messages.
    pub display: String,
    /// Position of the name.
    pub pos: Pos,
    /// Return type.
    pub ret: Ret,
    /// The type a successful call yields, by name: through `Result`, `Option`, references and
    /// smart pointers; for `dyn Trait` or `impl Trait`, the trait (`&'static dyn GspHal` →
    /// `GspHal`). A method called on a local bound to the call is that type's (or trait's).
    pub value_type: Option<String>,
    /// Positions of the parameters (receiver not counted) that take a fallible initialiser
    /// (`data: impl PinInit<T, E>`, `init: impl Init<T, Error>`): the function runs it, and its
    /// error is the function's.
    pub init_params: Vec<u32>,
    /// Takes `self`.
    pub has_self: bool,
    /// Is a boundary, and why.
    pub boundary: Option<Boundary>,
    /// Error exits.
    pub sites: Vec<Site>,
    /// Deferred checks.
    pub checks: Vec<Check>,
}

/// Everything the cross-file analysis needs from one file.
#[derive(Debug, Clone, Default)]
pub struct FileSummary {
    /// Path relative to the audited root, with `/` separators.
    pub path: String,
    /// The crate the file belongs to (package name, the directory holding `lib.rs`, or the
    /// file's stem).
    pub crate_name: String,
    /// The crate's root directory relative to the audited root (identifies the crate).
    pub crate_root: String,
    /// Number of lines.
    pub lines: u32,
    /// Real `?` operators.
    pub question_marks: u32,
    /// Checks that cannot fail for the values they are given (`mapping.try_access()` on a
    /// `Devres` made in the same probe): counted, never listed.
    pub cannot_fail_checks: u32,
    /// Logging calls.
    pub log_calls: u32,
    /// `#![no_std]` at the top of the file.
    pub no_std: bool,
    /// Paths starting with `kernel::` are used.
    pub uses_kernel: bool,
    /// Functions with bodies (outside test code).
    pub functions: Vec<FnSummary>,
    /// `type X = …Result<…>` aliases: (alias, last segment of the aliased type).
    pub type_aliases: Vec<(String, String)>,
    /// `static`s and `const`s with a type a method can be called on: (name, type as written,
    /// `serdev::Device`-style).
    pub statics: Vec<(String, String)>,
    /// Named struct fields with a type a method can be called on: (struct, field, type as
    /// written).
    pub struct_fields: Vec<(String, String, String)>,
    /// `impl Iterator for X { type Item = … }`: (X, the item's value type as written, through
    /// `Result`/`Option`).
    pub iter_items: Vec<(String, String)>,
    /// `use` imports: (name in scope, full path); glob imports as (`*`, prefix).
    pub uses: Vec<(String, Vec<String>)>,
    /// Traits the file declares, by name.
    pub traits: Vec<String>,
    /// The methods those traits declare (with or without a default body), by name.
    pub trait_methods: Vec<String>,
    /// Findings decided within the file (swallowed arms, `.ok();`).
    pub findings: Vec<Finding>,
    /// Set when the file did not parse.
    pub parse_error: Option<ParseError>,
    /// `// errtrace-audit: allow(…)` comments.
    pub suppressions: Suppressions,
    /// The file's top-level `mod name;` items (modules in other files).
    pub mod_items: Vec<ModItem>,
    /// Functions the file stores in an operations table as entry points from user space
    /// (`unlocked_ioctl: Some(my_ioctl)` in a `file_operations`): their errno is a system call's
    /// result.
    pub user_entries: std::collections::BTreeSet<String>,
    /// A DRM driver's ioctl handlers (`declare_drm_ioctls!`), as `Type::method`: entry points
    /// from user space.
    pub drm_ioctls: std::collections::BTreeSet<String>,
}

/// A `mod name;` item: the module's body is in another file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModItem {
    /// The module's name.
    pub name: String,
    /// Its `#[path = "…"]`, if any.
    pub path: Option<String>,
    /// A `#[cfg(…)]` on it holds only in test builds (see [`crate::cfgtest`]).
    pub test_only: bool,
}
