//! The `.log()` example of the guide (docs/src/policies.md): `cargo run --example firmware`.
//! (The code block there is checked to be this file, and its output against this program's.)

use errtrace::code::ENOENT;
use errtrace::{Error, ResultExt};

fn request_firmware(name: &str) -> errtrace::Result<&'static [u8]> {
    let _ = name;
    Err(Error::new(ENOENT)) // like a C binding: an errno, no message
}

fn load(name: &str) -> errtrace::Result<usize> {
    let fw = request_firmware(name)
        .log_with(|e, f| write!(f, "firmware {name}: {}", e.description()))?;
    Ok(fw.len())
}

fn init() -> errtrace::Result<usize> {
    load("demo.bin").log("loading firmware") // already logged: prints nothing more
}

fn main() {
    let e = init().unwrap_err();
    assert!(e.is_logged());
    e.handled();
}
