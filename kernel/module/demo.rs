// SPDX-License-Identifier: GPL-2.0
//! errtrace kernel demo: a small driver for a simulated sensor chip, written the way the
//! errtrace guide recommends.
//!
//! Layers, bottom up: `bus` (a simulated register bus; fault points `bus_read`, `bus_write`),
//! `regs` (register access, `#[errtrace::trace]`), `device` (chip setup and operations; the
//! creators log with `err!`), and here the probe and the module's boundaries:
//!
//! - `init` returns through `errtrace::boundary("errtrace_demo init", probe())`: an error that
//!   nobody reported is printed with its origin and every hop, then handed to the kernel as
//!   its errno;
//! - the debugfs files (`demo_ctl.c` has the plumbing and the module parameters):
//!   `control` (write: errtrace's control language; read: the site listing), `recorder`
//!   (read: the flight recorder) and `trigger` (write: operations, see `trigger.rs`).
//!
//! Module parameters: `ctl="QUERY"` (control queries applied at load, e.g. a fault:
//! `ctl="fail name=bus_read times=1 code=EIO"`), `chip_id=N` (the simulated chip's id;
//! anything but 0x5a makes the probe fail with ENODEV), `plain=1` (return the probe's error
//! as a bare errno without the boundary: what a Rust module prints today).

use core::fmt::Write;
use kernel::ffi::{c_char, c_int, c_long};
use kernel::prelude::*;

mod bus;
mod device;
mod platform;
mod regmap;
mod regs;
mod stress;
mod trigger;

use bus::BUS;
use device::Device;
use errtrace::ResultExt;
use errtrace_linux::{KernelResultExt, SliceWriter};

#[cfg(linux_6_13)]
module! {
    type: ErrtraceDemo,
    name: "errtrace_demo",
    authors: ["errtrace developers"],
    description: "errtrace kernel demo: a driver whose errors say where they came from",
    license: "GPL",
}

#[cfg(not(linux_6_13))]
module! {
    type: ErrtraceDemo,
    name: "errtrace_demo",
    author: "errtrace developers",
    description: "errtrace kernel demo: a driver whose errors say where they came from",
    license: "GPL",
}

extern "C" {
    fn errtrace_demo_c_init() -> c_int;
    fn errtrace_demo_c_exit();
    fn errtrace_demo_param_ctl() -> *const c_char;
    fn errtrace_demo_param_plain() -> c_int;
    fn errtrace_demo_param_chip_id() -> c_int;
}

/// The probe: set the chip up, register the platform driver (`platform.rs`), then create the
/// debugfs files.
#[errtrace::trace]
fn probe() -> errtrace::Result<Device> {
    let dev = Device::setup(&BUS)?;
    platform::register()?;
    // SAFETY: called once per successful probe; undone in `drop`.
    let files = kernel::error::to_result(unsafe { errtrace_demo_c_init() })
        .errtrace()
        .during("creating the debugfs files");
    if let Err(e) = files {
        platform::unregister();
        return Err(e);
    }
    Ok(dev)
}

/// Applies the `ctl=` module parameter.
fn apply_ctl(quiet: bool) -> Result {
    // SAFETY: demo_ctl.c returns its NUL-terminated parameter buffer, which lives as long as
    // the module.
    let ctl = unsafe { CStr::from_char_ptr(errtrace_demo_param_ctl()) };
    let Ok(ctl) = ctl.to_str() else {
        pr_err!("ctl: not UTF-8\n");
        return Err(EINVAL);
    };
    if ctl.trim().is_empty() {
        return Ok(());
    }
    match errtrace::control::apply(ctl) {
        Ok(applied) => {
            if !quiet {
                pr_info!("ctl: {:?}: {}\n", ctl, format_args!("{applied}"));
            }
            Ok(())
        }
        Err(e) => {
            pr_err!("ctl: {:?}: {}\n", ctl, format_args!("{e}"));
            Err(EINVAL)
        }
    }
}

struct ErrtraceDemo {
    _dev: Device,
    /// errtrace's hooks (none in today's picture, `plain=1`).
    errtrace: Option<errtrace_linux::Installed>,
}

impl kernel::Module for ErrtraceDemo {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: plain getters in demo_ctl.c.
        let (plain, chip_id) = unsafe {
            (
                errtrace_demo_param_plain() != 0,
                errtrace_demo_param_chip_id(),
            )
        };
        // Today's picture (`plain=1`) has no errtrace sink: nothing of errtrace prints.
        let errtrace = if plain {
            None
        } else {
            // SAFETY: first in `init`, before the module makes an error; `Installed` is dropped
            // in `Drop`, after the debugfs files, the stress and the devices are gone.
            Some(unsafe { errtrace_linux::install() }?)
        };
        apply_ctl(plain)?;
        let Ok(chip_id) = u8::try_from(chip_id) else {
            pr_err!("chip_id={} is not a byte\n", chip_id);
            return Err(EINVAL);
        };
        BUS.power_on(chip_id);

