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
    ("lifecycle", 1),
    ("probe", 1),
    ("dyndbg", 1),
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

#[test]
fn layers_import_only_downward() {
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
    let mut violations = vec![];
    let mut checked = 0;
    for f in &files {
        let module = module_of(f, &src);
        let own = layer_of(&module).unwrap_or_else(|| panic!("{module}: not in the layer map"));
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
                let path = path.trim_end_matches(':');
                let target = path
                    .split("::")
                    .scan(String::new(), |acc, seg| {
                        if !acc.is_empty() {
                            acc.push_str("::");
                        }
                        acc.push_str(seg);
                        Some(acc.clone())
                    })
                    .filter(|m| layer_of(m).is_some() && LAYERS.iter().any(|(l, _)| l == m))
                    .last();
                if let Some(t) = target {
                    checked += 1;
                    let theirs = layer_of(&t).unwrap();
                    if theirs > own {
                        violations.push(format!(
                            "{}:{}: {module} (layer {own}) uses crate::{path} (layer {theirs})",
                            f.strip_prefix(&src).unwrap().display(),
                            n + 1
                        ));
                    }
                }
                rest = &after[path.len()..];
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths checked: is the scan broken?"
    );
    assert!(
        violations.is_empty(),
        "upward imports:\n{}",
        violations.join("\n")
    );
}
