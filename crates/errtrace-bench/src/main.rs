//! errtrace-bench: instructions per call (callgrind) and heap allocations per call of errtrace
//! and its peers on a ten-frame error chain.
//!
//! ```text
//! cargo run --release -p errtrace-bench              # the human table and the target verdicts
//! cargo run --release -p errtrace-bench -- --json    # a JSON array of rows
//! ```
//!
//! How it measures: this program (the driver) builds itself once more with the `bench-release`
//! profile (fat LTO, one codegen unit), then runs that binary under
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect=<fn>` once per case and
//! iteration count. The child runs a warm-up, then `n` iterations inside the `#[no_mangle]`
//! collected function, and prints the allocations it counted. Each case runs with `n1` and `n2`
//! iterations; the per-call cost is `(count(n2) - count(n1)) / (n2 - n1)`, which cancels every
//! fixed cost (process start, warm-up, entering the collected function). See
//! `docs/src/performance.md`.
//!
//! `--threads` instead measures, by wall clock, whether two threads making errors at once slow
//! each other down (see `threads.rs`).
//!
//! Options: `--json`, `--no-rebuild` (measure this binary as it is), `--jobs N` (parallel
//! valgrind runs; default: the number of CPUs), `--only TEXT` (cases whose id contains TEXT;
//! repeatable), `--n1 N`, `--n2 N`, `--keep DIR` (keep the callgrind files, for
//! `callgrind_annotate` and `tools/`), `--save DIR` (also write `results.json` and `results.txt`
//! there, as `docs/perf/` keeps them), `--list` (case ids and collected functions), `--asm`
//! (disassemble the fail-point functions of S7 with `objdump`).

#[macro_use]
mod frames;
mod callgrind;
mod cases;
mod harness;
mod impls;
mod output;
mod threads;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[global_allocator]
static GLOBAL: harness::CountingAlloc = harness::CountingAlloc;

/// Iterations run before the measured call: more than the recorder's 256 slots (so the ring has
/// wrapped), and past every rate limit's burst; every site is interned and every lazy
/// initialisation (thread ids, backtrace settings, eyre's hook) has happened.
const WARMUP: u64 = 400;

struct Options {
    json: bool,
    rebuild: bool,
    jobs: usize,
    only: Vec<String>,
    n1: u64,
    n2: u64,
    keep: Option<PathBuf>,
    list: bool,
    asm: bool,
    save: Option<PathBuf>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        json: false,
        rebuild: true,
        jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
        only: Vec::new(),
        n1: 1000,
        n2: 3000,
        keep: None,
        list: false,
        asm: false,
        save: None,
    };
    let num = |v: Option<String>, what: &str| -> Result<u64, String> {
        v.ok_or_else(|| format!("{what} needs a value"))?
            .parse()
            .map_err(|e| format!("{what}: {e}"))
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--json" => o.json = true,
            "--no-rebuild" => o.rebuild = false,
            "--jobs" => o.jobs = num(args.next(), "--jobs")?.max(1) as usize,
            "--only" => o.only.push(args.next().ok_or("--only needs a value")?),
            "--n1" => o.n1 = num(args.next(), "--n1")?,
            "--n2" => o.n2 = num(args.next(), "--n2")?,
            "--keep" => o.keep = Some(args.next().ok_or("--keep needs a directory")?.into()),
            "--list" => o.list = true,
            "--save" => o.save = Some(args.next().ok_or("--save needs a directory")?.into()),
            "--asm" => o.asm = true,
            "-h" | "--help" => {
                return Err("usage: errtrace-bench [--json] [--no-rebuild] [--jobs N] \
                            [--only TEXT]... [--n1 N] [--n2 N] [--keep DIR] [--save DIR] [--list] [--asm]"
                    .to_string())
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    if o.n2 <= o.n1 || o.n1 == 0 {
        return Err("need 0 < --n1 < --n2".to_string());
    }
    Ok(o)
}

/// The measured process: warm up, then run `n` iterations inside the collected function.
fn child(id: &str, n: &str) -> ExitCode {
    harness::install_noop_sink();
    let (Some(case), Ok(n)) = (cases::find(id), n.parse::<u64>()) else {
        eprintln!("errtrace-bench --child: unknown case {id:?} or bad count {n:?}");
        return ExitCode::FAILURE;
    };
    (case.run)(WARMUP);
    harness::reset_allocs();
    harness::errtrace_bench_measure(case.run, n);
    let allocs = harness::allocs();
    println!("allocs {allocs}");
    ExitCode::SUCCESS
}

/// The binary to measure: this one rebuilt with the `bench-release` profile (unless asked not
/// to, or already built so).
fn bench_binary(rebuild: bool) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let Some(profile_dir) = exe.parent() else {
        return Ok(exe);
    };
    if !rebuild
        || profile_dir
            .file_name()
            .is_some_and(|n| n == "bench-release")
    {
        return Ok(exe);
    }
    let Some(target_dir) = profile_dir.parent() else {
        return Ok(exe);
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    eprintln!("errtrace-bench: building the measured binary (profile bench-release: fat LTO, 1 codegen unit)");
    let status = Command::new(cargo)
        .args([
            "build",
            "--profile",
            "bench-release",
            "-p",
            "errtrace-bench",
        ])
        .args(["--bin", "errtrace-bench", "--manifest-path", manifest])
        .arg("--target-dir")
        .arg(target_dir)
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo build --profile bench-release failed ({status}); \
             use --no-rebuild to measure this binary instead"
        ));
    }
    let mut bin = target_dir.join("bench-release").join("errtrace-bench");
    if let Some(ext) = exe.extension() {
        bin.set_extension(ext);
    }
    Ok(bin)
}

