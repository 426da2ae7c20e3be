//! Per-call arithmetic, the rows, the JSON array and the human table.

use crate::cases::{Derive, RowSpec, EXTRA_ROWS, IMPLS, REFERENCE, SCENARIOS};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What two runs of one case measured: collected instructions and allocations, for `n1` and `n2`
/// iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Iterations of the short run.
    pub n1: u64,
    /// Iterations of the long run.
    pub n2: u64,
    /// Instructions collected in the short run.
    pub instr1: u64,
    /// Instructions collected in the long run.
    pub instr2: u64,
    /// Allocations during the short run.
    pub allocs1: u64,
    /// Allocations during the long run.
    pub allocs2: u64,
}

/// The per-iteration cost: `(c2 - c1) / (n2 - n1)`. The fixed costs of a run (entering the
/// collected function, the loop set-up) are in both counts and cancel.
pub fn per_call(c1: u64, n1: u64, c2: u64, n2: u64) -> f64 {
    assert!(n2 > n1, "the long run must have more iterations");
    (c2 as f64 - c1 as f64) / (n2 - n1) as f64
}

impl Measured {
    /// Instructions per iteration.
    pub fn instructions(&self) -> f64 {
        per_call(self.instr1, self.n1, self.instr2, self.n2)
    }

    /// Allocations per iteration.
    pub fn allocs(&self) -> f64 {
        per_call(self.allocs1, self.n1, self.allocs2, self.n2)
    }
}

/// One reported result.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Implementation.
    pub imp: String,
    /// Scenario.
    pub scenario: String,
    /// Instructions per call (for a delta row: the difference).
    pub instructions: f64,
    /// Heap allocations per call.
    pub allocs: f64,
}

/// Rounds to one decimal (callgrind counts are exact; a fraction means the per-call work varies).
fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn compute(spec: &RowSpec, m: &BTreeMap<String, Measured>) -> Option<Row> {
    let (instructions, allocs) = match spec.from {
        Derive::Case(a) => {
            let a = m.get(a)?;
            (a.instructions(), a.allocs())
        }
        Derive::Delta(a, b) => {
            let (a, b) = (m.get(a)?, m.get(b)?);
            (a.instructions() - b.instructions(), a.allocs() - b.allocs())
        }
    };
    Some(Row {
        imp: spec.imp.to_string(),
        scenario: spec.scenario.to_string(),
        instructions: round1(instructions),
        allocs: round1(allocs),
    })
}

/// The rows of the JSON, in order: every impl × S1..S4, then the errtrace-only and diagnostic
/// rows. Cases that were not measured (filtered out, or failed) are left out.
pub fn rows(m: &BTreeMap<String, Measured>) -> Vec<Row> {
    let mut out = Vec::new();
    for imp in IMPLS {
        for s in SCENARIOS {
            let id = format!("{imp}/{s}");
            if let Some(x) = m.get(&id) {
                out.push(Row {
                    imp: imp.to_string(),
                    scenario: s.to_string(),
                    instructions: round1(x.instructions()),
                    allocs: round1(x.allocs()),
                });
            }
        }
    }
    out.extend(EXTRA_ROWS.iter().filter_map(|spec| compute(spec, m)));
    out
}

/// The reference row (plain `u64`), if measured.
pub fn reference(m: &BTreeMap<String, Measured>) -> Option<Row> {
    compute(&REFERENCE, m)
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The JSON array: `[{"impl": …, "scenario": "S1", "instructions": …, "allocs": …}, …]`.
pub fn json(rows: &[Row]) -> String {
    let mut out = String::from("[\n");
    for (i, r) in rows.iter().enumerate() {
        let _ = write!(
            out,
            "  {{\"impl\": {}, \"scenario\": {}, \"instructions\": {}, \"allocs\": {}}}",
            json_str(&r.imp),
            json_str(&r.scenario),
            json_num(r.instructions),
            json_num(r.allocs)
        );
        out.push_str(if i + 1 < rows.len() { ",\n" } else { "\n" });
    }
    out.push(']');
    out
}

fn find<'a>(rows: &'a [Row], imp: &str, scenario: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.imp == imp && r.scenario == scenario)
}

