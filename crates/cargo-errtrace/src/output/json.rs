//! The JSON output: the [`Report`] serialised as is (schema version 1).
//!
//! Keys of version 1: `version`, `root`, `files`, `summary` {`question_marks`, `log_calls`,
//! `silent_chain`, `discarded`, `swallowed`, `panic`, `parse_errors`, `lines`,
//! `suppressed`, `functions`, `boundaries`}, `findings` [{`kind`, `file`, `line`,
//! `column`, `function`, `message`, `chain`? [{`file`, `line`, `function`, `also_at`?}],
//! `boundary`?}], `parse_errors`
//! [{`file`, `line`, `column`, `message`}], `io_errors`? and `per_file`
//! [{`file`, `question_marks`, `log_calls`, `lines`}]. New keys may be added within a
//! version; none is removed or changes meaning.

use crate::findings::Report;

/// Pretty-printed JSON, ending with a newline.
pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
