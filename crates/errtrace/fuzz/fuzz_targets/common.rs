// Shared by the libFuzzer target (`control.rs`): one input through the control language.
//
// Checks, besides "never panics":
// - `query::parse` is deterministic and calls its callback once per counted command;
// - `control::apply` agrees with `query::parse`: the same error for a rejected input, the same
//   query count for an accepted one (the only other error being a full fault table, which is
//   global state that fills up over a long run);
// - a rejected input's error points inside the input (line within the input's lines, column
//   within that line or one past its end), and its `found` text is part of the input;
// - the error's `Display` and the listing of every site format without panicking;
// - the sites and fail points the input may have changed still run.

use errtrace::control::{self, query};
use errtrace::sink::{Record, Sink};
use std::fmt::Write as _;

struct NullSink;

impl Sink for NullSink {
    fn emit(&self, record: &Record<'_>) {
        // Format the message as a real sink would (exercises the formatting paths).
        if let Some(m) = record.message {
            let mut s = String::new();
            let _ = s.write_fmt(m);
        }
    }
}

static SINK: NullSink = NullSink;

mod sites {
    use errtrace::code::{EAGAIN, EIO, ENODEV, ENOMEM};

    pub fn quiet_poll() -> errtrace::Result {
        Err(errtrace::err!(EAGAIN, "bus busy"))
    }
    pub fn noisy_read(reg: u32) -> errtrace::Result {
        Err(errtrace::err!(always, EIO, "read of reg {:#x} failed", reg))
    }
    pub fn limited() -> errtrace::Result {
        Err(errtrace::err!(ratelimit(2, 1000), ENODEV, "no device"))
    }
    pub fn alloc_buf() -> errtrace::Result<u32> {
        errtrace::fail_point!("alloc_buf", ENOMEM);
        Ok(1)
    }
    pub fn read_reg() -> errtrace::Result<u32> {
        errtrace::fail_point!("read_reg");
        Ok(2)
    }
}

/// Where `offset`-style positions may point: line in 1..=lines, column in 1..=len(line)+1.
pub fn check_position(input: &str, e: &query::QueryError) {
    assert!(e.line >= 1 && e.column >= 1, "{e:?} for {input:?}");
    let lines: Vec<&str> = input.split('\n').collect();
    assert!(
        e.line <= lines.len(),
        "error line {} past the input's {} lines: {input:?}",
        e.line,
        lines.len()
    );
    let line = lines[e.line - 1];
    assert!(
        e.column <= line.len() + 1,
        "error column {} past the end of line {} ({} bytes): {input:?}",
        e.column,
        e.line,
        line.len()
    );
    assert!(
        input.contains(e.found()),
        "found {:?} is not part of the input {input:?}",
        e.found()
    );
    let shown = e.to_string();
    assert!(shown.starts_with("line "), "{shown}");
}

fn is_table_full(e: &query::QueryError) -> bool {
    e.expected.starts_with("room in the fault table")
}

pub fn run_str(input: &str) {
    let _ = errtrace::sink::set_sink(&SINK);

    let mut seen = 0usize;
    let first = query::parse(input, |_| seen += 1);
    let mut commands = Vec::new();
    let second = query::parse(input, |c| commands.push(c));
    assert_eq!(first, second, "parse is not deterministic for {input:?}");
    if let Ok(n) = first {
        assert_eq!(n, seen, "count vs callbacks for {input:?}");
        assert_eq!(commands.len(), n);
        for c in &commands {
            let _ = format!("{c:?}");
        }
    }

    let applied = control::apply(input);
    match (&first, &applied) {
        (Ok(n), Ok(a)) => {
            assert_eq!(*n, a.queries, "{input:?}");
            assert!(a.fail_points <= *n);
            let _ = a.to_string();
        }
        (Ok(_), Err(e)) => assert!(
            is_table_full(e),
            "accepted by parse, rejected by apply: {e} for {input:?}"
        ),
        (Err(p), Err(e)) => {
            assert_eq!(p, e, "parse and apply disagree on {input:?}");
            check_position(input, e);
        }
        (Err(p), Ok(a)) => panic!("rejected by parse ({p}), accepted by apply ({a}): {input:?}"),
    }

    // Run the sites and fail points the input may have reconfigured.
    let _ = sites::quiet_poll().map_err(|e| e.handled());
    let _ = sites::noisy_read(input.len() as u32).map_err(|e| e.handled());
    let _ = sites::limited().map_err(|e| e.handled());
    for _ in 0..3 {
        let _ = sites::alloc_buf().map_err(|e| e.handled());
        let _ = sites::read_reg().map_err(|e| e.handled());
    }
    let mut listing = String::new();
    control::list(&mut listing).expect("listing into a String");
    errtrace::fault::reset();
}

pub fn run_bytes(data: &[u8]) {
    match std::str::from_utf8(data) {
        Ok(s) => run_str(s),
        // Invalid UTF-8: the lossy text (U+FFFD in place of bad sequences) is still a &str.
        Err(_) => run_str(&String::from_utf8_lossy(data)),
    }
}
