// Negative: `#[export_name]` / `#[no_mangle]` on a Rust-ABI function only names its symbol (Rust
// binder does it for a readable wchan in `ps`); it is not a boundary to C, so an error leaving
// it goes to its Rust callers, not "to nobody".
fn check() -> Result<(), Error> {
    Err(Error::EIO)
}

#[export_name = "binder_thread_write"]
fn write(buf: &[u8]) -> Result<(), Error> {
    check()?;
    Ok(())
}

#[no_mangle]
pub fn named_for_the_linker() -> Result<(), Error> {
    check()?;
    Ok(())
}
