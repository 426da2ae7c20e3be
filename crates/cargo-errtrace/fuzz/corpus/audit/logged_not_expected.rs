// Negative: errtrace's `.not_expected("…")` and `.or_log("…", v)` log; the first passes the error
// on (read from errtrace's own vocabulary: `.not_expected` used to be missing, a false chain).
fn load() -> Result<u32, Error> {
    Err(ENOENT)
}

fn main() -> Result<(), Error> {
    load().not_expected("the table is always there")?;
    let _n = load().or_log("the table is optional", 0);
    Ok(())
}
