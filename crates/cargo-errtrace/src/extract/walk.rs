//! The walk itself: which syntax-tree nodes make sites, checks and counts.

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, Pat, Stmt};

use super::alloc::{allocating_call, gfp_call, null_checked_local};
use super::guard::guard_call;
use super::inspect::{BodyInfo, BodyInspector};
use super::syntax::*;
use super::{idents_of, ImplCtx, Rethrow, Walker, OPTION_CLOSURE_ADAPTERS, QUOTE_MACROS};
use crate::findings::Kind;
use crate::logging::PANIC_MACROS;
use crate::model::*;

impl<'ast> Visit<'ast> for Walker<'_, '_> {
    fn visit_file(&mut self, f: &'ast syn::File) {
        for a in &f.attrs {
            if a.path().is_ident("no_std") {
                self.out.no_std = true;
            }
        }
        visit::visit_file(self, f);
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        visit::visit_item_macro(self, m);
        // `impl_int_module_param!(u8);`: the items the file's own macro makes here.
        if m.ident.is_none() {
            if let Some(name) = m.mac.path.get_ident() {
                let at = name.span().start();
                if let Some(items) = self.expansions.remove(&(at.line, at.column)) {
                    for item in &items {
                        self.visit_item(item);
                    }
                }
            }
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_test_attr(&m.attrs);
        if m.content.is_none() && self.mods.is_empty() {
            self.out.mod_items.push(crate::model::ModItem {
                name: m.ident.to_string().trim_start_matches("r#").to_string(),
                path: path_attr(&m.attrs),
                test_only: test,
            });
        }
        if test {
            self.test_depth += 1;
        }
        self.mods.push(m.ident.to_string());
        visit::visit_item_mod(self, m);
        self.mods.pop();
        if test {
            self.test_depth -= 1;
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let owner = type_last_seg(&i.self_ty);
        let trait_name = i.trait_.as_ref().map(|(_, p, _)| last_seg(p));
        let trait_path = i
            .trait_
            .as_ref()
            .map(|(_, p, _)| p.segments.iter().map(|s| s.ident.to_string()).collect())
            .unwrap_or_default();
        let vtable = i.attrs.iter().any(|a| a.path().is_ident("vtable"));
        self.impls.push(ImplCtx {
            owner,
            trait_name,
            trait_path,
            vtable,
            is_trait: false,
            assoc: super::assoc::of_impl(i),
        });
        // `impl Iterator for SeqIter { type Item = Result<Cmd>; }`: items of a `SeqIter` are
        // `Cmd`s.
        if let (Some(owner), Some((_, t, _))) = (type_last_seg(&i.self_ty), &i.trait_) {
            if last_seg(t) == "Iterator" {
                let item = i.items.iter().find_map(|it| match it {
                    syn::ImplItem::Type(ty) if ty.ident == "Item" => value_type_of(&ty.ty),
                    _ => None,
                });
                if let Some(item) = item {
                    self.out.iter_items.push((owner, item));
                }
            }
        }
        self.generics.push(type_params(&i.generics));
        self.bounds.push(type_bounds(&i.generics));
        self.with_test_attrs(&i.attrs, |w| visit::visit_item_impl(w, i));
        self.generics.pop();
        self.bounds.pop();
        self.impls.pop();
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        if self.test_depth == 0 {
            self.out.traits.push(t.ident.to_string());
            for item in &t.items {
                if let syn::TraitItem::Fn(f) = item {
                    self.out.trait_methods.push(f.sig.ident.to_string());
                }
            }
        }
        self.impls.push(ImplCtx {
            owner: Some(t.ident.to_string()),
            trait_name: Some(t.ident.to_string()),
            trait_path: vec![t.ident.to_string()],
            vtable: false,
            is_trait: true,
            assoc: Vec::new(),
        });
        let mut g = type_params(&t.generics);
        g.push("Self".to_string());
        self.generics.push(g);
        let mut b = type_bounds(&t.generics);
        b.push(("Self".to_string(), t.ident.to_string()));
        // `trait ParseInt: private::FromStrRadix`: in a default method, `Self::from_u64_negated`
        // is a supertrait's method, implemented by each type's impl of it.
        for bound in &t.supertraits {
            if let syn::TypeParamBound::Trait(tb) = bound {
                b.push(("Self".to_string(), last_seg(&tb.path)));
            }
        }
        self.bounds.push(b);
        visit::visit_item_trait(self, t);
        self.generics.pop();
        self.bounds.pop();
        self.impls.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        // A free function, even when nested in an impl method's body.
        let saved = std::mem::take(&mut self.impls);
        self.function(&f.sig, &f.attrs, &f.block, false);
        self.impls = saved;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.sig, &f.attrs, &f.block, true);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(b) = &f.default {
            self.function(&f.sig, &f.attrs, b, true);
        }
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        if let Some(ty) = param_type_name(&s.ty) {
            self.out.statics.push((s.ident.to_string(), ty));
        }
        visit::visit_item_static(self, s);
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        if let Some(ty) = param_type_name(&c.ty) {
            self.out.statics.push((c.ident.to_string(), ty));
        }
        visit::visit_item_const(self, c);
    }

    fn visit_item_type(&mut self, t: &'ast syn::ItemType) {
        if let Some(target) = type_last_seg(&t.ty) {
            self.out.type_aliases.push((t.ident.to_string(), target));
        }
        visit::visit_item_type(self, t);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut stack: Vec<(Vec<String>, &syn::UseTree)> = vec![(Vec::new(), &u.tree)];
        while let Some((prefix, tree)) = stack.pop() {
            match tree {
                syn::UseTree::Path(p) => {
                    let mut pre = prefix.clone();
                    let id = p.ident.to_string();
                    if pre.is_empty() && id == "kernel" && self.macro_depth == 0 {
                        self.out.uses_kernel = true;
                    }
                    pre.push(id);
                    stack.push((pre, &p.tree));
                }
                syn::UseTree::Name(n) => {
                    let id = n.ident.to_string();
                    if id == "self" {
                        if let Some(last) = prefix.last() {
                            self.out.uses.push((last.clone(), prefix.clone()));
                        }
                    } else {
                        let mut full = prefix.clone();
                        full.push(id.clone());
                        self.out.uses.push((id, full));
                    }
                }
                syn::UseTree::Rename(r) => {
                    let mut full = prefix.clone();
                    full.push(r.ident.to_string());
                    self.out.uses.push((r.rename.to_string(), full));
                }
                syn::UseTree::Glob(_) => self.out.uses.push(("*".to_string(), prefix.clone())),
                syn::UseTree::Group(g) => {
                    for t in &g.items {
                        stack.push((prefix.clone(), t));
                    }
                }
            }
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if !self.out.uses_kernel
            && self.macro_depth == 0
            && p.segments.len() > 1
            && p.segments.first().is_some_and(|s| s.ident == "kernel")
        {
            self.out.uses_kernel = true;
        }
        visit::visit_path(self, p);
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.frames.push(false);
        self.logged_values.push(Vec::new());
        let at_start = self.log_mark();
        for s in &b.stmts {
            let before = self.log_mark();
            let exits = self.exits;
            self.visit_stmt(s);
            // Logs of this statement outside the blocks in it that leave the function; a
            // progress line (`dev_info!(…, "Probed with info\n")`) tells of no failure, so it
            // logs no error made after it.
            if self.logs_staying_since(before) > 0 && !progress_logs_only(self.names, s) {
                if let Some(f) = self.frames.last_mut() {
                    *f = true;
                }
                let names = idents_of(s);
                if let Some(v) = self.logged_values.last_mut() {
                    v.extend(names);
                }
            } else if self.exits != exits {
                // A way out since the log (`pr_info!("probing")`, then `enable()?`): an error
                // made after it is not the one the log was about.
                if let Some(f) = self.frames.last_mut() {
                    *f = false;
                }
            }
        }
        if block_leaves(b) {
            // Every log in this block is on its way out: none logs what follows it.
            self.logs_leave_since(at_start);
        }
        self.frames.pop();
        self.logged_values.pop();
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        // `Err(AllocError) => return Err(ENOMEM)`: an error made for a failed allocation.
        let alloc = names_alloc_error(&a.pat);
        self.alloc_null_depth += u32::from(alloc);
        self.frames.push(false);
        self.bind_variant_fields(&a.pat);
        visit::visit_arm(self, a);
        self.frames.pop();
        self.alloc_null_depth -= u32::from(alloc);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        // A pin-init scope's closure is the function's initialiser, not a closure of its own.
        let counted = !std::mem::take(&mut self.scope_closure);
        if let Some(f) = self.fns.last_mut() {
            f.closure_depth += u32::from(counted);
        }
        // `.map_err(|AllocError| ENOMEM)`: the same, as a closure.
        let alloc = c.inputs.iter().any(names_alloc_error);
        self.alloc_null_depth += u32::from(alloc);
        self.frames.push(false);
        visit::visit_expr_closure(self, c);
        self.frames.pop();
        self.alloc_null_depth -= u32::from(alloc);
        if let Some(f) = self.fns.last_mut() {
            f.closure_depth -= u32::from(counted);
        }
    }

    fn visit_expr_async(&mut self, a: &'ast syn::ExprAsync) {
        if let Some(f) = self.fns.last_mut() {
            f.closure_depth += 1;
        }
        visit::visit_expr_async(self, a);
        if let Some(f) = self.fns.last_mut() {
            f.closure_depth -= 1;
        }
    }

    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        self.out.question_marks += 1;
        let mut on_the_way_out = false;
        let cannot_fail = self.test_depth == 0 && self.unrevoked_access(&t.expr);
        if cannot_fail {
            self.out.cannot_fail_checks += 1;
        }
        if self.test_depth == 0 && !self.fns.is_empty() && !cannot_fail {
            let (target, attached) = self.classify(&t.expr);
            // `.inspect_err(|e| dev_err!(…))?`: the log runs only when the error leaves here.
            on_the_way_out = attached;
            // `to_result(ret)?` after a log about `ret`.
            let attached = attached || self.value_logged_before(&t.expr);
            if let Some(target) = target {
                self.gfp_call = (gfp_call(&t.expr) && !self.runs_local_initialiser(&t.expr))
                    || self.null_allocation(&t.expr)
                    || names_alloc_error_value(&t.expr);
                self.guard_call = guard_call(&t.expr);
                let made = matches!(target, Target::Made);
                self.add_site(pos(t.question_token.span), How::Try, target, attached);
                self.gfp_call = false;
                self.guard_call = false;
                if made {
                    self.note_errno(&t.expr);
                }
                self.note_init_args(&t.expr);
            }
            if let Some((made, logged)) = self.closure_made(&t.expr) {
                self.add_site(pos(t.question_token.span), How::Try, made, logged);
            }
            let before = self.before_flag();
            self.replay_held_match(&t.expr, before);
        }
        let before = self.log_mark();
        visit::visit_expr_try(self, t);
        if on_the_way_out {
            // The logs attached to this `?`'s error run only on its way out: what follows is
            // not logged by them.
            self.logs_leave_since(before);
        }
    }

    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        if let Some(e) = &r.expr {
            if self.test_depth == 0 && !self.fns.is_empty() {
                let before = self.before_flag();
                self.returned(e, pos(r.return_token.span), How::Return, before);
            }
        }
        visit::visit_expr_return(self, r);
    }

    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        // `loop { match f() { …, Err(e) => break Err(e) } }` as the function's value: the
        // loop re-throws f's error, a hop like `return Err(e)`.
        if let Some(e) = &b.expr {
            if self.test_depth == 0 && !self.fns.is_empty() {
                if let Some((callee, handled)) = self.rethrown_callee(e) {
                    let before = self.before_flag();
                    self.push_site_with_before(
                        pos(b.break_token.span),
                        How::Rethrow,
                        Target::Call(callee),
                        false,
                        before,
                    );
                    self.note_handled(handled);
                }
            }
        }
        visit::visit_expr_break(self, b);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        // `for (proc, msg) in self.batch` with `batch: KVVec<(Arc<Process>, DLArc<Msg>)>`:
        // `proc` is a `Process` (the field's element types, for method calls on them).
        self.bind_loop_items(f);
        // `for cmd in SeqIter::new(…)`: `cmd` is an item of a `SeqIter`.
        if let Pat::Ident(p) = &*f.pat {
            let name = p.ident.to_string();
            self.item_locals.retain(|(n, _)| *n != name);
            let iter_ty = match strip(&f.expr) {
                e @ (Expr::Call(_) | Expr::Try(_)) => called_path(e).and_then(|p| {
                    let segs = self.path_segs(p);
                    segs.len().checked_sub(2).and_then(|i| segs.get(i)).cloned()
                }),
                e => self.param_type(e),
            };
            if let Some(ty) = iter_ty {
                self.item_locals.push((name, ty));
            }
        }
        visit::visit_expr_for_loop(self, f);
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        // `match item { Ok(cmd) => cmd.run(…)?, … }` with `item` an iterator's item: `cmd` too.
        let item_of = self.item_local(strip(&m.expr));
        if let Some(ty) = item_of {
            for arm in &m.arms {
                if let Pat::TupleStruct(ts) = &arm.pat {
                    let wrapper = ts
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "Ok" || s.ident == "Some");
                    if let (true, Some(Pat::Ident(id))) = (wrapper, ts.elems.first()) {
                        let name = id.ident.to_string();
                        self.item_locals.retain(|(n, _)| *n != name);
                        self.item_locals.push((name, ty.clone()));
                    }
                }
            }
        }
        let scrutinee = self.callee_of(strip(&m.expr)).map(|(c, _)| c);
        // `match A::realloc(…) { Err(_) => ptr, … }`: a failed allocation is the allocator's to
        // report; going on without the memory loses nothing.
        let allocation = allocating_call(strip(&m.expr));
        for (k, arm) in m.arms.iter().enumerate() {
            let pat = err_pattern(&arm.pat);
            if let Some(binding) = &pat {
                if arm.guard.is_none() {
                    let mut bi = BodyInspector {
                        names: self.names,
                        binding: binding.as_deref(),
                        info: BodyInfo::default(),
                    };
                    bi.visit_expr(&arm.body);
                    let i = bi.info;
                    // In an `extern "C"` fn, an arm that gives a value (`Err(_) => POLLERR`, a
                    // null the C side maps to -ENOMEM) converts the error for its C caller.
                    let to_c = !is_empty_body(&arm.body)
                        && self.fns.last().is_some_and(|f| f.c_abi && f.closure_depth == 0);
                    // The kernel's C-interface shim, `match f() { Ok(()) => 0, Err(e) =>
                    // e.to_errno() }`: the callee's error goes on to the C caller as a value,
                    // a hop into this boundary (unless the arm logs it).
                    if to_c && i.uses && !i.log {
                        if let Some(callee) = &scrutinee {
                            self.push_site_with_before(
                                pos(arm.pat.span()),
                                How::Try,
                                Target::Call(callee.clone()),
                                false,
                                false,
                            );
                        }
                    }
                    if !i.log && !i.exits && !i.uses && !to_c && !allocation {
                        let what = if is_empty_body(&arm.body) {
                            "does nothing with it"
                        } else {
                            "goes on without logging or returning it"
                        };
                        self.local_finding(
                            Kind::Swallowed,
                            pos(arm.pat.span()),
                            format!("`Err` arm swallows the error: it {what}"),
                        );
                    }
                }
            }
            let bound = match (&scrutinee, pat) {
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
            self.visit_arm(arm);
            if bound {
                self.rethrow.pop();
            }
        }
    }

    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        if let Expr::Let(l) = &*i.cond {
            if err_pattern(&l.pat).is_some() && i.then_branch.stmts.is_empty() {
                self.local_finding(
                    Kind::Swallowed,
                    pos(l.pat.span()),
                    "`if let Err(…) = … {}` with an empty body swallows the error".to_string(),
                );
            }
            // `if let Ok(conf) = this.read_config() { … }` without an `else`, in a function
            // that returns nothing (a `shutdown`, a `drop`): the error has nowhere to go, and
            // is decided as `.ok()` is. In a function returning a `Result` the author chose
            // not to pass it on (a fallback to the code after the `if`), and `Ok(Some(…))` is
            // a lookup whose failure is one more way of finding nothing.
            let returns_nothing = self
                .fns
                .last()
                .is_some_and(|f| f.closure_depth == 0 && matches!(f.summary.ret, Ret::Unit));
            if ok_pattern(&l.pat) && i.else_branch.is_none() && returns_nothing {
                if let Some((callee, false)) = self.callee_of(strip(&l.expr)) {
                    self.add_check(
                        pos(l.pat.span()),
                        CheckKind::UnwrapOr {
                            method: IF_LET_OK.to_string(),
                            callee,
                        },
                    );
                }
            }
        }
        // `if p.is_null() { return Err(…) }` after `let p = …alloc…(…)`: the errors made in
        // that branch are the allocation's failure, which the allocator reports.
        let null_alloc = null_checked_local(&i.cond).is_some_and(|n| self.alloc_locals.contains(&n));
        // `if e == EPROBE_DEFER { return Err(e); }`: a deferral handed back on purpose, which
        // the driver core records and retries (errtrace's own policy keeps it quiet too); the
        // same for a wait's `ERESTARTSYS`.
        let deliberate = crate::model::DELIBERATE_CODES
            .iter()
            .copied()
            .find(|c| compares_with(&i.cond, c));
        if !null_alloc && deliberate.is_none() {
            visit::visit_expr_if(self, i);
            return;
        }
        self.visit_expr(&i.cond);
        self.alloc_null_depth += u32::from(null_alloc);
        let outer = self.deliberate;
        if deliberate.is_some() {
            self.deliberate = deliberate;
        }
        self.visit_block(&i.then_branch);
        self.alloc_null_depth -= u32::from(null_alloc);
        self.deliberate = outer;
        if let Some((_, e)) = &i.else_branch {
            self.visit_expr(e);
        }
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let (Pat::Wild(_), Some(init)) = (&l.pat, &l.init) {
            if init.diverge.is_none() {
                self.discard(&init.expr, "let _ =", pos(l.let_token.span));
            }
        }
        // A local whose type the source states, `let dev: Device = …` or `let dev =
        // Device::new(…)?`, resolves `dev.m(…)` like a parameter of that type (the last binding
        // of a name wins, as shadowing does).
        // `let inner = self.inner.lock();`, `let regs = &self.regs;`: the field's type, or its
        // contents' through the accessor.
        let from_field = || {
            let (Pat::Ident(p), Some(init)) = (&l.pat, &l.init) else {
                return None;
            };
            let e = match strip(&init.expr) {
                Expr::Reference(r) => strip(&r.expr),
                e => e,
            };
            Some((p.ident.to_string(), self.field_type(e)?))
        };
        let typed = typed_local(l).or_else(from_field);
        if let Pat::Ident(p) = &l.pat {
            let name = p.ident.to_string();
            let Some(init) = &l.init else {
                self.forget_local(&name);
                return visit::visit_local(self, l);
            };
            // What the new binding holds, decided with the bindings before it.
            let c_function = c_function_called(&init.expr);
            let allocation = allocating_call(&init.expr);
            // `let result = f(…);` or `let result = { …; f(…) };`: the call's `Result`, held.
            let held = match block_value(&init.expr) {
                e @ (Expr::Call(_) | Expr::MethodCall(_)) if init.diverge.is_none() => {
                    match self.classify(e) {
                        (Some(t @ (Target::Call(_) | Target::OriginFn(..))), a) => Some((t, a)),
                        _ => None,
                    }
                }
                _ => None,
            };
            let closure = matches!(strip(&init.expr), Expr::Closure(_));
            // `let falcon = ctx.gsp_falcon;`: the field's declared type, found with the index.
            let field = match strip(&init.expr) {
                Expr::Reference(r) => self.typed_field(strip(&r.expr)),
                e @ Expr::Field(_) => self.typed_field(e),
                _ => None,
            };
            // `let hal = gsp_hal(chip);`: the call's value type, found once the call is resolved.
            let call = called_path(&init.expr).map(|path| self.path_segs(path));
            self.forget_local(&name);
            self.bound_locals.push(name.clone());
            if let Some(c) = c_function {
                self.c_locals.push((name.clone(), c));
            }
            if allocation {
                self.alloc_locals.push(name.clone());
            }
            if let Some((t, a)) = held {
                self.result_locals.push((name.clone(), t, a));
            }
            if init.diverge.is_none() {
                let value = block_value(&init.expr);
                let branches = match value {
                    Expr::Match(_) => true,
                    Expr::If(i) => i.else_branch.is_some(),
                    _ => false,
                };
                if branches {
                    self.held_matches.push((name.clone(), value.clone()));
                }
            }
            if closure {
                self.closure_locals.push(name.clone());
            }
            if typed.is_none() {
                if let Some((ty, f)) = field {
                    self.field_locals.push((name.clone(), (ty, f)));
                }
                if let Some(segs) = call {
                    self.value_locals.push((name, segs));
                }
            }
        }
        if let Some((name, ty)) = typed {
            if let Some(params) = self.params.last_mut() {
                params.retain(|(n, _)| *n != name);
                params.push((name, ty));
            }
        }
        visit::visit_local(self, l);
    }

    fn visit_stmt(&mut self, s: &'ast Stmt) {
        if let Stmt::Expr(e, Some(_)) = s {
            match e {
                Expr::Assign(a) if matches!(&*a.left, Expr::Infer(_)) => {
                    self.discard(&a.right, "_ =", pos(a.left.span()));
                }
                // A discard, not a swallow: its receiver is visited, not the `.ok()` itself.
                Expr::MethodCall(m) if m.method == "ok" && m.args.is_empty() => {
                    let (_, logged) = self.classify(&m.receiver);
                    if !logged {
                        if self.callee_of(&m.receiver).is_some() {
                            // Decided with the whole tree, as `let _ =` is: a callee that logs
                            // its own failures, or a comment's reason, loses nothing.
                            self.discard_as(&m.receiver, ".ok();", pos(m.method.span()), true);
                        } else {
                            self.local_finding(
                                Kind::Discarded,
                                pos(m.method.span()),
                                "`.ok();` throws away a result and its error".to_string(),
                            );
                        }
                    }
                    self.visit_expr(&m.receiver);
                    return;
                }
                Expr::Call(c) if c.args.len() == 1 => {
                    if let Expr::Path(p) = strip(&c.func) {
                        if last_seg(&p.path) == "drop" {
                            if let Some(arg) = c.args.first() {
                                self.discard(arg, "drop(…)", pos(c.func.span()));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        visit::visit_stmt(self, s);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = strip(&c.func) {
            let last = last_seg(&p.path);
            if self.names.is_log_function(&last) {
                self.out.log_calls += 1;
            }
            // `pin_init_scope(move || { …; if bad { return Err(EINVAL); } … })`: the closure is
            // the function's initialiser.
            if SCOPE_CALLS.contains(&last.as_str()) {
                if let Some((closure @ Expr::Closure(_), rest)) =
                    c.args.iter().map(strip).collect::<Vec<_>>().split_last()
                {
                    self.visit_expr(&c.func);
                    for a in rest {
                        self.visit_expr(a);
                    }
                    self.scope_closure = true;
                    self.visit_expr(closure);
                    self.scope_closure = false;
                    return;
                }
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        // `.find_map(|l| Some(l.split_once(…)?.0))`: the closure returns an `Option`, so its
        // `?` is no error path (the `rustdoc_test_builder` false chains of Linux 6.12).
        if OPTION_CLOSURE_ADAPTERS.contains(&name.as_str()) {
            self.visit_expr(&m.receiver);
            for a in &m.args {
                let closure = matches!(a, Expr::Closure(_));
                self.option_closures += u32::from(closure);
                self.visit_expr(a);
                self.option_closures -= u32::from(closure);
            }
            return;
        }
        if self
            .names
            .is_log_method(&name, first_arg_is_text(&m.args), m.args.len())
        {
            self.out.log_calls += 1;
        }
        match name.as_str() {
            // `.ok()` turns the error into `None`, which says nothing of why (Rust binder's
            // `reserve_existing(offset).ok()?` loses a bad `BC_FREE_BUFFER` pointer).
            // `.ok().unwrap()` panics on the `None`: not a swallow (the `unwrap` is checked).
            "ok" if m.args.is_empty() && self.unwrapped_ok != Some(pos(m.method.span())) => {
                if let Some((callee, attached)) = self.callee_of(&m.receiver) {
                    if !attached {
                        self.add_check(
                            pos(m.method.span()),
                            CheckKind::UnwrapOr {
                                method: name.clone(),
                                callee,
                            },
                        );
                    }
                }
            }
            // In an `extern "C"` function the error becomes the plain value its C caller
            // takes (`T::get(&mut policy).unwrap_or(0)`: 0 is "unknown"): handed over, as by
            // an `Err` arm there.
            "unwrap_or" | "unwrap_or_default" | "unwrap_or_else"
                if self.fns.last().is_some_and(|f| f.c_abi) => {}
            "unwrap_or" | "unwrap_or_default" | "unwrap_or_else" => {
                let logged = name == "unwrap_or_else" && self.contains_log(&m.args);
                if let Some((callee, attached)) = self.callee_of(&m.receiver) {
                    if !logged && !attached {
                        self.add_check(
                            pos(m.method.span()),
                            CheckKind::UnwrapOr {
                                method: name.clone(),
                                callee,
                            },
                        );
                    }
                }
            }
            "unwrap" | "expect" => {
                if let Expr::MethodCall(ok) = strip(&m.receiver) {
                    if ok.method == "ok" && ok.args.is_empty() {
                        self.unwrapped_ok = Some(pos(ok.method.span()));
                    }
                }
                if let Some((callee, _)) = self.callee_of(&m.receiver) {
                    self.add_check(
                        pos(m.method.span()),
                        CheckKind::Unwrap {
                            method: name.clone(),
                            callee,
                        },
                    );
                }
            }
            _ => {}
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = last_seg(&m.path);
        if name == "macro_rules" {
            return;
        }
        if !self.out.uses_kernel
            && self.macro_depth == 0
            && m.path.segments.first().is_some_and(|s| s.ident == "kernel")
        {
            self.out.uses_kernel = true;
        }
        if QUOTE_MACROS.contains(&name.as_str()) {
            return;
        }
        if self.names.is_log_macro(&name) || name == "err" && tokens_have_str(&m.tokens) {
            self.out.log_calls += 1;
        }
        if PANIC_MACROS.contains(&name.as_str()) {
            self.add_check(pos(m.path.span()), CheckKind::PanicMacro(name.clone()));
        }
        if self.body_may_matter(m) {
            // `pin_init!(Foo { a <- A::new() })` takes infallible initialisers only; with
            // `? Error` after the struct (or as `try_pin_init!`) they may fail.
            let infallible = (name == "pin_init" || name == "init") && !has_top_level_question(&m.tokens);
            self.macro_depth += 1;
            self.infallible_init += u32::from(infallible);
            self.macro_body(&m.tokens);
            self.infallible_init -= u32::from(infallible);
            self.macro_depth -= 1;
        }
    }
}

/// A pattern that names the allocator's error (`AllocError`, `Err(AllocError)`, `_:
/// AllocError`): what is made where it matched is an allocation's failure.
pub(super) fn names_alloc_error(p: &syn::Pat) -> bool {
    struct Names(bool);
    impl<'ast> Visit<'ast> for Names {
        fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
            self.0 |= s.ident == "AllocError";
            visit::visit_path_segment(self, s);
        }
        // `Err(AllocError)`: a unit struct in a pattern parses as an identifier.
        fn visit_pat_ident(&mut self, i: &'ast syn::PatIdent) {
            self.0 |= i.ident == "AllocError";
            visit::visit_pat_ident(self, i);
        }
    }
    let mut n = Names(false);
    n.visit_pat(p);
    n.0
}

/// Whether every logging macro in `s` is a progress line (`pr_info!`, `dev_notice!`…): it
/// reports no failure, so an error made after it is not the one it logs. A statement with an
/// error or warning macro, or with no logging macro (a logging method or function), is not.
fn progress_logs_only(names: &crate::logging::Names, s: &Stmt) -> bool {
    struct Levels<'n> {
        names: &'n crate::logging::Names,
        progress: bool,
        other: bool,
    }
    impl<'ast> Visit<'ast> for Levels<'_> {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let name = last_seg(&m.path);
            if self.names.is_log_macro(&name) {
                if crate::logging::is_progress_level(&name) {
                    self.progress = true;
                } else {
                    self.other = true;
                }
            }
        }
    }
    let mut l = Levels {
        names,
        progress: false,
        other: false,
    };
    l.visit_stmt(s);
    l.progress && !l.other
}
