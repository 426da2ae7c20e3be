// SPDX-License-Identifier: GPL-2.0

//! The driver kit's template: a platform driver for a sensor chip, written with errtrace, whose
//! probe fails the way probes do. Copy the folder, rename the module in `Kbuild`, and replace the
//! chip with yours.
//!
//! Bind it to a platform device that has no driver (`driver_override`, then `drivers_probe`);
//! the `mode` parameter picks what the probe meets:
//! - 0 (the default): the chip does not answer: a register read fails with `EIO` two calls
//!   down; the read's creator prints its line on the device, the probe fails with `-EIO`;
//! - 1: the device has no MEM resource (`ENODEV`, printed where it is made);
//! - 2: the buffer's allocation fails (`ENOMEM`: quiet, as `dev_err_probe()` keeps it; the
//!   allocator would warn with a stack trace, but this 1 GiB request passes `__GFP_NOWARN`, so
//!   only the driver core's line remains);
//! - 3: the probe succeeds.

use errtrace::{
    code::{EIO, ENODEV},
    err, ResultExt,
};
use errtrace_linux::KernelResultExt;
use kernel::{alloc::flags::__GFP_NOWARN, device::Core, platform, prelude::*};

/// The chip's identification register.
const REG_ID: u8 = 0x0f;
/// What the identification register holds.
const CHIP_ID: u8 = 0x5a;

struct Sensor {
    _samples: KVec<u16>,
}

/// A register read on the chip's bus. The template's chip never answers: every read fails,
/// as a bus read of an absent chip does.
fn read_reg(reg: u8) -> errtrace::Result<u8> {
    Err(err!(EIO, "read of register {:#04x} failed", reg))
}

/// Checks that the chip is the one this driver knows.
fn check_id() -> errtrace::Result {
    let id = read_reg(REG_ID).trace()?;
    if id != CHIP_ID {
        return Err(err!(
            ENODEV,
            "chip id {:#04x}, expected {:#04x}",
            id,
            CHIP_ID
        ));
    }
    Ok(())
}

/// Brings the chip up.
fn chip_init() -> errtrace::Result {
    check_id().trace()?;
    Ok(())
}

impl platform::Driver for Sensor {
    type IdInfo = ();
    type Data<'bound> = Self;

    fn probe<'bound>(
        pdev: &'bound platform::Device<Core<'_>>,
        _info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self, Error> + 'bound {
        // Every errtrace line of the probe prints on the device, and its error leaves with
        // dev_err_probe()'s rules (a deferral becomes the device's reason, ENOMEM is quiet).
        errtrace_linux::probe(pdev.as_ref(), || {
            let mode = module_parameters::mode.value();
            if mode == 1 {
                pdev.resource_by_index(0)
                    .ok_or_else(|| err!(ENODEV, "no MEM resource"))?;
            }
            if mode == 0 {
                chip_init().trace()?;
            }
            let len = if mode == 2 { 1 << 30 } else { 64 };
            let samples = KVec::with_capacity(len, GFP_KERNEL | __GFP_NOWARN)
                .map_err(Error::from)
                .errtrace()?;
            Ok(Sensor { _samples: samples })
        })
    }
}

/// The module: errtrace's hooks first, then the driver's registration. Fields drop in order:
/// the driver is unregistered (no probe runs after that), then errtrace waits for its work.
#[pin_data]
struct SensorModule {
    #[pin]
    driver: kernel::driver::Registration<platform::Adapter<Sensor>>,
    _errtrace: errtrace_linux::Installed,
}

impl kernel::InPlaceModule for SensorModule {
    fn init(module: &'static ThisModule) -> impl PinInit<Self, Error> {
        pin_init::pin_init_scope(move || {
            // SAFETY: first in `init`, before the driver is registered (no probe, so no error,
            // before it); `Installed` is the module's last field, dropped at its exit.
            let errtrace = unsafe { errtrace_linux::install() }?;
            Ok(try_pin_init!(Self {
                driver <- kernel::driver::Registration::new(
                    <Self as kernel::ModuleMetadata>::NAME,
                    module,
                ),
                _errtrace: errtrace,
            }))
        })
    }
}

module! {
    type: SensorModule,
    name: "errtrace_template",
    authors: ["errtrace developers"],
    description: "The errtrace driver kit's template: a platform driver whose probe fails",
    license: "GPL",
    params: {
        mode: u32 {
            default: 0,
            description: "0: a register read fails (EIO), 1: no MEM resource (ENODEV), 2: allocation fails (ENOMEM), 3: probe succeeds",
        },
    },
}
