//! What an error comes from: the call, the origin function or the `Err` an expression's error
//! is (through adapters, a local that holds a call's `Result`, a lock's contents, a chained
//! initialiser), and whether a log is attached to it.

use syn::{Expr, Pat};

use super::syntax::*;
use super::{alloc, plain_local, Walker};
use crate::logging::{runs_on_error, MethodRole};
use crate::model::*;

impl Walker<'_, '_> {
    /// `mapping.try_access().ok_or(ENXIO)` in a probe, with `mapping` a `Devres` bound in the
    /// same probe: a check that cannot fail. A `Devres` is revoked when its device unbinds,
    /// which cannot happen while the device's probe runs, so nothing made in the probe can be
    /// gone yet.
    pub(super) fn unrevoked_access(&self, e: &Expr) -> bool {
        let in_probe = self
            .fns
            .last()
            .is_some_and(|f| f.summary.boundary == Some(Boundary::Probe));
        let Expr::MethodCall(m) = strip(e) else {
            return false;
        };
        if !in_probe || !crate::logging::MAKERS.contains(&m.method.to_string().as_str()) {
            return false;
        }
        let Expr::MethodCall(access) = strip(&m.receiver) else {
            return false;
        };
        access.method == "try_access"
            && local_name(strip(&access.receiver)).is_some_and(|n| self.bound_locals.contains(&n))
    }

    /// The declared type of a receiver that is a parameter of the current function.
    pub(super) fn param_type(&self, recv: &Expr) -> Option<String> {
        latest(self.params.last()?, &local_name(recv)?).cloned()
    }

    /// The declared type of `self.field` (the enclosing impl's struct, in this file), or of
    /// the contents of a lock or guarded container in one, reached through its accessor
    /// (`self.manager.lock()` with `manager: Mutex<Manager>` → `Manager`).
    /// An element of such a field (`self.endpoints[i]`, `self.endpoints[i].lock()`) has the
    /// collection's element type, or its contents.
    pub(super) fn field_type(&self, recv: &Expr) -> Option<String> {
        if let Expr::MethodCall(m) = recv {
            let method = m.method.to_string();
            let contents = match strip(&m.receiver) {
                Expr::Index(ix) => &self.self_field(strip(&ix.expr))?.elem_contents,
                field => &self.self_field(field)?.contents,
            };
            let ty = contents
                .as_ref()
                .filter(|(methods, _)| methods.contains(&method.as_str()))?
                .1
                .clone();
            return (!self.is_generic(&ty)).then_some(ty);
        }
        let ty = match recv {
            Expr::Index(ix) => match self.self_field(strip(&ix.expr))?.elems.as_slice() {
                [Some(elem)] => elem.clone(),
                _ => return None,
            },
            field => self.self_field(field)?.ty.clone(),
        };
        (!ty.is_empty() && !self.is_generic(&ty)).then_some(ty)
    }

    /// The declaration of `self.field`, if the enclosing impl's struct is in this file.
    pub(super) fn self_field(&self, recv: &Expr) -> Option<&Field> {
        let Expr::Field(f) = recv else { return None };
        if !is_self(strip(&f.base)) {
            return None;
        }
        let syn::Member::Named(field) = &f.member else {
            return None;
        };
        let owner = self.owner()?;
        let field = field.to_string();
        self.fields.get(&owner)?.iter().find(|f| f.name == field)
    }

