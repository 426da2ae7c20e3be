//! Testing error paths (`std`): capture what errtrace prints, from every thread, one test at a
//! time, with every site's rate limits and `once` state fresh at the start.
//!
//! ```
//! use errtrace::{code::EIO, err, testing, ResultExt};
//!
//! fn read_reg() -> errtrace::Result<u8> {
//!     Err(err!(EIO, "read of reg {:#x} failed", 0x10))
//! }
//!
//! let cap = testing::capture();
//! assert_eq!(read_reg().into_code_result(), Err(EIO)); // handled: no drop warning
//! let lines = cap.take();
//! assert_eq!(lines.len(), 1);
//! assert!(lines[0].text.starts_with("read of reg 0x10 failed: EIO (-5) at "));
//! ```
//!
//! # How it works
//!
//! - [`capture`] installs errtrace's test sink the first time (no `AlreadySet` to handle; it
//!   panics with a clear message if the program installed another sink), and returns a guard.
//! - While a guard lives, records from **every thread** go to it; one guard exists at a time in
//!   the process (a second `capture()` waits for the first to end), so tests that capture do not
//!   see each other's records even when the harness runs them in parallel. Records made while no
//!   guard lives go to standard error, as without a sink.
//! - When a guard is made, every site's rate-limit bucket and `once` state are reset: a test
//!   that expects one line does not get none because an earlier test logged the same site ten
//!   times. Control settings (`+p`, policies set with queries) are left as they are.
//!
//! To assert on an error without tripping drop detection, consume it: `.into_code_result()`
//! on a result, `e.into_code()`, `e.handled()`, or compare a code with `assert_eq!(e, EIO)` and
//! then handle it. `assert!(f().is_err())` drops the error, which warns (by design: it is the
//! forgetful pattern drop detection exists for).

use crate::sink::{Captured, Level, Record, Sink};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::vec::Vec;

/// The records of the active guard (`Some` while one lives).
static RECORDS: Mutex<Option<Vec<Captured>>> = Mutex::new(None);
/// Held by the active guard: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The sink [`capture`] installs.
struct TestSink;

static TEST_SINK: TestSink = TestSink;

impl Sink for TestSink {
    fn emit(&self, record: &Record<'_>) {
        let mut records = RECORDS.lock().unwrap_or_else(PoisonError::into_inner);
        match records.as_mut() {
            Some(v) => v.push(Captured::of(record)),
            None => {
                drop(records);
                crate::sink::StderrSink.emit(record);
            }
        }
    }
}

/// Starts capturing: see the [module docs](self).
///
/// # Panics
///
/// If the program installed a sink of its own with [`set_sink`](crate::sink::set_sink) (the
/// test sink cannot be installed then): a test's setup mistake, said plainly.
// A test's setup mistake stops that test, like a failed assertion; this is test support, never
// on an error path.
#[allow(clippy::panic)]
pub fn capture() -> Capture {
    let ours: &'static dyn Sink = &TEST_SINK;
    if crate::sink::set_sink(ours).is_err() && !crate::sink::is_current(ours) {
        panic!(
            "errtrace::testing::capture: another sink was installed with set_sink; \
             the test sink cannot capture (use one or the other in a test binary)"
        );
    }
    let lock = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    for site in crate::site::all() {
        let st = site.state();
        st.log_rate.reset();
        st.drop_rate.reset();
    }
    *RECORDS.lock().unwrap_or_else(PoisonError::into_inner) = Some(Vec::new());
    Capture { _one: lock }
}

/// A capture in progress (see [`capture`]); capturing ends when it is dropped.
pub struct Capture {
    _one: MutexGuard<'static, ()>,
}

impl Capture {
    /// Takes the records captured so far (from every thread).
    pub fn take(&self) -> Vec<Captured> {
        RECORDS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// Takes the records captured so far, as their text.
    pub fn take_text(&self) -> Vec<std::string::String> {
        self.take().into_iter().map(|c| c.text).collect()
    }

    /// Takes the records captured so far at `level`.
    pub fn take_level(&self, level: Level) -> Vec<Captured> {
        self.take()
            .into_iter()
            .filter(|c| c.level == level)
            .collect()
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        *RECORDS.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}
