//! The cross-file analysis: origins, hops, boundaries and silent chains; the deferred checks.

use std::collections::HashSet;

use crate::facts::Facts;
use crate::findings::{Finding, Kind};
use crate::logging::Names;
use crate::model::{Boundary, CheckKind, FileSummary, How, Site, Target};
use crate::resolve::{FnId, Index, Resolution};
use crate::silent::Origin;

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
    /// The file of each boundary function (to count those of the audited code alone).
    pub boundary_files: Vec<String>,
}

/// Run the whole-tree analysis over the summaries.
pub fn analyse(files: &[FileSummary], names: &Names, facts: Option<&Facts>) -> Analysis {
    let index = Index::new(files, facts);
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
        // A free function handed to the kernel crate as a callback on user memory
        // (`ops::user_memory_callbacks`): a user-space entry.
        let callback = func.boundary.is_none()
            && func.owner.is_none()
            && returns_result
            && user_entries.contains(&(file.crate_root.as_str(), func.name.as_str()));
        if let Some(kind) = func
            .boundary
            .or(ioctl.then_some(Boundary::DrmIoctl))
            .or(callback.then_some(Boundary::FileOp))
        {
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
                Target::Made | Target::OriginFn(..) => {
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
                        Target::OriginFn(f, None) => format!("error from `{f}(…)`"),
                        // Why the C callee is silent, as the kernel tree's code shows it.
                        Target::OriginFn(f, Some(c)) => match names.c_knowledge().and_then(|k| k.describe(c))
                        {
                            Some(why) => format!("error from `{f}(…)` of C `{c}`, which {why}"),
                            None => format!("error from `{f}(…)` of C `{c}`"),
                        },
                        _ => made_text(site),
                    };
                    if accepted {
                        suppressed += 1;
                        continue;
                    }
                    let c_callee = c_callee(site, names);
                    if let Some(o) = origins.get_mut(id as usize) {
                        o.push(Origin {
                            site: si as u32,
                            what,
                            guard: site.guard,
                            codes: origin_codes(site, c_callee.as_ref()),
                            c_callee,
                        });
                    }
                }
                // The callee reports its own failure (an allocation): not a silent origin,
                // and its in-tree body is not followed.
                // A deferral handed back on purpose (`if e == EPROBE_DEFER { return Err(e) }`).
                Target::Call(_) if site.quiet_errno() => {}
                Target::Call(callee) => match index.resolve(callee, id, site.pos.line) {
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
                                let inits = match index.resolve(arg, id, site.pos.line) {
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
                    // The implementer's code, outside the tree (a trait of this crate that
                    // only its users implement): its error is theirs.
                    Resolution::NotFound if index.implementer_outside(callee, id) => {}
                    r @ (Resolution::NotFound | Resolution::Ambiguous(_) | Resolution::MadeByMacro(_)) => {
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
                            Resolution::MadeByMacro(what) => {
                                format!("error from {what} (its body is not analysed)")
                            }
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
                                codes: Vec::new(),
                                c_callee: None,
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
                    let in_tree = match index.resolve(callee, id, check.pos.line) {
                        // The callee logged its failure already: nothing is lost.
                        Resolution::Resolved(t) if self_logging.contains(&t) => continue,
                        // It cannot fail: nothing is thrown away.
                        Resolution::Resolved(t) if !index.can_fail(t) => continue,
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
                    if drops_like_ok(method) && !kernel_crates.contains(file.crate_root.as_str()) =>
                {
                    continue
                }
                CheckKind::UnwrapOr { method, callee } => {
                    let resolution = index.resolve(callee, id, check.pos.line);
                    // A callee that reports its own failure (an allocation: the allocator
                    // warns) loses nothing when its error becomes `None` or a default.
                    if crate::explained::reported_by_callee(&index, names, callee, &resolution, id) {
                        continue;
                    }
                    // The failing function: resolved, or any of several of that name in the
                    // crate when every one returns `Result` (`alloc.reserve_existing(…)` on a
                    // range allocator with an array and a tree implementation).
                    let what = match resolution {
                        // It cannot fail: nothing is replaced.
                        Resolution::Resolved(t) if !index.can_fail(t) => continue,
                        // Its error is no errno: a crate of the tree not written against the
                        // kernel crate (zerocopy's size check) fails with its own type, and
                        // `.ok()` is the everyday conversion.
                        Resolution::Resolved(t)
                            if drops_like_ok(method)
                                && !index.file_of(t).is_some_and(|f| {
                                    kernel_crates.contains(f.crate_root.as_str()) || f.crate_name == "kernel"
                                }) =>
                        {
                            continue
                        }
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
                    } else if method == crate::model::IF_LET_OK {
                        format!(
                            "`if let Ok(…) = …` without `else` goes on past an error of in-tree `{what}` without logging it"
                        )
                    } else {
                        format!("`.{method}(…)` replaces the error of in-tree `{what}` without logging it")
                    };
                    (Kind::Swallowed, message)
                }
                CheckKind::Unwrap { method, callee } => match index.resolve(callee, id, check.pos.line) {
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
                also_enters: Vec::new(),
                guard: false,
                c_callee: None,
                fix: None,
                fix_steps: Vec::new(),
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

    // Silent chains: from every boundary, follow unlogged hops to unlogged origins.
    let deps = crate::silent::Deps::new(&index);
    findings.extend(crate::silent::chains(
        &index,
        &deps,
        &kinds,
        &edges,
        &origins,
        &boundaries,
    ));

    Analysis {
        findings: crate::silent::once_per_origin(findings, &deps),
        suppressed,
        acknowledged,
        functions: n as u64,
        boundaries: boundaries.len() as u64,
        boundary_files: boundaries
            .iter()
            .filter_map(|&b| index.file_of(b).map(|f| f.path.clone()))
            .collect(),
    }
}

/// The codes an origin can fail with, when known: the errno it names, or the unprinted codes
/// the kernel tree's C shows for the C callee it makes an errno of (none when some failure
/// there goes through a callback, whose codes are not known).
fn origin_codes(site: &Site, c_callee: Option<&crate::findings::CCallee>) -> Vec<String> {
    if let Some(e) = &site.errno {
        return vec![e.clone()];
    }
    match c_callee {
        Some(c) if !c.codes.is_empty() && c.codes.iter().all(|c| c != "?" && c != "NULL") => c.codes.clone(),
        _ => Vec::new(),
    }
}

/// The C function an origin makes an errno of, as the kernel tree's C shows it.
fn c_callee(site: &Site, names: &Names) -> Option<crate::findings::CCallee> {
    let Target::OriginFn(_, Some(c)) = &site.target else {
        return None;
    };
    let f = names.c_knowledge()?.fact(c)?;
    Some(crate::findings::CCallee {
        name: c.clone(),
        verdict: f.verdict.as_str().to_string(),
        codes: f.codes.clone(),
        defined_at: f.defined_at.clone(),
    })
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

/// `.ok()` and `if let Ok(…)` without `else`: the error is dropped, not replaced by a value;
/// an error that is no errno (a crate not written against the kernel crate) loses nothing.
fn drops_like_ok(method: &str) -> bool {
    method == "ok" || method == crate::model::IF_LET_OK
}