        let dev = if plain {
            // Today's picture: the probe's error goes back as a bare errno, and the kernel
            // prints nothing about it.
            probe().map_err(|e| errtrace_linux::to_kernel(e.into_code()))?
        } else {
            errtrace::boundary("errtrace_demo init", probe()).map_err(errtrace_linux::to_kernel)?
        };
        pr_info!("loaded: chip {:#04x} ready\n", regs::EXPECTED_CHIP_ID);
        Ok(ErrtraceDemo {
            _dev: dev,
            errtrace,
        })
    }
}

impl Drop for ErrtraceDemo {
    fn drop(&mut self) {
        // SAFETY: init succeeded, so errtrace_demo_c_init ran.
        unsafe { errtrace_demo_c_exit() };
        // After the debugfs files are gone, so no trigger adds a device meanwhile.
        platform::unregister();
        // The rate limits' pending summaries, and no deferred work left: before the last line.
        drop(self.errtrace.take());
        pr_info!(
            "unloaded ({} sites, {} errors dropped unhandled)\n",
            errtrace::control::site_count(),
            errtrace::policy::unhandled_drops()
        );
    }
}

// ---- debugfs callbacks, called by demo_ctl.c with its mutex held ----

/// # Safety
///
/// `buf` points to `len` readable bytes.
unsafe fn input<'a>(buf: *const c_char, len: usize) -> Option<&'a str> {
    // SAFETY: guaranteed by the caller.
    let bytes = unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) };
    core::str::from_utf8(bytes).ok()
}

/// # Safety
///
/// `buf` points to `len` writable bytes.
unsafe fn output<'a>(buf: *mut c_char, len: usize) -> SliceWriter<'a> {
    // SAFETY: guaranteed by the caller.
    SliceWriter::new(unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) })
}

/// A write to `errtrace_demo/control`: control queries (the same grammar as `ctl=`).
///
/// # Safety
///
/// `buf` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn errtrace_demo_control_write(buf: *const c_char, len: usize) -> c_long {
    // SAFETY: guaranteed by the caller.
    let Some(text) = (unsafe { input(buf, len) }) else {
        pr_err!("control: not UTF-8\n");
        return EINVAL.to_errno() as c_long;
    };
    match errtrace::control::apply(text) {
        Ok(applied) => {
            pr_info!(
                "control: {:?}: {}\n",
                text.trim(),
                format_args!("{applied}")
            );
            0
        }
        Err(e) => {
            pr_err!("control: {:?}: {}\n", text.trim(), format_args!("{e}"));
            EINVAL.to_errno() as c_long
        }
    }
}

/// A read of `errtrace_demo/control`: one line per site, dynamic_debug style.
///
/// # Safety
///
/// `buf` points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn errtrace_demo_control_read(buf: *mut c_char, len: usize) -> c_long {
    // SAFETY: guaranteed by the caller.
    let mut out = unsafe { output(buf, len) };
    let _ = errtrace::control::list(&mut out);
    out.finish() as c_long
}

/// A read of `errtrace_demo/recorder`: the flight recorder, oldest first; when it does not
/// all fit, the newest events that fit.
///
/// # Safety
///
/// `buf` points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn errtrace_demo_recorder_read(buf: *mut c_char, len: usize) -> c_long {
    // SAFETY: guaranteed by the caller.
    let mut out = unsafe { output(buf, len) };
    // First pass: how many events and bytes there are (no per-event array on the stack).
    let (mut n, mut total) = (0usize, 0usize);
    errtrace::recorder::for_each(|ev| {
        let mut c = errtrace_linux::Counter::default();
        let _ = errtrace::recorder::write_event(&mut c, ev);
        n += 1;
        total = total.saturating_add(c.0);
    });
    // Second pass: skip the oldest events until the rest fits, with room for the header.
    let room = out.room().saturating_sub(128);
    let (mut skipped, mut skipped_bytes) = (0usize, 0usize);
    errtrace::recorder::for_each(|ev| {
        if total.saturating_sub(skipped_bytes) > room {
            let mut c = errtrace_linux::Counter::default();
            let _ = errtrace::recorder::write_event(&mut c, ev);
            skipped_bytes = skipped_bytes.saturating_add(c.0);
            skipped += 1;
        }
    });
    let _ = writeln!(
        out,
        "# errtrace flight recorder: {} events, shard by shard, oldest first ({} older not shown; {} unrecorded)",
        n.saturating_sub(skipped),
        skipped,
        errtrace::recorder::unrecorded()
    );
    let mut index = 0usize;
    errtrace::recorder::for_each(|ev| {
        if index >= skipped {
            let _ = errtrace::recorder::write_event(&mut out, ev);
        }
        index += 1;
    });
    out.finish() as c_long
}

/// A write to `errtrace_demo/trigger`: a command (see `trigger.rs`), returned through a
/// boundary.
///
/// # Safety
///
/// `buf` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn errtrace_demo_trigger_write(buf: *const c_char, len: usize) -> c_long {
    // SAFETY: guaranteed by the caller.
    let result = match unsafe { input(buf, len) } {
        Some(text) => trigger::run(text.trim()),
        None => Err(errtrace::err!(EINVAL, "trigger: not UTF-8")), // the kernel prelude's EINVAL
    };
    errtrace::boundary_errno("errtrace_demo trigger", result) as c_long
}
