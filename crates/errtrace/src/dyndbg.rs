//! dynamic_debug descriptors: with the `dyndbg` feature every static site (`err!`,
//! `fail_point!`) also places a descriptor laid out as the Linux kernel's `struct _ddebug` in the
//! `__dyndbg` section, so that the kernel lists the site in `/proc/dynamic_debug/control` and its
//! `+p`/`-p` and prefix flags reach it (`echo 'file bus.rs +p' > /proc/dynamic_debug/control`,
//! `dyndbg=` on the `insmod` line, `module NAME =p`). The kernel adds a module's descriptors at
//! load and removes them at unload; errtrace only reads the flags word.
//!
//! # Layout
//!
//! Linux 6.12 without `CONFIG_JUMP_LABEL` (the kernel module's C part checks the size, and the
//! glue checks the bit-field encoding against the C compiler's at load): four pointers to
//! NUL-terminated strings (module, function, file, format), then one 32-bit word holding
//! `lineno:18`, `class_id:6` and `flags:8` from the least significant bit; 40 bytes, 8-aligned.
//!
//! # How the flags map onto errtrace's
//!
//! The descriptor's `p` starts set on a site that prints by default (fail points; a message with
//! no `quiet` or `debug` policy and, when no policy is written, a code that is not quiet by its
//! build-time class: `err!(EAGAIN, "…")` starts clear) and clear elsewhere (no message, `quiet`,
//! `debug`). A code's class changed at run time (`policy::set_code_policy`) or a code that is not
//! written as one of errtrace's code names (a variable, `self::EAGAIN`) does not change where
//! `p` starts. A `p` that
//! differs from that default is an override: set on a quiet site it is errtrace's `+p` (print,
//! rate limited), cleared on a printing site it is `-p` (silent, still counted and recorded).
//! Setting `p` back to the default ends the override. `m`, `f`, `s`, `l`, `t` are the prefixes of
//! the same names (errtrace's flag letters mean what dynamic_debug's do; its trail is `h`).
//!
//! The kernel's `func` keyword matches the descriptor's function field, which holds the module
//! path (`demo::bus`): a Rust function's name is not a constant C string.

use crate::policy::kind::Policy;
use crate::site::{flags, Site, SiteKind};
use crate::sync::{AtomicU32, Ordering};

/// dynamic_debug's flag bits (`_DPRINTK_FLAGS_*`, Linux 6.12).
mod dd {
    pub(super) const PRINT: u32 = 1 << 0;
    pub(super) const MODNAME: u32 = 1 << 1;
    pub(super) const FUNCNAME: u32 = 1 << 2;
    pub(super) const LINENO: u32 = 1 << 3;
    pub(super) const TID: u32 = 1 << 4;
    pub(super) const SOURCENAME: u32 = 1 << 5;
}

/// `class_id` of a descriptor outside any class (`_DPRINTK_CLASS_DFLT`).
const CLASS_DEFAULT: u32 = (1 << 6) - 1;
const LINE_BITS: u32 = 18;
const FLAGS_SHIFT: u32 = 24;

/// A `struct _ddebug`, made by errtrace's macros in the `__dyndbg` section. Not built by hand.
///
/// # Invariants
///
/// Every pointer field points to the first byte of a NUL-terminated `'static` string. `word`
/// is written by the kernel (under its dynamic_debug lock) and read here with relaxed loads.
#[doc(hidden)]
#[repr(C, align(8))]
pub struct DynDebug {
    modname: &'static u8,
    function: &'static u8,
    filename: &'static u8,
    format: &'static u8,
    word: AtomicU32,
}

