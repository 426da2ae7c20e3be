//! Crates without a manifest, built the way rustc builds them: from a root file's `mod name;`
//! declarations (with `#[path = "…"]`). A kernel driver of several files has no `Cargo.toml`;
//! Kbuild compiles its root (`obj-$(CONFIG_…) += rust_binder.o`) and rustc follows the root's
//! `mod` items to the other files, which are modules of that one crate.

use proc_macro2::{TokenStream, TokenTree};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A `mod name;` item of a file, and its `#[path = "…"]` if it has one.
struct ModDecl {
    name: String,
    path_attr: Option<String>,
}

/// The top-level `mod name;` items of `text` (not `mod name { … }`, whose body is in the file).
fn mod_decls(text: &str) -> Vec<ModDecl> {
    let Ok(tokens) = TokenStream::from_str(crate::parse::strip_prelude(text)) else {
        return Vec::new();
    };
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut path_attr: Option<String> = None;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            // `#[path = "x.rs"]`
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = toks.get(i + 1) {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    if let (Some(TokenTree::Ident(id)), Some(TokenTree::Literal(lit))) =
                        (inner.first(), inner.get(2))
                    {
                        if id == "path" {
                            let s = lit.to_string();
                            path_attr = Some(s.trim_matches('"').to_string());
                        }
                    }
                    i += 2;
                    continue;
                }
            }
            TokenTree::Ident(id) if id == "mod" => {
                if let (Some(TokenTree::Ident(name)), Some(TokenTree::Punct(semi))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    if semi.as_char() == ';' {
                        out.push(ModDecl {
                            name: name.to_string().trim_start_matches("r#").to_string(),
                            path_attr: path_attr.take(),
                        });
                        i += 3;
                        continue;
                    }
                }
                path_attr = None;
            }
            TokenTree::Punct(p) if p.as_char() == ';' => path_attr = None,
            TokenTree::Group(_) => path_attr = None,
            _ => {}
        }
        i += 1;
    }
    out
}

/// The file a `mod` item of `file` names, among `known` files: `#[path]` relative to the
/// file's directory; otherwise `name.rs` or `name/mod.rs` next to a crate root or a `mod.rs`,
/// and under `stem/` for any other module file.
fn child_of(
    file: &Path,
    is_dir_owner: bool,
    name: &str,
    path_attr: Option<&str>,
    known: &HashSet<PathBuf>,
) -> Option<PathBuf> {
    let dir = file.parent()?;
    if let Some(p) = path_attr {
        let c = dir.join(p);
        return known.contains(&c).then_some(c);
    }
    let base = if is_dir_owner {
        dir.to_path_buf()
    } else {
        dir.join(file.file_stem()?)
    };
    [base.join(format!("{name}.rs")), base.join(name).join("mod.rs")]
        .into_iter()
        .find(|c| known.contains(c))
}

/// The file that the item `mod name;` (with its `#[path]`, if any) of `file` names, among
/// `known` files. A `mod.rs` (or a crate root) owns its directory; another module file owns
/// `stem/`. Whether a file is a root depends on who declares it, so a file other than
/// `mod.rs` is read as a module file first (`stem/name.rs`), then as a root (`name.rs`).
pub(crate) fn module_file(
    file: &Path,
    name: &str,
    path_attr: Option<&str>,
    known: &HashSet<PathBuf>,
) -> Option<PathBuf> {
    if file.file_name().is_some_and(|n| n == "mod.rs") {
        child_of(file, true, name, path_attr, known)
    } else {
        child_of(file, false, name, path_attr, known).or_else(|| child_of(file, true, name, path_attr, known))
    }
}

/// For the given files (each otherwise a crate of its own), the files that are modules of
/// another's crate: file → (crate root file, module path). Roots are the files no other file
/// declares; a file reached from two roots keeps the first (sorted) root.
pub fn modules(files: &[PathBuf]) -> HashMap<PathBuf, (PathBuf, Vec<String>)> {
    let known: HashSet<PathBuf> = files.iter().cloned().collect();
    // parent edges: child → (parent, name)
    let mut children: HashMap<PathBuf, Vec<(PathBuf, String)>> = HashMap::new();
    let mut declared: HashSet<PathBuf> = HashSet::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for d in mod_decls(&text) {
            if let Some(c) = module_file(f, &d.name, d.path_attr.as_deref(), &known) {
                if c != *f {
                    declared.insert(c.clone());
                    children.entry(f.clone()).or_default().push((c, d.name.clone()));
                }
            }
        }
    }
    let mut out = HashMap::new();
    let mut roots: Vec<&PathBuf> = files.iter().filter(|f| !declared.contains(*f)).collect();
    roots.sort();
    for root in roots {
        // Breadth-first from the root, each file once.
        let mut queue = vec![(root.clone(), Vec::<String>::new())];
        let mut seen: HashSet<PathBuf> = HashSet::from([root.clone()]);
        while let Some((f, module)) = queue.pop() {
            for (c, name) in children.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
                if !seen.insert(c.clone()) || out.contains_key(c) {
                    continue;
                }
                let mut m = module.clone();
                m.push(name.replace('-', "_"));
                out.insert(c.clone(), (root.clone(), m.clone()));
                queue.push((c.clone(), m));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mod_items_and_path_attributes() {
        let d = mod_decls("mod a;\n#[path = \"x/b.rs\"]\nmod b;\nmod c { fn f() {} }\npub(crate) mod d;\n");
        let names: Vec<(&str, Option<&str>)> = d
            .iter()
            .map(|m| (m.name.as_str(), m.path_attr.as_deref()))
            .collect();
        assert_eq!(names, vec![("a", None), ("b", Some("x/b.rs")), ("d", None)]);
    }
}
