//! `cargo-errtrace`: `cargo errtrace audit PATH` (or `cargo-errtrace audit PATH`).

fn main() {
    std::process::exit(errtrace_audit::cli::run(std::env::args_os().collect()));
}
