//! The cross-file analysis: origins, hops, boundaries and silent chains; the deferred checks.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::findings::{BoundaryInfo, ChainStep, Finding, Kind};
use crate::logging::Names;
use crate::model::{Boundary, CheckKind, FileSummary, How, Site, Target};
use crate::resolve::{FnId, Index, Resolution};

/// The output of the analysis: findings (suppressions applied) and how many were suppressed.
pub struct Analysis {
    /// Findings, unsorted.
    pub findings: Vec<Finding>,
    /// Findings hidden by suppression comments.
    pub suppressed: u64,
    /// Discards explained by a comment next to them (not reported).
    pub acknowledged: u64,
    /// Number of functions.
    pub functions: u64,
    /// Number of boundary functions.
    pub boundaries: u64,
}

struct Origin {
    site: u32,
    what: String,
    /// An overflow or conversion guard (see `extract::guard`).
    guard: bool,
}

/// Run the whole-tree analysis over the summaries.
pub fn analyse(files: &[FileSummary], names: &Names) -> Analysis {
    let index = Index::new(files);
    let n = index.fns.len();
    let mut findings = Vec::new();
    let mut suppressed = 0u64;
    let mut acknowledged = 0u64;

    // Crates that are no_std or kernel crates, by crate root.
    let kernelish: HashSet<&str> = files
        .iter()
        .filter(|f| f.no_std || f.uses_kernel)
        .map(|f| f.crate_root.as_str())
        .collect();

    // `extern "C"` functions a crate stores in a `file_operations` member: user-space entries.
    // A DRM driver's ioctl handlers: (crate, type, method).
    let drm_ioctls: HashSet<(&str, &str, &str)> = files
        .iter()
        .flat_map(|f| {
            f.drm_ioctls
                .iter()
                .filter_map(|e| e.split_once("::"))
                .map(|(owner, name)| (f.crate_root.as_str(), owner, name))
        })
        .collect();
    let user_entries: HashSet<(&str, &str)> = files
        .iter()
        .flat_map(|f| f.user_entries.iter().map(|e| (f.crate_root.as_str(), e.as_str())))
        .collect();
    let mut kinds: Vec<Option<Boundary>> = vec![None; n];
    // Crates written against the kernel crate: there an `Option` made from a `Result` with
    // `.ok()` drops an errno (elsewhere it is the everyday conversion, `s.parse().ok()`).
    let kernel_crates: HashSet<&str> = files
        .iter()
        .filter(|f| f.uses_kernel)
        .map(|f| f.crate_root.as_str())
        .collect();

    let self_logging = crate::explained::logs_every_failure(&index, names);

    let mut edges: Vec<Vec<(FnId, u32)>> = vec![Vec::new(); n];
    let mut origins: Vec<Vec<Origin>> = (0..n).map(|_| Vec::new()).collect();
    let mut boundaries: Vec<FnId> = Vec::new();

    for id in 0..n as FnId {
        let (Some(func), Some(file)) = (index.func(id), index.file_of(id)) else {
            continue;
        };
        let returns_result = index.is_result(&func.ret);
        let ioctl = func.boundary.is_none()
            && func
                .owner
                .as_deref()
                .is_some_and(|o| drm_ioctls.contains(&(file.crate_root.as_str(), o, func.name.as_str())));
        if let Some(kind) = func.boundary.or(ioctl.then_some(Boundary::DrmIoctl)) {
            let registered = kind == Boundary::Exported
                && user_entries.contains(&(file.crate_root.as_str(), func.name.as_str()));
            if let Some(k) = kinds.get_mut(id as usize) {
                *k = Some(if registered { Boundary::FileOp } else { kind });
            }
            boundaries.push(id);
        }
        for (si, site) in func.sites.iter().enumerate() {
            if site.how != How::Try && !returns_result {
                continue;
            }
            let accepted = file.suppressions.allows(site.pos.line, Kind::SilentChain);
            match &site.target {
                Target::Made | Target::OriginFn(_) => {
                    // A log earlier in the block is about an error made here (`pr_err!(…);
                    // return Err(EINVAL)`), not about one a call returns after it: flow, not
                    // presence (a `dev_info!` at the top of a probe logs none of its `?`s).
                    if site.attached || site.before && matches!(site.target, Target::Made) {
                        continue;
                    }
                    // An allocation's failure: the allocator warned (the kernel's rule, which
                    // checkpatch enforces as "unnecessary out of memory message"), whether the
                    // source says `ENOMEM` or checks a C allocator's null.
                    if site.allocation || site.quiet_errno() {
                        continue;
                    }
                    let what = match &site.target {
                        Target::OriginFn(f) => format!("error from `{f}(…)`"),
                        _ => made_text(site),
                    };
                    if accepted {
                        suppressed += 1;
                        continue;
                    }
                    if let Some(o) = origins.get_mut(id as usize) {
                        o.push(Origin {
                            site: si as u32,
                            what,
                            guard: site.guard,
                        });
                    }
                }
                // The callee reports its own failure (an allocation): not a silent origin,
                // and its in-tree body is not followed.
                // A deferral handed back on purpose (`if e == EPROBE_DEFER { return Err(e) }`).
                Target::Call(_) if site.quiet_errno() => {}
                Target::Call(callee) => match index.resolve(callee, id) {
                    r if crate::explained::reported_by_callee(&index, names, callee, &r, id) => {}
                    // `?` on a call outside the tree that allocates with GFP flags: the
                    // allocator reports its failure.
                    Resolution::NotFound | Resolution::Ambiguous(_) if site.allocation => {}
                    r @ (Resolution::Resolved(_) | Resolution::Many(_)) => {
                        let targets = match r {
                            Resolution::Resolved(t) => vec![t],
                            Resolution::Many(ts) => ts,
                            _ => Vec::new(),
                        };
                        if site.attached {
                            continue;
                        }
                        if accepted {
                            suppressed += 1;
                            continue;
                        }
                        for t in targets {
                            let Some(tf) = index.func(t) else { continue };
                            if tf.ret.is_option() || site.how != How::Try && !index.is_result(&tf.ret) {
                                continue;
                            }
                            // The subsystem prints what this callback returns: the adapter
                            // that calls it hands on a reported error.
                            if crate::model::subsystem_prints(tf) {
                                continue;
                            }
                            if let Some(e) = edges.get_mut(id as usize) {
                                e.push((t, si as u32));
                            }
                            // An initialiser passed where `t` takes one (`data: impl
                            // PinInit<T, E>`): `t` runs it, and its error leaves here too.
                            for (pos, arg) in &site.init_args {
                                if !tf.init_params.contains(pos) {
                                    continue;
                                }
                                let inits = match index.resolve(arg, id) {
                                    Resolution::Resolved(a) => vec![a],
                                    Resolution::Many(a) => a,
                                    _ => Vec::new(),
                                };
                                if let Some(e) = edges.get_mut(id as usize) {
                                    e.extend(inits.into_iter().map(|a| (a, si as u32)));
                                }
                            }
                        }
                    }
                    r @ (Resolution::NotFound | Resolution::Ambiguous(_)) => {
                        // Returned or the tail: the function returns a `Result`, so the call's
                        // value is that `Result`, and its error leaves as with `?`.
                        if site.attached {
                            continue;
                        }
                        if accepted {
                            suppressed += 1;
                            continue;
                        }
                        let what = match r {
                            Resolution::Ambiguous(k) => {
                                format!(
                                    "error from `{}` ({k} in-tree candidates, not resolved)",
                                    callee.display()
                                )
                            }
                            _ => format!("error from `{}` (outside the analysed tree)", callee.display()),
                        };
                        if let Some(o) = origins.get_mut(id as usize) {
                            o.push(Origin {
                                site: si as u32,
                                what,
                                guard: site.guard,
                            });
                        }
                    }
                },
            }
        }

        // Deferred checks.
        for check in &func.checks {
            let (kind, message) = match &check.kind {
                CheckKind::Discard {
                    form,
                    callee,
                    is_result,
                    ..
                } => {
                    let in_tree = match index.resolve(callee, id) {
                        // The callee logged its failure already: nothing is lost.
                        Resolution::Resolved(t) if self_logging.contains(&t) => continue,
                        Resolution::Resolved(t) if index.returns_result(t) => Some(format!(
                            "in-tree `{}`",
                            index.func(t).map(|f| f.display.as_str()).unwrap_or("")
                        )),
                        _ => None,
                    };
                    let listed = names.discard.contains(callee.name());
                    match (in_tree, listed) {
                        (Some(what), _) => (
                            Kind::Discarded,
                            format!("`{form}` throws away the Result of {what}"),
                        ),
                        (None, true) => (
                            Kind::Discarded,
                            format!(
                                "`{form}` throws away the Result of `{}` (listed in discard_functions)",
                                callee.display()
                            ),
                        ),
                        (None, false) if *is_result => (
                            Kind::Discarded,
                            format!("`{form}` throws away the Result of `{}`", callee.display()),
                        ),
                        _ => continue,
                    }
                }
                CheckKind::UnwrapOr { method, .. }
                    if method == "ok" && !kernel_crates.contains(file.crate_root.as_str()) =>
                {
                    continue
                }
                CheckKind::UnwrapOr { method, callee } => {
                    let resolution = index.resolve(callee, id);
                    // A callee that reports its own failure (an allocation: the allocator
                    // warns) loses nothing when its error becomes `None` or a default.
                    if crate::explained::reported_by_callee(&index, names, callee, &resolution, id) {
                        continue;
                    }
                    // The failing function: resolved, or any of several of that name in the
                    // crate when every one returns `Result` (`alloc.reserve_existing(…)` on a
                    // range allocator with an array and a tree implementation).
                    let what = match resolution {
                        Resolution::Resolved(t) if index.returns_result(t) => {
                            index.func(t).map(|f| f.display.clone()).unwrap_or_default()
                        }
                        Resolution::Ambiguous(_) | Resolution::Many(_) => {
                            match index.all_in_crate_return_result(callee.name(), id) {
                                Some(c) if c.len() > 1 => {
                                    format!("{} (any of {} in-tree functions)", callee.display(), c.len())
                                }
                                _ => continue,
                            }
                        }
                        _ => continue,
                    };
                    let message = if method == "ok" {
                        format!("`.ok()` turns the error of in-tree `{what}` into `None` without logging it")
                    } else {
                        format!("`.{method}(…)` replaces the error of in-tree `{what}` without logging it")
                    };
                    (Kind::Swallowed, message)
                }
                CheckKind::Unwrap { method, callee } => match index.resolve(callee, id) {
                    Resolution::Resolved(t) if index.returns_result(t) => (
                        Kind::Panic,
                        format!(
                            "`.{method}()` panics when in-tree `{}` fails",
                            index.func(t).map(|f| f.display.as_str()).unwrap_or("")
                        ),
                    ),
                    _ if kernelish.contains(file.crate_root.as_str()) => (
                        Kind::Panic,
                        format!(
                            "`.{method}()` on `{}` in a no_std/kernel crate panics on failure",
                            callee.display()
                        ),
                    ),
                    _ => continue,
                },
                CheckKind::PanicMacro(m) => {
                    if !returns_result {
                        continue;
                    }
                    (
                        Kind::Panic,
                        format!("`{m}!` in a function that returns Result: return an error instead"),
                    )
                }
            };
            if file.suppressions.allows(check.pos.line, kind) {
                suppressed += 1;
                continue;
            }
            if let CheckKind::Discard {
                acknowledged: true, ..
            } = &check.kind
            {
                acknowledged += 1;
                continue;
            }
            findings.push(Finding {
                kind,
                file: file.path.clone(),
                line: check.pos.line,
                column: check.pos.column,
                function: func.display.clone(),
                message,
                chain: Vec::new(),
                boundary: None,
                also_reaches: Vec::new(),
                guard: false,
            });
        }
    }

    // Local findings.
    for f in files {
        for finding in &f.findings {
            if f.suppressions.allows(finding.line, finding.kind) {
                suppressed += 1;
            } else {
                findings.push(finding.clone());
            }
        }
    }

    // Silent chains: from every boundary, follow unlogged hops breadth-first; every unlogged
    // origin in a reached function is one finding per (origin, boundary).
    let mut stamp: Vec<u32> = vec![u32::MAX; n];
    let mut parent: Vec<(FnId, u32)> = vec![(FnId::MAX, 0); n];
    let mut queue: VecDeque<FnId> = VecDeque::new();
    for (bi, &b) in boundaries.iter().enumerate() {
        let mark = bi as u32;
        if let Some(s) = stamp.get_mut(b as usize) {
            *s = mark;
        }
        queue.clear();
        queue.push_back(b);
        while let Some(f) = queue.pop_front() {
            for o in origins.get(f as usize).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(finding) = chain_finding(&index, &kinds, &parent, &edges, b, f, o) {
                    findings.push(finding);
                }
            }
            for &(t, site) in edges.get(f as usize).map(Vec::as_slice).unwrap_or(&[]) {
                let ti = t as usize;
                if stamp.get(ti).is_some_and(|s| *s != mark) {
                    stamp[ti] = mark;
                    parent[ti] = (f, site);
                    queue.push_back(t);
                }
            }
        }
    }

    Analysis {
        findings: once_per_origin(findings),
        suppressed,
        acknowledged,
        functions: n as u64,
        boundaries: boundaries.len() as u64,
    }
}

