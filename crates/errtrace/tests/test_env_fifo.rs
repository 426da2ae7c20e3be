//! Making an error never reads the environment or a file (its own test binary: the variables
//! must be set before the process's first error).
#![cfg(feature = "std")]

/// A FIFO named by `ERRTRACE_FILE` (nobody writing to it) would block a reader forever: making
/// errors never opens it, and `init()` refuses it without opening it.
#[test]
fn making_errors_never_reads_the_control_file() {
    let dir = std::env::temp_dir().join(format!("errtrace-fifo-{}", std::process::id()));
    let _ = std::fs::create_dir(&dir);
    let fifo = dir.join("ctl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo not available; skipped");
        return;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    // SAFETY (edition 2021: safe): the only test of this binary, before its first error.
    std::env::set_var("ERRTRACE_FILE", &fifo);
    std::env::set_var("ERRTRACE", "func nothing +p");
    std::thread::spawn(move || {
        for _ in 0..100 {
            errtrace::err!(errtrace::code::EIO).handled();
            errtrace::Error::new(errtrace::code::ENODEV).handled();
        }
        tx.send(()).unwrap();
    });
    // Ten seconds is not a performance threshold: blocking on the FIFO never returns at all.
    rx.recv_timeout(std::time::Duration::from_secs(10))
        .expect("making errors blocked");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(errtrace::control::init_from_env()).unwrap());
    let problem = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("init() blocked on the FIFO")
        .expect("init() reported no problem");
    assert!(problem.contains("not a regular file"), "{problem}");
    let _ = std::fs::remove_dir_all(dir);
}
