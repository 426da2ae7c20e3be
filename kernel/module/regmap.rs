// SPDX-License-Identifier: GPL-2.0
//! The chip's register map: what the bus's simulated chip (`bus.rs`) implements and the
//! register access (`regs.rs`) reads and writes.

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
