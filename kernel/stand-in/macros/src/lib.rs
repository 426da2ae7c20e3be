//! Stand-in `#[trace]` attribute: parses the function with syn (full) and
//! inserts a call to `::errtrace::enter("<module path>::<fn name>")` at the
//! start of its body.
use proc_macro::TokenStream;
use quote::quote;
use syn::{parse_macro_input, ItemFn};

/// Marks a function as traced.
#[proc_macro_attribute]
pub fn trace(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(proc_macro2::Span::call_site(), "#[trace] takes no arguments")
            .to_compile_error()
            .into();
    }
    let mut f = parse_macro_input!(item as ItemFn);
    let name = f.sig.ident.to_string();
    let stmts = &f.block.stmts;
    let body = quote! {{
        ::errtrace::enter(::core::concat!(::core::module_path!(), "::", #name));
        #(#stmts)*
    }};
    f.block = syn::parse2(body).expect("block");
    quote!(#f).into()
}
