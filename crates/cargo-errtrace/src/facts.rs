//! What the compiler resolved: the facts `errtrace-rustc` writes while it builds the tree
//! (`errtrace_facts`), read back and keyed the way the audit looks calls up.
//!
//! A call is looked up by the function it is written in (its file and the line of its name),
//! the called name as written, and the line of the `?`, return or statement that uses it:
//! the last call of that name at or before that line (a call split over lines is written
//! before its `?`). What it can run becomes in-tree functions by the file and line of their
//! names; a function a macro made, whose body the audit does not read, is named as such; one
//! outside the audited files is outside the tree, as with the syntactic path.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use errtrace_facts::{CrateFacts, Dispatch, FORMAT};

/// One call, as the audit needs it.
#[derive(Debug, Clone)]
pub struct FactCall {
    /// Line of the called name (or of the macro call that made the call).
    pub line: u32,
    /// How the compiler chose the function.
    pub dispatch: Dispatch,
    /// The trait of a trait method.
    pub via_trait: Option<String>,
    /// Made by a macro expansion (`line` is the macro call's).
    pub in_macro: bool,
    /// What it can run.
    pub targets: Vec<FactTarget>,
}

/// A function a call can run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FactTarget {
    /// Written in an audited file.
    InTree {
        /// File, relative to the audited root.
        file: String,
        /// Line of its name (inside the macro's definition for one a macro made, unless the
        /// name was passed to the macro).
        line: u32,
        /// Its name.
        name: String,
        /// The type of its `impl` or its trait, by name.
        owner: Option<String>,
        /// The compiler's path for it.
        path: String,
        /// For one a macro made: `file:line` of the macro call.
        made_by_macro: Option<String>,
    },
    /// Not in the audited files.
    Outside {
        /// The compiler's path for it.
        path: String,
    },
}

/// One compiled crate, for the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CrateResolution {
    /// The crate's name.
    pub krate: String,
    /// Its root file, relative to the audited root (absolute when outside it).
    pub root: String,
    /// Calls the compiler resolved in audited files.
    pub calls: u64,
}

/// The facts of a directory, keyed for lookup.
#[derive(Debug, Default)]
pub struct Facts {
    /// (file, line of the caller's name, called name) → its calls of that name, by line.
    calls: HashMap<(String, u32, String), Vec<FactCall>>,
    /// The crates the facts describe.
    pub crates: Vec<CrateResolution>,
    /// Audited files that hold at least one call the compiler resolved.
    pub files: HashSet<String>,
}

/// Why facts could not be read.
#[derive(Debug)]
pub struct FactsError(pub String);

/// Audited files by their canonical path, and by their path relative to the audited root, to
/// name what the compiler names.
pub struct FileNames {
    rel: HashMap<PathBuf, String>,
    rels: HashSet<String>,
}

impl FileNames {
    /// `(path as read, path relative to the root)` of every audited file.
    pub fn new<'a>(files: impl Iterator<Item = (&'a Path, &'a str)>) -> FileNames {
        let mut rel = HashMap::new();
        let mut rels = HashSet::new();
        for (p, r) in files {
            rels.insert(r.to_string());
            if let Ok(c) = std::fs::canonicalize(p) {
                rel.insert(c, r.to_string());
            }
        }
        FileNames { rel, rels }
    }
}

/// Canonical paths, computed once per distinct path.
struct Canon<'n> {
    names: &'n FileNames,
    seen: HashMap<String, Option<String>>,
    /// The working directory of the crate being read, with a trailing `/`.
    workdir: String,
}

impl Canon<'_> {
    /// The audited file a path of the facts names, if it is one: the same file, or the same
    /// path under the audited root as under the compiler's working directory (a copy of the
    /// tree, such as a directory of the kernel crate and one driver).
    fn rel(&mut self, file: &str) -> Option<String> {
        if let Some(r) = self.seen.get(file) {
            return r.clone();
        }
        let r = std::fs::canonicalize(file)
            .ok()
            .and_then(|c| self.names.rel.get(&c).cloned())
            .or_else(|| {
                let under = file.strip_prefix(self.workdir.as_str())?;
                self.names.rels.get(under).cloned()
            });
        self.seen.insert(file.to_string(), r.clone());
        r
    }

    fn target(&mut self, t: &errtrace_facts::Target) -> FactTarget {
        let name = t
            .path
            .rsplit("::")
            .next()
            .unwrap_or(&t.path)
            .trim_end_matches('>');
        let macro_call = t
            .made_by_macro
            .as_ref()
            .and_then(|m| Some((self.rel(&m.file)?, m.line)));
        let made_by_macro = macro_call.as_ref().map(|(file, line)| format!("{file}:{line}"));
        // A function a macro made where the macro is called: it is in the tree even when its
        // name is written in a macro defined elsewhere.
        let at =
            t.at.as_ref()
                .and_then(|at| Some((self.rel(&at.file)?, at.line)))
                .or(macro_call);
        match at {
            Some((file, line)) => FactTarget::InTree {
                file,
                line,
                name: name.to_string(),
                owner: t.owner.clone(),
                path: t.path.clone(),
                made_by_macro,
            },
            None => FactTarget::Outside { path: t.path.clone() },
        }
    }
}