fn cell(r: Option<&Row>) -> String {
    match r {
        Some(r) if r.allocs != 0.0 => {
            format!("{} ({}a)", json_num(r.instructions), json_num(r.allocs))
        }
        Some(r) => json_num(r.instructions),
        None => "-".to_string(),
    }
}

/// One target and whether it was met.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// What is required.
    pub target: String,
    /// What was measured.
    pub measured: String,
    /// Met?
    pub met: bool,
}

/// Checks the targets of the core's second design (the S1/S2 ratios, S2 with every hop, the
/// suppressed logs, the disarmed drop and fail point, no allocation) against the rows present.
pub fn verdicts(rows: &[Row]) -> Vec<Verdict> {
    let mut v = Vec::new();
    let get = |imp: &str, s: &str| find(rows, imp, s).map(|r| r.instructions);
    if let Some(base) = get("errno64", "S1") {
        for (imp, factor) in [("errtrace-origin", 1.0), ("errtrace-trail", 1.05)] {
            if let Some(x) = get(imp, "S1") {
                v.push(Verdict {
                    target: format!("S1 {imp} <= {factor} x errno64 ({:.1})", factor * base),
                    measured: format!("{x} ({:.2}x)", x / base),
                    met: x <= factor * base,
                });
            }
        }
    }
    if let (Some(base), Some(x)) = (get("errno64", "S2"), get("errtrace-origin", "S2")) {
        v.push(Verdict {
            target: format!("S2 errtrace-origin <= 1.3 x errno64 ({:.1})", 1.3 * base),
            measured: format!("{x} ({:.2}x)", x / base),
            met: x <= 1.3 * base,
        });
    }
    if let Some(x) = get("errtrace-trail", "S2") {
        v.push(Verdict {
            target: "S2 errtrace-trail (every hop) <= 250".to_string(),
            measured: json_num(x),
            met: x <= 250.0,
        });
    }
    for (s, limit, what) in [
        ("S5", 40.0, "suppressed log (quiet)"),
        ("S5.ratelimit", 80.0, "suppressed log (rate limit)"),
        ("S6", 10.0, "disarmed drop"),
        ("S7", 3.0, "disabled fail point"),
    ] {
        if let Some(x) = get("errtrace-origin", s) {
            v.push(Verdict {
                target: format!("{s} {what} <= {limit}"),
                measured: json_num(x),
                met: x <= limit,
            });
        }
    }
    let errtrace_allocs: f64 = rows
        .iter()
        .filter(|r| r.imp.starts_with("errtrace"))
        .map(|r| r.allocs.abs())
        .sum();
    if rows.iter().any(|r| r.imp.starts_with("errtrace")) {
        v.push(Verdict {
            target: "0 allocations in every errtrace row".to_string(),
            measured: json_num(errtrace_allocs),
            met: errtrace_allocs == 0.0,
        });
    }
    v
}

