// Positive: `err!(EIO)` without a message creates the error but does not log it.
fn read() -> Result<u32, Error> {
    Err(err!(EIO))?
}

fn main() -> Result<(), Error> {
    read()?;
    Ok(())
}
