// This file does not parse; the audit reports it and goes on.
fn broken() {
    let x = ;
}
