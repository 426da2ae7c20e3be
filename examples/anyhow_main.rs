//! anyhow in `main` (docs/src/migrating-anyhow.md): `cargo run --example anyhow_main`, or with
//! `-- direct` for an errtrace error that reaches anyhow without a boundary.
use errtrace::{code::EIO, err, ResultExt};

fn read_reg(reg: u8) -> errtrace::Result<u8> {
    if reg == 0x10 {
        return Err(err!(EIO, "read of reg {:#x} failed", reg)); // the creator logs
    }
    Ok(0x42)
}

fn probe() -> errtrace::Result<u8> {
    read_reg(0x10).during("reading chip id")
}

fn main() -> anyhow::Result<()> {
    errtrace::init();
    let id = if std::env::args().any(|a| a == "direct") {
        probe()? // an errtrace::Error inside anyhow::Error
    } else {
        errtrace::boundary("probe", probe())? // a Code: the boundary reported what nobody did
    };
    println!("chip id {id:#x}");
    Ok(())
}
