// SPDX-License-Identifier: GPL-2.0
// expect: error[E0603]: module `device` is private
//! A misuse of the device scope that must not compile (kernel/test.sh builds the module with this
//! file added and expects rustc to refuse it): holding a scope as a value, to forget it or to drop
//! two out of order, would leave a device in another task's slot. The scope's type is private to
//! the driver kit's `errtrace_linux`; the only way in is `errtrace_linux::with_device` (or
//! `errtrace_linux::probe`), whose scope ends with its closure.

use kernel::device::Device;

#[allow(dead_code)]
pub(crate) fn forget_a_scope(d1: &Device, d2: &Device) {
    let a = errtrace_linux::device::Scope::enter(errtrace_linux::raw(d1));
    let b = errtrace_linux::device::Scope::enter(errtrace_linux::raw(d2));
    drop(a);
    core::mem::forget(b);
}