/// One silent-chain finding per origin: the one with the shortest chain (its nearest boundary;
/// a driver's callback before the subsystem adapter that calls it), naming the other
/// boundaries it reaches in `also_reaches`. One unlogged origin is one thing to fix. A boundary
/// where nothing reaches user space comes before an entry from user space, whatever the length:
/// an errno that is also a system call's result is still lost on the other way.
fn once_per_origin(findings: Vec<Finding>) -> Vec<Finding> {
    // Groups in order of first appearance; other findings keep their places.
    let mut slots: Vec<Vec<Finding>> = Vec::new();
    let mut group_of: HashMap<(String, u32, u32), usize> = HashMap::new();
    for f in findings {
        if f.kind != Kind::SilentChain {
            slots.push(vec![f]);
            continue;
        }
        let key = (f.file.clone(), f.line, f.column);
        match group_of.get(&key) {
            Some(&g) => {
                if let Some(v) = slots.get_mut(g) {
                    v.push(f);
                }
            }
            None => {
                group_of.insert(key, slots.len());
                slots.push(vec![f]);
            }
        }
    }
    slots
        .into_iter()
        .filter_map(|mut group| {
            let nearest = (0..group.len()).min_by_key(|&i| {
                let to_user = group[i].boundary.as_ref().is_some_and(|b| b.user_space);
                (to_user, group[i].chain.len())
            })?;
            let mut kept = group.swap_remove(nearest);
            for other in group {
                if let Some(b) = other.boundary {
                    if !kept.also_reaches.contains(&b.function) {
                        kept.also_reaches.push(b.function);
                    }
                }
            }
            kept.also_reaches.sort();
            Some(kept)
        })
        .collect()
}

