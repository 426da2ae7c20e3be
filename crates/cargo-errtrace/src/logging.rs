//! What counts as a logging call, and the other name lists the extraction uses.

use crate::config::Config;
use std::collections::HashSet;

/// Kernel print macros, without suffix (`_once`, `_ratelimited` are added). Not the debug
/// ones (`pr_debug!`, `pr_devel!`, `dev_dbg!`): they are compiled out, or off until
/// dynamic_debug turns them on, so an error printed only with them leaves silently.
const KERNEL_LEVELS: &[&str] = &[
    "pr_emerg",
    "pr_alert",
    "pr_crit",
    "pr_err",
    "pr_warn",
    "pr_notice",
    "pr_info",
    "dev_emerg",
    "dev_alert",
    "dev_crit",
    "dev_err",
    "dev_warn",
    "dev_notice",
    "dev_info",
];

/// Whether a logging macro prints at a progress level (`pr_info!`, `dev_notice!`, `info!`):
/// a line about what is happening, not about a failure.
pub fn is_progress_level(name: &str) -> bool {
    let base = name
        .strip_suffix("_once")
        .or_else(|| name.strip_suffix("_ratelimited"))
        .unwrap_or(name);
    base == "info" || base.ends_with("_info") || base.ends_with("_notice")
}

/// `log`, `tracing` and std macros that log.
const OTHER_MACROS: &[&str] = &[
    "error",
    "warn",
    "info",
    "debug",
    "trace",
    "event",
    "eprintln",
    "eprint",
    "dev_err_probe",
];

/// Functions that log (last path segment).
const LOG_FUNCTIONS: &[&str] = &["dev_err_probe"];

/// Methods on a `Result` that log its error: errtrace's (`.log("…")`, `.log_with(|e| …)`,
/// `.not_expected("…")`, `.or_log("…", v)`), read from `errtrace::vocabulary`, the list errtrace's
/// own tests hold to `ResultExt`.
fn log_methods() -> impl Iterator<Item = &'static str> {
    errtrace::vocabulary::logging_methods().chain(KERNEL_LOG_METHODS.iter().copied())
}

/// The kernel crate's methods on a `Result` that print its error: a missing firmware property
/// read with `.required_by(dev)` prints "property '…' is missing" on the device.
const KERNEL_LOG_METHODS: &[&str] = &["required_by"];

/// Result adapters whose closure argument runs on the error path: a log call inside the
/// closure logs the error.
pub const ERROR_CLOSURE_ADAPTERS: &[&str] = &[
    "map_err",
    "inspect_err",
    "or_else",
    "map_or_else",
    "unwrap_or_else",
];

/// Methods that pass the error of their receiver through (possibly converted); the callee of
/// the `?` is found under them.
/// errtrace's own (`.during()`, `.log()`, `.not_expected()`…) come from `errtrace::vocabulary`:
/// see [`passes_through`].
pub const PASS_THROUGH: &[&str] = &[
    "map_err",
    "inspect_err",
    "inspect",
    "or_else",
    "context",
    "with_code",
    "with_context",
    "wrap_err",
    "wrap_err_with",
    "map",
    "and_then",
    "into",
];

/// What a method does with the error of the `Result` it is called on ([`Names::method_role`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodRole {
    /// Logs it and passes it on (`.log("…")`, `.not_expected("…")`): a log attached to the hop.
    Logs,
    /// Makes an error out of an `Option` or a value (`.ok_or(E)`): an origin here.
    Makes,
    /// Passes it on, possibly converted (`.map_err(…)`, `.during("…")`): look at the receiver.
    PassesOn,
    /// A logging function called as a method: the error is made and logged here.
    LogsAsFunction,
    /// An origin function called as a method (`.to_result()`).
    Origin,
    /// Any other method: a call whose error this is.
    Call,
}

/// Whether an adapter runs its closure argument on the error path (a log in it logs the error).
pub fn runs_on_error(name: &str) -> bool {
    ERROR_CLOSURE_ADAPTERS.contains(&name)
}

