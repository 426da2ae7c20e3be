//! Device setup and probe: the driver proper.

use super::bus::Bus;
use super::regs::Regs;
use errtrace::code::{EAGAIN, ENODEV};
use errtrace::ResultExt;

pub struct Sensor<'a> {
    pub name: &'static str,
    regs: Regs<'a>,
}

impl<'a> Sensor<'a> {
    pub fn new(name: &'static str, bus: &'a Bus) -> Sensor<'a> {
        Sensor {
            name,
            regs: Regs { bus },
        }
    }

    /// Device setup: check the chip, power it on. `#[errtrace::trace]` records every `?`.
    #[errtrace::trace]
    fn setup(&self) -> errtrace::Result {
        let id = self.regs.chip_id()?;
        if id != 0x42 {
            Err(ENODEV)?;
        }
        self.regs.power(true)?;
        Ok(())
    }

    /// The probe: what the driver core calls. Its result leaves through a boundary.
    #[errtrace::trace]
    pub fn probe(&self) -> errtrace::Result {
        self.setup()?;
        Ok(())
    }

    /// One sample; a CRC error is transient: the caller retries.
    pub fn sample(&self) -> errtrace::Result<u8> {
        self.regs.data().trace()
    }

    /// Polls the FIFO: `Ok(None)` when it is empty (EAGAIN is handled here, by `recover`).
    pub fn poll(&self) -> errtrace::Result<Option<u8>> {
        match self.regs.bus.read_fifo() {
            Ok(v) => Ok(Some(v)),
            Err(e) => {
                e.recover(EAGAIN)?;
                Ok(None)
            }
        }
    }

    /// Powers the device down.
    #[errtrace::trace]
    pub fn shutdown(&self) -> errtrace::Result {
        self.regs.power(false)?;
        Ok(())
    }
}
