fn f() { let s = "never closed;
