//! Calls only the compiler resolves, for `facts_test.rs`: compiled by `errtrace-rustc`, then
//! audited with and without its facts.

#[derive(Debug)]
pub struct Error(i32);
const EIO: Error = Error(5);
const EINVAL: Error = Error(22);

// A receiver whose type only inference knows: two unrelated `read`s, one fails.
pub struct Bus;
pub struct Cache;
impl Bus {
    pub fn read(&self) -> Result<u32, Error> {
        Err(EIO)
    }
}
impl Cache {
    pub fn read(&self) -> Result<u32, Error> {
        Ok(0)
    }
}
pub struct Chip {
    bus: Bus,
}
fn chip() -> Chip {
    Chip { bus: Bus }
}

// Two traits with a method of the same name; the call goes through one of them.
pub trait Falcon {
    fn reset(&self) -> Result<(), Error>;
}
pub trait Engine {
    fn reset(&self) -> Result<(), Error>;
}
pub struct Gsp;
pub struct Sec2;
pub struct Copy;
impl Falcon for Gsp {
    fn reset(&self) -> Result<(), Error> {
        Err(EINVAL)
    }
}
impl Falcon for Sec2 {
    fn reset(&self) -> Result<(), Error> {
        Ok(())
    }
}
impl Engine for Copy {
    fn reset(&self) -> Result<(), Error> {
        Ok(())
    }
}

// A macro that stamps one `impl` into several types.
macro_rules! versioned {
    ($($v:ident),*) => {
        $(
            pub struct $v;
            impl $v {
                pub fn load(&self) -> Result<u32, Error> {
                    Err(EINVAL)
                }
            }
        )*
    };
}
versioned!(R570, R580);

fn boot(falcon: &dyn Falcon) -> Result<u32, Error> {
    let value = chip().bus.read()?;
    falcon.reset()?;
    let fw = R570.load()?;
    Ok(value + fw)
}

fn main() -> Result<(), Error> {
    let _ = Cache.read();
    let _ = Copy.reset();
    boot(&Gsp)?;
    Ok(())
}
