fn main() {
    let e = errtrace::err!(oncee, EIO, "x");
    e.handled();
}
