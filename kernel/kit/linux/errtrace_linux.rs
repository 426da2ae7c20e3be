// SPDX-License-Identifier: GPL-2.0
//! errtrace's Linux glue, as one crate a driver links beside `errtrace` (the driver kit's
//! `errtrace.mk` builds both): what the core, which knows nothing of the kernel, needs from it,
//! and what a driver needs to use errtrace.
//!
//! - [`install`] first in the module's `init` (sink, clock, CPU id, shards, task context,
//!   deferral out of NMI, tracepoints), its [`Installed`] kept in the module's state;
//! - [`probe`]: a platform (or any bus's) probe in a device scope: errtrace's lines print on
//!   the device (`sensor pcspkr: …`, as `dev_err!`), and the error leaves with
//!   `dev_err_probe()`'s rules;
//! - [`KernelResultExt::errtrace`] / [`from_kernel!`]: a `kernel::error::Error` into an
//!   `errtrace::Error` whose origin is the call; [`to_kernel`] back, after a boundary;
//! - [`SliceWriter`] / [`Counter`]: text without allocation.
//!
//! # Examples
//!
//! A platform driver's probe (the kit's template, `kernel/kit/template/template.rs`, is the
//! whole driver, built and booted by `kernel/test.sh`; in-kernel doctests need the kernel's
//! own test harness):
//!
//! ```ignore
//! fn probe<'bound>(
//!     pdev: &'bound platform::Device<Core<'_>>,
//!     _info: Option<&'bound Self::IdInfo>,
//! ) -> impl PinInit<Self, Error> + 'bound {
//!     errtrace_linux::probe(pdev.as_ref(), || {
//!         pdev.resource_by_index(0)
//!             .ok_or_else(|| err!(ENODEV, "no MEM resource"))?;
//!         chip_init().trace()?;
//!         Ok(Sensor {})
//!     })
//! }
//! ```

mod convert;
mod device;
#[cfg(feature = "dyndbg")]
mod dyndbg;
mod hooks;
mod printk;
mod shard;
mod sink;
mod text;
#[cfg(feature = "tracepoints")]
mod tracepoints;

#[doc(hidden)]
pub use convert::__from_kernel;
pub use convert::{to_kernel, KernelResultExt};
pub use device::{claimed, probe, probe_result, raw, with_device};
pub use hooks::deferred_counts;
pub use text::{Counter, SliceWriter};

/// Installs errtrace's hooks: the shard hooks, the sink, the clock, the CPU id, the context of
/// `errtrace::expecting` scopes, the defer hook and the tracepoints; checks errtrace's
/// dynamic_debug descriptors against the C compiler's `struct _ddebug`.
///
/// # Errors
///
/// `EINVAL` when the descriptor word's bit order differs from the C compiler's (the module
/// must not load: the kernel would write its flags into the wrong bits).
///
/// # Safety
///
/// - Called once, first in the module's `init`, before any code of the module can make an
///   error (no other context may be making one meanwhile: the shard hooks change how errors
///   are recorded, see `errtrace::platform::set_shard_hooks`).
/// - The returned [`Installed`] is kept until no code of the module runs any more, and dropped
///   in process context (the module's exit): its `Drop` waits for the `irq_work` the hooks may
///   have queued, which lives in the module's memory.
pub unsafe fn install() -> Result<Installed, kernel::error::Error> {
    #[cfg(feature = "dyndbg")]
    dyndbg::check_layout()?;
    // SAFETY: the caller's contract: first in `init`, before any error is made.
    unsafe { shard::install() };
    let _ = errtrace::sink::set_sink(&sink::PRINTK);
    hooks::install();
    #[cfg(feature = "tracepoints")]
    tracepoints::install();
    Ok(Installed(()))
}

/// Installs only the shard hooks (a task's CPU shard of the recorder and counters, with
/// preemption off): for a test suite that checks the recorder and prints nothing of its own.
///
/// # Safety
///
/// As [`install`]'s first point: once, first in `init`, before any error is made.
pub unsafe fn install_shards() {
    // SAFETY: the caller's contract is the shard hooks' (before any error, no other context).
    unsafe { shard::install() };
}

/// errtrace's hooks, installed by [`install`]: keep it in the module's state (declared after
/// the driver's registration, so that it is dropped after it).
///
/// Dropping it prints the rate limits' pending summaries and waits for the `irq_work` that
/// applies standing control queries to sites first seen in NMI: after the module's code is
/// gone, no such work may run ([`install`]'s contract: keep it until then).
#[must_use = "errtrace's hooks must stay installed until the module's exit drops this"]
pub struct Installed(());

impl Drop for Installed {
    fn drop(&mut self) {
        errtrace::policy::flush_suppressed();
        hooks::uninstall();
    }
}
