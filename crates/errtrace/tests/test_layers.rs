//! The core's layers import only downward (see the layer map at the top of `src/lib.rs`): each
//! source file's `crate::…` paths may name only modules of its own layer or below.

use std::path::Path;

/// Layer of each module file, bottom (0) to top (4).
const LAYERS: &[(&str, u8)] = &[
    // value
    ("error", 0),
    ("code", 0),
    ("errno_table", 0),
    ("policy::kind", 0),
    ("config", 0),
    ("platform", 0),
    ("sync", 0),
    ("raw", 0),
    ("snapshot", 1),
    // storage
    ("site", 1),
    ("recorder", 1),
    ("counters", 1),
    ("shard", 1),
    ("lifecycle", 1),
    ("probe", 1),
    ("unrecorded", 1),
    ("expect", 1),
    // decision
    ("policy::decide", 2),
    ("policy::classes", 2),
    ("policy::ratelimit", 2),
    // emission
    ("emit", 3),
    ("make", 3),
    ("sink", 3),
    ("record", 3),
    ("report", 3),
    // control/boundary and the public facade
    ("control", 4),
    ("control::query", 4),
    ("fault", 4),
    ("boundary", 4),
    ("trail", 4),
    ("testing", 4),
    ("vocabulary", 4),
    ("interop", 4),
    ("macros", 4),
    ("policy", 4),
    ("lib", 4),
    ("__private", 4),
];

fn layer_of(module: &str) -> Option<u8> {
    // The longest module path that prefixes `module`.
    LAYERS
        .iter()
        .filter(|(m, _)| module == *m || module.starts_with(&format!("{m}::")))
        .max_by_key(|(m, _)| m.len())
        .map(|(_, l)| *l)
}

fn module_of(file: &Path, src: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    rel.to_string_lossy().replace('/', "::")
}

/// The map entry that owns `module` (the longest entry that prefixes it).
fn owner_of(module: &str) -> Option<&'static str> {
    LAYERS
        .iter()
        .filter(|(m, _)| module == *m || module.starts_with(&format!("{m}::")))
        .max_by_key(|(m, _)| m.len())
        .map(|(m, _)| *m)
}

/// One `crate::…` path in the code (outside test items): the file's module, the map entry the
/// path names, the path, and where.
struct Use {
    module: String,
    target: &'static str,
    path: String,
    at: String,
}

