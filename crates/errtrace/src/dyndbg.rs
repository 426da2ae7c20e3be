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

use crate::policy::kind::Policy;
use crate::site::{flags, Site, SiteKind};
use crate::sync::{AtomicU32, Ordering};

/// dynamic_debug's flag bits (`_DPRINTK_FLAGS_*`).
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
/// `key` (with `CONFIG_JUMP_LABEL`) is written only by the kernel's jump label code; Rust takes
/// its address and never reads it through a reference.
#[doc(hidden)]
#[repr(C, align(8))]
pub struct DynDebug {
    modname: &'static u8,
    function: &'static u8,
    filename: &'static u8,
    format: &'static u8,
    word: AtomicU32,
    /// The descriptor's static key (`key.dd_key_false`), switched by dynamic_debug with `p`.
    #[cfg(all(CONFIG_RUST, CONFIG_JUMP_LABEL))]
    pub key: ::kernel::bindings::static_key_false,
}

/// The layout, checked against the kernel's own `struct _ddebug` as bindgen read it from the
/// headers of the kernel being built for.
#[cfg(CONFIG_RUST)]
const _: () = {
    use ::kernel::bindings::_ddebug as C;
    use core::mem::{align_of, offset_of, size_of};
    assert!(size_of::<DynDebug>() == size_of::<C>());
    assert!(align_of::<DynDebug>() >= align_of::<C>());
    assert!(offset_of!(DynDebug, modname) == offset_of!(C, modname));
    assert!(offset_of!(DynDebug, function) == offset_of!(C, function));
    assert!(offset_of!(DynDebug, filename) == offset_of!(C, filename));
    assert!(offset_of!(DynDebug, format) == offset_of!(C, format));
    assert!(offset_of!(DynDebug, word) == offset_of!(C, _bitfield_1));
    assert!(
        size_of::<AtomicU32>() == size_of::<::kernel::bindings::__BindgenBitfieldUnit<[u8; 4]>>()
    );
    #[cfg(CONFIG_JUMP_LABEL)]
    assert!(offset_of!(DynDebug, key) == offset_of!(C, key));
};

impl core::fmt::Debug for DynDebug {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DynDebug({:#010x})", self.word.load(Ordering::Relaxed))
    }
}

/// The first byte of `s`, which the macros make NUL-terminated (never empty).
const fn first(s: &'static [u8]) -> &'static u8 {
    match s {
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
        modname: &'static [u8],
        function: &'static str,
        filename: &'static str,
        format: &'static str,
        line: u32,
    ) -> DynDebug {
        DynDebug {
            modname: first(modname),
            function: first(function.as_bytes()),
            filename: first(filename.as_bytes()),
            format: first(format.as_bytes()),
            word: AtomicU32::new(encode(line, CLASS_DEFAULT, 0)),
            // STATIC_KEY_FALSE_INIT: disabled, JUMP_TYPE_FALSE (the site's branch is a NOP until
            // dynamic_debug enables the key).
            #[cfg(all(CONFIG_RUST, CONFIG_JUMP_LABEL))]
            key: ::kernel::bindings::static_key_false {
                key: ::kernel::bindings::static_key {
                    enabled: ::kernel::bindings::atomic_t { counter: 0 },
                    __bindgen_anon_1: ::kernel::bindings::static_key__bindgen_ty_1 { type_: 0 },
                },
            },
        }
    }

    /// Whether the kernel's `p` is set on this descriptor: one load of the flags word. The sites'
    /// check where the kernel has no jump labels (and outside a kernel).
    #[inline]
    pub fn print_enabled(&self) -> bool {
        (self.word.load(Ordering::Relaxed) >> FLAGS_SHIFT) & dd::PRINT != 0
    }

    /// The word of a descriptor at `line` with dynamic_debug flags `dd_flags` and no class, for the
    /// kernel glue to compare with the C compiler's bit-fields at load.
    pub const fn word(line: u32, dd_flags: u32) -> u32 {
        encode(line, CLASS_DEFAULT, dd_flags)
    }

    /// errtrace's flags (`site::flags`) that the kernel's flags on this descriptor add for `site`:
    /// `p` (read through the site's check, `print`) makes a site that does not print by default
    /// print, and the prefixes apply everywhere.
    #[inline]
    pub(crate) fn overrides(&self, site: &Site, print: fn() -> bool) -> u32 {
        let dd_flags = self.word.load(Ordering::Relaxed) >> FLAGS_SHIFT;
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
    fn outside_a_kernel_the_descriptor_has_no_key() {
        assert_eq!(core::mem::size_of::<DynDebug>(), 40);
        assert_eq!(core::mem::align_of::<DynDebug>(), 8);
    }

    #[test]
    fn every_descriptor_starts_with_p_clear_and_names_its_module() {
        let d = DynDebug::new(b"errtrace_demo\0", "f\0", "x.rs\0", "msg\0", 3);
        assert_eq!(d.dd_flags(), 0);
        assert!(!d.print_enabled());
        assert_eq!(*d.modname, b'e');
        d.set_dd_flags(dd::PRINT);
        assert!(d.print_enabled());
    }

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
        st.update_flags(crate::site::FlagOp::Add, PRINT_OFF | THREAD);
        d.set_dd_flags(dd::MODNAME);
        assert_eq!(st.flags(relaxed), PRINT_OFF | THREAD | MODULE);
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
