// SPDX-License-Identifier: GPL-2.0
//! Commands written to debugfs `errtrace_demo/trigger`: operations on the chip, to exercise
//! errtrace at runtime.
//!
//! | command | does |
//! |---|---|
//! | `reset` | resets the chip (its busy polls are the quiet `poll_ready` site) |
//! | `sample` | reads one sample |
//! | `storm N` | makes the chip overrun and reads N samples: N failures at one creator site |
//! | `drop` | reads the calibration the forgetful way (`if let Ok`), dropping the error |
//! | `scan` | reads every address from 0x00 to 0x0f, expecting `ENXIO` where no register is (`errtrace::expecting`): the absent ones print nothing |
//! | `devices N [CHIP_ID]` | adds N platform devices `errtrace-demo.<id>` (chip id 0x5a by default), each probed in its device's context (`platform.rs`) |
//! | `supply on`, `supply off` | the devices' supply: while off, their probes defer (`EPROBE_DEFER`) |
//!
//! The write handler returns through `errtrace::boundary_errno`: an error nobody reported is
//! printed there with its full report, and user space gets the errno.

use crate::bus::BUS;
use crate::device::Device;
use crate::platform;
use crate::regs::EXPECTED_CHIP_ID;
use errtrace::{
    code::{EINVAL, ENXIO},
    err, ResultExt,
};
use kernel::prelude::*;

/// The commands, for the error message.
const COMMANDS: &str = "reset, sample, storm N, drop, scan, devices N [CHIP_ID], supply on|off";

/// Runs one command.
pub(crate) fn run(cmd: &str) -> errtrace::Result {
    let dev = Device::attached(&BUS);
    let mut words = cmd.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some("reset"), None, None) => {
            dev.reset().during("reset requested by the trigger file")?;
            pr_info!("trigger: reset done\n");
        }
        (Some("sample"), None, None) => {
            let value = dev.sample().trace()?;
            pr_info!("trigger: sample {:#06x}\n", value);
        }
        (Some("storm"), Some(n), None) => {
            let Ok(n) = n.parse::<u32>() else {
                return Err(err!(EINVAL, "trigger: storm count {:?} is not a number", n));
            };
            storm(dev, n);
        }
        (Some("drop"), None, None) => forgetful(dev),
        (Some("scan"), None, None) => {
            let found = scan()?;
            pr_info!("trigger: scan found {} registers in 0x00..=0x0f\n", found);
        }
        (Some("devices"), Some(n), chip_id) => {
            let Ok(n) = n.parse::<u32>() else {
                return Err(err!(
                    EINVAL,
                    "trigger: device count {:?} is not a number",
                    n
                ));
            };
            let chip_id = match chip_id {
                None => EXPECTED_CHIP_ID,
                Some(text) => parse_byte(text)
                    .ok_or_else(|| err!(EINVAL, "trigger: chip id {:?} is not a byte", text))?,
            };
            platform::add_devices(n, chip_id).during("adding devices")?;
            // Every probe ran in a device scope (`errtrace_linux::with_device`); each ended with its
            // closure, so no task is left holding a slot.
            pr_info!(
                "trigger: devices added; device scopes open: {}\n",
                errtrace_linux::claimed()
            );
        }
        (Some("supply"), Some(state @ ("on" | "off")), None) => {
            platform::set_supply(state == "on");
            pr_info!("trigger: supply {}\n", state);
        }
        _ => {
            return Err(err!(
                EINVAL,
                "trigger: unknown command {:?} (try {})",
                cmd,
                COMMANDS
            ))
        }
    }
    Ok(())
}

/// An error storm: `n` reads of an overrunning chip, each failing at the same creator site.
/// The site's rate limit (10 per 5 s by default) prints the first ones; the rest are counted
/// and reported as "N messages suppressed".
fn storm(dev: Device, n: u32) {
    BUS.set_overrun(true);
    let mut failed: u32 = 0;
    for _ in 0..n {
        match dev.sample() {
            Ok(_) => {}
            Err(e) => {
                failed = failed.wrapping_add(1);
                // Logged (or counted) by its creator: dealt with.
                e.handled();
            }
        }
    }
    BUS.set_overrun(false);
    errtrace::policy::flush_suppressed();
    pr_info!("trigger: storm of {} samples, {} failed\n", n, failed);
}

/// The forgetful pattern errtrace catches: `if let Ok` with no `else` drops the error. It is
/// reported as "dropped unhandled", with its origin and trail.
fn forgetful(dev: Device) {
    if let Ok(c) = dev.calibration() {
        pr_info!("trigger: calibration {:#04x}\n", c);
    }
}

/// A byte written as `0x5a` or `90`.
fn parse_byte(text: &str) -> Option<u8> {
    match text.strip_prefix("0x") {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// A bus scan: reads every address from 0x00 to 0x0f. Where no register is, the bus's read
/// fails with `ENXIO` and its creator would print "bus: no register at …"; the scan expects
/// that code, so those messages are held back (counted at the read site) while any other
/// failure still prints and goes up.
fn scan() -> errtrace::Result<u32> {
    let mut found = 0u32;
    for addr in 0u8..=0x0f {
        match errtrace::expecting(ENXIO, || BUS.read(addr)) {
            Ok(_) => found = found.wrapping_add(1),
            Err(e) => e.recover(ENXIO)?,
        }
    }
    Ok(found)
}
