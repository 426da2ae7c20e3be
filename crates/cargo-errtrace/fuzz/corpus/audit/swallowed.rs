// Positive: errors handled by doing nothing.
fn parse(s: &str) -> Result<u32, Error> {
    s.parse().map_err(|_| EINVAL)
}

fn handle(s: &str) -> u32 {
    match parse(s) {
        Ok(v) => v,
        Err(_) => {}
    }
    match parse(s) {
        Ok(_) => (),
        Err(_) => (),
    }
    let n = match parse(s) {
        Ok(v) => v,
        Err(..) => 0,
    };
    if let Err(_) = parse(s) {}
    let a = parse(s).unwrap_or(0);
    let b = parse(s).unwrap_or_default();
    let c = parse(s).unwrap_or_else(|_| 7);
    n + a + b + c
}
