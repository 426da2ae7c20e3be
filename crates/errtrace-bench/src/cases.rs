//! Every measured case, and how the reported rows are derived from them.

use crate::impls::{errno, errtrace_impl as et, peers};

/// The function whose instructions are collected unless a case names another.
pub const MEASURE: &str = "errtrace_bench_measure";

/// One measured program: `run(n)` does `n` iterations; callgrind collects the instructions spent
/// inside `toggle` (a `#[no_mangle]` function) during the measured call.
#[derive(Clone, Copy)]
pub struct Case {
    /// `impl/scenario`, unique.
    pub id: &'static str,
    /// The iterations.
    pub run: fn(u64),
    /// The collected function.
    pub toggle: &'static str,
}

const fn case(id: &'static str, run: fn(u64)) -> Case {
    Case {
        id,
        run,
        toggle: MEASURE,
    }
}

const fn only(id: &'static str, run: fn(u64), toggle: &'static str) -> Case {
    Case { id, run, toggle }
}

/// The implementations of the main table, in order.
pub const IMPLS: [&str; 9] = [
    "errtrace-origin",
    "errtrace-trail",
    "errno32",
    "errno64",
    "anyhow",
    "eyre",
    "error-stack",
    "snafu",
    "thiserror",
];

/// The scenarios every implementation runs.
pub const SCENARIOS: [&str; 4] = ["S1", "S2", "S3", "S4"];

/// Every case, in run order.
pub fn all() -> Vec<Case> {
    vec![
        case("errtrace-origin/S1", et::origin::s1),
        case("errtrace-origin/S2", et::origin::s2),
        case("errtrace-origin/S3", et::origin::s3),
        case("errtrace-origin/S4", et::origin::s4),
        case("errtrace-trail/S1", et::trail::s1),
        case("errtrace-trail/S2", et::trail::s2),
        case("errtrace-trail/S3", et::trail::s3),
        case("errtrace-trail/S4", et::trail::s4),
        case("errno32/S1", errno::e32::s1),
        case("errno32/S2", errno::e32::s2),
        case("errno32/S3", errno::e32::s3),
        case("errno32/S4", errno::e32::s4),
        case("errno64/S1", errno::e64::s1),
        case("errno64/S2", errno::e64::s2),
        case("errno64/S3", errno::e64::s3),
        case("errno64/S4", errno::e64::s4),
        case("anyhow/S1", peers::anyhow_impl::s1),
        case("anyhow/S2", peers::anyhow_impl::s2),
        case("anyhow/S3", peers::anyhow_impl::s3),
        case("anyhow/S4", peers::anyhow_impl::s4),
        case("eyre/S1", peers::eyre_impl::s1),
        case("eyre/S2", peers::eyre_impl::s2),
        case("eyre/S3", peers::eyre_impl::s3),
        case("eyre/S4", peers::eyre_impl::s4),
        case("error-stack/S1", peers::error_stack_impl::s1),
        case("error-stack/S2", peers::error_stack_impl::s2),
        case("error-stack/S3", peers::error_stack_impl::s3),
        case("error-stack/S4", peers::error_stack_impl::s4),
        case("snafu/S1", peers::snafu_impl::s1),
        case("snafu/S2", peers::snafu_impl::s2),
        case("snafu/S3", peers::snafu_impl::s3),
        case("snafu/S4", peers::snafu_impl::s4),
        case("thiserror/S1", peers::thiserror_impl::s1),
        case("thiserror/S2", peers::thiserror_impl::s2),
        case("thiserror/S3", peers::thiserror_impl::s3),
        case("thiserror/S4", peers::thiserror_impl::s4),
        // S5: suppressed logs and their baselines.
        case("errtrace-origin/S2.eagain", et::s2_eagain),
        case("errtrace-origin/S5.quiet", et::s5_quiet),
        case("errtrace-origin/S5.ratelimit", et::s5_ratelimit),
        // S6: disposal only.
        only(
            "errtrace-origin/S6.handled",
            et::s6_handled,
            "errtrace_bench_dispose_handled",
        ),
        only(
            "errno64/S6.drop",
            errno::e64::s6_drop,
            "errtrace_bench_dispose_errno64",
        ),
        only(
            "errtrace-origin/S6.drop-logged",
            et::s6_drop_logged,
            "errtrace_bench_dispose_drop_logged",
        ),
        // S7: a loop with and without a disarmed fail point.
        case("errtrace-origin/S7.on", et::s7_on),
        case("errtrace-origin/S7.off", et::s7_off),
        // Diagnostics.
        case("errtrace-origin/S2.new", et::s2_new),
        only(
            "errtrace-origin/D.make-err",
            et::d_make_err,
            "errtrace_bench_make_err",
        ),
        only(
            "errtrace-origin/D.make-new",
            et::d_make_new,
            "errtrace_bench_make_new",
        ),
        only(
            "errtrace-trail/D.hop-first",
            et::d_hop_first,
            "errtrace_bench_hop",
        ),
        only(
            "errtrace-trail/D.hop-next",
            et::d_hop_next,
            "errtrace_bench_hop",
        ),
        only(
            "errtrace-trail/D.context",
            et::d_hop_context,
            "errtrace_bench_hop_context",
        ),
        only(
            "errtrace-trail/D.report",
            et::d_report,
            "errtrace_bench_report",
        ),
        case("plain-u64/S1", peers::plain_u64::s1),
    ]
}

