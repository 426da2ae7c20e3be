//! The guide's five-minute tour (docs/src/introduction.md): `cargo run --example tour`.
//! (The code block there is checked to be this file, and its output against this program's.)

use errtrace::{boundary, code::EIO, err, ResultExt};

// The creator logs: one line, at its site's policy (rate-limited by default).
fn read_reg(reg: u8) -> errtrace::Result<u8> {
    if reg == 0x10 {
        return Err(err!(EIO, "read of reg {:#x} failed", reg));
    }
    Ok(0x42)
}

// `#[errtrace::trace]` records a hop at every `?` in the function.
#[errtrace::trace]
fn chip_id() -> errtrace::Result<u8> {
    let id = read_reg(0x10)?;
    Ok(id)
}

// `.during()` records a hop with a message.
fn probe() -> errtrace::Result {
    chip_id().during("reading chip id")?;
    Ok(())
}

fn main() {
    // A boundary hands the errno back; it would print the full report of an error nobody logged.
    assert_eq!(boundary("demo probe", probe()), Err(EIO));
}