fn asm(binary: &std::path::Path) -> ExitCode {
    let mut ok = true;
    for f in [
        "errtrace_bench_fail_point_on",
        "errtrace_bench_fail_point_off",
    ] {
        match Command::new("objdump")
            .args(["-d", "--no-show-raw-insn", "-M", "intel"])
            .arg(format!("--disassemble={f}"))
            .arg(binary)
            .output()
        {
            Ok(o) if o.status.success() => {
                let text = String::from_utf8_lossy(&o.stdout);
                let body: Vec<&str> = text
                    .lines()
                    .skip_while(|l| !l.contains(&format!("<{f}>:")))
                    .take_while(|l| !l.trim().is_empty())
                    .collect();
                println!("{}\n", body.join("\n"));
            }
            Ok(o) => {
                ok = false;
                eprintln!("objdump failed: {}", String::from_utf8_lossy(&o.stderr));
            }
            Err(e) => {
                ok = false;
                eprintln!("cannot run objdump: {e}");
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--threads") {
        threads::run();
        return ExitCode::SUCCESS;
    }
    if args.peek().map(String::as_str) == Some("--child") {
        let id = args.nth(1).unwrap_or_default();
        let n = args.next().unwrap_or_default();
        return child(&id, &n);
    }
    let o = match parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let selected: Vec<cases::Case> = cases::all()
        .into_iter()
        .filter(|c| o.only.is_empty() || o.only.iter().any(|s| c.id.contains(s.as_str())))
        .collect();
    if o.list {
        for c in &selected {
            println!("{:<34} collects {}", c.id, c.toggle);
        }
        return ExitCode::SUCCESS;
    }
    let started = Instant::now();
    let binary = match bench_binary(o.rebuild) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("errtrace-bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    if o.asm {
        return asm(&binary);
    }
    if !callgrind::available() {
        eprintln!(
            "errtrace-bench: valgrind not found; install it: \
             apt-get -o DPkg::Lock::Timeout=900 install -y valgrind"
        );
        return ExitCode::FAILURE;
    }
    let (out_dir, temporary) = match &o.keep {
        Some(d) => (d.clone(), false),
        None => (
            std::env::temp_dir().join(format!("errtrace-bench.{}", std::process::id())),
            true,
        ),
    };
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        eprintln!("errtrace-bench: cannot create {}: {e}", out_dir.display());
        return ExitCode::FAILURE;
    }
    let runner = callgrind::Runner {
        binary,
        out_dir: out_dir.clone(),
        n1: o.n1,
        n2: o.n2,
        dump_instr: o.keep.is_some(),
    };
    let measure_started = Instant::now();
    let results: Mutex<BTreeMap<String, output::Measured>> = Mutex::new(BTreeMap::new());
    let errors: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..o.jobs.min(selected.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = selected.get(i) else { break };
                let r = runner.measure(case);
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                match r {
                    Ok(m) => {
                        eprintln!(
                            "[{k:>2}/{}] {:<34} {:>9.1} instr/call {:>5.1} allocs/call",
                            selected.len(),
                            case.id,
                            m.instructions(),
                            m.allocs()
                        );
                        if let Ok(mut g) = results.lock() {
                            g.insert(case.id.to_string(), m);
                        }
                    }
                    Err(e) => {
                        eprintln!("[{k:>2}/{}] {} FAILED: {e}", selected.len(), case.id);
                        if let Ok(mut g) = errors.lock() {
                            g.push(e);
                        }
                    }
                }
            });
        }
    });
    if temporary {
        let _ = std::fs::remove_dir_all(&out_dir);
    }
    let results = results.into_inner().unwrap_or_default();
    let errors = errors.into_inner().unwrap_or_default();
    let rows = output::rows(&results);
    let json = output::json(&rows);
    let table = output::table(&rows, output::reference(&results).as_ref());
    if o.json {
        println!("{json}");
    } else {
        print!("{table}");
    }
    if let Some(dir) = &o.save {
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("errtrace-bench: cannot write {}: {e}", path.display());
            }
        };
        write("results.json", &format!("{json}\n"));
        write("results.txt", &table);
    }
    eprintln!(
        "errtrace-bench: {} cases x 2 runs (n1={}, n2={}) in {:.1} s ({:.1} s in total with the build)",
        results.len(),
        o.n1,
        o.n2,
        measure_started.elapsed().as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("errtrace-bench: {} case(s) failed", errors.len());
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> impl Iterator<Item = String> + '_ {
        s.split_whitespace().map(String::from)
    }

    #[test]
    fn options() {
        let o = parse_args(args(
            "--json --jobs 1 --only S2 --only anyhow --n1 10 --n2 20",
        ))
        .unwrap();
        assert!(o.json && o.rebuild);
        assert_eq!((o.jobs, o.n1, o.n2), (1, 10, 20));
        assert_eq!(o.only, ["S2", "anyhow"]);
        assert!(parse_args(args("--n1 5 --n2 5")).is_err());
        assert!(parse_args(args("--bogus")).is_err());
        assert!(!parse_args(args("--no-rebuild")).unwrap().rebuild);
    }

    #[test]
    fn every_case_runs_natively() {
        // A smoke test of every case's code (no timing): each runs a few iterations.
        harness::install_noop_sink();
        for c in cases::all() {
            (c.run)(3);
        }
    }
}
