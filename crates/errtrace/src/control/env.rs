//! With `std`: the process's start-up configuration (the `ERRTRACE` environment variable and the
//! file `ERRTRACE_FILE` names) and the report, at exit, of what rate limits still hold back.

#[cfg(feature = "control")]
use super::{apply, Applied, QueryError};
#[cfg(feature = "control")]
use core::fmt;
#[cfg(feature = "control")]
use core::sync::atomic::Ordering;

/// With `std`: applies the `ERRTRACE` environment variable and the file named by
/// `ERRTRACE_FILE`, once per process (later calls do nothing), and arranges for the messages
/// rate limits still hold back to be reported when the calling thread ends (for `main`'s thread:
/// when the process exits). The first [`apply`] or [`list`](super::list)
/// calls it; call it (or [`crate::init`]) at start-up so that the queries stand before the
/// first error. Making an error never reads the environment or a file.
///
/// Returns the first problem met, if any: an unreadable file or a bad query (also printed to
/// stderr).
#[cfg(feature = "control")]
pub fn init_from_env() -> Option<std::string::String> {
    static DONE: crate::sync::AtomicBool = crate::sync::AtomicBool::new(false);
    if DONE.swap(true, Ordering::AcqRel) {
        return None;
    }
    flush_at_exit();
    let mut problem = None;
    if let Some(q) = std::env::var_os("ERRTRACE") {
        match q.to_str() {
            Some(q) => {
                if let Err(e) = apply(q) {
                    problem = Some(std::format!("ERRTRACE: {e}"));
                }
            }
            None => {
                let mut p = std::string::String::new();
                let _ = fmt::Write::write_str(&mut p, "ERRTRACE is not valid UTF-8: ignored");
                problem = Some(p);
            }
        }
    }
    if let Some(path) = std::env::var_os("ERRTRACE_FILE") {
        // Any path the system takes, UTF-8 or not.
        let path = std::path::PathBuf::from(path);
        let shown = path.display();
        match apply_file(&path) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => problem = problem.or(Some(std::format!("ERRTRACE_FILE {shown}: {e}"))),
            Err(e) => {
                // Not dropped while formatting can unwind (its drop could unwind too).
                let e = core::mem::ManuallyDrop::new(e);
                let text = std::format!("ERRTRACE_FILE {shown}: {}", *e);
                drop(core::mem::ManuallyDrop::into_inner(e));
                problem = problem.or(Some(text));
            }
        }
    }
    if let Some(p) = &problem {
        std::eprintln!("errtrace: {p}");
    }
    problem
}

/// Arranges for the messages rate limits still hold back to be reported when the calling thread
/// ends (for `main`'s thread, when the process exits), not lost with it: touching the
/// thread-local registers its drop.
pub(crate) fn flush_at_exit() {
    let _ = FLUSH_AT_EXIT.try_with(|_| {});
}

/// Reports the messages rate limits still hold back when the thread that called
/// [`flush_at_exit`] ends: for `main`'s thread, when the process exits.
struct FlushAtExit;

impl Drop for FlushAtExit {
    fn drop(&mut self) {
        crate::emit::flush_suppressed();
    }
}

std::thread_local! {
    static FLUSH_AT_EXIT: FlushAtExit = const { FlushAtExit };
}

/// The most a query file may hold: queries are lines of text, and a bigger file is a mistake
/// (`/dev/zero`, a log named by accident), not a configuration.
#[cfg(feature = "control")]
pub const MAX_QUERY_FILE: u64 = 1 << 20;

/// A query file's text: a regular file only (a FIFO without a writer would block the open, a
/// device could be endless), at most [`MAX_QUERY_FILE`] bytes. Both are decided from the
/// file's metadata, which does not open it.
#[cfg(feature = "control")]
fn read_query_file(path: &std::path::Path) -> std::io::Result<std::string::String> {
    use std::io::{Error, ErrorKind};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not a regular file (a FIFO or a device is not read)",
        ));
    }
    if meta.len() > MAX_QUERY_FILE {
        return Err(Error::new(
            ErrorKind::InvalidData,
            "larger than 1 MiB (control::MAX_QUERY_FILE): not a query file",
        ));
    }
    std::fs::read_to_string(path)
}

/// With `std`: applies the queries in a file (one per line; `#` starts a comment that runs to
/// the end of its line). An error's line and column are the file's own. Only a regular file of
/// at most [`MAX_QUERY_FILE`] bytes is read: a FIFO or a device is refused without opening it.
///
/// # Errors
///
/// The I/O error reading the file (or refusing it); the inner result is [`apply`]'s.
#[cfg(feature = "control")]
pub fn apply_file(path: &std::path::Path) -> std::io::Result<Result<Applied, QueryError>> {
    let text = read_query_file(path)?;
    // Comments are part of the language, so an error's line is the file's own line.
    Ok(apply(&text))
}
