// A crate of the tree that is not written against the kernel crate (Linux 7.3 vendors zerocopy
// in rust/): its errors are its own types, not errnos.
pub struct SizeError;

pub fn read_u32_prefix(src: &[u8]) -> Result<(u32, &[u8]), SizeError> {
    if src.len() < 4 {
        return Err(SizeError);
    }
    Ok((u32::from(src[0]), &src[4..]))
}
