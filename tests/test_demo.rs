//! The demo (`cargo run --example driver`) runs, shows its five steps and their key lines, and
//! prints plain text (no ANSI colour) when its output is not a terminal.

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs the demo exactly as the README says, from the repository root, with stdout a pipe.
fn run_demo(envs: &[(&str, &str)]) -> (String, Duration) {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["run", "--quiet", "--example", "driver"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("ERRTRACE")
        .env_remove("ERRTRACE_FILE")
        .env_remove("NO_COLOR");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    // Build first (not timed), then time the run itself.
    let build = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--example", "driver"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cargo runs");
    assert!(build.success(), "cargo build --example driver failed");
    let start = Instant::now();
    let output = cmd.output().expect("cargo runs");
    let took = start.elapsed();
    assert!(
        output.status.success(),
        "the demo failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    (stdout, took)
}

fn position(out: &str, needle: &str) -> usize {
    out.find(needle)
        .unwrap_or_else(|| panic!("{needle:?} missing from the demo's output:\n{out}"))
}

#[test]
fn demo_shows_five_steps_in_order() {
    let (out, took) = run_demo(&[]);
    let headings = [
        "1. A probe fails: a fault point forces a bus read to fail",
        "2. An error storm: 1,000 transient failures",
        "3. The flight recorder: the most recent errors",
        "4. Runtime control: change what prints, without rebuilding",
        "5. An error dropped unhandled is caught and reported",
    ];
    let mut last = 0;
    for h in headings {
        let at = position(&out, &format!("\n{h}\n"));
        assert!(at >= last, "{h:?} is out of order");
        last = at;
    }
    // The demo measures itself ("Done in 3.6 ms"): well under a second.
    let done = &out[position(&out, "Done in ") + 8..];
    let ms: f64 = done.split(' ').next().unwrap().parse().unwrap();
    assert!(ms < 500.0, "the demo took {ms} ms");
    // `cargo run` itself only checks that the build is fresh.
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

fn section(out: &str, n: usize) -> &str {
    let start = position(out, &format!("\n{n}. "));
    let end = out[start + 1..]
        .find(&format!("\n{}. ", n + 1))
        .map_or(out.len(), |i| start + 1 + i);
    &out[start..end]
}

#[test]
fn demo_key_lines() {
    let (out, _) = run_demo(&[]);

    // 1: the fault, the boundary's full report (origin + every hop), the errno; then a creator
    // that logs one line and a boundary that stays silent.
    let s1 = section(&out, 1);
    position(s1, "> fail name=bus_read probability=100 times=1");
    position(
        s1,
        "error: probe sensor0: returning EIO (-5), not reported before:",
    );
    let origin = position(s1, "origin: examples/driver/bus.rs:");
    assert!(s1[origin..]
        .lines()
        .next()
        .unwrap()
        .ends_with(" in driver::bus::Bus::transfer"));
    assert_eq!(s1.matches("        via:    ").count(), 4, "{s1}");
    position(s1, "\"reading chip id\"");
    position(s1, "probe returned -5");
    assert_eq!(s1.matches("no ACK reading reg 0x0f: EIO (-5)").count(), 1);
    assert_eq!(s1.matches("returning EIO").count(), 1, "{s1}");

    // 2: 10 printed, then the suppressed count; EAGAIN quiet but counted.
    let s2 = section(&out, 2);
    assert_eq!(s2.matches("CRC error reading reg 0x28").count(), 10, "{s2}");
    position(s2, "990 messages suppressed");
    position(
        s2,
        "read_fifo: EAGAIN, created=1000 logged=0 suppressed=1000",
    );
    assert!(!s2.contains("FIFO empty: EAGAIN"), "{s2}");

    // 3: the recorder's last events, one with a trail.
    let s3 = section(&out, 3);
    assert_eq!(
        s3.lines()
            .filter(|l| l.trim_start().starts_with('#'))
            .count(),
        8,
        "{s3}"
    );
    position(s3, "EAGAIN (-11) cpu ");
    position(s3, "via examples/driver/regs.rs:");
    position(s3, "\"sampling after the storm\"");

    // 4: +p makes the quiet site print, -p silences it again; the listing shows both.
    let s4 = section(&out, 4);
    let plus = position(s4, "> file *bus* +p (4 sites matched)");
    let minus = position(s4, "> file *bus* -p (4 sites matched)");
    let printed: Vec<usize> = s4
        .match_indices("error: i2c-0: FIFO empty: EAGAIN (-11)")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(printed.len(), 2, "{s4}");
    assert!(printed.iter().all(|&i| plus < i && i < minus), "{s4}");
    position(s4, "]read_fifo =_ code=EAGAIN created=1000 logged=0");
    position(s4, "]read_fifo =p code=EAGAIN");
    assert!(s4.contains("policy=quiet"));

    // 5: the dropped error is reported with its origin and trail.
    let s5 = section(&out, 5);
    position(
        s5,
        "warning: ETIMEDOUT (-110) dropped unhandled, last seen at examples/driver/sensor.rs:",
    );
    position(s5, "origin: examples/driver/bus.rs:");
    position(s5, "Dropped unhandled so far: 1");
}

#[test]
fn demo_is_plain_when_not_a_terminal() {
    let (out, _) = run_demo(&[]);
    assert!(!out.contains('\x1b'), "ANSI escapes in piped output");
    // NO_COLOR is honoured too (and stdout is a pipe here anyway).
    let (out, _) = run_demo(&[("NO_COLOR", "1")]);
    assert!(!out.contains('\x1b'));
}
