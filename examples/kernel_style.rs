//! The kernel-style example of the guide (docs/src/migrating-kernel.md): `cargo run --example kernel_style`.
//! (The code block there is checked to be this file, and its output against this program's.)

use errtrace::code::{Code, EIO, ENODEV};
use errtrace::{boundary, err, Error, ResultExt};

// Stand-ins for the C bindings: a value, or a negative errno.
fn demo_bus_read(reg: u8) -> i32 {
    if reg == 0x0f {
        0x42
    } else {
        -5
    }
}
fn demo_power_on() -> i32 {
    -110
}

fn read_reg(reg: u8) -> errtrace::Result<u8> {
    let ret = demo_bus_read(reg);
    if ret < 0 {
        let code = Code::from_errno(ret)?; // fallible: a bad value is EINVAL here, with origin
        return Err(err!(code, "read of reg {:#x} failed", reg)); // logs once
    }
    Ok(ret as u8)
}

#[errtrace::trace]
fn setup() -> errtrace::Result {
    let id = read_reg(0x0f).during("reading chip id")?;
    if id != 0x42 {
        return Err(err!(ENODEV)); // no message: the boundary will report it with its origin
    }
    let ret = demo_power_on();
    if ret < 0 {
        return Err(Error::from_errno(ret)?).log("powering on");
    }
    Ok(())
}

fn main() {
    // In the module: `fn init(..) -> Result<Self>` ends with the boundary, then converts the
    // code: `kernel::error::Error::from_errno(code.to_errno())`.
    let r = boundary("demo init", setup());
    assert_eq!(r, Err(errtrace::code::ETIMEDOUT));
    assert_eq!(r.unwrap_err().to_errno(), -110);
    assert_eq!(read_reg(0x10).unwrap_err().into_code(), EIO);
}