/// Whether a method passes the error of its receiver through: the general adapters of
/// [`PASS_THROUGH`], and errtrace's methods that pass the error on.
pub fn passes_through(name: &str) -> bool {
    PASS_THROUGH.contains(&name) || errtrace::vocabulary::passing_methods().any(|m| m == name)
}

/// Methods that make an error out of an `Option` or a value.
pub const MAKERS: &[&str] = &["ok_or", "ok_or_else"];

/// Functions that make an error (origins).
const ORIGIN_FUNCTIONS: &[&str] = &["from_errno", "to_result", "from_err_ptr"];

/// Calls whose failure is reported by the callee: the kernel's allocating constructors and
/// methods (`KBox`, `KVec`, `Arc`… are aliases of these types). A failed allocation is
/// reported by the allocator (`warn_alloc`, or the slab's out-of-memory message) unless the
/// flags hold `__GFP_NOWARN`. The same names in `std` code never fail with an error, so they
/// make no origin there.
const REPORTED_BY_CALLEE: &[&str] = &[
    "CString::try_from_fmt",
    "CString::try_from",
    // The fallible allocation methods of kernels before 6.12 (the kernel's own `alloc`).
    "Vec::try_push",
    "Vec::try_with_capacity",
    "Vec::try_reserve",
    "Vec::try_extend_from_slice",
    "Box::try_new",
    "Arc::try_new",
    "UniqueArc::try_new",
    "Box::new",
    "Box::new_uninit",
    "Box::pin",
    "Box::pin_init",
    "Box::init",
    // `KBox::try_pin_init(init, flags)` (the kernel's `InPlaceInit`): as `pin_init`, the
    // initialiser's own errors are followed where it is written.
    "Box::try_pin_init",
    "Box::try_init",
    "Vec::with_capacity",
    "Vec::push",
    "Vec::reserve",
    "Vec::extend_from_slice",
    "Vec::resize",
    "Arc::new",
    "Arc::pin_init",
    "Arc::init",
    "Arc::try_pin_init",
    "Arc::try_init",
    "UniqueArc::new",
    "UniqueArc::new_uninit",
    "UniqueArc::pin_init",
    "UniqueArc::init",
];

/// The kernel crate's initialisers that cannot fail (`impl PinInit<Self>` with no error type),
/// written in `try_pin_init!` beside fallible ones (`links <- ListLinks::new()`): an error of
/// the whole initialiser is never theirs.
const CANNOT_FAIL: &[&str] = &[
    "ListLinks::new",
    "ListLinksSelfPtr::new",
    "AtomicTracker::new",
    "Mutex::new",
    "SpinLock::new",
    "CondVar::new",
    "Work::new",
    "Opaque::uninit",
    "Opaque::zeroed",
    "Opaque::ffi_init",
    "Opaque::new",
    "init::zeroed",
    "init::uninit",
    // pin-init's own (Linux 7.3: `pin_init::init_zeroed::<T>()`, an `impl Init<T>`).
    "pin_init::init_zeroed",
    "pin_init::uninit",
];

/// Calls of the kernel crate whose C side prints its failures, checked against the C sources
/// of Linux 6.12, matched on the end of the path as written (a name alone matches any type's
/// method of that name): `request_firmware` prints "Direct firmware load for … failed";
/// `auxiliary_device_init`/`__auxiliary_device_add` print "adding auxiliary device failed!"
/// (`Registration::new_with_lt` is Linux 7.3's name for the constructor);
/// `driver_register`/`bus_add_driver` print "Driver '…' is already registered" and their other
/// failures; `pci_enable_device_mem` prints "can't enable device: BAR …", and
/// `drm_dev_init` prints with `DRM_ERROR`. Their remaining failures are allocations. Not a
/// PCI BAR's mapping (`iomap_region_sized`): only its region conflict prints ("BAR n: can't
/// reserve …"), while a zero-length BAR and a failed `pci_iomap` return `ENOMEM` unprinted
/// (two readers of Linux 7.3's `rust/kernel/pci/io.rs`, labelling drivers blind).
const C_SIDE_PRINTS: &[&str] = &[
    "Firmware::request",
    "auxiliary::Registration::new",
    "auxiliary::Registration::new_with_lt",
    "driver::Registration::new",
    "UnregisteredDevice::new",
    // Allocations (the allocator reports): `pwmchip_alloc`, and a property array read into a
    // new vector, whose read error is in the `PropertyGuard` it returns.
    "pwm::Chip::new",
    "property_read_array_vec",
    "enable_device_mem",
    "enable_device",
];

