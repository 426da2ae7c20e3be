// Negative: each `Err` is logged, returned or kept.
fn parse(s: &str) -> Result<u32, Error> {
    s.parse().map_err(|_| EINVAL)
}

fn handle(s: &str, errors: &mut Vec<Error>) -> Result<u32, Error> {
    match parse(s) {
        Ok(v) => v,
        Err(e) => pr_err!("parse failed: {:?}\n", e),
    };
    match parse(s) {
        Ok(v) => v,
        Err(_) => return Err(EINVAL),
    };
    match parse(s) {
        Ok(v) => v,
        Err(e) => {
            errors.push(e);
            0
        }
    };
    if let Err(e) = parse(s) {
        pr_warn!("{:?}\n", e);
    }
    let v = parse(s).unwrap_or_else(|e| {
        pr_warn!("using the default: {:?}\n", e);
        0
    });
    Ok(v)
}
