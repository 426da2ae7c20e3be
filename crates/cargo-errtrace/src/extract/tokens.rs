//! Macro bodies: parsed as expressions or statements when they are Rust, and otherwise read
//! token by token (`pin_init!` struct syntax, DSLs), with the same verdicts as the syntax walk.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::Expr;

use super::inspect::LogFinder;
use super::syntax::*;
use super::{Walker, PIN_INIT_CALLS, QUOTE_MACROS};
use crate::logging::{runs_on_error, MethodRole};
use crate::model::*;
use crate::parse;

impl Walker<'_, '_> {
    /// A cheap look at a macro body's source text: can it hold anything the audit records
    /// (`?`, a nested macro, `return`, `unwrap`, `Err`, `match`, a discard)? Most bodies —
    /// format arguments, literals — cannot, and are not parsed again.
    pub(super) fn body_may_matter(&self, m: &syn::Macro) -> bool {
        let range = m.delimiter.span().join().byte_range();
        let Some(body) = self.text.get(range) else {
            return true;
        };
        if body.is_empty() {
            return true;
        }
        const NEEDLES: &[&str] = &[
            "fn ", "return", "unwrap", "expect", ".ok()", "Err", "_ =", "drop(", "match", "if let", "<-",
        ];
        body.contains(['?', '!']) || NEEDLES.iter().any(|n| body.contains(n))
    }

    /// Macro bodies: as expressions, else as statements, else token by token.
    pub(super) fn macro_body(&mut self, tokens: &TokenStream) {
        use syn::parse::Parser;
        if tokens.is_empty() {
            return;
        }
        let exprs = Punctuated::<Expr, syn::Token![,]>::parse_terminated.parse2(tokens.clone());
        if let Ok(exprs) = exprs {
            for e in &exprs {
                self.visit_expr(e);
            }
            return;
        }
        if let Ok(stmts) = syn::Block::parse_within.parse2(tokens.clone()) {
            for s in &stmts {
                self.visit_stmt(s);
            }
            return;
        }
        self.scan_tokens(tokens);
    }

