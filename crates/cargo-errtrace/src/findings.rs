//! Findings, their kinds and the audit report.

use serde::Serialize;
use std::fmt;

/// The kinds of findings, in ascending severity order (used by `--deny`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A `Result` thrown away: `let _ = f()`, `_ = f()`, `f().ok();`, `drop(f())`.
    Discarded,
    /// An error handled by doing nothing: `Err(_) => {}`, `.unwrap_or(…)` without a log.
    Swallowed,
    /// An unlogged error that reaches a boundary through unlogged hops only.
    SilentChain,
    /// `.unwrap()`/`.expect()` on an error path, `panic!` in a `Result` function.
    Panic,
}

impl Kind {
    /// All kinds, in severity order.
    pub const ALL: [Kind; 4] = [Kind::Discarded, Kind::Swallowed, Kind::SilentChain, Kind::Panic];

    /// The kebab-case name used in output, `--deny` and suppression comments.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Discarded => "discarded",
            Kind::Swallowed => "swallowed",
            Kind::SilentChain => "silent-chain",
            Kind::Panic => "panic",
        }
    }

    /// Parse a kind name.
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// One-line description (SARIF rule text, docs).
    pub fn description(self) -> &'static str {
        match self {
            Kind::Discarded => "A Result is thrown away without being looked at or logged.",
            Kind::Swallowed => "An error is handled by doing nothing: no log, no return, no `?`.",
            Kind::SilentChain => {
                "An error is created without a log line and travels to a boundary through \
                 `?` hops none of which logs it."
            }
            Kind::Panic => {
                "An error path panics: `.unwrap()`/`.expect()` on a Result, or `panic!` in a \
                 function that returns Result."
            }
        }
    }

    pub(crate) fn bit(self) -> u8 {
        match self {
            Kind::SilentChain => 1,
            Kind::Discarded => 2,
            Kind::Swallowed => 4,
            Kind::Panic => 8,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of a silent chain: the origin first, then each hop up to the boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainStep {
    /// Path relative to the audited root.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The function the step is in.
    pub function: String,
    /// Other lines of this function where the same error passes on unlogged (further calls of
    /// the previous step's function: `dev.write(…)?` seven times in one probe).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<u32>,
}

/// A place where an error made in a depended-on crate enters the calling crate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Entry {
    /// Path relative to the audited root.
    pub file: String,
    /// 1-based line of the call.
    pub line: u32,
    /// The calling function.
    pub function: String,
}

/// The boundary a silent chain ends at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoundaryInfo {
    /// The boundary function.
    pub function: String,
    /// Why it is a boundary.
    pub kind: String,
    /// What becomes of an unlogged error there (who prints what, if anyone).
    pub fate: String,
    /// An entry point from user space: the errno is the system call's result. Such chains are
    /// reported only when asked (`--user-space`).
    pub user_space: bool,
}

/// A finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What was found.
    pub kind: Kind,
    /// Path relative to the audited root.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The enclosing function (`crate::module::Type::name`).
    pub function: String,
    /// Explanation.
    pub message: String,
    /// For `silent-chain`: origin, hops, last step in the boundary function.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<ChainStep>,
    /// For `silent-chain`: the boundary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<BoundaryInfo>,
    /// For a silent chain: the other boundaries the same origin reaches (it is reported once,
    /// at its nearest boundary).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_reaches: Vec<String>,
    /// For a silent chain whose origin is in a crate the caller depends on (a kernel-crate
    /// function a driver calls): the other places where the same error enters a calling crate
    /// unlogged, each the start of its own silent path (the chain shows one of them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_enters: Vec<Entry>,
    /// For a silent chain: its origin is an overflow or conversion guard
    /// (`a.checked_add(b).ok_or(EOVERFLOW)?`, `u32::try_from(n)?`). Listed only with `--guards`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub guard: bool,
    /// For a silent chain: the log line to add where the error is made, so that it is logged
    /// once, there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
    /// For a silent chain whose origin makes an errno of a C function's value: that function,
    /// as the kernel tree's C shows it (none without a tree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c_callee: Option<CCallee>,
    /// The log lines that would do at each step of the chain, origin first: where the origin is
    /// in code not audited (a kernel tree's kernel crate), the fix goes where the error enters
    /// the audited code.
    #[serde(skip)]
    pub fix_steps: Vec<Fix>,
}

/// A C function an origin makes an errno of, as the kernel tree's C shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CCallee {
    /// Its name (`misc_register`).
    pub name: String,
    /// `cannot-fail`, `prints`, `prints-some`, `only-allocates`, `silent` or `unknown`.
    pub verdict: String,
    /// The codes it can fail with unprinted (`EBUSY`, `NULL`; `?` for what a callback returns).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub codes: Vec<String>,
    /// Where it is defined in the tree (`drivers/char/misc.c:209`).
    pub defined_at: String,
}

/// Text to insert at one place of a file: the log line a silent chain lacks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// What it does, in words.
    pub description: String,
    /// Path relative to the audited root.
    pub file: String,
    /// 1-based line of the insertion point.
    pub line: u32,
    /// 1-based column of the insertion point (the text goes before it).
    pub column: u32,
    /// The text.
    pub insert: String,
}

