// Negative: errtrace's `.log("…")` and `.log_with(|e| …)` log and pass the error on.
fn load() -> Result<u32, Error> {
    Err(ENOENT)
}

fn main() -> Result<(), Error> {
    load().log("loading the table failed")?;
    load().log_with(|e| format!("second load: {e:?}"))?;
    Ok(())
}
