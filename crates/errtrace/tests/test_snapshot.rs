//! What to hold instead of a clone of an `Error` (it is not `Clone`, so a `#[derive(Clone)]`
//! struct cannot keep one): a `Snapshot`, whose sequence number reads the error's own event, or
//! says it was overwritten, however many errors came after.

use errtrace::code::{EIO, ENODEV, ENOENT};
use errtrace::recorder::{self, Missing};
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

/// A kept number outlives many laps of its slot: 65,536 errors later one of them has the same
/// slot and the same low 16 bits of its shard's count (the handle an error's bits hold), and
/// the old number must still read its own event or `Overwritten`, never the new one.
#[test]
fn a_snapshot_never_reads_a_later_error() {
    let e = probe().unwrap_err();
    let s = e.snapshot();
    e.handled();
    let old = s.seq().unwrap();
    let mut same_handle = None;
    for _ in 0..=(1u32 << 16) {
        let n = Error::new(ENOENT);
        let seq = n.seq().unwrap();
        if seq as u32 == old as u32 {
            same_handle = Some(seq);
        }
        n.handled();
        match recorder::read(old) {
            Ok(ev) => assert_eq!(ev.code(), ENODEV, "its own event while it is there"),
            Err(Missing::Overwritten { .. }) => {}
            Err(other) => panic!("{other:?}"),
        }
    }
    let new = same_handle.expect("a later error with the same handle");
    assert_ne!(new, old);
    assert!(matches!(
        recorder::read(old),
        Err(Missing::Overwritten { newer }) if newer >= 1 << 16
    ));
}
