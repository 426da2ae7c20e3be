// SPDX-License-Identifier: GPL-2.0
//! Register access: the chip's register map and typed reads and writes over the bus.
//!
//! Every function here is `#[errtrace::trace]`: each `?` records a hop, so a report shows the
//! way an error took from the bus up to the caller.

use crate::bus::Bus;

/// Chip identification (read-only).
pub(crate) const CHIP_ID: u8 = 0x00;
/// Control: reset, enable.
pub(crate) const CTRL: u8 = 0x01;
/// Status: busy, FIFO overrun.
pub(crate) const STATUS: u8 = 0x02;
/// Sample, low byte (the high byte follows).
pub(crate) const DATA_LO: u8 = 0x03;
/// Sample, high byte.
pub(crate) const DATA_HI: u8 = 0x04;
/// Factory calibration (0: the chip was never calibrated).
pub(crate) const CALIB: u8 = 0x05;
/// Number of registers.
pub(crate) const NREGS: usize = 6;

/// `CTRL`: start a reset (self-clearing).
pub(crate) const CTRL_RESET: u8 = 1 << 0;
/// `CTRL`: enable sampling.
pub(crate) const CTRL_ENABLE: u8 = 1 << 1;
/// `STATUS`: a reset is in progress.
pub(crate) const STATUS_BUSY: u8 = 1 << 0;
/// `STATUS`: samples were lost.
pub(crate) const STATUS_OVERRUN: u8 = 1 << 7;

/// The chip this driver supports.
pub(crate) const EXPECTED_CHIP_ID: u8 = 0x5a;

/// Typed register access over a bus.
#[derive(Clone, Copy)]
pub(crate) struct Regs {
    bus: &'static Bus,
}

impl Regs {
    pub(crate) const fn new(bus: &'static Bus) -> Regs {
        Regs { bus }
    }

    /// Reads one register.
    #[errtrace::trace]
    pub(crate) fn read(&self, reg: u8) -> errtrace::Result<u8> {
        let value = self.bus.read(reg)?;
        Ok(value)
    }

    /// Writes one register.
    #[errtrace::trace]
    pub(crate) fn write(&self, reg: u8, value: u8) -> errtrace::Result {
        self.bus.write(reg, value)?;
        Ok(())
    }

    /// Read-modify-write of the bits in `mask`.
    #[errtrace::trace]
    pub(crate) fn update_bits(&self, reg: u8, mask: u8, value: u8) -> errtrace::Result {
        let old = self.read(reg)?;
        self.write(reg, (old & !mask) | (value & mask))?;
        Ok(())
    }

    /// Reads a little-endian 16-bit value from `DATA_LO`/`DATA_HI`.
    #[errtrace::trace]
    pub(crate) fn read_sample(&self) -> errtrace::Result<u16> {
        let lo = self.read(DATA_LO)?;
        let hi = self.read(DATA_HI)?;
        Ok(u16::from_le_bytes([lo, hi]))
    }
}
