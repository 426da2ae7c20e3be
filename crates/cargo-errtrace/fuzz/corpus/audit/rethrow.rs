// `match call() { Err(e) => return Err(e) }` passes the callee's error on, like `?`.
fn step() -> Result<u32, String> {
    Err("no data".to_string())
}

fn run() -> Result<u32, String> {
    let v = match step() {
        Ok(v) => v,
        Err(e) => return Err(e),
    };
    Ok(v + 1)
}

fn main() -> Result<(), String> {
    run().map(|_| ())
}
