//! SARIF 2.1.0 output, loadable by GitHub code scanning.

use serde_json::{json, Value};

use crate::findings::{Finding, Kind, Report};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(kind: Kind) -> &'static str {
    match kind {
        Kind::SilentChain | Kind::Panic => "warning",
        Kind::Discarded | Kind::Swallowed => "note",
    }
}

/// A finding's level: its kind's, except that a chain listed on request (an errno returned to
/// user space, an overflow guard) is a `note`, below the default report's warnings.
fn finding_level(f: &Finding) -> &'static str {
    let on_request = f.guard || f.boundary.as_ref().is_some_and(|b| b.user_space);
    if on_request {
        "note"
    } else {
        level(f.kind)
    }
}

fn location(file: &str, line: u32, column: Option<u32>, message: Option<String>) -> Value {
    let mut region = json!({ "startLine": line.max(1) });
    if let Some(c) = column {
        region["startColumn"] = json!(c.max(1));
    }
    let mut loc = json!({
        "physicalLocation": {
            "artifactLocation": artifact(file),
            "region": region
        }
    });
    if let Some(m) = message {
        loc["message"] = json!({ "text": m });
    }
    loc
}

/// Where a file is: relative to the source root, or (a kernel tree's file, outside the audited
/// root) an absolute `file:` URI.
fn artifact(file: &str) -> Value {
    if file.starts_with('/') {
        json!({ "uri": format!("file://{file}") })
    } else {
        json!({ "uri": file, "uriBaseId": "%SRCROOT%" })
    }
}

/// A finding's stable identity for code scanning: what it is (kind, file, function, boundary,
/// message) without its line number, so that an edit above it does not make it a new result;
/// and, for findings alike in all of that, their order among themselves, so that no two share
/// one (code scanning would merge them, or flap between them).
fn fingerprints(findings: &[Finding]) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    findings
        .iter()
        .map(|f| {
            let key = format!(
                "{}:{}:{}:{}:{}",
                f.kind,
                f.file,
                f.function,
                f.boundary.as_ref().map(|b| b.function.as_str()).unwrap_or(""),
                // Without numbers: a hop count or a C callee's line moves with unrelated edits.
                f.message.replace(|c: char| c.is_ascii_digit(), "")
            );
            let n = seen.entry(key.clone()).or_insert(0);
            *n += 1;
            format!("{key}:{n}")
        })
        .collect()
}

fn result(f: &Finding, fingerprint: &str) -> Value {
    let rule_index = Kind::ALL.iter().position(|k| *k == f.kind).unwrap_or(0);
    let mut r = json!({
        "ruleId": f.kind.as_str(),
        "ruleIndex": rule_index,
        "level": finding_level(f),
        "message": { "text": format!("{} (in `{}`)", f.message, f.function) },
        "locations": [location(&f.file, f.line, Some(f.column), None)],
        "partialFingerprints": { "errtraceAudit/v2": fingerprint }
    });
    if !f.chain.is_empty() {
        let steps: Vec<Value> = f
            .chain
            .iter()
            .map(|s| json!({ "location": location(&s.file, s.line, None, Some(format!("in `{}`", s.function))) }))
            .collect();
        r["codeFlows"] = json!([{ "threadFlows": [{ "locations": steps }] }]);
        let steps = f.chain.iter().enumerate().map(|(i, s)| {
            let mut l = location(
                &s.file,
                s.line,
                None,
                Some(format!("step {}: `{}`", i + 1, s.function)),
            );
            l["id"] = json!(i);
            l
        });
        // The other places where the same error enters the calling crate unlogged.
        let entries = f.also_enters.iter().enumerate().map(|(k, e)| {
            let mut l = location(
                &e.file,
                e.line,
                None,
                Some(format!("also enters unlogged in `{}`", e.function)),
            );
            l["id"] = json!(f.chain.len() + k);
            l
        });
        r["relatedLocations"] = Value::Array(steps.chain(entries).collect());
    }
    if let Some(fix) = &f.fix {
        r["fixes"] = json!([{
            "description": { "text": fix.description },
            "artifactChanges": [{
                "artifactLocation": artifact(&fix.file),
                "replacements": [{
                    "deletedRegion": {
                        "startLine": fix.line,
                        "startColumn": fix.column,
                        "endLine": fix.line,
                        "endColumn": fix.column
                    },
                    "insertedContent": { "text": fix.insert }
                }]
            }]
        }]);
    }
    r
}

/// The SARIF log as pretty JSON, ending with a newline.
pub fn render(report: &Report) -> String {
    let rules: Vec<Value> = Kind::ALL
        .iter()
        .map(|k| {
            json!({
                "id": k.as_str(),
                "name": k.as_str(),
                "shortDescription": { "text": k.description() },
                "fullDescription": { "text": k.description() },
                "defaultConfiguration": { "level": level(*k) },
                "helpUri": "https://example.invalid/errtrace/audit.html"
            })
        })
        .collect();
    let notifications: Vec<Value> = report
        .parse_errors
        .iter()
        .map(|e| {
            json!({
                "level": "error",
                "message": { "text": format!("could not parse: {}", e.message) },
                "locations": [location(&e.file, e.line, Some(e.column), None)]
            })
        })
        .chain(report.io_errors.iter().map(|e| {
            json!({
                "level": "error",
                "message": { "text": format!("could not read {}: {}", e.file, e.message) }
            })
        }))
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "cargo-errtrace",
                    "informationUri": "https://example.invalid/errtrace",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules
                }
            },
            "originalUriBaseIds": { "%SRCROOT%": { "description": { "text": "The audited root" } } },
            "invocations": [{
                "executionSuccessful": report.io_errors.is_empty(),
                "toolExecutionNotifications": notifications
            }],
            "results": report
                .findings
                .iter()
                .zip(fingerprints(&report.findings))
                .map(|(f, fp)| result(f, &fp))
                .collect::<Vec<_>>()
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}
