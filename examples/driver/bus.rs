//! The bus: a simulated register bus (think I²C or SPI) with a fault point on every read.

use errtrace::code::{EAGAIN, EIO, ETIMEDOUT};
use errtrace::err;
use std::cell::Cell;

/// A bus with a few simulated devices' registers behind it.
pub struct Bus {
    pub name: &'static str,
    /// Reads of the data register that will fail with a CRC error (noise on the line).
    pub noisy_reads: Cell<u32>,
    /// The device does not acknowledge the next transfer.
    pub nak_next: Cell<bool>,
    /// The device holds the bus (writes time out).
    pub held: Cell<bool>,
}

impl Bus {
    pub const fn new(name: &'static str) -> Bus {
        Bus {
            name,
            noisy_reads: Cell::new(0),
            nak_next: Cell::new(false),
            held: Cell::new(false),
        }
    }

    /// One transfer on the wire. The fault point lets a test (or the demo) force it to fail.
    fn transfer(&self, reg: u8) -> errtrace::Result<u8> {
        errtrace::fail_point!("bus_read", EIO);
        if self.nak_next.replace(false) {
            // The creator knows what went wrong: it logs one line, and nobody logs it again.
            return Err(err!(EIO, "{}: no ACK reading reg {:#04x}", self.name, reg));
        }
        if self.noisy_reads.get() > 0 {
            self.noisy_reads.set(self.noisy_reads.get() - 1);
            // The creator logs: one line per failure, rate-limited (10 per 5 s per site).
            return Err(err!(
                EIO,
                "{}: CRC error reading reg {:#04x}",
                self.name,
                reg
            ));
        }
        Ok(match reg {
            0x0f => 0x42, // chip id
            _ => 0x00,
        })
    }

    /// Reads one register.
    #[errtrace::trace]
    pub fn read_reg(&self, reg: u8) -> errtrace::Result<u8> {
        let v = self.transfer(reg)?;
        Ok(v)
    }

    /// Writes one register.
    pub fn write_reg(&self, reg: u8, _value: u8) -> errtrace::Result {
        if self.held.get() {
            // An error made with `?` from a code: origin here, no message, nobody logs it yet.
            Err(ETIMEDOUT)?;
        }
        let _ = reg;
        Ok(())
    }

    /// Pops one sample from the device's FIFO; the FIFO is empty in this simulation.
    pub fn read_fifo(&self) -> errtrace::Result<u8> {
        // EAGAIN is normal here: quiet by default, still recorded and counted.
        Err(err!(EAGAIN, "{}: FIFO empty", self.name))
    }
}
