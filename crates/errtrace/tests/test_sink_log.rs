//! The `log` adapter: records reach the `log` facade at the right level, target `errtrace`.
//! Run with `--features log`.
#![cfg(feature = "log")]

use errtrace::err;
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

#[test]
fn records_go_to_the_log_facade() {
    log::set_logger(&LOGGER).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    errtrace::sink::set_sink(&errtrace::sink::LogSink).unwrap();
    err!(always, EIO, "read of reg {:#x} failed", 0x10).handled();
    let _ = err!(ENODEV); // dropped unhandled: a warning
    let got = LOGGER.0.lock().unwrap().clone();
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
        got[1].2.starts_with("ENODEV (-19) dropped unhandled:"),
        "{}",
        got[1].2
    );
}
