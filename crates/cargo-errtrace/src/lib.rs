//! `cargo errtrace audit`: a static audit for silent error paths.
//!
//! It finds where an error can travel from its origin to a boundary (`init` of a kernel
//! module, a driver's `probe`, `main`, an exported `extern "C" fn`, …) through `?` hops
//! without a single log line (`silent-chain`), and where errors are thrown away
//! (`discarded`), handled by doing nothing (`swallowed`) or turned into panics (`panic`).
//!
//! The pipeline: [`discover`] the `.rs` files; on a thread pool, read, parse (syn),
//! summarise each file into a compact [`model::FileSummary`] and drop its syntax tree;
//! with `--facts`, read what the compiler resolved ([`facts`]); then run the cross-file
//! analysis ([`chain`]) on the summaries, resolving calls through [`resolve`]. Definitions and
//! limits are in the guide's `audit` chapter.

#![warn(missing_docs)]

pub mod cfgtest;
pub mod chain;
pub mod cli;
pub mod config;
pub mod csource;
pub mod discover;
mod explained;
pub mod extract;
pub mod facts;
pub mod findings;
pub mod logging;
pub mod model;
pub mod output;
pub mod parse;
pub mod resolve;
mod silent;
pub mod suppress;
pub mod testonly;
pub mod wrappers;

use rayon::prelude::*;
use std::path::{Path, PathBuf};

pub use config::Config;
pub use findings::{Finding, Kind, Report};

/// Worker thread stack size: syn and the walker recurse per nesting level.
const STACK_SIZE: usize = 64 * 1024 * 1024;

/// JSON schema version.
pub const SCHEMA_VERSION: u32 = 1;

/// Why an audit could not run at all.
#[derive(Debug)]
pub enum AuditError {
    /// The path or the config could not be read.
    Io(String),
    /// The config is invalid.
    Config(String),
}

impl std::fmt::Display for AuditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuditError::Io(m) | AuditError::Config(m) => f.write_str(m),
        }
    }
}

/// What to audit and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A crate, a workspace, a directory of `.rs` files or one file.
    pub root: PathBuf,
    /// The configuration (see [`load_config`]).
    pub config: Config,
    /// Worker threads; `None` uses one per core.
    pub jobs: Option<usize>,
    /// A directory of facts `errtrace-rustc` wrote while building the tree: calls are
    /// resolved as the compiler resolved them.
    pub facts: Option<PathBuf>,
    /// The kernel tree the audited code is built against: its kernel crate joins the analysis
    /// (findings only where the chain passes the audited code) and its C definitions tell
    /// what each `bindings::` callee does on failure ([`csource`]). `None`: the name lists.
    pub kernel_tree: Option<csource::KernelTree>,
}

/// Load `errtrace-audit.toml` at `root` (a directory, or a file's directory) if it exists.
pub fn load_config(root: &Path, explicit: Option<&Path>) -> Result<Config, AuditError> {
    if let Some(p) = explicit {
        return Config::load(p).map_err(|e| AuditError::Config(e.0));
    }
    let dir = if root.is_file() {
        root.parent().map(Path::to_path_buf).unwrap_or_default()
    } else {
        root.to_path_buf()
    };
    let candidate = dir.join(config::FILE_NAME);
    if candidate.is_file() {
        Config::load(&candidate).map_err(|e| AuditError::Config(e.0))
    } else {
        Ok(Config::default())
    }
}

/// A source text in memory, as a file of the one crate `crate`.
fn memory_file(rel: &str) -> discover::SourceFile {
    discover::SourceFile {
        path: PathBuf::from(rel),
        rel: rel.to_string(),
        crate_name: "crate".to_string(),
        crate_root: String::new(),
        module: Vec::new(),
    }
}

/// Summarise one source text (no file system access). Never panics.
pub fn summarize_source(text: &str, rel: &str, config: &Config) -> model::FileSummary {
    let names = logging::Names::new(config);
    extract::summarize(text, &memory_file(rel), &names, config)
}

/// Audit source texts given in memory: (relative path, text), all in one crate. Used by
/// tests and fuzzing.
pub fn audit_sources(sources: &[(&str, &str)], config: &Config) -> Report {
    let mut names = logging::Names::new(config);
    let defs: Vec<wrappers::Definition> = sources
        .iter()
        .flat_map(|(_, t)| wrappers::definitions(t))
        .collect();
    let wrappers = wrappers::logging_wrappers(&defs, &names);
    names.add_log_macros(wrappers);
    let summaries: Vec<model::FileSummary> = sources
        .iter()
        .map(|(rel, text)| extract::summarize(text, &memory_file(rel), &names, config))
        .collect();
    build_report(
        "<memory>".to_string(),
        summaries,
        Vec::new(),
        &names,
        config,
        None,
        &std::collections::HashSet::new(),
    )
}

