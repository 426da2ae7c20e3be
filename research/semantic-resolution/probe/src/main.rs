//! ra-probe: load the Linux kernel's rust-project.json with rust-analyzer's
//! published crates (ra_ap_*) and measure how many call expressions in a set
//! of driver crates resolve to a definition.
//!
//! Usage:
//!   ra-probe <rust-project.json> [--pm none|sysroot|<path-to-proc-macro-srv>]
//!            [--crates nova_core,tyr,rust_binder,kernel] [--out DIR]
//!            [--grep SUBSTR]... [--examples N]
//!
//! Output: a summary on stdout; details (unresolved examples, trait impl
//! candidates, macro-generated callees, --grep hits) in DIR (default ./out).

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    fmt::Write as _,
    time::Instant,
};

use anyhow::{Context, Result};
use either::Either;
use ra_ap_hir::{
    self as hir, AsAssocItem, AssocItemContainer, CallableKind, Crate, EditionedFileId, Function,
    HasCrate, HasSource, HirDisplay, HirFileId, Impl, InFile, MacroKind, PathResolution, Semantics,
    Trait,
};
use ra_ap_ide_db::RootDatabase;
use ra_ap_load_cargo::{LoadCargoConfig, ProcMacroServerChoice, load_workspace};
use ra_ap_paths::AbsPathBuf;
use ra_ap_project_model::{CargoConfig, ProjectManifest, ProjectWorkspace};
use ra_ap_syntax::{AstNode, SyntaxNode, ast};
use ra_ap_vfs::{FileId, Vfs};

fn rss_mib() -> f64 {
    // current VmRSS / VmHWM of this process, in MiB
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for l in s.lines() {
        if let Some(v) = l.strip_prefix("VmHWM:") {
            let kb: f64 = v.trim().trim_end_matches(" kB").trim().parse().unwrap_or(0.0);
            return kb / 1024.0;
        }
    }
    0.0
}

#[derive(Default)]
struct CrateStats {
    total: usize,
    method_calls: usize,
    path_calls: usize,
    in_macro: usize,
    resolved_fn: usize,
    resolved_ctor: usize,
    indirect: usize, // closure / fn pointer / F: Fn bound / callable field
    unresolved: usize,
    unresolved_in_macro: usize,
    fn_target_crate: BTreeMap<String, usize>,
    trait_decl: usize,                 // resolved only to a trait's declaration
    trait_decl_recv: BTreeMap<String, usize>, // dyn / type-param / other
    callee_macro_generated: usize,     // resolved fn whose definition comes from a macro expansion
    unresolved_reason: BTreeMap<String, usize>,
    files: usize,
    macro_calls: usize,
    macro_expand_failed: usize,
    proc_macro_calls: usize,
    proc_macro_failed: usize,
    attr_macro_items: usize,
    attr_macro_failed: usize,
    // calls written directly in the driver's source (not produced by a macro expansion)
    direct_total: usize,
    direct_def: usize,
    direct_kernel: usize,
    direct_unresolved: usize,
}

struct Ctx<'a> {
    sema: Semantics<'a, RootDatabase>,
    db: &'a RootDatabase,
    vfs: &'a Vfs,
    krate_name: String,
    st: CrateStats,
    line_cache: HashMap<FileId, Vec<usize>>,
    unresolved_examples: Vec<(String, String, String, String)>, // reason-cat, loc, text, detail
    trait_uses: HashMap<Trait, (usize, String, String)>,       // count, example loc, example text
    macro_callees: BTreeMap<String, (usize, String)>,           // callee -> count, example call loc
    greps: Vec<String>,
    grep_hits: Vec<String>,
    pm_errors: BTreeMap<String, usize>,
    seen: HashSet<(HirFileId, ra_ap_syntax::TextRange)>,
}

fn crate_name(db: &RootDatabase, k: Crate) -> String {
    k.display_name(db).map(|n| n.to_string()).unwrap_or_else(|| "?".into())
}

fn one_line(s: &str, max: usize) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > max { s.chars().take(max).collect::<String>() + "…" } else { s }
}

