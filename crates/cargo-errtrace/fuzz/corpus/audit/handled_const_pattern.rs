// Negative: `Err(ERANGE) => continue` handles one error by its code (a constant pattern, not a
// binding of every error); the other errors are passed on.
fn read() -> Result<u32, Error> {
    Err(ERANGE)
}

fn poll() -> Result<u32, Error> {
    loop {
        match read() {
            Ok(v) => return Ok(v),
            Err(ERANGE) => continue,
            Err(code::EAGAIN) => continue,
            Err(e) => return Err(e),
        }
    }
}
