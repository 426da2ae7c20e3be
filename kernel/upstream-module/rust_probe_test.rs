// SPDX-License-Identifier: GPL-2.0

//! A platform driver whose probe fails as its `mode` parameter says, bound by the test to a
//! platform device that has no driver (`driver_override`): what the kernel reports of each
//! failure, with and without the postings in `kernel/patches/`. It only uses the kernel crate's
//! API as a driver would, so it builds on both kernels; `dev_err_probe!` (the dev_err_probe
//! posting) is used under `cfg(dev_err_probe_macro)`, which its Kbuild sets where it exists.

use kernel::{device::Core, platform, prelude::*};

struct ProbeTest;

/// A supplier the probe waits for, as a C API would report it (`-EPROBE_DEFER`).
fn supplier() -> Result {
    kernel::error::to_result(EPROBE_DEFER.to_errno())
}

/// A chip whose bus has gone: every access fails with `-EIO`, as a C API reports it.
fn bus_access() -> Result {
    kernel::error::to_result(EIO.to_errno())
}

fn reset() -> Result {
    kernel::error::to_result(EIO.to_errno()) // the reset's bus access
}

fn power_off() -> Result {
    kernel::error::to_result(EIO.to_errno()) // the power-off's bus access
}

impl platform::Driver for ProbeTest {
    type IdInfo = ();
    type Data<'bound> = Self;

    fn probe<'bound>(
        pdev: &'bound platform::Device<Core<'_>>,
        _info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self, Error> + 'bound {
        let dev = pdev.as_ref();
        let mode = module_parameters::mode.value();
        dev_dbg!(dev, "probe in mode {}\n", mode);
        pr_debug!("probing a device in mode {}\n", mode);
        match mode {
            // A supplier that is not there yet.
            1 => supplier()?,
            // A bare constant: nothing says where it was made.
            2 => return Err(EIO),
            // The driver reports the error where it is made.
            #[cfg(dev_err_probe_macro)]
            3 => {
                return Err(dev_err_probe!(
                    dev,
                    EINVAL,
                    "mode {mode} is not supported\n"
                ))
            }
            // The driver gives its own deferral reason.
            #[cfg(dev_err_probe_macro)]
            4 => {
                return Err(dev_err_probe!(
                    dev,
                    EPROBE_DEFER,
                    "waiting for the test's clock\n"
                ))
            }
            // Not this driver's device: as quiet as the driver core keeps it.
            5 => return Err(ENODEV),
            // A C API fails.
            6 => bus_access()?,
            // A reset fails, and so does the power-off on the error path, with the same code.
            7 => {
                if let Err(e) = reset() {
                    let _ = power_off();
                    return Err(e);
                }
            }
            _ => (),
        }
        Ok(Self)
    }
}

kernel::module_platform_driver! {
    type: ProbeTest,
    name: "rust_probe_test",
    authors: ["errtrace developers"],
    description: "A platform driver whose probe fails as told",
    license: "GPL",
    params: {
        mode: u32 {
            default: 0,
            description: "0: probe succeeds, 1: supplier defers, 2: bare EIO, 3: reported EINVAL, 4: own deferral reason, 5: ENODEV, 6: C API fails (EIO), 7: reset and its cleanup fail (EIO)",
        },
    },
}