impl Facts {
    /// Read every `*.json` of `dir` (the files `errtrace-rustc` wrote), keeping the calls made
    /// in audited files.
    pub fn load(dir: &Path, names: &FileNames) -> Result<Facts, FactsError> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| FactsError(format!("cannot read the facts directory {}: {e}", dir.display())))?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        if paths.is_empty() {
            return Err(FactsError(format!(
                "no facts in {}: build the tree with RUSTC=errtrace-rustc and ERRTRACE_FACTS_DIR set to it",
                dir.display()
            )));
        }
        let mut canon = Canon {
            names,
            seen: HashMap::new(),
            workdir: String::new(),
        };
        let mut facts = Facts::default();
        for path in paths {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| FactsError(format!("cannot read {}: {e}", path.display())))?;
            let krate: CrateFacts = serde_json::from_str(&text)
                .map_err(|e| FactsError(format!("{} is not errtrace-rustc facts: {e}", path.display())))?;
            if krate.format != FORMAT {
                return Err(FactsError(format!(
                    "{} has facts format {}, this audit reads {FORMAT}: rebuild with the matching errtrace-rustc",
                    path.display(),
                    krate.format
                )));
            }
            facts.add(krate, &mut canon);
        }
        for calls in facts.calls.values_mut() {
            calls.sort_by_key(|c| c.line);
        }
        facts.crates.sort_by(|a, b| a.krate.cmp(&b.krate));
        Ok(facts)
    }

    fn add(&mut self, krate: CrateFacts, canon: &mut Canon<'_>) {
        let workdir = format!("{}/", krate.workdir.trim_end_matches('/'));
        if workdir != canon.workdir {
            canon.workdir = workdir;
            canon.seen.clear();
        }
        let root = canon.rel(&krate.root).unwrap_or_else(|| krate.root.clone());
        let mut count = 0u64;
        for call in krate.calls {
            let (Some(caller_file), Some(at_file)) = (canon.rel(&call.caller.file), canon.rel(&call.at.file))
            else {
                continue;
            };
            // A call a macro made in another file than its caller's (an `include!`): not
            // one the audit's functions hold.
            if caller_file != at_file {
                continue;
            }
            count += 1;
            if !self.files.contains(&caller_file) {
                self.files.insert(caller_file.clone());
            }
            let targets = call.targets.iter().map(|t| canon.target(t)).collect();
            self.calls
                .entry((caller_file, call.caller.line, call.name))
                .or_default()
                .push(FactCall {
                    line: call.at.line,
                    dispatch: call.dispatch,
                    via_trait: call.via_trait,
                    in_macro: call.in_macro,
                    targets,
                });
        }
        self.crates.push(CrateResolution {
            krate: krate.krate,
            root,
            calls: count,
        });
    }

    /// The call of `name` in the function whose name is at `caller` (file, line), used at
    /// `line`: the last one at or before it, else the first after it (a value computed by a
    /// later statement is not what a `?` uses, but an iterator adapter's closure can be).
    /// Calls written in the source come before those a macro made on the same line (the
    /// `InitOk::new` of a `try_pin_init!` beside a `Subsystem::new`), and among them one whose
    /// function's path names `qualifier` (the type or module written before the name).
    pub fn call(
        &self,
        caller_file: &str,
        caller_line: u32,
        name: &str,
        line: u32,
        qualifier: Option<&str>,
    ) -> Option<&FactCall> {
        let calls = self
            .calls
            .get(&(caller_file.to_string(), caller_line, name.to_string()))?;
        let names = |c: &FactCall| {
            qualifier.is_some_and(|q| {
                c.targets.iter().any(|t| match t {
                    FactTarget::InTree { path, .. } | FactTarget::Outside { path } => path.contains(q),
                })
            })
        };
        pick(calls.iter().rev().filter(|c| c.line <= line), names)
            .or_else(|| pick(calls.iter().filter(|c| c.line > line), names))
    }
}

/// The first of `cands` written in the source that `names`, else the first written one, else
/// the first.
fn pick<'c>(
    cands: impl Iterator<Item = &'c FactCall>,
    names: impl Fn(&FactCall) -> bool,
) -> Option<&'c FactCall> {
    let cands: Vec<&FactCall> = cands.collect();
    let written = || cands.iter().copied().filter(|c| !c.in_macro);
    written()
        .find(|c| names(c))
        .or_else(|| written().next())
        .or_else(|| cands.first().copied())
}
