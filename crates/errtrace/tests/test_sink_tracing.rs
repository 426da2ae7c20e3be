//! The `tracing` adapter: events with code, errno, origin, trail and kind as fields.
//! Run with `--features tracing`.
#![cfg(feature = "tracing")]

use errtrace::{code::EIO, err, ResultExt};
#[path = "common/kinds.rs"]
mod kinds;
use std::collections::BTreeMap;
use std::sync::Mutex;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

type Events = Mutex<Vec<(tracing::Level, String, BTreeMap<String, String>)>>;
static EVENTS: Events = Mutex::new(Vec::new());

struct Collect;

impl Subscriber for Collect {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, e: &Event<'_>) {
        let mut f = Fields::default();
        e.record(&mut f);
        EVENTS.lock().unwrap().push((
            *e.metadata().level(),
            e.metadata().target().to_string(),
            f.0,
        ));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn leaf() -> errtrace::Result {
    Err(err!(EIO))
}

#[test]
fn records_become_tracing_events_with_fields() {
    tracing::subscriber::set_global_default(Collect).unwrap();
    errtrace::sink::set_sink(&errtrace::sink::TracingSink).unwrap();
    boundary_event();
    every_kind_reaches_the_event();
}

fn boundary_event() {
    let r = leaf().during("reading chip id");
    assert_eq!(errtrace::boundary("probe", r), Err(errtrace::code::EIO));
    let got = EVENTS.lock().unwrap();
    assert_eq!(got.len(), 1, "{got:#?}");
    let (level, target, fields) = &got[0];
    assert_eq!(*level, tracing::Level::ERROR);
    assert_eq!(target, "errtrace");
    assert_eq!(fields["code"], "EIO");
    assert_eq!(fields["errno"], "-5");
    assert!(
        fields["origin"].starts_with("crates/errtrace/tests/test_sink_tracing.rs:"),
        "{fields:?}"
    );
    assert!(
        fields["trail"].ends_with("\"reading chip id\""),
        "{fields:?}"
    );
    assert_eq!(fields["kind"], "Boundary");
    assert_eq!(fields["boundary"], "probe", "{fields:?}");
    assert!(
        fields["message"].starts_with("probe: returning EIO"),
        "{fields:?}"
    );
}

/// Every record kind × this adapter: its kind, and the text that kind must carry, reach the
/// event's fields (before, a boundary's name, a window's count and where an
/// error was reported before were lost).
fn every_kind_reaches_the_event() {
    EVENTS.lock().unwrap().clear();
    kinds::make_every_kind();
    let got = EVENTS.lock().unwrap().clone();
    for expect in kinds::EXPECTED {
        let ev = got.iter().find(|(_, _, f)| {
            f.get("kind").map(String::as_str) == Some(expect.kind)
                && expect
                    .must_contain
                    .iter()
                    .all(|t| f.values().any(|v| v.contains(t)))
        });
        assert!(
            ev.is_some(),
            "no {} event carrying {:?} in {got:#?}",
            expect.kind,
            expect.must_contain
        );
    }
    let suppressed = got
        .iter()
        .find(|(_, _, f)| f.get("kind").map(String::as_str) == Some("Suppressed"))
        .unwrap();
    assert_eq!(suppressed.2["suppressed"], "2");
    let already = got
        .iter()
        .find(|(_, _, f)| f.get("kind").map(String::as_str) == Some("AlreadyReported"))
        .unwrap();
    assert!(
        already.2["already_reported"].contains("common/kinds.rs:"),
        "{already:?}"
    );
}
