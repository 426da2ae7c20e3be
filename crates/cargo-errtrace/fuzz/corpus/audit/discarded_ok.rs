// Negative: `let _ =` on values that are not Results, or on a foreign call that
// is not in the config's discard list.
fn len(s: &str) -> usize {
    s.len()
}

fn tidy() {
    let _ = len("abc");
    let _ = std::fs::remove_file("tmp");
    let _guard = lock();
}

fn lock() -> u32 {
    0
}
