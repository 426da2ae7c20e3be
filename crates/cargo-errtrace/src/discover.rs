//! Finding the `.rs` files under the audited path, and the crate and module each belongs to.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

pub(crate) mod mods;

/// Directories never entered.
const SKIP_DIRS: &[&str] = &["target", "node_modules"];

/// A source file to audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Absolute or as-given path to read.
    pub path: PathBuf,
    /// Path relative to the root, `/`-separated.
    pub rel: String,
    /// Crate name.
    pub crate_name: String,
    /// The crate's root directory, relative to the root (identifies the crate).
    pub crate_root: String,
    /// Module path from the crate root, derived from the file path.
    pub module: Vec<String>,
}

/// Why discovery failed.
#[derive(Debug)]
pub struct DiscoverError(pub String);

/// What discovery found.
#[derive(Debug, Default)]
pub struct Discovered {
    /// The `.rs` files, sorted by relative path.
    pub files: Vec<SourceFile>,
    /// Unreadable directory entries: (relative path, message).
    pub errors: Vec<(String, String)>,
    /// `.rs` paths that were not audited, and why (a symbolic link, which is not followed; a
    /// FIFO, socket or device): (relative path, reason).
    pub skipped: Vec<(String, String)>,
}

/// The files under `root` (a directory or a single `.rs` file).
pub fn discover(root: &Path) -> Result<Discovered, DiscoverError> {
    let meta =
        std::fs::metadata(root).map_err(|e| DiscoverError(format!("cannot read {}: {e}", root.display())))?;
    let mut errors = Vec::new();
    let mut skipped = Vec::new();
    let mut found: Vec<PathBuf> = Vec::new();
    let base: PathBuf;
    if meta.is_file() {
        base = root.parent().map(Path::to_path_buf).unwrap_or_default();
        found.push(root.to_path_buf());
    } else {
        base = root.to_path_buf();
        let walker = WalkDir::new(root)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| {
                if e.depth() == 0 || !e.file_type().is_dir() {
                    return true;
                }
                let name = e.file_name().to_string_lossy();
                !(name.starts_with('.') || SKIP_DIRS.contains(&name.as_ref()))
            });
        for entry in walker {
            match entry {
                Ok(e) => {
                    let rs = e.path().extension().is_some_and(|x| x == "rs");
                    if rs && e.file_type().is_file() {
                        found.push(e.into_path());
                    } else if rs && e.path_is_symlink() {
                        skipped.push((
                            rel_of(&base, e.path()),
                            "a symbolic link, not followed (audit its target's directory)".to_string(),
                        ));
                    } else if rs && !e.file_type().is_dir() {
                        skipped.push((
                            rel_of(&base, e.path()),
                            "not a regular file (a FIFO, socket or device)".to_string(),
                        ));
                    }
                }
                Err(e) => {
                    let p = e.path().map(|p| rel_of(&base, p)).unwrap_or_default();
                    errors.push((p, e.to_string()));
                }
            }
        }
    }
    found.sort();
    let mut crates = CrateCache::default();
    let mut files: Vec<SourceFile> = found
        .into_iter()
        .map(|path| {
            let rel = rel_of(&base, &path);
            let (crate_name, crate_dir, module) = crates.crate_and_module(&base, &path);
            let crate_root = rel_of(&base, &crate_dir);
            SourceFile {
                path,
                rel,
                crate_name,
                crate_root,
                module,
            }
        })
        .collect();
    // Files that are crates of their own (no manifest, no `lib.rs` above them): the `mod`
    // items of a root file make the files they name modules of the root's crate.
    let alone: Vec<PathBuf> = files
        .iter()
        .filter(|f| f.crate_root == f.rel)
        .map(|f| f.path.clone())
        .collect();
    let modules = mods::modules(&alone);
    let root_of: HashMap<PathBuf, (String, String)> = files
        .iter()
        .map(|f| (f.path.clone(), (f.crate_name.clone(), f.crate_root.clone())))
        .collect();
    for f in &mut files {
        if let Some((root, module)) = modules.get(&f.path) {
            if let Some((name, croot)) = root_of.get(root) {
                f.crate_name = name.clone();
                f.crate_root = croot.clone();
                f.module = module.clone();
            }
        }
    }
    skipped.sort();
    Ok(Discovered {
        files,
        errors,
        skipped,
    })
}

fn rel_of(base: &Path, path: &Path) -> String {
    let r = path.strip_prefix(base).unwrap_or(path);
    let s: Vec<String> = r
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    s.join("/")
}

#[derive(Default)]
struct CrateCache {
    /// Directory → crate name, for directories that are crate roots (`Cargo.toml` or `lib.rs`).
    roots: HashMap<PathBuf, Option<String>>,
}

impl CrateCache {
    /// Is `dir` a crate root? Returns its crate name.
    fn root_name(&mut self, dir: &Path) -> Option<String> {
        if let Some(v) = self.roots.get(dir) {
            return v.clone();
        }
        let manifest = dir.join("Cargo.toml");
        let v = if manifest.is_file() {
            Some(package_name(&manifest).unwrap_or_else(|| dir_name(dir)))
        } else {
            None
        };
        self.roots.insert(dir.to_path_buf(), v.clone());
        v
    }

    /// The crate and module path of `file`: the nearest ancestor with a `Cargo.toml` (module
    /// path relative to its `src/`), else the nearest ancestor (inside `base`) holding a
    /// `lib.rs` (the kernel's `rust/kernel/`), else the file itself is its crate.
    fn crate_and_module(&mut self, base: &Path, file: &Path) -> (String, PathBuf, Vec<String>) {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if !d.starts_with(base) {
                break;
            }
            if let Some(name) = self.root_name(d) {
                let rel = file.strip_prefix(d).unwrap_or(file);
                let rel = rel.strip_prefix("src").unwrap_or(rel);
                return (norm(&name), d.to_path_buf(), module_of(rel));
            }
            if d == base {
                break;
            }
            dir = d.parent();
        }
        let mut dir = file.parent();
        while let Some(d) = dir {
            if !d.starts_with(base) {
                break;
            }
            if d.join("lib.rs").is_file() {
                let rel = file.strip_prefix(d).unwrap_or(file);
                return (norm(&dir_name(d)), d.to_path_buf(), module_of(rel));
            }
            if d == base {
                break;
            }
            dir = d.parent();
        }
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        (norm(&stem), file.to_path_buf(), Vec::new())
    }
}

fn dir_name(d: &Path) -> String {
    d.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crate".into())
}

fn norm(s: &str) -> String {
    s.replace('-', "_")
}

fn package_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let v: toml::Value = toml::from_str(&text).ok()?;
    v.get("package")?.get("name")?.as_str().map(str::to_string)
}

/// `foo/bar.rs` → `[foo, bar]`; `foo/mod.rs` → `[foo]`; `lib.rs`/`main.rs` → `[]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut segs: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(last) = segs.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
        let at_root = segs.is_empty();
        if !(stem == "mod" || at_root && (stem == "lib" || stem == "main")) {
            segs.push(stem);
        }
    }
    segs.into_iter().map(|s| norm(&s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_from_paths() {
        assert_eq!(module_of(Path::new("lib.rs")), Vec::<String>::new());
        assert_eq!(module_of(Path::new("a/mod.rs")), vec!["a"]);
        assert_eq!(module_of(Path::new("a/b-c.rs")), vec!["a", "b_c"]);
    }
}
