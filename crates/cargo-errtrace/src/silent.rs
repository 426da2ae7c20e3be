//! Silent chains: from every boundary, the unlogged hops down to unlogged origins, one finding
//! per origin.
//!
//! The search is breadth-first from each boundary over the unlogged call edges. A call from a
//! crate into a crate it depends on (a driver calling the kernel crate) is an *entry*: the
//! callee's subtree is searched once per entry, so an error a kernel-crate function makes
//! without a log line is followed through every place a driver brings it in; the finding names
//! them all (`also_enters`), rather than the one a single search tree happened to pass.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::findings::{BoundaryInfo, ChainStep, Entry, Finding, Fix, Kind};
use crate::model::{Boundary, How, Site, Target};
use crate::resolve::{FnId, Index};

/// An unlogged origin in a function: its error site and what it makes.
pub(crate) struct Origin {
    pub(crate) site: u32,
    pub(crate) what: String,
    /// An overflow or conversion guard (see `extract::guard`).
    pub(crate) guard: bool,
    /// The codes it can fail with, when known: the errno it names (`Err(ERANGE)`), or the
    /// unprinted codes of the C callee it makes an errno of, as the kernel tree's C shows them.
    /// A caller that handles every one by name (`Err(e) if e == ENOENT => fallback`) stops it.
    pub(crate) codes: Vec<String>,
    /// The C function it makes an errno of, as the kernel tree's C shows it.
    pub(crate) c_callee: Option<crate::findings::CCallee>,
}

/// One step up a chain: the caller and the index of its call site.
type Hop = (FnId, u32);

/// The unlogged origins below `t` (callee of an entry): each with the hops from its function up
/// to `t` (innermost first).
type Below = Vec<(FnId, usize, Vec<Hop>)>;

/// Crate dependencies: (crate root, name of a crate its files use), and each file's crate.
pub(crate) struct Deps<'a> {
    uses: HashSet<(&'a str, &'a str)>,
    crate_of: HashMap<&'a str, (&'a str, &'a str)>,
}

impl<'a> Deps<'a> {
    pub(crate) fn new(index: &Index<'a>) -> Deps<'a> {
        let files = index.files;
        let names: HashSet<&'a str> = files.iter().map(|f| f.crate_name.as_str()).collect();
        let mut uses = HashSet::new();
        for (fi, f) in files.iter().enumerate() {
            for &n in &names {
                if n != f.crate_name && index.file_uses_crate(fi, n) {
                    uses.insert((f.crate_root.as_str(), n));
                }
            }
        }
        let crate_of = files
            .iter()
            .map(|f| (f.path.as_str(), (f.crate_root.as_str(), f.crate_name.as_str())))
            .collect();
        Deps { uses, crate_of }
    }

    /// Whether the code of `caller_file` calls into `callee_file` as into a crate it depends on.
    fn is_entry(&self, caller_file: &str, callee_file: &str) -> bool {
        match (self.crate_of.get(caller_file), self.crate_of.get(callee_file)) {
            (Some((caller_root, _)), Some((callee_root, callee_name))) => {
                caller_root != callee_root && self.uses.contains(&(*caller_root, *callee_name))
            }
            _ => false,
        }
    }
}

/// Every silent-chain finding, before [`once_per_origin`].
pub(crate) fn chains(
    index: &Index<'_>,
    deps: &Deps<'_>,
    kinds: &[Option<Boundary>],
    edges: &[Vec<Hop>],
    origins: &[Vec<Origin>],
    boundaries: &[FnId],
) -> Vec<Finding> {
    let n = index.fns.len();
    let path_of = |f: FnId| index.file_of(f).map(|x| x.path.as_str()).unwrap_or("");
    let is_entry = |from: FnId, to: FnId| deps.is_entry(path_of(from), path_of(to));
    let mut findings = Vec::new();
    let mut below_cache: HashMap<FnId, Below> = HashMap::new();
    let mut stamp: Vec<u32> = vec![u32::MAX; n];
    let mut parent: Vec<Hop> = vec![(FnId::MAX, 0); n];
    let mut queue: VecDeque<FnId> = VecDeque::new();
    // Each function's callers: (caller, its call site), the edges reversed.
    let mut callers: Vec<Vec<Hop>> = vec![Vec::new(); n];
    for (p, out) in edges.iter().enumerate() {
        for &(t, site) in out {
            if let Some(c) = callers.get_mut(t as usize) {
                c.push((p as FnId, site));
            }
        }
    }
    for (bi, &b) in boundaries.iter().enumerate() {
        let mark = bi as u32;
        if let Some(s) = stamp.get_mut(b as usize) {
            *s = mark;
        }
        let mut entries: Vec<(FnId, u32, FnId)> = Vec::new();
        queue.clear();
        queue.push_back(b);
        while let Some(f) = queue.pop_front() {
            for o in origins.get(f as usize).map(Vec::as_slice).unwrap_or(&[]) {
                let mut up = walk_up(&parent, f, b, n);
                // The search tree's path handles this origin's code: another path that does
                // not, among the functions this search reached, or none.
                if let Some(codes) = handled_on(index, edges, f, o, &up) {
                    let reached = |p: FnId| p == b || stamp.get(p as usize) == Some(&mark);
                    match path_avoiding(index, &callers, reached, &is_entry, f, b, codes) {
                        Some(other) => up = other,
                        None => continue,
                    }
                }
                if let Some(finding) = chain_finding(index, kinds, edges, b, f, o, &up) {
                    findings.push(finding);
                }
            }
            for &(t, site) in edges.get(f as usize).map(Vec::as_slice).unwrap_or(&[]) {
                if is_entry(f, t) {
                    entries.push((f, site, t));
                    continue;
                }
                let ti = t as usize;
                if stamp.get(ti).is_some_and(|s| *s != mark) {
                    stamp[ti] = mark;
                    parent[ti] = (f, site);
                    queue.push_back(t);
                }
            }
        }
        // Each entry into a depended-on crate: its subtree's origins, each chain through it.
        entries.sort_unstable();
        entries.dedup();
        for (f, site, t) in entries {
            let up_from_f = walk_up(&parent, f, b, n);
            let below = below_cache
                .entry(t)
                .or_insert_with(|| origins_below(edges, origins, t, n));
            for (at, oi, hops) in below.iter() {
                let Some(o) = origins.get(*at as usize).and_then(|v| v.get(*oi)) else {
                    continue;
                };
                let mut up = hops.clone();
                up.push((f, site));
                up.extend_from_slice(&up_from_f);
                if handled_on(index, edges, *at, o, &up).is_some() {
                    continue;
                }
                if let Some(finding) = chain_finding(index, kinds, edges, b, *at, o, &up) {
                    findings.push(finding);
                }
            }
        }
    }
    findings
}

/// The codes of origin `o` (in `at`) when a hop of `up` handles each by name (`Err(ERANGE) =>
/// continue` before the arm that re-throws): the error never leaves through that caller, unless
/// another of its calls of the same function passes it on.
fn handled_on<'o>(
    index: &Index<'_>,
    edges: &[Vec<Hop>],
    at: FnId,
    o: &'o Origin,
    up: &[Hop],
) -> Option<&'o [String]> {
    let codes = o.codes.as_slice();
    if codes.is_empty() {
        return None;
    }
    let mut cur = at;
    for &(p, _) in up {
        let pf = index.func(p)?;
        let mut through = edges
            .get(p as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter(|(t, _)| *t == cur)
            .filter_map(|(_, s)| pf.sites.get(*s as usize));
        if through.all(|x| codes.iter().all(|c| x.handled.contains(c))) {
            return Some(codes);
        }
        cur = p;
    }
    None
}

