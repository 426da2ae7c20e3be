//! What the kernel's C functions do when they fail, read from the kernel tree the audited code
//! is built against: for each function the kernel crate or a driver calls through `bindings::`,
//! whether it can fail at all, with which codes, whether it fails only by allocating (the
//! allocator warns), and whether it prints on its failure paths — followed a few calls deep.
//!
//! Without a tree, the audit falls back to the name lists of [`crate::logging`]; each finding
//! says which knowledge decided its callee ([`Knowledge::describe`]).

mod body;
mod index;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use body::{Returns, Source};

/// How many calls deep a failure is followed into C.
const DEPTH: u32 = 4;

/// A kernel source tree: the directory that holds `rust/kernel/lib.rs` and `Kbuild`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelTree {
    /// Its root.
    pub root: PathBuf,
}

impl KernelTree {
    /// Whether `dir` is a kernel tree's root.
    pub fn at(dir: &Path) -> Option<KernelTree> {
        (dir.join("rust/kernel/lib.rs").is_file() && dir.join("Kbuild").is_file()).then(|| KernelTree {
            root: dir.to_path_buf(),
        })
    }

    /// The kernel tree `path` is inside (its nearest ancestor that is one).
    pub fn above(path: &Path) -> Option<KernelTree> {
        let abs = std::fs::canonicalize(path).ok()?;
        abs.ancestors().find_map(KernelTree::at)
    }

    /// The architecture the tree is configured for (its `.config`), x86 when it has none.
    fn arch(&self) -> &'static str {
        let config = std::fs::read_to_string(self.root.join(".config")).unwrap_or_default();
        const ARCHES: &[(&str, &str)] = &[
            ("CONFIG_ARM64=y", "arm64"),
            ("CONFIG_ARM=y", "arm"),
            ("CONFIG_RISCV=y", "riscv"),
            ("CONFIG_LOONGARCH=y", "loongarch"),
            ("CONFIG_UML=y", "um"),
        ];
        ARCHES
            .iter()
            .find(|(line, _)| config.lines().any(|l| l == *line))
            .map_or("x86", |(_, a)| a)
    }
}

/// What a C function does on failure, as far as its code shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// It returns no failure (`void`, or only `0`).
    CannotFail,
    /// Every failure is printed (by it, or by a callee), or is an allocation's.
    Prints,
    /// Some failures are printed, others not (their codes are in [`CFact::codes`]): the
    /// unprinted ones leave silently, so a call of it is a silent path's origin.
    PrintsSome,
    /// Every failure is an allocation's: the allocator warned.
    OnlyAllocates,
    /// Some failure is returned with nothing printed: its codes are in [`CFact::codes`].
    Silent,
    /// The code does not show (a callback, a value the reading cannot place, too deep).
    Unknown,
}

impl Verdict {
    /// Its name in output (`prints-some`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::CannotFail => "cannot-fail",
            Verdict::Prints => "prints",
            Verdict::PrintsSome => "prints-some",
            Verdict::OnlyAllocates => "only-allocates",
            Verdict::Silent => "silent",
            Verdict::Unknown => "unknown",
        }
    }
}

/// What the tree's code says about one C function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CFact {
    /// The verdict.
    pub verdict: Verdict,
    /// For [`Verdict::Silent`]: the codes it can fail with unprinted (`EBUSY`, `NULL`).
    pub codes: Vec<String>,
    /// Where it is defined (`drivers/char/misc.c:209`).
    pub defined_at: String,
}

/// The C knowledge of one audit: a fact per C function asked about.
#[derive(Debug, Default)]
pub struct Knowledge {
    facts: HashMap<String, CFact>,
    /// What reading the tree cost: files, bytes, definitions, seconds.
    pub cost: Cost,
}

/// What deriving the knowledge cost.
#[derive(Debug, Default, Clone, Copy)]
pub struct Cost {
    /// C files read for the index.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Definitions parsed.
    pub parsed: usize,
    /// Seconds in all.
    pub seconds: f64,
}

