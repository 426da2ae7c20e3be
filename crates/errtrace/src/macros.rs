//! The macros: [`err!`](crate::err) (and, in [`fault`](crate::fault), `fail_point!`).

/// Makes an [`Error`](crate::Error) at a static site that records file, line, column, module
/// and the enclosing function; with a message, the creator logs it (per the site's policy).
///
/// ```text
/// err!(CODE)                          // make, don't log
/// err!(CODE, "format", args…)         // make and log (the creator logs)
/// err!(POLICY, CODE[, "format", args…])
/// ```
///
/// `CODE` is an expression evaluated where you write it: a code name is resolved in your scope
/// like any other name, so import it (`use errtrace::code::EIO;` or `use errtrace::code::*;`),
/// and a constant of your own named `EIO` is yours. It is a [`Code`](crate::code::Code) or any
/// value with a `to_errno()` method in the kernel's negative convention: in kernel code the
/// prelude's `EINVAL` (a `kernel::error::Error`) works as it is (a value outside `1..=4095`
/// becomes `EINVAL`). A bare name that is one of errtrace's code names also gives the site its
/// build-time quiet class, for the dynamic_debug descriptor's starting flags.
/// `POLICY` is one of `always`, `once`, `quiet`, `debug`,
/// `ratelimit(BURST, INTERVAL_MS)`; without it the code's default class applies
/// ([`policy`](crate::policy)).
///
/// # Examples
///
/// ```
/// use errtrace::code::{EAGAIN, EIO};
/// use errtrace::err;
///
/// fn read_reg(reg: u32) -> errtrace::Result<u32> {
///     if reg > 0xff {
///         return Err(err!(EIO, "read of reg {:#x} failed", reg));
///     }
///     Ok(0)
/// }
///
/// let e = read_reg(0x100).unwrap_err();
/// assert!(e.is_logged());
/// assert!(e.origin().function.unwrap().ends_with("read_reg"));
///
/// let quiet = err!(quiet, EAGAIN);
/// quiet.handled();
/// let code = errtrace::code::ENODEV;
/// err!(once, code, "no device").handled();
/// ```
#[macro_export]
macro_rules! err {
    (always, $($rest:tt)+) => {
        $crate::__err_impl!([::core::option::Option::Some($crate::policy::Policy::Always)]; $($rest)+)
    };
    (once, $($rest:tt)+) => {
        $crate::__err_impl!([::core::option::Option::Some($crate::policy::Policy::Once)]; $($rest)+)
    };
    (quiet, $($rest:tt)+) => {
        $crate::__err_impl!([::core::option::Option::Some($crate::policy::Policy::Quiet)]; $($rest)+)
    };
    (debug, $($rest:tt)+) => {
        $crate::__err_impl!([::core::option::Option::Some($crate::policy::Policy::Debug)]; $($rest)+)
    };
    (ratelimit($burst:expr, $interval_ms:expr), $($rest:tt)+) => {
        $crate::__err_impl!([::core::option::Option::Some(
            $crate::__private::CheckedRateLimit::<{ $burst }, { $interval_ms }>::policy()
        )]; $($rest)+)
    };
    // Two names in a row: the first can only be a policy, and it is not one of the above.
    ($policy:ident, $code:path $(, $($rest:tt)*)?) => {
        ::core::compile_error!(::core::concat!(
            "errtrace::err!: unknown policy `",
            ::core::stringify!($policy),
            "`; expected `always`, `once`, `quiet`, `debug` or `ratelimit(BURST, INTERVAL_MS)` ",
            "before the code"
        ))
    };
    ($($rest:tt)+) => { $crate::__err_impl!([::core::option::Option::None]; $($rest)+) };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __err_impl {
    // A code written by its name (`EAGAIN`): its build-time class is known here, for the
    // dynamic_debug descriptor's starting `p`. Anything else is taken as a normal code.
    ([$($policy:tt)+]; $code:ident $($rest:tt)*) => {
        $crate::__err_site!(
            [$($policy)+] [$crate::__private::quiet_by_name(::core::stringify!($code))];
            $code $($rest)*
        )
    };
    ([$($policy:tt)+]; $($rest:tt)+) => {
        $crate::__err_site!([$($policy)+] [false]; $($rest)+)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __err_site {
    ([$($policy:tt)+] [$quiet:expr]; $code:expr) => {{
        // No message: dynamic_debug lists the code as the site's format (`format EIO`).
        $crate::__site!(
            __ERRTRACE_SITE, Error, [$($policy)+] [$quiet], "", ::core::stringify!($code)
        );
        $crate::__private::made(
            $crate::Error::__at_site(&__ERRTRACE_SITE, $crate::__code!($code)),
            &__ERRTRACE_SITE,
        )
    }};
    ([$($policy:tt)+] [$quiet:expr]; $code:expr, $fmt:literal $($args:tt)*) => {{
        $crate::__site!(__ERRTRACE_SITE, Error, [$($policy)+] [$quiet], $fmt);
        let mut e = $crate::Error::__at_site(&__ERRTRACE_SITE, $crate::__code!($code));
        $crate::__private::log_created(
            &mut e,
            &__ERRTRACE_SITE,
            ::core::format_args!($fmt $($args)*),
        );
        e
    }};
}

/// Declares a static site named `$name` here.
#[doc(hidden)]
#[macro_export]
macro_rules! __site {
    ($name:ident, $kind:ident, [$($policy:tt)+] [$quiet:expr], $fmt:expr) => {
        $crate::__site!($name, $kind, [$($policy)+] [$quiet], $fmt, $fmt);
    };
    // `$dd_fmt`: the format the dynamic_debug descriptor shows (the message's, or the code's).
    ($name:ident, $kind:ident, [$($policy:tt)+] [$quiet:expr], $fmt:expr, $dd_fmt:expr) => {
        fn __errtrace_here() {}
        static $name: $crate::__private::Site = $crate::__dyndbg!($dd_fmt,
            $crate::__private::Site::new(
                ::core::file!(),
                ::core::line!(),
                ::core::column!(),
                ::core::module_path!(),
                || ::core::any::type_name_of_val(&__errtrace_here),
                $fmt,
                $crate::__private::SiteKind::$kind,
                $($policy)+,
            )
            .with_quiet_code($quiet)
        );
        $crate::__register!(SITE_REGISTRY, $crate::__private::Site, __ERRTRACE_REGISTERED, $name);
    };
}

/// Takes the code as an expression evaluated where the user wrote it: a code name resolves in
/// the caller's scope like any other name (the macro brings no names into the caller's
/// expression). Any value with a `to_errno()` is accepted: errtrace's `Code` (a `const fn`, so
/// this stays usable in a static) and the kernel's `Error`, whose codes the kernel prelude
/// brings into scope.
#[doc(hidden)]
#[macro_export]
macro_rules! __code {
    ($code:expr) => {
        $crate::__private::code_from_errno(($code).to_errno())
    };
}

/// Adds the static `$item` (of type `$ty`) to the link-time registry `$slice` (of
/// `errtrace::__private`), under the name `$reg`, so that it is known before it is first used.
#[cfg(feature = "registry")]
#[doc(hidden)]
#[macro_export]
macro_rules! __register {
    ($slice:ident, $ty:ty, $reg:ident, $item:ident) => {
        #[$crate::__private::linkme::distributed_slice($crate::__private::$slice)]
        #[linkme(crate = $crate::__private::linkme)]
        static $reg: &'static $ty = &$item;
    };
}

/// With the `dyndbg` feature: a dynamic_debug descriptor for the site `$site` (an expression of
/// type `Site`), in the `__dyndbg` section, attached to the site with the site's check of its
/// `p` (`__dyndbg_print!`).
#[cfg(feature = "dyndbg")]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg {
    ($fmt:expr, $site:expr) => {{
        // The kernel collects the `__dyndbg` section of a module at load and writes the flags.
        #[allow(unsafe_code)]
        #[unsafe(link_section = "__dyndbg")]
        #[used]
        static __ERRTRACE_DYNDBG: $crate::__private::DynDebug = $crate::__private::DynDebug::new(
            $crate::__dyndbg_modname!(),
            ::core::concat!(::core::module_path!(), "\0"),
            ::core::concat!(::core::file!(), "\0"),
            ::core::concat!($fmt, "\0"),
            ::core::line!(),
        );
        fn __errtrace_dd_print() -> bool {
            $crate::__dyndbg_print!(__ERRTRACE_DYNDBG)
        }
        $site.with_dyndbg(&__ERRTRACE_DYNDBG, __errtrace_dd_print)
    }};
}

/// The descriptor's module name, NUL-terminated: in a kernel build the module's name, which
/// `module!` defines as `__LOG_PREFIX` in the crate root (what `pr_info!` prints with).
#[cfg(all(feature = "dyndbg", CONFIG_RUST))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg_modname {
    () => {
        crate::__LOG_PREFIX
    };
}

/// Outside a kernel build: the Rust module path.
#[cfg(all(feature = "dyndbg", not(CONFIG_RUST)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg_modname {
    () => {
        ::core::concat!(::core::module_path!(), "\0").as_bytes()
    };
}