    /// The trait bounds the source states for the generic parameter `name` (`T: Driver +
    /// Loadable`, `where T: Driver`; `Self` in a trait's default method: the trait), of the
    /// innermost scope that names it.
    pub(super) fn generic_bound(&self, name: &str) -> Vec<String> {
        self.bounds
            .iter()
            .rev()
            .find(|scope| scope.iter().any(|(n, _)| n == name))
            .map(|scope| {
                scope
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(|(_, b)| b.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Types the names a `for` pattern binds from the element types of the collection it
    /// iterates, a field of `self` (`self.batch`, `&self.batch`, `self.batch.iter()`,
    /// `.into_iter()`, `.drain(…)`), as the function's typed names.
    pub(super) fn bind_loop_items(&mut self, f: &syn::ExprForLoop) {
        let mut iterated = strip(&f.expr);
        if let Expr::Reference(r) = iterated {
            iterated = strip(&r.expr);
        }
        if let Expr::MethodCall(m) = iterated {
            if ["iter", "iter_mut", "into_iter", "drain"].contains(&m.method.to_string().as_str()) {
                iterated = strip(&m.receiver);
            }
        }
        let Some(field) = self.self_field(iterated) else {
            return;
        };
        let elems = field.elems.clone();
        let names: Vec<Option<String>> = match &*f.pat {
            Pat::Ident(p) if elems.len() == 1 => vec![Some(p.ident.to_string())],
            Pat::Tuple(t) if t.elems.len() == elems.len() => t
                .elems
                .iter()
                .map(|p| match p {
                    Pat::Ident(i) => Some(i.ident.to_string()),
                    _ => None,
                })
                .collect(),
            _ => return,
        };
        let Some(params) = self.params.last_mut() else {
            return;
        };
        for (name, ty) in names.into_iter().zip(elems) {
            if let (Some(name), Some(ty)) = (name, ty) {
                params.push((name, ty));
            }
        }
    }

    /// Whether `name` is a parameter of the current function typed as a fallible initialiser.
    pub(super) fn is_init_param(&self, name: &str) -> bool {
        self.init_param_names
            .last()
            .is_some_and(|names| names.iter().any(|n| n == name))
    }

    pub(super) fn is_generic(&self, name: &str) -> bool {
        self.generics.iter().any(|g| g.iter().any(|p| p == name))
    }

    pub(super) fn path_segs(&self, path: &syn::Path) -> Vec<String> {
        let owner = self.owner();
        // `Self::Command::init(…)`: the type the impl names for `Command`.
        let named = self
            .impls
            .last()
            .and_then(|i| super::assoc::substitute_path(path, &i.assoc));
        let path = named.as_ref().unwrap_or(path);
        path.segments
            .iter()
            .map(|s| {
                let id = s.ident.to_string();
                if id == "Self" {
                    owner.clone().unwrap_or(id)
                } else {
                    id
                }
            })
            .collect()
    }

    /// What the error of `e` comes from, and whether a logging call is attached to it.
    pub(super) fn classify(&self, e: &Expr) -> (Option<Target>, bool) {
        let mut cur = e;
        let mut attached = false;
        // Whether `cur` is `e` itself, not the receiver of an adapter: only a local returned or
        // `?`-ed as it is is known to hold a `Result`.
        let mut whole = true;
        loop {
            match cur {
                Expr::Paren(p) => cur = &p.expr,
                Expr::Group(g) => cur = &g.expr,
                Expr::Await(a) => cur = &a.base,
                // `unsafe { map_regs(…) }?`: the block's value is its tail expression's.
                Expr::Unsafe(_) | Expr::Block(_) => {
                    let value = block_value(cur);
                    if std::ptr::eq(value, cur) {
                        return (None, attached);
                    }
                    cur = value;
                }
                Expr::MethodCall(m) => {
                    // `names.map(|n| config(n)?.set(dev)).transpose()?`: an `Option` of a
                    // `Result` turned inside out; the error is the closure's value's (its `?`s
                    // are recorded where they are).
                    if let Some(body) = transposed_closure(m) {
                        cur = block_value(body);
                        whole = false;
                        continue;
                    }
                    // `names.map(to_c_str_array).transpose()?`: the mapped function's error.
                    if let Some(f) = transposed_fn(m) {
                        let segs = f.path.segments.iter().map(|s| s.ident.to_string()).collect();
                        return (Some(Target::Call(Callee::Path(segs))), attached);
                    }
                    // `init.pin_chain(|slot| to_result(…))`: the chained closure's error is the
                    // initialiser's own; without one there, the receiver's.
                    if let Some(body) = chain_closure(&m.method, m.args.last()) {
                        if let (Some(t), a) = self.classify(block_value(body)) {
                            return (Some(t), attached || a);
                        }
                        cur = &m.receiver;
                        whole = false;
                        continue;
                    }
                    let name = m.method.to_string();
                    let role = self
                        .names
                        .method_role(&name, first_arg_is_text(&m.args), m.args.len());
                    if role != MethodRole::Logs && runs_on_error(&name) && self.contains_log(&m.args) {
                        attached = true;
                    }
                    match role {
                        MethodRole::Logs => {
                            attached = true;
                            cur = &m.receiver;
                            whole = false;
                            continue;
                        }
                        MethodRole::Makes => {
                            return (Some(Target::Made), attached || self.contains_log(&m.args));
                        }
                        MethodRole::PassesOn => {
                            cur = &m.receiver;
                            whole = false;
                            continue;
                        }
                        MethodRole::LogsAsFunction => return (Some(Target::Made), true),
                        MethodRole::Origin => return (Some(Target::OriginFn(name, None)), attached),
                        MethodRole::Call => {}
                    }
                    let recv = strip(&m.receiver);
                    let callee = if is_self(recv) {
                        Callee::SelfMethod(name)
                    } else if let Some(ty) = self.field_type(recv) {
                        typed_call(&ty, name)
                    } else if let Some(ty) = self.param_type(recv) {
                        if self.is_generic(&ty) {
                            let bound = self.generic_bound(&ty);
                            Callee::Generic(ty, name, bound)
                        } else {
                            typed_call(&ty, name)
                        }
                    } else if let Some(segs) = self.value_local(recv) {
                        Callee::OnValueOf(segs, name)
                    } else if let Some(segs) = static_path(recv) {
                        Callee::OnStatic(segs, name)
                    } else if let Some(ty) = self.item_local(recv) {
                        Callee::OnItemOf(ty, name)
                    } else if let Some((ty, field)) = self.typed_field(recv) {
                        Callee::OnFieldOf(ty.split("::").map(str::to_string).collect(), field, name)
                    } else if let Some(path) = called_path(recv) {
                        // `BooterFirmware::new(…)?.run(…)`: the method of what the call returns.
                        Callee::OnValueOf(self.path_segs(path), name)
                    } else {
                        Callee::Method(name)
                    };
                    return (Some(Target::Call(callee)), attached);
                }
                Expr::Call(c) => {
                    let Expr::Path(p) = strip(&c.func) else {
                        return (None, attached);
                    };
                    let segs = self.path_segs(&p.path);
                    let last = segs.last().cloned().unwrap_or_default();
                    if last == "Err" {
                        let logged = self.contains_log(&c.args) || self.c_side_printed(&c.args);
                        return (Some(Target::Made), attached || logged);
                    }
                    // `Ok(…)`, and the kernel's `build_error(…)`: a call that never returns at
                    // run time (a default vtable method's body), so nothing leaves through it.
                    if last == "Ok"
                        || last == "Some"
                        || crate::logging::BUILD_TIME_MACROS.contains(&last.as_str())
                    {
                        return (None, attached);
                    }
                    // A local closure's call (`new_pio_imem(params, true)?`): its errors are its
                    // body's, recorded where they are made.
                    if segs.len() == 1 && self.closure_locals.contains(&last) {
                        return (None, attached);
                    }
                    // `pin_init_scope(move || { …?; Ok(try_pin_init!(…)) })`: the initialiser's
                    // errors are its closure's, recorded where the closure makes or passes them
                    // (its `?` and its `<-` initialisers); the scope itself adds none.
                    if SCOPE_CALLS.contains(&last.as_str())
                        && matches!(c.args.last().map(strip), Some(Expr::Closure(_)))
                    {
                        return (None, attached);
                    }
                    // `KBox::pin_init(Dev::new(…), GFP_KERNEL)?`, `Arc::pin_init(…)?`: the error
                    // is the initializer's (`impl PinInit<T, E>`), so the hop goes to its
                    // constructor.
                    // The initialiser is the first argument (`KBox::pin_init(init, flags)`) or
                    // the last (`Coherent::init(dev, GFP_KERNEL, Args::new(…))`).
                    if let Some(init) = pin_init_initialiser(c) {
                        cur = init;
                        continue;
                    }
                    // `let init = Irq::request(9); KBox::try_pin_init(init, GFP_KERNEL)?`: the
                    // call that made the initialiser.
                    if let Some((t, a)) = self.local_initialiser(c) {
                        return (Some(t), attached || a);
                    }
                    // `pin_init::raw_try_init(slot, init)?` with `init` the function's own
                    // initialiser parameter: it runs its caller's initialiser, whose error is
                    // linked where each caller passes one (`init_args`), not made here.
                    if matches!(pin_init_runner(c), Some(Runner::Raw))
                        && raw_initialiser_arg(&c.args)
                            .and_then(local_name)
                            .is_some_and(|n| self.is_init_param(&n))
                    {
                        return (None, attached);
                    }
                    if self.names.is_log_function(&last) || reporting_function(&segs) {
                        return (Some(Target::Made), true);
                    }
                    if self.names.is_origin_function(&last) {
                        let c_function = self.c_function_of(&c.args);
                        let logged = self.contains_log(&c.args)
                            || c_function
                                .as_deref()
                                .is_some_and(|f| self.names.c_function_prints(f));
                        return (Some(Target::OriginFn(last, c_function)), attached || logged);
                    }
                    // `<Self as Module>::init(m)` / `<T as Trait>::f(…)` with `T` a type
                    // parameter: the trait's method of whichever type it is.
                    if let Some(q) = &p.qself {
                        let ty = type_last_seg(&q.ty).unwrap_or_default();
                        let trait_seg = p.path.segments.iter().nth(q.position.wrapping_sub(1));
                        if (ty == "Self" || self.is_generic(&ty)) && q.position > 0 {
                            if let Some(t) = trait_seg {
                                return (
                                    Some(Target::Call(Callee::Generic(ty, last, vec![t.ident.to_string()]))),
                                    attached,
                                );
                            }
                        }
                    }
                    // `Self::from_u64_negated(v)` in a trait's default method: the method of
                    // whichever type implements the trait (or a supertrait), as a bound says.
                    let in_trait = self.impls.last().is_some_and(|i| i.is_trait);
                    if in_trait
                        && p.path.segments.len() == 2
                        && p.path.segments.first().is_some_and(|s| s.ident == "Self")
                    {
                        return (
                            Some(Target::Call(Callee::Generic(
                                "Self".to_string(),
                                last,
                                self.generic_bound("Self"),
                            ))),
                            attached,
                        );
                    }
                    if segs.len() == 2 && self.is_generic(&segs[0]) {
                        return (
                            Some(Target::Call(Callee::Generic(
                                segs[0].clone(),
                                last,
                                self.generic_bound(&segs[0]),
                            ))),
                            attached,
                        );
                    }
                    return (Some(Target::Call(Callee::Path(segs))), attached);
                }
                // A local that holds a call's `Result`, returned or `?`-ed as it is (the
                // function returns a `Result`, so the local is one): that call.
                Expr::Path(p) if whole && p.path.segments.len() == 1 && p.qself.is_none() => {
                    let name = p.path.segments.first().map(|s| s.ident.to_string());
                    let held = self
                        .result_locals
                        .iter()
                        .rev()
                        .find(|(n, ..)| Some(n) == name.as_ref());
                    // A log that names the local before (`if let Err(e) = &result {
                    // dev_err!(…) }`, `dev_err!(…, "{result:?}")`) logs its error.
                    let logged = name
                        .as_ref()
                        .is_some_and(|n| self.logged_values.iter().flatten().any(|v| v == n));
                    return match held {
                        Some((_, t, a)) => (Some(t.clone()), attached || *a || logged),
                        None => (None, attached),
                    };
                }
                Expr::Macro(m) => {
                    let name = last_seg(&m.mac.path);
                    if name == "err" {
                        return (Some(Target::Made), attached || tokens_have_str(&m.mac.tokens));
                    }
                    return (None, attached);
                }
                _ => return (None, attached),
            }
        }
    }

    /// An error made inside an `and_then` closure of `e`'s adapter chain
    /// (`bios.sigs(&desc).and_then(|s| s.get(i).ok_or(EINVAL))?`): a second source of the
    /// error besides the receiver's, with whether a log is attached to it. Only an error made
    /// there (`ok_or`, `Err`, an origin function) counts: a call in the closure is its own
    /// hop, recorded where the closure's `?` is.
    pub(super) fn closure_made(&self, e: &Expr) -> Option<(Target, bool)> {
        let mut cur = strip(e);
        while let Expr::MethodCall(m) = cur {
            if m.method == "and_then" {
                if let Some(Expr::Closure(c)) = m.args.last().map(strip) {
                    if let (Some(t @ (Target::Made | Target::OriginFn(..))), a) =
                        self.classify(block_value(&c.body))
                    {
                        return Some((t, a));
                    }
                }
            }
            let role =
                self.names
                    .method_role(&m.method.to_string(), first_arg_is_text(&m.args), m.args.len());
            if role != MethodRole::PassesOn && m.method != "and_then" {
                return None;
            }
            cur = strip(&m.receiver);
        }
        None
    }

    /// `GspSeqCmd::RegWrite(cmd) => cmd.run(…)`: the names a tuple-variant pattern binds have
    /// the variant's field types (the file's own enums; `Self::V(x)` and a bare `V(x)` too),
    /// for method calls on them.
    pub(super) fn bind_variant_fields(&mut self, pat: &syn::Pat) {
        let syn::Pat::TupleStruct(ts) = pat else { return };
        let segs: Vec<String> = ts.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some((variant, rest)) = segs.split_last() else {
            return;
        };
        let types = match rest.last().map(String::as_str) {
            Some("Self") => self
                .owner()
                .and_then(|o| self.variants.get(&(o, variant.clone()))),
            Some(e) => self.variants.get(&(e.to_string(), variant.clone())),
            None => {
                let mut of_name = self.variants.iter().filter(|((_, v), _)| v == variant);
                match (of_name.next(), of_name.next()) {
                    (Some((_, t)), None) => Some(t),
                    _ => None,
                }
            }
        };
        let Some(types) = types.cloned() else { return };
        let Some(params) = self.params.last_mut() else {
            return;
        };
        for (elem, ty) in ts.elems.iter().zip(types) {
            if let (syn::Pat::Ident(id), Some(ty)) = (elem, ty) {
                let name = id.ident.to_string();
                params.retain(|(n, _)| *n != name);
                params.push((name, ty));
            }
        }
    }

    /// A receiver that is a field of a value whose type is known but declared in another file
    /// (`ctx.gsp_falcon`, `self.hal` of a struct defined elsewhere), or a local bound to one:
    /// the value's type as written and the field.
    pub(super) fn typed_field(&self, recv: &Expr) -> Option<(String, String)> {
        match recv {
            Expr::Field(f) => {
                let syn::Member::Named(field) = &f.member else {
                    return None;
                };
                // `self.alloc.process`: a field of a field, written `alloc.process` (each
                // field's declared type is found in the index).
                let mut fields = vec![field.to_string()];
                let mut base = strip(&f.base);
                while let Expr::Field(inner) = base {
                    let syn::Member::Named(name) = &inner.member else {
                        return None;
                    };
                    fields.push(name.to_string());
                    base = strip(&inner.base);
                }
                fields.reverse();
                let ty = if is_self(base) {
                    self.owner()?
                } else {
                    self.param_type(base)?
                };
                (!self.is_generic(&ty)).then(|| (ty, fields.join(".")))
            }
            Expr::Path(_) => latest(&self.field_locals, &local_name(recv)?).cloned(),
            _ => None,
        }
    }

    /// The iterator type whose item a plain local receiver is.
    pub(super) fn item_local(&self, recv: &Expr) -> Option<String> {
        latest(&self.item_locals, &local_name(recv)?).cloned()
    }

    /// The call that made the initialiser a box's or `Arc`'s pin-init constructor is given as a
    /// local (`let init = Irq::request(9); KBox::try_pin_init(init, GFP_KERNEL)`), and whether
    /// a log is attached to it.
    pub(super) fn local_initialiser(&self, c: &syn::ExprCall) -> Option<(Target, bool)> {
        let name = initialiser_local(c)?;
        self.result_locals
            .iter()
            .rev()
            .find(|(n, ..)| *n == name)
            .map(|(_, t, a)| (t.clone(), *a))
    }

    /// Whether the `?`-ed expression (through pass-through adapters) is a pin-init constructor
    /// whose initialiser is such a local: its error is the initialiser's, not the allocator's.
    pub(super) fn runs_local_initialiser(&self, e: &Expr) -> bool {
        match block_value(e) {
            Expr::MethodCall(m) if crate::logging::passes_through(&m.method.to_string()) => {
                self.runs_local_initialiser(&m.receiver)
            }
            Expr::Call(c) => self.local_initialiser(c).is_some(),
            _ => false,
        }
    }

    /// The call whose value a plain local receiver holds (`hal` in `hal.boot(…)` after `let hal
    /// = gsp_hal(chip);`).
    pub(super) fn value_local(&self, recv: &Expr) -> Option<Vec<String>> {
        latest(&self.value_locals, &local_name(recv)?).cloned()
    }

    /// `NonNull::new(p).ok_or(ENOMEM)` (also `ok_or_else`, `.cast()` on `p`) with `p` bound to a
    /// C allocator's result: the allocator's NULL, which it reported, turned into an errno.
    pub(super) fn null_allocation(&self, e: &Expr) -> bool {
        let Expr::MethodCall(m) = strip(e) else {
            return false;
        };
        if m.method != "ok_or" && m.method != "ok_or_else" {
            return false;
        }
        let Expr::Call(c) = strip(&m.receiver) else {
            return false;
        };
        let Expr::Path(f) = strip(&c.func) else {
            return false;
        };
        if last_seg(&f.path) != "new" || !f.path.segments.iter().any(|s| s.ident == "NonNull") {
            return false;
        }
        let mut arg = c.args.first().map(strip);
        while let Some(Expr::MethodCall(cast)) = arg {
            arg = (cast.method == "cast").then(|| strip(&cast.receiver));
        }
        match arg {
            Some(Expr::Path(p)) => p
                .path
                .get_ident()
                .is_some_and(|i| self.alloc_locals.iter().any(|n| i == n)),
            Some(e) => alloc::allocating_call(e),
            None => false,
        }
    }

    /// Whether an errno is made from the value of a C function that prints its failures:
    /// `to_result(unsafe { bindings::f(…) })`, or `Error::from_errno(ret)` with `ret` bound to
    /// such a call earlier in the function.
    pub(super) fn c_side_printed<'a>(&self, args: impl IntoIterator<Item = &'a Expr>) -> bool {
        self.c_function_of(args)
            .is_some_and(|f| self.names.c_function_prints(&f))
    }

    /// The C function whose value an errno is made from: `to_result(unsafe { bindings::f(…)
    /// })`, or `Error::from_errno(ret)` with `ret` bound to such a call earlier in the function.
    pub(super) fn c_function_of<'a>(&self, args: impl IntoIterator<Item = &'a Expr>) -> Option<String> {
        let mut exprs: Vec<&Expr> = args.into_iter().collect();
        let mut budget = 64u32;
        while let Some(e) = exprs.pop() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                return None;
            }
            let e = block_value(e);
            if let Some(f) = c_function_called(e) {
                return Some(f);
            }
            match e {
                Expr::Path(_) => {
                    if let Some(f) = local_name(e).and_then(|n| latest(&self.c_locals, &n)) {
                        return Some(f.to_string());
                    }
                }
                // `Error::from_errno(ret)`, `ret.into()`.
                Expr::Call(c) => exprs.extend(c.args.iter()),
                Expr::MethodCall(m) => exprs.push(&m.receiver),
                _ => {}
            }
        }
        None
    }

