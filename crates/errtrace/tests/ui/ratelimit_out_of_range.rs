// A rate limit errtrace cannot honour (burst above 8191) is refused when the site is compiled,
// not wrapped into a limit that prints far more or far less than asked.
use errtrace::code::EIO;

fn read() -> errtrace::Result {
    Err(errtrace::err!(ratelimit(2_000_000_000, 5000), EIO, "read failed"))
}

fn main() {
    let _ = read();
}
