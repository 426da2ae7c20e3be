// A code name is resolved where it is written, like any other name: without an import, the
// compiler says so (the fix: `use errtrace::code::ETIMEDOUT;`).
fn main() {
    let e = errtrace::err!(ETIMEDOUT, "chip still busy");
    e.handled();
}