    /// The arguments of the call `e` makes (through pass-through and logging adapters, `?`
    /// stripped) that are calls themselves, by position, with their callees.
    pub(super) fn call_args_of(&self, e: &Expr) -> Vec<(u32, Callee)> {
        let mut cur = strip(e);
        for _ in 0..16 {
            let args = match cur {
                Expr::Try(t) => {
                    cur = strip(&t.expr);
                    continue;
                }
                Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    let role = self.names.method_role(&name, false, m.args.len());
                    if matches!(role, MethodRole::PassesOn | MethodRole::Logs) {
                        cur = strip(&m.receiver);
                        continue;
                    }
                    &m.args
                }
                Expr::Call(c) => {
                    // `KBox::pin_init(Devres::new(…), GFP_KERNEL)`: the initialiser's call, as
                    // `classify` follows it.
                    if let Some(init) = pin_init_initialiser(c) {
                        cur = init;
                        continue;
                    }
                    &c.args
                }
                _ => return Vec::new(),
            };
            return args
                .iter()
                .take(8)
                .enumerate()
                .filter(|(_, a)| matches!(strip(a), Expr::Call(_) | Expr::MethodCall(_)))
                .filter_map(|(i, a)| Some((u32::try_from(i).ok()?, self.callee_of(a)?.0)))
                .collect();
        }
        Vec::new()
    }

    /// The callee of a call-like expression (adapters stripped), and whether a log is attached.
    pub(super) fn callee_of(&self, e: &Expr) -> Option<(Callee, bool)> {
        match self.classify(e) {
            (Some(Target::Call(c)), logged) => Some((c, logged)),
            _ => None,
        }
    }

    /// `Err(e)` (or `Err(e.into())`) where `e` is the error of a matched call: that call, and
    /// the codes earlier arms handle.
    pub(super) fn rethrown_callee(&self, e: &Expr) -> Option<(Callee, Vec<String>)> {
        let Expr::Call(c) = strip(e) else { return None };
        let Expr::Path(fp) = strip(&c.func) else {
            return None;
        };
        if last_seg(&fp.path) != "Err" || c.args.len() != 1 {
            return None;
        }
        let name = match strip(c.args.first()?) {
            Expr::Path(ap) => ap.path.get_ident().map(|i| i.to_string()),
            Expr::MethodCall(m) if m.method == "into" && m.args.is_empty() => match strip(&m.receiver) {
                Expr::Path(ap) => ap.path.get_ident().map(|i| i.to_string()),
                _ => None,
            },
            _ => None,
        }?;
        self.rethrow
            .iter()
            .rev()
            .find(|r| r.binding == name)
            .map(|r| (r.callee.clone(), r.handled.clone()))
    }

    /// An origin function's error whose value an earlier log of the function mentioned:
    /// `if ret < 0 { dev_err!(dev, "…: {}", ret); }` then `to_result(ret)?` is logged, by what
    /// the log is about rather than where it sits.
    pub(super) fn value_logged_before(&self, e: &Expr) -> bool {
        let Expr::Call(c) = strip(e) else {
            return false;
        };
        let Expr::Path(f) = strip(&c.func) else {
            return false;
        };
        if !self.names.is_origin_function(&last_seg(&f.path)) {
            return false;
        }
        let Some(name) = c.args.first().and_then(plain_local) else {
            return false;
        };
        self.logged_values.iter().flatten().any(|v| *v == name)
    }
}

