//! The `ERRTRACE` environment variable and `ERRTRACE_FILE`, read once by `errtrace::init()`
//! (never while an error is being made): queries in force without any code change. (Its own
//! test binary: the variables must be set before the process's first error.)
#![cfg(feature = "std")]

use errtrace::code::{EAGAIN, EIO};
use errtrace::sink::Capture;

static CAPTURE: Capture = Capture::new();

fn quiet_poll() -> errtrace::Result {
    Err(errtrace::err!(EAGAIN, "fifo empty"))
}

fn noisy() -> errtrace::Result {
    Err(errtrace::err!(always, EIO, "noisy"))
}

#[test]
fn env_and_file_queries_apply_at_start_up() {
    let file = std::env::temp_dir().join(format!("errtrace-test-env-{}.txt", std::process::id()));
    std::fs::write(&file, "# silence the noisy one\nfunc noisy -p\n").unwrap();
    // SAFETY (edition 2021: safe): single-threaded at this point of this test binary.
    std::env::set_var("ERRTRACE", "func quiet_poll +p");
    std::env::set_var("ERRTRACE_FILE", &file);
    errtrace::sink::set_sink(&CAPTURE).unwrap();

    // Making errors does not read the environment: nothing applies yet.
    quiet_poll().unwrap_err().handled();
    let before = CAPTURE.take();
    assert!(before.is_empty(), "{before:#?}");

    errtrace::init();
    quiet_poll().unwrap_err().handled();
    noisy().unwrap_err().handled();
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(lines[0].text.starts_with("fifo empty: EAGAIN (-11)"));
    // Read once: a later call does nothing.
    assert_eq!(errtrace::control::init_from_env(), None);
    let _ = std::fs::remove_file(file);
}
