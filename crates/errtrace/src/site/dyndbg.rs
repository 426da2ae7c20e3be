//! dynamic_debug descriptors: with the `dyndbg` feature every static site (`err!`,
//! `fail_point!`) also places a descriptor laid out as the Linux kernel's `struct _ddebug` in the
//! `__dyndbg` section, so that the kernel lists the site in `/proc/dynamic_debug/control` and its
//! `+p`/`-p` and prefix flags reach it (`echo 'file bus.rs +p' > /proc/dynamic_debug/control`,
//! `dyndbg=` on the `insmod` line, `module NAME +p`). The kernel adds a module's descriptors at
//! load and removes them at unload.
//!
//! # Layout
//!
//! Four pointers to NUL-terminated strings (module, function, file, format), one 32-bit word
//! holding `lineno:18`, `class_id:6` and `flags:8` from the least significant bit, and, on a
//! kernel with `CONFIG_JUMP_LABEL` (every distribution's), the descriptor's static key (a
//! `struct static_key_false`, as the kernel's own `STATIC_KEY_FALSE_INIT`). Compiled inside a
//! kernel build (`cfg(CONFIG_RUST)`), the key is the kernel's bindgen type and the size, alignment
//! and field offsets are checked at compile time against the kernel's bindgen `struct _ddebug`,
//! so a kernel whose layout differs fails to build the module instead of handing the loader a
//! misparsed `__dyndbg` array. The bit-field order is the C compiler's: the kernel glue checks it
//! at load.
//!
//! # What the kernel's flags do
//!
//! Every descriptor starts with `p` clear, as a C `pr_debug()` does. `p` is dynamic_debug's
//! *debug output* switch: set on a site that does not print by default (no message, `quiet`,
//! `debug`, or a code that is quiet by its build-time class: `err!(EAGAIN, "…")`), the site prints
//! (errtrace's `+p`, rate limited). On a site that prints by default (an error with a message,
//! a fail point, a boundary) `p` changes nothing: its report is not debug output, so a blanket
//! `module NAME -p` typed to quiet debug output leaves error reports alone. Silencing an error
//! site takes an errtrace query on errtrace's own control (`func NAME -p`).
//!
//! The site's check of `p` follows the descriptor's static key: with `CONFIG_JUMP_LABEL` it is a
//! static branch (the kernel's `static_branch_unlikely!`, patched by dynamic_debug's
//! `static_branch_enable`/`disable` exactly as for C), elsewhere one load of the flags word.
//! `m`, `f`, `s`, `l`, `t` are the prefixes of the same names on every site (errtrace's flag
//! letters mean what dynamic_debug's do; its trail is `h`).
//!
//! The descriptor's module is the kernel module's name (`module!`'s, as `KBUILD_MODNAME` is for
//! C), so `module NAME` groups a module's sites as for C, built in or loaded; outside a kernel
//! build it is the Rust module path. The kernel's `func` keyword matches the descriptor's
//! function field, which holds the Rust module path (`demo::bus`): a Rust function's name is not
//! a constant C string.

use super::{flags, Site, SiteKind};
use crate::policy::kind::Policy;
use crate::raw::ddebug::dd;
pub(crate) use crate::raw::ddebug::DynDebug;

