// Positive: panics on error paths.
fn load() -> Result<u32, Error> {
    Err(EIO)
}

fn use_it() -> u32 {
    let a = load().unwrap();
    let b = load().expect("load never fails");
    a + b
}

fn pick(v: u32) -> Result<u32, Error> {
    match v {
        0 => panic!("zero"),
        1 => unreachable!(),
        2 => todo!(),
        _ => Ok(v),
    }
}
