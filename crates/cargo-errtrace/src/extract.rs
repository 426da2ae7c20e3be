//! Walking one file's syntax tree into a [`FileSummary`].
//!
//! The walker records, per function, every place an error can leave it (`?`, `return`, the
//! tail expression, a re-thrown `Err(e)` arm) with what the error comes from and whether a
//! logging call is attached; the candidates for `discarded`/`swallowed`/`panic` that need the
//! whole-tree index; and the file's counts. Macro bodies are parsed as expressions or
//! statements when they can be, and scanned token by token when they cannot.
//!
//! One concept per file: this file holds the walker's state and what it records (sites,
//! checks, discards); `classify.rs` what an expression's error comes from; `returns.rs`
//! returned errors and tail expressions; `boundary.rs` which functions are boundaries;
//! `walk.rs` the syntax-tree visit; `tokens.rs` macro bodies; `inspect.rs` the looks inside an
//! expression (a log call? what an `Err` arm does); `syntax.rs` the stateless reading of
//! types, paths and patterns.

use syn::visit::Visit;
use syn::{Attribute, Expr, Pat, Stmt};

use crate::config::Config;
use crate::discover::SourceFile;
use crate::findings::{Finding, Kind};
use crate::logging::Names;
use crate::model::*;
use crate::parse;
use crate::suppress::Suppressions;
use std::collections::HashMap;

mod alloc;
mod assoc;
mod boundary;
mod classify;
mod guard;
mod inspect;
mod macro_items;
mod ops;
mod returns;
mod syntax;
mod tokens;
mod walk;

use inspect::LogFinder;
use syntax::*;

/// Summarise one file's text. Never panics; a parse failure is recorded in the summary.
pub fn summarize(text: &str, file: &SourceFile, names: &Names, config: &Config) -> FileSummary {
    let mut out = FileSummary {
        path: file.rel.clone(),
        crate_name: file.crate_name.clone(),
        crate_root: file.crate_root.clone(),
        lines: parse::count_lines(text),
        suppressions: Suppressions::scan(text),
        ..FileSummary::default()
    };
    let body = parse::strip_prelude(text);
    match parse::parse_file(body) {
        Ok(ast) => {
            let mut user_entries = ops::user_entries(&ast);
            user_entries.extend(ops::user_memory_callbacks(&ast));
            let drm_ioctls = ops::drm_ioctls(&ast);
            let mut w = Walker::new(names, config, file, out, body);
            w.fields = struct_fields(&ast);
            w.out.struct_fields = w
                .fields
                .iter()
                .flat_map(|(s, fs)| {
                    fs.iter()
                        .filter(|f| !f.ty.is_empty())
                        .map(move |f| (s.clone(), f.name.clone(), f.ty.clone()))
                })
                .collect();
            w.variants = enum_variants(&ast);
            w.expansions = macro_items::expand(&ast);
            w.visit_file(&ast);
            out = w.out;
            out.user_entries = user_entries;
            out.drm_ioctls = drm_ioctls;
        }
        Err(f) => {
            out.parse_error = Some(ParseError {
                file: file.rel.clone(),
                line: f.line,
                column: f.column,
                message: f.message,
            });
        }
    }
    out
}

struct ImplCtx {
    owner: Option<String>,
    trait_name: Option<String>,
    /// The implemented trait's path as written (`platform::Driver`).
    trait_path: Vec<String>,
    /// The impl is marked `#[vtable]` (the kernel crate's attribute for traits whose methods C
    /// calls through a table of function pointers).
    vtable: bool,
    /// A trait's own definition (its default methods), not an impl: `Self` is any implementer.
    is_trait: bool,
    /// The impl's associated types (`type Command = …;`): what `Self::Command` is.
    assoc: Vec<(String, syn::Type)>,
}

struct FnCtx {
    summary: FnSummary,
    closure_depth: u32,
    returns_option: bool,
    /// The function has a non-Rust ABI (`extern "C" fn`): its C caller sees only the value it
    /// returns, so an `Err` arm that turns the error into such a value hands it over.
    c_abi: bool,
}

/// The error a `match` arm binds (`Err(e) => …` on `call()`): `Err(e)` there re-throws the
/// call's error, except the codes that earlier arms handle by name.
struct Rethrow {
    binding: String,
    callee: Callee,
    handled: Vec<String>,
}

