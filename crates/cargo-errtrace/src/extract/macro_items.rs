//! Items a file's own `macro_rules!` macros make where the file invokes them at item level
//! (`impl_int_module_param!(u8);`, `impl_parse_int!(i8, u8, i16);`): the source does not spell
//! these impls, so without their expansion a call through the trait finds none of them.
//!
//! The expansion is macro_rules' own, for the rules whose matcher is made of plain tokens,
//! fragments (`$ty:ty`, `$name:ident`, …) and one level of repetition (`$($ty:ty),*`): the first
//! rule that matches the invocation is transcribed, and the result is parsed as items. The
//! transcribed tokens keep their spans, so what is made in the macro's body is found at the
//! body's lines, and what an argument supplies at the invocation's. Anything else (nested
//! repetitions, macros of other files or crates, invocations inside functions) is left alone,
//! as before.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, Ident, Spacing, TokenStream, TokenTree};

/// The expansions of a file's item-level invocations of its own macros, by the position
/// (line, column) of the invocation's path.
pub(super) type Expansions = HashMap<(usize, usize), Vec<syn::Item>>;

/// How many items one file's expansions may make in all (a guard against a macro that
/// expands to a great deal).
const MAX_ITEMS: usize = 4096;

struct Rule {
    matcher: Vec<TokenTree>,
    transcriber: TokenStream,
}

/// One binding of a metavariable: a single fragment, or one per repetition.
#[derive(Clone)]
enum Binding {
    One(TokenStream),
    Many(Vec<TokenStream>),
}

/// Expands every item-level invocation (also in inline `mod`s) of a `macro_rules!` macro the
/// file defines.
pub(super) fn expand(file: &syn::File) -> Expansions {
    let mut macros: HashMap<String, Vec<Rule>> = HashMap::new();
    collect_macros(&file.items, &mut macros);
    let mut out = Expansions::new();
    if macros.is_empty() {
        return out;
    }
    let mut made = 0usize;
    expand_in(&file.items, &macros, &mut out, &mut made);
    out
}

fn collect_macros(items: &[syn::Item], macros: &mut HashMap<String, Vec<Rule>>) {
    for item in items {
        match item {
            syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                if let Some(name) = &m.ident {
                    let rules = rules_of(m.mac.tokens.clone());
                    if !rules.is_empty() {
                        macros.insert(name.to_string(), rules);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect_macros(inner, macros);
                }
            }
            _ => {}
        }
    }
}

fn expand_in(
    items: &[syn::Item],
    macros: &HashMap<String, Vec<Rule>>,
    out: &mut Expansions,
    made: &mut usize,
) {
    for item in items {
        match item {
            syn::Item::Macro(m) if m.ident.is_none() => {
                let Some(name) = m.mac.path.get_ident() else {
                    continue;
                };
                let Some(rules) = macros.get(&name.to_string()) else {
                    continue;
                };
                let Some(tokens) = rules.iter().find_map(|r| apply(r, m.mac.tokens.clone())) else {
                    continue;
                };
                let Ok(parsed) = syn::parse2::<syn::File>(tokens) else {
                    continue;
                };
                if made.saturating_add(parsed.items.len()) > MAX_ITEMS {
                    return;
                }
                *made = made.saturating_add(parsed.items.len());
                let at = name.span().start();
                out.insert((at.line, at.column), parsed.items);
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    expand_in(inner, macros, out, made);
                }
            }
            _ => {}
        }
    }
}

