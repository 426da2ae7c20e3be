// SPDX-License-Identifier: GPL-2.0
//! Register access: typed reads and writes over the bus (the register map is `regmap.rs`,
//! which the bus's simulated chip uses too; re-exported here for the layers above).
//!
//! Every function here is `#[errtrace::trace]`: each `?` records a hop, so a report shows the
//! way an error took from the bus up to the caller.

use crate::bus::Bus;
pub(crate) use crate::regmap::*;

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
