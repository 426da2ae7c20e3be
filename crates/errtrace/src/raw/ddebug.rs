//! The kernel's `struct _ddebug` as a Rust static (the `dyndbg` feature): storage the kernel
//! writes while Rust code runs. What its flags mean to errtrace is [`crate::site::dyndbg`]'s.

use crate::sync::{AtomicU32, Ordering};
#[cfg(all(CONFIG_RUST, CONFIG_JUMP_LABEL))]
use core::cell::UnsafeCell;
use core::ffi::c_char;

/// dynamic_debug's flag bits (`_DPRINTK_FLAGS_*`).
pub(crate) mod dd {
    pub(crate) const PRINT: u32 = 1 << 0;
    pub(crate) const MODNAME: u32 = 1 << 1;
    pub(crate) const FUNCNAME: u32 = 1 << 2;
    pub(crate) const LINENO: u32 = 1 << 3;
    pub(crate) const TID: u32 = 1 << 4;
    pub(crate) const SOURCENAME: u32 = 1 << 5;
}

/// `class_id` of a descriptor outside any class (`_DPRINTK_CLASS_DFLT`).
const CLASS_DEFAULT: u32 = (1 << 6) - 1;
const LINE_BITS: u32 = 18;
const FLAGS_SHIFT: u32 = 24;

/// A `struct _ddebug`, made by errtrace's macros in the `__dyndbg` section. Not built by hand.
///
/// # Invariants
///
/// Every pointer field points to the first byte of a NUL-terminated `'static` string (C reads
/// each to its NUL). `word` is written by the kernel (under its dynamic_debug lock) and read here
/// with relaxed loads. `key` (with `CONFIG_JUMP_LABEL`) is written only by the kernel's jump label
/// code, so it sits in an `UnsafeCell`; Rust takes its address and never reads it.
#[doc(hidden)]
#[repr(C, align(8))]
pub struct DynDebug {
    modname: *const c_char,
    function: *const c_char,
    filename: *const c_char,
    format: *const c_char,
    word: AtomicU32,
    /// The descriptor's static key (`key.dd_key_false`), switched by dynamic_debug with `p`.
    #[cfg(all(CONFIG_RUST, CONFIG_JUMP_LABEL))]
    pub key: UnsafeCell<::kernel::bindings::static_key_false>,
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

/// `s` as a C string: its first byte, if `s` ends with a NUL (the macros make every string so);
/// otherwise the empty C string, so that C never reads past `s`.
const fn c_string(s: &'static [u8]) -> *const c_char {
    match s {
        [.., 0] => s.as_ptr().cast(),
        _ => c"".as_ptr(),
    }
}

/// The descriptor's word for `line` and dynamic_debug `flags` (bit-field order of x86-64 and
/// every little-endian Linux target: the first field in the least significant bits).
const fn encode(line: u32, class: u32, dd_flags: u32) -> u32 {
    (line & ((1 << LINE_BITS) - 1))
        | ((class & 0x3F) << LINE_BITS)
        | ((dd_flags & 0xFF) << FLAGS_SHIFT)
}

// SAFETY: a dynamic_debug descriptor is shared by every CPU that reaches its site. Its strings are
// `'static` and never written (the raw pointers to them are what make the type `!Sync`), and its
// flags word is atomic. Its static key (inside a kernel build with `CONFIG_JUMP_LABEL`) is in an
// `UnsafeCell`, written only by the kernel's jump label code, under `jump_label_mutex`, through
// the descriptor's address: Rust code never reads or writes it (the site's static branch names it
// by symbol and offset in the jump table). The static holding a descriptor is not `Freeze`, so it
// is placed in writable memory, where the kernel's writes are allowed.
unsafe impl Sync for DynDebug {}

impl DynDebug {
    /// Used by the macros: every string ends with `"\0"`.
    #[cfg(not(loom))]
    pub const fn new(
        modname: &'static [u8],
        function: &'static str,
        filename: &'static str,
        format: &'static str,
        line: u32,
    ) -> DynDebug {
        DynDebug {
            modname: c_string(modname),
            function: c_string(function.as_bytes()),
            filename: c_string(filename.as_bytes()),
            format: c_string(format.as_bytes()),
            word: AtomicU32::new(encode(line, CLASS_DEFAULT, 0)),
            // STATIC_KEY_FALSE_INIT: disabled, JUMP_TYPE_FALSE (the site's branch is a NOP until
            // dynamic_debug enables the key).
            #[cfg(all(CONFIG_RUST, CONFIG_JUMP_LABEL))]
            key: UnsafeCell::new(::kernel::bindings::static_key_false {
                key: ::kernel::bindings::static_key {
                    enabled: ::kernel::bindings::atomic_t { counter: 0 },
                    __bindgen_anon_1: ::kernel::bindings::static_key__bindgen_ty_1 { type_: 0 },
                },
            }),
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

    /// The kernel's flags on this descriptor (the word's top byte).
    #[inline]
    /// The format dynamic_debug lists for this descriptor.
    #[cfg(test)]
    pub(crate) fn format(&self) -> &'static core::ffi::CStr {
        // SAFETY: by the type's invariant, `format` points to a NUL-terminated `'static` string.
        unsafe { core::ffi::CStr::from_ptr(self.format) }
    }

    pub(crate) fn dd_flags(&self) -> u32 {
        self.word.load(Ordering::Relaxed) >> FLAGS_SHIFT
    }

    /// Writes the kernel's flags as `echo … > control` would (for tests).
    #[cfg(test)]
    pub(crate) fn set_dd_flags(&self, dd_flags: u32) {
        let w = self.word.load(Ordering::Relaxed);
        let w = (w & !(0xFF << FLAGS_SHIFT)) | ((dd_flags & 0xFF) << FLAGS_SHIFT);
        self.word.store(w, Ordering::Relaxed);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

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
    fn a_string_without_its_nul_is_never_read_past() {
        let d = DynDebug::new(b"errtrace_demo", "f\0", "x.rs\0", "msg\0", 3);
        // SAFETY: `new` made `modname` point to a NUL-terminated `'static` string.
        let m = unsafe { core::ffi::CStr::from_ptr(d.modname) };
        assert_eq!(m.to_bytes(), b"");
    }

    #[test]
    fn every_descriptor_starts_with_p_clear_and_holds_c_strings() {
        let d = DynDebug::new(b"errtrace_demo\0", "f\0", "x.rs\0", "msg\0", 3);
        assert_eq!(d.dd_flags(), 0);
        assert!(!d.print_enabled());
        // The fields point to the first byte of each NUL-terminated string.
        // SAFETY: `new` made them point into `'static` strings that end with a NUL.
        let (m, f, fmt) = unsafe {
            (
                core::ffi::CStr::from_ptr(d.modname),
                core::ffi::CStr::from_ptr(d.filename),
                core::ffi::CStr::from_ptr(d.format),
            )
        };
        assert_eq!(m.to_bytes(), b"errtrace_demo");
        assert_eq!(f.to_bytes(), b"x.rs");
        assert_eq!(fmt.to_bytes(), b"msg");
        assert_eq!(d.word.load(Ordering::Relaxed) & 0x3FFFF, 3);
        d.set_dd_flags(dd::PRINT);
        assert!(d.print_enabled());
    }
}
