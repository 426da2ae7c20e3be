//! Reading syntax: types, paths, patterns and token shapes, with no state of the walk.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use std::collections::HashMap;
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Attribute, Expr, Pat};

use crate::model::*;

/// Whether `sig` declares a real non-Rust ABI (`extern "C"`, `extern "system"`, bare `extern`).
pub(super) fn has_c_abi(sig: &syn::Signature) -> bool {
    match &sig.abi {
        Some(abi) => match &abi.name {
            Some(name) => name.value() != "Rust",
            None => true,
        },
        None => false,
    }
}

/// A struct's named field: its name, its type's name (through smart pointers, as
/// [`param_type_name`]), for a lock or other guarded container, the contents' type name with
/// the methods that reach the contents ([`contents_type`]), and for a collection, its
/// element's type names ([`collection_elems`]).
pub(super) struct Field {
    pub(super) name: String,
    /// The field's type name; empty for an array or slice (see `elems`).
    pub(super) ty: String,
    pub(super) contents: Option<(&'static [&'static str], String)>,
    pub(super) elems: Vec<Option<String>>,
    /// The contents of a collection's element that is a lock or guarded container
    /// (`KVec<Mutex<Endpoint>>`: `self.endpoints[i].lock()` → `Endpoint`).
    pub(super) elem_contents: Option<(&'static [&'static str], String)>,
}

/// Collections whose items a `for` loop binds (`KVVec<(Arc<Process>, DLArc<Msg>)>`).
const COLLECTIONS: &[&str] = &["Vec", "KVec", "KVVec", "VVec", "VecDeque", "ArrayVec"];

/// The element type of a collection, slice or array (`KVVec<(Arc<Process>, DLArc<Msg>)>` →
/// `(Arc<Process>, DLArc<Msg>)`), through references.
fn collection_elem(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Reference(r) => collection_elem(&r.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
                return None;
            };
            if !COLLECTIONS.contains(&last.ident.to_string().as_str()) {
                return None;
            }
            a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
        }
        _ => None,
    }
}

/// The type names of a collection's element, one per tuple field (`KVVec<(Arc<Process>,
/// DLArc<Msg>)>` → `[Process, Msg]`), or the element's alone; empty for anything else.
pub(super) fn collection_elems(ty: &syn::Type) -> Vec<Option<String>> {
    match collection_elem(ty) {
        Some(syn::Type::Tuple(t)) => t.elems.iter().map(param_type_name).collect(),
        Some(other) => vec![param_type_name(other)],
        None => Vec::new(),
    }
}

/// The tuple variants of every enum in `file` (nested modules included): (enum, variant) →
/// each field's type as [`param_type_name`] writes it (`None` where it names none).
pub(super) fn enum_variants(file: &syn::File) -> HashMap<(String, String), Vec<Option<String>>> {
    struct Collect(HashMap<(String, String), Vec<Option<String>>>);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
            for v in &e.variants {
                if let syn::Fields::Unnamed(u) = &v.fields {
                    let types = u.unnamed.iter().map(|f| param_type_name(&f.ty)).collect();
                    self.0.insert((e.ident.to_string(), v.ident.to_string()), types);
                }
            }
        }
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
    }
    let mut c = Collect(HashMap::new());
    c.visit_file(file);
    c.0
}

