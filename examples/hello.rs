//! The smallest errtrace program: an error made deep down, reported once at `main`.
use errtrace::{code::ENOENT, err, ResultExt};

fn read_config() -> errtrace::Result<u32> {
    Err(err!(ENOENT))
}

fn start() -> errtrace::Result<u32> {
    read_config().during("reading the configuration")
}

fn main() -> errtrace::Result {
    let n = start()?;
    println!("started with {n}");
    Ok(())
}
