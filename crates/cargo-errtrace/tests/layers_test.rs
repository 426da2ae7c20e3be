//! The audit's modules import only downward, and no two of them use each other (directly or
//! through others): each layer can be read, tested and changed below the ones that use it.
//!
//! ```text
//! front            cli, main, the crate root (the pipeline)
//!   |
//! output           output (human, JSON, SARIF)
//!   |
//! analysis         extract (per file: syntax to summary), resolve, explained, silent, chain (cross-file)
//!   |
//! model            model (the per-file summary), logging (what counts as a log), wrappers
//!   |
//! input, findings  config, discover, parse, cfgtest, testonly, findings, suppress
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Layer of each top-level module, bottom (0) to top (4).
const LAYERS: &[(&str, u8)] = &[
    ("config", 0),
    ("discover", 0),
    ("parse", 0),
    ("cfgtest", 0),
    ("testonly", 0),
    ("findings", 0),
    ("suppress", 0),
    ("model", 1),
    ("csource", 1),
    ("logging", 1),
    ("wrappers", 1),
    ("extract", 2),
    ("resolve", 2),
    ("explained", 2),
    ("silent", 2),
    ("chain", 2),
    ("output", 3),
    ("cli", 4),
    ("main", 4),
    ("lib", 4),
];

fn layer(m: &str) -> Option<u8> {
    LAYERS.iter().find(|(n, _)| *n == m).map(|(_, l)| *l)
}

/// `(from, to, where)` for every `crate::to…` path outside comments and test modules.
fn uses() -> Vec<(String, String, String)> {
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
        let rel = f.strip_prefix(&src).unwrap();
        let from = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap();
            let mut rest = line;
            while let Some(i) = rest.find("crate::") {
                let after = &rest[i + "crate::".len()..];
                let names: Vec<String> = if let Some(group) = after.strip_prefix('{') {
                    let inner = group.split('}').next().unwrap();
                    inner
                        .split(',')
                        .map(|s| s.trim().split("::").next().unwrap().to_string())
                        .collect()
                } else {
                    vec![after
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect()]
                };
                for to in names {
                    if layer(&to).is_some() && to != from {
                        out.push((from.clone(), to, format!("{}:{}", rel.display(), n + 1)));
                    }
                }
                rest = after;
            }
        }
    }
    out
}

#[test]
fn modules_import_only_downward() {
    let uses = uses();
    assert!(
        uses.len() > 30,
        "only {} uses found: is the scan broken?",
        uses.len()
    );
    let mut bad = vec![];
    for (from, to, at) in &uses {
        let own = layer(from).unwrap_or_else(|| panic!("{from}: not in the layer map"));
        let theirs = layer(to).unwrap();
        if theirs > own {
            bad.push(format!("{at}: {from} (layer {own}) uses {to} (layer {theirs})"));
        }
    }
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
}

#[test]
fn modules_import_no_cycles() {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (from, to, at) in uses() {
        edges.entry(from).or_default().entry(to).or_insert(at);
    }
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeMap<String, String>>,
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
    for m in edges.keys() {
        if let Some(cycle) = visit(m, &edges, &mut vec![], &mut done) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| format!("{} -> {} ({})", w[0], w[1], edges[&w[0]][&w[1]]))
                .collect();
            panic!("an import cycle:\n{}", steps.join("\n"));
        }
    }
}
