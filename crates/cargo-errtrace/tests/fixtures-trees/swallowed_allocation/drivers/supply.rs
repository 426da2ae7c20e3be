// Negative: `.ok()` on an allocation loses nothing: the allocator warns when it fails (reduced
// from rcpufreq_dt's regulator name, `CString::try_from_fmt(fmt!("{name}")).ok()`, with the
// kernel crate's `CString` in the tree).
use kernel::str::CString;

fn find_supply(dev: &Device, name: &str) -> Option<CString> {
    let prop = CString::try_from_fmt(fmt!("{name}-supply")).ok()?;
    Some(prop)
}

// Positive: `.ok()` on a lookup that fails without a word does lose its error.
fn lookup(dev: &Device) -> Result<u32> {
    Err(ENOENT)
}

fn maybe(dev: &Device) -> Option<u32> {
    let v = lookup(dev).ok()?;
    Some(v)
}
