//! Which `#[cfg(…)]` predicates mark code compiled only for tests: `test`, and `testlib` (the
//! kernel's user-space test build of its `kernel` crate), alone or combined so that the code
//! can only be built for one of them: `all(test, …)`, `any(test, testlib)`.
//!
//! Such code never runs in the product, so its errors reach no real boundary: a
//! `#[cfg(any(test, testlib))] mod allocator_test;` is not part of the kernel's `alloc`.

/// The cfg names that only test builds set.
const TEST_CFGS: &[&str] = &["test", "testlib"];

/// Whether the predicate inside `#[cfg(…)]`, written without whitespace (`any(test,testlib)`),
/// holds only in test builds.
pub fn is_test_only(pred: &str) -> bool {
    match split_call(pred) {
        Some(("all", args)) => args.iter().any(|a| is_test_only(a)),
        Some(("any", args)) => !args.is_empty() && args.iter().all(|a| is_test_only(a)),
        Some(_) => false,
        None => TEST_CFGS.contains(&pred),
    }
}

/// `name(a,b(c,d))` → `("name", ["a", "b(c,d)"])`; `None` for a bare word.
fn split_call(pred: &str) -> Option<(&str, Vec<&str>)> {
    let open = pred.find('(')?;
    let inner = pred.get(open + 1..)?.strip_suffix(')')?;
    let name = pred.get(..open)?;
    let mut args = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                args.extend(inner.get(start..i).filter(|a| !a.is_empty()));
                start = i + 1;
            }
            _ => {}
        }
    }
    args.extend(inner.get(start..).filter(|a| !a.is_empty()));
    Some((name, args))
}

#[cfg(test)]
mod tests {
    use super::is_test_only;

    #[test]
    fn test_only_predicates() {
        for p in [
            "test",
            "testlib",
            "any(test,testlib)",
            "all(test,feature=\"x\")",
            "all(unix,any(test,testlib))",
        ] {
            assert!(is_test_only(p), "{p}");
        }
        for p in [
            "unix",
            "not(test)",
            "any(test,feature=\"std\")",
            "not(any(test,testlib))",
            "any()",
            "feature=\"test\"",
        ] {
            assert!(!is_test_only(p), "{p}");
        }
    }
}
