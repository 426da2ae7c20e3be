// SPDX-License-Identifier: GPL-2.0
//! One line through printk with the module's name (`sensor: …`, as `pr_err!` prints), through
//! C, which has `KBUILD_MODNAME` (the kernel crate's `pr_*!` need a `module!` crate's prefix).

use kernel::ffi::c_int;

extern "C" {
    fn errtrace_linux_printk(level: c_int, text: *const u8, len: usize);
}

/// Prints `line` at printk level `level` (3 err, 4 warning, 6 info, 7 debug).
pub(crate) fn print_line(level: c_int, line: &str) {
    // SAFETY: `line` is valid for `line.len()` bytes; the C side reads only those.
    unsafe { errtrace_linux_printk(level, line.as_ptr(), line.len()) };
}
