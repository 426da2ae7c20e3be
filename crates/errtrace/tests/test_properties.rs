//! Property tests: errno round-trips, trails, and the control language.

use errtrace::code::Code;
use errtrace::{Error, ResultExt};
use proptest::prelude::*;

proptest! {
    #[test]
    fn errno_round_trips(v in 1i32..=4095) {
        let c = Code::from_errno(-v).unwrap();
        prop_assert_eq!(c.to_errno(), -v);
        prop_assert_eq!(Code::from_errno(v).unwrap(), c);
        let e = Error::from_errno(-v).unwrap();
        prop_assert_eq!(e.to_errno(), -v);
        e.handled();
        if c.name() != "E?" {
            prop_assert_eq!(Code::from_name(c.name()), Some(c));
        }
    }

    #[test]
    fn out_of_range_errnos_are_rejected(v in prop_oneof![i32::MIN..=-4096, Just(0), 4096..=i32::MAX]) {
        prop_assert!(Code::from_errno(v).is_err());
        prop_assert!(Error::from_errno(v).is_err());
    }

    /// Any sequence of hops (some with messages): the report lists the kept ones in order and
    /// counts the rest.
    #[test]
    fn trail_lists_hops_in_order_and_counts_overflow(kinds in proptest::collection::vec(0u8..3, 0..40)) {
        const MSGS: [&str; 3] = ["", "first context", "second context"];
        let mut r: errtrace::Result = Err(Error::new(errtrace::code::EIO));
        let mut expected = Vec::new();
        for k in &kinds {
            r = match k {
                0 => r.trace(),
                1 => r.during(MSGS[1]),
                _ => r.during(MSGS[2]),
            };
            expected.push(*k);
        }
        let e = r.unwrap_err();
        let ev = e.event().unwrap();
        prop_assert_eq!(ev.total_hops() as usize, kinds.len());
        let kept: Vec<_> = ev.hops().collect();
        let n = kinds.len().min(errtrace::config::HOPS);
        prop_assert_eq!(kept.len(), n);
        for (hop, k) in kept.iter().zip(&expected) {
            let want = if *k == 0 { None } else { Some(MSGS[*k as usize]) };
            prop_assert_eq!(hop.message, want);
        }
        let report = e.report().to_string();
        let vias = report.lines().filter(|l| l.starts_with("  via:")).count();
        prop_assert_eq!(vias, n);
        if kinds.len() > errtrace::config::HOPS {
            let more = format!("(+{} more hops)", kinds.len() - errtrace::config::HOPS);
            prop_assert!(report.contains(&more), "{}", report);
        } else {
            prop_assert!(!report.contains("more hops"));
        }
        e.handled();
    }
}

/// The control language's parser (the `control` feature).
#[cfg(feature = "control")]
mod control_language {
    use errtrace::code::Code;
    use errtrace::control::query::{self, Command};
    use proptest::prelude::*;

    proptest! {
        /// The parser never panics, whatever the input.
        #[test]
        fn parser_never_panics(input in "\\PC{0,200}") {
            let _ = query::parse(&input, |_| {});
        }

        /// Token soup from the language's own words never panics either, and errors point inside
        /// the input.
        #[test]
        fn parser_token_soup(words in proptest::collection::vec(prop_oneof![
            Just("file"), Just("func"), Just("module"), Just("line"), Just("code"), Just("format"),
            Just("fail"), Just("+p"), Just("-p"), Just("=_"), Just("=pflmtsh"), Just("once"),
            Just("quiet"), Just("ratelimit=10/5s"), Just("name=x"), Just("times=-1"),
            Just("10-20"), Just("EINVAL"), Just("*bus*"), Just(";"), Just("\n"), Just("\"a b\""),
        ], 0..20)) {
            let input = words.join(" ");
            if let Err(e) = query::parse(&input, |_| {}) {
                prop_assert!(e.line >= 1 && e.column >= 1);
                prop_assert!(e.line <= input.lines().count().max(1) + 1);
            }
        }

        /// Printing a generated site query and parsing it back gives the same query.
        #[test]
        fn site_queries_round_trip(
            file in proptest::option::of("[a-z*?/]{1,12}"),
            func in proptest::option::of("[a-z_*]{1,12}"),
            lines in proptest::option::of((0u32..1000, 0u32..1000)),
            code in proptest::option::of(1u16..=133),
            flags in proptest::option::of(("[-+=]", "[pflmtsh_]{1,7}")),
            policy in proptest::option::of(0u8..5),
        ) {
            let mut text = String::new();
            if let Some(f) = &file { text += &format!("file {f} "); }
            if let Some(f) = &func { text += &format!("func {f} "); }
            let lines = lines.map(|(a, b)| (a.min(b), a.max(b)));
            if let Some((a, b)) = lines { text += &format!("line {a}-{b} "); }
            let code = code.and_then(Code::new).filter(|c| c.name() != "E?");
            if let Some(c) = code { text += &format!("code {} ", c.name()); }
            let policy_word = policy.map(|p| ["once", "quiet", "always", "debug", "ratelimit=3/250ms"][p as usize]);
            let flags_word = flags.map(|(op, f)| format!("{op}{f}"));
            if flags_word.is_none() && policy_word.is_none() { text += "+p"; }
            if let Some(f) = &flags_word { text += f; text += " "; }
            if let Some(p) = policy_word { text += p; }
            let mut got = Vec::new();
            query::parse(&text, |c| got.push(c)).unwrap();
            prop_assert_eq!(got.len(), 1);
            let Command::Site(q) = got[0] else { panic!("not a site query") };
            prop_assert_eq!(q.file.map(|p| p.as_str().to_string()), file);
            prop_assert_eq!(q.func.map(|p| p.as_str().to_string()), func);
            prop_assert_eq!(q.lines, lines);
            prop_assert_eq!(q.code, code);
            prop_assert_eq!(q.policy.is_some(), policy_word.is_some());
        }
    }
}
