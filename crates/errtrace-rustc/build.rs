//! The driver links the compiler's `librustc_driver-*.so`, which needs the toolchain's LLVM
//! (`libLLVM-*-rust-*.so`). Both live in the toolchain's own `lib` directory, which the `rustc`
//! component installs; the linker does not search it (only `rustlib/<host>/lib`, where LLVM
//! appears only once the `llvm-tools` component is added). So: that directory is a link search
//! path (the driver builds with `rustc-dev` alone, on a machine that never had `llvm-tools`), and
//! the binary's run path, so that the kernel's build (or anyone) can run it as `RUSTC=` without
//! setting `LD_LIBRARY_PATH`.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let out = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{rustc} --print sysroot`: {e}"));
    assert!(out.status.success(), "`{rustc} --print sysroot` failed");
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    println!("cargo:rustc-link-search=native={sysroot}/lib");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{sysroot}/lib");
    println!("cargo:rerun-if-changed=build.rs");
}
