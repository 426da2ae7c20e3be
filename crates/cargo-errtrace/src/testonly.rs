//! Files compiled only for tests: a file is test code when a `mod` item naming it carries a
//! test-only `#[cfg(…)]` ([`crate::cfgtest`]), or when the module declaring it is test code.
//! Their functions reach no real boundary, so they take no part in the analysis, like the
//! `#[cfg(test)] mod tests { … }` blocks inside a file.

use crate::discover::mods::module_file;
use crate::model::FileSummary;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// Empties the functions and file-level findings of every test-only file of `summaries`.
/// Returns how many files were test code.
pub fn drop_test_files(summaries: &mut [FileSummary]) -> usize {
    let known: HashSet<PathBuf> = summaries.iter().map(|s| PathBuf::from(&s.path)).collect();
    // parent → [(child, declared test-only)]
    let mut children: HashMap<PathBuf, Vec<(PathBuf, bool)>> = HashMap::new();
    for s in summaries.iter() {
        let file = PathBuf::from(&s.path);
        for m in &s.mod_items {
            if let Some(c) = module_file(&file, &m.name, m.path.as_deref(), &known) {
                if c != file {
                    children.entry(file.clone()).or_default().push((c, m.test_only));
                }
            }
        }
    }
    // Test-only by declaration, then everything below such a file.
    let mut test: HashSet<PathBuf> = HashSet::new();
    let mut queue: Vec<PathBuf> = children
        .values()
        .flatten()
        .filter(|(_, t)| *t)
        .map(|(c, _)| c.clone())
        .collect();
    while let Some(f) = queue.pop() {
        if !test.insert(f.clone()) {
            continue;
        }
        queue.extend(children.get(&f).into_iter().flatten().map(|(c, _)| c.clone()));
    }
    for s in summaries.iter_mut() {
        if test.contains(&PathBuf::from(&s.path)) {
            s.functions.clear();
            s.findings.clear();
        }
    }
    test.len()
}
