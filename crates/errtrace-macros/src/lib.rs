//! `#[errtrace::trace]`: record a hop at every `?` of a function.
//!
//! Use it through the `errtrace` crate (`errtrace::trace`), which documents it with examples.
//!
//! The attribute declares, at the top of the body, a marker whose type is the function's return
//! type (`let __errtrace_ret = Ret::new(); if false { return __errtrace_ret.unify(); }`), and
//! rewrites each `expr?` of the function's own body into
//!
//! ```text
//! (&__errtrace_ret).__errtrace_q(expr)?
//! ```
//!
//! where `__errtrace_q` is chosen at compile time by the *function's* return type: when it is
//! an `errtrace::Result`, the `TraceErrtrace` method (whose receiver needs no extra `&`, so
//! Rust picks it first) converts the error with `From` as `?` would, then records a hop at the
//! `?`'s location (the call carries the `?` token's span, and the method is
//! `#[track_caller]`); when it is a `Result` of another error type, `TraceCarrier` converts the
//! same way and records the hop in the errtrace error the converted error carries
//! (`errtrace::Carrier`: `anyhow::Error`, `io::Error`, `Box<dyn Error>`, `Traced<E>`, a user's
//! type). A function that returns no `Result`, or a `Result` whose error type is no `Carrier`,
//! does not compile, with a message naming what works: the attribute never compiles to
//! nothing. Converting first means the operand's type may still be inferred later
//! (`Ok(n.try_into()?)`). The success path only tests the result; the hop is written out of
//! line, on `Err`.
//!
//! A function whose return type contains `impl Trait` (or is `const`) keeps the older rewrite,
//! by the operand's type: `{ Hop(expr).__errtrace_hop() }?`, an inherent method for an
//! `errtrace::Result` operand and the `HopOther` trait for anything else.
//!
//! Not rewritten: `?` inside nested closures, `async` blocks and nested items (they return
//! elsewhere), and inside macro invocations (their tokens are opaque to the attribute).
#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ImplItemFn, Item, ItemFn};

/// Records a hop at every `?` in the function's body. See the crate docs.
#[proc_macro_attribute]
pub fn trace(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        return syn::Error::new(attr.span(), "#[errtrace::trace] takes no arguments")
            .to_compile_error()
            .into();
    }
    let parsed: Result<FnLike, syn::Error> = syn::parse(item.clone());
    // An `Option`-returning function: its `?` carries no error, so there is nothing to record.
    // Said once, here, with the function left as it is (rewritten, rustc would add errors of
    // its own about the rewrite).
    if let Ok(f) = &parsed {
        if let Some(ty) = returned_option(f.sig()) {
            let error = syn::Error::new(
                ty.span(),
                "#[errtrace::trace] on a function that returns `Option`: its `?`s carry no error, \
                 so there is no hop to record; remove the attribute",
            )
            .to_compile_error();
            let item = proc_macro2::TokenStream::from(item);
            return quote::quote!(#error #item).into();
        }
    }
    match parsed {
        Ok(FnLike::Free(mut f)) => {
            rewrite(&f.sig, &mut f.block);
            f.attrs.push(allow_rewrite_lints());
            quote::quote!(#f).into()
        }
        Ok(FnLike::Method(mut f)) => {
            rewrite(&f.sig, &mut f.block);
            f.attrs.push(allow_rewrite_lints());
            quote::quote!(#f).into()
        }
        Err(_) => {
            let item2 = proc_macro2::TokenStream::from(item);
            let span = syn::parse2::<Item>(item2.clone())
                .map(|i| i.span())
                .unwrap_or_else(|_| Span::call_site());
            syn::Error::new(
                span,
                "#[errtrace::trace] applies to functions and methods with a body",
            )
            .to_compile_error()
            .into()
        }
    }
}

enum FnLike {
    Free(ItemFn),
    Method(ImplItemFn),
}

impl FnLike {
    fn sig(&self) -> &syn::Signature {
        match self {
            FnLike::Free(f) => &f.sig,
            FnLike::Method(f) => &f.sig,
        }
    }
}

/// The return type, when it is written as an `Option` (`Option<T>`, `core::option::Option<T>`).
fn returned_option(sig: &syn::Signature) -> Option<&syn::Type> {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    match &**ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last()?.ident == "Option" => {
            Some(ty)
        }
        _ => None,
    }
}

impl syn::parse::Parse for FnLike {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let fork = input.fork();
        if let Ok(f) = fork.parse::<ItemFn>() {
            if fork.is_empty() {
                let _ = input.parse::<ItemFn>()?;
                return Ok(FnLike::Free(f));
            }
        }
        let f: ImplItemFn = input.parse()?;
        Ok(FnLike::Method(f))
    }
}

