//! Human output: rustc-style diagnostics (codespan-reporting) with the source line and a
//! caret, then a summary.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

use crate::findings::{Finding, IoError, Kind, Report};
use crate::model::ParseError;

/// Byte offset of a 1-based (line, character column) in `text`, and the length of the
/// identifier-like token there (at least one character).
fn offset_of(text: &str, line: u32, column: u32) -> (usize, usize) {
    let mut start = 0usize;
    let mut l = 1u32;
    if line > 1 {
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                l += 1;
                if l == line {
                    start = i + 1;
                    break;
                }
            }
        }
        if l != line {
            return (text.len(), 0);
        }
    }
    let rest = text.get(start..).unwrap_or("");
    let line_text = rest.split('\n').next().unwrap_or("");
    let mut off = start + line_text.len();
    for (n, (i, _)) in line_text.char_indices().enumerate() {
        if n + 1 == column as usize {
            off = start + i;
            break;
        }
    }
    let tail = text.get(off..).unwrap_or("");
    let mut len = 0;
    for c in tail.chars() {
        if c.is_alphanumeric() || c == '_' {
            len += c.len_utf8();
        } else {
            break;
        }
    }
    if len == 0 {
        len = tail
            .chars()
            .next()
            .filter(|c| *c != '\n')
            .map(char::len_utf8)
            .unwrap_or(0);
    }
    (off, len)
}

/// Longest source line shown under a diagnostic; a longer one (generated code, a minified
/// table) is named by position instead of printed whole.
const MAX_SHOWN_LINE: usize = 512;

/// The length in bytes of 1-based `line` of `source`.
fn line_len(source: &str, line: u32) -> usize {
    source
        .split('\n')
        .nth((line.max(1) - 1) as usize)
        .map_or(0, str::len)
}

/// The note for a line too long to show.
fn long_line_note(file: &str, line: u32, column: u32, len: usize) -> String {
    format!("at {file}:{line}:{column} (the line is {len} bytes long; not shown)")
}

struct Files {
    files: SimpleFiles<String, String>,
    ids: HashMap<String, Option<usize>>,
}

impl Files {
    fn id(&mut self, base: &Path, rel: &str) -> Option<usize> {
        if let Some(id) = self.ids.get(rel) {
            return *id;
        }
        let id = std::fs::read_to_string(base.join(rel))
            .ok()
            .map(|text| self.files.add(rel.to_string(), text));
        self.ids.insert(rel.to_string(), id);
        id
    }
}

/// `explained`: the boundaries whose fate an earlier finding already told (one note per
/// boundary; the later findings name it).
fn finding_diagnostic(
    f: &Finding,
    file_id: Option<usize>,
    files: &SimpleFiles<String, String>,
    explained: &mut std::collections::HashSet<String>,
) -> Diagnostic<usize> {
    let mut d = Diagnostic::warning()
        .with_code(f.kind.as_str())
        .with_message(&f.message);
    let mut long_line = None;
    if let Some(id) = file_id {
        if let Ok(file) = files.get(id) {
            let n = line_len(file.source(), f.line);
            if n > MAX_SHOWN_LINE {
                long_line = Some(long_line_note(&f.file, f.line, f.column, n));
            }
        }
    }
    if let (Some(id), None) = (file_id, &long_line) {
        if let Ok(file) = files.get(id) {
            let (off, len) = offset_of(file.source(), f.line, f.column);
            let what = match f.kind {
                Kind::SilentChain => "origin",
                Kind::Discarded => "discarded here",
                Kind::Swallowed => "swallowed here",
                Kind::Panic => "panics here",
            };
            d = d.with_labels(vec![
                Label::primary(id, off..off + len).with_message(format!("{what}, in `{}`", f.function))
            ]);
        }
    }
    let mut notes: Vec<String> = long_line.into_iter().collect();
    if file_id.is_none() {
        notes.push(format!(
            "at {}:{}:{} in `{}`",
            f.file, f.line, f.column, f.function
        ));
    }
    if !f.chain.is_empty() {
        let mut s = String::from("chain:");
        for (i, step) in f.chain.iter().enumerate() {
            let role = if i == 0 {
                "origin"
            } else if i + 1 == f.chain.len() {
                "boundary"
            } else {
                "hop"
            };
            let _ = write!(
                s,
                "\n{:>3}. {}:{} in `{}` ({role})",
                i + 1,
                step.file,
                step.line,
                step.function
            );
            if !step.also_at.is_empty() {
                let lines: Vec<String> = step.also_at.iter().map(u32::to_string).collect();
                let _ = write!(
                    s,
                    "; also at line{} {}",
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                );
            }
        }
        if f.chain.len() == 1 {
            s.push_str(" — the origin is in the boundary function");
        }
        notes.push(s);
    }
    if let Some(b) = &f.boundary {
        if explained.insert(b.function.clone()) {
            notes.push(format!("`{}` is a boundary ({}): {}", b.function, b.kind, b.fate));
        } else {
            notes.push(format!("`{}` is a boundary ({}), as above", b.function, b.kind));
        }
    }
    if f.guard {
        notes.push("its origin is an overflow or conversion guard (listed because of --guards)".to_string());
    }
    if !f.also_reaches.is_empty() {
        let list: Vec<String> = f.also_reaches.iter().map(|b| format!("`{b}`")).collect();
        notes.push(format!("the same error also reaches {}", list.join(", ")));
    }
    if !f.also_enters.is_empty() {
        let list: Vec<String> = f
            .also_enters
            .iter()
            .map(|e| format!("{}:{} in `{}`", e.file, e.line, e.function))
            .collect();
        notes.push(format!(
            "the same error also enters unlogged at {}",
            list.join(", ")
        ));
    }
    if let Some(fix) = &f.fix {
        notes.push(format!(
            "to fix this, {}: insert `{}` at {}:{}:{}",
            fix.description, fix.insert, fix.file, fix.line, fix.column
        ));
    }
    notes.push(format!(
        "to accept this, add `// errtrace-audit: allow({}) <reason>` on or above line {}",
        f.kind, f.line
    ));
    d.with_notes(notes)
}

