//! An impl's associated types: in a trait impl, `Self::Command` is the type the impl names
//! (`type Command = fw::commands::GspSetSystemInfo;`), in its signatures and in the paths it
//! calls, as rustc reads them. The audit reads `Self::Command::init(…)` as
//! `fw::commands::GspSetSystemInfo::init(…)`, and `-> impl Init<Self::Command, Self::InitError>`
//! with `type InitError = Infallible;` as an initialiser that cannot fail.

use syn::visit_mut::{self, VisitMut};

/// The `type X = …;` items of an impl: (name, type).
pub(super) fn of_impl(i: &syn::ItemImpl) -> Vec<(String, syn::Type)> {
    i.items
        .iter()
        .filter_map(|it| match it {
            syn::ImplItem::Type(t) => Some((t.ident.to_string(), t.ty.clone())),
            _ => None,
        })
        .collect()
}

/// The type `Self::name` stands for, if the impl names it.
fn lookup<'a>(assoc: &'a [(String, syn::Type)], name: &str) -> Option<&'a syn::Type> {
    assoc.iter().find(|(n, _)| n == name).map(|(_, t)| t)
}

/// `path` with a leading `Self::X` replaced by the path of the type the impl names for `X`;
/// `None` when it has none (or the type is not a path).
pub(super) fn substitute_path(path: &syn::Path, assoc: &[(String, syn::Type)]) -> Option<syn::Path> {
    let mut segs = path.segments.iter();
    let first = segs.next()?;
    let second = segs.next()?;
    if first.ident != "Self" || assoc.is_empty() {
        return None;
    }
    let syn::Type::Path(tp) = lookup(assoc, &second.ident.to_string())? else {
        return None;
    };
    if tp.qself.is_some() {
        return None;
    }
    let mut out = tp.path.clone();
    out.segments.extend(segs.cloned());
    Some(out)
}

/// A copy of `ty` with every `Self::X` the impl names replaced by its type.
pub(super) fn substitute_type(ty: &syn::Type, assoc: &[(String, syn::Type)]) -> syn::Type {
    let mut ty = ty.clone();
    if !assoc.is_empty() {
        Substitute { assoc }.visit_type_mut(&mut ty);
    }
    ty
}

/// Replaces `Self::X` types (see [`substitute_type`]).
struct Substitute<'a> {
    assoc: &'a [(String, syn::Type)],
}

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(tp) = ty {
            let alone = tp.qself.is_none() && tp.path.segments.len() == 2;
            if alone {
                let named = tp
                    .path
                    .segments
                    .iter()
                    .nth(1)
                    .filter(|_| tp.path.segments.first().is_some_and(|s| s.ident == "Self"))
                    .and_then(|s| lookup(self.assoc, &s.ident.to_string()));
                if let Some(named) = named {
                    *ty = named.clone();
                    return;
                }
            }
        }
        visit_mut::visit_type_mut(self, ty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn impl_of(src: &str) -> syn::ItemImpl {
        syn::parse_str(src).unwrap()
    }

    #[test]
    fn self_types_are_the_impls() {
        let i = impl_of(
            "impl CommandToGsp for SetSystemInfo {
                type Command = fw::commands::GspSetSystemInfo;
                type InitError = Infallible;
                fn init(&self) {}
            }",
        );
        let assoc = of_impl(&i);
        let path: syn::Path = syn::parse_str("Self::Command::init").unwrap();
        let sub = substitute_path(&path, &assoc).unwrap();
        assert_eq!(
            sub.to_token_stream().to_string().replace(' ', ""),
            "fw::commands::GspSetSystemInfo::init"
        );
        let other: syn::Path = syn::parse_str("Self::Reply::new").unwrap();
        assert!(substitute_path(&other, &assoc).is_none(), "not named by the impl");
        let ty: syn::Type = syn::parse_str("impl Init<Self::Command, Self::InitError>").unwrap();
        assert_eq!(
            substitute_type(&ty, &assoc)
                .to_token_stream()
                .to_string()
                .replace(' ', ""),
            "implInit<fw::commands::GspSetSystemInfo,Infallible>"
        );
    }
}
