#[errtrace::trace]
struct NotAFunction;

fn main() {}