/// The site's check of its descriptor's `p` with `CONFIG_JUMP_LABEL`: a static branch on the
/// descriptor's key, a NOP until dynamic_debug enables the key.
#[cfg(all(feature = "dyndbg", CONFIG_RUST, CONFIG_JUMP_LABEL))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg_print {
    ($descriptor:ident) => {
        // SAFETY: `key` is a real static key (a `static_key_false` initialised as
        // `STATIC_KEY_FALSE_INIT`, in an `UnsafeCell`) in a static that lives as long as the code
        // that branches on it; the kernel registers the branch's jump entry with the module. The
        // branch names the key by symbol and offset only (`static_branch_unlikely()`'s `false`).
        #[allow(unsafe_code)]
        unsafe {
            ::kernel::jump_label::arch_static_branch! {
                $descriptor,
                $crate::__private::DynDebug,
                key,
                false
            }
        }
    };
}

/// The site's check of its descriptor's `p` without jump labels: one load of the flags word.
#[cfg(all(feature = "dyndbg", not(all(CONFIG_RUST, CONFIG_JUMP_LABEL))))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg_print {
    ($descriptor:ident) => {
        $descriptor.print_enabled()
    };
}

/// Without the `dyndbg` feature the site is all there is.
#[cfg(not(feature = "dyndbg"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dyndbg {
    ($fmt:expr, $site:expr) => {
        $site
    };
}

/// Without the registry a site or fail point becomes known when it is first used.
#[cfg(not(feature = "registry"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __register {
    ($slice:ident, $ty:ty, $reg:ident, $item:ident) => {};
}