impl Knowledge {
    /// Read `tree` for the C functions `names` (as the Rust bindings name them).
    pub fn derive(tree: &KernelTree, names: impl IntoIterator<Item = String>) -> Knowledge {
        let t0 = std::time::Instant::now();
        let index = index::build(&tree.root, tree.arch());
        let mut deriver = Deriver {
            root: &tree.root,
            index: &index,
            bodies: HashMap::new(),
            texts: HashMap::new(),
            memo: HashMap::new(),
            parsed: 0,
        };
        let mut facts = HashMap::new();
        for name in names {
            if facts.contains_key(&name) {
                continue;
            }
            // A binding of a `static inline` function calls its `rust_helper_` wrapper.
            let helper = format!("rust_helper_{name}");
            let target = if index.by_name.contains_key(&helper) {
                helper
            } else {
                name.clone()
            };
            // A macro that only calls a function is told by that function's definition.
            let defined = index
                .by_name
                .get(&target)
                .or_else(|| index.aliases.get(&target).and_then(|t| index.by_name.get(t)))
                .and_then(|l| l.first());
            let Some(defined) = defined else { continue };
            let defined_at = format!("{}:{}", defined.file, defined.line);
            let (verdict, codes) = deriver.verdict(&target, DEPTH, &mut Vec::new());
            facts.insert(
                name,
                CFact {
                    verdict,
                    codes,
                    defined_at,
                },
            );
        }
        Knowledge {
            facts,
            cost: Cost {
                files: index.files,
                bytes: index.bytes,
                parsed: deriver.parsed,
                seconds: t0.elapsed().as_secs_f64(),
            },
        }
    }

    /// What the tree says about the C function `name`, if it has its definition.
    pub fn fact(&self, name: &str) -> Option<&CFact> {
        self.facts.get(name)
    }

    /// Whether the C function's failures need no log from its caller: it prints them, fails
    /// only by allocating, or cannot fail. `None` when the tree does not tell.
    pub fn reported(&self, name: &str) -> Option<bool> {
        match self.fact(name)?.verdict {
            Verdict::CannotFail | Verdict::Prints | Verdict::OnlyAllocates => Some(true),
            Verdict::Silent | Verdict::PrintsSome => Some(false),
            Verdict::Unknown => None,
        }
    }

    /// What the C function `name` does on failure, in words, with where that was read
    /// (`can fail with -EBUSY, prints nothing (drivers/char/misc.c:209)`).
    pub fn describe(&self, name: &str) -> Option<String> {
        let f = self.fact(name)?;
        let what = match f.verdict {
            Verdict::CannotFail => "cannot fail".to_string(),
            Verdict::Prints => "prints its failures".to_string(),
            Verdict::OnlyAllocates => "fails only by allocating (the allocator warns)".to_string(),
            Verdict::PrintsSome => format!("prints some of its failures, not {}", codes(&f.codes)),
            Verdict::Silent => format!("can fail with {}, prints nothing", codes(&f.codes)),
            Verdict::Unknown => {
                "fails in ways its C does not show (a callback, a computed value): taken as silent"
                    .to_string()
            }
        };
        Some(format!("{what} ({})", f.defined_at))
    }
}

/// In [`CFact::codes`]: besides the codes named, failures the reading could not place (a call
/// through an ops table, a computed value).
const CALLBACK: &str = "?";

/// `-EIO, -EBUSY, NULL`, and "what a callback returns" for [`CALLBACK`].
fn codes(codes: &[String]) -> String {
    let codes: Vec<String> = codes
        .iter()
        .map(|c| match c.as_str() {
            "NULL" => c.clone(),
            CALLBACK => "what a callback returns".to_string(),
            _ => format!("-{c}"),
        })
        .collect();
    codes.join(", ")
}

struct Deriver<'a> {
    root: &'a Path,
    index: &'a index::Index,
    bodies: HashMap<String, Option<body::Body>>,
    texts: HashMap<String, String>,
    memo: HashMap<String, (u32, Verdict, Vec<String>)>,
    parsed: usize,
}

