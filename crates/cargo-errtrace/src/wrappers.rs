//! `macro_rules!` wrappers around logging macros (Rust binder's `binder_debug!` around
//! `pr_info!`): found before the audit proper, over every file of the tree, so that calls to
//! them count as logging calls without configuration.

use crate::logging::Names;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashSet;
use std::str::FromStr;

/// The `macro_rules!` definitions of `text`: (name, body).
fn definitions(text: &str) -> Vec<(String, TokenStream)> {
    let Ok(tokens) = TokenStream::from_str(crate::parse::strip_prelude(text)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Iterative walk (any nesting): definitions may sit inside modules and functions.
    let mut stack = vec![tokens.into_iter()];
    let mut recent: Vec<TokenTree> = Vec::new();
    while let Some(top) = stack.last_mut() {
        let Some(tt) = top.next() else {
            stack.pop();
            recent.clear();
            continue;
        };
        if let TokenTree::Group(g) = &tt {
            // `macro_rules ! name { … }`
            if let [TokenTree::Ident(m), TokenTree::Punct(bang), TokenTree::Ident(name)] = recent.as_slice() {
                if m == "macro_rules" && bang.as_char() == '!' {
                    out.push((name.to_string(), g.stream()));
                }
            }
            if stack.len() < crate::parse::MAX_NESTING {
                stack.push(g.stream().into_iter());
            }
            recent.clear();
            continue;
        }
        recent.push(tt);
        if recent.len() > 3 {
            recent.remove(0);
        }
    }
    out
}

/// Whether `body` invokes one of the macros for which `is_log` holds (`name!` or `path::name!`).
fn invokes(body: &TokenStream, is_log: &dyn Fn(&str) -> bool) -> bool {
    let mut stack = vec![body.clone().into_iter()];
    let mut last_ident: Option<String> = None;
    while let Some(top) = stack.last_mut() {
        let Some(tt) = top.next() else {
            stack.pop();
            last_ident = None;
            continue;
        };
        match tt {
            TokenTree::Ident(i) => last_ident = Some(i.to_string()),
            TokenTree::Punct(p) if p.as_char() == '!' => {
                if last_ident.as_deref().is_some_and(is_log) {
                    return true;
                }
                last_ident = None;
            }
            TokenTree::Punct(p) if p.as_char() == ':' => {}
            TokenTree::Group(g) => {
                last_ident = None;
                if stack.len() < crate::parse::MAX_NESTING {
                    stack.push(g.stream().into_iter());
                }
            }
            _ => last_ident = None,
        }
    }
    false
}

/// The names of the `macro_rules!` macros in `texts` whose bodies call a logging macro, directly
/// or through another such wrapper.
pub fn logging_wrappers<'a>(texts: impl Iterator<Item = &'a str>, names: &Names) -> HashSet<String> {
    let defs: Vec<(String, TokenStream)> = texts.flat_map(definitions).collect();
    let mut found: HashSet<String> = HashSet::new();
    // A wrapper of a wrapper is found on a later round; stop when a round adds nothing.
    loop {
        let before = found.len();
        for (name, body) in &defs {
            if !found.contains(name) && invokes(body, &|m: &str| names.is_log_macro(m) || found.contains(m)) {
                found.insert(name.clone());
            }
        }
        if found.len() == before {
            return found;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrappers_and_wrappers_of_wrappers() {
        let names = Names::new(&crate::Config::default());
        let a = "macro_rules! binder_debug { ($($t:tt)*) => { pr_info!($($t)*) } }";
        let b = "mod m { macro_rules! dbg2 { ($x:expr) => { binder_debug!(\"{}\", $x) }; } }";
        let c = "macro_rules! not_logging { () => { foo!() } }";
        let found = logging_wrappers([a, b, c].into_iter(), &names);
        assert!(found.contains("binder_debug"));
        assert!(found.contains("dbg2"));
        assert!(!found.contains("not_logging"));
    }
}
