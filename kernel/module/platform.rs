// SPDX-License-Identifier: GPL-2.0
//! The platform driver `errtrace-demo`: up to eight more simulated chips, as platform devices
//! `errtrace-demo.0` … `errtrace-demo.7` (added by the trigger `devices N`; `platform.c` has
//! the C side), each probed in its device's context (`errtrace_linux::with_device`).
//!
//! Each device's platform data is its chip's id (`devices N [CHIP_ID]`); its bus is its own.
//! The probe, bottom up: the chip's supply (`supply off` in the trigger makes the probe defer
//! with `EPROBE_DEFER` until a later device binds and the driver core retries), the chip setup
//! of `device.rs` on the device's own bus (so the fault points `bus_read`/`bus_write` and the
//! creators there apply), then the device's state (fault point `dev_alloc` fails it with
//! `ENOMEM` before the real allocation). The end of the probe is `errtrace_linux::probe_result`.

use crate::bus::Bus;
use crate::device::Device as Chip;
use core::sync::atomic::{AtomicBool, Ordering};
use errtrace::{
    code::{ENODEV, ENOMEM, ENOSPC, EPROBE_DEFER},
    err, ResultExt,
};
use errtrace_linux::KernelResultExt;
use kernel::bindings;
use kernel::device::Device;
use kernel::ffi::{c_int, c_void};
use kernel::prelude::*;

extern "C" {
    fn errtrace_demo_pdrv_register() -> c_int;
    fn errtrace_demo_pdrv_unregister();
    fn errtrace_demo_pdev_add(chip_id: u8) -> c_int;
    fn errtrace_demo_dev_set_state(dev: *mut c_void, state: *mut c_void);
}

/// Devices the driver can have (`DEMO_MAX_DEVICES` in platform.c).
const MAX_DEVICES: usize = 8;

/// Each device's simulated chip.
static BUSES: [Bus; MAX_DEVICES] = [const { Bus::new() }; MAX_DEVICES];
/// Whether the chips' supply is up; while it is not, probes defer.
static SUPPLY: AtomicBool = AtomicBool::new(true);

/// A bound device's state (its drvdata).
struct State {
    _chip: Chip,
}

/// Registers the driver (no devices yet).
pub(crate) fn register() -> errtrace::Result {
    // SAFETY: a plain C call; undone by `unregister`.
    kernel::error::to_result(unsafe { errtrace_demo_pdrv_register() })
        .errtrace()
        .during("registering the platform driver")
}

/// Removes the devices, then the driver.
pub(crate) fn unregister() {
    // SAFETY: `register` succeeded (the caller's invariant).
    unsafe { errtrace_demo_pdrv_unregister() };
}

/// Switches the chips' supply: `off` makes new probes defer.
pub(crate) fn set_supply(on: bool) {
    SUPPLY.store(on, Ordering::Relaxed);
}

/// Adds `n` devices whose chips report `chip_id` (their platform data); each is probed
/// before the next is added.
pub(crate) fn add_devices(n: u32, chip_id: u8) -> errtrace::Result {
    for _ in 0..n {
        // SAFETY: a plain C call (it takes its own lock).
        let id = unsafe { errtrace_demo_pdev_add(chip_id) };
        if id < 0 {
            return Err(err!(
                ENOSPC,
                "platform: no room for another device (at most {})",
                MAX_DEVICES
            ));
        }
    }
    Ok(())
}

/// The probe of `errtrace-demo.<id>`, called by platform.c.
///
/// # Safety
///
/// `dev` is the device being probed (the driver core holds it for the whole call).
#[no_mangle]
unsafe extern "C" fn errtrace_demo_pdev_probe(dev: *mut c_void, id: c_int, chip_id: u8) -> c_int {
    // SAFETY: `dev` is valid and referenced for this call (the caller's contract).
    #[cfg(linux_6_13)]
    let dev = unsafe { Device::from_raw(dev.cast::<bindings::device>()) };
    // SAFETY: as above.
    #[cfg(not(linux_6_13))]
    let dev = unsafe { Device::as_ref(dev.cast::<bindings::device>()) };
    errtrace_linux::with_device(dev, || match probe(id, chip_id) {
        Ok(state) => {
            let state = KBox::into_raw(state);
            // SAFETY: `dev` is being probed; the state is freed by `remove`.
            unsafe { errtrace_demo_dev_set_state(errtrace_linux::raw(dev), state.cast()) };
            0
        }
        Err(e) => errtrace_linux::probe_result(dev, Err(e)),
    })
}

/// The remove of a bound device, called by platform.c with its drvdata.
///
/// # Safety
///
/// `state` is what `errtrace_demo_pdev_probe` stored for this device, not freed yet.
#[no_mangle]
unsafe extern "C" fn errtrace_demo_pdev_remove(state: *mut c_void) {
    if !state.is_null() {
        // SAFETY: made by `KBox::into_raw` in the probe and owned by the device until now.
        drop(unsafe { KBox::from_raw(state.cast::<State>()) });
    }
}

#[errtrace::trace]
fn probe(id: c_int, chip_id: u8) -> errtrace::Result<KBox<State>> {
    if !SUPPLY.load(Ordering::Relaxed) {
        return Err(err!(EPROBE_DEFER, "supply vdd is not up"));
    }
    let Some(bus) = usize::try_from(id).ok().and_then(|i| BUSES.get(i)) else {
        return Err(err!(
            ENODEV,
            "platform: no simulated chip for device id {}",
            id
        ));
    };
    bus.power_on(chip_id);
    let chip = Chip::setup(bus)?;
    errtrace::fail_point!("dev_alloc", ENOMEM);
    let state = KBox::new(State { _chip: chip }, GFP_KERNEL)
        .map_err(kernel::error::Error::from)
        .errtrace()?;
    Ok(state)
}
