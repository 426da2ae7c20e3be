//! Puts the two linker scripts that `.cargo/config.toml` names next to cortex-m-rt's `link.x`, in
//! the linker's search path: this board's `memory.x` (which `link.x` includes) and errtrace's
//! `errtrace-registry.x` (which keeps the registry of sites in flash).

use std::path::PathBuf;
use std::{env, fs};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("copying memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");

    // errtrace ships the fragment in its `link/` directory; a project that takes errtrace from
    // crates.io can copy the file next to its memory.x instead.
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let link = manifest.join("../errtrace/link");
    println!("cargo:rustc-link-search={}", link.display());
    println!(
        "cargo:rerun-if-changed={}",
        link.join("errtrace-registry.x").display()
    );
}
