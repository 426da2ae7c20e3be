//! The caller's say (docs/src/policies.md): a bus scan expects `EREMOTEIO` from absent
//! addresses, so their creator's message is held back; `cargo run --example bus_scan`.
use errtrace::code::EREMOTEIO;
use errtrace::{err, expecting};

fn read_byte(addr: u8) -> errtrace::Result<u8> {
    if addr != 0x48 {
        return Err(err!(EREMOTEIO, "i2c1: no ACK from {:#x}", addr));
    }
    Ok(0x42)
}

/// Whether a device answers at `addr`: "no ACK" is expected here, any other error goes up.
fn is_present(addr: u8) -> errtrace::Result<bool> {
    match expecting(EREMOTEIO, || read_byte(addr)) {
        Ok(_) => Ok(true),
        Err(e) => {
            e.recover(EREMOTEIO)?;
            Ok(false)
        }
    }
}

fn main() -> errtrace::Result {
    errtrace::init();
    let mut found = Vec::new();
    for addr in 0x40..0x50 {
        if is_present(addr)? {
            found.push(addr);
        }
    }
    eprintln!("scan: devices at {found:x?} (hex)");

    // Where nobody expects it, the same failure prints.
    let e = read_byte(0x49).unwrap_err();
    e.handled();

    // The held-back messages are counted at their site.
    let mut listing = String::new();
    let _ = errtrace::control::list(&mut listing); // writing to a String cannot fail
    for line in listing.lines().filter(|l| l.contains("]read_byte ")) {
        eprintln!("{line}");
    }
    Ok(())
}