/// Rewrites the `?`s of a function's body. With a return type written out (no `impl Trait` in
/// it, not `const`), each `?` converts by the function's own error type (`Ret`); otherwise by
/// the operand's type (`Hop`).
fn rewrite(sig: &syn::Signature, block: &mut syn::Block) {
    let by_return = match &sig.output {
        syn::ReturnType::Type(_, ty) => !mentions_impl_trait(ty) && sig.constness.is_none(),
        syn::ReturnType::Default => false,
    };
    Rewriter { by_return }.visit_block_mut(block);
    if by_return {
        let prologue: syn::Block = syn::parse_quote! {{
            #[allow(unused_imports)]
            use ::errtrace::__private::{TraceCarrier as _, TraceErrtrace as _};
            let __errtrace_ret = ::errtrace::__private::Ret::new();
            #[allow(unreachable_code, clippy::diverging_sub_expression)]
            if false {
                return __errtrace_ret.unify();
            }
        }};
        let mut stmts = prologue.stmts;
        stmts.append(&mut block.stmts);
        block.stmts = stmts;
    }
}

/// Clippy's `needless_question_mark` sees `Ok(x.try_into()?)` after the rewrite (which converts
/// before the `?`) as `Ok(Ok-typed?)`; the `?` is needed in the code as written.
fn allow_rewrite_lints() -> syn::Attribute {
    syn::parse_quote!(#[allow(clippy::needless_question_mark)])
}

/// Whether `ty` contains `impl Trait` (whose hidden type the prologue must not pin).
fn mentions_impl_trait(ty: &syn::Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    syn::visit::Visit::visit_type(&mut f, ty);
    f.0
}

struct Rewriter {
    by_return: bool,
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            // Other bodies: their `?` returns from them, not from this function.
            Expr::Closure(_) | Expr::Async(_) => {}
            Expr::Try(t) => {
                visit_mut::visit_expr_mut(self, &mut t.expr);
                let span = t.question_token.span;
                let inner = &t.expr;
                let q = &t.question_token;
                let new: Expr = if self.by_return {
                    // `(&ret).__errtrace_q(x)` resolves to `TraceErrtrace` when the function
                    // returns an `errtrace::Result` (its receiver needs no extra `&`), else to
                    // `TraceCarrier`, which hops in the errtrace error the result carries. The marker's name has the prologue's
                    // span (a `?` written by a `macro_rules!` macro has that macro's hygiene);
                    // the call has the `?`'s, for `#[track_caller]`.
                    let ret = syn::Ident::new("__errtrace_ret", Span::call_site());
                    syn::parse_quote_spanned! {span=>
                        (&#ret).__errtrace_q(#inner) #q
                    }
                } else {
                    syn::parse_quote_spanned! {span=>
                        {
                            #[allow(unused_imports)]
                            use ::errtrace::__private::HopOther as _;
                            ::errtrace::__private::Hop(#inner).__errtrace_hop()
                        } #q
                    }
                };
                *expr = new;
            }
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _item: &mut Item) {
        // Nested items are other functions.
    }
}
