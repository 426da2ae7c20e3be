//! The report example of the guide (docs/src/origin-and-trail.md): `cargo run --example report`.
//! (The code block there is checked to be this file, and its output against this program's.)

use errtrace::{code::EIO, err, ResultExt};

fn read_reg() -> errtrace::Result<u8> {
    Err(err!(EIO))
}

#[errtrace::trace]
fn probe() -> errtrace::Result<u8> {
    let id = read_reg().during("reading chip id")?;
    Ok(id)
}

fn main() {
    let e = probe().unwrap_err();
    let line = e.to_string();
    assert!(line.starts_with("EIO: Input/output error (at "));
    let report = format!("{e:#}");
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines[0], "error EIO (-5): Input/output error");
    assert!(lines[1].starts_with("  origin: ") && lines[1].ends_with("::read_reg"));
    assert!(lines[2].starts_with("  via:    ") && lines[2].ends_with("\"reading chip id\""));
    assert!(lines[3].starts_with("  via:    "));
    println!("{report}");
}
