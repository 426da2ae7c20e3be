//! Walking one file's syntax tree into a [`FileSummary`].
//!
//! The walker records, per function, every place an error can leave it (`?`, `return`, the
//! tail expression, a re-thrown `Err(e)` arm) with what the error comes from and whether a
//! logging call is attached; the candidates for `discarded`/`swallowed`/`panic` that need the
//! whole-tree index; and the file's counts. Macro bodies are parsed as expressions or
//! statements when they can be, and scanned token by token when they cannot.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, Expr, Pat, Stmt};

use crate::config::Config;
use crate::discover::SourceFile;
use crate::findings::{Finding, Kind};
use crate::logging::{runs_on_error, MethodRole, Names, PANIC_MACROS};
use crate::model::*;
use crate::parse;
use crate::suppress::Suppressions;
use std::collections::HashMap;

/// File-operation style trait methods that are boundaries (in a trait impl whose trait name
/// has `Operations`, `File` or `Misc` in it, or whose signature takes a `File`).
const FILE_OPS: &[&str] = &["open", "ioctl", "compat_ioctl", "read", "write"];

/// Traits whose `read`/`write` hand the error to the caller (std I/O): not boundaries.
const IO_TRAITS: &[&str] = &[
    "Read",
    "Write",
    "BufRead",
    "Seek",
    "AsyncRead",
    "AsyncWrite",
    "AsyncBufRead",
    "AsyncSeek",
];

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
            let mut w = Walker::new(names, config, file, out, body);
            w.fields = struct_fields(&ast);
            w.visit_file(&ast);
            out = w.out;
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
}

struct FnCtx {
    summary: FnSummary,
    closure_depth: u32,
    returns_option: bool,
    /// The function has a non-Rust ABI (`extern "C" fn`): its C caller sees only the value it
    /// returns, so an `Err` arm that turns the error into such a value hands it over.
    c_abi: bool,
}

/// Whether `sig` declares a real non-Rust ABI (`extern "C"`, `extern "system"`, bare `extern`).
fn has_c_abi(sig: &syn::Signature) -> bool {
    match &sig.abi {
        Some(abi) => match &abi.name {
            Some(name) => name.value() != "Rust",
            None => true,
        },
        None => false,
    }
}

struct Walker<'n, 't> {
    /// The parsed text (spans' byte ranges index into it).
    text: &'t str,
    names: &'n Names,
    config: &'n Config,
    base_module: Vec<String>,
    mods: Vec<String>,
    impls: Vec<ImplCtx>,
    fns: Vec<FnCtx>,
    /// Per open block: an earlier statement contains a logging call.
    frames: Vec<bool>,
    /// `match call() { Err(e) => … }`: (binding, callee) while inside such an arm.
    rethrow: Vec<(String, Callee)>,
    test_depth: u32,
    /// Inside a macro body that was parsed as code.
    macro_depth: u32,
    /// Generic type parameter names of the enclosing impls and functions.
    generics: Vec<Vec<String>>,
    /// Parameters of the enclosing functions with a path type: (name, type's last segment).
    params: Vec<Vec<(String, String)>>,
    /// The file's structs: type name → (field, field type's last segment, through smart
    /// pointers), for `self.field.m(…)`.
    fields: HashMap<String, Vec<(String, String)>>,
    out: FileSummary,
}

/// The named fields of every struct in `file` (nested modules included), by struct name.
fn struct_fields(file: &syn::File) -> HashMap<String, Vec<(String, String)>> {
    struct Collect(HashMap<String, Vec<(String, String)>>);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
            if let syn::Fields::Named(named) = &s.fields {
                let fields = named
                    .named
                    .iter()
                    .filter_map(|f| Some((f.ident.as_ref()?.to_string(), param_type_name(&f.ty)?)))
                    .collect();
                self.0.insert(s.ident.to_string(), fields);
            }
        }
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
    }
    let mut c = Collect(HashMap::new());
    c.visit_file(file);
    c.0
}

/// Constructors that run a pin-initialiser (`KBox::pin_init(init, flags)`): their error is the
/// initialiser's.
const PIN_INIT_CALLS: &[&str] = &["pin_init", "try_pin_init", "init", "try_init"];

/// Quasi-quoting macros: their bodies are code templates for another place, not code here.
const QUOTE_MACROS: &[&str] = &[
    "quote",
    "quote_spanned",
    "parse_quote",
    "parse_quote_spanned",
    "quote_expr",
    "quote_item",
];

fn type_params(g: &syn::Generics) -> Vec<String> {
    g.type_params().map(|t| t.ident.to_string()).collect()
}