/// A path from `f` up to the boundary `b` through functions the search `reached`, none of whose
/// call sites handles all of `codes` by name: breadth-first over the callers, innermost hop
/// first.
fn path_avoiding(
    index: &Index<'_>,
    callers: &[Vec<Hop>],
    reached: impl Fn(FnId) -> bool,
    is_entry: &impl Fn(FnId, FnId) -> bool,
    f: FnId,
    b: FnId,
    codes: &[String],
) -> Option<Vec<Hop>> {
    // For each caller found: the function below it and the call site.
    let mut came_from: HashMap<FnId, Hop> = HashMap::new();
    let mut queue = VecDeque::from([f]);
    while let Some(cur) = queue.pop_front() {
        if cur == b {
            let mut up = Vec::new();
            let mut at = b;
            while at != f {
                let &(below, s) = came_from.get(&at)?;
                up.push((at, s));
                at = below;
            }
            up.reverse();
            return Some(up);
        }
        for &(p, s) in callers.get(cur as usize).map(Vec::as_slice).unwrap_or(&[]) {
            let handles = index
                .func(p)
                .and_then(|pf| pf.sites.get(s as usize))
                .is_some_and(|x| codes.iter().all(|c| x.handled.contains(c)));
            if handles || !reached(p) || is_entry(p, cur) || p == f || came_from.contains_key(&p) {
                continue;
            }
            came_from.insert(p, (cur, s));
            queue.push_back(p);
        }
    }
    None
}

/// The hops from `f` up to the boundary `b` in one search's parent tree.
fn walk_up(parent: &[Hop], f: FnId, b: FnId, n: usize) -> Vec<Hop> {
    let mut up = Vec::new();
    let mut cur = f;
    while cur != b && up.len() <= n {
        let Some(&(p, s)) = parent.get(cur as usize) else {
            break;
        };
        if p == FnId::MAX {
            break;
        }
        up.push((p, s));
        cur = p;
    }
    up
}

