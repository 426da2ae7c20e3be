//! The command line: `cargo errtrace audit [PATH] [--format …] [--deny KIND]…`.

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use crate::findings::{Kind, Report};
use crate::output::{self, Format};

/// Exit code: no denied finding.
pub const EXIT_OK: i32 = 0;
/// Exit code: denied findings exist.
pub const EXIT_DENIED: i32 = 1;
/// Exit code: usage or I/O error.
pub const EXIT_ERROR: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "cargo-errtrace",
    version,
    about = "errtrace tools",
    bin_name = "cargo errtrace"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Find silent error paths: unlogged errors that reach a boundary, and discarded,
    /// swallowed or panicking error handling.
    Audit(AuditArgs),
}

#[derive(clap::Args, Debug)]
struct AuditArgs {
    /// A crate, a workspace, a directory of `.rs` files, or one `.rs` file.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Exit 1 when a finding of this kind or a more severe one exists. Kinds in severity
    /// order: discarded, swallowed, silent-chain, panic. Also `parse-error`, `all`.
    /// Repeatable.
    #[arg(long, value_name = "KIND")]
    deny: Vec<String>,
    /// Also report `panic` findings (`.unwrap()`, `.expect()`, `panic!`…), which are off by
    /// default (as `panics = true` in the config; `--deny panic` turns them on too).
    #[arg(long)]
    panics: bool,
    /// Also list unlogged errors whose only boundary is an entry point from user space (file
    /// operations: the errno is the system call's result), which are counted but not listed by
    /// default (as `user_space = true` in the config).
    #[arg(long)]
    user_space: bool,
    /// Also list unlogged errors whose origin is an overflow or conversion guard
    /// (`checked_add(…).ok_or(EOVERFLOW)?`, `u32::try_from(n)?`), which are counted but not
    /// listed by default (as `guards = true` in the config).
    #[arg(long)]
    guards: bool,
    /// Config file (default: errtrace-audit.toml at PATH, if present).
    #[arg(long)]
    config: Option<PathBuf>,
    /// A directory of facts `errtrace-rustc` wrote while building the tree
    /// (`make RUSTC=errtrace-rustc`, `ERRTRACE_FACTS_DIR=DIR`): calls are resolved as the
    /// compiler resolved them; calls the facts do not hold, by syntax.
    #[arg(long, value_name = "DIR")]
    facts: Option<PathBuf>,
    /// The kernel tree the code is built against (default: the nearest directory above PATH
    /// that holds `rust/kernel/lib.rs` and `Kbuild`): its kernel crate is followed and its C
    /// definitions tell whether a callee can fail, fails only by allocating, or prints.
    #[arg(long, value_name = "DIR", conflicts_with = "no_kernel_tree")]
    kernel_tree: Option<PathBuf>,
    /// Do not look for a kernel tree: what callees do is known from built-in name lists only.
    #[arg(long)]
    no_kernel_tree: bool,
    /// Worker threads (default: one per core).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Colour for human output.
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
    /// Print timings and counts to stderr.
    #[arg(long)]
    timings: bool,
    /// Write the output to this file instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// What `--deny` asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Deny {
    /// Findings of this kind or more severe are denied.
    pub min: Option<Kind>,
    /// Parse errors are denied.
    pub parse_errors: bool,
}

impl Deny {
    /// Parse `--deny` values.
    pub fn parse(values: &[String]) -> Result<Deny, String> {
        let mut d = Deny::default();
        for v in values {
            for v in v.split(',') {
                let v = v.trim();
                match v {
                    "all" => {
                        d.min = Some(Kind::Discarded);
                        d.parse_errors = true;
                    }
                    "parse-error" | "parse-errors" => d.parse_errors = true,
                    other => match Kind::parse(other) {
                        Some(k) => d.min = Some(d.min.map_or(k, |m| m.min(k))),
                        None => {
                            return Err(format!(
                                "unknown kind `{other}` for --deny (expected discarded, swallowed, silent-chain, panic, parse-error or all)"
                            ))
                        }
                    },
                }
            }
        }
        Ok(d)
    }