fn pos(span: Span) -> Pos {
    let lc = span.start();
    Pos {
        line: lc.line.max(1) as u32,
        column: lc.column as u32 + 1,
    }
}

fn last_seg(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

fn type_last_seg(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Paren(p) => type_last_seg(&p.elem),
        syn::Type::Group(g) => type_last_seg(&g.elem),
        _ => None,
    }
}

/// What a signature returns; `impl Future<Output = T>` is looked through.
fn ret_of(output: &syn::ReturnType) -> Ret {
    match output {
        syn::ReturnType::Default => Ret::Unit,
        syn::ReturnType::Type(_, ty) => ret_of_type(ty),
    }
}

fn ret_of_type(ty: &syn::Type) -> Ret {
    match ty {
        syn::Type::ImplTrait(it) => {
            for b in &it.bounds {
                if let syn::TypeParamBound::Trait(t) = b {
                    if let Some(seg) = t.path.segments.last() {
                        // `impl PinInit<T, E>` / `impl Init<T, E>`: a fallible initialiser, whose
                        // error leaves like a `Result`'s (with an error type other than
                        // `Infallible`).
                        if seg.ident == "PinInit" || seg.ident == "Init" {
                            if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                                let types: Vec<&syn::Type> = a
                                    .args
                                    .iter()
                                    .filter_map(|g| match g {
                                        syn::GenericArgument::Type(t) => Some(t),
                                        _ => None,
                                    })
                                    .collect();
                                if let Some(e) = types.get(1) {
                                    if type_last_seg(e).is_some_and(|n| n != "Infallible") {
                                        return Ret::Named("Result".to_string());
                                    }
                                }
                            }
                        }
                        if seg.ident == "Future" {
                            if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                                for arg in &a.args {
                                    if let syn::GenericArgument::AssocType(at) = arg {
                                        if at.ident == "Output" {
                                            return ret_of_type(&at.ty);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            Ret::Other
        }
        syn::Type::Tuple(t) if t.elems.is_empty() => Ret::Unit,
        other => type_last_seg(other).map(Ret::Named).unwrap_or(Ret::Other),
    }
}

/// Does a parameter's type mention a type named `File` (`&File`, `ArcBorrow<'_, File>`, …)?
fn sig_mentions_file(sig: &syn::Signature) -> bool {
    fn ty_has(ty: &syn::Type, depth: u32) -> bool {
        if depth > 16 {
            return false;
        }
        match ty {
            syn::Type::Path(p) => p.path.segments.iter().any(|s| {
                s.ident == "File"
                    || match &s.arguments {
                        syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|g| match g {
                            syn::GenericArgument::Type(t) => ty_has(t, depth + 1),
                            _ => false,
                        }),
                        _ => false,
                    }
            }),
            syn::Type::Reference(r) => ty_has(&r.elem, depth + 1),
            syn::Type::Ptr(p) => ty_has(&p.elem, depth + 1),
            syn::Type::Paren(p) => ty_has(&p.elem, depth + 1),
            syn::Type::Group(g) => ty_has(&g.elem, depth + 1),
            _ => false,
        }
    }
    sig.inputs
        .iter()
        .any(|a| matches!(a, syn::FnArg::Typed(t) if ty_has(&t.ty, 0)))
}

/// Smart pointers and borrows whose methods are their target's: a receiver of one of these
/// types calls the pointee's methods (`this: ArcBorrow<'_, Process>` → `Process::…`).
const SMART_POINTERS: &[&str] = &[
    "Arc",
    "ArcBorrow",
    "Box",
    "KBox",
    "VBox",
    "Pin",
    "Rc",
    "UniqueArc",
    "ListArc",
    "ARef",
    "Ref",
    "RefMut",
    "Guard",
    "MutexGuard",
];

/// `Foo`, `&Foo`, `&mut m::Foo<T>` → `Foo`; through smart pointers (`Arc<Foo>`,
/// `ArcBorrow<'_, Foo>`, `Pin<&mut Foo>`, `KBox<Foo>`) → `Foo`; `Self` and others → `None`.
fn param_type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Reference(r) => param_type_name(&r.elem),
        syn::Type::Paren(p) => param_type_name(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let n = last.ident.to_string();
            if SMART_POINTERS.contains(&n.as_str()) {
                if let syn::PathArguments::AngleBracketed(a) = &last.arguments {
                    let inner = a.args.iter().rev().find_map(|g| match g {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    });
                    if let Some(t) = inner {
                        return param_type_name(t);
                    }
                }
            }
            (n != "Self").then_some(n)
        }
        _ => None,
    }
}

fn is_test_attr(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let p = a.path();
        if p.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        if p.is_ident("cfg") {
            if let syn::Meta::List(l) = &a.meta {
                let t: String = l
                    .tokens
                    .to_string()
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                return t == "test" || t.starts_with("all(test");
            }
        }
        false
    })
}

fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident("self"))
}

