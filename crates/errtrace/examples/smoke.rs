use errtrace::{boundary, code::*, err, ResultExt};

fn read_reg(reg: u8) -> errtrace::Result<u8> {
    if reg == 0x10 {
        return Err(err!(EIO, "read of reg {:#x} failed", reg));
    }
    Err(err!(EIO))
}

#[errtrace::trace]
fn chip_id(reg: u8) -> errtrace::Result<u8> {
    let id = read_reg(reg)?;
    let _o: Option<u8> = Some(1);
    Ok(id)
}

fn probe(reg: u8) -> errtrace::Result {
    let _ = chip_id(reg).context("reading chip id")?;
    Ok(())
}

fn main() {
    println!("{:?}", boundary("probe", probe(0x10)));
    println!("{:?}", boundary("probe", probe(0x11)));
    let e = probe(0x11).unwrap_err();
    println!("display: {e}");
    println!("alt: {e:#}");
    let _ = probe(0x12);
    let e = errtrace::Error::new(EAGAIN);
    drop(e);
    for i in 0..30 {
        let _ = boundary("storm", Err::<(), _>(err!(ETIMEDOUT, "storm {}", i)));
    }
    errtrace::policy::flush_suppressed();
}
