//! Parsing one file with syn, with guards that keep hostile input from exhausting the stack.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::str::FromStr;

/// Deepest bracket nesting accepted. syn and the walker recurse per level; real code stays
/// far below this.
pub const MAX_NESTING: usize = 256;

/// Longest run of prefix operators (`!`, `-`, `*`, `&`, `|`, `return`, …) accepted: syn
/// parses each one recursively.
pub const MAX_PREFIX_RUN: usize = 256;

/// Most operator tokens (`.`, `?`, `=`, `+`, `::`…) in one statement at one bracket level. A flat
/// chain (`a.b().c()…`, `x???…`, `a = a = …`, `1 + 1 + …`) is flat text but a tree as deep as
/// it is long, which syn and the walker build, walk and drop recursively; real code stays far
/// below this. A statement ends at `;` or `,`, and at a `{…}` block that no operator continues
/// (the end of an item, `if`, `match` or `fn` body): a file of thousands of items is not one
/// chain.
pub const MAX_CHAIN: usize = 4096;

/// A parse failure: 1-based line and column, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What went wrong.
    pub message: String,
}

/// Strip a BOM and a shebang line the way `syn::parse_file` does (line numbers are kept).
pub fn strip_prelude(mut content: &str) -> &str {
    if let Some(rest) = content.strip_prefix('\u{feff}') {
        content = rest;
    }
    if let Some(after) = content.strip_prefix("#!") {
        if !after.trim_start().starts_with('[') {
            content = match content.find('\n') {
                Some(i) => &content[i..],
                None => "",
            };
        }
    }
    content
}

/// Parse a whole file.
pub fn parse_file(content: &str) -> Result<syn::File, Failure> {
    let content = strip_prelude(content);
    let tokens = TokenStream::from_str(content).map_err(|e| {
        let start = e.span().start();
        Failure {
            line: start.line as u32,
            column: start.column as u32 + 1,
            message: e.to_string(),
        }
    })?;
    check_shape(&tokens)?;
    syn::parse2::<syn::File>(tokens).map_err(|e| {
        let start = e.span().start();
        Failure {
            line: start.line.max(1) as u32,
            column: start.column as u32 + 1,
            message: e.to_string(),
        }
    })
}

/// Refuse token streams nested deeper than [`MAX_NESTING`] or with a run of prefix
/// operators longer than [`MAX_PREFIX_RUN`]. Iterative: safe on any input.
pub fn check_shape(tokens: &TokenStream) -> Result<(), Failure> {
    let mut stack: Vec<proc_macro2::token_stream::IntoIter> = vec![tokens.clone().into_iter()];
    let mut run = 0usize;
    // Operator tokens since the last `;` or `,` at each open bracket level, and whether the last
    // token at that level was a `{…}` group (the statement ends there unless an operator follows).
    let mut chain: Vec<usize> = vec![0];
    let mut after_block: Vec<bool> = vec![false];
    // Unclosed `<` since the last `;` or bracket: generic types nest recursively too.
    let mut angles = 0usize;
    while let Some(top) = stack.last_mut() {
        let Some(tt) = top.next() else {
            stack.pop();
            chain.pop();
            after_block.pop();
            angles = 0;
            continue;
        };
        if let Some(after) = after_block.last_mut() {
            if std::mem::take(after) && !continues_expression(&tt) {
                if let Some(n) = chain.last_mut() {
                    *n = 0;
                }
            }
        }
        if let TokenTree::Punct(p) = &tt {
            match p.as_char() {
                '<' => angles += 1,
                '>' => angles = angles.saturating_sub(1),
                ';' => angles = 0,
                _ => {}
            }
            let ops = chain.last_mut();
            match (p.as_char(), ops) {
                (';' | ',', Some(n)) => *n = 0,
                (_, Some(n)) => {
                    *n += 1;
                    if *n > MAX_CHAIN {
                        let start = p.span().start();
                        return Err(Failure {
                            line: start.line as u32,
                            column: start.column as u32 + 1,
                            message: format!(
                                "an expression of more than {MAX_CHAIN} operators in a row \
                                 (a chain of calls, `?`, fields or assignments); not analysed"
                            ),
                        });
                    }
                }
                (_, None) => {}
            }
            if angles > MAX_NESTING {
                let start = p.span().start();
                return Err(Failure {
                    line: start.line as u32,
                    column: start.column as u32 + 1,
                    message: format!("generics nested deeper than {MAX_NESTING} levels; not analysed"),
                });
            }
        }
        let prefix = match &tt {
            TokenTree::Punct(p) => matches!(p.as_char(), '!' | '-' | '*' | '&' | '|'),
            TokenTree::Ident(i) => {
                let s = i.to_string();
                matches!(
                    s.as_str(),
                    "return" | "break" | "move" | "mut" | "dyn" | "impl" | "box"
                )
            }
            _ => false,
        };
        run = if prefix { run + 1 } else { 0 };
        if run > MAX_PREFIX_RUN {
            let start = tt.span().start();
            return Err(Failure {
                line: start.line as u32,
                column: start.column as u32 + 1,
                message: format!("more than {MAX_PREFIX_RUN} prefix operators in a row; not analysed"),
            });
        }
        if let TokenTree::Group(g) = tt {
            if g.delimiter() == Delimiter::Brace {
                if let Some(after) = after_block.last_mut() {
                    *after = true;
                }
            }
            if stack.len() >= MAX_NESTING {
                let start = g.span().start();
                return Err(Failure {
                    line: start.line as u32,
                    column: start.column as u32 + 1,
                    message: format!("brackets nested deeper than {MAX_NESTING} levels; not analysed"),
                });
            }
            if g.delimiter() != Delimiter::None || !g.stream().is_empty() {
                stack.push(g.stream().into_iter());
                chain.push(0);
                after_block.push(false);
                angles = 0;
            }
        }
    }
    Ok(())
}

