// Positive: the Result of an in-tree function is thrown away four ways, and
// `.ok();` throws away any Result.
fn save(path: &str) -> Result<(), Error> {
    if path.is_empty() {
        return Err(EINVAL);
    }
    Ok(())
}

fn flush() {
    let _ = save("a");
    _ = save("b");
    save("c").ok();
    drop(save("d"));
    std::fs::remove_file("tmp").ok();
}
