//! What a call can run: the one function a path or method names, the implementation the
//! types select for a trait method, or, through `dyn Trait` or a generic parameter, every
//! implementation the crate can see.

use errtrace_facts::{Dispatch, Target};
use rustc_hir::def_id::DefId;
use rustc_middle::ty::{self, GenericArgsRef, Instance, InstanceKind, TyCtxt, TypingEnv};

use crate::locate::loc;
use crate::SYSROOT_CRATES;

/// Most implementations listed for one dynamic or generic call.
pub(crate) const MAX_CANDIDATES: usize = 64;

/// How the call of `def` with `args` (in a body whose typing environment is `env`) chooses
/// its function, and what it can run. `None` when the compiler cannot say (a body with type
/// errors).
pub(crate) fn resolve<'tcx>(
    tcx: TyCtxt<'tcx>,
    env: TypingEnv<'tcx>,
    def: DefId,
    args: GenericArgsRef<'tcx>,
) -> Option<(Dispatch, Vec<Target>)> {
    let Some(trait_id) = tcx.trait_of_item(def) else {
        return Some((Dispatch::Static, vec![target(tcx, def)]));
    };
    let args = tcx.try_normalize_erasing_regions(env, args).unwrap_or(args);
    match Instance::try_resolve(tcx, env, def, args) {
        Ok(Some(instance)) => match instance.def {
            InstanceKind::Item(item) => Some((Dispatch::Resolved, vec![target(tcx, item)])),
            InstanceKind::Virtual(..) => {
                Some((Dispatch::Dynamic, implementations(tcx, trait_id, def)))
            }
            // A shim the compiler makes (`Clone` of a tuple, a closure called through `Fn`):
            // the trait's own method names it.
            _ => Some((Dispatch::Resolved, vec![target(tcx, def)])),
        },
        Ok(None) => Some((Dispatch::Generic, implementations(tcx, trait_id, def))),
        Err(_) => None,
    }
}

/// Every implementation of the trait method `method` that the crate can see (its own and its
/// dependencies', not the compiler's library's), and the trait's default when it has one (an
/// implementer that does not override it runs it, and the implementers of a trait are often in
/// crates this one cannot see). At most [`MAX_CANDIDATES`].
fn implementations(tcx: TyCtxt<'_>, trait_id: DefId, method: DefId) -> Vec<Target> {
    let mut out = Vec::new();
    if tcx.defaultness(method).has_value() {
        out.push(target(tcx, method));
    }
    for impl_id in tcx.all_impls(trait_id) {
        if out.len() >= MAX_CANDIDATES {
            break;
        }
        if SYSROOT_CRATES.contains(&tcx.crate_name(impl_id.krate).as_str()) {
            continue;
        }
        if let Some(&item) = tcx.impl_item_implementor_ids(impl_id).get(&method) {
            out.push(target(tcx, item));
        }
    }
    out
}

/// A function as the facts name it: its path, where its name is written, and the macro call
/// that made it, if one did.
pub(crate) fn target(tcx: TyCtxt<'_>, def: DefId) -> Target {
    let span = tcx.def_ident_span(def);
    Target {
        path: tcx.def_path_str(def),
        owner: owner(tcx, def),
        at: span.and_then(|s| loc(tcx, s)),
        // The item's whole span comes from an expansion even when its name was passed in
        // (`make!(name)`).
        made_by_macro: Some(tcx.def_span(def))
            .filter(|s| s.from_expansion())
            .and_then(|s| loc(tcx, s.source_callsite())),
    }
}

/// The name of the type an associated function's `impl` is for, or of its trait for a
/// trait's own (default) method.
fn owner(tcx: TyCtxt<'_>, def: DefId) -> Option<String> {
    if let Some(impl_id) = tcx.impl_of_method(def) {
        let ty = tcx.type_of(impl_id).skip_binder();
        return ty
            .ty_adt_def()
            .map(|adt| tcx.item_name(adt.did()).to_string());
    }
    tcx.trait_of_item(def).map(|t| tcx.item_name(t).to_string())
}

/// The name of the trait a method belongs to.
pub(crate) fn trait_of(tcx: TyCtxt<'_>, def: DefId) -> Option<String> {
    tcx.trait_of_item(def).map(|t| tcx.item_name(t).to_string())
}

/// The typing environment a body's calls are resolved in.
pub(crate) fn env_of(tcx: TyCtxt<'_>, body: rustc_hir::def_id::LocalDefId) -> TypingEnv<'_> {
    ty::TypingEnv::post_analysis(tcx, body)
}
