// SPDX-License-Identifier: GPL-2.0
//! errtrace's shard hooks over `shard.c`: a task that makes an error owns its CPU's shard of
//! the flight recorder and the counters, with preemption off, and writes it with plain loads
//! and stores; interrupts share shard 0 (atomic read-modify-writes).

extern "C" {
    fn errtrace_shard_enter() -> u32;
    fn errtrace_shard_exit();
}

fn enter() -> u32 {
    // SAFETY: a C function without arguments, callable in any context; `exit` follows.
    unsafe { errtrace_shard_enter() }
}

fn exit() {
    // SAFETY: called by errtrace once after each `enter`, in the same context.
    unsafe { errtrace_shard_exit() }
}

/// Installs the hooks.
///
/// # Safety
///
/// Called before the module makes any error, while no other context can make one (first in
/// `init`).
pub(crate) unsafe fn install() {
    // SAFETY: `enter` names shard 1 + CPU only in task context and with preemption off until
    // `exit`, so no other context gets that shard meanwhile (an interrupt on the same CPU gets
    // the shared shard 0, another CPU its own); the caller installs them before any error.
    let _ = unsafe { errtrace::platform::set_shard_hooks(enter, exit) };
}
