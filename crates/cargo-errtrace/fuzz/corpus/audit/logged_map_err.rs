// Negative: `.map_err(|e| { pr_err!(…); e })?` logs the error on the way.
fn load() -> Result<Vec<u8>, Error> {
    Err(ENOENT)
}

fn main() -> Result<(), Error> {
    let _data = load().map_err(|e| {
        pr_err!("load failed: {:?}\n", e);
        e
    })?;
    Ok(())
}