/// The named fields of every struct in `file` (nested modules included), by struct name.
pub(super) fn struct_fields(file: &syn::File) -> HashMap<String, Vec<Field>> {
    struct Collect(HashMap<String, Vec<Field>>);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
            if let syn::Fields::Named(named) = &s.fields {
                let fields = named
                    .named
                    .iter()
                    .filter_map(|f| {
                        let elems = collection_elems(&f.ty);
                        // An array or slice names no type of its own; its elements do.
                        let ty = match param_type_name(&f.ty) {
                            Some(ty) => ty,
                            None if !elems.is_empty() => String::new(),
                            None => return None,
                        };
                        Some(Field {
                            name: f.ident.as_ref()?.to_string(),
                            ty,
                            contents: contents_type(&f.ty),
                            elems,
                            elem_contents: collection_elem(&f.ty).and_then(contents_type),
                        })
                    })
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

/// Each type parameter's trait bounds, by their last segment, one pair per bound
/// (`T: platform::Driver + Loadable` and `where T: Driver` → `("T", "Driver")`, `("T",
/// "Loadable")`; marker traits left out).
pub(super) fn type_bounds(g: &syn::Generics) -> Vec<(String, String)> {
    let traits = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| -> Vec<String> {
        bounds
            .iter()
            .filter_map(|b| match b {
                syn::TypeParamBound::Trait(t) => {
                    let n = t.path.segments.last()?.ident.to_string();
                    (!matches!(n.as_str(), "Send" | "Sync" | "Sized" | "Unpin" | "Copy" | "Clone"))
                        .then_some(n)
                }
                _ => None,
            })
            .collect()
    };
    let mut out: Vec<(String, String)> = g
        .type_params()
        .flat_map(|t| {
            traits(&t.bounds)
                .into_iter()
                .map(move |b| (t.ident.to_string(), b))
        })
        .collect();
    for p in g.where_clause.iter().flat_map(|w| w.predicates.iter()) {
        if let syn::WherePredicate::Type(pt) = p {
            if let syn::Type::Path(tp) = &pt.bounded_ty {
                if let Some(id) = tp.path.get_ident() {
                    out.extend(traits(&pt.bounds).into_iter().map(|b| (id.to_string(), b)));
                }
            }
        }
    }
    out
}

pub(super) fn type_params(g: &syn::Generics) -> Vec<String> {
    g.type_params().map(|t| t.ident.to_string()).collect()
}

pub(super) fn pos(span: Span) -> Pos {
    let lc = span.start();
    Pos {
        line: lc.line.max(1) as u32,
        column: lc.column as u32 + 1,
    }
}

pub(super) fn last_seg(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

pub(super) fn type_last_seg(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Paren(p) => type_last_seg(&p.elem),
        syn::Type::Group(g) => type_last_seg(&g.elem),
        _ => None,
    }
}

/// What a signature returns; `impl Future<Output = T>` is looked through.
pub(super) fn ret_of(output: &syn::ReturnType) -> Ret {
    match output {
        syn::ReturnType::Default => Ret::Unit,
        syn::ReturnType::Type(_, ty) => ret_of_type(ty),
    }
}

pub(super) fn ret_of_type(ty: &syn::Type) -> Ret {
    match ty {
        syn::Type::ImplTrait(it) => {
            for b in &it.bounds {
                if let syn::TypeParamBound::Trait(t) = b {
                    if let Some(seg) = t.path.segments.last() {
                        // `impl PinInit<T, E>` / `impl Init<T, E>`: a fallible initialiser, whose
                        // error leaves like a `Result`'s.
                        if fallible_init(seg) {
                            return Ret::Named("Result".to_string());
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
pub(super) fn sig_mentions_file(sig: &syn::Signature) -> bool {
    sig_mentions_type(sig, &["File"])
}

/// Does a parameter's type mention a type of one of these names (`&mut UserSliceReader`,
/// `ArcBorrow<'_, File>`, …)?
pub(super) fn sig_mentions_type(sig: &syn::Signature, names: &[&str]) -> bool {
    fn ty_has(ty: &syn::Type, names: &[&str], depth: u32) -> bool {
        if depth > 16 {
            return false;
        }
        match ty {
            syn::Type::Path(p) => p.path.segments.iter().any(|s| {
                names.iter().any(|n| s.ident == n)
                    || match &s.arguments {
                        syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|g| match g {
                            syn::GenericArgument::Type(t) => ty_has(t, names, depth + 1),
                            _ => false,
                        }),
                        _ => false,
                    }
            }),
            syn::Type::Reference(r) => ty_has(&r.elem, names, depth + 1),
            syn::Type::Ptr(p) => ty_has(&p.elem, names, depth + 1),
            syn::Type::Paren(p) => ty_has(&p.elem, names, depth + 1),
            syn::Type::Group(g) => ty_has(&g.elem, names, depth + 1),
            _ => false,
        }
    }
    sig.inputs
        .iter()
        .any(|a| matches!(a, syn::FnArg::Typed(t) if ty_has(&t.ty, names, 0)))
}

/// Smart pointers and borrows whose methods are their target's: a receiver of one of these
/// types calls the pointee's methods (`this: ArcBorrow<'_, Process>` → `Process::…`).
pub(super) const SMART_POINTERS: &[&str] = &[
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

/// `Foo`, `&Foo` → `Foo`, `&mut m::Foo<T>` → `m::Foo`; through smart pointers (`Arc<Foo>`,
/// `ArcBorrow<'_, Foo>`, `Pin<&mut Foo>`, `KBox<Foo>`) → `Foo`; `dyn Trait`/`impl Trait` →
/// `Trait`; `Self` and others → `None`.
pub(super) fn param_type_name(ty: &syn::Type) -> Option<String> {
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
            // As written, with its module path (`serdev::Device`), so that a call on it
            // resolves among same-named types of different modules.
            let written: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            (n != "Self").then(|| written.join("::"))
        }
        // `&dyn FalconHal<E>`, `KBox<dyn FbHal>`, `impl Register`: the trait, whose
        // implementations a method call dispatches to.
        syn::Type::TraitObject(t) => first_trait(&t.bounds),
        syn::Type::ImplTrait(t) => first_trait(&t.bounds),
        _ => None,
    }
}

/// Containers whose contents a method hands out (a guard or a reference that derefs to
/// them), with those methods: `self.lock.lock().m()` calls the contents' `m`.
const CONTAINERS: &[(&str, &[&str])] = &[
    ("Mutex", LOCK_METHODS),
    ("SpinLock", LOCK_METHODS),
    ("SpinLockIrq", LOCK_METHODS),
    ("RwLock", &["read", "write", "try_read", "try_write"]),
    ("Revocable", &["try_access", "try_access_with_guard"]),
    ("Devres", &["access", "try_access"]),
    ("LockedBy", &["access", "access_mut"]),
    ("RefCell", &["borrow", "borrow_mut"]),
];

const LOCK_METHODS: &[&str] = &["lock", "lock_irqsave", "try_lock"];

/// For a field of type `Mutex<T>` (also behind smart pointers: `Pin<KBox<SpinLock<T>>>`), the
/// methods that reach `T` and `T`'s name.
pub(super) fn contents_type(ty: &syn::Type) -> Option<(&'static [&'static str], String)> {
    let mut cur = ty;
    for _ in 0..8 {
        let syn::Type::Path(p) = cur else {
            return match cur {
                syn::Type::Reference(r) => contents_type(&r.elem),
                _ => None,
            };
        };
        let last = p.path.segments.last()?;
        let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
            return None;
        };
        let inner = a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })?;
        let name = last.ident.to_string();
        if let Some((_, methods)) = CONTAINERS.iter().find(|(c, _)| *c == name) {
            return Some((methods, param_type_name(inner)?));
        }
        if !SMART_POINTERS.contains(&name.as_str()) {
            return None;
        }
        cur = inner;
    }
    None
}

/// The `#[path = "…"]` of an item, if it has one.
pub(super) fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

pub(super) fn is_test_attr(attrs: &[Attribute]) -> bool {
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
                return crate::cfgtest::is_test_only(&t);
            }
        }
        false
    })
}