impl core::fmt::Debug for DynDebug {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DynDebug({:#010x})", self.word.load(Ordering::Relaxed))
    }
}

/// The first byte of `s`, which the macros make NUL-terminated (never empty).
const fn first(s: &'static str) -> &'static u8 {
    match s.as_bytes() {
        [b, ..] => b,
        [] => &0,
    }
}

/// The descriptor's word for `line` and dynamic_debug `flags` (bit-field order of x86-64 and
/// every little-endian Linux target: the first field in the least significant bits).
pub(crate) const fn encode(line: u32, class: u32, dd_flags: u32) -> u32 {
    (line & ((1 << LINE_BITS) - 1))
        | ((class & 0x3F) << LINE_BITS)
        | ((dd_flags & 0xFF) << FLAGS_SHIFT)
}

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

impl DynDebug {
    /// Used by the macros: every string ends with `"\0"`.
    #[cfg(not(loom))]
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        modname: &'static str,
        function: &'static str,
        filename: &'static str,
        format: &'static str,
        line: u32,
        kind: SiteKind,
        policy: Option<Policy>,
        quiet_code: bool,
    ) -> DynDebug {
        // The format without its NUL.
        let bare = match format.as_bytes() {
            [rest @ .., 0] => rest.len(),
            _ => format.len(),
        };
        let prints = prints_by_default(kind, policy, bare != 0, quiet_code);
        DynDebug {
            modname: first(modname),
            function: first(function),
            filename: first(filename),
            format: first(format),
            word: AtomicU32::new(encode(
                line,
                CLASS_DEFAULT,
                if prints { dd::PRINT } else { 0 },
            )),
        }
    }

    /// The word of a descriptor at `line` with dynamic_debug flags `dd_flags` and no class, for the
    /// kernel glue to compare with the C compiler's bit-fields at load.
    pub const fn word(line: u32, dd_flags: u32) -> u32 {
        encode(line, CLASS_DEFAULT, dd_flags)
    }

    /// errtrace's flags (`site::flags`) that the kernel's flags on this descriptor add for `site`.
    #[inline]
    pub(crate) fn overrides(&self, site: &Site) -> u32 {
        let dd_flags = self.word.load(Ordering::Relaxed) >> FLAGS_SHIFT;
        let default = site.dyndbg_prints;
        let mut f = 0;
        if (dd_flags & dd::PRINT != 0) != default {
            f |= if default {
                flags::PRINT_OFF
            } else {
                flags::PRINT_ON
            };
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

    /// Writes the kernel's flags as `echo … > control` would (for tests).
    #[cfg(test)]
    pub(crate) fn set_dd_flags(&self, dd_flags: u32) {
        let w = self.word.load(Ordering::Relaxed);
        let w = (w & !(0xFF << FLAGS_SHIFT)) | ((dd_flags & 0xFF) << FLAGS_SHIFT);
        self.word.store(w, Ordering::Relaxed);
    }

    /// The kernel's flags.
    #[cfg(test)]
    pub(crate) fn dd_flags(&self) -> u32 {
        self.word.load(Ordering::Relaxed) >> FLAGS_SHIFT
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::site::SiteKind;

    #[test]
    fn word_encoding_matches_the_c_bitfields() {
        // lineno:18 | class_id:6 | flags:8, from the least significant bit.
        assert_eq!(encode(59, CLASS_DEFAULT, 1), 59 | (63 << 18) | (1 << 24));
        assert_eq!(encode((1 << 18) + 5, 0, 0x1FF), 5 | (0xFF << 24));
    }

    #[test]
    fn descriptor_is_the_size_of_struct_ddebug() {
        assert_eq!(core::mem::size_of::<DynDebug>(), 40);
        assert_eq!(core::mem::align_of::<DynDebug>(), 8);
    }

    #[test]
    fn p_starts_at_the_default_and_differs_to_override() {
        let loud = DynDebug::new(
            "m\0",
            "f\0",
            "x.rs\0",
            "msg\0",
            3,
            SiteKind::Error,
            None,
            false,
        );
        let quiet = DynDebug::new(
            "m\0",
            "f\0",
            "x.rs\0",
            "\0",
            4,
            SiteKind::Error,
            None,
            false,
        );
        let quiet_code = DynDebug::new(
            "m\0",
            "f\0",
            "x.rs\0",
            "msg\0",
            3,
            SiteKind::Error,
            None,
            true,
        );
        let quiet_code_always = DynDebug::new(
            "m\0",
            "f\0",
            "x.rs\0",
            "msg\0",
            3,
            SiteKind::Error,
            Some(Policy::Always),
            true,
        );
        let quiet_policy = DynDebug::new(
            "m\0",
            "f\0",
            "x.rs\0",
            "msg\0",
            5,
            SiteKind::Error,
            Some(Policy::Quiet),
            false,
        );
        assert_eq!(loud.dd_flags(), dd::PRINT);
        assert_eq!(quiet_code.dd_flags(), 0);
        assert_eq!(quiet_code_always.dd_flags(), dd::PRINT);
        assert_eq!(quiet.dd_flags(), 0);
        assert_eq!(quiet_policy.dd_flags(), 0);
    }

    fn descriptor(e: &crate::Error) -> (&'static DynDebug, &'static crate::site::SiteState) {
        let site = e.site().and_then(|s| s.static_site()).unwrap();
        (site.dyndbg.unwrap(), &site.state)
    }

    // The sites' registry (linkme) and descriptor statics have link sections.
    #[allow(unsafe_code)]
    #[test]
    fn kernel_flags_on_a_descriptor_reach_the_site() {
        use crate::code::{EAGAIN, EIO};
        use crate::err;
        use flags::*;
        let relaxed = Ordering::Relaxed;

        // A site without a message: quiet by default, p clear; +p makes it print.
        let e = err!(EAGAIN);
        let (d, st) = descriptor(&e);
        e.handled();
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
        assert_eq!(d.dd_flags(), 0);
        d.set_dd_flags(dd::PRINT);
        assert_eq!(st.flags(relaxed), PRINT_ON);

        // A site with a message prints by default: p set; -p silences it.
        let e = err!(always, EIO, "loud");
        let (d, st) = descriptor(&e);
        e.handled();
        assert_eq!(d.dd_flags(), dd::PRINT);
        assert_eq!(st.flags(relaxed), 0);
        d.set_dd_flags(0);
        assert_eq!(st.flags(relaxed), PRINT_OFF);
        // errtrace's own control adds to the kernel's.
        st.update_flags(crate::site::FlagOp::Add, THREAD);
        assert_eq!(st.flags(relaxed), PRINT_OFF | THREAD);
        d.set_dd_flags(dd::PRINT);
        assert_eq!(st.flags(relaxed), THREAD);
    }

    #[allow(unsafe_code)]
    #[test]
    fn a_descriptor_holds_c_strings_of_the_site() {
        let e = crate::err!(crate::code::EIO, "fmt {}", 1);
        let (d, _) = descriptor(&e);
        e.handled();
        // The fields are references to the first byte of each NUL-terminated string.
        assert_eq!(*d.filename, file!().as_bytes()[0]);
        assert_eq!(*d.format, b'f');
        assert_eq!(d.word.load(Ordering::Relaxed) & 0x3FFFF, line!() - 6);
    }
}
