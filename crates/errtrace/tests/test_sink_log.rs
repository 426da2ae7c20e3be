//! The `log` adapter: records reach the `log` facade at the right level, target `errtrace`.
//! Run with `--features log`.
#![cfg(feature = "log")]

use errtrace::{
    code::{EIO, ENODEV},
    err,
};
#[path = "common/kinds.rs"]
mod kinds;
use std::sync::Mutex;

struct Collect(Mutex<Vec<(log::Level, String, String)>>);

impl log::Log for Collect {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, r: &log::Record<'_>) {
        self.0
            .lock()
            .unwrap()
            .push((r.level(), r.target().to_string(), r.args().to_string()));
    }
    fn flush(&self) {}
}

static LOGGER: Collect = Collect(Mutex::new(Vec::new()));
/// The logger and the sink are global: one test at a time.
static ONE: Mutex<()> = Mutex::new(());

#[test]
fn records_go_to_the_log_facade() {
    let _one = ONE.lock().unwrap_or_else(|p| p.into_inner());
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(log::LevelFilter::Trace);
    let _ = errtrace::sink::set_sink(&errtrace::sink::LogSink);
    let before = LOGGER.0.lock().unwrap().len();
    err!(always, EIO, "read of reg {:#x} failed", 0x10).handled();
    let _ = err!(ENODEV); // dropped unhandled: a warning
    let got = LOGGER.0.lock().unwrap()[before..].to_vec();
    assert_eq!(got.len(), 2, "{got:#?}");
    assert_eq!(got[0].0, log::Level::Error);
    assert_eq!(got[0].1, "errtrace");
    assert!(
        got[0]
            .2
            .starts_with("read of reg 0x10 failed: EIO (-5) at "),
        "{}",
        got[0].2
    );
    assert_eq!(got[1].0, log::Level::Warn);
    assert!(
        got[1]
            .2
            .starts_with("ENODEV (-19) dropped unhandled; where is unknown"),
        "{}",
        got[1].2
    );
}

/// Every record kind × the `log` adapter: the text that kind must carry reaches the log line
///.
#[test]
fn every_kind_reaches_the_log_line() {
    let _one = ONE.lock().unwrap_or_else(|p| p.into_inner());
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(log::LevelFilter::Trace);
    let _ = errtrace::sink::set_sink(&errtrace::sink::LogSink);
    let before = LOGGER.0.lock().unwrap().len();
    kinds::make_every_kind();
    let got: Vec<_> = LOGGER.0.lock().unwrap()[before..].to_vec();
    for expect in kinds::EXPECTED {
        assert!(
            got.iter()
                .any(|(_, _, line)| expect.must_contain.iter().all(|t| line.contains(t))),
            "no {} line carrying {:?} in {got:#?}",
            expect.kind,
            expect.must_contain
        );
    }
}