    /// Does the report hold denied findings?
    pub fn denies(&self, report: &Report) -> bool {
        let by_kind = self
            .min
            .is_some_and(|m| report.findings.iter().any(|f| f.kind >= m));
        by_kind || self.parse_errors && !report.parse_errors.is_empty()
    }
}

/// Run with these arguments (the first is the program name); returns the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    let mut args = args;
    // `cargo errtrace audit` runs `cargo-errtrace errtrace audit`.
    if args.get(1).is_some_and(|a| a == "errtrace") {
        args.remove(1);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_ERROR } else { EXIT_OK };
        }
    };
    let Command::Audit(a) = cli.command;
    let deny = match Deny::parse(&a.deny) {
        Ok(d) => d,
        Err(m) => {
            eprintln!("error: {m}");
            return EXIT_ERROR;
        }
    };
    let config = match crate::load_config(&a.path, a.config.as_deref()) {
        Ok(mut c) => {
            // Denying `panic` by name asks for them to be looked for.
            c.panics |= a.panics || a.deny.iter().any(|d| d == "panic");
            c.user_space |= a.user_space;
            c.guards |= a.guards;
            c
        }
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let kernel_tree = match (&a.kernel_tree, a.no_kernel_tree) {
        (_, true) => None,
        (Some(dir), false) => match crate::csource::KernelTree::at(dir) {
            Some(t) => Some(t),
            None => {
                eprintln!(
                    "error: {} is not a kernel tree (no rust/kernel/lib.rs and Kbuild there)",
                    dir.display()
                );
                return EXIT_ERROR;
            }
        },
        (None, false) => crate::csource::KernelTree::above(&a.path),
    };
    let start = Instant::now();
    let opts = crate::Options {
        root: a.path.clone(),
        config,
        jobs: a.jobs,
        facts: a.facts.clone(),
        kernel_tree,
    };
    let report = match crate::audit(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let elapsed = start.elapsed();
    let base = if a.path.is_file() {
        a.path.parent().map(PathBuf::from).unwrap_or_default()
    } else {
        a.path.clone()
    };
    let color = match a.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            a.output.is_none()
                && a.format == Format::Human
                && std::io::IsTerminal::is_terminal(&std::io::stdout())
                && std::env::var_os("NO_COLOR").is_none()
        }
    };
    let text = output::render(&report, a.format, &base, color);
    let written = match &a.output {
        Some(p) => {
            std::fs::write(p, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", p.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| format!("cannot write output: {e}"))
        }
    };
    if let Err(m) = written {
        eprintln!("error: {m}");
        return EXIT_ERROR;
    }
    if a.timings {
        let secs = elapsed.as_secs_f64();
        let lines = report.summary.lines;
        eprintln!(
            "timings: {} files, {} lines in {:.3} s ({:.0} lines/s)",
            report.files,
            lines,
            secs,
            if secs > 0.0 { lines as f64 / secs } else { 0.0 }
        );
        let t = report.timings;
        eprintln!(
            "timings: discover {:.3} s, parse+summarise {:.3} s, analyse {:.3} s",
            t.discover, t.summarize, t.analyse
        );
        if let Some(k) = &report.kernel_tree {
            eprintln!(
                "timings: kernel tree {}: {} C files indexed, {} definitions read in {:.3} s",
                k.root, k.c_files, k.c_definitions_read, t.c_knowledge
            );
        }
    }
    if !report.io_errors.is_empty() {
        eprintln!("error: {} files could not be read", report.io_errors.len());
        return EXIT_ERROR;
    }
    if deny.denies(&report) {
        EXIT_DENIED
    } else {
        EXIT_OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deny_parsing() {
        assert_eq!(Deny::parse(&[]).unwrap(), Deny::default());
        let d = Deny::parse(&["panic".into(), "swallowed".into()]).unwrap();
        assert_eq!(d.min, Some(Kind::Swallowed));
        assert!(Deny::parse(&["all".into()]).unwrap().parse_errors);
        assert!(Deny::parse(&["nope".into()]).is_err());
    }
}
