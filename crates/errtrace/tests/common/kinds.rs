//! Makes one record of every kind that can be made on purpose, for the sink adapter tests
//! (`test_sink_log.rs`, `test_sink_tracing.rs`): each adapter must carry what each kind says.

use errtrace::code::{EIO, ENODEV};
use errtrace::{boundary, err, Error, ResultExt};

/// What a record of one kind must carry to the sink: its kind's name and pieces of text that
/// must appear in the adapter's output (message or fields).
pub struct Expect {
    pub kind: &'static str,
    pub must_contain: &'static [&'static str],
}

pub const EXPECTED: &[Expect] = &[
    Expect {
        kind: "Created",
        must_contain: &["made by its creator", "EIO"],
    },
    Expect {
        kind: "Logged",
        must_contain: &["logged on the way", "EIO"],
    },
    Expect {
        kind: "Boundary",
        must_contain: &["kinds probe", "not reported before"],
    },
    Expect {
        kind: "AlreadyReported",
        must_contain: &["kinds probe", "already reported at"],
    },
    Expect {
        kind: "Unhandled",
        must_contain: &["ENODEV", "dropped unhandled"],
    },
    Expect {
        kind: "Suppressed",
        must_contain: &["2 messages suppressed"],
    },
    Expect {
        kind: "Unexpected",
        must_contain: &["should not fail", "the register is readable"],
    },
    Expect {
        kind: "Fallback",
        must_contain: &["calibration is optional", "using the fallback"],
    },
    Expect {
        kind: "Injected",
        must_contain: &["fault injected at kinds_point"],
    },
];

fn storm() {
    for _ in 0..3 {
        err!(ratelimit(1, 3_600_000), EIO, "storm").handled();
    }
}

fn point() -> errtrace::Result {
    errtrace::fail_point!("kinds_point");
    Ok(())
}

/// Emits one record of each kind in [`EXPECTED`] (and the storm's first message, `Created`).
pub fn make_every_kind() {
    err!(always, EIO, "made by its creator").handled();
    let r: errtrace::Result = Err(Error::new(EIO));
    r.log("logged on the way").unwrap_err().handled();
    let _ = boundary("kinds probe", Err::<(), _>(Error::new(EIO)));
    // A boundary with `+p` on its site, for an error its creator printed.
    let line = line!() + 3;
    errtrace::control::apply(&format!("file *common/kinds.rs line {line} +p")).unwrap();
    let logged: errtrace::Result = Err(err!(always, EIO, "printed first"));
    let _ = boundary("kinds probe", logged);
    drop(Error::new(ENODEV));
    storm();
    errtrace::policy::flush_suppressed();
    let r: errtrace::Result = Err(Error::new(EIO));
    r.not_expected("the register is readable")
        .unwrap_err()
        .handled();
    let r: errtrace::Result<u8> = Err(Error::new(EIO));
    assert_eq!(r.or_log("calibration is optional", 1), 1);
    errtrace::control::apply("fail name=kinds_point times=1").unwrap();
    point().unwrap_err().handled();
}
