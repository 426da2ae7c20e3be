#[errtrace::trace(verbose)]
fn f() -> errtrace::Result {
    Ok(())
}

fn main() {}
