// SPDX-License-Identifier: GPL-2.0

//! A platform driver whose probe fails as its `mode` parameter says, bound by the test to a
//! platform device that has no driver (`driver_override`): what the kernel reports of each
//! failure, with and without the series in `kernel/patches/`. It only uses the kernel crate's API
//! as a driver would, so it builds on both kernels; what exists only with the series (logging
//! helpers, rate-limited printing) is used under `cfg(CONFIG_RUST_ERROR_ORIGINS)`.

use kernel::{device::Core, platform, prelude::*};

struct ProbeTest;

/// A supplier the probe waits for, as a C API would report it (`-EPROBE_DEFER`).
fn supplier() -> Result {
    kernel::error::to_result(EPROBE_DEFER.to_errno())
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
        #[cfg(CONFIG_RUST_ERROR_ORIGINS)]
        for i in 0..module_parameters::ratelimited.value() {
            kernel::dev_warn_ratelimited!(dev, "rate-limited message {i}\n");
        }
        match mode {
            // A supplier that is not there yet.
            1 => supplier()?,
            // A bare constant: nothing says where it was made.
            2 => return Err(EIO),
            // The driver logs the error where it is made.
            #[cfg(CONFIG_RUST_ERROR_ORIGINS)]
            3 => {
                use kernel::device::ResultExt;
                Err::<(), Error>(EINVAL).log_err(dev, fmt!("mode {mode} is not supported\n"))?
            }
            // The driver gives its own deferral reason.
            #[cfg(CONFIG_RUST_ERROR_ORIGINS)]
            4 => {
                return Err(dev.dev_err_probe(EPROBE_DEFER, fmt!("waiting for the test's clock\n")))
            }
            // Not this driver's device: as quiet as the driver core keeps it.
            5 => return Err(ENODEV),
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
            description: "0: probe succeeds, 1: supplier defers, 2: bare EIO, 3: logged EINVAL, 4: dev_err_probe deferral, 5: ENODEV",
        },
        ratelimited: u32 {
            default: 0,
            description: "messages the probe prints through dev_warn_ratelimited!",
        },
    },
}
