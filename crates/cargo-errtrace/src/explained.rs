//! Discards the crate explains: a comment next to one `let _ = f(…)` gives the reason `f` may
//! fail unheeded, which holds wherever `f` is discarded in that crate.

use std::collections::HashSet;

use crate::model::{CheckKind, Site, Target};
use crate::resolve::{FnId, Index};

/// The functions whose discarded result the crate explains: a comment next to one `let _ =
/// f(…)` says why `f` may fail unheeded (Rust binder: "`push_work` may fail if the process is
/// dead, but that's ok"), which holds for every discard of `f` in that crate, and for every
/// function whose errors are only `f`'s passed on (`push_work_if_looper` ends in
/// `self.process.push_work(work)`). By (crate root, name).
pub(crate) fn explained_discards<'a>(index: &Index<'a>) -> HashSet<(&'a str, &'a str)> {
    let mut explained: HashSet<(&'a str, &'a str)> = HashSet::new();
    for id in 0..index.fns.len() as FnId {
        let (Some(func), Some(file)) = (index.func(id), index.file_of(id)) else {
            continue;
        };
        for check in &func.checks {
            if let CheckKind::Discard {
                acknowledged: true,
                callee,
                ..
            } = &check.kind
            {
                explained.insert((file.crate_root.as_str(), callee.name()));
            }
        }
    }
    if explained.is_empty() {
        return explained;
    }
    // Pass-through functions, to a fixed point (each round adds at least one name).
    loop {
        let mut added = false;
        for id in 0..index.fns.len() as FnId {
            let (Some(func), Some(file)) = (index.func(id), index.file_of(id)) else {
                continue;
            };
            let key = (file.crate_root.as_str(), func.name.as_str());
            if explained.contains(&key) || !index.returns_result(id) {
                continue;
            }
            let exits: Vec<&Site> = func.sites.iter().filter(|s| !s.in_closure).collect();
            let passes_on = !exits.is_empty()
                && exits.iter().all(|s| match &s.target {
                    Target::Call(c) => explained.contains(&(key.0, c.name())),
                    _ => false,
                });
            if passes_on {
                explained.insert(key);
                added = true;
            }
        }
        if !added {
            return explained;
        }
    }
}
