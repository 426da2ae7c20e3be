//! The decoration flags of the guide (docs/src/control.md): `cargo run --example flags`.
//! (The code block there is checked to be this file, and its output against this program's.)

mod bus {
    use errtrace::code::ENODEV;

    pub fn never() -> errtrace::Result {
        Err(errtrace::err!(ENODEV, "never fired"))
    }
}

fn main() {
    errtrace::control::apply("func never =pmfslth").unwrap();
    bus::never().unwrap_err().handled();
}