/// The largest file analysed. Real source files stay far below it; a generated one of tens of
/// megabytes costs seconds and gigabytes to parse, and is reported instead.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Whether a file is too large to analyse (its size, when it is).
fn too_large(path: &std::path::Path) -> Option<u64> {
    std::fs::metadata(path)
        .ok()
        .map(|m| m.len())
        .filter(|&n| n > MAX_FILE_BYTES)
}

fn summarize_path(
    file: &discover::SourceFile,
    names: &logging::Names,
    config: &Config,
) -> Result<model::FileSummary, findings::IoError> {
    if let Some(n) = too_large(&file.path) {
        return Ok(model::FileSummary {
            path: file.rel.clone(),
            crate_name: file.crate_name.clone(),
            crate_root: file.crate_root.clone(),
            parse_error: Some(model::ParseError {
                file: file.rel.clone(),
                line: 1,
                column: 1,
                message: format!(
                    "the file is {n} bytes, more than the {MAX_FILE_BYTES} the audit analyses; \
                     not analysed"
                ),
            }),
            ..Default::default()
        });
    }
    let bytes = std::fs::read(&file.path).map_err(|e| findings::IoError {
        file: file.rel.clone(),
        message: e.to_string(),
    })?;
    let summary = match std::str::from_utf8(&bytes) {
        Ok(text) => {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                extract::summarize(text, file, names, config)
            }));
            match r {
                Ok(s) => s,
                Err(_) => model::FileSummary {
                    path: file.rel.clone(),
                    crate_name: file.crate_name.clone(),
                    crate_root: file.crate_root.clone(),
                    lines: parse::count_lines(text),
                    parse_error: Some(model::ParseError {
                        file: file.rel.clone(),
                        line: 1,
                        column: 1,
                        message: "internal error: the analyser panicked on this file".to_string(),
                    }),
                    ..Default::default()
                },
            }
        }
        Err(e) => {
            let upto = &bytes[..e.valid_up_to()];
            let line = upto.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            let column = upto.iter().rev().take_while(|&&b| b != b'\n').count() as u32 + 1;
            model::FileSummary {
                path: file.rel.clone(),
                crate_name: file.crate_name.clone(),
                crate_root: file.crate_root.clone(),
                parse_error: Some(model::ParseError {
                    file: file.rel.clone(),
                    line,
                    column,
                    message: "file is not valid UTF-8".to_string(),
                }),
                ..Default::default()
            }
        }
    };
    // The syntax tree and all its spans are gone: free this thread's span source map so
    // memory does not grow with the corpus.
    proc_macro2::extra::invalidate_current_thread_spans();
    Ok(summary)
}

