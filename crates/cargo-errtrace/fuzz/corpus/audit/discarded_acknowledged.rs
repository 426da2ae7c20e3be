// A discard that a comment explains is acknowledged: counted, not reported (Rust binder's
// `let _ = dev.init_hw();` comes with one). One without a comment is still a finding.
fn reset() -> Result<(), Error> {
    Err(EIO)
}

fn link_change() {
    // The link state is read again on the next interrupt; a failed reset changes nothing.
    let _ = reset();
    let _ = reset(); // best effort: the chip resets itself on the next power cycle
    let _ = reset();
}
