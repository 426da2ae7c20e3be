//! What to hold instead of a clone of an `Error` (issue 12, item 8: `Error` is not `Clone`, so a
//! `#[derive(Clone)]` struct could not keep one, and nothing said what to keep instead).

use errtrace::code::{EIO, ENODEV};
use errtrace::{err, Error, ResultExt, Snapshot};

#[derive(Clone, Debug, PartialEq)]
struct Device {
    name: &'static str,
    last_failure: Option<Snapshot>,
}

fn probe() -> errtrace::Result {
    Err(err!(ENODEV)).during("probing")
}

#[test]
fn a_clone_struct_keeps_a_snapshot_and_the_trail_stays_reachable() {
    let e = probe().unwrap_err();
    let dev = Device {
        name: "sensor0",
        last_failure: Some(e.snapshot()),
    };
    let copy = dev.clone();
    assert_eq!(copy, dev);
    let s = copy.last_failure.unwrap();
    assert_eq!(s, ENODEV);
    assert_eq!(s.code(), ENODEV);
    assert_eq!(s.origin(), e.origin());
    assert_eq!(s.to_string(), e.to_string(), "the same one line");
    // While the error lives (and after, until the recorder wraps) its trail is there.
    let ev = errtrace::recorder::read(s.seq().unwrap()).unwrap();
    assert_eq!(ev.hops().next().unwrap().message, Some("probing"));
    e.handled();
    let other = Error::new(EIO);
    assert_ne!(other.snapshot(), s);
    other.handled();
}