enum Res {
    Fn(Function),
    Ctor,
    Indirect(&'static str),
    Unresolved(String, String), // category, detail
}

impl<'a> Ctx<'a> {
    fn loc_of_range(&mut self, file: EditionedFileId, offset: u32) -> String {
        let fid = file.file_id(self.db);
        let path = self.vfs.file_path(fid).to_string();
        let path = path
            .split("linux-source-7.3/")
            .last()
            .map(|s| s.to_string())
            .unwrap_or(path);
        let starts = self.line_cache.entry(fid).or_insert_with(|| {
            let text = self.sema.parse_guess_edition(fid).syntax().to_string();
            let mut v = vec![0];
            for (i, b) in text.bytes().enumerate() {
                if b == b'\n' {
                    v.push(i + 1);
                }
            }
            v
        });
        let line = match starts.binary_search(&(offset as usize)) {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        format!("{path}:{line}")
    }

    fn loc(&mut self, node: &SyntaxNode) -> String {
        let fr = self.sema.original_range(node);
        self.loc_of_range(fr.file_id, fr.range.start().into())
    }

    fn describe_fn(&mut self, f: Function) -> String {
        let db = self.db;
        let dt = f.krate(db).to_display_target(db);
        let k = crate_name(db, f.krate(db));
        let name = f.name(db).as_str().to_owned();
        let cont = match f.as_assoc_item(db).map(|a| a.container(db)) {
            Some(AssocItemContainer::Trait(t)) => format!("<trait {}>::", t.name(db).as_str()),
            Some(AssocItemContainer::Impl(i)) => {
                let tr = i.trait_(db).map(|t| format!("{} for ", t.name(db).as_str())).unwrap_or_default();
                format!("<impl {}{}>::", tr, i.self_ty(db).display(db, dt))
            }
            None => String::new(),
        };
        let def = f
            .source(db)
            .map(|s| {
                let fr = s.syntax().original_file_range_rooted(db);
                let m = if s.file_id.is_macro() { " (macro-generated)" } else { "" };
                format!("{}{}", self.loc_of_range(fr.file_id, fr.range.start().into()), m)
            })
            .unwrap_or_default();
        format!("{k}::{cont}{name} @ {def}")
    }

    fn walk(&mut self, node: &SyntaxNode, depth: u32, in_macro: bool) {
        if depth > 10 {
            return;
        }
        for d in node.descendants() {
            if let Some(mac) = ast::MacroCall::cast(d.clone()) {
                self.on_macro(mac, depth);
            } else if let Some(c) = ast::CallExpr::cast(d.clone()) {
                self.on_call(Either::Left(c), depth, in_macro);
            } else if let Some(c) = ast::MethodCallExpr::cast(d.clone()) {
                self.on_call(Either::Right(c), depth, in_macro);
            } else if depth == 0 {
                if let Some(item) = ast::Item::cast(d.clone()) {
                    let f = self.sema.hir_file_for(item.syntax());
                    if self.sema.is_attr_macro_call(InFile::new(f, &item)) {
                        self.st.attr_macro_items += 1;
                        if let Some(r) = self.sema.expand_attr_macro(&item) {
                            if let Some(e) = &r.err {
                                self.st.attr_macro_failed += 1;
                                let msg = one_line(&e.render_to_string(self.db).message, 100);
                                *self.pm_errors.entry(format!("attr: {msg}")).or_default() += 1;
                            }
                        }
                    }
                }
            }
        }
    }

    fn on_macro(&mut self, mac: ast::MacroCall, depth: u32) {
        // an item under an attribute macro lives in the expansion: map down first
        let mac = if depth == 0 {
            self.sema.descend_node_into_attributes(mac.clone()).into_iter().next().unwrap_or(mac)
        } else {
            mac
        };
        self.st.macro_calls += 1;
        let is_pm = self
            .sema
            .resolve_macro_call(&mac)
            .map(|m| m.kind(self.db) == MacroKind::ProcMacro)
            .unwrap_or(false);
        if is_pm {
            self.st.proc_macro_calls += 1;
        }
        let Some(id) = self.sema.to_def(&mac) else {
            self.st.macro_expand_failed += 1;
            if is_pm {
                self.st.proc_macro_failed += 1;
            }
            return;
        };
        let r = self.sema.expand(id);
        if let Some(e) = &r.err {
            self.st.macro_expand_failed += 1;
            if is_pm {
                self.st.proc_macro_failed += 1;
                let msg = one_line(&e.render_to_string(self.db).message, 100);
                *self.pm_errors.entry(format!("fn-like: {msg}")).or_default() += 1;
            }
        }
        let node = r.value;
        self.walk(&node, depth + 1, true);
    }

    fn resolve(&mut self, call: &Either<ast::CallExpr, ast::MethodCallExpr>) -> Res {
        let sema = &self.sema;
        let db = self.db;
        match call {
            Either::Right(mc) => match sema.resolve_method_call_fallback(mc) {
                Some((Either::Left(f), _)) => Res::Fn(f),
                Some((Either::Right(_), _)) => Res::Indirect("callable field"),
                None => {
                    let name = mc.name_ref().map(|n| n.text().to_string()).unwrap_or_default();
                    match mc.receiver().and_then(|r| sema.type_of_expr(&r)) {
                        None => Res::Unresolved(
                            "no inference for enclosing body".into(),
                            format!(".{name}()"),
                        ),
                        Some(ti) if ti.original.is_unknown() => Res::Unresolved(
                            "method: receiver type unknown".into(),
                            format!(".{name}() on {{unknown}}"),
                        ),
                        Some(ti) => {
                            let dt = ti.original.krate(db).to_display_target(db);
                            let ty = ti.original.display(db, dt).to_string();
                            let cat = if ty.contains("{unknown}") {
                                "method: receiver type partially unknown"
                            } else {
                                "method: not found on known receiver type"
                            };
                            Res::Unresolved(cat.into(), format!(".{name}() on {ty}"))
                        }
                    }
                }
            },
            Either::Left(c) => {
                let Some(callee) = c.expr() else {
                    return Res::Unresolved("syntax: no callee".into(), String::new());
                };
                let path_res = match &callee {
                    ast::Expr::PathExpr(p) => p.path().map(|p| (sema.resolve_path(&p), p)),
                    _ => None,
                };
                if let Some((Some(PathResolution::Def(hir::ModuleDef::Function(f))), _)) = &path_res {
                    return Res::Fn(*f);
                }
                match sema.resolve_expr_as_callable(&callee).map(|c| c.kind()) {
                    Some(CallableKind::Function(f)) => Res::Fn(f),
                    Some(CallableKind::TupleStruct(_)) | Some(CallableKind::TupleEnumVariant(_)) => {
                        Res::Ctor
                    }
                    Some(CallableKind::Closure(_)) => Res::Indirect("closure"),
                    Some(CallableKind::FnPtr) => Res::Indirect("fn pointer"),
                    Some(CallableKind::FnImpl(_)) => Res::Indirect("F: Fn* bound / dyn Fn"),
                    None => match path_res {
                        Some((None, p)) => {
                            // distinguish: is the qualifier resolvable?
                            let q = p.qualifier().map(|q| sema.resolve_path(&q).is_some());
                            let cat = match q {
                                Some(true) => "path: qualifier resolves, last segment/assoc item does not",
                                Some(false) => "path: qualifier unresolved",
                                None => "path: single-segment name unresolved",
                            };
                            Res::Unresolved(cat.into(), p.syntax().text().to_string())
                        }
                        Some((Some(r), p)) => Res::Unresolved(
                            "path resolves to non-callable".into(),
                            format!("{} -> {:?}", p.syntax().text(), std::mem::discriminant(&r)),
                        ),
                        None => match sema.type_of_expr(&callee) {
                            Some(ti) if !ti.original.is_unknown() => Res::Unresolved(
                                "callee of known non-callable type".into(),
                                {
                                    let dt = ti.original.krate(db).to_display_target(db);
                                    ti.original.display(db, dt).to_string()
                                },
                            ),
                            _ => Res::Unresolved(
                                "callee expression type unknown".into(),
                                one_line(&callee.syntax().text().to_string(), 60),
                            ),
                        },
                    },
                }
            }
        }
    }

    fn on_call(&mut self, call: Either<ast::CallExpr, ast::MethodCallExpr>, depth: u32, in_macro: bool) {
        let call = if depth == 0 {
            match &call {
                Either::Left(c) => self
                    .sema
                    .descend_node_into_attributes(c.clone())
                    .into_iter()
                    .next()
                    .map(Either::Left)
                    .unwrap_or(call),
                Either::Right(c) => self
                    .sema
                    .descend_node_into_attributes(c.clone())
                    .into_iter()
                    .next()
                    .map(Either::Right)
                    .unwrap_or(call),
            }
        } else {
            call
        };
        let syn = match &call {
            Either::Left(c) => c.syntax().clone(),
            Either::Right(c) => c.syntax().clone(),
        };
        let hf = self.sema.hir_file_for(&syn);
        if !self.seen.insert((hf, syn.text_range())) {
            return;
        }
        let in_macro = in_macro || hf.is_macro();
        self.st.total += 1;
        match &call {
            Either::Left(_) => self.st.path_calls += 1,
            Either::Right(_) => self.st.method_calls += 1,
        }
        if in_macro {
            self.st.in_macro += 1;
        } else {
            self.st.direct_total += 1;
        }
        let res = self.resolve(&call);
        if !in_macro {
            match &res {
                Res::Fn(f) => {
                    self.st.direct_def += 1;
                    if crate_name(self.db, f.krate(self.db)) == "kernel" {
                        self.st.direct_kernel += 1;
                    }
                }
                Res::Ctor => self.st.direct_def += 1,
                Res::Unresolved(..) => self.st.direct_unresolved += 1,
                Res::Indirect(_) => {}
            }
        }
        let text = one_line(&syn.text().to_string(), 90);
        let mut grep_hit = self.greps.iter().any(|g| text.contains(g.as_str()));
        let desc;
        match res {
            Res::Fn(f) => {
                self.st.resolved_fn += 1;
                let db = self.db;
                let k = crate_name(db, f.krate(db));
                let k = if k == self.krate_name { format!("{k} (own crate)") } else { k };
                *self.st.fn_target_crate.entry(k).or_default() += 1;
                let from_macro = f.source(db).map(|s| s.file_id.is_macro()).unwrap_or(false);
                if from_macro {
                    self.st.callee_macro_generated += 1;
                }
                if let Some(AssocItemContainer::Trait(t)) = f.as_assoc_item(db).map(|a| a.container(db)) {
                    self.st.trait_decl += 1;
                    let recv = match &call {
                        Either::Right(mc) => mc
                            .receiver()
                            .and_then(|r| self.sema.type_of_expr(&r))
                            .map(|ti| {
                                let t = ti.original.strip_references();
                                if t.as_dyn_trait().is_some() {
                                    "dyn Trait receiver"
                                } else if t.as_type_param(db).is_some() {
                                    "generic type-param receiver"
                                } else {
                                    "other receiver (assoc type / Self / unresolved impl)"
                                }
                            })
                            .unwrap_or("?"),
                        Either::Left(_) => "path call (T::f / <X as Tr>::f)",
                    };
                    *self.st.trait_decl_recv.entry(recv.into()).or_default() += 1;
                    let loc = self.loc(&syn);
                    let e = self.trait_uses.entry(t).or_insert((0, loc, text.clone()));
                    e.0 += 1;
                }
                let need_desc = from_macro || grep_hit;
                desc = if need_desc { self.describe_fn(f) } else { String::new() };
                if from_macro {
                    let loc = self.loc(&syn);
                    let e = self.macro_callees.entry(desc.clone()).or_insert((0, format!("{loc}  `{text}`")));
                    e.0 += 1;
                }
            }
            Res::Ctor => {
                self.st.resolved_ctor += 1;
                desc = "tuple struct/variant constructor".into();
            }
            Res::Indirect(what) => {
                self.st.indirect += 1;
                desc = format!("indirect: {what}");
            }
            Res::Unresolved(cat, detail) => {
                self.st.unresolved += 1;
                if in_macro {
                    self.st.unresolved_in_macro += 1;
                }
                *self.st.unresolved_reason.entry(cat.clone()).or_default() += 1;
                let loc = self.loc(&syn);
                let m = if in_macro { " [in macro expansion]" } else { "" };
                desc = format!("UNRESOLVED ({cat}): {detail}{m}");
                self.unresolved_examples.push((cat, loc, text.clone(), format!("{detail}{m}")));
                grep_hit = grep_hit || false;
            }
        }
        if grep_hit {
            let loc = self.loc(&syn);
            self.grep_hits.push(format!("{loc}  `{text}`\n      -> {desc}"));
        }
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let json = args.get(1).context("usage: ra-probe <rust-project.json> [--pm ..] [--crates ..]")?;
    let mut pm = "none".to_string();
    let mut crates = "nova_core,tyr,rust_binder".to_string();
    let mut out = "out".to_string();
    let mut greps = vec![];
    let mut n_examples = 40usize;
    let mut i = 2;
    while i < args.len() {
        match args[i].as_str() {
            "--pm" => pm = args[i + 1].clone(),
            "--crates" => crates = args[i + 1].clone(),
            "--out" => out = args[i + 1].clone(),
            "--grep" => greps.push(args[i + 1].clone()),
            "--examples" => n_examples = args[i + 1].parse()?,
            a => anyhow::bail!("unknown arg {a}"),
        }
        i += 2;
    }
    std::fs::create_dir_all(&out)?;
    let targets: Vec<String> = crates.split(',').map(|s| s.to_string()).collect();

    let t0 = Instant::now();
    let path = AbsPathBuf::assert_utf8(std::fs::canonicalize(json)?);
    let manifest = ProjectManifest::from_manifest_file(path)?;
    let cargo_config = CargoConfig::default();
    let ws = ProjectWorkspace::load(manifest, &cargo_config, &|msg| eprintln!("[load] {msg}"))?;
    eprintln!(
        "[load] workspace loaded in {:.2?}; toolchain={:?}; sysroot root={:?} src={:?}",
        t0.elapsed(),
        ws.toolchain,
        ws.sysroot.root(),
        ws.sysroot.rust_lib_src_root()
    );
    let choice = match pm.as_str() {
        "none" => ProcMacroServerChoice::None,
        "sysroot" => ProcMacroServerChoice::Sysroot,
        p => ProcMacroServerChoice::Explicit(AbsPathBuf::assert_utf8(p.into())),
    };
    let load_config = LoadCargoConfig {
        load_out_dirs_from_check: false,
        with_proc_macro_server: choice,
        prefill_caches: false,
        num_worker_threads: 1,
        proc_macro_processes: 1,
    };
    let (db, vfs, pm_client) = load_workspace(ws, &Default::default(), &load_config)?;
    let t_load = t0.elapsed();
    eprintln!(
        "[load] db ready in {:.2?} (proc-macro server: {}), peak RSS {:.0} MiB",
        t_load,
        pm_client.as_ref().map(|c| c.server_path().to_string()).unwrap_or("none".into()),
        rss_mib()
    );

    let mut report = String::new();
    hir::attach_db(&db, || -> Result<()> {
        let all = Crate::all(&db);
        writeln!(report, "crates in crate graph: {}", all.len())?;
        let mut names: Vec<String> = all.iter().map(|k| crate_name(&db, *k)).collect();
        names.sort();
        writeln!(report, "  {}", names.join(", "))?;

        for target in &targets {
            let t1 = Instant::now();
            let Some(krate) = all.iter().copied().find(|k| &crate_name(&db, *k) == target) else {
                writeln!(report, "\n### {target}: NOT FOUND in crate graph")?;
                continue;
            };
            let mut ctx = Ctx {
                sema: Semantics::new(&db),
                db: &db,
                vfs: &vfs,
                krate_name: target.clone(),
                st: CrateStats::default(),
                line_cache: HashMap::new(),
                unresolved_examples: vec![],
                trait_uses: HashMap::new(),
                macro_callees: BTreeMap::new(),
                greps: greps.clone(),
                grep_hits: vec![],
                pm_errors: BTreeMap::new(),
                seen: HashSet::new(),
            };
            let mut files = vec![];
            let mut seen = HashSet::new();
            let mut modules_in_macros = 0;
            for m in krate.modules(&db) {
                match m.definition_source_file_id(&db).file_id() {
                    Some(f) => {
                        if seen.insert(f) {
                            files.push(f)
                        }
                    }
                    None => modules_in_macros += 1,
                }
            }
            ctx.st.files = files.len();
            for f in files {
                let sf = ctx.sema.parse(f);
                ctx.walk(sf.syntax(), 0, false);
            }
            let el = t1.elapsed();
            let s = &ctx.st;
            let pct = |n: usize| if s.total == 0 { 0.0 } else { 100.0 * n as f64 / s.total as f64 };
            writeln!(report, "\n### {target}  (walk {:.2?}, files {}, modules defined in macros {modules_in_macros})", el, s.files)?;
            writeln!(report, "calls: {} (path/fn-call {}, method {}), of which inside macro expansions: {}", s.total, s.path_calls, s.method_calls, s.in_macro)?;
            writeln!(report, "  resolved to fn definition : {:6} ({:.1}%)", s.resolved_fn, pct(s.resolved_fn))?;
            writeln!(report, "  resolved to tuple ctor    : {:6} ({:.1}%)", s.resolved_ctor, pct(s.resolved_ctor))?;
            writeln!(report, "  indirect (closure/fnptr/F:Fn/field): {:6} ({:.1}%)", s.indirect, pct(s.indirect))?;
            writeln!(report, "  unresolved                : {:6} ({:.1}%)  [{} of them inside macro expansions]", s.unresolved, pct(s.unresolved), s.unresolved_in_macro)?;
            let kernel_n = s.fn_target_crate.get("kernel").copied().unwrap_or(0);
            writeln!(report, "  resolved into `kernel`    : {:6} ({:.1}%)", kernel_n, pct(kernel_n))?;
            let dp = |n: usize| if s.direct_total == 0 { 0.0 } else { 100.0 * n as f64 / s.direct_total as f64 };
            writeln!(report, "  DIRECT (source-written) calls: {}: resolved to def (fn/ctor) {} ({:.1}%), into kernel {} ({:.1}%), unresolved {} ({:.1}%)",
                s.direct_total, s.direct_def, dp(s.direct_def), s.direct_kernel, dp(s.direct_kernel), s.direct_unresolved, dp(s.direct_unresolved))?;
            writeln!(report, "  fn targets by crate: {:?}", s.fn_target_crate)?;
            writeln!(report, "  resolved only to a trait declaration (generic/dyn dispatch): {} ({:.1}%) by receiver: {:?}", s.trait_decl, pct(s.trait_decl), s.trait_decl_recv)?;
            writeln!(report, "  resolved callee defined by a macro expansion: {} ({:.1}%)", s.callee_macro_generated, pct(s.callee_macro_generated))?;
            writeln!(report, "  unresolved by reason: {:#?}", s.unresolved_reason)?;
            writeln!(report, "  macro calls walked: {} (expansion error {}); fn-like proc-macro calls {} (failed {}); attr-macro items {} (failed {})",
                s.macro_calls, s.macro_expand_failed, s.proc_macro_calls, s.proc_macro_failed, s.attr_macro_items, s.attr_macro_failed)?;
            if !ctx.pm_errors.is_empty() {
                writeln!(report, "  proc-macro expansion errors: {:#?}", ctx.pm_errors)?;
            }

            // details file
            let mut det = String::new();
            writeln!(det, "# {target}: unresolved examples (up to {n_examples}, round-robin over reasons)")?;
            let mut by_cat: BTreeMap<String, Vec<&(String, String, String, String)>> = BTreeMap::new();
            for e in &ctx.unresolved_examples {
                by_cat.entry(e.0.clone()).or_default().push(e);
            }
            let mut k = 0;
            let mut idx = 0;
            while k < n_examples {
                let mut any = false;
                for (_, v) in &by_cat {
                    if let Some(e) = v.get(idx) {
                        writeln!(det, "- {}  `{}`\n    {}: {}", e.1, e.2, e.0, e.3)?;
                        k += 1;
                        any = true;
                    }
                }
                if !any {
                    break;
                }
                idx += 1;
            }
            writeln!(det, "\n# {target}: traits whose methods are called only via the trait declaration, with in-tree impl candidates")?;
            let mut tu: Vec<_> = ctx.trait_uses.iter().collect();
            tu.sort_by(|a, b| b.1.0.cmp(&a.1.0));
            for (t, (n, loc, text)) in tu.iter().take(25) {
                let impls = Impl::all_for_trait(&db, **t);
                let tk = crate_name(&db, t.module(&db).krate(&db));
                writeln!(det, "\n## trait {}::{}  calls={} impls={}  e.g. {}  `{}`", tk, t.name(&db).as_str(), n, impls.len(), loc, text)?;
                for im in impls.iter().take(40) {
                    let dt = im.krate(&db).to_display_target(&db);
                    let ik = crate_name(&db, im.krate(&db));
                    writeln!(det, "    impl for {}   [{}]", im.self_ty(&db).display(&db, dt), ik)?;
                }
                if impls.len() > 40 {
                    writeln!(det, "    ... {} more", impls.len() - 40)?;
                }
            }
            writeln!(det, "\n# {target}: resolved callees that are defined inside macro expansions")?;
            for (c, (n, ex)) in &ctx.macro_callees {
                writeln!(det, "- {n:4}x {c}\n        e.g. {ex}")?;
            }
            if !ctx.grep_hits.is_empty() {
                writeln!(det, "\n# {target}: --grep hits")?;
                for g in &ctx.grep_hits {
                    writeln!(det, "- {g}")?;
                }
            }
            std::fs::write(format!("{out}/{target}.details.md"), det)?;
            eprintln!("[walk] {target} done in {:.2?}, peak RSS {:.0} MiB", el, rss_mib());
        }
        Ok(())
    })?;
    let total = t0.elapsed();
    writeln!(report, "\nTIMING: load {:.2?}, total {:.2?}, peak RSS (VmHWM) {:.0} MiB", t_load, total, rss_mib())?;
    print!("{report}");
    std::fs::write(format!("{out}/summary.txt"), &report)?;
    Ok(())
}
