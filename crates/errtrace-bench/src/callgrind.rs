//! Running one case under callgrind and reading what it collected.

use crate::cases::Case;
use crate::output::Measured;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to run the measured processes.
#[derive(Clone, Debug)]
pub struct Runner {
    /// The binary to run (this program, built with the `bench-release` profile).
    pub binary: PathBuf,
    /// Where callgrind writes its files.
    pub out_dir: PathBuf,
    /// Iterations of the short run.
    pub n1: u64,
    /// Iterations of the long run.
    pub n2: u64,
    /// Also dump per-instruction costs (for `tools/cg_breakdown.py`).
    pub dump_instr: bool,
}

/// The total of the collected events in a callgrind output file (its `totals:` line, or
/// `summary:` in older formats).
pub fn parse_totals(text: &str) -> Option<u64> {
    let mut summary = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("totals:") {
            return rest.split_whitespace().next()?.parse().ok();
        }
        if let Some(rest) = line.strip_prefix("summary:") {
            summary = rest.split_whitespace().next()?.parse().ok();
        }
    }
    summary
}

/// The child's report of allocations (`allocs N` on its standard output).
pub fn parse_allocs(stdout: &str) -> Option<u64> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("allocs "))
        .and_then(|n| n.trim().parse().ok())
}

fn file_name(id: &str, n: u64) -> String {
    let safe: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("callgrind.{safe}.{n}.out")
}

impl Runner {
    /// One run of `case` with `n` iterations: (instructions collected, allocations).
    ///
    /// # Errors
    ///
    /// Why valgrind or the child failed.
    pub fn run_once(&self, case: &Case, n: u64) -> Result<(u64, u64), String> {
        let out = out_file(&self.out_dir, case.id, n);
        let result = Command::new("valgrind")
            .arg("--tool=callgrind")
            .arg("-q")
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg("--collect-atstart=no")
            .arg(format!("--toggle-collect={}", case.toggle))
            .arg(if self.dump_instr {
                "--dump-instr=yes"
            } else {
                "--dump-instr=no"
            })
            .arg(&self.binary)
            .arg("--child")
            .arg(case.id)
            .arg(n.to_string())
            // Peers capture a backtrace when these ask for one; the benchmark measures the default.
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE")
            .env_remove("RUST_SPANTRACE")
            .output()
            .map_err(|e| format!("cannot run valgrind: {e} (apt-get install valgrind)"))?;
        let stdout = String::from_utf8_lossy(&result.stdout);
        if !result.status.success() {
            return Err(format!(
                "{} n={n}: {}\n{}",
                case.id,
                result.status,
                String::from_utf8_lossy(&result.stderr)
            ));
        }
        let allocs = parse_allocs(&stdout)
            .ok_or_else(|| format!("{}: the child printed no allocation count", case.id))?;
        let text = std::fs::read_to_string(&out)
            .map_err(|e| format!("{}: cannot read {}: {e}", case.id, out.display()))?;
        let instr = parse_totals(&text)
            .ok_or_else(|| format!("{}: no totals in {}", case.id, out.display()))?;
        if instr == 0 {
            return Err(format!(
                "{}: callgrind collected nothing (is `{}` in the binary?)",
                case.id, case.toggle
            ));
        }
        Ok((instr, allocs))
    }

    /// Both runs of `case`.
    ///
    /// # Errors
    ///
    /// As [`Runner::run_once`].
    pub fn measure(&self, case: &Case) -> Result<Measured, String> {
        let (instr1, allocs1) = self.run_once(case, self.n1)?;
        let (instr2, allocs2) = self.run_once(case, self.n2)?;
        Ok(Measured {
            n1: self.n1,
            n2: self.n2,
            instr1,
            instr2,
            allocs1,
            allocs2,
        })
    }
}

/// Whether `valgrind` can be run.
pub fn available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The path of the callgrind file of `case` with `n` iterations in `dir`.
pub fn out_file(dir: &Path, id: &str, n: u64) -> PathBuf {
    dir.join(file_name(id, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_and_allocs_are_parsed() {
        let text = "version: 1\ncreator: callgrind-3.24.0\nevents: Ir\n\nfn=(1) main\n3 5\n\ntotals: 74123\n";
        assert_eq!(parse_totals(text), Some(74123));
        assert_eq!(parse_totals("events: Ir\nsummary: 12\n"), Some(12));
        assert_eq!(parse_totals("events: Ir\n"), None);
        assert_eq!(parse_allocs("allocs 3000\n"), Some(3000));
        assert_eq!(parse_allocs("nothing\n"), None);
    }

    #[test]
    fn file_names_are_plain() {
        assert_eq!(
            out_file(Path::new("/t"), "error-stack/S2.new", 10),
            PathBuf::from("/t/callgrind.error_stack_S2_new.10.out")
        );
    }
}
