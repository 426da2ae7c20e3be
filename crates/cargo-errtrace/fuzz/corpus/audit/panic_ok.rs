// Negative: no panic finding here.
fn first(v: &[u32]) -> u32 {
    // An Option from a foreign call, in a std crate.
    *v.first().unwrap()
}

fn must(v: u32) {
    // `panic!` in a function that does not return Result.
    if v == 0 {
        panic!("zero");
    }
}

fn load() -> Result<u32, Error> {
    Ok(1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn loads() {
        assert_eq!(super::load().unwrap(), 1);
    }
}