impl Deriver<'_> {
    fn body(&mut self, name: &str) -> Option<&body::Body> {
        if !self.bodies.contains_key(name) {
            let read = self.read(name);
            self.bodies.insert(name.to_string(), read);
        }
        self.bodies.get(name).and_then(Option::as_ref)
    }

    fn read(&mut self, name: &str) -> Option<body::Body> {
        let Some(loc) = self.index.by_name.get(name).and_then(|l| l.first()).cloned() else {
            // A macro that only calls a function fails as that function does.
            let target = self.index.aliases.get(name)?;
            return self.index.by_name.contains_key(target).then(|| body::Body {
                returns: Returns::Errno,
                failures: vec![body::Failure {
                    source: Source::Callee(target.clone()),
                    printed: false,
                }],
            });
        };
        if !self.texts.contains_key(&loc.file) {
            let text = std::fs::read(self.root.join(&loc.file)).ok()?;
            self.texts
                .insert(loc.file.clone(), String::from_utf8_lossy(&text).into_owned());
        }
        let text = self.texts.get(&loc.file)?;
        let def = index::definition_text(text, loc.offset)?;
        self.parsed += 1;
        body::read(def)
    }

    /// The verdict on `name`, following callees `depth` more calls.
    fn verdict(&mut self, name: &str, depth: u32, stack: &mut Vec<String>) -> (Verdict, Vec<String>) {
        if let Some((d, v, c)) = self.memo.get(name) {
            if *d >= depth || !matches!(v, Verdict::Unknown) {
                return (*v, c.clone());
            }
        }
        if stack.iter().any(|s| s == name) {
            return (Verdict::Unknown, Vec::new());
        }
        let Some(body) = self.body(name).cloned() else {
            return (Verdict::Unknown, Vec::new());
        };
        stack.push(name.to_string());
        let result = self.judge(&body, depth, stack);
        stack.pop();
        self.memo
            .insert(name.to_string(), (depth, result.0, result.1.clone()));
        result
    }

    fn judge(&mut self, body: &body::Body, depth: u32, stack: &mut Vec<String>) -> (Verdict, Vec<String>) {
        if matches!(body.returns, Returns::Void) {
            return (Verdict::CannotFail, Vec::new());
        }
        if matches!(body.returns, Returns::Other) {
            return (Verdict::Unknown, Vec::new());
        }
        let mut silent: Vec<String> = Vec::new();
        let (mut printed, mut alloc, mut unknown) = (false, false, false);
        for f in &body.failures {
            // A misuse of the arguments is no failure of a well-formed call, printed or not.
            if matches!(f.source, Source::Precondition(_)) {
                continue;
            }
            if f.printed {
                printed = true;
                continue;
            }
            match &f.source {
                Source::Code(c) if c == "ENOMEM" => alloc = true,
                // A deferral or a restart is handed back on purpose (the audit's rule for
                // Rust code too): no failure to print.
                Source::Code(c) if crate::model::DELIBERATE_CODES.contains(&c.as_str()) => {}
                Source::Code(c) => silent.push(c.clone()),
                Source::Null => silent.push("NULL".to_string()),
                Source::Unknown => unknown = true,
                Source::Precondition(_) => {}
                Source::Callee(g) | Source::CalleeErrPtr(g) => {
                    let err_ptr = matches!(f.source, Source::CalleeErrPtr(_));
                    if body::is_allocator(g) {
                        alloc = true;
                        continue;
                    }
                    if depth == 0 {
                        unknown = true;
                        continue;
                    }
                    let (v, codes) = self.verdict(g, depth - 1, stack);
                    match v {
                        Verdict::CannotFail => {}
                        Verdict::Prints => printed = true,
                        Verdict::OnlyAllocates => alloc = true,
                        Verdict::PrintsSome => {
                            printed = true;
                            silent.extend(codes.into_iter().filter(|c| !(err_ptr && c == "NULL")))
                        }
                        Verdict::Silent => {
                            silent.extend(codes.into_iter().filter(|c| !(err_ptr && c == "NULL")))
                        }
                        Verdict::Unknown => unknown = true,
                    }
                }
            }
        }
        silent.sort();
        silent.dedup();
        // Codes named, and failures through a callback besides: said so.
        if !silent.is_empty() && unknown {
            silent.push(CALLBACK.to_string());
        }
        if !silent.is_empty() && printed {
            (Verdict::PrintsSome, silent)
        } else if !silent.is_empty() {
            (Verdict::Silent, silent)
        } else if unknown {
            (Verdict::Unknown, Vec::new())
        } else if printed {
            (Verdict::Prints, Vec::new())
        } else if alloc {
            (Verdict::OnlyAllocates, Vec::new())
        } else {
            (Verdict::CannotFail, Vec::new())
        }
    }
}

#[cfg(test)]
mod tests;
