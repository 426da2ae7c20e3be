//! The driver links the compiler's `librustc_driver-*.so`, which lives in its toolchain's
//! `lib` directory: record that directory as the binary's run path, so that the kernel's build
//! (or anyone) can run it as `RUSTC=` without setting `LD_LIBRARY_PATH`.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{rustc} --print sysroot`: {e}"));
    assert!(out.status.success(), "`{rustc} --print sysroot` failed");
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    println!("cargo:rustc-link-arg=-Wl,-rpath,{sysroot}/lib");
    println!("cargo:rerun-if-changed=build.rs");
}
