//! Looking inside an expression or a macro body: is there a logging call (`LogFinder`), and
//! what does an `Err` arm's body do with the error (`BodyInspector`)?

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::Expr;

use super::syntax::*;
use crate::logging::{Names, BUILD_TIME_MACROS, PANIC_MACROS};
use crate::parse;

/// Finds a logging call anywhere in what it visits.
pub(super) struct LogFinder<'n> {
    pub(super) names: &'n Names,
    pub(super) found: bool,
}

impl LogFinder<'_> {
    pub(super) fn scan_tokens(&mut self, ts: &TokenStream) {
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
pub(super) struct BodyInfo {
    pub(super) log: bool,
    pub(super) exits: bool,
    pub(super) uses: bool,
}

pub(super) struct BodyInspector<'n, 'b> {
    pub(super) names: &'n Names,
    pub(super) binding: Option<&'b str>,
    pub(super) info: BodyInfo,
}

impl<'ast> Visit<'ast> for BodyInspector<'_, '_> {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = last_seg(&m.path);
        if self.names.is_log_macro(&name) || name == "err" && tokens_have_str(&m.tokens) {
            self.info.log = true;
        }
        if PANIC_MACROS.contains(&name.as_str()) || BUILD_TIME_MACROS.contains(&name.as_str()) {
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
