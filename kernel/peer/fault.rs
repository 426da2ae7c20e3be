// SPDX-License-Identifier: GPL-2.0
//! errtrace's fail points armed by the kernel's fault injection (`fault_attr.c`): the hook a
//! module built without errtrace's control language installs. The C side holds one
//! `struct fault_attr` per module (`fail=` and `fail_points=` at load, debugfs
//! `fail_<module>/` at runtime) and answers with `should_fail()`.

use kernel::prelude::*;

extern "C" {
    fn errtrace_fault_init() -> kernel::ffi::c_int;
    fn errtrace_fault_exit();
    fn errtrace_should_fail(name: *const u8, len: usize) -> bool;
}

/// Asked by errtrace, with the point's name, each time a fail point is reached.
fn should_fail(name: &'static str) -> bool {
    // SAFETY: `name` is valid for `len` bytes (a `&'static str`); the C function only reads it
    // and never keeps the pointer.
    unsafe { errtrace_should_fail(name.as_ptr(), name.len()) }
}

/// Applies `fail=`, makes the debugfs knobs and installs the hook (before the first fail point).
pub(crate) fn install() -> Result {
    // SAFETY: called once, from `init`, before any fail point of this module is reached.
    kernel::error::to_result(unsafe { errtrace_fault_init() })?;
    let _ = errtrace::fault::set_platform_hook(should_fail);
    Ok(())
}

/// Removes the debugfs knobs (the module is going).
pub(crate) fn remove() {
    // SAFETY: called once, from the module's drop, after `install` succeeded.
    unsafe { errtrace_fault_exit() }
}