/// Every `crate::…` path of a Rust file, read with a parser: `use` trees (grouped imports
/// `crate::{a, b::c}` included), paths in code and types, and `crate::…` tokens inside macro
/// calls; items under `#[cfg(test)]` (or `cfg(all(test, …))`) are left out: tests may reach
/// anything. Each path with its line.
fn crate_paths(text: &str) -> Vec<(String, usize)> {
    use syn::visit::Visit;
    struct Paths(Vec<(String, usize)>);
    fn is_test(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|a| {
            a.path().is_ident("cfg") && {
                let t = a
                    .meta
                    .require_list()
                    .map(|l| l.tokens.to_string())
                    .unwrap_or_default();
                t == "test" || t.starts_with("all (test")
            }
        })
    }
    fn use_tree(prefix: &str, t: &syn::UseTree, line: usize, out: &mut Vec<(String, usize)>) {
        match t {
            syn::UseTree::Path(p) => {
                let next = format!("{prefix}{}::", p.ident);
                use_tree(&next, &p.tree, line, out);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    use_tree(prefix, t, line, out);
                }
            }
            syn::UseTree::Name(n) => out.push((format!("{prefix}{}", n.ident), line)),
            syn::UseTree::Rename(r) => out.push((format!("{prefix}{}", r.ident), line)),
            syn::UseTree::Glob(_) => out.push((prefix.trim_end_matches("::").to_string(), line)),
        }
    }
    impl<'a> Visit<'a> for Paths {
        fn visit_item(&mut self, i: &'a syn::Item) {
            let attrs = match i {
                syn::Item::Mod(m) => &m.attrs,
                syn::Item::Fn(f) => &f.attrs,
                syn::Item::Impl(m) => &m.attrs,
                syn::Item::Use(u) => &u.attrs,
                syn::Item::Const(c) => &c.attrs,
                syn::Item::Static(c) => &c.attrs,
                _ => return syn::visit::visit_item(self, i),
            };
            if !is_test(attrs) {
                syn::visit::visit_item(self, i);
            }
        }
        fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
            let line = u.use_token.span.start().line;
            use_tree("", &u.tree, line, &mut self.0);
        }
        fn visit_path(&mut self, p: &'a syn::Path) {
            let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            if segs.first().is_some_and(|s| s == "crate") {
                let line = p.segments[0].ident.span().start().line;
                self.0.push((segs.join("::"), line));
            }
            syn::visit::visit_path(self, p);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // `crate :: a :: b` token runs inside a macro call's arguments.
            let toks: Vec<proc_macro2::TokenTree> = flatten(m.tokens.clone());
            let mut i = 0;
            while i < toks.len() {
                if matches!(&toks[i], proc_macro2::TokenTree::Ident(id) if id == "crate") {
                    let line = toks[i].span().start().line;
                    let mut path = String::from("crate");
                    let mut j = i + 1;
                    while j + 2 < toks.len() + 1
                        && matches!(toks.get(j), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ':')
                        && matches!(toks.get(j + 1), Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ':')
                    {
                        match toks.get(j + 2) {
                            Some(proc_macro2::TokenTree::Ident(id)) => {
                                path.push_str("::");
                                path.push_str(&id.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    if path != "crate" {
                        self.0.push((path, line));
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
        }
    }
    fn flatten(ts: proc_macro2::TokenStream) -> Vec<proc_macro2::TokenTree> {
        let mut out = vec![];
        for t in ts {
            match t {
                proc_macro2::TokenTree::Group(g) => out.extend(flatten(g.stream())),
                t => out.push(t),
            }
        }
        out
    }
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("not Rust: {e}"));
    let mut v = Paths(vec![]);
    v.visit_file(&file);
    v.0.into_iter()
        .filter_map(|(p, l)| p.strip_prefix("crate::").map(|p| (p.to_string(), l)))
        .collect()
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = vec![];
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Every `crate::…` path of the core's sources that names a module of the map.
fn uses() -> Vec<Use> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = vec![];
    for f in &rust_files(&src) {
        let module = module_of(f, &src);
        let text = std::fs::read_to_string(f).unwrap();
        for (path, line) in crate_paths(&text) {
            let target = path
                .split("::")
                .scan(String::new(), |acc, seg| {
                    if !acc.is_empty() {
                        acc.push_str("::");
                    }
                    acc.push_str(seg);
                    Some(acc.clone())
                })
                .filter_map(|m| LAYERS.iter().find(|(l, _)| *l == m).map(|(l, _)| *l))
                .last();
            if let Some(target) = target {
                out.push(Use {
                    module: module.clone(),
                    target,
                    path,
                    at: format!("{}:{line}", f.strip_prefix(&src).unwrap().display()),
                });
            }
        }
    }
    out
}

#[test]
fn layers_import_only_downward() {
    let uses = uses();
    let mut violations = vec![];
    for u in &uses {
        let own =
            layer_of(&u.module).unwrap_or_else(|| panic!("{}: not in the layer map", u.module));
        let theirs = layer_of(u.target).unwrap();
        if theirs > own {
            violations.push(format!(
                "{}: {} (layer {own}) uses crate::{} (layer {theirs})",
                u.at, u.module, u.path
            ));
        }
    }
    assert!(
        uses.len() > 50,
        "only {} paths checked: is the scan broken?",
        uses.len()
    );
    assert!(
        violations.is_empty(),
        "upward imports:\n{}",
        violations.join("\n")
    );
}

/// Import edges: from a module to the modules it uses, each with one place that uses it.
type Edges = std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>>;

/// A cycle of `edges`, as its steps with one place per edge, if there is one (a depth-first
/// search for a back edge).
fn find_cycle(edges: &Edges) -> Option<String> {
    use std::collections::BTreeSet;
    fn visit(
        m: &str,
        edges: &Edges,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut cycle = path[i..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if !done.insert(m.to_string()) {
            return None;
        }
        path.push(m.to_string());
        for next in edges.get(m).into_iter().flat_map(|e| e.keys()) {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|m| {
        let cycle = visit(m, edges, &mut vec![], &mut done)?;
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("{} -> {} ({})", w[0], w[1], edges[&w[0]][&w[1]]))
            .collect();
        Some(steps.join("\n"))
    })
}

/// No two modules of the map use each other, directly or through others (a module's own
/// children are part of it): each concept can be read, and changed, below the ones that use it.
#[test]
fn modules_import_no_cycles() {
    let mut edges = Edges::new();
    for u in uses() {
        let from = owner_of(&u.module).unwrap();
        if from != u.target {
            edges
                .entry(from.to_string())
                .or_default()
                .entry(u.target.to_string())
                .or_insert(u.at);
        }
    }
    if let Some(cycle) = find_cycle(&edges) {
        panic!("an import cycle:\n{cycle}");
    }
}

/// The kernel crates of the repository (the driver kit's glue, the demo, the peer, the KUnit
/// suite): no two of a crate's files use each other, directly or through others. A file is a
/// module of its crate (the crate root's `mod` lines are not uses); `crate::x::…` in file `y`
/// is an edge y → x.
#[test]
fn kernel_crates_import_no_cycles() {
    use std::collections::BTreeSet;
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernel");
    let mut checked = 0;
    for dir in ["kit/linux", "module", "peer", "kunit", "kit/template"] {
        let dir = kernel.join(dir);
        let files = rust_files(&dir);
        let names: BTreeSet<String> = files
            .iter()
            .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        let mut edges = Edges::new();
        for f in &files {
            let from = f.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(f).unwrap();
            for (path, line) in crate_paths(&text) {
                let to = path.split("::").next().unwrap().to_string();
                if to != from && names.contains(&to) {
                    edges
                        .entry(from.clone())
                        .or_default()
                        .entry(to)
                        .or_insert(format!(
                            "{}:{line}",
                            f.strip_prefix(&kernel).unwrap().display()
                        ));
                    checked += 1;
                }
            }
        }
        if let Some(cycle) = find_cycle(&edges) {
            panic!("an import cycle in {}:\n{cycle}", dir.display());
        }
    }
    assert!(
        checked > 10,
        "only {checked} uses between kernel files: is the scan broken?"
    );
}