fn parse_diagnostic(
    e: &ParseError,
    file_id: Option<usize>,
    files: &SimpleFiles<String, String>,
) -> Diagnostic<usize> {
    let mut d = Diagnostic::error()
        .with_code("parse-error")
        .with_message(format!("could not parse: {}", e.message));
    match file_id.and_then(|id| files.get(id).ok().map(|f| (id, f))) {
        Some((_, file)) if line_len(file.source(), e.line) > MAX_SHOWN_LINE => {
            let n = line_len(file.source(), e.line);
            d = d.with_notes(vec![long_line_note(&e.file, e.line, e.column, n)]);
        }
        Some((id, file)) => {
            let (off, len) = offset_of(file.source(), e.line, e.column);
            d = d.with_labels(vec![Label::primary(id, off..off + len)]);
        }
        None => d = d.with_notes(vec![format!("at {}:{}:{}", e.file, e.line, e.column)]),
    }
    d.with_notes(vec!["this file was skipped; the audit went on".to_string()])
}

/// Render diagnostics and the summary.
pub fn render(report: &Report, base: &Path, color: bool) -> String {
    let mut files = Files {
        files: SimpleFiles::new(),
        ids: HashMap::new(),
    };
    let mut buf = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    let config = term::Config::default();
    for e in &report.parse_errors {
        let id = files.id(base, &e.file);
        let d = parse_diagnostic(e, id, &files.files);
        let _ = term::emit(&mut buf, &config, &files.files, &d);
    }
    let mut explained = std::collections::HashSet::new();
    for f in &report.findings {
        let id = files.id(base, &f.file);
        let d = finding_diagnostic(f, id, &files.files, &mut explained);
        let _ = term::emit(&mut buf, &config, &files.files, &d);
    }
    let mut out = String::from_utf8_lossy(buf.as_slice()).into_owned();
    skipped_notes(&mut out, &report.skipped);
    if let Some(r) = &report.resolution {
        for c in &r.compiler {
            let _ = writeln!(
                out,
                "note: crate {} ({}): calls resolved by the compiler ({} call{})",
                c.krate,
                c.root,
                c.calls,
                if c.calls == 1 { "" } else { "s" }
            );
        }
        for root in &r.syntax {
            let _ = writeln!(out, "note: crate {root}: no facts, calls resolved by syntax");
        }
    }
    for e in &report.io_errors {
        let _ = writeln!(out, "error: could not read {}: {}", e.file, e.message);
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "audited {} files ({} lines): {} `?`, {} logging calls, {} functions, {} boundaries",
        report.files, s.lines, s.question_marks, s.log_calls, s.functions, s.boundaries
    );
    let panic = if report.panics_checked {
        format!("{} panic", s.panic)
    } else {
        "panic not checked (--panics)".to_string()
    };
    let user = if report.user_space_listed {
        format!("{} returned to user space (listed)", s.returned_to_user)
    } else {
        format!("{} returned to user space (--user-space)", s.returned_to_user)
    };
    let guards = if report.guards_listed {
        format!("{} overflow guards (listed)", s.guards)
    } else {
        format!("{} overflow guards (--guards)", s.guards)
    };
    // Shown only when there are any, so that the line stays as it was for code without them.
    let cannot_fail = if s.cannot_fail > 0 {
        format!("; {} checks that cannot fail", s.cannot_fail)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "findings: {} silent-chain, {} discarded, {} swallowed, {panic}; {} parse errors; {} suppressed; {} acknowledged; {user}; {guards}{cannot_fail}",
        s.silent_chain, s.discarded, s.swallowed, s.parse_errors, s.suppressed, s.acknowledged
    );
    out
}

/// One note per skipped file, but one note for all the files skipped for the same reason when
/// there are several (a module that links errtrace's sources into its folder has dozens of
/// symbolic links: one line says so, with the first few names).
fn skipped_notes(out: &mut String, skipped: &[IoError]) {
    const NAMED: usize = 3;
    let mut reasons: Vec<&str> = Vec::new();
    for e in skipped {
        if !reasons.contains(&e.message.as_str()) {
            reasons.push(&e.message);
        }
    }
    for reason in reasons {
        let files: Vec<&str> = skipped
            .iter()
            .filter(|e| e.message == reason)
            .map(|e| e.file.as_str())
            .collect();
        match files.as_slice() {
            [one] => {
                let _ = writeln!(out, "note: skipped {one}: {reason}");
            }
            many => {
                let named = many[..NAMED.min(many.len())].join(", ");
                let rest = many.len().saturating_sub(NAMED);
                let more = if rest > 0 {
                    format!(" and {rest} more")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "note: skipped {} files ({named}{more}): {reason}",
                    many.len()
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::offset_of;

    #[test]
    fn offsets() {
        let t = "ab\ncdé fg\n";
        assert_eq!(offset_of(t, 1, 1), (0, 2));
        assert_eq!(offset_of(t, 2, 1), (3, 4));
        assert_eq!(offset_of(t, 2, 5), (8, 2));
        assert_eq!(offset_of(t, 9, 1), (t.len(), 0));
    }
}
