//! One fixture per finding kind and per "logged" idiom: positive and negative cases.

mod common;

use errtrace_audit::Kind;

/// (file, silent-chain, discarded, swallowed, panic, parse errors, `?`, log calls)
type Row = (&'static str, u64, u64, u64, u64, u64, u64, u64);

const EXPECTED: &[Row] = &[
    ("silent_chain.rs", 2, 0, 0, 0, 0, 3, 0),
    ("rethrow.rs", 1, 0, 0, 0, 0, 0, 0),
    ("loop_rethrow.rs", 1, 0, 0, 0, 0, 1, 0),
    ("pin_init.rs", 1, 0, 0, 0, 0, 1, 0),
    ("allocation_reported.rs", 1, 0, 0, 0, 0, 5, 0),
    ("allocation_null.rs", 1, 0, 0, 0, 0, 1, 0),
    ("allocation_gfp.rs", 1, 0, 0, 0, 0, 3, 0),
    ("c_side_prints.rs", 2, 0, 0, 0, 0, 12, 0),
    ("deferral.rs", 2, 0, 0, 0, 0, 4, 0),
    ("restart.rs", 1, 0, 0, 0, 0, 1, 0),
    ("enomem_bound_check.rs", 1, 0, 0, 0, 0, 4, 0),
    ("overflow_guard.rs", 1, 0, 0, 0, 0, 7, 0),
    ("pin_init_infallible.rs", 1, 0, 0, 0, 0, 3, 0),
    ("option_closure.rs", 0, 0, 0, 0, 0, 3, 0),
    ("boundaries.rs", 2, 0, 0, 0, 0, 3, 0),
    ("main_boundary.rs", 1, 0, 0, 0, 0, 1, 0),
    ("export_name_rust.rs", 0, 0, 0, 0, 0, 2, 0),
    ("c_shim.rs", 1, 0, 0, 0, 0, 1, 1),
    ("user_space_entry.rs", 2, 0, 0, 0, 0, 3, 0),
    ("drm_ioctls.rs", 0, 0, 0, 0, 0, 0, 0),
    ("driver_callbacks.rs", 1, 0, 0, 0, 0, 2, 0),
    ("vtable_callbacks.rs", 0, 0, 0, 0, 0, 3, 0),
    ("dyn_dispatch.rs", 3, 0, 0, 0, 0, 4, 0),
    ("returned_foreign_call.rs", 2, 0, 0, 0, 0, 3, 0),
    ("subsystem_prints.rs", 1, 0, 0, 0, 0, 3, 0),
    ("result_local.rs", 3, 0, 0, 0, 0, 9, 1),
    ("lock_contents.rs", 1, 0, 0, 0, 0, 4, 1),
    ("pin_chain.rs", 2, 0, 0, 0, 0, 3, 0),
    ("pin_init_scope.rs", 4, 0, 0, 0, 0, 5, 0),
    ("value_type.rs", 2, 0, 0, 0, 0, 4, 1),
    ("allocation_forms.rs", 2, 0, 0, 0, 0, 9, 0),
    ("generic_bound.rs", 1, 0, 0, 0, 0, 1, 0),
    ("dyn_field.rs", 1, 0, 0, 0, 0, 3, 0),
    ("err_macro_quiet.rs", 1, 0, 0, 0, 0, 2, 0),
    ("logged_before.rs", 0, 0, 0, 0, 0, 1, 1),
    ("logged_then_left.rs", 2, 0, 0, 0, 0, 7, 3),
    ("and_then_closure.rs", 1, 0, 0, 0, 0, 4, 1),
    ("macro_made_impls.rs", 3, 0, 0, 0, 0, 2, 0),
    ("kernel_crate_own_traits.rs", 0, 1, 0, 0, 0, 1, 0),
    ("held_match.rs", 3, 0, 0, 0, 0, 3, 1),
    ("inherent_first.rs", 1, 0, 0, 0, 0, 1, 0),
    ("user_memory_callback.rs", 0, 0, 0, 0, 0, 0, 0),
    ("logged_value_before.rs", 1, 0, 0, 0, 0, 5, 3),
    ("logged_too_early.rs", 2, 0, 0, 0, 0, 2, 1),
    ("logged_debug_only.rs", 2, 0, 0, 0, 0, 1, 0),
    ("logged_inspect_err.rs", 0, 0, 0, 0, 0, 2, 1),
    ("logged_map_err.rs", 0, 0, 0, 0, 0, 1, 1),
    ("logged_log_method.rs", 0, 0, 0, 0, 0, 2, 2),
    ("logged_not_expected.rs", 0, 0, 0, 0, 0, 1, 2),
    ("logged_wrapper_macro.rs", 0, 0, 0, 0, 0, 1, 1),
    ("logged_err_macro.rs", 0, 0, 0, 0, 0, 1, 2),
    ("discarded.rs", 0, 5, 0, 0, 0, 0, 0),
    ("discarded_ok.rs", 0, 0, 0, 0, 0, 0, 0),
    ("discarded_acknowledged.rs", 0, 5, 0, 0, 0, 0, 0),
    ("init_arg.rs", 1, 0, 0, 0, 0, 3, 0),
    ("initialiser_runner.rs", 2, 0, 0, 0, 0, 9, 0),
    ("transpose_closure.rs", 2, 0, 0, 0, 0, 2, 0),
    ("cfg_alternatives.rs", 1, 0, 0, 0, 0, 1, 0),
    ("field_of_field.rs", 1, 0, 0, 0, 0, 3, 0),
    ("loop_items.rs", 0, 1, 0, 0, 0, 0, 0),
    ("log_before_exit.rs", 3, 0, 0, 0, 0, 5, 4),
    ("init_unsafe_block.rs", 1, 0, 0, 0, 0, 0, 0),
    ("scope_return.rs", 1, 0, 0, 0, 0, 0, 0),
    ("static_receiver.rs", 2, 0, 0, 0, 0, 2, 0),
    ("enum_variant.rs", 2, 0, 0, 0, 0, 1, 0),
    ("receiver_forms.rs", 3, 0, 0, 0, 0, 9, 0),
    ("iterator_item.rs", 1, 0, 0, 0, 0, 2, 1),
    ("discarded_acknowledged_here_only.rs", 0, 3, 0, 0, 0, 0, 0),
    ("discarded_self_logging.rs", 0, 2, 0, 0, 0, 1, 3),
    ("swallowed.rs", 0, 0, 7, 0, 0, 0, 0),
    ("swallowed_ok.rs", 0, 0, 0, 0, 0, 0, 3),
    ("swallowed_c_abi.rs", 0, 0, 1, 0, 0, 0, 0),
    ("swallowed_into_none.rs", 0, 0, 1, 1, 0, 2, 1),
    ("swallowed_build_error.rs", 0, 0, 0, 0, 0, 0, 0),
    ("handled_const_pattern.rs", 0, 0, 0, 0, 0, 0, 0),
    ("unsafe_value.rs", 2, 0, 0, 0, 0, 3, 0),
    ("pin_init_method_initialiser.rs", 2, 0, 0, 0, 0, 3, 0),
    ("index_receiver.rs", 2, 0, 0, 0, 0, 7, 0),
    ("errtrace_boundary.rs", 0, 0, 0, 0, 0, 3, 0),
    ("handled_code_arm.rs", 2, 0, 0, 0, 0, 5, 0),
    ("assoc_param_receiver.rs", 0, 1, 0, 0, 0, 0, 0),
    ("if_let_ok.rs", 0, 0, 1, 0, 0, 1, 4),
    ("alloc_error_ok_or.rs", 1, 0, 0, 0, 0, 4, 0),
    ("init_method_field.rs", 1, 0, 0, 0, 0, 2, 0),
    ("progress_log_before.rs", 1, 0, 0, 0, 0, 2, 2),
    ("unrevoked_access.rs", 1, 0, 0, 0, 0, 4, 0),
    ("phy_callbacks.rs", 1, 0, 0, 0, 0, 3, 0),
    ("try_pin_init_tail.rs", 0, 0, 0, 0, 0, 0, 0),
    ("panic.rs", 0, 0, 0, 5, 0, 0, 0),
    ("panic_ok.rs", 0, 0, 0, 0, 0, 0, 0),
    ("panic_no_std.rs", 0, 0, 0, 1, 0, 0, 0),
    ("question_marks.rs", 0, 0, 0, 0, 0, 4, 0),
    ("macro_fallback.rs", 0, 0, 0, 0, 0, 1, 0),
    ("suppressed.rs", 0, 0, 0, 0, 0, 0, 0),
    ("parse_error.rs", 0, 0, 0, 0, 1, 0, 0),
];

#[test]
fn every_fixture_has_an_expectation() {
    let mut on_disk: Vec<String> = std::fs::read_dir(common::fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".rs"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = EXPECTED.iter().map(|e| e.0.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn fixtures_give_the_expected_findings() {
    let mut failures = Vec::new();
    for &(file, chains, discarded, swallowed, panics, parse_errors, qm, logs) in EXPECTED {
        let r = common::audit_fixture(file);
        let got = (
            r.count(Kind::SilentChain),
            r.count(Kind::Discarded),
            r.count(Kind::Swallowed),
            r.count(Kind::Panic),
            r.parse_errors.len() as u64,
            r.summary.question_marks,
            r.summary.log_calls,
        );
        let want = (chains, discarded, swallowed, panics, parse_errors, qm, logs);
        if got != want {
            failures.push(format!("{file}: got {got:?}, want {want:?}\n{:#?}", r.findings));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn silent_chain_carries_the_chain_to_the_boundary() {
    let r = common::audit_fixture("silent_chain.rs");
    let f = r
        .findings
        .iter()
        .find(|f| f.function == "silent_chain::read_reg")
        .expect("a finding at the origin in read_reg");
    assert_eq!((f.line, f.kind), (8, Kind::SilentChain));
    let steps: Vec<(u32, &str)> = f.chain.iter().map(|s| (s.line, s.function.as_str())).collect();
    assert_eq!(
        steps,
        vec![
            (8, "silent_chain::read_reg"),
            (13, "silent_chain::setup"),
            (24, "silent_chain::Sample::init")
        ]
    );
    let b = f.boundary.as_ref().unwrap();
    assert_eq!(
        (b.function.as_str(), b.kind.as_str()),
        ("silent_chain::Sample::init", "module init")
    );
}

#[test]
fn suppression_is_counted() {
    let r = common::audit_fixture("suppressed.rs");
    assert_eq!(r.summary.suppressed, 2);
    assert!(r.findings.is_empty());
}

#[test]
fn parse_errors_have_positions_and_the_audit_goes_on() {
    let r = common::audit_path(&common::fixtures());
    assert_eq!(r.parse_errors.len(), 1);
    let e = &r.parse_errors[0];
    assert_eq!((e.file.as_str(), e.line), ("parse_error.rs", 3));
    assert!(e.column > 1);
    assert!(r.findings.len() > 10, "the other files were audited");
}

/// `panic` findings are opt-in (on a real driver 18 of 18 reported
/// `.unwrap()`s were guarded by an invariant, and clippy already points at them).
#[test]
fn panic_findings_are_off_by_default() {
    let r = common::audit_with(
        &common::fixtures().join("panic.rs"),
        errtrace_audit::Config::default(),
    );
    assert_eq!(r.count(Kind::Panic), 0);
    assert!(!r.panics_checked);
    let on = common::audit_fixture("panic.rs");
    assert_eq!(on.count(Kind::Panic), 5);
    assert!(on.panics_checked);
}

/// Four of the eight discards in `discarded_acknowledged.rs` are explained by a comment (issue
/// 15, item 3: such a `let _ =` was a plain finding), one of them over several lines; a `TODO`,
/// a `FIXME` or one word is not a reason ("// TODO: handle this"
/// acknowledged a discard), nor a comment on what the statement does that says nothing of its
/// failure (Rust binder's "Decrement ref count on the handle we just created.", measured blind).
#[test]
fn explained_discards_are_acknowledged() {
    let r = common::audit_fixture("discarded_acknowledged.rs");
    assert_eq!(r.summary.acknowledged, 4);
    assert_eq!(r.count(Kind::Discarded), 5);
}

/// An errno that leaves through an entry point from user space (a `file_operations` member) is
/// the system call's result: counted, listed only with `user_space` (binder's
/// 27 chains of user input and permission errnos to its ioctl/mmap/open). `release` is not such
/// an entry, and an origin that also reaches module init is reported there.
#[test]
fn errnos_returned_to_user_space_are_counted_apart() {
    let r = common::audit_fixture("user_space_entry.rs");
    assert_eq!(r.summary.returned_to_user, 1, "{:#?}", r.findings);
    assert!(!r.user_space_listed);
    let at = |r: &errtrace_audit::Report, line: u32| {
        r.findings
            .iter()
            .find(|f| f.line == line)
            .map(|f| f.boundary.clone().unwrap())
    };
    assert_eq!(at(&r, 8), None, "EINVAL for the caller's cmd is not listed");
    let setup = at(&r, 14).unwrap();
    assert_eq!(setup.kind, "module init");
    assert!(!setup.user_space);
    let release = at(&r, 31).unwrap();
    assert_eq!(release.kind, "exported extern function");

    let config = errtrace_audit::Config {
        user_space: true,
        ..Default::default()
    };
    let listed = common::audit_with(&common::fixtures().join("user_space_entry.rs"), config);
    assert!(listed.user_space_listed);
    let ioctl = at(&listed, 8).unwrap();
    assert_eq!(ioctl.kind, "file operation");
    assert!(ioctl.user_space);
    assert!(ioctl.fate.contains("system call's result"), "{}", ioctl.fate);
}

/// A free function on user memory handed to the kernel crate as a callback (a debugfs write
/// callback) is an entry point from user space; the same signature called directly is not
/// (the Rust debugfs samples, measured blind).
#[test]
fn user_memory_callbacks_are_entry_points_from_user_space() {
    let r = common::audit_fixture("user_memory_callback.rs");
    assert_eq!(r.summary.returned_to_user, 1, "{:#?}", r.findings);
    let config = errtrace_audit::Config {
        user_space: true,
        ..Default::default()
    };
    let listed = common::audit_with(&common::fixtures().join("user_memory_callback.rs"), config);
    let lines: Vec<(u32, String)> = listed
        .findings
        .iter()
        .map(|f| (f.line, f.boundary.clone().map(|b| b.kind).unwrap_or_default()))
        .collect();
    assert_eq!(
        lines,
        [(10, "file operation".to_string())],
        "{:#?}",
        listed.findings
    );
}

/// configfs's registration form (a `#[vtable] impl` of `AttributeOperations` or
/// `GroupOperations`) is an entry point from user space: an attribute's `store` and a group's
/// `make_group` hand the errno to write(2) and mkdir(2), listed with `user_space`; a block-mq
/// `queue_rq`, whose failure the block layer prints, is not an entry point.
#[test]
fn configfs_operations_are_entry_points_from_user_space() {
    let r = common::audit_fixture("vtable_callbacks.rs");
    assert_eq!(r.summary.returned_to_user, 2, "{:#?}", r.findings);
    let config = errtrace_audit::Config {
        user_space: true,
        ..Default::default()
    };
    let listed = common::audit_with(&common::fixtures().join("vtable_callbacks.rs"), config);
    let entries: Vec<(u32, String, bool)> = listed
        .findings
        .iter()
        .filter_map(|f| f.boundary.clone().map(|b| (f.line, b.kind, b.user_space)))
        .collect();
    assert_eq!(
        entries,
        [
            (5, "configfs operation".to_string(), true),
            (9, "configfs operation".to_string(), true)
        ],
        "{:#?}",
        listed.findings
    );
}

/// A method called through `&dyn Trait` is followed into every in-tree implementation of the
/// trait, and each finding names the implementation its error comes from; same-named methods
/// of unrelated types stay unresolved (nova-core's `fb_hal(chipset)` calls).
#[test]
fn calls_through_dyn_trait_follow_every_implementation() {
    let r = common::audit_fixture("dyn_dispatch.rs");
    let origins: Vec<(u32, String)> = r.findings.iter().map(|f| (f.line, f.function.clone())).collect();
    assert_eq!(
        origins,
        [
            (14, "dyn_dispatch::Tu102::flush_page".to_string()),
            (22, "dyn_dispatch::Ga100::flush_page".to_string()),
            (63, "dyn_dispatch::Other::probe".to_string()),
        ],
        "{:#?}",
        r.findings
    );
}

/// `.ok()` on a callee that reports its own failure (an allocation: the allocator warns) loses
/// nothing; on a lookup that fails without a word it does (rcpufreq_dt's
/// `CString::try_from_fmt(…).ok()`, false in the blind run on Linux 7.3).
#[test]
fn ok_on_an_allocation_is_not_swallowed() {
    let root = common::fixtures()
        .parent()
        .unwrap()
        .join("fixtures-trees/swallowed_allocation");
    let r = common::audit_with(&root, errtrace_audit::Config::default());
    let m: Vec<&str> = r.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("supply::lookup"), "{m:?}");
}

/// A log earlier in the block covers an error made after it only until a way out in between
/// (a `pr_info!` at the top of a probe hid an `ok_or(ENXIO)?` three
/// statements and one `?` later, in a driver measured blind), for a block's tail too; a method
/// chain's error is reported at the method that makes it (Tyr's `preallocated_gpuva`).
#[test]
fn a_log_before_a_way_out_does_not_cover_a_later_error() {
    assert_finding_lines("log_before_exit.rs", &[24, 32, 40]);
}

/// `field <- unsafe { Registration::new(…) }` in a pin-init literal fails with the call's
/// error, as without the block (the IRQ registration of a PCI DRM driver measured
/// blind was not reported).
#[test]
fn an_initialiser_in_an_unsafe_block_fails_with_its_call() {
    assert_finding_lines("init_unsafe_block.rs", &[16]);
}

/// `return Err(…)` in a pin-init scope's closure fails the function's initialiser (a UART driver's probe, measured blind, returned `EINVAL` there unreported).
#[test]
fn a_return_in_a_pin_init_scope_leaves_the_function() {
    assert_finding_lines("scope_return.rs", &[13]);
}

/// `.ok()` drops an errno only when the failing function's error is one: a function of a crate
/// not written against the kernel crate (zerocopy, vendored in Linux 7.3's `rust/`) fails with
/// its own error type (nova-core's `read_from_prefix(…).ok()`, reported once
/// the compiler's facts resolved it into zerocopy).
#[test]
fn ok_on_an_error_that_is_no_errno_is_not_swallowed() {
    let root = common::fixtures()
        .parent()
        .unwrap()
        .join("fixtures-trees/ok_foreign_error");
    let r = common::audit_with(&root, errtrace_audit::Config::default());
    let at: Vec<(&str, u32)> = r.findings.iter().map(|f| (f.file.as_str(), f.line)).collect();
    assert_eq!(at, [("drivers/vbios.rs", 20)], "{:#?}", r.findings);
}

/// A comment acknowledges the discard it sits on, not every discard of that function in the
/// crate (one comment next to one `let _ = push_work(…)` in Rust binder hid
/// every other discard of `push_work`, an uncommented one in `init` among them).
#[test]
fn a_comment_acknowledges_only_its_own_discard() {
    let r = common::audit_fixture("discarded_acknowledged_here_only.rs");
    assert_eq!(r.summary.acknowledged, 1, "{:#?}", r.findings);
    let lines: Vec<u32> = r.findings.iter().map(|f| f.line).collect();
    assert_eq!(lines, [26, 27, 28], "{:#?}", r.findings);
}

/// Errors made where a C allocator's null is checked, or named `ENOMEM`, are the allocator's to
/// report; the `EBUSY` of a lookup's null still is a silent origin.
#[test]
fn allocation_failures_are_not_silent_origins() {
    let r = common::audit_fixture("allocation_null.rs");
    let chains: Vec<u32> = r.findings.iter().map(|f| f.line).collect();
    assert_eq!(chains, [17], "{:#?}", r.findings);
}

/// A chain from an error made in the source names its errno when the source does (the message said only "error made here").
#[test]
fn made_errors_name_their_errno() {
    let r = common::audit_fixture("silent_chain.rs");
    assert!(
        r.findings
            .iter()
            .any(|f| f.message.starts_with("error EINVAL made here and returned")),
        "{:#?}",
        r.findings
    );
}

/// The chain of `pin_init.rs` runs from `Regs::new` through `Drv::new` (the `<-` of
/// `try_pin_init!`) to the probe (`KBox::pin_init(Drv::new(), …)?`) (both
/// idioms ended chains).
#[test]
fn pin_init_idioms_are_hops() {
    let r = common::audit_fixture("pin_init.rs");
    let chains: Vec<Vec<String>> = r
        .findings
        .iter()
        .map(|f| f.chain.iter().map(|s| s.function.clone()).collect())
        .collect();
    assert_eq!(
        chains,
        vec![vec![
            "pin_init::Regs::new".to_string(),
            "pin_init::Drv::new".to_string(),
            "pin_init::Drv::probe".to_string()
        ]],
        "{:#?}",
        r.findings
    );
}

/// An origin that reaches several boundaries is one finding, at its nearest boundary, naming
/// the others (on Linux 6.12 every PHY origin was reported twice: at the driver's callback and
/// at the adapter that calls it).
#[test]
fn one_finding_per_origin() {
    let r = common::audit_fixture("driver_callbacks.rs");
    assert_eq!(r.count(Kind::SilentChain), 1);
    let f = &r.findings[0];
    assert_eq!(f.also_reaches.len(), 1, "{f:#?}");
}

/// `.ok()` is a swallow only in a crate written against the kernel crate: elsewhere it is the
/// everyday conversion (`s.parse().ok()`; 236 of them in 4.6 M lines of crates.io code).
#[test]
fn into_none_counts_only_in_kernel_crates() {
    let text = std::fs::read_to_string(common::fixtures().join("swallowed_into_none.rs")).unwrap();
    let config = errtrace_audit::Config::default();
    let kernel = errtrace_audit::audit_sources(&[("lib.rs", &text)], &config);
    assert_eq!(kernel.count(Kind::Swallowed), 1);
    let plain = text.replace("use kernel::prelude::*;", "");
    let user = errtrace_audit::audit_sources(&[("lib.rs", &plain)], &config);
    assert_eq!(user.count(Kind::Swallowed), 0, "{:#?}", user.findings);
}

/// The one origin of each allocation fixture is the one the allocator does not report, or the
/// initialiser that can fail (binder's `ListLinks::new()` and
/// `RBTreeNodeReservation::new(GFP_KERNEL)` were blamed).
#[test]
fn only_the_fallible_initialiser_and_the_nowarn_allocation_are_origins() {
    let r = common::audit_fixture("pin_init_infallible.rs");
    let at: Vec<(u32, &str)> = r.findings.iter().map(|f| (f.line, f.message.as_str())).collect();
    assert_eq!(at.len(), 1, "{at:?}");
    assert_eq!(at[0].0, 35, "{at:?}");
    assert!(at[0].1.contains("Firmware::load"), "{at:?}");
    let r = common::audit_fixture("allocation_gfp.rs");
    let at: Vec<(u32, &str)> = r.findings.iter().map(|f| (f.line, f.message.as_str())).collect();
    assert_eq!(at.len(), 1, "{at:?}");
    assert!(at[0].1.contains("Pages::alloc"), "{at:?}");
}

/// A discarded result of a function that logs each of its failures loses nothing (Tyr's five `let _ = pt_unmap(…)` on clean-up paths), through `let _ =` or `.ok();`
/// (`.ok();` was reported where `let _ =` was not); one that does not log is
/// still a finding, either way.
#[test]
fn discards_of_self_logging_functions_are_not_findings() {
    let r = common::audit_fixture("discarded_self_logging.rs");
    let d: Vec<(u32, &str)> = r.findings.iter().map(|f| (f.line, f.message.as_str())).collect();
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(d.iter().all(|(_, m)| m.contains("unmap_quiet")), "{d:?}");
    assert!(
        d[0].1.starts_with("`let _ =`") && d[1].1.starts_with("`.ok();`"),
        "{d:?}"
    );
}

/// A DRM driver's ioctl handlers, registered with `declare_drm_ioctls!`, are entry points from
/// user space (nova's and Tyr's ioctls were no boundary, so their errors
/// reached none).
#[test]
fn drm_ioctls_are_entry_points_from_user_space() {
    let r = common::audit_fixture("drm_ioctls.rs");
    assert_eq!(r.summary.returned_to_user, 1, "{:#?}", r.findings);
}

/// Overflow and conversion guards are counted, and listed with `guards` (measured blind on Tyr and nova-core, their seven such chains were all unreachable).
#[test]
fn overflow_guards_are_counted_apart() {
    let r = common::audit_fixture("overflow_guard.rs");
    assert_eq!(r.summary.guards, 3, "{:#?}", r.findings);
    let listed: Vec<u32> = r.findings.iter().map(|f| f.line).collect();
    assert_eq!(listed, [16], "the domain conversion is listed");
    let config = errtrace_audit::Config {
        guards: true,
        ..Default::default()
    };
    let all = common::audit_with(&common::fixtures().join("overflow_guard.rs"), config);
    assert!(all.guards_listed);
    let mut lines: Vec<(u32, bool)> = all.findings.iter().map(|f| (f.line, f.guard)).collect();
    lines.sort();
    assert_eq!(lines, [(6, true), (11, true), (12, true), (16, false)]);
}

/// The chains of `c_side_prints.rs` are the registration whose C side prints nothing and the
/// errno of `device_add`, which prints nothing either; `__auxiliary_device_add`'s errno, made
/// in the tree through `to_result` or `Error::from_errno`, was printed by C (measured blind:
/// seven chains on Linux 6.12 drivers, and the auxiliary sample of Linux 7.3).
#[test]
fn calls_whose_c_side_prints_are_not_origins() {
    let r = common::audit_fixture("c_side_prints.rs");
    let m: Vec<&str> = r.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(m[0].contains("soc::Registration::new"), "{m:?}");
    assert_eq!(r.findings[1].line, 60, "device_add's to_result: {m:?}");
}

/// A deferral handed back on purpose is not a silent origin (rcpufreq_dt, measured
/// blind); the origins left are the fallback `Table::from_dev`, returned as the `Err` arm's
/// value, and the OPP config's `set`.
#[test]
fn deferrals_are_not_origins() {
    let r = common::audit_fixture("deferral.rs");
    let m: Vec<&str> = r.findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(m[0].contains("Table::from_dev"), "{m:?}");
    assert!(m[1].contains(".set"), "{m:?}");
}

/// pin-init's scope, a block initialiser, a field in scope in a pin-init literal and a lock's
/// contents held in a local: each finding names the real origin (measured blind on Linux 7.3's
/// samples and nova-core, where they stopped at `pin_init_scope`, `.boot` and `.send`).
#[test]
fn pin_init_forms_name_the_origin() {
    assert_finding_lines("pin_init_scope.rs", &[18, 34, 59, 84]);
}

/// A method on a local holding a call's value is the method of the type the call returns:
/// the silent implementation of the returned trait and the concrete type's method are the
/// origins, not "`.boot` (3 in-tree candidates, not resolved)" (nova-core's HAL, measured
/// blind).
#[test]
fn methods_on_a_calls_value_follow_its_type() {
    assert_finding_lines("value_type.rs", &[13, 36]);
}

/// Allocations written as `NonNull::new(p).ok_or(ENOMEM)?` and `Coherent::init(dev,
/// GFP_KERNEL, value)` are the allocator's to report; `alloc_io_pgtable_ops`'s NULL and an
/// initialiser's own `Err` are not (measured blind on nova-core and Tyr).
#[test]
fn allocation_forms_are_not_origins() {
    assert_finding_lines("allocation_forms.rs", &[23, 32]);
}

/// `T::m()` with `T: Driver` reaches the `Driver` impls only.
#[test]
fn generic_calls_follow_the_bound() {
    assert_finding_lines("generic_bound.rs", &[27]);
}

/// A field holding `KBox<dyn FalconHal>` dispatches to the trait's implementations (the trait
/// named through a `use`): the finding names the silent one's `Err`, not "3 in-tree candidates,
/// not resolved" (nova-core's falcon HAL, measured blind).
#[test]
fn trait_object_fields_dispatch_to_the_trait() {
    assert_finding_lines("dyn_field.rs", &[26]);
}

/// A fallible initialiser passed where the callee takes `impl PinInit<T, E>` fails through that
/// call: the finding names its `Err` (Linux 7.3's I²C registration, measured blind on the
/// samples with the kernel crate); an argument of a plain value parameter does not.
#[test]
fn initialiser_arguments_are_followed() {
    assert_finding_lines("init_arg.rs", &[23]);
}

/// A method on a `static` is its declared type's: the in-tree `Shrinker::register` through
/// `SHRINKER`, and `FAMILY.register()` a call out of the tree, not the crate's only `register`
/// (Rust binder's init, measured blind).
#[test]
fn methods_on_statics_follow_the_declared_type() {
    assert_finding_lines("static_receiver.rs", &[14, 27]);
}

/// The lines of a fixture's findings, in order, are `want` (each finding at its real origin).
/// `this: Pin<&Self::Data<'_>>` in a trait impl is the type the impl names for `Data`.
#[test]
fn a_parameter_of_an_associated_type_calls_the_named_types_methods() {
    assert_finding_lines("assoc_param_receiver.rs", &[23]);
}

/// `if let Ok(…) = f()` without `else` drops `f`'s error as `.ok()` does.
#[test]
fn if_let_ok_without_else_swallows_the_error() {
    assert_finding_lines("if_let_ok.rs", &[23]);
}

/// A progress line (`dev_info!`) before an error does not log it; an error line does.
#[test]
fn a_progress_line_logs_no_later_error() {
    assert_finding_lines("progress_log_before.rs", &[14]);
}

/// A `Devres` made in the same probe cannot be revoked yet: its access is a check that cannot
/// fail, counted and not listed; in a file operation it can fail.
#[test]
fn an_access_to_a_devres_made_in_the_probe_cannot_fail() {
    assert_finding_lines("unrevoked_access.rs", &[13]);
    let r = common::audit_fixture("unrevoked_access.rs");
    assert_eq!(r.summary.cannot_fail, 1);
    assert_eq!(r.summary.returned_to_user, 1, "the ioctl's access can fail");
}

/// phylib prints a failing `config_aneg` or `read_status`, the MAC driver a failing `soft_reset`;
/// nobody a failing `get_features`.
#[test]
fn phylib_prints_what_its_state_machine_calls() {
    assert_finding_lines("phy_callbacks.rs", &[24]);
}

/// `KBox::try_pin_init(…)` of an initialiser that cannot fail fails only by allocating.
#[test]
fn try_pin_init_of_an_infallible_initialiser_only_allocates() {
    let config = errtrace_audit::Config {
        user_space: true,
        ..Default::default()
    };
    let r = common::audit_with(&common::fixtures().join("try_pin_init_tail.rs"), config);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
}

/// `ok_or(AllocError)` after an allocator is the allocation's failure; `ok_or(EINVAL)` is not.
#[test]
fn ok_or_alloc_error_is_an_allocations_failure() {
    assert_finding_lines("alloc_error_ok_or.rs", &[16]);
}

/// A `<-` field initialiser that is a method call fails the literal's initialiser.
#[test]
fn a_method_call_field_initialiser_is_an_origin() {
    assert_finding_lines("init_method_field.rs", &[16]);
}

fn assert_finding_lines(fixture: &str, want: &[u32]) {
    let r = common::audit_fixture(fixture);
    let lines: Vec<u32> = r.findings.iter().map(|f| f.line).collect();
    assert_eq!(lines, want, "{fixture}: {:?}", r.findings);
}

/// A `for` loop over a collection field types the names its pattern binds by the element's
/// types: the discard of `proc.push_work(msg)` is `Process`'s (Rust binder, measured blind).
#[test]
fn loop_items_have_the_collections_element_types() {
    assert_finding_lines("loop_items.rs", &[31]);
}

/// A receiver that is a field of a field has the inner field's declared type: the error is
/// found in `Process::update_ref`, not reported at the call as "not resolved".
#[test]
fn a_field_of_a_field_is_typed() {
    assert_finding_lines("field_of_field.rs", &[10]);
}

/// A function written twice in one file for different `#[cfg]`s is followed into each: the
/// error is found where one of them makes it, not at the call as "not resolved" (the kernel
/// crate's `debugfs::Scope::new`, measured blind).
#[test]
fn cfg_alternatives_are_each_followed() {
    assert_finding_lines("cfg_alternatives.rs", &[11]);
}

/// `opt.map(|x| f(x)).transpose()?` fails with the closure's value: the origin is `f`'s, not the
/// `transpose` (rcpufreq-dt's `init`, measured blind).
#[test]
fn a_transposed_option_fails_with_its_closures_error() {
    assert_finding_lines("transpose_closure.rs", &[10, 18]);
}

/// `pin_init::raw_try_init` fails with its initialiser's error: through `command.init()` and
/// the trait's impls, where `Self::Payload::init` is the type the impl names and an impl with
/// `type InitError = Infallible;` cannot fail; and, for the function's own initialiser
/// parameter, its callers' (nova-core's `send_command` and the kernel crate's
/// `write_pin_init`, measured blind). Nothing is made at the runners (lines 34 and 67).
#[test]
fn an_initialiser_runner_fails_with_its_initialisers_error() {
    assert_finding_lines("initialiser_runner.rs", &[15, 27]);
    let r = common::audit_fixture("initialiser_runner.rs");
    let through_send = r
        .findings
        .iter()
        .find(|f| f.line == 15)
        .is_some_and(|f| f.chain.iter().any(|s| s.function.ends_with("SetInfo::init")));
    assert!(through_send, "{:?}", r.findings);
}

/// A log in a block that returns, or attached to a `?`'s error, does not credit what follows;
/// a log in a block that goes on does (nova-core's FWSEC signature and bootloader, measured
/// blind).
#[test]
fn a_log_on_the_way_out_logs_only_that_way() {
    assert_finding_lines("logged_then_left.rs", &[12, 20]);
}

/// An `and_then` closure that makes an error is an origin at the `?`, beside the receiver's
/// (logged) error; a closure that only calls adds none.
#[test]
fn an_error_made_in_an_and_then_closure() {
    assert_finding_lines("and_then_closure.rs", &[10]);
}

/// Impls made by the file's own `macro_rules!` macro are found through the trait's generic
/// call, a trait default method's `Self::m` reaches a supertrait's impls, and a primitive's own
/// method (`u64::from_str_radix`) is not taken for an in-tree trait's (the kernel crate's
/// module parameters, measured blind).
#[test]
fn impls_a_macro_makes_and_supertrait_methods() {
    assert_finding_lines("macro_made_impls.rs", &[13, 26, 33]);
}

/// A library audited alone: its own traits' implementers are its users' code, an allocation's
/// failure is the allocator's, a C callback's default value hands the error over, and a
/// function that cannot fail loses nothing when discarded (rust/kernel, measured blind).
#[test]
fn a_library_audited_alone() {
    assert_finding_lines("kernel_crate_own_traits.rs", &[43]);
}

/// A local bound to a `match` or an `if … else`, returned later, holds each arm's value (Rust
/// binder's ioctl dispatch, nova-core's `receive_msg`, measured blind).
#[test]
fn a_local_holding_a_match() {
    assert_finding_lines("held_match.rs", &[6, 14, 21]);
}

/// `Type::new(…)` is the inherent `new` when a trait's `new` exists for the type too (nova's
/// GEM object, measured blind).
#[test]
fn an_inherent_function_before_a_trait_s() {
    assert_finding_lines("inherent_first.rs", &[19]);
}

/// Names bound by a tuple-variant pattern have the variant's field type: each arm's `run` is
/// its payload's (nova-core's GSP sequencer, measured blind).
#[test]
fn variant_bindings_have_the_field_type() {
    assert_finding_lines("enum_variant.rs", &[12, 17]);
}

/// A typed parameter's field, a call's value (`-> Result<Self>`), a generic's second bound and a
/// local closure: each finding at its real origin (nova-core's falcon and booter, measured
/// blind), none at an unresolved call.
#[test]
fn receivers_typed_by_fields_values_and_bounds() {
    assert_finding_lines("receiver_forms.rs", &[11, 39, 49]);
}

/// An iterator's item (and the `Ok` of one) has the iterator's `Item` type: the finding names
/// the command's `Err`, not "3 in-tree candidates" (nova-core's GSP sequencer, measured blind).
#[test]
fn iterator_items_have_the_item_type() {
    assert_finding_lines("iterator_item.rs", &[8]);
}

/// `unsafe { map_regs(…) }?` passes on the call's error as `unsafe { map_irq(…)? }` does: both
/// origins are found (a coprocessor driver measured blind mapped its registers the first way).
#[test]
fn the_value_of_an_unsafe_block_is_its_calls() {
    assert_finding_lines("unsafe_value.rs", &[8, 15]);
}

/// A box's pin-init constructor fails with its initialiser's error whether the initialiser is
/// a method call or a local holding one: the map's ENXIO and the IRQ's EBUSY are origins, not
/// allocations the allocator reports.
#[test]
fn a_pin_init_constructor_fails_with_any_initialisers_error() {
    assert_finding_lines("pin_init_method_initialiser.rs", &[10, 18]);
}

/// `self.endpoints[i].start()` and `self.ports[i].lock().start()` are the element type's
/// methods: the origins are found, not "3 in-tree candidates".
#[test]
fn an_element_of_a_field_has_the_element_type() {
    assert_finding_lines("index_receiver.rs", &[7, 46]);
}

/// `errtrace::boundary` reports what reaches it unreported: no finding at it, without any
/// configuration (the project's own demo module had one).
#[test]
fn errtrace_boundary_is_known_as_reporting() {
    assert_finding_lines("errtrace_boundary.rs", &[]);
}

/// `Err(ERANGE) => continue` before `Err(e) => break Err(e)` handles ERANGE: its chain is the
/// one through `peek`, which passes it on, never the one through the loop (nova-core's GSP
/// queue, Linux 7.3); EIO still leaves through the loop.
#[test]
fn a_code_an_arm_handles_does_not_leave_through_it() {
    let r = common::audit_fixture("handled_code_arm.rs");
    let chain_of = |line: u32| -> Vec<u32> {
        let f = r
            .findings
            .iter()
            .find(|f| f.line == line)
            .unwrap_or_else(|| panic!("{:?}", r.findings));
        f.chain.iter().map(|s| s.line).collect()
    };
    assert_eq!(chain_of(10), [10, 30, 49], "ERANGE through peek only");
    assert_eq!(chain_of(13), [13, 24, 38], "EIO through the loop");
}

/// Each silent chain's fix, applied to its file, puts a log line where the error is made and
/// leaves a file that still parses; the audit of the fixed file has no finding at that place.
#[test]
fn a_fix_logs_the_error_where_it_is_made() {
    let r = common::audit_fixture("silent_chain.rs");
    let fixes: Vec<&errtrace_audit::findings::Fix> =
        r.findings.iter().filter_map(|f| f.fix.as_ref()).collect();
    assert_eq!(fixes.len(), r.findings.len(), "{:?}", r.findings);
    let path = common::fixtures().join("silent_chain.rs");
    let mut text = std::fs::read_to_string(&path).unwrap();
    // Later insertions first, so that earlier positions stay where they were.
    let mut sorted = fixes.clone();
    sorted.sort_by_key(|f| std::cmp::Reverse((f.line, f.column)));
    for fix in &sorted {
        let start: usize = text
            .split_inclusive('\n')
            .take(fix.line as usize - 1)
            .map(str::len)
            .sum();
        let line = &text[start..];
        let at = start
            + line
                .char_indices()
                .nth(fix.column as usize - 1)
                .map(|(i, _)| i)
                .unwrap();
        text.insert_str(at, &fix.insert);
    }
    syn::parse_file(&text).expect("the fixed file parses");
    let fixed =
        errtrace_audit::audit_sources(&[("silent_chain.rs", &text)], &errtrace_audit::Config::default());
    let lines: Vec<u32> = fixed.findings.iter().map(|f| f.line).collect();
    for fix in fixes {
        assert!(!lines.contains(&fix.line), "still silent at {}: {text}", fix.line);
    }
}
