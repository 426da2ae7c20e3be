//! `errtrace-rustc`: the compiler, plus the facts `cargo errtrace audit --facts` reads.
//!
//! It is rustc (the same `rustc_driver` entry point, the same arguments, the same outputs),
//! run with a callback after type checking that writes, when `ERRTRACE_FACTS_DIR` is set, one
//! [`errtrace_facts::CrateFacts`] per compiled crate: every call in every body, and the
//! function or functions the compiler resolved it to. Name resolution, macro expansion, `cfg`,
//! method lookup by type and trait selection are the compiler's own, so the audit no longer
//! guesses them from names.
//!
//! Use it where rustc is used: `make LLVM=-19 RUSTC=errtrace-rustc` for a kernel tree,
//! `RUSTC=errtrace-rustc cargo check` for a cargo project. It must be the toolchain the tree
//! builds with (it is that toolchain's compiler).
//!
//! Layers: `locate` (a span as a [`errtrace_facts::Loc`]) → `targets` (what a call can run)
//! → `collect` (the walk over a crate's bodies) → this file (the driver and the output file).
#![feature(rustc_private)]

extern crate rustc_driver;
extern crate rustc_hir;
extern crate rustc_interface;
extern crate rustc_middle;
extern crate rustc_span;

mod collect;
mod locate;
mod targets;

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rustc_driver::Compilation;
use rustc_middle::ty::TyCtxt;

/// Crates of the compiler's own library: their calls are not the audit's business.
const SYSROOT_CRATES: &[&str] = &["core", "alloc", "std", "compiler_builtins", "proc_macro"];

struct Facts {
    dir: Option<PathBuf>,
}

impl rustc_driver::Callbacks for Facts {
    fn after_analysis(
        &mut self,
        _compiler: &rustc_interface::interface::Compiler,
        tcx: TyCtxt<'_>,
    ) -> Compilation {
        if let Some(dir) = &self.dir {
            let krate = tcx.crate_name(rustc_span::def_id::LOCAL_CRATE).to_string();
            if !SYSROOT_CRATES.contains(&krate.as_str()) {
                let facts = collect::crate_facts(tcx, krate);
                if let Err(e) = write(dir, &facts) {
                    tcx.dcx().warn(format!(
                        "errtrace-rustc: cannot write the facts of `{}` to {}: {e}",
                        facts.krate,
                        dir.display()
                    ));
                }
            }
        }
        Compilation::Continue
    }
}

/// Write `<dir>/<crate>.json` whole or not at all (a reader never sees half a file).
fn write(dir: &Path, facts: &errtrace_facts::CrateFacts) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.json", facts.krate));
    let tmp = dir.join(format!(".{}.json.{}", facts.krate, std::process::id()));
    let mut out = BufWriter::new(fs::File::create(&tmp)?);
    serde_json::to_writer(&mut out, facts)?;
    out.flush()?;
    drop(out);
    fs::rename(&tmp, &path)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::env::var_os("ERRTRACE_FACTS_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    let mut callbacks = Facts { dir };
    let code = rustc_driver::catch_with_exit_code(|| {
        rustc_driver::RunCompiler::new(&args, &mut callbacks).run();
        Ok(())
    });
    std::process::exit(code);
}