/// Finds a case by id.
pub fn find(id: &str) -> Option<Case> {
    all().into_iter().find(|c| c.id == id)
}

/// How a reported row comes from measured cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Derive {
    /// The case itself.
    Case(&'static str),
    /// One case minus another (both per call).
    Delta(&'static str, &'static str),
}

/// A reported row: which implementation and scenario, and how it is computed.
#[derive(Clone, Copy, Debug)]
pub struct RowSpec {
    /// The `impl` of the JSON.
    pub imp: &'static str,
    /// The `scenario` of the JSON.
    pub scenario: &'static str,
    /// Computed from.
    pub from: Derive,
    /// One line for the human table.
    pub what: &'static str,
}

/// The derived and diagnostic rows, after the main table (`impl × S1..S4`, each its own case).
pub const EXTRA_ROWS: &[RowSpec] = &[
    RowSpec {
        imp: "errtrace-origin",
        scenario: "S5",
        from: Derive::Delta("errtrace-origin/S5.quiet", "errtrace-origin/S2.eagain"),
        what: "suppressed log: err!(quiet, EAGAIN, \"…\") over err!(EAGAIN), S2 path",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "S5.ratelimit",
        from: Derive::Delta("errtrace-origin/S5.ratelimit", "errtrace-origin/S2"),
        what: "suppressed log: err!(ratelimit(1, 1h), EIO, \"…\") past its burst, over S2",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "S6",
        from: Derive::Delta("errtrace-origin/S6.handled", "errno64/S6.drop"),
        what: "disarmed drop: handled() over a bare errno drop",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "S7",
        from: Derive::Delta("errtrace-origin/S7.on", "errtrace-origin/S7.off"),
        what: "disabled fail point: a call with fail_point! over the same call without",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "S2.new",
        from: Derive::Case("errtrace-origin/S2.new"),
        what: "S2 with Error::new(EIO) at the leaf instead of err!(EIO)",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "D.make-err",
        from: Derive::Case("errtrace-origin/D.make-err"),
        what: "err!(EIO) alone: cached site index, counters, recorder claim",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "D.make-new",
        from: Derive::Case("errtrace-origin/D.make-new"),
        what: "Error::new(EIO) alone: site lookup by location hash, counters, claim",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "D.handled",
        from: Derive::Case("errtrace-origin/S6.handled"),
        what: "handled() alone (the call and its ret included)",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "D.drop-logged",
        from: Derive::Case("errtrace-origin/S6.drop-logged"),
        what: "a bare drop of a logged error alone",
    },
    RowSpec {
        imp: "errno64",
        scenario: "D.drop",
        from: Derive::Case("errno64/S6.drop"),
        what: "a bare errno drop alone (the call's ret)",
    },
    RowSpec {
        imp: "errtrace-trail",
        scenario: "D.hop-first",
        from: Derive::Case("errtrace-trail/D.hop-first"),
        what: "the first hop of an error (also counts it as propagated)",
    },
    RowSpec {
        imp: "errtrace-trail",
        scenario: "D.hop-next",
        from: Derive::Case("errtrace-trail/D.hop-next"),
        what: "a later hop",
    },
    RowSpec {
        imp: "errtrace-trail",
        scenario: "D.context",
        from: Derive::Case("errtrace-trail/D.context"),
        what: ".during(\"…\") on an Err (a hop with a message)",
    },
    RowSpec {
        imp: "errtrace-trail",
        scenario: "D.report",
        from: Derive::Case("errtrace-trail/D.report"),
        what: "formatting the {:#} report of a ten-hop error",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "D.fp-on",
        from: Derive::Case("errtrace-origin/S7.on"),
        what: "S7 loop iteration with the fail point",
    },
    RowSpec {
        imp: "errtrace-origin",
        scenario: "D.fp-off",
        from: Derive::Case("errtrace-origin/S7.off"),
        what: "S7 loop iteration without it",
    },
];

/// The reference row, shown in the human table only (it is not one of the JSON's impls).
pub const REFERENCE: RowSpec = RowSpec {
    imp: "plain-u64",
    scenario: "S1",
    from: Derive::Case("plain-u64/S1"),
    what: "ten frames of u64 arithmetic, no Result",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_rows_refer_to_cases() {
        let cases = all();
        let mut ids: Vec<_> = cases.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate case id");
        for imp in IMPLS {
            for s in SCENARIOS {
                assert!(find(&format!("{imp}/{s}")).is_some(), "{imp}/{s}");
            }
        }
        for row in EXTRA_ROWS.iter().chain([&REFERENCE]) {
            match row.from {
                Derive::Case(a) => assert!(find(a).is_some(), "{a}"),
                Derive::Delta(a, b) => {
                    assert!(find(a).is_some(), "{a}");
                    assert!(find(b).is_some(), "{b}");
                }
            }
        }
    }
}
