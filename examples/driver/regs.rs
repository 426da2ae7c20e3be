//! Register access: typed reads on top of the bus.

use super::bus::Bus;
use errtrace::ResultExt;

pub const CHIP_ID: u8 = 0x0f;
pub const CTRL: u8 = 0x20;
pub const DATA: u8 = 0x28;

/// The register map of one device.
pub struct Regs<'a> {
    pub bus: &'a Bus,
}

impl Regs<'_> {
    /// The chip id; `.during()` records this hop with a message.
    pub fn chip_id(&self) -> errtrace::Result<u8> {
        let id = self.bus.read_reg(CHIP_ID).during("reading chip id")?;
        Ok(id)
    }

    #[errtrace::trace]
    pub fn power(&self, on: bool) -> errtrace::Result {
        self.bus.write_reg(CTRL, u8::from(on))?;
        Ok(())
    }

    #[errtrace::trace]
    pub fn data(&self) -> errtrace::Result<u8> {
        let v = self.bus.read_reg(DATA)?;
        Ok(v)
    }
}