fn made_text(site: &Site) -> String {
    let what = match &site.errno {
        Some(e) => format!("error {e}"),
        None => "error".to_string(),
    };
    match site.how {
        How::Try => format!("{what} made here and passed on with `?`"),
        How::Return => format!("{what} made here and returned"),
        How::Tail => format!("{what} made here and returned as the tail expression"),
        How::Rethrow => "error re-thrown here".to_string(),
    }
}

fn chain_finding(
    index: &Index<'_>,
    kinds: &[Option<Boundary>],
    parent: &[(FnId, u32)],
    edges: &[Vec<(FnId, u32)>],
    boundary: FnId,
    at: FnId,
    o: &Origin,
) -> Option<Finding> {
    let func = index.func(at)?;
    let file = index.file_of(at)?;
    let site = func.sites.get(o.site as usize)?;
    let mut chain = vec![ChainStep {
        file: file.path.clone(),
        line: site.pos.line,
        function: func.display.clone(),
        also_at: Vec::new(),
    }];
    let mut cur = at;
    let mut guard = 0usize;
    while cur != boundary {
        let (p, s) = *parent.get(cur as usize)?;
        let pf = index.func(p)?;
        let pfile = index.file_of(p)?;
        let ps = pf.sites.get(s as usize)?;
        // The parent's other unlogged calls of the same function.
        let mut also_at: Vec<u32> = edges
            .get(p as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter(|(t, other)| *t == cur && *other != s)
            .filter_map(|(_, other)| pf.sites.get(*other as usize).map(|x| x.pos.line))
            .filter(|l| *l != ps.pos.line)
            .collect();
        also_at.sort_unstable();
        also_at.dedup();
        chain.push(ChainStep {
            file: pfile.path.clone(),
            line: ps.pos.line,
            function: pf.display.clone(),
            also_at,
        });
        cur = p;
        guard += 1;
        if guard > index.fns.len() {
            return None;
        }
    }
    let bf = index.func(boundary)?;
    let kind = (*kinds.get(boundary as usize)?)?;
    let hops = chain.len() - 1;
    let message = if hops == 0 {
        format!(
            "{}, leaves {} `{}` without a log line",
            o.what,
            kind.describe(),
            bf.display
        )
    } else {
        format!(
            "{} reaches {} `{}` through {hops} unlogged hop{} without a log line",
            o.what,
            kind.describe(),
            bf.display,
            if hops == 1 { "" } else { "s" }
        )
    };
    Some(Finding {
        kind: Kind::SilentChain,
        file: file.path.clone(),
        line: site.pos.line,
        column: site.pos.column,
        function: func.display.clone(),
        message,
        chain,
        boundary: Some(BoundaryInfo {
            function: bf.display.clone(),
            kind: kind.describe().to_string(),
            fate: kind.fate().to_string(),
            user_space: matches!(kind, Boundary::FileOp | Boundary::DrmIoctl | Boundary::ConfigfsOp),
        }),
        also_reaches: Vec::new(),
        guard: o.guard,
    })
}
