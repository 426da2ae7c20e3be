//! Overflow and conversion guards: code that must not panic (the kernel builds with overflow
//! checks, and `as` truncates silently) writes `a.checked_add(b).ok_or(EOVERFLOW)?`,
//! `u32::try_from(n)?` or `bytes.try_into().map_err(|_| EINVAL)?` where its invariants already
//! exclude the failure. Such an error is a guard, not a report a user waits for; the audit
//! lists guard chains only when asked (`--guards`).

use syn::Expr;

use super::syntax::{last_seg, strip};

/// Integer types whose `try_from` is a range check.
const INTEGERS: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

/// Is the operand of a `?` a guard? Through `.ok_or(…)`, `.ok_or_else(…)` and the pass-through
/// adapters (`.map_err(…)`) to the call: a `checked_*` method, `.try_into()`, an integer's
/// `try_from`, or `Layout::from_size_align`/`Layout::array`.
pub(super) fn guard_call(e: &Expr) -> bool {
    let mut cur = strip(e);
    for _ in 0..16 {
        match cur {
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if name == "ok_or" || name == "ok_or_else" || crate::logging::passes_through(&name) {
                    cur = strip(&m.receiver);
                    continue;
                }
                return name.starts_with("checked_") || name == "try_into";
            }
            Expr::Call(c) => {
                let Expr::Path(p) = strip(&c.func) else {
                    return false;
                };
                let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let owner = segs
                    .len()
                    .checked_sub(2)
                    .and_then(|i| segs.get(i))
                    .map(String::as_str);
                let name = last_seg(&p.path);
                return match (owner, name.as_str()) {
                    (Some(t), "try_from") => INTEGERS.contains(&t),
                    (Some("Layout"), "from_size_align" | "array") => true,
                    _ => false,
                };
            }
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::guard_call;

    fn g(s: &str) -> bool {
        guard_call(&syn::parse_str(s).unwrap())
    }

    #[test]
    fn guards_and_not() {
        assert!(g("start.checked_add(i << SHIFT).ok_or(EOVERFLOW)"));
        assert!(g("va.end.checked_sub(va.start).ok_or(EINVAL)"));
        assert!(g("present.count_ones().try_into()"));
        assert!(g("self.read(2)?.try_into().map_err(|_| EINVAL)"));
        assert!(g("u32::try_from(len)"));
        assert!(g(
            "core::alloc::Layout::from_size_align(len, PAGE_SIZE).map_err(|_| EINVAL)"
        ));
        assert!(
            !g("Chipset::try_from(boot0)"),
            "a domain conversion validates hardware"
        );
        assert!(!g("pdev.io_request_by_index(0).ok_or(ENODEV)"));
        assert!(!g("Clk::get(dev, None)"));
    }
}
