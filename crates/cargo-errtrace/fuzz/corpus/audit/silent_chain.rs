// A kernel-style module: the error made by a C binding travels through two
// unlogged `?` hops into `init`, where the kernel prints nothing.
use kernel::prelude::*;

struct Dev(u32);

fn read_reg(dev: &Dev) -> Result<u32> {
    to_result(unsafe { bindings::read_reg(dev.0) })?;
    Ok(1)
}

fn setup(dev: &Dev) -> Result {
    let v = read_reg(dev)?;
    if v == 0 {
        return Err(EINVAL);
    }
    Ok(())
}

struct Sample;

impl kernel::Module for Sample {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        setup(&Dev(0))?;
        Ok(Sample)
    }
}
