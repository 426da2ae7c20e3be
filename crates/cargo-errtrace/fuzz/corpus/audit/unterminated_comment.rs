/* open
fn f() {}