pub(super) fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident("self"))
}

/// `e` without parentheses, groups and `.await` (an `unsafe` block's value is
/// [`block_value`]'s).
pub(super) fn strip(mut e: &Expr) -> &Expr {
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
pub(super) fn first_arg_is_text(args: &Punctuated<Expr, syn::Token![,]>) -> bool {
    match args.first() {
        Some(Expr::Lit(l)) => matches!(l.lit, syn::Lit::Str(_)),
        Some(Expr::Macro(m)) => last_seg(&m.mac.path).contains("format"),
        _ => false,
    }
}

/// Does a token stream hold a string literal at its top level (`err!(EIO, "msg")` logs)?
pub(super) fn tokens_have_str(ts: &TokenStream) -> bool {
    ts.clone().into_iter().any(|t| match t {
        TokenTree::Literal(l) => {
            let s = l.to_string();
            s.starts_with('"') || s.starts_with("r\"") || s.starts_with("r#")
        }
        _ => false,
    })
}

/// The error an `Err(…)` pattern's inner pattern names, if it names one: `ERANGE` (a constant,
/// by the naming convention), `CouldNotDeliver` (a unit struct or an imported variant: a binding
/// is snake_case, rustc warns otherwise), `code::ERANGE` or `Errno::Again` (a path).
fn named_error(p: &Pat) -> Option<String> {
    match p {
        Pat::Ident(i) if i.subpat.is_none() => {
            let name = i.ident.to_string();
            (is_const_name(&name) || name.starts_with(|c: char| c.is_ascii_uppercase())).then_some(name)
        }
        Pat::Path(p) => Some(last_seg(&p.path)),
        _ => None,
    }
}

/// The binding of an `Err(…)` pattern: `Some(None)` for `Err(_)`/`Err(..)`, `Some(Some(x))`
/// for `Err(x)`, `None` if the pattern is not an `Err` pattern.
pub(super) fn err_pattern(p: &Pat) -> Option<Option<String>> {
    match p {
        Pat::TupleStruct(ts) if last_seg(&ts.path) == "Err" => {
            if ts.elems.len() != 1 {
                return Some(None);
            }
            match ts.elems.first() {
                // One error handled by its name, not a binding of every error.
                Some(inner) if named_error(inner).is_some() => None,
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

/// `Ok(x)`: the success pattern of an `if let` that has no `else` for the error (not
/// `Ok(Some(x))`, a lookup's).
pub(super) fn ok_pattern(p: &Pat) -> bool {
    matches!(p, Pat::TupleStruct(ts) if last_seg(&ts.path) == "Ok"
        && !ts.elems.iter().any(|e| matches!(e, Pat::TupleStruct(_))))
}

/// The errno an error-making expression names: `Err(EINVAL)`, `Err(code::ENODEV)`,
/// `Err(Error::EIO)`, `Err(EINVAL.into())`, `err!(EIO, …)`, `Err(err!(once, EIO, …))`.
pub(super) fn errno_named(e: &Expr) -> Option<String> {
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
        // `….ok_or(ENODEV)`, `….ok_or_else(|| EINVAL)`.
        Expr::MethodCall(m) if m.method == "ok_or" => m.args.first().and_then(errno_named),
        Expr::MethodCall(m) if m.method == "ok_or_else" => match m.args.first().map(strip) {
            Some(Expr::Closure(c)) => errno_named(&c.body),
            _ => None,
        },
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
pub(super) fn typed_local(l: &syn::Local) -> Option<(String, String)> {
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
    // `Chip { id: 0 }`: a struct literal is of its type (`Self { … }` is the impl's, not known
    // here).
    if let Expr::Struct(s) = e {
        let ty = last_seg(&s.path);
        let capitalised = ty.chars().next().is_some_and(|c| c.is_ascii_uppercase());
        return (capitalised && ty != "Self").then_some((name, ty));
    }
    // `Device::new(…)`, or an enum's variant or an associated constant (`Cmd::Reset`).
    let p = match e {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => p,
            _ => return None,
        },
        Expr::Path(p) => p,
        _ => return None,
    };
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let ty = segs.len().checked_sub(2).and_then(|i| segs.get(i))?;
    let capitalised = ty.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    (capitalised && ty != "Self" && !SMART_POINTERS.contains(&ty.as_str())).then(|| (name, ty.clone()))
}

/// Whether a signature's return type is a `Result` (by its last path segment).
pub(super) fn returns_result(sig: &syn::Signature) -> bool {
    match &sig.output {
        syn::ReturnType::Type(_, ty) => type_last_seg(ty).is_some_and(|s| s == "Result"),
        syn::ReturnType::Default => false,
    }
}

/// `ERANGE`, `E2BIG`, `MAX_TRIES`: upper case, digits and underscores, with a letter.
pub(super) fn is_const_name(n: &str) -> bool {
    n.chars().any(|c| c.is_ascii_uppercase())
        && n.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

pub(super) fn is_empty_body(e: &Expr) -> bool {
    match e {
        Expr::Block(b) => b.block.stmts.is_empty() && b.label.is_none(),
        Expr::Tuple(t) => t.elems.is_empty(),
        _ => false,
    }
}

pub(super) fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
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

/// A `?` directly in a macro's tokens (`pin_init!(Foo { … }? Error)`), not inside a group.
pub(super) fn has_top_level_question(tokens: &TokenStream) -> bool {
    tokens
        .clone()
        .into_iter()
        .any(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == '?'))
}

/// `x == CODE` or `CODE == x` (also `code::CODE`): the condition compares with the errno `code`.
pub(super) fn compares_with(cond: &Expr, code: &str) -> bool {
    let names = |e: &Expr| matches!(strip(e), Expr::Path(p) if last_seg(&p.path) == code);
    match strip(cond) {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::Eq(_)) => names(&b.left) || names(&b.right),
        _ => false,
    }
}

/// The value of `e` through blocks: the tail expression of `{ …; f(…) }` (and of nested
/// blocks), else `e` itself (parentheses and groups stripped).
pub(super) fn block_value(e: &syn::Expr) -> &syn::Expr {
    let mut cur = strip(e);
    for _ in 0..16 {
        let block = match cur {
            syn::Expr::Block(b) => &b.block,
            syn::Expr::Unsafe(u) => &u.block,
            _ => break,
        };
        match block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => cur = strip(tail),
            _ => break,
        }
    }
    cur
}

/// pin-init's scopes: `pin_init_scope(|| -> Result<impl PinInit<T, E>, E>)` runs the closure
/// when the initialiser runs, and the initialiser fails with the closure's error or the
/// returned initialiser's.
pub(super) const SCOPE_CALLS: &[&str] = &["pin_init_scope", "init_scope"];

/// The closure body of pin-init's `init.pin_chain(|slot| …)` / `init.chain(|slot| …)` (also
/// called as `PinInit::pin_chain(init, |slot| …)`): the closure runs after the initialiser,
/// and its `Err` is the whole initialiser's error. `Iterator::chain` takes no closure.
pub(super) fn chain_closure<'e>(name: &syn::Ident, last_arg: Option<&'e Expr>) -> Option<&'e Expr> {
    if name != "pin_chain" && name != "chain" {
        return None;
    }
    match strip(last_arg?) {
        Expr::Closure(c) => Some(&c.body),
        _ => None,
    }
}

/// The C function `e` calls directly (`bindings::f(…)`, through `unsafe { … }`, blocks and
/// parentheses), by name.
pub(super) fn c_function_called(e: &Expr) -> Option<String> {
    let mut e = block_value(e);
    // `unsafe { bindings::__drm_dev_alloc(…) }.cast()`: the pointer the C function returned.
    while let Expr::MethodCall(m) = e {
        if m.method != "cast" || !m.args.is_empty() {
            return None;
        }
        e = block_value(&m.receiver);
    }
    let Expr::Call(c) = e else {
        return None;
    };
    let Expr::Path(p) = strip(&c.func) else {
        return None;
    };
    let segs = &p.path.segments;
    (segs.len() >= 2 && segs.iter().any(|s| s.ident == "bindings"))
        .then(|| segs.last().map(|s| s.ident.to_string()))
        .flatten()
}

/// The type a function's successful call yields, by name ([`FnSummary::value_type`]).
pub(super) fn value_type(output: &syn::ReturnType) -> Option<String> {
    let syn::ReturnType::Type(_, ty) = output else {
        return None;
    };
    value_type_of(ty)
}

/// The type a value of type `ty` holds when it is not an error, by name: through `Result`,
/// `Option`, references and smart pointers; a trait object's or `impl`'s trait.
pub(super) fn value_type_of(ty: &syn::Type) -> Option<String> {
    let mut cur: &syn::Type = ty;
    for _ in 0..8 {
        match cur {
            syn::Type::Reference(r) => cur = &r.elem,
            syn::Type::Paren(p) => cur = &p.elem,
            syn::Type::TraitObject(t) => return first_trait(&t.bounds),
            syn::Type::ImplTrait(t) => return first_trait(&t.bounds),
            syn::Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last()?;
                let name = last.ident.to_string();
                let wrapper =
                    matches!(name.as_str(), "Result" | "Option") || SMART_POINTERS.contains(&name.as_str());
                if !wrapper {
                    return Some(name);
                }
                let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
                    return None;
                };
                cur = a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })?;
            }
            _ => return None,
        }
    }
    None
}

