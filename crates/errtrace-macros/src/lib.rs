//! `#[errtrace::trace]`: record a hop at every `?` of a function.
//!
//! Use it through the `errtrace` crate (`errtrace::trace`), which documents it with examples.
//!
//! The attribute rewrites each `expr?` in the function's own body into
//!
//! ```text
//! { use errtrace::__private::HopOther as _; errtrace::__private::Hop(expr).__errtrace_hop() }?
//! ```
//!
//! where `__errtrace_hop` is chosen at compile time: for `errtrace::Result` an inherent method
//! (which Rust picks before any trait method) records a hop at the `?`'s location (the call
//! carries the `?` token's span, and the method is `#[track_caller]`); for any other type
//! (`Option`, a foreign `Result`) the `HopOther` trait hands the value back. The success path
//! only tests the result; the hop is written out of line, on `Err`.
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
    match parsed {
        Ok(FnLike::Free(mut f)) => {
            Rewriter.visit_block_mut(&mut f.block);
            quote::quote!(#f).into()
        }
        Ok(FnLike::Method(mut f)) => {
            Rewriter.visit_block_mut(&mut f.block);
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

struct Rewriter;

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
                let new: Expr = syn::parse_quote_spanned! {span=>
                    {
                        #[allow(unused_imports)]
                        use ::errtrace::__private::HopOther as _;
                        ::errtrace::__private::Hop(#inner).__errtrace_hop()
                    } #q
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