fn strip(mut e: &Expr) -> &Expr {
    loop {
        match e {
            Expr::Paren(p) => e = &p.expr,
            Expr::Group(g) => e = &g.expr,
            Expr::Await(a) => e = &a.base,
            _ => return e,
        }
    }
}

/// Is the first argument text (a string literal or a `format!`-like macro)?
fn first_arg_is_text(args: &Punctuated<Expr, syn::Token![,]>) -> bool {
    match args.first() {
        Some(Expr::Lit(l)) => matches!(l.lit, syn::Lit::Str(_)),
        Some(Expr::Macro(m)) => last_seg(&m.mac.path).contains("format"),
        _ => false,
    }
}

/// Does a token stream hold a string literal at its top level (`err!(EIO, "msg")` logs)?
fn tokens_have_str(ts: &TokenStream) -> bool {
    ts.clone().into_iter().any(|t| match t {
        TokenTree::Literal(l) => {
            let s = l.to_string();
            s.starts_with('"') || s.starts_with("r\"") || s.starts_with("r#")
        }
        _ => false,
    })
}

/// Finds a logging call anywhere in what it visits.
struct LogFinder<'n> {
    names: &'n Names,
    found: bool,
}

impl LogFinder<'_> {
    fn scan_tokens(&mut self, ts: &TokenStream) {
        let mut stack = vec![ts.clone().into_iter()];
        let mut prev_ident: Option<String> = None;
        while let Some(top) = stack.last_mut() {
            let Some(tt) = top.next() else {
                stack.pop();
                continue;
            };
            match tt {
                TokenTree::Ident(i) => prev_ident = Some(i.to_string()),
                TokenTree::Punct(p) if p.as_char() == '!' => {
                    if let Some(name) = prev_ident.take() {
                        if self.names.is_log_macro(&name) {
                            self.found = true;
                            return;
                        }
                    }
                }
                TokenTree::Group(g) => {
                    prev_ident = None;
                    if stack.len() < parse::MAX_NESTING {
                        stack.push(g.stream().into_iter());
                    }
                }
                _ => prev_ident = None,
            }
        }
    }
}

impl<'ast> Visit<'ast> for LogFinder<'_> {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = last_seg(&m.path);
        if self.names.is_log_macro(&name) || name == "err" && tokens_have_str(&m.tokens) {
            self.found = true;
        } else if !self.found {
            self.scan_tokens(&m.tokens);
        }
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            if self.names.is_log_function(&last_seg(&p.path)) {
                self.found = true;
                return;
            }
        }
        if !self.found {
            visit::visit_expr_call(self, c);
        }
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        if self
            .names
            .is_log_method(&name, first_arg_is_text(&m.args), m.args.len())
            || self.names.is_log_function(&name)
        {
            self.found = true;
            return;
        }
        if !self.found {
            visit::visit_expr_method_call(self, m);
        }
    }
}

/// What an arm body or `if let` body does with the error.
#[derive(Default)]
struct BodyInfo {
    log: bool,
    exits: bool,
    uses: bool,
}

struct BodyInspector<'n, 'b> {
    names: &'n Names,
    binding: Option<&'b str>,
    info: BodyInfo,
}

impl<'ast> Visit<'ast> for BodyInspector<'_, '_> {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = last_seg(&m.path);
        if self.names.is_log_macro(&name) || name == "err" && tokens_have_str(&m.tokens) {
            self.info.log = true;
        }
        if PANIC_MACROS.contains(&name.as_str()) {
            self.info.exits = true;
        }
        let mut lf = LogFinder {
            names: self.names,
            found: false,
        };
        lf.scan_tokens(&m.tokens);
        self.info.log |= lf.found;
        if let Some(b) = self.binding {
            if m.tokens
                .clone()
                .into_iter()
                .any(|t| matches!(&t, TokenTree::Ident(i) if i == b))
            {
                self.info.uses = true;
            }
        }
    }
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.info.exits = true;
        visit::visit_expr_return(self, r);
    }
    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        self.info.exits = true;
        visit::visit_expr_try(self, t);
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            let n = last_seg(&p.path);
            if n == "Err" {
                self.info.exits = true;
            }
            if self.names.is_log_function(&n) {
                self.info.log = true;
            }
        }
        visit::visit_expr_call(self, c);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        if self
            .names
            .is_log_method(&name, first_arg_is_text(&m.args), m.args.len())
        {
            self.info.log = true;
        }
        visit::visit_expr_method_call(self, m);
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(b) = self.binding {
            if p.is_ident(b) {
                self.info.uses = true;
            }
        }
        visit::visit_path(self, p);
    }
}

