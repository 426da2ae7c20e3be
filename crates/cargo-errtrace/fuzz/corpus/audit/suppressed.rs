// The comment accepts the finding on the next line.
fn save() -> Result<(), Error> {
    Err(EIO)
}

fn best_effort() {
    // errtrace-audit: allow(discarded) the cache is rebuilt on the next start
    let _ = save();
    let _ = save(); // errtrace-audit: allow(discarded) same here
}