/// What `opt.map(f).transpose()` maps with, if `m` is that `transpose`.
fn transposed_map(m: &syn::ExprMethodCall) -> Option<&Expr> {
    if m.method != "transpose" || !m.args.is_empty() {
        return None;
    }
    let Expr::MethodCall(map) = strip(&m.receiver) else {
        return None;
    };
    if map.method != "map" {
        return None;
    }
    map.args.last().map(strip)
}

/// The closure of `opt.map(closure).transpose()`, if `m` is that `transpose`.
fn transposed_closure(m: &syn::ExprMethodCall) -> Option<&Expr> {
    match transposed_map(m) {
        Some(Expr::Closure(c)) => Some(&c.body),
        _ => None,
    }
}

/// The function of `opt.map(function).transpose()`, if `m` is that `transpose`.
fn transposed_fn(m: &syn::ExprMethodCall) -> Option<&syn::ExprPath> {
    match transposed_map(m) {
        Some(Expr::Path(p)) if p.qself.is_none() => Some(p),
        _ => None,
    }
}

/// `errtrace::boundary(…)` (or `boundary(…)` imported): errtrace's own functions that report
/// an error reaching them unreported, known without configuration.
fn reporting_function(segs: &[String]) -> bool {
    let Some(last) = segs.last() else { return false };
    errtrace::vocabulary::REPORTING_FUNCTIONS.contains(&last.as_str())
        && (segs.len() == 1 || segs.len() == 2 && segs[0] == "errtrace")
}