struct Walker<'n, 't> {
    /// The parsed text (spans' byte ranges index into it).
    text: &'t str,
    /// Items the file's own `macro_rules!` macros make where it invokes them, by invocation
    /// (each walked in the invocation's place, then dropped).
    expansions: macro_items::Expansions,
    names: &'n Names,
    config: &'n Config,
    base_module: Vec<String>,
    mods: Vec<String>,
    impls: Vec<ImplCtx>,
    fns: Vec<FnCtx>,
    /// Per open block: an earlier statement contains a logging call.
    frames: Vec<bool>,
    /// Logging calls seen inside blocks that end by leaving (`if bad { dev_err!(…); return
    /// Err(EINVAL); }`): they log that way out only, not what comes after the block.
    diverging_logs: u32,
    /// Error exits recorded so far (`?`, returned errors), to tell which statements have one.
    exits: u32,
    /// The next closure visited is a pin-init scope's (`pin_init_scope(move || { … })`): it
    /// runs as the function's initialiser, so its `return Err(…)` leaves the function's
    /// initialiser like its `?`.
    scope_closure: bool,
    /// Per open block: the names the earlier statements that log mention (`dev_err!(dev,
    /// "…", ret)`, `if ret < 0 { dev_err!(…) }`): a log about that value.
    logged_values: Vec<Vec<String>>,
    /// `match call() { Err(e) => … }`: the binding while inside such an arm.
    rethrow: Vec<Rethrow>,
    test_depth: u32,
    /// Inside a macro body that was parsed as code.
    macro_depth: u32,
    /// Generic type parameter names of the enclosing impls and functions.
    generics: Vec<Vec<String>>,
    /// Per open generic scope (as `generics`): each parameter's stated trait bound.
    bounds: Vec<Vec<(String, String)>>,
    /// Parameters of the enclosing functions with a path type: (name, type's last segment).
    params: Vec<Vec<(String, String)>>,
    /// Parameters of the enclosing functions typed as a fallible initialiser (`init: impl
    /// PinInit<T, E>`): running one runs the caller's initialiser.
    init_param_names: Vec<Vec<String>>,
    /// The file's structs: type name → (field, field type's last segment, through smart
    /// pointers), for `self.field.m(…)`.
    fields: HashMap<String, Vec<Field>>,
    /// The file's enums' tuple variants with their field types ([`enum_variants`]).
    variants: HashMap<(String, String), Vec<Option<String>>>,
    /// Inside closures whose `?` is an `Option`'s (`find_map(|x| …)`).
    option_closures: u32,
    /// Locals of the current function bound to the result of an allocating call
    /// (`let p = unsafe { bindings::kzalloc(…) }`).
    alloc_locals: Vec<String>,
    /// Locals bound by a `let` in the current function: values made here.
    bound_locals: Vec<String>,
    /// Locals of the current function bound to a C function's value (`let ret = unsafe {
    /// bindings::__auxiliary_device_add(…) }`), with the C function's name.
    c_locals: Vec<(String, String)>,
    /// Locals bound to a call's value whose type the syntax does not show (`let hal =
    /// gsp_hal(chip);`), with the call's path: `hal.m(…)` is the `m` of its value type.
    value_locals: Vec<(String, Vec<String>)>,
    /// Locals bound to a field of a typed value (`let falcon = ctx.gsp_falcon;`): (local, the
    /// value's type, the field), for a struct declared in another file.
    field_locals: Vec<(String, (String, String))>,
    /// Locals bound to a closure (`let load = |p| { …?; Ok(…) };`): calling one makes no error
    /// of its own, its body's `?`s are the function's.
    closure_locals: Vec<String>,
    /// Locals that are items of an iterator of a known type (`for x in SeqIter::new(…)`, and
    /// `Ok(y)`/`Some(y)` of such a local): (local, the iterator's type).
    item_locals: Vec<(String, String)>,
    /// While scanning a pin-init struct literal's tokens (`try_pin_init!(Gpu { … })`): the
    /// struct, whose fields are in scope by name.
    init_struct: Option<String>,
    /// The `.ok()` of the `.ok().unwrap()` being visited: it panics rather than swallows.
    unwrapped_ok: Option<Pos>,
    /// Locals that hold a call's `Result` (`let result = f(…);`, or a block whose value is
    /// such a call), with what the call is: returning or `?`-ing the local passes that call's
    /// error on, as returning the call would. The last binding of a name wins.
    result_locals: Vec<(String, Target, bool)>,
    /// Locals bound to a `match` or an `if … else` (`let res = match dir { W => Self::write(…),
    /// _ => Err(EINVAL) };`), with a copy of it: returning or `?`-ing the local returns each
    /// arm's value, as if the expression were the function's tail.
    held_matches: Vec<(String, syn::Expr)>,
    /// Inside `if p.is_null() { … }` for such a local.
    alloc_null_depth: u32,
    /// The `?` being recorded applies to an allocating call with GFP flags.
    gfp_call: bool,
    /// The `?` being recorded is an overflow or conversion guard.
    guard_call: bool,
    /// Inside `if e == EPROBE_DEFER { … }` (or another of the deliberate codes): the error
    /// returned there is that code, handed back on purpose.
    deliberate: Option<&'static str>,
    /// Inside `pin_init!`/`init!` without `? Error`: every `<-` initialiser is infallible.
    infallible_init: u32,
    out: FileSummary,
}