/// The first trait of `dyn A + B` / `impl A + 'a`, by its last segment (not a pin-init or
/// marker trait: their methods are not the value's).
fn first_trait(bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>) -> Option<String> {
    bounds.iter().find_map(|b| match b {
        syn::TypeParamBound::Trait(t) => {
            let name = t.path.segments.last()?.ident.to_string();
            let marker = matches!(
                name.as_str(),
                "Send" | "Sync" | "PinInit" | "Init" | "Fn" | "FnMut" | "FnOnce"
            );
            (!marker).then_some(name)
        }
        _ => None,
    })
}

/// The path of the function `e` calls (`gsp_hal(chip)`, `hal::gsp_hal(chip)?`, through `?`,
/// `.await`, parentheses and blocks).
pub(super) fn called_path(e: &Expr) -> Option<&syn::Path> {
    let mut cur = block_value(e);
    for _ in 0..8 {
        match cur {
            Expr::Try(t) => cur = block_value(&t.expr),
            Expr::Await(a) => cur = block_value(&a.base),
            Expr::Call(c) => {
                return match strip(&c.func) {
                    Expr::Path(p) if p.qself.is_none() => Some(&p.path),
                    _ => None,
                }
            }
            _ => return None,
        }
    }
    None
}

/// A call of `method` on a value of the type `ty` as [`param_type_name`] writes it
/// (`serdev::Device` → `serdev::Device::write`).
pub(super) fn typed_call(ty: &str, method: String) -> Callee {
    let mut segs: Vec<String> = ty.split("::").map(str::to_string).collect();
    segs.push(method);
    Callee::Path(segs)
}