/// C functions that print every failure they return (checked against Linux 7.3's C sources):
/// an errno made from their return value (`to_result(unsafe { bindings::f(…) })`, or
/// `Err(Error::from_errno(ret))` with `let ret = unsafe { bindings::f(…) }`) was reported where
/// it was made. `__auxiliary_device_add` prints each of its three failures ("auxiliary device
/// modname is NULL", "… dev_set_name failed", "adding auxiliary device failed!");
/// `pci_enable_device_mem`/`pci_enable_device` print "can't enable device: BAR …" and
/// `pci_request_region` "BAR n: can't reserve …" (their other failures are allocations).
const C_FUNCTIONS_THAT_PRINT: &[&str] = &[
    "__auxiliary_device_add",
    "pci_enable_device_mem",
    "pci_enable_device",
    "pci_request_region",
];

/// The kernel's allocator-specific aliases of `Box` and `Vec`.
const ALLOC_ALIASES: &[(&str, &str)] = &[
    ("KBox", "Box"),
    ("VBox", "Box"),
    ("KVBox", "Box"),
    ("KVec", "Vec"),
    ("VVec", "Vec"),
    ("KVVec", "Vec"),
];

/// Macros that panic.
pub const PANIC_MACROS: &[&str] = &["panic", "unreachable", "todo", "unimplemented"];

/// The kernel's build-time assertions: code that reaches them does not build, so an arm that
/// calls one never runs (`Err(_) => build_error!("…")` is not a swallow). Not panics either.
pub const BUILD_TIME_MACROS: &[&str] = &["build_error"];

/// Name sets built from the defaults plus the config.
#[derive(Debug, Clone)]
pub struct Names {
    macros: HashSet<String>,
    functions: HashSet<String>,
    methods: HashSet<String>,
    origins: HashSet<String>,
    /// From the config: callee names whose discarded results are reported.
    pub discard: HashSet<String>,
    /// `Type::name` (or a bare name) of calls whose failure the callee reports.
    reported_by_callee: HashSet<String>,
    /// What the kernel tree's C says about the functions the code calls through the bindings;
    /// when present, it replaces the lists of C functions and of kernel-crate calls whose C
    /// side prints.
    c: Option<std::sync::Arc<crate::csource::Knowledge>>,
}

impl Names {
    /// Defaults plus `config`.
    pub fn new(config: &Config) -> Names {
        let mut macros: HashSet<String> = HashSet::new();
        for l in KERNEL_LEVELS {
            macros.insert((*l).to_string());
            macros.insert(format!("{l}_once"));
            macros.insert(format!("{l}_ratelimited"));
        }
        macros.extend(OTHER_MACROS.iter().map(|s| s.to_string()));
        macros.extend(config.log_macros.iter().cloned());
        let mut functions: HashSet<String> = LOG_FUNCTIONS.iter().map(|s| s.to_string()).collect();
        functions.extend(config.log_functions.iter().cloned());
        let mut methods: HashSet<String> = log_methods().map(|s| s.to_string()).collect();
        methods.extend(config.log_methods.iter().cloned());
        let mut origins: HashSet<String> = ORIGIN_FUNCTIONS.iter().map(|s| s.to_string()).collect();
        origins.extend(config.origin_functions.iter().cloned());
        Names {
            macros,
            functions,
            methods,
            origins,
            discard: config.discard_functions.iter().cloned().collect(),
            reported_by_callee: REPORTED_BY_CALLEE
                .iter()
                .map(|s| s.to_string())
                .chain(config.reported_by_callee.iter().cloned())
                .collect(),
            c: None,
        }
    }