/// A site's descriptor, with the site's own check of the descriptor's `p` (a static branch on its
/// key where the kernel has jump labels, a load of its flags word elsewhere).
pub(crate) type Attached = (&'static DynDebug, fn() -> bool);

/// Whether a site prints by default, as far as its source says: a fail point, or a message whose
/// policy is not `quiet` or `debug`, and with no policy written, whose code is not quiet by its
/// build-time class (`quiet_code`: `EAGAIN`, `ENOMEM`, … written as a bare name).
pub(crate) const fn prints_by_default(
    kind: SiteKind,
    policy: Option<Policy>,
    has_message: bool,
    quiet_code: bool,
) -> bool {
    match kind {
        SiteKind::FailPoint | SiteKind::Boundary => true,
        SiteKind::Error | SiteKind::Log => {
            has_message
                && match policy {
                    Some(Policy::Quiet | Policy::Debug) => false,
                    Some(_) => true,
                    None => !quiet_code,
                }
        }
    }
}

/// errtrace's flags (`site::flags`) that the kernel's flags on `d` add for `site`: `p` (read
/// through the site's check, `print`) makes a site that does not print by default print, and the
/// prefixes apply everywhere.
#[inline]
pub(crate) fn overrides(d: &DynDebug, site: &Site, print: fn() -> bool) -> u32 {
    let dd_flags = d.dd_flags();
    let mut f = 0;
    if !site.dyndbg_prints && print() {
        f |= flags::PRINT_ON;
    }
    if dd_flags & dd::MODNAME != 0 {
        f |= flags::MODULE;
    }
    if dd_flags & dd::FUNCNAME != 0 {
        f |= flags::FUNCTION;
    }
    if dd_flags & dd::LINENO != 0 {
        f |= flags::LINE;
    }
    if dd_flags & dd::TID != 0 {
        f |= flags::THREAD;
    }
    if dd_flags & dd::SOURCENAME != 0 {
        f |= flags::SOURCE;
    }
    f
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::site::SiteKind;
    use crate::sync::Ordering;

    #[test]
    fn which_sites_print_by_default() {
        use SiteKind::*;
        assert!(prints_by_default(Error, None, true, false));
        assert!(!prints_by_default(Error, None, true, true));
        assert!(prints_by_default(Error, Some(Policy::Always), true, true));
        assert!(!prints_by_default(Error, None, false, false));
        assert!(!prints_by_default(Error, Some(Policy::Quiet), true, false));
        assert!(!prints_by_default(Error, Some(Policy::Debug), true, false));
        assert!(prints_by_default(FailPoint, None, false, true));
        assert!(prints_by_default(Boundary, None, false, true));
    }

    fn descriptor(e: &crate::Error) -> (&'static DynDebug, &'static crate::site::SiteState) {
        let site = e.site().and_then(|s| s.static_site()).unwrap();
        (site.dyndbg.unwrap().0, &site.state)
    }

    // The sites' registry (linkme) and descriptor statics have link sections.
    #[allow(unsafe_code)]
    #[test]
    fn kernel_flags_on_a_descriptor_reach_the_site() {
        use crate::code::{EAGAIN, EIO};
        use crate::err;
        use flags::*;
        let relaxed = Ordering::Relaxed;

        // A site without a message: listed with its code as the format (so that `format EAGAIN`
        // finds it); quiet by default, p clear; +p makes it print.
        let e = err!(EAGAIN);
        let (d, st) = descriptor(&e);
        e.handled();
        assert_eq!(d.format(), c"EAGAIN");
        assert_eq!(d.dd_flags(), 0);
        assert_eq!(st.flags(relaxed), 0);
        d.set_dd_flags(dd::PRINT);
        assert_eq!(st.flags(relaxed), PRINT_ON);
        d.set_dd_flags(
            dd::PRINT | dd::FUNCNAME | dd::LINENO | dd::MODNAME | dd::TID | dd::SOURCENAME,
        );
        assert_eq!(
            st.flags(relaxed),
            PRINT_ON | FUNCTION | LINE | MODULE | THREAD | SOURCE
        );
        d.set_dd_flags(0);
        assert_eq!(st.flags(relaxed), 0);

        // A message with a code that is quiet by its class: p starts clear; +p makes it print.
        let e = err!(EAGAIN, "busy");
        let (d, st) = descriptor(&e);
        e.handled();
        assert_eq!(d.format(), c"busy");
        assert_eq!(d.dd_flags(), 0);
        d.set_dd_flags(dd::PRINT);
        assert_eq!(st.flags(relaxed), PRINT_ON);

        // A site with a message prints by default: p starts clear and neither +p nor -p changes
        // whether it prints (a blanket `-p` does not silence error reports); prefixes apply.
        let e = err!(always, EIO, "loud");
        let (d, st) = descriptor(&e);
        e.handled();
        assert_eq!(d.dd_flags(), 0);
        assert_eq!(st.flags(relaxed), 0);
        d.set_dd_flags(dd::PRINT | dd::LINENO);
        assert_eq!(st.flags(relaxed), LINE);
        d.set_dd_flags(0);
        assert_eq!(st.flags(relaxed), 0);
        // Silencing it is errtrace's own control's, and adds to the kernel's flags.
        #[cfg(feature = "control")]
        {
            st.update_flags(crate::site::FlagOp::Add, PRINT_OFF | THREAD);
            d.set_dd_flags(dd::MODNAME);
            assert_eq!(st.flags(relaxed), PRINT_OFF | THREAD | MODULE);
        }
    }
}
