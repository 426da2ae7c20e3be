// Each kind of boundary, each with an unlogged error leaving it.
struct Drv;

impl platform::Driver for Drv {
    fn probe(pdev: &mut platform::Device) -> Result<Self> {
        pdev.enable()?;
        Ok(Drv)
    }
}

#[no_mangle]
pub extern "C" fn exported_entry() -> i32 {
    from_result(|| {
        check()?;
        Ok(0)
    })
}

fn check() -> Result<(), Error> {
    Err(Error::EIO)
}

struct Fops;

impl file::Operations for Fops {
    fn open(_ctx: &(), file: &File) -> Result<Self> {
        check()?;
        Ok(Fops)
    }
}

// A `read` in an `io::Read` impl hands errors to its caller: not a boundary.
impl std::io::Read for Fops {
    fn read(&mut self, _buf: &mut [u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("x"))
    }
}