/// The positions of `sig`'s parameters (receiver not counted) typed as a fallible initialiser:
/// `impl PinInit<T, E>` / `impl Init<T, E>` with an error type that is not `Infallible`.
pub(super) fn init_params(sig: &syn::Signature) -> Vec<u32> {
    init_params_named(sig).into_iter().map(|(i, _)| i).collect()
}

/// The names of `sig`'s parameters typed as a fallible initialiser (see [`init_params`]).
pub(super) fn init_param_names(sig: &syn::Signature) -> Vec<String> {
    init_params_named(sig)
        .into_iter()
        .filter_map(|(_, name)| name)
        .collect()
}

/// [`init_params`] with each parameter's name, when it is a plain binding.
fn init_params_named(sig: &syn::Signature) -> Vec<(u32, Option<String>)> {
    let fallible = |bounds: &Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds.iter().any(|b| match b {
            syn::TypeParamBound::Trait(t) => t.path.segments.last().is_some_and(fallible_init),
            _ => false,
        })
    };
    sig.inputs
        .iter()
        .filter(|a| matches!(a, syn::FnArg::Typed(_)))
        .enumerate()
        .filter_map(|(i, a)| match a {
            syn::FnArg::Typed(t) => match &*t.ty {
                syn::Type::ImplTrait(it) if fallible(&it.bounds) => {
                    let name = match &*t.pat {
                        Pat::Ident(p) => Some(p.ident.to_string()),
                        _ => None,
                    };
                    u32::try_from(i).ok().map(|i| (i, name))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The name a receiver or argument that is a plain local names (`x` in `x.m(…)`).
pub(super) fn local_name(e: &Expr) -> Option<String> {
    let Expr::Path(p) = e else { return None };
    Some(p.path.get_ident()?.to_string())
}

/// What the latest binding of `name` in a table of locals holds (a later binding shadows).
pub(super) fn latest<'t, T>(table: &'t [(String, T)], name: &str) -> Option<&'t T> {
    table.iter().rev().find(|(n, _)| n == name).map(|(_, t)| t)
}

/// A receiver that names a `static` or `const` (`BINDER_SHRINKER`, `crate::netlink::FAMILY`):
/// a path whose last segment is in upper case, with its segments.
pub(super) fn static_path(e: &Expr) -> Option<Vec<String>> {
    let Expr::Path(p) = strip(e) else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?.ident.to_string();
    let screaming = last.len() >= 2
        && last.chars().any(|c| c.is_ascii_uppercase())
        && last
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    screaming.then(|| p.path.segments.iter().map(|s| s.ident.to_string()).collect())
}

/// `PinInit<T, E>` / `Init<T, E>` with an error type other than `Infallible`: an initialiser
/// that can fail.
fn fallible_init(seg: &syn::PathSegment) -> bool {
    if seg.ident != "PinInit" && seg.ident != "Init" {
        return false;
    }
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return false;
    };
    let error = a
        .args
        .iter()
        .filter_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .nth(1);
    error.is_some_and(|e| type_last_seg(e).is_some_and(|n| n != "Infallible"))
}

/// The initialiser among a pin-init constructor's arguments: the first or the last argument
/// that is a call of a path (`KBox::pin_init(Dev::new(…), GFP_KERNEL)`, `Coherent::init(dev,
/// GFP_KERNEL, Args::new(…))`).
pub(super) fn initialiser_arg(args: &Punctuated<Expr, syn::Token![,]>) -> Option<&Expr> {
    let path_call = [args.first(), args.last()]
        .into_iter()
        .flatten()
        .map(block_value)
        .find(|a| matches!(a, Expr::Call(c) if matches!(strip(&c.func), Expr::Path(_))));
    if path_call.is_some() {
        return path_call;
    }
    // `KBox::pin_init(req.iomap_sized::<N>(), GFP_KERNEL)`: a box's or `Arc`'s constructor
    // takes `(init, flags)`, so its first argument is the initialiser however it is written.
    match block_value(box_initialiser(args)?) {
        m @ Expr::MethodCall(_) => Some(m),
        _ => None,
    }
}

/// The first of exactly two arguments when the second names GFP flags: the `(init, flags)` of
/// a box's or `Arc`'s pin-init constructor.
fn box_initialiser(args: &Punctuated<Expr, syn::Token![,]>) -> Option<&Expr> {
    match args.iter().collect::<Vec<_>>().as_slice() {
        [init, flags] if super::alloc::mentions_gfp(flags) => Some(init),
        _ => None,
    }
}

/// A box's or `Arc`'s pin-init constructor given its initialiser as a local (`let init =
/// Irq::request(9); KBox::try_pin_init(init, GFP_KERNEL)`): the local's name.
pub(super) fn initialiser_local(c: &syn::ExprCall) -> Option<String> {
    if !matches!(pin_init_runner(c)?, Runner::Constructor) {
        return None;
    }
    local_name(strip(box_initialiser(&c.args)?))
}

/// A type's pin-init constructor (`KBox::pin_init(…)`, `Arc::init(…)`: a name of
/// [`super::PIN_INIT_CALLS`] qualified by a type) and its initialiser argument: the
/// constructor's error is the initialiser's.
pub(super) fn pin_init_initialiser(c: &syn::ExprCall) -> Option<&Expr> {
    match pin_init_runner(c)? {
        Runner::Constructor => initialiser_arg(&c.args),
        Runner::Raw => raw_initialiser_arg(&c.args).filter(|a| !matches!(a, Expr::Path(_))),
    }
}

/// How a call runs a pin-initialiser, if it does.
pub(super) enum Runner {
    /// A type's constructor (`KBox::pin_init(init, flags)`, `Coherent::init(dev, flags, init)`).
    Constructor,
    /// The pin-init crate's own runner, `pin_init::raw_try_init(slot, init)`: the initialiser is
    /// its last argument, any expression.
    Raw,
}

/// Whether the call runs a pin-initialiser, and how (see [`Runner`]).
pub(super) fn pin_init_runner(c: &syn::ExprCall) -> Option<Runner> {
    let Expr::Path(p) = strip(&c.func) else {
        return None;
    };
    let last = last_seg(&p.path);
    if p.path.segments.len() < 2 {
        return None;
    }
    if super::PIN_INIT_RUNNERS.contains(&last.as_str()) {
        return Some(Runner::Raw);
    }
    super::PIN_INIT_CALLS
        .contains(&last.as_str())
        .then_some(Runner::Constructor)
}

/// The initialiser a raw runner takes: its last argument.
pub(super) fn raw_initialiser_arg(args: &Punctuated<Expr, syn::Token![,]>) -> Option<&Expr> {
    args.last().map(strip)
}

/// Whether the block ends by leaving it for good: its last statement is a `return`, `break` or
/// `continue` (what comes after the block is not reached through it).
pub(super) fn block_leaves(b: &syn::Block) -> bool {
    matches!(
        b.stmts.last(),
        Some(syn::Stmt::Expr(
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_),
            _
        ))
    )
}