/// Constructors that run a pin-initialiser (`KBox::pin_init(init, flags)`): their error is the
/// initialiser's.
const PIN_INIT_CALLS: &[&str] = &["pin_init", "try_pin_init", "init", "try_init"];

/// The pin-init crate's runners (`pin_init::raw_try_init(slot, init)`): their error is the
/// initialiser's, their last argument.
const PIN_INIT_RUNNERS: &[&str] = &["raw_try_init"];

/// Iterator adapters whose closure returns an `Option` (a `?` in it is no error path).
const OPTION_CLOSURE_ADAPTERS: &[&str] = &["find_map", "filter_map", "map_while"];

/// Quasi-quoting macros: their bodies are code templates for another place, not code here.
const QUOTE_MACROS: &[&str] = &[
    "quote",
    "quote_spanned",
    "parse_quote",
    "parse_quote_spanned",
    "quote_expr",
    "quote_item",
];

impl<'n, 't> Walker<'n, 't> {
    fn new(names: &'n Names, config: &'n Config, file: &SourceFile, out: FileSummary, text: &'t str) -> Self {
        Walker {
            text,
            expansions: macro_items::Expansions::new(),
            names,
            config,
            base_module: file.module.clone(),
            mods: Vec::new(),
            impls: Vec::new(),
            fns: Vec::new(),
            frames: Vec::new(),
            diverging_logs: 0,
            exits: 0,
            scope_closure: false,
            logged_values: Vec::new(),
            rethrow: Vec::new(),
            test_depth: 0,
            macro_depth: 0,
            generics: Vec::new(),
            bounds: Vec::new(),
            params: Vec::new(),
            init_param_names: Vec::new(),
            fields: HashMap::new(),
            variants: HashMap::new(),
            option_closures: 0,
            alloc_locals: Vec::new(),
            bound_locals: Vec::new(),
            c_locals: Vec::new(),
            value_locals: Vec::new(),
            field_locals: Vec::new(),
            closure_locals: Vec::new(),
            item_locals: Vec::new(),
            init_struct: None,
            unwrapped_ok: None,
            result_locals: Vec::new(),
            held_matches: Vec::new(),
            alloc_null_depth: 0,
            gfp_call: false,
            guard_call: false,
            deliberate: None,
            infallible_init: 0,
            out,
        }
    }

    fn active_fn(&mut self) -> Option<&mut FnCtx> {
        if self.test_depth > 0 {
            return None;
        }
        self.fns.last_mut()
    }

    fn fn_display(&self) -> String {
        self.fns
            .last()
            .map(|f| f.summary.display.clone())
            .unwrap_or_else(|| {
                let mut s = vec![self.out.crate_name.clone()];
                s.extend(self.base_module.iter().cloned());
                s.extend(self.mods.iter().cloned());
                s.join("::")
            })
    }

    /// The log counts now (all logging calls, and those known to run only on a way out), to
    /// tell later which logs came since.
    fn log_mark(&self) -> (u32, u32) {
        (self.out.log_calls, self.diverging_logs)
    }

    /// Logging calls since `mark` that are not known to run only on a way out.
    fn logs_staying_since(&self, (logs, leaving): (u32, u32)) -> u32 {
        let all = self.out.log_calls.wrapping_sub(logs);
        all.saturating_sub(self.diverging_logs.wrapping_sub(leaving))
    }

    /// Every logging call since `mark` runs only on a way out (a block that leaves, a `?`'s
    /// attached log): none of them logs what follows.
    fn logs_leave_since(&mut self, mark: (u32, u32)) {
        let staying = self.logs_staying_since(mark);
        self.diverging_logs = self.diverging_logs.wrapping_add(staying);
    }