    /// Use what a kernel tree's C says about the functions called through the bindings.
    pub fn set_c_knowledge(&mut self, k: crate::csource::Knowledge) {
        self.c = Some(std::sync::Arc::new(k));
    }

    /// The kernel tree's C knowledge, when the audit has one.
    pub fn c_knowledge(&self) -> Option<&crate::csource::Knowledge> {
        self.c.as_deref()
    }

    /// Does the callee report its own failure? `owner` is the type a call names
    /// (`KBox::new`) or its resolved in-tree function's type; the kernel's aliases count as
    /// their types.
    pub fn is_reported_by_callee(&self, owner: Option<&str>, name: &str) -> bool {
        if self.reported_by_callee.contains(name) {
            return true;
        }
        let Some(owner) = owner else { return false };
        if CANNOT_FAIL.contains(&format!("{owner}::{name}").as_str()) {
            return true;
        }
        let owner = ALLOC_ALIASES
            .iter()
            .find(|(alias, _)| *alias == owner)
            .map_or(owner, |(_, ty)| *ty);
        self.reported_by_callee.contains(&format!("{owner}::{name}"))
    }

    /// Does the C side of this call print its failures ([`C_SIDE_PRINTS`])? `segs` is the path
    /// as written (`auxiliary::Registration::new`) or the type and method a call resolved to.
    /// With a kernel tree, the kernel crate's code is followed to its C instead.
    pub fn c_side_prints(&self, segs: &[&str]) -> bool {
        if self.c.is_some() {
            return false;
        }
        C_SIDE_PRINTS.iter().any(|entry| {
            let want: Vec<&str> = entry.split("::").collect();
            segs.ends_with(&want)
        })
    }

    /// Does this C function (a `bindings::` name) need no log from its caller: it prints every
    /// failure it returns, fails only by allocating, or cannot fail? Read from the kernel tree's
    /// C when the audit has one and the tree shows it; else [`C_FUNCTIONS_THAT_PRINT`].
    pub fn c_function_prints(&self, name: &str) -> bool {
        if let Some(reported) = self.c.as_ref().and_then(|k| k.reported(name)) {
            return reported;
        }
        C_FUNCTIONS_THAT_PRINT.contains(&name)
    }

    /// Adds macros that log (the tree's own `macro_rules!` wrappers around logging macros).
    pub fn add_log_macros(&mut self, more: impl IntoIterator<Item = String>) {
        self.macros.extend(more);
    }

    /// Is a macro with this last path segment a logging macro? `err!` is handled apart (it
    /// logs only with a message).
    pub fn is_log_macro(&self, name: &str) -> bool {
        self.macros.contains(name)
    }

    /// Is a function with this last path segment a logging function?
    pub fn is_log_function(&self, name: &str) -> bool {
        self.functions.contains(name)
    }

    /// Is this a logging method? `first_arg_is_text` tells whether the first argument is a
    /// string literal or a `format!`-like macro: `.log(…)` counts only then, so that
    /// `x.log(2.0)` (a logarithm) does not.
    pub fn is_log_method(&self, name: &str, first_arg_is_text: bool, n_args: usize) -> bool {
        if !self.methods.contains(name) {
            return false;
        }
        if name == "log" {
            return first_arg_is_text || n_args == 0;
        }
        true
    }

    /// What a method called on a `Result` (or on what makes one) does with the error: the one
    /// table both the syntax-tree walk and the token scan of macro bodies read, so that the two
    /// cannot disagree.
    pub fn method_role(&self, name: &str, first_arg_is_text: bool, n_args: usize) -> MethodRole {
        if self.is_log_method(name, first_arg_is_text, n_args) {
            MethodRole::Logs
        } else if MAKERS.contains(&name) {
            MethodRole::Makes
        } else if passes_through(name) {
            MethodRole::PassesOn
        } else if self.is_log_function(name) {
            MethodRole::LogsAsFunction
        } else if self.is_origin_function(name) {
            MethodRole::Origin
        } else {
            MethodRole::Call
        }
    }

    /// Is a function with this last path segment an origin function?
    pub fn is_origin_function(&self, name: &str) -> bool {
        self.origins.contains(name)
    }
}
