//! How kernel Rust allocates, as the walker sees it: a C allocator's result checked for null,
//! and calls that take GFP flags. Their failures are the allocator's to report (it warns unless
//! told `__GFP_NOWARN`), so errors made there are not silent origins.

use syn::visit::Visit;
use syn::Expr;

use super::syntax::{initialiser_arg, last_seg, strip};

/// `x.is_null()`: the local `x`.
pub(super) fn null_checked_local(cond: &Expr) -> Option<String> {
    match strip(cond) {
        Expr::MethodCall(m) if m.method == "is_null" && m.args.is_empty() => match strip(&m.receiver) {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// C functions named like allocators whose NULL is not only a failed allocation, and which
/// do not print it (checked against Linux 7.3's C sources): `alloc_io_pgtable_ops` returns
/// NULL, silently, for a format out of range, a custom allocator the format does not allow, a
/// format not built in, and a configuration the format rejects (`ias`/`oas` too large).
const NOT_ONLY_ALLOCATION: &[&str] = &["alloc_io_pgtable_ops"];

/// A call of a C allocator, the way kernel Rust writes it: `unsafe { bindings::kzalloc(…) }`,
/// `bindings::shrinker_alloc(…)`, through an `unsafe` block, parentheses, casts and
/// `.cast()`. The function's name says it allocates (`…alloc…`, not `…free…`/`dealloc`), and it
/// is not one of [`NOT_ONLY_ALLOCATION`].
pub(super) fn allocating_call(e: &Expr) -> bool {
    match strip(e) {
        Expr::Unsafe(u) => match u.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => allocating_call(inner),
            _ => false,
        },
        Expr::Cast(c) => allocating_call(&c.expr),
        Expr::MethodCall(m) if m.method == "cast" && m.args.is_empty() => allocating_call(&m.receiver),
        Expr::Call(c) => match strip(&c.func) {
            Expr::Path(p) => {
                let name = last_seg(&p.path).to_ascii_lowercase();
                name.contains("alloc")
                    && !name.contains("free")
                    && !name.contains("dealloc")
                    && !NOT_ONLY_ALLOCATION.contains(&name.as_str())
            }
            _ => false,
        },
        _ => false,
    }
}

/// The call a `?` applies to allocates with GFP flags the allocator warns for: an argument
/// names a `GFP_…` flag and none names `__GFP_NOWARN` (`RBTreeNodeReservation::new(GFP_KERNEL)`,
/// `v.reserve(n, GFP_KERNEL)`), through pass-through adapters (`.map_err(…)`). Constructors
/// that run an initialiser (`…init…`) are not when the initialiser is a call: its error is
/// followed instead; with a value (`Coherent::init(dev, GFP_KERNEL, args)`) they are.
pub(super) fn gfp_call(e: &Expr) -> bool {
    // The initialiser is the first or last argument, a call of a path (as the walker follows
    // it: `KBox::pin_init(Dev::new(…), GFP_KERNEL)`, `Coherent::init(dev, GFP_KERNEL,
    // Args::new(…))`).
    let init_call = |name: &str, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>| {
        name.contains("init") && initialiser_arg(args).is_some()
    };
    match super::syntax::block_value(e) {
        Expr::MethodCall(m) if crate::logging::passes_through(&m.method.to_string()) => gfp_call(&m.receiver),
        Expr::MethodCall(m) => !init_call(&m.method.to_string(), &m.args) && m.args.iter().any(mentions_gfp),
        Expr::Call(c) => match strip(&c.func) {
            Expr::Path(p) => !init_call(&last_seg(&p.path), &c.args) && c.args.iter().any(mentions_gfp),
            _ => false,
        },
        _ => false,
    }
}

/// Names a `GFP_…` flag and not `__GFP_NOWARN`.
pub(super) fn mentions_gfp(e: &Expr) -> bool {
    struct Flags {
        gfp: bool,
        nowarn: bool,
        depth: u32,
    }
    impl<'ast> Visit<'ast> for Flags {
        fn visit_expr(&mut self, e: &'ast Expr) {
            if self.depth < 16 {
                self.depth += 1;
                syn::visit::visit_expr(self, e);
                self.depth -= 1;
            }
        }
        fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
            let n = s.ident.to_string();
            self.nowarn |= n == "__GFP_NOWARN";
            self.gfp |= n.starts_with("GFP_") || n.starts_with("__GFP_");
        }
    }
    let mut f = Flags {
        gfp: false,
        nowarn: false,
        depth: 0,
    };
    f.visit_expr(e);
    f.gfp && !f.nowarn
}
