//! `macro_rules!` wrappers around logging macros (Rust binder's `binder_debug!` around
//! `pr_info!`): found before the audit proper, over every file of the tree, so that calls to
//! them count as logging calls without configuration.

use crate::logging::Names;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::HashSet;
use std::str::FromStr;

/// A `macro_rules!` definition: its name and the macros its body invokes.
pub type Definition = (String, Vec<String>);

/// The `macro_rules!` definitions of `text`. Files without `macro_rules` are not tokenized; the
/// tokens of those that are are dropped before returning (with proc-macro2's span table for
/// this thread), so that a pass over a whole tree keeps only the definitions.
pub fn definitions(text: &str) -> Vec<Definition> {
    if !text.contains("macro_rules") {
        return Vec::new();
    }
    let out = definitions_of_tokens(text);
    proc_macro2::extra::invalidate_current_thread_spans();
    out
}

fn definitions_of_tokens(text: &str) -> Vec<Definition> {
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
                    out.push((name.to_string(), invoked(&g.stream())));
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

/// The macros `body` invokes (`name!` or `path::name!`), each name once.
fn invoked(body: &TokenStream) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
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
                if let Some(name) = last_ident.take() {
                    if !out.contains(&name) {
                        out.push(name);
                    }
                }
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
    out
}

/// The names of the macros among `defs` whose bodies call a logging macro, directly or through
/// another such wrapper.
pub fn logging_wrappers(defs: &[Definition], names: &Names) -> HashSet<String> {
    let mut found: HashSet<String> = HashSet::new();
    // A wrapper of a wrapper is found on a later round; stop when a round adds nothing.
    loop {
        let before = found.len();
        for (name, invoked) in defs {
            if !found.contains(name) && invoked.iter().any(|m| names.is_log_macro(m) || found.contains(m)) {
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
        let defs: Vec<Definition> = [a, b, c].into_iter().flat_map(definitions).collect();
        let found = logging_wrappers(&defs, &names);
        assert!(found.contains("binder_debug"));
        assert!(found.contains("dbg2"));
        assert!(!found.contains("not_logging"));
    }
}