/// A breadth-first search from `t` alone: every unlogged origin below it, with its hops up to
/// `t`.
fn origins_below(edges: &[Vec<Hop>], origins: &[Vec<Origin>], t: FnId, n: usize) -> Below {
    let mut parent: HashMap<FnId, Hop> = HashMap::new();
    let mut seen: HashSet<FnId> = HashSet::from([t]);
    let mut queue = VecDeque::from([t]);
    let mut out = Vec::new();
    while let Some(f) = queue.pop_front() {
        let count = origins.get(f as usize).map_or(0, Vec::len);
        if count > 0 {
            let mut hops = Vec::new();
            let mut cur = f;
            while cur != t && hops.len() <= n {
                let Some(&(p, s)) = parent.get(&cur) else { break };
                hops.push((p, s));
                cur = p;
            }
            for oi in 0..count {
                out.push((f, oi, hops.clone()));
            }
        }
        for &(c, site) in edges.get(f as usize).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(c) {
                parent.insert(c, (f, site));
                queue.push_back(c);
            }
        }
    }
    out
}

/// The finding for origin `o` in function `at`, reaching boundary `boundary` through `up` (the
/// hops from `at` to the boundary, innermost first).
fn chain_finding(
    index: &Index<'_>,
    kinds: &[Option<Boundary>],
    edges: &[Vec<Hop>],
    boundary: FnId,
    at: FnId,
    o: &Origin,
    up: &[Hop],
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
    let mut hop_sites: Vec<(&str, &str, &Site)> = Vec::new();
    for &(p, s) in up {
        let pf = index.func(p)?;
        let pfile = index.file_of(p)?;
        let ps = pf.sites.get(s as usize)?;
        hop_sites.push((pfile.path.as_str(), pf.name.as_str(), ps));

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
    }
    if cur != boundary {
        return None;
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
        also_enters: Vec::new(),
        guard: o.guard,
        c_callee: o.c_callee.clone(),
        fix: log_fix(&file.path, &func.name, site, kind),
        fix_steps: hop_sites
            .iter()
            .filter_map(|(path, name, s)| log_fix(path, name, s, kind))
            .collect(),
    })
}

/// The log line that makes a silent origin logged where it is made: after a `?`'s call,
/// `.inspect_err(|e| pr_err!(…))` (inserted before the `?`); before `return Err(…)`, a
/// `pr_err!(…);` statement. `pr_err!` in kernel code, `log::error!` under `main`. Other
/// origins (a tail expression, an arm's value) get none: where a statement may go is not
/// known.
fn log_fix(file: &str, function: &str, site: &Site, boundary: Boundary) -> Option<Fix> {
    let mac = if boundary == Boundary::Main {
        "log::error!"
    } else {
        "pr_err!"
    };
    let newline = if boundary == Boundary::Main { "" } else { "\\n" };
    let what = match &site.target {
        Target::Call(c) => format!("{} failed", c.name()),
        Target::OriginFn(_, Some(c)) => format!("{c} failed"),
        _ => site.errno.clone().unwrap_or_else(|| "failed".to_string()),
    };
    let (insert, description) = match site.how {
        How::Try => (
            format!(".inspect_err(|e| {mac}(\"{function}: {what}: {{e:?}}{newline}\"))"),
            "log the error where it is made, before the `?` passes it on",
        ),
        How::Return if matches!(site.target, Target::Made) => (
            format!("{mac}(\"{function}: {what}{newline}\"); "),
            "log the error where it is made, before it is returned",
        ),
        _ => return None,
    };
    Some(Fix {
        description: description.to_string(),
        file: file.to_string(),
        line: site.pos.line,
        column: site.pos.column,
        insert,
    })
}

/// One silent-chain finding per origin: the one with the shortest chain (its nearest boundary;
/// a driver's callback before the subsystem adapter that calls it), naming the other
/// boundaries it reaches in `also_reaches`. One unlogged origin is one thing to fix. A boundary
/// where nothing reaches user space comes before an entry from user space, whatever the length:
/// an errno that is also a system call's result is still lost on the other way.
///
/// An origin in a crate the caller depends on (a kernel-crate function that fails without a
/// log line, called by a driver) is also one thing to fix at each place where its error enters
/// the calling crate: those places (the chain's first step in a crate that depends on the
/// origin's) are listed in `also_enters`, each the start of its own silent path.
pub(crate) fn once_per_origin(findings: Vec<Finding>, deps: &Deps<'_>) -> Vec<Finding> {
    let entry_of = |f: &Finding| {
        f.chain
            .windows(2)
            .find(|w| deps.is_entry(&w[1].file, &w[0].file))
            .map(|w| Entry {
                file: w[1].file.clone(),
                line: w[1].line,
                function: w[1].function.clone(),
            })
    };
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
            let own_entry = entry_of(&kept);
            for other in group {
                if let Some(e) = entry_of(&other) {
                    let same_as_kept = own_entry
                        .as_ref()
                        .is_some_and(|k| k.file == e.file && k.line == e.line);
                    if !same_as_kept && !kept.also_enters.contains(&e) {
                        kept.also_enters.push(e);
                    }
                }
                if let Some(b) = other.boundary {
                    if !kept.also_reaches.contains(&b.function) {
                        kept.also_reaches.push(b.function);
                    }
                }
            }
            kept.also_reaches.sort();
            kept.also_enters.sort();
            Some(kept)
        })
        .collect()
}
