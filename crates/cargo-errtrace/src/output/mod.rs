//! Output formats: human (rustc-style diagnostics), JSON (versioned schema), SARIF 2.1.0.

pub mod human;
pub mod json;
pub mod sarif;

use crate::findings::Report;
use std::path::Path;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Diagnostics with the source line and a caret, then a summary.
    Human,
    /// The stable JSON schema (version 1).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

/// Render a report. `base` is the directory the report's relative paths start from (used
/// to show source lines); `color` adds ANSI colours to human output.
pub fn render(report: &Report, format: Format, base: &Path, color: bool) -> String {
    match format {
        Format::Human => human::render(report, base, color),
        Format::Json => json::render(report),
        Format::Sarif => sarif::render(report),
    }
}