/// Per-file counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PerFile {
    /// Path relative to the audited root.
    pub file: String,
    /// Real `?` operators.
    pub question_marks: u32,
    /// Logging calls.
    pub log_calls: u32,
    /// Lines.
    pub lines: u32,
}

/// Totals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Real `?` operators.
    pub question_marks: u64,
    /// Logging calls.
    pub log_calls: u64,
    /// `silent-chain` findings.
    pub silent_chain: u64,
    /// `discarded` findings.
    pub discarded: u64,
    /// `swallowed` findings.
    pub swallowed: u64,
    /// `panic` findings.
    pub panic: u64,
    /// Files that did not parse.
    pub parse_errors: u64,
    /// Lines in all audited files.
    pub lines: u64,
    /// Findings hidden by `// errtrace-audit: allow(…)` comments.
    pub suppressed: u64,
    /// `let _ =` discards explained by a comment next to them: counted, not reported.
    pub acknowledged: u64,
    /// Unlogged errors whose only boundary is an entry point from user space (the errno is the
    /// system call's result): counted, listed only with `--user-space`.
    pub returned_to_user: u64,
    /// Unlogged errors whose origin is an overflow or conversion guard: counted, listed only
    /// with `--guards`.
    pub guards: u64,
    /// Checks that cannot fail for the values they are given (a `Devres` made in the same
    /// probe, accessed): counted, never listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub cannot_fail: u64,
    /// Functions analysed.
    pub functions: u64,
    /// Boundary functions found.
    pub boundaries: u64,
}

/// A file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IoError {
    /// Path relative to the audited root.
    pub file: String,
    /// The OS error.
    pub message: String,
}

/// The result of an audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// JSON schema version.
    pub version: u32,
    /// The audited root, as given.
    pub root: String,
    /// Whether `panic` findings were looked for (`--panics`, or `panics = true` in the config).
    pub panics_checked: bool,
    /// Whether chains ending at an entry point from user space are listed (`--user-space`, or
    /// `user_space = true` in the config).
    pub user_space_listed: bool,
    /// Whether chains from overflow and conversion guards are listed (`--guards`, or `guards =
    /// true` in the config).
    pub guards_listed: bool,
    /// Number of `.rs` files audited.
    pub files: u64,
    /// Totals.
    pub summary: Summary,
    /// All findings, sorted by file, line, column, kind.
    pub findings: Vec<Finding>,
    /// Files that did not parse.
    pub parse_errors: Vec<ParseError>,
    /// Files that could not be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub io_errors: Vec<IoError>,
    /// `.rs` paths that were not audited, and why (symbolic links, non-regular files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<IoError>,
    /// Per-file counts.
    pub per_file: Vec<PerFile>,
    /// How calls were resolved, when the compiler's facts were given (`--facts`); without
    /// them every call is resolved by syntax.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<ResolutionReport>,
    /// The kernel tree whose kernel crate and C definitions the audit read, when there was one
    /// (without it, what callees do is known from name lists only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_tree: Option<KernelTreeUse>,
    /// Seconds spent per phase (not part of the JSON schema).
    #[serde(skip)]
    pub timings: Timings,
}

/// What the audit read from a kernel tree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KernelTreeUse {
    /// The tree's root.
    pub root: String,
    /// C files indexed for definitions.
    pub c_files: u64,
    /// C function definitions parsed.
    pub c_definitions_read: u64,
}

/// Which crates the compiler's facts resolved and which the syntax did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ResolutionReport {
    /// Crates of the facts with calls in audited files: resolved as the compiler did.
    pub compiler: Vec<crate::facts::CrateResolution>,
    /// Audited crates (by root directory) no facts describe: resolved by syntax.
    pub syntax: Vec<String>,
}

/// Wall-clock seconds per phase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// Walking the directory tree.
    pub discover: f64,
    /// Reading, parsing and summarising files (parallel).
    pub summarize: f64,
    /// Cross-file analysis.
    pub analyse: f64,
    /// Reading the kernel tree's C (within `summarize`).
    pub c_knowledge: f64,
}

impl Eq for Timings {}

impl Report {
    /// Count findings by kind into the summary.
    pub(crate) fn recount(&mut self) {
        let s = &mut self.summary;
        s.silent_chain = 0;
        s.discarded = 0;
        s.swallowed = 0;
        s.panic = 0;
        for f in &self.findings {
            match f.kind {
                Kind::SilentChain => s.silent_chain += 1,
                Kind::Discarded => s.discarded += 1,
                Kind::Swallowed => s.swallowed += 1,
                Kind::Panic => s.panic += 1,
            }
        }
        s.parse_errors = self.parse_errors.len() as u64;
    }

    /// Number of findings of a kind.
    pub fn count(&self, kind: Kind) -> u64 {
        self.findings.iter().filter(|f| f.kind == kind).count() as u64
    }
}

/// A parse failure, with the position syn reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParseError {
    /// Path relative to the audited root.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// syn's message.
    pub message: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