/// The binding of an `Err(…)` pattern: `Some(None)` for `Err(_)`/`Err(..)`, `Some(Some(x))`
/// for `Err(x)`, `None` if the pattern is not an `Err` pattern.
fn err_pattern(p: &Pat) -> Option<Option<String>> {
    match p {
        Pat::TupleStruct(ts) if last_seg(&ts.path) == "Err" => {
            if ts.elems.len() != 1 {
                return Some(None);
            }
            match ts.elems.first() {
                // `Err(ERANGE)`: a constant (by the naming convention), so a pattern that
                // handles one error, not a binding of every error.
                Some(Pat::Ident(i)) if i.subpat.is_none() && is_const_name(&i.ident.to_string()) => None,
                // `Err(code::ERANGE)`, `Err(Errno::Again)`: a path is a constant too.
                Some(Pat::Path(_)) => None,
                Some(Pat::Ident(i)) if i.subpat.is_none() => {
                    let n = i.ident.to_string();
                    if n.starts_with('_') {
                        Some(None)
                    } else {
                        Some(Some(n))
                    }
                }
                Some(Pat::Wild(_)) | Some(Pat::Rest(_)) | None => Some(None),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

/// The errno an error-making expression names: `Err(EINVAL)`, `Err(code::ENODEV)`,
/// `Err(Error::EIO)`, `Err(EINVAL.into())`, `err!(EIO, …)`, `Err(err!(once, EIO, …))`.
fn errno_named(e: &Expr) -> Option<String> {
    let errno_like = |s: &str| {
        s.len() > 1
            && s.starts_with('E')
            && s.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    match strip(e) {
        Expr::Call(c) if matches!(strip(&c.func), Expr::Path(p) if last_seg(&p.path) == "Err") => {
            c.args.first().and_then(errno_named)
        }
        Expr::Path(p) => Some(last_seg(&p.path)).filter(|s| errno_like(s)),
        Expr::MethodCall(m) if m.method == "into" => errno_named(&m.receiver),
        Expr::Macro(m) if last_seg(&m.mac.path) == "err" => m
            .mac
            .tokens
            .clone()
            .into_iter()
            .filter_map(|t| match t {
                proc_macro2::TokenTree::Ident(i) => Some(i.to_string()),
                _ => None,
            })
            .take(2)
            .find(|s| errno_like(s)),
        _ => None,
    }
}

/// `let name: Type = …` → (name, Type); `let name = Type::new(…)` (a path call whose type
/// segment is capitalised, through `?`, `.await` and parentheses) → (name, Type).
fn typed_local(l: &syn::Local) -> Option<(String, String)> {
    let (pat, ty) = match &l.pat {
        Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        other => (other, None),
    };
    let Pat::Ident(id) = pat else { return None };
    let name = id.ident.to_string();
    if let Some(t) = ty.and_then(param_type_name) {
        return Some((name, t));
    }
    let mut e = &*l.init.as_ref()?.expr;
    loop {
        match e {
            Expr::Try(t) => e = &t.expr,
            Expr::Await(a) => e = &a.base,
            Expr::Paren(p) => e = &p.expr,
            _ => break,
        }
    }
    let Expr::Call(c) = e else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let ty = segs.len().checked_sub(2).and_then(|i| segs.get(i))?;
    let capitalised = ty.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    (capitalised && ty != "Self" && !SMART_POINTERS.contains(&ty.as_str())).then(|| (name, ty.clone()))
}

/// Whether a signature's return type is a `Result` (by its last path segment).
fn returns_result(sig: &syn::Signature) -> bool {
    match &sig.output {
        syn::ReturnType::Type(_, ty) => type_last_seg(ty).is_some_and(|s| s == "Result"),
        syn::ReturnType::Default => false,
    }
}

/// `ERANGE`, `E2BIG`, `MAX_TRIES`: upper case, digits and underscores, with a letter.
fn is_const_name(n: &str) -> bool {
    n.chars().any(|c| c.is_ascii_uppercase())
        && n.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn is_empty_body(e: &Expr) -> bool {
    match e {
        Expr::Block(b) => b.block.stmts.is_empty() && b.label.is_none(),
        Expr::Tuple(t) => t.elems.is_empty(),
        _ => false,
    }
}

impl<'n, 't> Walker<'n, 't> {
    fn new(names: &'n Names, config: &'n Config, file: &SourceFile, out: FileSummary, text: &'t str) -> Self {
        Walker {
            text,
            names,
            config,
            base_module: file.module.clone(),
            mods: Vec::new(),
            impls: Vec::new(),
            fns: Vec::new(),
            frames: Vec::new(),
            rethrow: Vec::new(),
            test_depth: 0,
            macro_depth: 0,
            generics: Vec::new(),
            params: Vec::new(),
            fields: HashMap::new(),
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

    /// The declared type of a receiver that is a parameter of the current function.
    fn param_type(&self, recv: &Expr) -> Option<String> {
        let Expr::Path(p) = recv else { return None };
        let id = p.path.get_ident()?.to_string();
        let params = self.params.last()?;
        params.iter().find(|(n, _)| *n == id).map(|(_, t)| t.clone())
    }

    /// The declared type of `self.field` (the enclosing impl's struct, in this file).
    fn field_type(&self, recv: &Expr) -> Option<String> {
        let Expr::Field(f) = recv else { return None };
        if !is_self(strip(&f.base)) {
            return None;
        }
        let syn::Member::Named(field) = &f.member else {
            return None;
        };
        let owner = self.owner()?;
        let field = field.to_string();
        let ty = self
            .fields
            .get(&owner)?
            .iter()
            .find(|(n, _)| *n == field)?
            .1
            .clone();
        (!self.is_generic(&ty)).then_some(ty)
    }

    fn is_generic(&self, name: &str) -> bool {
        self.generics.iter().any(|g| g.iter().any(|p| p == name))
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

    fn path_segs(&self, path: &syn::Path) -> Vec<String> {
        let owner = self.owner();
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
    fn classify(&self, e: &Expr) -> (Option<Target>, bool) {
        let mut cur = e;
        let mut attached = false;
        loop {
            match cur {
                Expr::Paren(p) => cur = &p.expr,
                Expr::Group(g) => cur = &g.expr,
                Expr::Await(a) => cur = &a.base,
                Expr::MethodCall(m) => {
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
                            continue;
                        }
                        MethodRole::Makes => {
                            return (Some(Target::Made), attached || self.contains_log(&m.args));
                        }
                        MethodRole::PassesOn => {
                            cur = &m.receiver;
                            continue;
                        }
                        MethodRole::LogsAsFunction => return (Some(Target::Made), true),
                        MethodRole::Origin => return (Some(Target::OriginFn(name)), attached),
                        MethodRole::Call => {}
                    }
                    let recv = strip(&m.receiver);
                    let callee = if is_self(recv) {
                        Callee::SelfMethod(name)
                    } else if let Some(ty) = self.field_type(recv) {
                        Callee::Path(vec![ty, name])
                    } else if let Some(ty) = self.param_type(recv) {
                        if self.is_generic(&ty) {
                            Callee::Generic(ty, name)
                        } else {
                            Callee::Path(vec![ty, name])
                        }
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
                        return (Some(Target::Made), attached || self.contains_log(&c.args));
                    }
                    if last == "Ok" || last == "Some" {
                        return (None, attached);
                    }
                    // `KBox::pin_init(Dev::new(…), GFP_KERNEL)?`, `Arc::pin_init(…)?`: the error
                    // is the initializer's (`impl PinInit<T, E>`), so the hop goes to its
                    // constructor.
                    if PIN_INIT_CALLS.contains(&last.as_str()) && segs.len() >= 2 {
                        if let Some(Expr::Call(init)) = c.args.first().map(strip) {
                            if matches!(strip(&init.func), Expr::Path(_)) {
                                cur = c.args.first().map(strip).unwrap_or(cur);
                                continue;
                            }
                        }
                    }
                    if self.names.is_log_function(&last) {
                        return (Some(Target::Made), true);
                    }
                    if self.names.is_origin_function(&last) {
                        return (
                            Some(Target::OriginFn(last)),
                            attached || self.contains_log(&c.args),
                        );
                    }
                    if segs.len() == 2 && self.is_generic(&segs[0]) {
                        return (
                            Some(Target::Call(Callee::Generic(segs[0].clone(), last))),
                            attached,
                        );
                    }
                    return (Some(Target::Call(Callee::Path(segs))), attached);
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

    /// The callee of a call-like expression (adapters stripped), and whether a log is attached.
    fn callee_of(&self, e: &Expr) -> Option<(Callee, bool)> {
        match self.classify(e) {
            (Some(Target::Call(c)), logged) => Some((c, logged)),
            _ => None,
        }
    }

    fn add_site(&mut self, pos: Pos, how: How, target: Target, attached: bool) {
        let before = self.before_flag();
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
                in_closure,
                errno: None,
            });
        }
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
        });
    }

    /// `Err(e)` (or `Err(e.into())`) where `e` is the error of a matched call: that call.
    fn rethrown_callee(&self, e: &Expr) -> Option<Callee> {
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
            .find(|(b, _)| *b == name)
            .map(|(_, callee)| callee.clone())
    }

    /// A returned expression (`return e` or a tail), with the block's "logged before" flag.
    fn returned(&mut self, e: &Expr, p: Pos, how: How, before: bool) {
        // `Err(e)` where `e` is the error of a matched call: the call's error passes on.
        if let Some(callee) = self.rethrown_callee(e) {
            self.push_site_with_before(p, How::Rethrow, Target::Call(callee), false, before);
            return;
        }
        let (target, attached) = self.classify(e);
        if let Some(t) = target {
            let made = matches!(t, Target::Made);
            self.push_site_with_before(p, how, t, attached, before);
            if made {
                self.note_errno(e);
            }
        }
    }

    /// Records, on the site just pushed, the errno that `e` (the error made there) names.
    fn note_errno(&mut self, e: &Expr) {
        let errno = errno_named(e);
        if let Some(site) = self.active_fn().and_then(|ctx| ctx.summary.sites.last_mut()) {
            site.errno = errno;
        }
    }

    fn push_site_with_before(&mut self, pos: Pos, how: How, target: Target, attached: bool, before: bool) {
        if let Some(ctx) = self.active_fn() {
            if ctx.closure_depth > 0 && how != How::Try {
                return;
            }
            if ctx.returns_option && ctx.closure_depth == 0 {
                return;
            }
            ctx.summary.sites.push(Site {
                pos,
                how,
                target,
                attached,
                before,
                in_closure: false,
                errno: None,
            });
        }
    }

    /// Tail expressions of the function body, through blocks, `if` and `match`.
    fn tail(&mut self, e: &Expr, before: bool, depth: u32) {
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
                for arm in &m.arms {
                    let bound = match (&scrutinee, err_pattern(&arm.pat)) {
                        (Some(c), Some(Some(b))) => {
                            self.rethrow.push((b, c.clone()));
                            true
                        }
                        _ => false,
                    };
                    self.tail(&arm.body, false, depth + 1);
                    if bound {
                        self.rethrow.pop();
                    }
                }
            }
            Expr::Return(_) | Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_) => {}
            other => {
                let p = pos(other.span());
                self.returned(other, p, How::Tail, before);
            }
        }
    }

    fn tail_block(&mut self, b: &syn::Block, depth: u32) {
        if let Some((Stmt::Expr(e, None), rest)) = b.stmts.split_last() {
            let before = self.stmts_contain_log(rest);
            self.tail(e, before, depth);
        }
    }

    fn boundary_of(&self, name: &str, sig: &syn::Signature, in_impl: bool) -> Option<Boundary> {
        let (owner, trait_name) = match self.impls.last() {
            Some(i) if in_impl => (i.owner.as_deref(), i.trait_name.as_deref()),
            _ => (None, None),
        };
        if self.config.is_boundary(name, owner, trait_name) {
            return Some(Boundary::Config);
        }
        // Only a real foreign ABI hands errors to non-Rust code: `#[export_name]` or
        // `#[no_mangle]` on a Rust-ABI function only names its symbol (Rust binder does it so
        // that `ps` shows a readable wchan), and its callers are Rust.
        if has_c_abi(sig) {
            return Some(Boundary::Exported);
        }
        if !in_impl && name == "main" {
            return Some(Boundary::Main);
        }
        if let Some(t) = trait_name {
            if name == "init" && (t == "Module" || t == "InPlaceModule") {
                return Some(Boundary::ModuleInit);
            }
            if name == "probe" {
                return Some(Boundary::Probe);
            }
            let file_like = t.contains("Operations")
                || t.contains("File")
                || t.contains("Misc")
                || sig_mentions_file(sig);
            if FILE_OPS.contains(&name) && !IO_TRAITS.contains(&t) && file_like {
                return Some(Boundary::FileOp);
            }
            // `impl phy::Driver for …`, `impl cpufreq::Driver for …`: every callback of a
            // kernel driver trait is called by C through the subsystem's adapter.
            if t == "Driver" && returns_result(sig) {
                return Some(Boundary::DriverCallback);
            }
        }
        None
    }

    fn function(&mut self, sig: &syn::Signature, attrs: &[Attribute], block: &syn::Block, in_impl: bool) {
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
        let mut display = vec![self.out.crate_name.clone()];
        display.extend(self.base_module.iter().cloned());
        display.extend(self.mods.iter().cloned());
        if let Some(o) = &owner {
            display.push(o.clone());
        }
        display.push(name.clone());
        let mut module = self.base_module.clone();
        module.extend(self.mods.iter().cloned());
        let ret = ret_of(&sig.output);
        let returns_option = ret.is_option();
        let summary = FnSummary {
            boundary: self.boundary_of(&name, sig, in_impl),
            name,
            owner,
            trait_name,
            module,
            display: display.join("::"),
            pos: pos(sig.ident.span()),
            ret,
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
        let params: Vec<(String, String)> = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => match (&*t.pat, param_type_name(&t.ty)) {
                    (Pat::Ident(i), Some(ty)) => Some((i.ident.to_string(), ty)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        self.params.push(params);
        let saved_rethrow = std::mem::take(&mut self.rethrow);
        let saved_frames = std::mem::take(&mut self.frames);
        self.visit_block(block);
        self.tail_block(block, 0);
        self.rethrow = saved_rethrow;
        self.frames = saved_frames;
        self.generics.pop();
        self.params.pop();
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
                    },
                );
            }
        }
    }

    /// Whether a comment explains line `line`: an ordinary `//` comment on the line just before
    /// (not an `errtrace-audit:` directive, which suppresses instead) or at the end of the line.
    fn explained_at(&self, line: u32) -> bool {
        let mut lines = self
            .text
            .lines()
            .skip((line.max(1) - 1).saturating_sub(1) as usize);
        let before = if line > 1 { lines.next() } else { None };
        let here = lines.next().unwrap_or("");
        let is_explanation = |c: &str| {
            let c = c.trim();
            !c.is_empty() && !c.starts_with("errtrace-audit:")
        };
        let before_ok = before
            .map(str::trim)
            .and_then(|l| l.strip_prefix("//"))
            .is_some_and(|c| !c.starts_with('/') && !c.starts_with('!') && is_explanation(c));
        let trailing_ok = here.split_once("; //").is_some_and(|(_, c)| is_explanation(c));
        before_ok || trailing_ok
    }

    /// A cheap look at a macro body's source text: can it hold anything the audit records
    /// (`?`, a nested macro, `return`, `unwrap`, `Err`, `match`, a discard)? Most bodies —
    /// format arguments, literals — cannot, and are not parsed again.
    fn body_may_matter(&self, m: &syn::Macro) -> bool {
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
    fn macro_body(&mut self, tokens: &TokenStream) {
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
    fn scan_tokens(&mut self, tokens: &TokenStream) {
        let mut work: Vec<Vec<TokenTree>> = vec![tokens.clone().into_iter().collect()];
        while let Some(toks) = work.pop() {
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
                        if let Some(g) = call {
                            if let Some((target, attached)) = self.classify_tokens(&toks, g + 1) {
                                self.add_site(pos(p.span()), How::Try, target, attached);
                            }
                        }
                    }
                    TokenTree::Punct(p) if p.as_char() == '?' && is_real_question(&toks, i) => {
                        self.out.question_marks += 1;
                        if let Some((target, attached)) = self.classify_tokens(&toks, i) {
                            self.add_site(pos(p.span()), How::Try, target, attached);
                        }
                    }
                    TokenTree::Group(g) if work.len() < parse::MAX_NESTING => {
                        work.push(g.stream().into_iter().collect());
                    }
                    _ => {}
                }
                i += 1;
            }
        }
    }

    /// Walk back from a `?` at `q` over `.adapter(…)` calls to the called name.
    fn classify_tokens(&self, toks: &[TokenTree], q: usize) -> Option<(Target, bool)> {
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
                            MethodRole::Origin => return Some((Target::OriginFn(name), attached)),
                            MethodRole::Call => {}
                        }
                        let recv_self =
                            j >= 3 && matches!(toks.get(j - 3), Some(TokenTree::Ident(r)) if r == "self");
                        let callee = if recv_self {
                            Callee::SelfMethod(name)
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
                    if self.names.is_log_function(&last) {
                        return Some((Target::Made, true));
                    }
                    if self.names.is_origin_function(&last) {
                        return Some((Target::OriginFn(last), attached));
                    }
                    if segs.len() == 2 && self.is_generic(&segs[0]) {
                        return Some((Target::Call(Callee::Generic(segs[0].clone(), last)), attached));
                    }
                    return Some((Target::Call(Callee::Path(segs)), attached));
                }
                _ => return None,
            }
        }
    }
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Is the `?` at `i` a try operator? Not `?Sized`/`?Trait` bounds (after `:`, `+`, `(`,
/// `impl`), not a `$(…)?` / `$x?` repetition in a macro definition.
pub(crate) fn is_real_question(toks: &[TokenTree], i: usize) -> bool {
    if let Some(TokenTree::Ident(n)) = toks.get(i + 1) {
        if n == "Sized" {
            return false;
        }
    }
    let Some(prev) = i.checked_sub(1).and_then(|p| toks.get(p)) else {
        return false;
    };
    let dollar_before = i >= 2 && is_punct(toks.get(i - 2), '$');
    match prev {
        TokenTree::Group(g) => {
            matches!(
                g.delimiter(),
                Delimiter::Parenthesis | Delimiter::Bracket | Delimiter::None
            ) && !dollar_before
        }
        TokenTree::Ident(id) => {
            !dollar_before
                && !matches!(
                    id.to_string().as_str(),
                    "impl" | "dyn" | "for" | "where" | "as" | "in" | "return" | "mut" | "ref"
                )
        }
        TokenTree::Literal(_) => true,
        TokenTree::Punct(p) => p.as_char() == '?',
    }
}

impl<'ast> Visit<'ast> for Walker<'_, '_> {
    fn visit_file(&mut self, f: &'ast syn::File) {
        for a in &f.attrs {
            if a.path().is_ident("no_std") {
                self.out.no_std = true;
            }
        }
        visit::visit_file(self, f);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let test = is_test_attr(&m.attrs);
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
        self.impls.push(ImplCtx { owner, trait_name });
        self.generics.push(type_params(&i.generics));
        self.with_test_attrs(&i.attrs, |w| visit::visit_item_impl(w, i));
        self.generics.pop();
        self.impls.pop();
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.impls.push(ImplCtx {
            owner: Some(t.ident.to_string()),
            trait_name: Some(t.ident.to_string()),
        });
        let mut g = type_params(&t.generics);
        g.push("Self".to_string());
        self.generics.push(g);
        visit::visit_item_trait(self, t);
        self.generics.pop();
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
        for s in &b.stmts {
            let before = self.out.log_calls;
            self.visit_stmt(s);
            if self.out.log_calls > before {
                if let Some(f) = self.frames.last_mut() {
                    *f = true;
                }
            }
        }
        self.frames.pop();
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.frames.push(false);
        visit::visit_arm(self, a);
        self.frames.pop();
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        if let Some(f) = self.fns.last_mut() {
            f.closure_depth += 1;
        }
        self.frames.push(false);
        visit::visit_expr_closure(self, c);
        self.frames.pop();
        if let Some(f) = self.fns.last_mut() {
            f.closure_depth -= 1;
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
        if self.test_depth == 0 && !self.fns.is_empty() {
            let (target, attached) = self.classify(&t.expr);
            if let Some(target) = target {
                self.add_site(pos(t.question_token.span), How::Try, target, attached);
            }
        }
        visit::visit_expr_try(self, t);
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
                if let Some(callee) = self.rethrown_callee(e) {
                    let before = self.before_flag();
                    self.push_site_with_before(
                        pos(b.break_token.span),
                        How::Rethrow,
                        Target::Call(callee),
                        false,
                        before,
                    );
                }
            }
        }
        visit::visit_expr_break(self, b);
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let scrutinee = self.callee_of(strip(&m.expr)).map(|(c, _)| c);
        for arm in &m.arms {
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
                    if !i.log && !i.exits && !i.uses && !to_c {
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
                    self.rethrow.push((b, c.clone()));
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
        }
        visit::visit_expr_if(self, i);
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
        if let Some((name, ty)) = typed_local(l) {
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
                Expr::MethodCall(m) if m.method == "ok" && m.args.is_empty() => {
                    let (_, logged) = self.classify(&m.receiver);
                    if !logged {
                        let what = match self.callee_of(&m.receiver) {
                            Some((c, _)) => format!("the result of `{}`", c.display()),
                            None => "a result".to_string(),
                        };
                        self.local_finding(
                            Kind::Discarded,
                            pos(m.method.span()),
                            format!("`.ok();` throws away {what} and its error"),
                        );
                    }
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
            if self.names.is_log_function(&last_seg(&p.path)) {
                self.out.log_calls += 1;
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        if self
            .names
            .is_log_method(&name, first_arg_is_text(&m.args), m.args.len())
        {
            self.out.log_calls += 1;
        }
        match name.as_str() {
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
            self.add_check(pos(m.path.span()), CheckKind::PanicMacro(name));
        }
        if self.body_may_matter(m) {
            self.macro_depth += 1;
            self.macro_body(&m.tokens);
            self.macro_depth -= 1;
        }
    }
}
