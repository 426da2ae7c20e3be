// Negative: the log call comes before the `return` in the same block.
fn check(v: u32) -> Result<u32, Error> {
    if v > 10 {
        pr_err!("value {} out of range\n", v);
        return Err(EINVAL);
    }
    Ok(v)
}

fn main() -> Result<(), Error> {
    check(3)?;
    Ok(())
}
