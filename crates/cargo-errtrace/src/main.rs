//! `cargo-errtrace`: `cargo errtrace audit PATH` (or `cargo-errtrace audit PATH`).

// The audit allocates many small short-lived objects (token trees, syntax nodes) on several
// threads; mimalloc is markedly faster than the system allocator for that.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(errtrace_audit::cli::run(std::env::args_os().collect()));
}