    fn before_flag(&self) -> bool {
        self.frames.last().copied().unwrap_or(false)
    }

    fn owner(&self) -> Option<String> {
        self.impls.last().and_then(|i| i.owner.clone())
    }

    fn contains_log<'a>(&self, exprs: impl IntoIterator<Item = &'a Expr>) -> bool {
        self.any_log(exprs, |lf, e| lf.visit_expr(e))
    }

    fn stmts_contain_log(&self, stmts: &[Stmt]) -> bool {
        self.any_log(stmts, |lf, s| lf.visit_stmt(s))
    }

    /// Whether any of `items` holds a log call, visiting them in order and stopping at the
    /// first one that does.
    fn any_log<'a, T: 'a>(
        &self,
        items: impl IntoIterator<Item = &'a T>,
        visit: impl Fn(&mut LogFinder<'_>, &'a T),
    ) -> bool {
        let mut lf = LogFinder {
            names: self.names,
            found: false,
        };
        for item in items {
            visit(&mut lf, item);
            if lf.found {
                return true;
            }
        }
        false
    }

    fn add_site(&mut self, pos: Pos, how: How, target: Target, attached: bool) {
        if self.option_closures > 0 {
            return;
        }
        let before = self.before_flag();
        self.record_site(pos, how, target, attached, before, true);
    }

    /// Records a site in the current function, with what the walker knows around it (an
    /// allocation's failure, a guard, a deferral). Inside a closure only `?` leaves the
    /// function; in a function returning `Option` no site is an error path. `mark_closure`:
    /// note that the site is inside a closure.
    fn record_site(
        &mut self,
        pos: Pos,
        how: How,
        target: Target,
        attached: bool,
        before: bool,
        mark_closure: bool,
    ) {
        let allocation = self.alloc_null_depth > 0 || self.gfp_call;
        let guard = self.guard_call;
        let errno = self.deliberate.map(str::to_string);
        self.exits = self.exits.wrapping_add(1);
        if let Some(ctx) = self.active_fn() {
            let in_closure = ctx.closure_depth > 0;
            if how != How::Try && in_closure {
                return;
            }
            if ctx.returns_option && !in_closure {
                return;
            }
            ctx.summary.sites.push(Site {
                pos,
                how,
                target,
                attached,
                before,
                in_closure: mark_closure && in_closure,
                errno,
                allocation,
                guard,
                init_args: Vec::new(),
                handled: Vec::new(),
            });
        }
    }

    /// A new binding of `name` (`let name = …`) hides what an earlier one held, in every table
    /// of locals.
    fn forget_local(&mut self, name: &str) {
        self.alloc_locals.retain(|n| n != name);
        self.c_locals.retain(|(n, _)| n != name);
        self.result_locals.retain(|(n, ..)| n != name);
        self.held_matches.retain(|(n, _)| n != name);
        self.value_locals.retain(|(n, _)| n != name);
        self.field_locals.retain(|(n, _)| n != name);
        self.closure_locals.retain(|n| n != name);
        self.item_locals.retain(|(n, _)| n != name);
    }

    fn add_check(&mut self, pos: Pos, kind: CheckKind) {
        if let Some(ctx) = self.active_fn() {
            ctx.summary.checks.push(Check { pos, kind });
        }
    }

    fn local_finding(&mut self, kind: Kind, p: Pos, message: String) {
        if self.test_depth > 0 {
            return;
        }
        let function = self.fn_display();
        self.out.findings.push(Finding {
            kind,
            file: self.out.path.clone(),
            line: p.line,
            column: p.column,
            function,
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

    fn function(&mut self, sig: &syn::Signature, attrs: &[Attribute], block: &syn::Block, in_impl: bool) {
        self.alloc_locals.clear();
        self.bound_locals.clear();
        self.c_locals.clear();
        self.value_locals.clear();
        self.field_locals.clear();
        self.closure_locals.clear();
        self.item_locals.clear();
        self.result_locals.clear();
        self.held_matches.clear();
        let test = is_test_attr(attrs);
        if test {
            self.test_depth += 1;
        }
        let name = sig.ident.to_string();
        let owner = if in_impl { self.owner() } else { None };
        let trait_name = if in_impl {
            self.impls.last().and_then(|i| i.trait_name.clone())
        } else {
            None
        };
        let trait_path = match self.impls.last() {
            Some(i) if in_impl => i.trait_path.clone(),
            _ => Vec::new(),
        };
        let mut display = vec![self.out.crate_name.clone()];
        display.extend(self.base_module.iter().cloned());
        display.extend(self.mods.iter().cloned());
        if let Some(o) = &owner {
            display.push(o.clone());
        }
        display.push(name.clone());
        let mut module = self.base_module.clone();
        module.extend(self.mods.iter().cloned());
        // `-> impl Init<Self::Command, Self::InitError>`: the types the impl names.
        let output = match (&sig.output, self.impls.last().filter(|_| in_impl)) {
            (syn::ReturnType::Type(arrow, ty), Some(i)) if !i.assoc.is_empty() => {
                syn::ReturnType::Type(*arrow, Box::new(assoc::substitute_type(ty, &i.assoc)))
            }
            _ => sig.output.clone(),
        };
        let ret = ret_of(&output);
        // `-> Result<Self>`: the impl's type.
        let value_type = value_type(&output).and_then(|t| if t == "Self" { owner.clone() } else { Some(t) });
        let returns_option = ret.is_option();
        let summary = FnSummary {
            boundary: self.boundary_of(&name, sig, in_impl),
            name,
            owner,
            trait_name,
            trait_path,
            module,
            display: display.join("::"),
            pos: pos(sig.ident.span()),
            ret,
            value_type,
            init_params: init_params(sig),
            has_self: sig.receiver().is_some(),
            sites: Vec::new(),
            checks: Vec::new(),
        };
        self.fns.push(FnCtx {
            summary,
            closure_depth: 0,
            returns_option,
            c_abi: has_c_abi(sig),
        });
        self.generics.push(type_params(&sig.generics));
        self.bounds.push(type_bounds(&sig.generics));
        // `this: Pin<&Self::Data<'_>>` in a trait impl: the type the impl names for `Data`.
        let assoc: &[(String, syn::Type)] = match self.impls.last().filter(|_| in_impl) {
            Some(i) => &i.assoc,
            None => &[],
        };
        let params: Vec<(String, String)> = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => {
                    let ty = assoc::substitute_type(&t.ty, assoc);
                    match (&*t.pat, param_type_name(&ty)) {
                        (Pat::Ident(i), Some(ty)) => Some((i.ident.to_string(), ty)),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        self.params.push(params);
        self.init_param_names.push(init_param_names(sig));
        let saved_rethrow = std::mem::take(&mut self.rethrow);
        let saved_frames = std::mem::take(&mut self.frames);
        let saved_values = std::mem::take(&mut self.logged_values);
        self.visit_block(block);
        self.tail_block(block, 0);
        self.rethrow = saved_rethrow;
        self.frames = saved_frames;
        self.logged_values = saved_values;
        self.generics.pop();
        self.bounds.pop();
        self.params.pop();
        self.init_param_names.pop();
        if let Some(ctx) = self.fns.pop() {
            if self.test_depth == 0 {
                self.out.functions.push(ctx.summary);
            }
        }
        if test {
            self.test_depth -= 1;
        }
    }

    fn with_test_attrs<F: FnOnce(&mut Self)>(&mut self, attrs: &[Attribute], f: F) {
        let test = is_test_attr(attrs);
        if test {
            self.test_depth += 1;
        }
        f(self);
        if test {
            self.test_depth -= 1;
        }
    }

    fn discard(&mut self, e: &Expr, form: &'static str, p: Pos) {
        self.discard_as(e, form, p, false);
    }

    /// A discard whose dropped value is known to be a `Result` or not (`.ok();` is).
    fn discard_as(&mut self, e: &Expr, form: &'static str, p: Pos, is_result: bool) {
        let e = match strip(e) {
            Expr::MethodCall(m) if m.method == "ok" && m.args.is_empty() => &*m.receiver,
            other => other,
        };
        if let Some((callee, logged)) = self.callee_of(e) {
            if !logged {
                let acknowledged = self.explained_at(p.line);
                self.add_check(
                    p,
                    CheckKind::Discard {
                        form,
                        callee,
                        acknowledged,
                        is_result,
                    },
                );
            }
        }
    }

    /// Whether a comment explains line `line`: an ordinary `//` comment on the line just before
    /// (not an `errtrace-audit:` directive, which suppresses instead) or at the end of the line.
    fn explained_at(&self, line: u32) -> bool {
        let idx = (line.max(1) - 1) as usize;
        let lines: Vec<&str> = self.text.lines().skip(idx.saturating_sub(8)).take(10).collect();
        let here_at = idx.min(8);
        let here = lines.get(here_at).copied().unwrap_or("");
        let after = lines.get(here_at + 1).copied();
        fn comment(l: &str) -> Option<&str> {
            l.trim()
                .strip_prefix("//")
                .filter(|c| !c.starts_with('/') && !c.starts_with('!'))
                .map(str::trim)
        }
        // The comment block right above, its lines joined (a reason often wraps: `// … in which
        // // case.`).
        let above: Vec<&str> = lines
            .get(..here_at)
            .unwrap_or(&[])
            .iter()
            .rev()
            .copied()
            .map_while(comment)
            .collect();
        let block: String = above.iter().rev().copied().collect::<Vec<_>>().join(" ");
        let before_ok = !above.is_empty() && is_reason(&block);
        let trailing_ok = here.split_once("; //").is_some_and(|(_, c)| is_reason(c));
        // A comment right after a one-line statement explains it too (`let _ = f();` then
        // `// Nothing to do: f fails only when …`).
        let after_ok = here.trim_end().ends_with(';') && after.and_then(comment).is_some_and(is_reason);
        before_ok || trailing_ok || after_ok
    }
}

/// Whether a comment gives a reason for letting the error go: words that say why, about the
/// failure (`best effort: the chip resets itself on the next power cycle`, `this only fails if
/// the process is dead`, `ignore allocation failures since this is just an optimization`), not
/// a comment on what the statement does (`Decrement ref count on the handle we just created.`),
/// not a marker that the failure is not handled yet (`TODO: handle this`, `FIXME`, `XXX`,
/// `HACK`), not a single word, not an audit directive.
fn is_reason(comment: &str) -> bool {
    let c = comment.trim();
    let upper = c.to_ascii_uppercase();
    let marker = ["TODO", "FIXME", "XXX", "HACK"].iter().any(|m| {
        upper.starts_with(m) || upper.contains(&format!(" {m}")) || upper.contains(&format!("{m}:"))
    });
    let words: Vec<String> = c
        .split(|ch: char| !ch.is_alphanumeric() && ch != '\'' && ch != '_')
        .filter(|w| w.chars().any(char::is_alphabetic))
        .map(str::to_ascii_lowercase)
        .collect();
    let why = words
        .iter()
        .any(|w| REASON_WORDS.contains(&w.as_str()) || REASON_STEMS.iter().any(|s| w.starts_with(s)));
    !c.starts_with("errtrace-audit:") && !marker && words.len() >= 2 && why
}

/// Words of a reason for letting an error go: about the failure, or why it does not matter.
const REASON_WORDS: &[&str] = &[
    "err",
    "ok",
    "okay",
    "fine",
    "never",
    "only",
    "because",
    "since",
    "unless",
    "already",
    "anyway",
    "cannot",
    "can't",
    "won't",
    "don't",
    "care",
    "dead",
    "gone",
    "effort",
    "harmless",
    "safe",
    "regardless",
    "nothing",
    "retry",
    "later",
];

/// Stems of such words (`fail` for `fails`, `failed`, `failure`; `ignor` for `ignored`).
const REASON_STEMS: &[&str] = &[
    "fail",
    "error",
    "ignor",
    "matter",
    "expect",
    "deliberate",
    "intention",
    "optional",
    "succe",
];

/// The local a plain argument names (`ret`, through `unsafe { … }` and parentheses).
fn plain_local(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Unsafe(u) => match u.block.stmts.as_slice() {
            [Stmt::Expr(inner, None)] => plain_local(inner),
            _ => None,
        },
        _ => None,
    }
}

/// Every identifier in a statement, macro arguments included (`dev_err!(dev, "…", ret)`).
pub(super) fn idents_of(s: &Stmt) -> Vec<String> {
    struct Idents(Vec<String>);
    fn tokens(out: &mut Vec<String>, ts: proc_macro2::TokenStream) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                proc_macro2::TokenTree::Group(g) => tokens(out, g.stream()),
                _ => {}
            }
        }
    }
    impl<'ast> Visit<'ast> for Idents {
        fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
            self.0.push(i.to_string());
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            tokens(&mut self.0, m.tokens.clone());
            syn::visit::visit_macro(self, m);
        }
    }
    let mut v = Idents(Vec::new());
    v.visit_stmt(s);
    v.0
}