/// Audit a path.
pub fn audit(opts: &Options) -> Result<Report, AuditError> {
    let t0 = std::time::Instant::now();
    let discover::Discovered {
        files,
        errors: walk_errors,
        skipped,
    } = discover::discover(&opts.root).map_err(|e| AuditError::Io(e.0))?;
    // The kernel crate of the tree, analysed with the audited code but not reported on its own.
    let mut files = files;
    let library = match &opts.kernel_tree {
        Some(tree) => kernel_crate_files(tree, &mut files),
        None => std::collections::HashSet::new(),
    };
    let t_discover = t0.elapsed().as_secs_f64();
    let t1 = std::time::Instant::now();
    let mut names = logging::Names::new(&opts.config);
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(STACK_SIZE);
    if let Some(j) = opts.jobs {
        builder = builder.num_threads(j.max(1));
    }
    let pool = builder
        .build()
        .map_err(|e| AuditError::Io(format!("cannot start worker threads: {e}")))?;
    // The tree's own `macro_rules!` wrappers around logging macros log too: found first, over
    // every file (a wrapper is often defined in one file and used in all the others); and the C
    // functions the files call, for the tree's C knowledge. Only these are kept, not the texts.
    let (defs, c_names): (Vec<wrappers::Definition>, Vec<String>) = pool.install(|| {
        files
            .par_iter()
            .filter(|f| too_large(&f.path).is_none())
            .filter_map(|f| std::fs::read_to_string(&f.path).ok())
            .map(|text| (wrappers::definitions(&text), c_functions_named(&text)))
            .reduce(
                || (Vec::new(), Vec::new()),
                |mut a, b| {
                    a.0.extend(b.0);
                    a.1.extend(b.1);
                    a
                },
            )
    });
    let knowledge = opts.kernel_tree.as_ref().map(|tree| {
        let mut c_names = c_names;
        c_names.sort();
        c_names.dedup();
        pool.install(|| csource::Knowledge::derive(tree, c_names))
    });
    let wrappers = wrappers::logging_wrappers(&defs, &names);
    drop(defs);
    names.add_log_macros(wrappers);
    let c_cost = knowledge.as_ref().map(|k| k.cost);
    if let Some(k) = knowledge {
        names.set_c_knowledge(k);
    }
    let results: Vec<Result<model::FileSummary, findings::IoError>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| summarize_path(f, &names, &opts.config))
            .collect()
    });
    let mut summaries = Vec::with_capacity(results.len());
    let mut io_errors: Vec<findings::IoError> = walk_errors
        .into_iter()
        .map(|(file, message)| findings::IoError { file, message })
        .collect();
    for r in results {
        match r {
            Ok(s) => summaries.push(s),
            Err(e) => io_errors.push(e),
        }
    }
    // The analysis recurses nowhere deep, but run it on the pool too for a uniform stack.
    let t_summarize = t1.elapsed().as_secs_f64();
    let t2 = std::time::Instant::now();
    let facts = match &opts.facts {
        Some(dir) => {
            let names = facts::FileNames::new(files.iter().map(|f| (f.path.as_path(), f.rel.as_str())));
            Some(facts::Facts::load(dir, &names).map_err(|e| AuditError::Io(e.0))?)
        }
        None => None,
    };
    let root = opts.root.display().to_string();
    let config = &opts.config;
    let mut report = pool.install(|| {
        build_report(
            root,
            summaries,
            io_errors,
            &names,
            config,
            facts.as_ref(),
            &library,
        )
    });
    report.kernel_tree = opts.kernel_tree.as_ref().map(|t| findings::KernelTreeUse {
        root: t.root.display().to_string(),
        c_files: c_cost.map_or(0, |c| c.files as u64),
        c_definitions_read: c_cost.map_or(0, |c| c.parsed as u64),
    });
    report.skipped = skipped
        .into_iter()
        .map(|(file, message)| findings::IoError { file, message })
        .collect();
    report.timings = findings::Timings {
        discover: t_discover,
        summarize: t_summarize,
        analyse: t2.elapsed().as_secs_f64(),
        c_knowledge: c_cost.map_or(0.0, |c| c.seconds),
    };
    Ok(report)
}

