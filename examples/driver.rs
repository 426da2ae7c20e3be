//! The errtrace demo: a simulated driver stack in user space (bus → register access → device
//! setup → probe) with real errtrace calls, in five steps.
//!
//! ```sh
//! cargo run --example driver
//! ```
//!
//! errtrace's records normally go to standard error; this demo installs its own sink that
//! prints them to standard output, indented under the step that caused them (coloured when
//! standard output is a terminal and `NO_COLOR` is not set).

#[path = "driver/bus.rs"]
mod bus;
#[path = "driver/regs.rs"]
mod regs;
#[path = "driver/sensor.rs"]
mod sensor;

use bus::Bus;
use errtrace::sink::{Level, Record, Sink};
use errtrace::{control, policy, recorder, ResultExt};
use sensor::Sensor;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::sync::atomic::{AtomicBool, Ordering};

static COLOR: AtomicBool = AtomicBool::new(false);

fn paint(code: &str, text: &str) -> String {
    if COLOR.load(Ordering::Relaxed) {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Prints errtrace's records to stdout, indented under the demo's text.
struct DemoSink;

impl Sink for DemoSink {
    fn emit(&self, record: &Record<'_>) {
        let (label, color) = match record.level {
            Level::Error => ("error", "1;31"),
            Level::Warning => ("warning", "1;33"),
            Level::Info => ("info", "1;36"),
            Level::Debug => ("debug", "2"),
        };
        let text = record.to_string();
        let mut out = std::io::stdout().lock();
        for (i, line) in text.lines().enumerate() {
            let _ = if i == 0 {
                writeln!(out, "    {}: {line}", paint(color, label))
            } else {
                writeln!(out, "    {line}")
            };
        }
    }
}

static SINK: DemoSink = DemoSink;

/// Writes one line to stdout; a closed pipe (`| head`) is not an error worth a panic.
fn out(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

fn heading(n: u32, title: &str) {
    out("");
    out(&paint("1", &format!("{n}. {title}")));
}

fn say(text: &str) {
    out(&format!("  {text}"));
}

/// The query, as a user would type it, then what it changed.
fn query(q: &str) {
    let what = match control::apply(q) {
        Ok(a) if a.fail_points > 0 => format!("{} fail point set", a.fail_points),
        Ok(a) => format!("{} sites matched", a.matched),
        Err(e) => format!("rejected: {e}"),
    };
    say(&format!(
        "{} {}",
        paint("36", &format!("> {q}")),
        paint("2", &format!("({what})"))
    ));
}

/// The `control::list` lines of the bus's sites.
fn list_bus_sites() {
    let mut listing = String::new();
    let _ = control::list(&mut listing);
    for line in listing.lines().filter(|l| l.contains("/bus.rs:")) {
        say(&format!("  {}", paint("2", line)));
    }
}

fn main() {
    COLOR.store(
        std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        Ordering::Relaxed,
    );
    let _ = errtrace::sink::set_sink(&SINK);
    // ERRTRACE / ERRTRACE_FILE, read once at start-up (making an error never reads them).
    errtrace::init();
    let started = std::time::Instant::now();

    let bus = Bus::new("i2c-0");
    let sensor = Sensor::new("sensor0", &bus);

    // ---------------------------------------------------------------------------------------
    heading(1, "A probe fails: a fault point forces a bus read to fail");
    say("The fault point `bus_read` in Bus::transfer is armed at runtime, for one failure:");
    query("fail name=bus_read probability=100 times=1");
    say("The driver core probes the device through a boundary:");
    let probe = format!("probe {}", sensor.name);
    let errno = errtrace::boundary_errno(&probe, sensor.probe());
    say(&format!(
        "probe returned {errno}, the errno the kernel sees. Nobody on the way logged"
    ));
    say("the injected error, so the boundary printed it: its origin and every hop.");
    say("When the creator knows what failed (the device did not ACK), it logs one line itself,");
    say("and nothing prints that error again:");
    bus.nak_next.set(true);
    let errno = errtrace::boundary_errno(&probe, sensor.probe());
    say(&format!(
        "probe returned {errno}: one line, at the creator; the boundary stayed silent."
    ));

    // ---------------------------------------------------------------------------------------
    heading(2, "An error storm: 1,000 transient failures");
    say(
        "1,000 samples hit a CRC error; each is logged by its creator, rate-limited to 10 per 5 s:",
    );
    bus.noisy_reads.set(1000);
    let mut failed = 0;
    for _ in 0..1000 {
        if let Err(e) = sensor.sample() {
            failed += 1;
            e.ignore("a transient CRC error: the next sample is taken anyway");
        }
    }
    say(&format!(
        "{failed} failed; the rest of the messages are held back and counted:"
    ));
    policy::flush_suppressed();
    say("1,000 polls of an empty FIFO return EAGAIN: quiet (normal, like -EAGAIN in the kernel),");
    say("but recorded and counted; errtrace::control::sites() has the counters:");
    let mut empty = 0;
    for _ in 0..1000 {
        match sensor.poll() {
            Ok(None) => empty += 1,
            Ok(Some(_)) => {}
            Err(e) => e.handled(),
        }
    }
    for s in errtrace::control::sites() {
        let o = s.origin();
        if o.file.ends_with("bus.rs") && s.counters().created >= 1000 {
            let n = s.counters();
            say(&format!(
                "  {}:{} {}: {:?}, created={} logged={} suppressed={}",
                o.file,
                o.line,
                o.function_name().unwrap_or("?"),
                s.last_code().unwrap_or(errtrace::code::EIO),
                n.created,
                n.logged,
                n.suppressed
            ));
        }
    }
    say(&format!(
        "({empty} polls found the FIFO empty; nothing was printed for them)"
    ));

    // ---------------------------------------------------------------------------------------
    heading(3, "The flight recorder: the most recent errors");
    say("Always on, lock-free, no allocation: every error and each hop it took, printed or not.");
    say("One more sample fails (the flush closed the window, so it prints); the recorder keeps it,\n  and every quiet EAGAIN before it, with their trails:");
    bus.noisy_reads.set(1);
    if let Err(e) = sensor.sample().during("sampling after the storm") {
        e.handled();
    }
    let mut dump = String::new();
    let _ = recorder::dump(&mut dump);
    let blocks = split_events(&dump);
    say(&format!(
        "errtrace::recorder::dump, the last 8 of {} events kept:",
        blocks.len()
    ));
    for block in blocks.iter().skip(blocks.len().saturating_sub(8)) {
        for line in block.lines() {
            say(&format!("  {line}"));
        }
    }

    // ---------------------------------------------------------------------------------------
    heading(4, "Runtime control: change what prints, without rebuilding");
    say("The bus's sites, as errtrace::control::list shows them (EAGAIN is quiet: =_):");
    list_bus_sites();
    say("Poll the FIFO twice: nothing prints.");
    poll_twice(&sensor);
    query("file *bus* +p");
    say("Poll twice again: the quiet site prints now.");
    poll_twice(&sensor);
    list_bus_sites();
    query("file *bus* -p");
    say("Poll twice: silenced again (-p silences any site).");
    poll_twice(&sensor);
    list_bus_sites();

    // ---------------------------------------------------------------------------------------
    heading(5, "An error dropped unhandled is caught and reported");
    say("The bus is held, so powering down times out, and the caller forgets the result:");
    say(&format!("  {}", paint("2", "let _ = sensor.shutdown();")));
    bus.held.set(true);
    let before = policy::unhandled_drops();
    let _ = sensor.shutdown();
    say(&format!(
        "Dropped unhandled so far: {} (errtrace::policy::unhandled_drops()).",
        policy::unhandled_drops() - before
    ));

    out("");
    say(&format!(
        "Done in {:.1} ms. The guide: docs/ (mdbook build docs).",
        started.elapsed().as_secs_f64() * 1000.0
    ));
}

fn poll_twice(sensor: &Sensor<'_>) {
    for _ in 0..2 {
        match sensor.poll() {
            Ok(_) => {}
            Err(e) => e.handled(),
        }
    }
}

/// Splits a recorder dump into one block per event (each starts with `#`).
fn split_events(dump: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    for line in dump.lines() {
        if line.starts_with('#') || blocks.is_empty() {
            blocks.push(String::new());
        }
        if let Some(b) = blocks.last_mut() {
            let _ = writeln!(b, "{line}");
        }
    }
    blocks
}
