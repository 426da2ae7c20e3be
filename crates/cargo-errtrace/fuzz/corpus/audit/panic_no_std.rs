// Positive: in a no_std crate, `.unwrap()` on any call panics the system.
#![no_std]

fn get(v: &[u8]) -> u8 {
    *v.first().unwrap()
}
