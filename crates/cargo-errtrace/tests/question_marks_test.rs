//! Counting real `?` operators: not `?Sized`, not `$(…)?` in `macro_rules!`, not in
//! comments or strings.

use errtrace_audit::{summarize_source, Config};

fn count(src: &str) -> u32 {
    let s = summarize_source(src, "t.rs", &Config::default());
    assert!(s.parse_error.is_none(), "{:?}", s.parse_error);
    s.question_marks
}

#[test]
fn real_operators() {
    assert_eq!(count("fn f() -> Option<u8> { let x = g()?; Some(x?) }"), 2);
    assert_eq!(
        count("fn f() -> Result<(), E> { a()?.b()?.c().await?; Ok(()) }"),
        3
    );
    assert_eq!(
        count("fn f() -> Result<(), E> { let c = || -> Result<(), E> { x()?; Ok(()) }; c() }"),
        1
    );
}

#[test]
fn sized_bounds_are_not_operators() {
    assert_eq!(
        count("struct S<T: ?Sized>(T); fn f<T: ?Sized + Send>(t: &T) where T: ?Sized {}"),
        0
    );
    assert_eq!(count("fn f(_: &(impl ?Sized + Tr)) {}"), 0);
}

#[test]
fn macro_rules_repetitions_are_not_operators() {
    assert_eq!(
        count("macro_rules! m { ($($x:expr),* $(,)?) => { $($x?;)* }; }"),
        0
    );
    assert_eq!(count("macro_rules! m { ($x:ident $(: $t:ty)?) => {}; }"), 0);
}

#[test]
fn comments_and_strings_do_not_count() {
    assert_eq!(
        count(
            "// a()?\n/* b()? */\n/// c()?\nfn f() { let s = \"d()?\"; let r = r#\"e()?\"#; let c = '?'; }"
        ),
        0
    );
}

#[test]
fn operators_inside_macro_calls_count() {
    // Parsed as expressions.
    assert_eq!(
        count("fn f() -> Result<(), E> { pr_info!(\"{}\\n\", g()?); Ok(()) }"),
        1
    );
    // Not Rust syntax (`<-`): scanned token by token.
    assert_eq!(
        count("fn f() -> impl PinInit<S, E> { try_pin_init!(S { a <- m(), b: g()?, c: h(1)? }) }"),
        2
    );
    // Format strings are strings.
    assert_eq!(count("fn f() { println!(\"{:?}\", x); }"), 0);
}

#[test]
fn quasi_quoted_templates_do_not_count() {
    assert_eq!(count("fn f() -> TokenStream { quote! { let x = g()?; } }"), 0);
}
