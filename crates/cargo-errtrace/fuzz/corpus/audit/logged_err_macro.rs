// Negative: errtrace's `err!(code, "msg")` creates the error and logs it; so does
// `dev_err_probe`.
fn read(reg: u32) -> Result<u32, Error> {
    if reg > 0xff {
        return Err(err!(EINVAL, "register {:#x} out of range", reg));
    }
    Ok(reg)
}

struct Drv;

impl platform::Driver for Drv {
    fn probe(dev: &mut platform::Device) -> Result<Self> {
        read(1)?;
        if dev.missing() {
            return Err(dev_err_probe(dev, ENODEV, "no such device\n"));
        }
        Ok(Drv)
    }
}
