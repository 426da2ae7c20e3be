//! The README's first example: `cargo run --example readme`.
//! (The code block there is checked to be this file, and its output against this program's.)

use errtrace::{boundary, code::EIO, err, ResultExt};

fn read_reg(reg: u8) -> errtrace::Result<u8> {
    if reg == 0x10 {
        return Err(err!(EIO)); // the origin: file, line, column, function
    }
    Ok(0x42)
}

#[errtrace::trace] // every `?` in this function records a hop
fn chip_id() -> errtrace::Result<u8> {
    let id = read_reg(0x10)?;
    Ok(id)
}

fn probe() -> errtrace::Result {
    chip_id().during("reading chip id")?; // a hop with a message
    Ok(())
}

fn main() {
    // Where errors leave Rust: nobody logged this one, so the boundary prints its full report.
    assert_eq!(boundary("probe sensor0", probe()), Err(EIO));
}