    /// Token-level fallback for macro bodies that are not Rust expressions (`pin_init!`
    /// struct syntax, DSLs): counts real `?` and log macros, and records `?` sites.
    pub(super) fn scan_tokens(&mut self, tokens: &TokenStream) {
        // Each group with the struct a pin-init literal around it initialises (`Gpu { … }`):
        // inside it, the fields initialised so far are in scope by name, with their declared
        // types (`gsp <- Gsp::new(…), bundle: gsp.boot(…)?`).
        let outer = self.init_struct.clone();
        let mut work: Vec<(Vec<TokenTree>, Option<String>)> =
            vec![(tokens.clone().into_iter().collect(), outer.clone())];
        while let Some((toks, init_struct)) = work.pop() {
            self.init_struct = init_struct;
            let mut i = 0;
            while i < toks.len() {
                match &toks[i] {
                    // `.log("…")`, `dev_err_probe(…)`: counted as the syntax walk counts them.
                    TokenTree::Ident(id) if matches!(toks.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) => {
                        if let Some(TokenTree::Group(g)) = toks.get(i + 1) {
                            let name = id.to_string();
                            let method = i >= 1 && is_punct(toks.get(i - 1), '.');
                            let n_args = usize::from(!g.stream().is_empty());
                            let logs = if method {
                                self.names
                                    .is_log_method(&name, tokens_have_str(&g.stream()), n_args)
                            } else {
                                self.names.is_log_function(&name)
                            };
                            if logs {
                                self.out.log_calls += 1;
                            }
                        }
                    }
                    TokenTree::Ident(id) => {
                        let is_bang =
                            matches!(toks.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                        if is_bang {
                            let name = id.to_string();
                            if name == "macro_rules" {
                                i += 4; // macro_rules ! name { … }
                                continue;
                            }
                            if QUOTE_MACROS.contains(&name.as_str()) {
                                i += 3; // quote ! { … }
                                continue;
                            }
                            if self.names.is_log_macro(&name) {
                                self.out.log_calls += 1;
                            } else if name == "err" {
                                if let Some(TokenTree::Group(g)) = toks.get(i + 2) {
                                    if tokens_have_str(&g.stream()) {
                                        self.out.log_calls += 1;
                                    }
                                }
                            }
                        }
                    }
                    // `field <- Type::new(…)` (pin-init's struct syntax, in `try_pin_init!`
                    // and friends): the initialiser's error leaves like a `?`.
                    TokenTree::Punct(p)
                        if p.as_char() == '<'
                            && p.spacing() == proc_macro2::Spacing::Joint
                            && is_punct(toks.get(i + 1), '-')
                            && matches!(toks.get(i.wrapping_sub(1)), Some(TokenTree::Ident(_))) =>
                    {
                        // The initialiser's call: the first parenthesised group after the path.
                        let call = (i + 2..toks.len())
                            .take_while(|&k| {
                                matches!(&toks[k], TokenTree::Ident(_))
                                    || is_punct(toks.get(k), ':')
                                    || matches!(&toks[k], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis)
                            })
                            .find(|&k| matches!(&toks[k], TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis));
                        let chained = (self.infallible_init == 0)
                            .then(|| self.chained_init(toks.get(i + 2..).unwrap_or_default()))
                            .flatten();
                        if self.infallible_init > 0 {
                            // Infallible initialisers only: nothing leaves.
                        } else if let Some(sources) = chained {
                            // `inner <- init.pin_chain(|slot| …)`: the closure's error and the
                            // inner initialiser's both leave.
                            for (at, target, attached) in sources {
                                self.add_site(
                                    at.unwrap_or_else(|| pos(p.span())),
                                    How::Try,
                                    target,
                                    attached,
                                );
                            }
                        } else if let Some(g) = call {
                            if let Some((target, attached)) = self.classify_tokens(&toks, g + 1) {
                                self.add_site(pos(p.span()), How::Try, target, attached);
                            }
                        } else if let Some((target, attached)) = self.held_init(&toks, i + 2) {
                            self.add_site(pos(p.span()), How::Try, target, attached);
                        } else if let Some((target, attached)) =
                            self.expression_init(toks.get(i + 2..).unwrap_or_default())
                        {
                            // `bar <- pdev.iomap_region_sized::<{ END }>(0, c"name")`: a
                            // method call, read as the syntax walk reads one.
                            self.add_site(pos(p.span()), How::Try, target, attached);
                        }
                    }
                    TokenTree::Punct(p) if p.as_char() == '?' && is_real_question(&toks, i) => {
                        self.out.question_marks += 1;
                        if let Some((target, attached)) = self.classify_tokens(&toks, i) {
                            // `CoherentBox::zeroed_slice(dev, n, GFP_KERNEL)?`: an allocation
                            // with GFP flags, as in the syntax walk.
                            self.gfp_call = gfp_call_tokens(&toks, i);
                            self.add_site(pos(p.span()), How::Try, target, attached);
                            self.gfp_call = false;
                        }
                    }
                    TokenTree::Group(g) if work.len() < parse::MAX_NESTING => {
                        let literal_of = match (g.delimiter(), i.checked_sub(1).and_then(|k| toks.get(k))) {
                            (Delimiter::Brace, Some(TokenTree::Ident(name))) => {
                                let name = if name == "Self" {
                                    self.owner()
                                } else {
                                    Some(name.to_string())
                                };
                                name.filter(|n| self.fields.contains_key(n))
                            }
                            _ => None,
                        };
                        let ctx = literal_of.or_else(|| self.init_struct.clone());
                        work.push((g.stream().into_iter().collect(), ctx));
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        self.init_struct = outer;
    }

    /// `field <- init,` with `init` a local bound to an initialiser call earlier
    /// (`let page_table_init = IoPageTable::new(…);`): that call.
    fn held_init(&self, toks: &[TokenTree], at: usize) -> Option<(Target, bool)> {
        let TokenTree::Ident(name) = toks.get(at)? else {
            return None;
        };
        if toks.get(at + 1).is_some_and(|t| !is_punct(Some(t), ',')) {
            return None;
        }
        let name = name.to_string();
        self.result_locals
            .iter()
            .rev()
            .find(|(n, ..)| *n == name)
            .map(|(_, t, a)| (t.clone(), *a))
    }

    /// A `<-` initialiser that is an expression the token forms above do not take (a method
    /// call, with a turbofish or on a field): the expression up to the next top-level `,`,
    /// classified as the syntax walk classifies a `?`'s operand.
    fn expression_init(&self, toks: &[TokenTree]) -> Option<(Target, bool)> {
        let e = initialiser_expr(toks)?;
        if !matches!(strip(&e), Expr::MethodCall(_)) {
            return None;
        }
        match self.classify(&e) {
            (Some(t), a) => Some((t, a)),
            _ => None,
        }
    }

    /// The error sources of a `<-` initialiser (the tokens after `<-`, up to the next
    /// top-level `,`) that chains a closure (`init.pin_chain(|slot| …)`,
    /// `PinInit::pin_chain(init, |slot| …)`): the closure's value and the inner initialiser;
    /// or that is a block (`unsafe` or not): the block's value, recorded where it is.
    fn chained_init(&self, toks: &[TokenTree]) -> Option<Vec<(Option<Pos>, Target, bool)>> {
        let e = initialiser_expr(toks)?;
        // `field <- { …?; Registration::new(…) }`, or an `unsafe { … }` block (an IRQ
        // registration's initialiser): the block's value (its `?`s are scanned with the
        // block's tokens).
        if let Expr::Block(_) | Expr::Unsafe(_) = strip(&e) {
            let value = block_value(&e);
            return Some(match self.classify(value) {
                (Some(t), a) => vec![(Some(pos(value.span())), t, a)],
                _ => Vec::new(),
            });
        }
        let (name, args, inner) = match strip(&e) {
            Expr::MethodCall(m) => (&m.method, &m.args, Some(&*m.receiver)),
            Expr::Call(c) => match strip(&c.func) {
                Expr::Path(p) => (&p.path.segments.last()?.ident, &c.args, c.args.first()),
                _ => return None,
            },
            _ => return None,
        };
        let body = chain_closure(name, args.last())?;
        let sources = [Some(block_value(body)), inner]
            .into_iter()
            .flatten()
            .filter_map(|e| match self.classify(e) {
                (Some(t), a) => Some((None, t, a)),
                _ => None,
            })
            .collect();
        Some(sources)
    }

    /// The type of a method call's receiver when it is a bare name (`x.m(…)`, the method's
    /// name at `j - 1`): a parameter or typed local, else a field of the struct a pin-init
    /// literal around it initialises.
    fn token_receiver_type(&self, toks: &[TokenTree], j: usize) -> Option<String> {
        let TokenTree::Ident(recv) = toks.get(j.checked_sub(3)?)? else {
            return None;
        };
        // Not a field (`a.x.m()`) nor a path's last segment (`m::x.m()`); a field label's
        // single `:` (`bundle: x.m()`) is fine.
        let at = |k: usize| j.checked_sub(k).and_then(|k| toks.get(k));
        if is_punct(at(4), '.') || (is_punct(at(4), ':') && is_punct(at(5), ':')) {
            return None;
        }
        let name = recv.to_string();
        if let Some(ty) = self.params.last().and_then(|p| latest(p, &name)) {
            return (!self.is_generic(ty)).then(|| ty.clone());
        }
        let owner = self.init_struct.as_ref()?;
        let ty = &self.fields.get(owner)?.iter().find(|f| f.name == name)?.ty;
        (!ty.is_empty() && !self.is_generic(ty)).then(|| ty.clone())
    }

    /// Walk back from a `?` at `q` over `.adapter(…)` calls to the called name.
    pub(super) fn classify_tokens(&self, toks: &[TokenTree], q: usize) -> Option<(Target, bool)> {
        let mut j = q.checked_sub(1)?;
        let mut attached = false;
        loop {
            match toks.get(j)? {
                TokenTree::Ident(i) if i == "await" && j >= 2 && is_punct(toks.get(j - 1), '.') => {
                    j -= 2;
                }
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis && j >= 1 => {
                    let TokenTree::Ident(name) = toks.get(j - 1)? else {
                        return None;
                    };
                    let name = name.to_string();
                    let method = j >= 2 && is_punct(toks.get(j - 2), '.');
                    if method {
                        let text = tokens_have_str(&g.stream());
                        let role = self
                            .names
                            .method_role(&name, text, usize::from(!g.stream().is_empty()));
                        let log_in_args = || {
                            let mut lf = LogFinder {
                                names: self.names,
                                found: false,
                            };
                            lf.scan_tokens(&g.stream());
                            lf.found
                        };
                        if role != MethodRole::Logs && runs_on_error(&name) && log_in_args() {
                            attached = true;
                        }
                        match role {
                            MethodRole::Logs => {
                                attached = true;
                                j = j.checked_sub(3)?;
                                continue;
                            }
                            MethodRole::Makes => return Some((Target::Made, attached || log_in_args())),
                            MethodRole::PassesOn => {
                                j = j.checked_sub(3)?;
                                continue;
                            }
                            MethodRole::LogsAsFunction => return Some((Target::Made, true)),
                            MethodRole::Origin => return Some((Target::OriginFn(name, None), attached)),
                            MethodRole::Call => {}
                        }
                        let recv_self =
                            j >= 3 && matches!(toks.get(j - 3), Some(TokenTree::Ident(r)) if r == "self");
                        let callee = if recv_self {
                            Callee::SelfMethod(name)
                        } else if let Some(ty) = self.token_receiver_type(toks, j) {
                            typed_call(&ty, name)
                        } else {
                            Callee::Method(name)
                        };
                        return Some((Target::Call(callee), attached));
                    }
                    // A path: ident (:: ident)*
                    let mut segs = vec![name];
                    let mut k = j - 1;
                    while k >= 3 && is_punct(toks.get(k - 1), ':') && is_punct(toks.get(k - 2), ':') {
                        match toks.get(k - 3) {
                            Some(TokenTree::Ident(s)) => {
                                segs.push(s.to_string());
                                k -= 3;
                            }
                            _ => break,
                        }
                    }
                    segs.reverse();
                    let owner = self.owner();
                    for s in segs.iter_mut() {
                        if s == "Self" {
                            if let Some(o) = &owner {
                                *s = o.clone();
                            }
                        }
                    }
                    let last = segs.last().cloned().unwrap_or_default();
                    if last == "Err" {
                        let mut lf = LogFinder {
                            names: self.names,
                            found: false,
                        };
                        lf.scan_tokens(&g.stream());
                        return Some((Target::Made, attached || lf.found));
                    }
                    if last == "Ok" || last == "Some" {
                        return None;
                    }
                    // `Coherent::init(dev, GFP_KERNEL, Args::new(…))?`: the initialiser's error,
                    // as in the syntax walk; with a value for initialiser, an allocation.
                    if PIN_INIT_CALLS.contains(&last.as_str()) && segs.len() >= 2 {
                        if let Some(init) = initialiser_in(&g.stream()) {
                            let (t, a) = self.classify(&init);
                            return t.map(|t| (t, attached || a));
                        }
                    }
                    if self.names.is_log_function(&last) {
                        return Some((Target::Made, true));
                    }
                    if self.names.is_origin_function(&last) {
                        return Some((Target::OriginFn(last, None), attached));
                    }
                    if segs.len() == 2 && self.is_generic(&segs[0]) {
                        let bound = self.generic_bound(&segs[0]);
                        return Some((
                            Target::Call(Callee::Generic(segs[0].clone(), last, bound)),
                            attached,
                        ));
                    }
                    return Some((Target::Call(Callee::Path(segs)), attached));
                }
                _ => return None,
            }
        }
    }
}

/// The call a `?` at `q` applies to (`name(args)?`) allocates with GFP flags the allocator warns
/// for: its arguments name a `GFP_…` flag and not `__GFP_NOWARN`, and its name does not say it
/// runs an initialiser (`…init…`) nor is it an adapter, as [`super::alloc::gfp_call`] decides on
/// syntax.
fn gfp_call_tokens(toks: &[TokenTree], q: usize) -> bool {
    let (Some(TokenTree::Group(g)), Some(TokenTree::Ident(name))) = (
        q.checked_sub(1).and_then(|k| toks.get(k)),
        q.checked_sub(2).and_then(|k| toks.get(k)),
    ) else {
        return false;
    };
    // An adapter's closure (`.map(|l| SGTable::new(…, GFP_KERNEL))?`) is not the allocation,
    // nor is a constructor that runs an initialiser call (its error is followed instead).
    let name = name.to_string();
    let runs_init = name.contains("init") && initialiser_in(&g.stream()).is_some();
    if g.delimiter() != Delimiter::Parenthesis || runs_init || crate::logging::passes_through(&name) {
        return false;
    }
    let (mut gfp, mut nowarn) = (false, false);
    let mut work: Vec<TokenStream> = vec![g.stream()];
    let mut budget = 256u32;
    while let Some(ts) = work.pop() {
        for t in ts {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                return false;
            }
            match t {
                TokenTree::Ident(i) => {
                    let n = i.to_string();
                    nowarn |= n == "__GFP_NOWARN";
                    gfp |= n.starts_with("GFP_") || n.starts_with("__GFP_");
                }
                TokenTree::Group(g) => work.push(g.stream()),
                _ => {}
            }
        }
    }
    gfp && !nowarn
}

/// The initialiser among a pin-init constructor's argument tokens (`(init, flags)` or `(dev,
/// GFP_KERNEL, Args::new(…))`), parsed as arguments: [`initialiser_arg`].
fn initialiser_in(args: &TokenStream) -> Option<Expr> {
    use syn::parse::Parser;
    let args = Punctuated::<Expr, syn::Token![,]>::parse_terminated
        .parse2(args.clone())
        .ok()?;
    let found = initialiser_arg(&args).cloned();
    found
}

/// The expression of a `<-` initialiser (the tokens after `<-`): it ends at the first top-level
/// `,` after which the tokens parse (a turbofish's `,` is not a group's:
/// `PinInit::<_, Error>::pin_chain(…)`).
fn initialiser_expr(toks: &[TokenTree]) -> Option<Expr> {
    let ends = toks
        .iter()
        .enumerate()
        .filter(|(_, t)| is_punct(Some(*t), ','))
        .map(|(k, _)| k)
        .chain([toks.len()]);
    ends.take(8)
        .find_map(|end| syn::parse2(toks.get(..end)?.iter().cloned().collect()).ok())
}
