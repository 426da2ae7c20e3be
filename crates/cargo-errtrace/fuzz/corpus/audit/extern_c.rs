extern "C" fn f() -> i32 { match g() { Ok(()) => 0, Err(e) => e.to_errno() } }