fn build_report(
    root: String,
    mut summaries: Vec<model::FileSummary>,
    io_errors: Vec<findings::IoError>,
    names: &logging::Names,
    config: &Config,
    facts: Option<&facts::Facts>,
    library: &std::collections::HashSet<String>,
) -> Report {
    testonly::drop_test_files(&mut summaries);
    let analysis = chain::analyse(&summaries, names, facts);
    let resolution = facts.map(|f| resolution_report(f, &summaries));
    let mut findings = analysis.findings;
    // The kernel crate's own findings are not the audited code's: kept only when the chain
    // passes through the audited code.
    if !library.is_empty() {
        findings.retain(|f| !library.contains(&f.file) || f.chain.iter().any(|s| !library.contains(&s.file)));
        summaries.retain(|s| !library.contains(&s.path) || s.parse_error.is_none());
        // A log line belongs in the audited code: where the error enters it, when it is made
        // in the kernel crate.
        for f in &mut findings {
            if f.fix.as_ref().is_some_and(|x| library.contains(&x.file)) {
                f.fix = f.fix_steps.iter().find(|x| !library.contains(&x.file)).cloned();
            }
        }
    }
    // The audited code's summaries (with a kernel tree, not the kernel crate's).
    let audited = |s: &&model::FileSummary| !library.contains(&s.path);
    let panics = config.panics;
    if !panics {
        findings.retain(|f| f.kind != findings::Kind::Panic);
    }
    let to_user = |f: &findings::Finding| f.boundary.as_ref().is_some_and(|b| b.user_space);
    let returned_to_user = findings.iter().filter(|f| to_user(f)).count() as u64;
    if !config.user_space {
        findings.retain(|f| !to_user(f));
    }
    let guards = findings.iter().filter(|f| f.guard).count() as u64;
    if !config.guards {
        findings.retain(|f| !f.guard);
    }
    findings.sort_by(|a, b| {
        (
            a.file.as_str(),
            a.line,
            a.column,
            a.kind,
            a.boundary.as_ref().map(|b| b.function.as_str()),
        )
            .cmp(&(
                b.file.as_str(),
                b.line,
                b.column,
                b.kind,
                b.boundary.as_ref().map(|b| b.function.as_str()),
            ))
    });
    let mut summary = findings::Summary {
        suppressed: analysis.suppressed,
        acknowledged: analysis.acknowledged,
        returned_to_user,
        guards,
        // With a kernel tree, the kernel crate's functions and boundaries are not the audited
        // code's.
        functions: if library.is_empty() {
            analysis.functions
        } else {
            summaries
                .iter()
                .filter(audited)
                .map(|s| s.functions.len() as u64)
                .sum()
        },
        boundaries: analysis
            .boundary_files
            .iter()
            .filter(|f| !library.contains(*f))
            .count() as u64,
        ..Default::default()
    };
    let mut per_file = Vec::with_capacity(summaries.len());
    let mut parse_errors = Vec::new();
    for s in summaries.iter().filter(audited) {
        summary.lines += u64::from(s.lines);
        summary.question_marks += u64::from(s.question_marks);
        summary.cannot_fail += u64::from(s.cannot_fail_checks);
        summary.log_calls += u64::from(s.log_calls);
        per_file.push(findings::PerFile {
            file: s.path.clone(),
            question_marks: s.question_marks,
            log_calls: s.log_calls,
            lines: s.lines,
        });
        if let Some(e) = &s.parse_error {
            parse_errors.push(e.clone());
        }
    }
    let mut report = Report {
        version: SCHEMA_VERSION,
        root,
        panics_checked: panics,
        user_space_listed: config.user_space,
        guards_listed: config.guards,
        files: summaries.iter().filter(audited).count() as u64 + io_errors.len() as u64,
        summary,
        findings,
        parse_errors,
        io_errors,
        skipped: Vec::new(),
        per_file,
        resolution,
        timings: findings::Timings::default(),
        kernel_tree: None,
    };
    report.recount();
    report
}

/// Add the kernel crate of `tree` (its `rust/` directory, generated bindings left out) to
/// `files`, named by their full paths; returns those names. Files already audited stay as they
/// are.
fn kernel_crate_files(
    tree: &csource::KernelTree,
    files: &mut Vec<discover::SourceFile>,
) -> std::collections::HashSet<String> {
    let rust = tree.root.join("rust");
    let audited: std::collections::HashSet<PathBuf> = files
        .iter()
        .filter_map(|f| std::fs::canonicalize(&f.path).ok())
        .collect();
    let Ok(found) = discover::discover(&rust) else {
        return std::collections::HashSet::new();
    };
    let mut library = std::collections::HashSet::new();
    for mut f in found.files {
        if f.rel.ends_with("_generated.rs")
            || std::fs::canonicalize(&f.path).is_ok_and(|p| audited.contains(&p))
        {
            continue;
        }
        f.rel = rust.join(&f.rel).display().to_string();
        f.crate_root = rust.join(&f.crate_root).display().to_string();
        library.insert(f.rel.clone());
        files.push(f);
    }
    library
}

/// The C functions a Rust text calls through the bindings (`bindings::misc_register`).
fn c_functions_named(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("bindings::") {
        rest = &rest[i + "bindings::".len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
            out.push(name.to_string());
        }
        rest = &rest[end..];
    }
    out
}

/// Which crates the facts resolved (those with calls in audited files) and which audited
/// crates they do not describe.
fn resolution_report(facts: &facts::Facts, summaries: &[model::FileSummary]) -> findings::ResolutionReport {
    let compiler = facts.crates.iter().filter(|c| c.calls > 0).cloned().collect();
    let covered: std::collections::HashSet<&str> = summaries
        .iter()
        .filter(|s| facts.files.contains(&s.path))
        .map(|s| s.crate_root.as_str())
        .collect();
    let mut syntax: Vec<String> = summaries
        .iter()
        .map(|s| s.crate_root.as_str())
        .filter(|r| !covered.contains(r))
        .map(|r| {
            if r.is_empty() {
                ".".to_string()
            } else {
                r.to_string()
            }
        })
        .collect();
    syntax.sort();
    syntax.dedup();
    findings::ResolutionReport { compiler, syntax }
}
