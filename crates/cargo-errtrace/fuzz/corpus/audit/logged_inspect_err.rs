// Negative: the hop into the boundary has `.inspect_err(|e| dev_err!(…))` attached.
fn read_reg(dev: &Dev) -> Result<u32> {
    to_result(unsafe { bindings::read_reg(dev.raw()) })?;
    Ok(1)
}

struct Drv;

impl pci::Driver for Drv {
    fn probe(dev: &mut pci::Device) -> Result<Self> {
        read_reg(dev).inspect_err(|e| dev_err!(dev, "reading the ID failed: {:?}\n", e))?;
        Ok(Drv)
    }
}