/// The human table: instructions per call (allocations per call in parentheses when not 0).
pub fn table(rows: &[Row], reference: Option<&Row>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "instructions per call (callgrind); \"(Na)\" = N heap allocations per call\n"
    );
    let _ = writeln!(
        out,
        "{:<16} {:>12} {:>12} {:>14} {:>14}",
        "impl", "S1 success", "S2 error", "S3 +context", "S4 +report"
    );
    for imp in IMPLS {
        let _ = writeln!(
            out,
            "{:<16} {:>12} {:>12} {:>14} {:>14}",
            imp,
            cell(find(rows, imp, "S1")),
            cell(find(rows, imp, "S2")),
            cell(find(rows, imp, "S3")),
            cell(find(rows, imp, "S4")),
        );
    }
    if let Some(r) = reference {
        let _ = writeln!(
            out,
            "{:<16} {:>12}   (reference: {})",
            r.imp,
            cell(Some(r)),
            REFERENCE.what
        );
    }
    let _ = writeln!(out, "\nerrtrace-only and diagnostic rows:");
    for spec in EXTRA_ROWS {
        if let Some(r) = find(rows, spec.imp, spec.scenario) {
            let _ = writeln!(
                out,
                "  {:<16} {:<14} {:>9}  {}",
                r.imp,
                r.scenario,
                cell(Some(r)),
                spec.what
            );
        }
    }
    let _ = writeln!(out, "\ntargets:");
    for v in verdicts(rows) {
        let _ = writeln!(
            out,
            "  [{}] {}: {}",
            if v.met { "met" } else { "MISSED" },
            v.target,
            v.measured
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(i1: u64, i2: u64, a1: u64, a2: u64) -> Measured {
        Measured {
            n1: 1000,
            n2: 3000,
            instr1: i1,
            instr2: i2,
            allocs1: a1,
            allocs2: a2,
        }
    }

    #[test]
    fn per_call_cancels_fixed_costs() {
        // 500 fixed + 74 per call.
        assert_eq!(per_call(500 + 74 * 1000, 1000, 500 + 74 * 3000, 3000), 74.0);
        assert_eq!(per_call(10, 1, 10, 2), 0.0);
        assert_eq!(m(1000, 2000, 0, 0).instructions(), 0.5);
        assert_eq!(m(0, 0, 1000, 3000).allocs(), 1.0);
    }

    #[test]
    #[should_panic(expected = "more iterations")]
    fn per_call_needs_two_lengths() {
        per_call(1, 5, 2, 5);
    }

    #[test]
    fn delta_rows_subtract() {
        let mut map = BTreeMap::new();
        map.insert("errtrace-origin/S7.on".to_string(), m(20_000, 60_000, 0, 0));
        map.insert(
            "errtrace-origin/S7.off".to_string(),
            m(17_000, 51_000, 0, 0),
        );
        let rows = rows(&map);
        let s7 = find(&rows, "errtrace-origin", "S7").unwrap();
        assert_eq!(s7.instructions, 3.0);
        assert_eq!(s7.allocs, 0.0);
        assert!(find(&rows, "errtrace-origin", "S5").is_none());
    }

    #[test]
    fn json_shape() {
        let rows = vec![
            Row {
                imp: "anyhow".into(),
                scenario: "S2".into(),
                instructions: 296.0,
                allocs: 1.0,
            },
            Row {
                imp: "errtrace-\"x\"".into(),
                scenario: "S5".into(),
                instructions: 12.5,
                allocs: 0.0,
            },
        ];
        let j = json(&rows);
        assert_eq!(
            j,
            "[\n  {\"impl\": \"anyhow\", \"scenario\": \"S2\", \"instructions\": 296, \"allocs\": 1},\n  \
             {\"impl\": \"errtrace-\\\"x\\\"\", \"scenario\": \"S5\", \"instructions\": 12.5, \"allocs\": 0}\n]"
        );
        assert_eq!(json(&[]), "[\n]");
    }

    #[test]
    fn verdicts_compare_with_errno64() {
        let row = |imp: &str, s: &str, x: f64| Row {
            imp: imp.into(),
            scenario: s.into(),
            instructions: x,
            allocs: 0.0,
        };
        let rows = vec![
            row("errno64", "S1", 100.0),
            row("errtrace-origin", "S1", 100.0),
            row("errtrace-trail", "S1", 106.0),
            row("errtrace-trail", "S2", 250.0),
        ];
        let v = verdicts(&rows);
        assert!(v[0].met, "S1 origin <= errno64");
        assert!(!v[1].met, "S1 trail 1.06x > 1.05x");
        assert!(v[2].met, "S2 trail <= 250");
        assert!(v.last().unwrap().met, "no allocations");
    }
}