/// Whether `tt`, right after a `{…}` group, continues the expression the group ends
/// (`if a {b} else {c} + …`, `S {}.f()`, `match x {}?`), rather than starting a new statement.
fn continues_expression(tt: &TokenTree) -> bool {
    match tt {
        TokenTree::Punct(p) => !matches!(p.as_char(), '#' | ';' | ','),
        TokenTree::Ident(i) => i == "as" || i == "else",
        _ => false,
    }
}

/// Count lines the way `wc -l` would for a file ending in a newline (a last line without a
/// newline counts too).
pub fn count_lines(text: &str) -> u32 {
    let n = text.bytes().filter(|&b| b == b'\n').count();
    let extra = usize::from(!text.is_empty() && !text.ends_with('\n'));
    (n + extra) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(src: &str) -> Failure {
        match parse_file(src) {
            Ok(_) => panic!("parsed: {src:.80}"),
            Err(e) => e,
        }
    }

    /// Flat chains as long as the ones that overflowed the worker's stack (200k chained calls, 400k `?`, aborted the whole run with exit 134) are refused with a
    /// position, like deep nesting.
    #[test]
    fn long_flat_chains_are_refused_not_crashed() {
        let calls = format!("fn f() {{ a{} ; }}", ".b()".repeat(200_000));
        let qs = format!("fn f() {{ x{} ; }}", "?".repeat(400_000));
        let fields = format!("fn f() {{ s{} ; }}", ".f".repeat(200_000));
        let assigns = format!("fn f() {{ {}a ; }}", "a = ".repeat(200_000));
        let sums = format!("fn f() {{ {}1 ; }}", "1 + ".repeat(200_000));
        for src in [calls, qs, fields, assigns, sums] {
            let e = fail(&src);
            assert!(e.message.contains("operators in a row"), "{}", e.message);
            assert_eq!(e.line, 1);
        }
        // A long but ordinary function is fine: the count restarts at each `;` and `,`.
        let many = format!("fn f() {{ {} }}", "a.b()?.c; ".repeat(5_000));
        assert!(parse_file(&many).is_ok());
        // A flat chain through blocks is still one chain.
        let blocks = format!("fn f() {{ {}1 ; }}", "if a {{ b }} else {{ c }} + ".repeat(5_000));
        assert!(fail(&blocks).message.contains("operators in a row"));
    }

    /// Thousands of items at one level are thousands of statements, not one chain: the
    /// generated `windows-sys` modules (20,000 `impl ::core::marker::Copy for X {}` in a row) were
    /// refused as a chain of more than 4096 operators.
    #[test]
    fn many_items_in_a_row_are_not_a_chain() {
        let items = "#[cfg(feature = \"a\")]\nimpl ::core::marker::Copy for X {}\n\
                     impl ::core::clone::Clone for X { fn clone(&self) -> Self { *self } }\n\
                     pub fn g() -> ::core::primitive::u32 { 1 }\n"
            .repeat(3_000);
        assert!(parse_file(&items).is_ok());
        let arms = format!(
            "fn f(x: u8) -> u8 {{ match x {{ {} _ => 0 }} }}",
            "1 => {{ 2 }}\n".repeat(5_000)
        );
        assert!(parse_file(&arms).is_ok());
    }

    #[test]
    fn deep_nesting_is_refused_not_crashed() {
        let src = format!("fn f() {{ {}1{} }}", "(".repeat(5000), ")".repeat(5000));
        let e = fail(&src);
        assert!(e.message.contains("nested deeper"), "{e:?}");
        let src = format!("fn f() {{ {}x }}", "!".repeat(5000));
        assert!(fail(&src).message.contains("prefix"));
    }

    #[test]
    fn errors_have_positions() {
        let e = fail("fn f() {\n  let = ;\n}\n");
        assert_eq!(e.line, 2);
        let e = fail("fn f() { \"unterminated }");
        assert!(e.line >= 1);
    }

    #[test]
    fn shebang_and_bom() {
        assert!(parse_file("\u{feff}#!/usr/bin/env run\nfn main() {}\n").is_ok());
        assert!(parse_file("#![no_std]\nfn f() {}\n").is_ok());
        assert_eq!(count_lines("a\nb"), 2);
        assert_eq!(count_lines("a\nb\n"), 2);
        assert_eq!(count_lines(""), 0);
    }
}
