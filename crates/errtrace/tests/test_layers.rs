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

/// One `crate::…` path in the code (not in comments or test modules): the file's module, the
/// map entry the path names, the path, and where.
struct Use {
    module: String,
    target: &'static str,
    path: String,
    at: String,
}

/// Every `crate::…` path of the core's sources that names a module of the map.
fn uses() -> Vec<Use> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    let mut dirs = vec![src.clone()];
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
    let mut out = vec![];
    for f in &files {
        let module = module_of(f, &src);
        let text = std::fs::read_to_string(f).unwrap();
        // Test modules may reach anything.
        let code = text.split("#[cfg(all(test").next().unwrap();
        let code = code.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            let mut rest = line;
            while let Some(i) = rest.find("crate::") {
                let after = &rest[i + "crate::".len()..];
                let path: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let path = path.trim_end_matches(':').to_string();
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
                rest = &after[path.len()..];
                if let Some(target) = target {
                    out.push(Use {
                        module: module.clone(),
                        target,
                        path,
                        at: format!("{}:{}", f.strip_prefix(&src).unwrap().display(), n + 1),
                    });
                }
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

/// No two modules of the map use each other, directly or through others (a module's own
/// children are part of it): each concept can be read, and changed, below the ones that use it.
#[test]
fn modules_import_no_cycles() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut edges: BTreeMap<&str, BTreeMap<&str, String>> = BTreeMap::new();
    for u in uses() {
        let from = owner_of(&u.module).unwrap();
        if from != u.target {
            edges
                .entry(from)
                .or_default()
                .entry(u.target)
                .or_insert(u.at);
        }
    }
    // Depth-first search for a back edge; report the cycle with one place per edge.
    fn visit<'a>(
        m: &'a str,
        edges: &BTreeMap<&'a str, BTreeMap<&'a str, String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            let mut cycle = path[i..].to_vec();
            cycle.push(m);
            return Some(cycle);
        }
        if !done.insert(m) {
            return None;
        }
        path.push(m);
        for next in edges.get(m).into_iter().flat_map(|e| e.keys()) {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for m in edges.keys() {
        let mut path = vec![];
        if let Some(cycle) = visit(m, &edges, &mut path, &mut done) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], edges[w[0]][w[1]]))
                .collect();
            panic!("an import cycle:\n{}", steps.join("\n"));
        }
    }
}
