//! What explains an error path without a log line at the place itself: a function that logs
//! every failure itself has nothing left to lose when its result is dropped, and a callee that
//! reports its own failure (an allocation, a C function that prints). A comment explains only
//! the discard it sits on (`extract`'s job).

use std::collections::HashSet;

use crate::logging::Names;
use crate::model::{Callee, Target};
use crate::resolve::{FnId, Index, Resolution};

/// The in-tree functions that log every failure themselves: each error exit has a log attached
/// or before it, is an allocation, or passes on the error of a callee that reports its own
/// failure or is such a function (Tyr's `pt_unmap`, whose two error returns each follow a
/// `dev_err!`). Dropping such a function's result loses no message. A function with no error
/// exit the audit sees is not one: a `?` on a variable is not followed.
pub(crate) fn logs_every_failure(index: &Index<'_>, names: &Names) -> HashSet<FnId> {
    let mut set: HashSet<FnId> = HashSet::new();
    grow(index, &mut set, |id, set| {
        if !index.returns_result(id) {
            return None;
        }
        let func = index.func(id)?;
        let all = !func.sites.is_empty()
            && func.sites.iter().all(|s| {
                if s.attached || s.allocation {
                    return true;
                }
                match &s.target {
                    Target::Made => s.before || s.quiet_errno(),
                    Target::OriginFn(..) => false,
                    Target::Call(callee) => {
                        let r = index.resolve(callee, id, s.pos.line);
                        if reported_by_callee(index, names, callee, &r, id) {
                            return true;
                        }
                        match r {
                            Resolution::Resolved(t) => set.contains(&t),
                            Resolution::Many(ts) => ts.iter().all(|t| set.contains(t)),
                            _ => false,
                        }
                    }
                }
            });
        all.then_some(id)
    });
    set
}

/// Adds to `set` what `step` gives for each function, round after round, until a round adds
/// nothing (each round adds at least one key, so this ends).
fn grow<K: Eq + std::hash::Hash>(
    index: &Index<'_>,
    set: &mut HashSet<K>,
    mut step: impl FnMut(FnId, &HashSet<K>) -> Option<K>,
) {
    loop {
        let mut added = false;
        for id in 0..index.fns.len() as FnId {
            if let Some(k) = step(id, set) {
                added |= set.insert(k);
            }
        }
        if !added {
            return;
        }
    }
}

/// Does the called function report its own failure (an allocation)? By the name as written
/// (`KBox::new(…)`), or by every in-tree function the call resolves to (`numbers.push(…)` on
/// a `KVec`).
pub(crate) fn reported_by_callee(
    index: &Index,
    names: &Names,
    callee: &Callee,
    resolution: &Resolution,
    caller: FnId,
) -> bool {
    if let Callee::Path(segs) = callee {
        let owner = segs
            .len()
            .checked_sub(2)
            .and_then(|i| segs.get(i))
            .map(String::as_str);
        if names.is_reported_by_callee(owner, callee.name()) {
            return true;
        }
        // As written, and with its first segment's `use` followed (`Registration::new` after
        // `use kernel::driver::Registration`).
        let written: Vec<&str> = segs.iter().map(String::as_str).collect();
        if names.c_side_prints(&written) || names.c_side_prints(&index.expand_use(segs, caller)) {
            return true;
        }
    }
    if let Callee::Method(m) | Callee::SelfMethod(m) | Callee::OnValueOf(_, m) = callee {
        if names.c_side_prints(&[m.as_str()]) {
            return true;
        }
    }
    let targets: &[FnId] = match resolution {
        Resolution::Resolved(t) => std::slice::from_ref(t),
        Resolution::Many(ts) => ts,
        _ => return false,
    };
    !targets.is_empty()
        && targets.iter().all(|&t| {
            index
                .func(t)
                .is_some_and(|f| names.is_reported_by_callee(f.owner.as_deref(), &f.name))
        })
}
