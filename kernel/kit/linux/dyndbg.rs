// SPDX-License-Identifier: GPL-2.0
//! errtrace's dynamic_debug descriptors against the C compiler's `struct _ddebug`: the size and
//! offsets are checked at compile time (the `dyndbg` feature of errtrace, against bindgen's
//! struct); the bit-fields' order inside their word only C knows (`glue.c`).

use kernel::error::{code::EINVAL, Error};

extern "C" {
    fn errtrace_linux_ddebug_word(line: u32, flags: u32) -> u32;
}

/// Compares errtrace's descriptor word with the C compiler's (`lineno:18`, `class_id:6`,
/// `flags:8`) for a few values.
pub(crate) fn check_layout() -> Result<(), Error> {
    for (line, flags) in [(1, 0), (59, 1), ((1 << 18) - 1, 0xFF), (12345, 0x25)] {
        // SAFETY: a pure C function of two integers.
        let c = unsafe { errtrace_linux_ddebug_word(line, flags) };
        if c != errtrace::__private::DynDebug::word(line, flags) {
            crate::printk::print_line(3, "struct _ddebug's bit-fields are not in errtrace's order");
            return Err(EINVAL);
        }
    }
    Ok(())
}