/// The rules of a `macro_rules!` body: `(matcher) => { transcriber }`, separated by `;`.
fn rules_of(body: TokenStream) -> Vec<Rule> {
    let toks: Vec<TokenTree> = body.into_iter().collect();
    let mut rules = Vec::new();
    let mut i = 0;
    while let Some(TokenTree::Group(m)) = toks.get(i) {
        let arrow = matches!(
            (toks.get(i + 1), toks.get(i + 2)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == '=' && a.spacing() == Spacing::Joint && b.as_char() == '>'
        );
        let Some(TokenTree::Group(t)) = toks.get(i + 3) else {
            break;
        };
        if !arrow {
            break;
        }
        rules.push(Rule {
            matcher: m.stream().into_iter().collect(),
            transcriber: t.stream(),
        });
        i += 4;
        if matches!(toks.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    rules
}

/// The rule's transcription for `input`, if the rule's matcher matches it.
fn apply(rule: &Rule, input: TokenStream) -> Option<TokenStream> {
    let input: Vec<TokenTree> = input.into_iter().collect();
    let mut bindings = HashMap::new();
    let used = match_seq(&rule.matcher, &input, &mut bindings)?;
    if used != input.len() {
        return None;
    }
    transcribe(&rule.transcriber, &bindings, None)
}

/// A metavariable `$name:frag` at `m[i]`: its name and fragment kind.
fn fragment(m: &[TokenTree], i: usize) -> Option<(String, String)> {
    match (m.get(i), m.get(i + 1), m.get(i + 2), m.get(i + 3)) {
        (
            Some(TokenTree::Punct(d)),
            Some(TokenTree::Ident(n)),
            Some(TokenTree::Punct(c)),
            Some(TokenTree::Ident(k)),
        ) if d.as_char() == '$' && c.as_char() == ':' => Some((n.to_string(), k.to_string())),
        _ => None,
    }
}

/// A repetition `$( … ) sep? op` at `m[i]`: its contents, separator, and how many tokens it
/// spans in the matcher.
fn repetition(m: &[TokenTree], i: usize) -> Option<(Vec<TokenTree>, Option<char>, usize)> {
    let (Some(TokenTree::Punct(d)), Some(TokenTree::Group(g))) = (m.get(i), m.get(i + 1)) else {
        return None;
    };
    if d.as_char() != '$' || g.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    let is_op = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?'));
    if is_op(m.get(i + 2)) {
        return Some((g.stream().into_iter().collect(), None, 3));
    }
    match m.get(i + 2) {
        Some(TokenTree::Punct(s)) if is_op(m.get(i + 3)) => {
            Some((g.stream().into_iter().collect(), Some(s.as_char()), 4))
        }
        _ => None,
    }
}

/// Matches `m` against the start of `input`; returns how many input tokens it took.
fn match_seq(m: &[TokenTree], input: &[TokenTree], b: &mut HashMap<String, Binding>) -> Option<usize> {
    let mut i = 0;
    let mut at = 0;
    while i < m.len() {
        if let Some((name, kind)) = fragment(m, i) {
            // The next plain token of the matcher ends a fragment of several tokens.
            let stop = m.get(i + 4).and_then(plain_char);
            let n = fragment_len(&kind, input.get(at..)?, stop)?;
            b.insert(
                name,
                Binding::One(input.get(at..at + n)?.iter().cloned().collect()),
            );
            at += n;
            i += 4;
            continue;
        }
        if let Some((inner, sep, span)) = repetition(m, i) {
            let mut per_name: HashMap<String, Vec<TokenStream>> = HashMap::new();
            loop {
                let mut one = HashMap::new();
                let Some(n) = match_seq(&inner, input.get(at..)?, &mut one) else {
                    break;
                };
                if n == 0 {
                    break;
                }
                for (k, v) in one {
                    if let Binding::One(ts) = v {
                        per_name.entry(k).or_default().push(ts);
                    }
                }
                at += n;
                match (sep, input.get(at)) {
                    (Some(s), Some(TokenTree::Punct(p))) if p.as_char() == s => at += 1,
                    (Some(_), _) => break,
                    (None, _) => {}
                }
            }
            for (k, v) in per_name {
                b.insert(k, Binding::Many(v));
            }
            i += span;
            continue;
        }
        // A plain token: it must be the same.
        let (want, got) = (m.get(i)?, input.get(at)?);
        if !same_token(want, got) {
            return None;
        }
        if let (TokenTree::Group(wg), TokenTree::Group(gg)) = (want, got) {
            let inner: Vec<TokenTree> = gg.stream().into_iter().collect();
            let wm: Vec<TokenTree> = wg.stream().into_iter().collect();
            if match_seq(&wm, &inner, b)? != inner.len() {
                return None;
            }
        }
        i += 1;
        at += 1;
    }
    Some(at)
}

fn plain_char(t: &TokenTree) -> Option<char> {
    match t {
        TokenTree::Punct(p) if p.as_char() != '$' => Some(p.as_char()),
        _ => None,
    }
}

/// How many tokens of `input` a fragment of kind `kind` takes: one token tree for `ident`,
/// `tt`, `literal`, `lifetime`; for the others, up to the matcher's next plain token (`stop`)
/// or the end, outside `<…>`.
fn fragment_len(kind: &str, input: &[TokenTree], stop: Option<char>) -> Option<usize> {
    if input.is_empty() {
        return None;
    }
    match kind {
        "ident" => matches!(input.first(), Some(TokenTree::Ident(_))).then_some(1),
        "tt" | "literal" => Some(1),
        "lifetime" => (input.len() >= 2).then_some(2),
        _ => {
            let mut depth = 0i32;
            let mut n = 0;
            for t in input {
                if let TokenTree::Punct(p) = t {
                    match p.as_char() {
                        '<' => depth += 1,
                        '>' if depth > 0 => depth -= 1,
                        c if depth == 0 && Some(c) == stop => break,
                        ',' | ';' if depth == 0 && stop.is_none() => break,
                        _ => {}
                    }
                }
                n += 1;
            }
            (n > 0).then_some(n)
        }
    }
}

fn same_token(a: &TokenTree, b: &TokenTree) -> bool {
    match (a, b) {
        (TokenTree::Ident(x), TokenTree::Ident(y)) => x == y,
        (TokenTree::Punct(x), TokenTree::Punct(y)) => x.as_char() == y.as_char(),
        (TokenTree::Literal(x), TokenTree::Literal(y)) => x.to_string() == y.to_string(),
        (TokenTree::Group(x), TokenTree::Group(y)) => x.delimiter() == y.delimiter(),
        _ => false,
    }
}

/// The transcriber with its metavariables replaced; `index` is the current repetition's.
fn transcribe(t: &TokenStream, b: &HashMap<String, Binding>, index: Option<usize>) -> Option<TokenStream> {
    let toks: Vec<TokenTree> = t.clone().into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < toks.len() {
        match (toks.get(i), toks.get(i + 1)) {
            (Some(TokenTree::Punct(d)), Some(TokenTree::Ident(n))) if d.as_char() == '$' => {
                let name = n.to_string();
                if name == "crate" {
                    out.extend([TokenTree::Ident(Ident::new("crate", n.span()))]);
                } else {
                    match (b.get(&name)?, index) {
                        (Binding::One(ts), _) => out.extend(ts.clone()),
                        (Binding::Many(v), Some(k)) => out.extend(v.get(k)?.clone()),
                        (Binding::Many(_), None) => return None,
                    }
                }
                i += 2;
            }
            (Some(TokenTree::Punct(d)), Some(TokenTree::Group(g)))
                if d.as_char() == '$' && g.delimiter() == Delimiter::Parenthesis =>
            {
                // `$( … ) sep? op`: once per binding of the repeated metavariables inside.
                let mut span = 3;
                let mut sep = None;
                if let Some(TokenTree::Punct(p)) = toks.get(i + 2) {
                    if !matches!(p.as_char(), '*' | '+' | '?') {
                        sep = Some(p.clone());
                        span = 4;
                    }
                }
                let count = repeats(&g.stream(), b)?;
                for k in 0..count {
                    if k > 0 {
                        if let Some(s) = &sep {
                            out.extend([TokenTree::Punct(s.clone())]);
                        }
                    }
                    out.extend(transcribe(&g.stream(), b, Some(k))?);
                }
                i += span;
            }
            (Some(TokenTree::Group(g)), _) => {
                let mut ng = Group::new(g.delimiter(), transcribe(&g.stream(), b, index)?);
                ng.set_span(g.span());
                out.extend([TokenTree::Group(ng)]);
                i += 1;
            }
            (Some(t), _) => {
                out.extend([t.clone()]);
                i += 1;
            }
            (None, _) => break,
        }
    }
    Some(out)
}

/// How many times a repetition's body repeats: the length of the repeated bindings it names.
fn repeats(body: &TokenStream, b: &HashMap<String, Binding>) -> Option<usize> {
    let toks: Vec<TokenTree> = body.clone().into_iter().collect();
    let mut n = None;
    for w in toks.windows(2) {
        if let (TokenTree::Punct(d), TokenTree::Ident(name)) = (&w[0], &w[1]) {
            if d.as_char() == '$' {
                if let Some(Binding::Many(v)) = b.get(&name.to_string()) {
                    n = Some(n.map_or(v.len(), |m: usize| m.min(v.len())));
                }
            }
        }
    }
    for t in &toks {
        if let TokenTree::Group(g) = t {
            if let Some(k) = repeats(&g.stream(), b) {
                n = Some(n.map_or(k, |m: usize| m.min(k)));
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items_of(src: &str) -> Vec<String> {
        let file = syn::parse_file(src).unwrap();
        let mut got: Vec<(usize, String)> = expand(&file)
            .into_iter()
            .flat_map(|((line, _), items)| {
                items
                    .into_iter()
                    .map(move |i| (line, quote::ToTokens::to_token_stream(&i).to_string()))
            })
            .collect();
        got.sort();
        got.into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn one_fragment_per_invocation() {
        let got = items_of(
            "macro_rules! m { ($ty:ident) => { impl P for $ty { fn f() -> u32 { 1 } } }; }\n\
             m!(u8);\nm!(i16);\n",
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].starts_with("impl P for u8"), "{got:?}");
        assert!(got[1].starts_with("impl P for i16"), "{got:?}");
    }

    #[test]
    fn a_repetition_with_a_separator() {
        let got = items_of(
            "macro_rules! m { ($($ty:ty),*) => { $( impl F for $ty { fn g() {} } )* }; }\n\
             m!(i8, u8, Vec<u8>);\n",
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(
            got.iter().any(|s| s.starts_with("impl F for Vec < u8 >")),
            "{got:?}"
        );
    }

    #[test]
    fn the_first_matching_rule_and_dollar_crate() {
        let got = items_of(
            "macro_rules! m { (a $x:ident) => { fn $x() { $crate::f() } }; ($x:ident) => { struct $x; }; }\n\
             m!(a one);\nm!(two);\n",
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got.iter().any(|s| s.contains("fn one () { crate :: f () }")),
            "{got:?}"
        );
        assert!(got.iter().any(|s| s == "struct two ;"), "{got:?}");
    }

    #[test]
    fn no_match_no_expansion() {
        let got = items_of("macro_rules! m { (a $x:ident) => { fn $x() {} }; }\nm!(b c);\nother!(x);\n");
        assert!(got.is_empty(), "{got:?}");
    }
}
