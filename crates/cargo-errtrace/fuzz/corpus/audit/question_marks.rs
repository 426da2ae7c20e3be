// Exactly 4 real `?` operators in this file.
use core::fmt;

pub struct Wrap<T: ?Sized>(Box<T>);

fn a(s: &str) -> Result<u32, fmt::Error> {
    // not this one: foo()?
    let msg = "nor this one?";
    /* nor bar()? in a block comment */
    let v: u32 = s.parse().map_err(|_| fmt::Error)?;
    let w = b(msg)?;
    Ok(v + w)
}

fn b<T: AsRef<str> + ?Sized>(t: &T) -> Result<u32, fmt::Error> {
    let n = t.as_ref().len();
    let r: Result<u32, fmt::Error> = Ok(n as u32);
    Ok(r? + c()?)
}

fn c() -> Result<u32, fmt::Error> {
    Ok(1)
}

macro_rules! m {
    ($($x:expr),+ $(,)?) => { $( $x?; )+ };
}
