// SPDX-License-Identifier: GPL-2.0
//! The bus layer, and the simulated chip behind it.
//!
//! A real driver would talk I2C, SPI or MMIO here; this one talks to a register file in
//! atomics that behaves like a small sensor chip: a reset keeps `STATUS_BUSY` set for two status
//! reads, `STATUS_OVERRUN` can be forced on (the `storm` trigger), the calibration register reads
//! 0 (never calibrated). Both bus operations are fault-injection points (`bus_read`,
//! `bus_write`), armed with the control language: `fail name=bus_read times=1 code=EIO`.

use crate::regmap::{
    CHIP_ID, CTRL, CTRL_RESET, DATA_HI, DATA_LO, NREGS, STATUS, STATUS_BUSY, STATUS_OVERRUN,
};
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};
use errtrace::{
    code::{EACCES, EIO, ENXIO},
    err,
};

/// Status reads that see `STATUS_BUSY` after a reset.
const RESET_BUSY_READS: u32 = 2;

/// A register bus with one simulated chip on it.
pub(crate) struct Bus {
    regs: [AtomicU8; NREGS],
    busy_reads: AtomicU32,
    overrun: AtomicBool,
}

/// The bus of this module.
pub(crate) static BUS: Bus = Bus::new();

impl Bus {
    /// A bus with a powered-off chip (all registers 0).
    pub(crate) const fn new() -> Bus {
        Bus {
            regs: [const { AtomicU8::new(0) }; NREGS],
            busy_reads: AtomicU32::new(0),
            overrun: AtomicBool::new(false),
        }
    }

    /// Powers the simulated chip on, with `chip_id` in its identification register.
    pub(crate) fn power_on(&self, chip_id: u8) {
        for r in &self.regs {
            r.store(0, Ordering::Relaxed);
        }
        self.store(CHIP_ID, chip_id);
        self.store(DATA_LO, 0x34);
        self.store(DATA_HI, 0x12);
        self.busy_reads.store(0, Ordering::Relaxed);
        self.overrun.store(false, Ordering::Relaxed);
    }

    /// Makes the chip report FIFO overruns (or stop reporting them).
    pub(crate) fn set_overrun(&self, on: bool) {
        self.overrun.store(on, Ordering::Relaxed);
    }

    fn store(&self, addr: u8, value: u8) {
        if let Some(r) = self.regs.get(usize::from(addr)) {
            r.store(value, Ordering::Relaxed);
        }
    }

    /// Reads the register at `addr`.
    pub(crate) fn read(&self, addr: u8) -> errtrace::Result<u8> {
        errtrace::fail_point!("bus_read", EIO);
        let Some(cell) = self.regs.get(usize::from(addr)) else {
            return Err(err!(ENXIO, "bus: no register at {:#04x}", addr));
        };
        let mut value = cell.load(Ordering::Relaxed);
        if addr == STATUS {
            let busy = self
                .busy_reads
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok();
            if busy {
                value |= STATUS_BUSY;
            }
            if self.overrun.load(Ordering::Relaxed) {
                value |= STATUS_OVERRUN;
            }
        }
        Ok(value)
    }

    /// Writes `value` to the register at `addr`.
    pub(crate) fn write(&self, addr: u8, value: u8) -> errtrace::Result {
        errtrace::fail_point!("bus_write", EIO);
        if addr == CHIP_ID {
            return Err(err!(EACCES, "bus: register {:#04x} is read-only", addr));
        }
        let Some(cell) = self.regs.get(usize::from(addr)) else {
            return Err(err!(ENXIO, "bus: no register at {:#04x}", addr));
        };
        if addr == CTRL && value & CTRL_RESET != 0 {
            self.busy_reads.store(RESET_BUSY_READS, Ordering::Relaxed);
            cell.store(value & !CTRL_RESET, Ordering::Relaxed);
        } else {
            cell.store(value, Ordering::Relaxed);
        }
        Ok(())
    }
}
