//! The walk over a crate's bodies: each call, where it is written and what it can run.

use errtrace_facts::{Call, CrateFacts, Loc, FORMAT};
use rustc_hir::def::{DefKind, Res};
use rustc_hir::def_id::DefId;
use rustc_hir::intravisit::{self, Visitor};
use rustc_hir::{Expr, ExprKind, QPath};
use rustc_middle::ty::{GenericArgsRef, TyCtxt, TypeckResults, TypingEnv};
use rustc_span::Ident;

use crate::locate::loc;
use crate::targets::{env_of, resolve, trait_of};

/// The facts of the crate being compiled.
pub(crate) fn crate_facts(tcx: TyCtxt<'_>, krate: String) -> CrateFacts {
    let root = tcx
        .sess
        .local_crate_source_file()
        .map(|p| {
            let p = p.local_path_if_available().to_path_buf();
            std::path::absolute(&p)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    let mut calls = Vec::new();
    for owner in tcx.hir().body_owners() {
        let typeck = tcx.typeck(owner);
        if typeck.tainted_by_errors.is_some() {
            continue;
        }
        let caller_def = tcx.typeck_root_def_id(owner.to_def_id());
        let Some(caller) = tcx.def_ident_span(caller_def).and_then(|s| loc(tcx, s)) else {
            continue;
        };
        let body = tcx.hir().body_owned_by(owner);
        let mut walk = Walk {
            tcx,
            typeck,
            env: env_of(tcx, owner),
            caller,
            calls: &mut calls,
        };
        walk.visit_body(body);
    }
    let workdir = std::env::current_dir()
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    CrateFacts {
        format: FORMAT,
        krate,
        root,
        workdir,
        calls,
    }
}

struct Walk<'a, 'tcx> {
    tcx: TyCtxt<'tcx>,
    typeck: &'tcx TypeckResults<'tcx>,
    env: TypingEnv<'tcx>,
    caller: Loc,
    calls: &'a mut Vec<Call>,
}

impl<'tcx> Walk<'_, 'tcx> {
    fn record(&mut self, def: DefId, args: GenericArgsRef<'tcx>, name: Ident) {
        let name_span = name.span;
        // `?`, `for`, `.await`: calls the compiler writes, not the source.
        if name_span.desugaring_kind().is_some() {
            return;
        }
        let in_macro = name_span.from_expansion();
        let written = if in_macro {
            name_span.source_callsite()
        } else {
            name_span
        };
        let Some(at) = loc(self.tcx, written) else {
            return;
        };
        let Some((dispatch, targets)) = resolve(self.tcx, self.env, def, args) else {
            return;
        };
        self.calls.push(Call {
            caller: self.caller.clone(),
            at,
            // As written: `baz` for `use foo::bar as baz; baz()`.
            name: name.to_string(),
            in_macro,
            dispatch,
            via_trait: trait_of(self.tcx, def),
            targets,
        });
    }
}

/// The name a path ends with (`f` in `a::b::f`, `new` in `Type::new`).
fn last_name(qpath: &QPath<'_>) -> Option<Ident> {
    match qpath {
        QPath::Resolved(_, path) => path.segments.last().map(|s| s.ident),
        QPath::TypeRelative(_, segment) => Some(segment.ident),
        QPath::LangItem(..) => None,
    }
}

impl<'tcx> Visitor<'tcx> for Walk<'_, 'tcx> {
    fn visit_expr(&mut self, expr: &'tcx Expr<'tcx>) {
        match expr.kind {
            ExprKind::Call(callee, _) => {
                if let ExprKind::Path(ref qpath) = callee.kind {
                    if let Res::Def(DefKind::Fn | DefKind::AssocFn, def) =
                        self.typeck.qpath_res(qpath, callee.hir_id)
                    {
                        if let Some(name) = last_name(qpath) {
                            let args = self.typeck.node_args(callee.hir_id);
                            self.record(def, args, name);
                        }
                    }
                }
            }
            ExprKind::MethodCall(segment, ..) => {
                if let Some(def) = self.typeck.type_dependent_def_id(expr.hir_id) {
                    let args = self.typeck.node_args(expr.hir_id);
                    self.record(def, args, segment.ident);
                }
            }
            _ => {}
        }
        intravisit::walk_expr(self, expr);
    }
}