/// Whether a statement has a way out of the function: a `?` or a `return` (not inside a
/// closure, an async block or a nested item, which leave something else).
pub(super) fn has_way_out(s: &syn::Stmt) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
            self.0 = true;
        }
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut f = Finder(false);
    syn::visit::Visit::visit_stmt(&mut f, s);
    f.0
}

/// Where the error of a returned expression is made, when a method of its chain makes it
/// (`pool.iter_mut().find_map(…)` over lines, then `.ok_or(EINVAL)`): that method's name;
/// else the expression's start.
pub(super) fn made_at(e: &Expr) -> Pos {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "ok_or" || m.method == "ok_or_else" => pos(m.method.span()),
        other => pos(syn::spanned::Spanned::span(other)),
    }
}

/// The codes that `match` arms handle by name, without a guard (`Err(ERANGE) => continue`,
/// `Err(code::EAGAIN) => …`): an arm after them never sees those errors.
pub(super) fn handled_codes(arms: &[syn::Arm]) -> Vec<String> {
    arms.iter()
        .filter_map(|a| match (&a.pat, &a.guard) {
            (Pat::TupleStruct(ts), None) if last_seg(&ts.path) == "Err" && ts.elems.len() == 1 => {
                named_error(ts.elems.first()?)
            }
            // `Err(e) if e == ENOENT => fallback`: the code the guard names.
            (Pat::TupleStruct(ts), Some((_, guard)))
                if last_seg(&ts.path) == "Err" && ts.elems.len() == 1 =>
            {
                let Some(Pat::Ident(bound)) = ts.elems.first() else {
                    return None;
                };
                compared_code(guard, &bound.ident.to_string())
            }
            _ => None,
        })
        .collect()
}

/// `e == ENOENT` (or `ENOENT == e`) with `e` the name bound: the errno compared with.
fn compared_code(guard: &Expr, bound: &str) -> Option<String> {
    let Expr::Binary(b) = strip(guard) else {
        return None;
    };
    if !matches!(b.op, syn::BinOp::Eq(_)) {
        return None;
    }
    let is_bound = |e: &Expr| local_name(e).is_some_and(|n| n == bound);
    let errno = |e: &Expr| errno_named(e);
    if is_bound(&b.left) {
        errno(&b.right)
    } else if is_bound(&b.right) {
        errno(&b.left)
    } else {
        None
    }
}

/// `….ok_or(AllocError)`: the error of a failed allocation, which the allocator reported
/// (`NonNull::new(ptr).ok_or(AllocError)?` after `zalloc_cpumask_var(…, GFP_KERNEL)`).
pub(super) fn names_alloc_error_value(e: &Expr) -> bool {
    match strip(e) {
        Expr::MethodCall(m) if m.method == "ok_or" => m
            .args
            .first()
            .is_some_and(|a| matches!(strip(a), Expr::Path(p) if last_seg(&p.path) == "AllocError")),
        _ => false,
    }
}
