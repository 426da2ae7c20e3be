// SPDX-License-Identifier: GPL-2.0
//! Device setup and operations: chip identification, reset, sampling, calibration.
//!
//! The creators log (`err!` with a message, at the place that knows what went wrong); the
//! errors from below go up with `?` and `.during()`; nothing here prints an error twice.

use crate::bus::Bus;
use crate::regs::{
    Regs, CALIB, CHIP_ID, CTRL, CTRL_ENABLE, CTRL_RESET, EXPECTED_CHIP_ID, STATUS, STATUS_BUSY,
    STATUS_OVERRUN,
};
use errtrace::code::{EAGAIN, ENODEV, EOVERFLOW, ERANGE, ETIMEDOUT};
use errtrace::{err, ResultExt};

/// Status polls before a reset counts as stuck.
const MAX_POLLS: u32 = 10;

/// The sensor chip.
#[derive(Clone, Copy)]
pub(crate) struct Device {
    regs: Regs,
}

impl Device {
    /// Identifies, resets and enables the chip on `bus`.
    pub(crate) fn setup(bus: &'static Bus) -> errtrace::Result<Device> {
        let regs = Regs::new(bus);
        let id = regs.read(CHIP_ID).during("reading chip id")?;
        if id != EXPECTED_CHIP_ID {
            return Err(err!(
                ENODEV,
                "unexpected chip id {id:#04x} (expected {EXPECTED_CHIP_ID:#04x})"
            ));
        }
        let dev = Device { regs };
        dev.reset().during("resetting the chip")?;
        dev.regs
            .update_bits(CTRL, CTRL_ENABLE, CTRL_ENABLE)
            .during("enabling the chip")?;
        Ok(dev)
    }

    /// A handle to the chip on `bus`, already set up by [`Device::setup`].
    pub(crate) const fn attached(bus: &'static Bus) -> Device {
        Device {
            regs: Regs::new(bus),
        }
    }

    /// Resets the chip and waits until it is ready.
    #[errtrace::trace]
    pub(crate) fn reset(&self) -> errtrace::Result {
        self.regs.write(CTRL, CTRL_RESET)?;
        self.wait_ready()?;
        Ok(())
    }

    fn wait_ready(&self) -> errtrace::Result {
        for _ in 0..MAX_POLLS {
            match self.poll_ready() {
                Ok(()) => return Ok(()),
                // Busy is normal right after a reset: poll again. Anything else goes up.
                Err(e) => e.recover(EAGAIN).trace()?,
            }
        }
        Err(err!(ETIMEDOUT, "chip still busy after {} polls", MAX_POLLS))
    }

    /// `Err(EAGAIN)` while the chip is busy: quiet by default (a normal retry), printed after
    /// `format busy +p` in `/proc/dynamic_debug/control`.
    #[errtrace::trace]
    fn poll_ready(&self) -> errtrace::Result {
        let status = self.regs.read(STATUS)?;
        if status & STATUS_BUSY != 0 {
            return Err(err!(EAGAIN, "chip busy (status {status:#04x})"));
        }
        Ok(())
    }

    /// Reads one sample.
    #[errtrace::trace]
    pub(crate) fn sample(&self) -> errtrace::Result<u16> {
        let status = self.regs.read(STATUS)?;
        if status & STATUS_OVERRUN != 0 {
            return Err(err!(
                EOVERFLOW,
                "sample FIFO overrun (status {status:#04x})"
            ));
        }
        let value = self.regs.read_sample()?;
        Ok(value)
    }

    /// The chip's factory calibration.
    #[errtrace::trace]
    pub(crate) fn calibration(&self) -> errtrace::Result<u8> {
        let value = self.read_calibration()?;
        Ok(value)
    }

    fn read_calibration(&self) -> errtrace::Result<u8> {
        let raw = self.regs.read(CALIB).during("reading calibration")?;
        if raw == 0 {
            // `Err(CODE)?` makes an error whose origin is this line.
            Err(ERANGE)?;
        }
        Ok(raw)
    }
}
