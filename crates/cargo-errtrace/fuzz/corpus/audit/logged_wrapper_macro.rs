// Negative: a `macro_rules!` wrapper around a logging macro (Rust binder's `binder_debug!`
// around `pr_info!`) logs, with no configuration.
macro_rules! drv_debug {
    ($($arg:tt)*) => {
        pr_info!($($arg)*)
    };
}

fn load() -> Result<u32, Error> {
    Err(ENOENT)
}

struct Sample;

impl kernel::Module for Sample {
    fn init(_m: &'static ThisModule) -> Result<Self> {
        load().map_err(|e| {
            drv_debug!("loading the table failed: {:?}\n", e);
            e
        })?;
        Ok(Sample)
    }
}
