macro_rules! m { ($($t:tt)*) => { pr_err!($($t)*) } }
fn f() -> Result<(), E> { m!("x"); g()?; Ok(()) }
