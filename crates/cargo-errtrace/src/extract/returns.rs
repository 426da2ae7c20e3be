//! Returned errors: `return e` and a function's (or a block's) tail expression, with whether
//! a log came before them in the block, recorded as sites like a `?`.

use syn::{Expr, Stmt};

use super::syntax::*;
use super::{guard, idents_of, walk, Rethrow, Walker};
use crate::model::*;

impl Walker<'_, '_> {
    /// A returned expression (`return e` or a tail), with the block's "logged before" flag.
    pub(super) fn returned(&mut self, e: &Expr, p: Pos, how: How, before: bool) {
        // `Err(e)` where `e` is the error of a matched call: the call's error passes on.
        if let Some((callee, handled)) = self.rethrown_callee(e) {
            self.push_site_with_before(p, How::Rethrow, Target::Call(callee), false, before);
            self.note_handled(handled);
            return;
        }
        let (target, attached) = self.classify(e);
        let attached = attached || self.value_logged_before(e);
        if let Some(t) = target {
            let made = matches!(t, Target::Made);
            self.guard_call = guard::guard_call(e);
            self.push_site_with_before(p, how, t, attached, before);
            self.guard_call = false;
            if made {
                self.note_errno(e);
            } else {
                self.note_init_args(e);
            }
        }
        if let Some((made, logged)) = self.closure_made(e) {
            self.push_site_with_before(p, how, made, logged, before);
        }
        self.replay_held_match(e, before);
    }

    /// `res` returned or `?`-ed, with `let res = match … { … };` before: each arm's value
    /// leaves, recorded where the arm is (as the function's tail would be).
    pub(super) fn replay_held_match(&mut self, e: &Expr, before: bool) {
        let Expr::Path(p) = strip(e) else { return };
        let Some(name) = p.path.get_ident().map(|i| i.to_string()) else {
            return;
        };
        // Once: the arms are recorded now, and the name no longer stands for them (a name is
        // held at most once: a new binding forgets the old).
        let Some(i) = self.held_matches.iter().position(|(n, _)| *n == name) else {
            return;
        };
        let (_, held) = self.held_matches.swap_remove(i);
        self.tail(&held, before, 0);
    }

    /// Records, on the site just pushed, the call arguments of `e` (through pass-through
    /// adapters) that are calls themselves: initialisers the callee may run.
    pub(super) fn note_init_args(&mut self, e: &Expr) {
        let args = self.call_args_of(e);
        if let Some(site) = self.active_fn().and_then(|ctx| ctx.summary.sites.last_mut()) {
            site.init_args = args;
        }
    }

    /// Records, on the site just pushed (a re-throw), the codes handled before it.
    pub(super) fn note_handled(&mut self, handled: Vec<String>) {
        if let Some(site) = self.active_fn().and_then(|ctx| ctx.summary.sites.last_mut()) {
            site.handled = handled;
        }
    }

    /// Records, on the site just pushed, the errno that `e` (the error made there) names.
    pub(super) fn note_errno(&mut self, e: &Expr) {
        let errno = errno_named(e);
        if let Some(site) = self.active_fn().and_then(|ctx| ctx.summary.sites.last_mut()) {
            if errno.is_some() {
                site.errno = errno;
            }
        }
    }

    pub(super) fn push_site_with_before(
        &mut self,
        pos: Pos,
        how: How,
        target: Target,
        attached: bool,
        before: bool,
    ) {
        self.record_site(pos, how, target, attached, before, false);
    }

    /// Tail expressions of the function body, through blocks, `if` and `match`.
    pub(super) fn tail(&mut self, e: &Expr, before: bool, depth: u32) {
        if depth > 64 {
            return;
        }
        match e {
            Expr::Block(b) => self.tail_block(&b.block, depth + 1),
            Expr::Unsafe(u) => self.tail_block(&u.block, depth + 1),
            Expr::Paren(p) => self.tail(&p.expr, before, depth + 1),
            Expr::Group(g) => self.tail(&g.expr, before, depth + 1),
            Expr::If(i) => {
                self.tail_block(&i.then_branch, depth + 1);
                if let Some((_, els)) = &i.else_branch {
                    self.tail(els, false, depth + 1);
                }
            }
            Expr::Match(m) => {
                let scrutinee = self.callee_of(strip(&m.expr)).map(|(c, _)| c);
                for (k, arm) in m.arms.iter().enumerate() {
                    let bound = match (&scrutinee, err_pattern(&arm.pat)) {
                        (Some(c), Some(Some(b))) => {
                            self.rethrow.push(Rethrow {
                                binding: b,
                                callee: c.clone(),
                                handled: handled_codes(&m.arms[..k]),
                            });
                            true
                        }
                        _ => false,
                    };
                    // `Err(AllocError) => Err(ENOMEM)`: an allocation's failure.
                    let alloc = walk::names_alloc_error(&arm.pat);
                    self.alloc_null_depth += u32::from(alloc);
                    // The arm's bindings, again: the body was visited before the tails are.
                    self.bind_variant_fields(&arm.pat);
                    self.tail(&arm.body, false, depth + 1);
                    self.alloc_null_depth -= u32::from(alloc);
                    if bound {
                        self.rethrow.pop();
                    }
                }
            }
            Expr::Return(_) | Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_) => {}
            other => {
                let p = made_at(other);
                self.returned(other, p, How::Tail, before);
            }
        }
    }

    pub(super) fn tail_block(&mut self, b: &syn::Block, depth: u32) {
        if let Some((Stmt::Expr(e, None), rest)) = b.stmts.split_last() {
            // A log covers the tail's error only since the last way out before it (as in
            // `visit_block`: a `pr_info!` at the top, then `enable()?`, is not about it).
            let since = rest.iter().rposition(has_way_out).map_or(0, |i| i + 1);
            let before = self.stmts_contain_log(rest.get(since..).unwrap_or_default());
            // The values the block's earlier logging statements name, for a local returned as
            // the tail (`if let Err(e) = &r { pr_err!(…, r) } r`).
            let named: Vec<String> = rest
                .iter()
                .filter(|s| self.stmts_contain_log(std::slice::from_ref(*s)))
                .flat_map(idents_of)
                .collect();
            self.logged_values.push(named);
            self.tail(e, before, depth);
            self.logged_values.pop();
        }
    }
}
