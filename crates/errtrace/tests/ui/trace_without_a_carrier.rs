//! `#[errtrace::trace]` on a function whose error type cannot carry an errtrace error, or that
//! returns no `Result`, is refused (it would record nothing): the message says what works.
use errtrace::{code::EIO, err};

fn leaf() -> errtrace::Result<u32> {
    Err(err!(EIO))
}

#[derive(Debug)]
enum AppError {
    Device(errtrace::Error),
}

impl From<errtrace::Error> for AppError {
    fn from(e: errtrace::Error) -> Self {
        AppError::Device(e)
    }
}

#[errtrace::trace]
fn start() -> Result<u32, AppError> {
    Ok(leaf()? + 1)
}

#[errtrace::trace]
fn first(v: &[u32]) -> Option<u32> {
    let x = v.first()?;
    Some(*x)
}

fn main() {
    let _ = start();
    let _ = first(&[]);
}
