// Negative: `.ok()` on a crate's function whose error is no errno (zerocopy's size check, as
// nova-core parses its VBIOS: `NpdeStruct::read_from_prefix(data).ok()?`) is the everyday
// conversion to `Option`, even in a driver written against the kernel crate.
use kernel::prelude::*;

fn parse(data: &[u8]) -> Option<u32> {
    let (npde, _) = zerocopy::read_u32_prefix(data).ok()?;
    Some(npde)
}

// Positive: `.ok()` on a lookup of the driver's own that fails with an errno loses it.
fn lookup(id: u32) -> Result<u32> {
    if id > 4 {
        return Err(ENOENT);
    }
    Ok(id)
}

fn maybe(id: u32) -> Option<u32> {
    let v = lookup(id).ok()?;
    Some(v)
}
