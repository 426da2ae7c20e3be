# Checks of the upstream kernels' serial logs (kernel/upstream-scenarios.sh),
# sourced by kernel/check.sh for FLAVOUR upstream-before (Linux 7.3 as
# shipped), upstream (with the three postings of kernel/patches/) and
# upstream-debug (the same on the debug configuration: lockdep, KASAN). Uses
# check.sh's helpers and $KSRC, the kernel source tree (check.sh's third
# argument), for positions.

# line_in FILE TEXT: the line number of the first line of FILE containing TEXT
# (FILE relative to the kernel tree, or absolute); "?" without the tree.
line_in() {
    local file=$1
    [[ $file == /* ]] || file=${KSRC:-/nonexistent}/$file
    [[ -f $file ]] || { echo '?'; return; }
    T=$2 awk 'index($0, ENVIRON["T"]) { print NR; exit }' "$file"
}
# Both CPUs of `-smp 2` up (the series' KUnit suite runs captures on both at once).
expect all 'smp: Brought up 1 node, 2 CPUs' 'booted with 2 CPUs'
TEST_SRC=$HERE/upstream-module/rust_probe_test.rs
# `?`'s location (#[track_caller] through From) is the line of its expression.
PUSH=$(line_in samples/rust/rust_minimal.rs 'numbers.push(72, GFP_KERNEL)?;')
DBG=$(line_in samples/rust/rust_driver_platform.rs 'dev_dbg!(dev, "Probe Rust Platform driver sample.\n");')
SUPPLIER=$(line_in "$TEST_SRC" 'kernel::error::to_result(EPROBE_DEFER.to_errno())')
BUS=$(line_in "$TEST_SRC" 'kernel::error::to_result(EIO.to_errno())')
RESET=$(line_in "$TEST_SRC" "// the reset's bus access")
POWER_OFF=$(line_in "$TEST_SRC" "// the power-off's bus access")
# The platform device the drivers were bound to.
D=$(section device | sed -nE 's/^platform device without a driver: ([^ ]+)$/\1/p')
expect device '^platform device without a driver: [^ ]+$' 'a platform device without a driver was found'
Dre=$(re "$D")
if [[ $FLAVOUR == upstream || $FLAVOUR == upstream-debug ]]; then S=yes; else S=; fi
# The debug configuration: nothing found by its checkers.
if [[ $FLAVOUR == upstream-debug ]]; then
    expect all 'Lock dependency validator' 'lockdep is on'
    expect all 'KernelAddressSanitizer initialized' 'KASAN is on'
    expect_not all 'BUG: KASAN|possible (recursive|circular) locking|inconsistent lock state|sleeping function called from invalid context|suspicious RCU usage|turning off the locking correctness validator|BUG: using smp_processor_id|Oops|general protection fault' \
        'no KASAN, lockdep, atomic-sleep, RCU or oops report (the KUnit task that dies inside a capture included)'
fi

# ---- the kernel crate's documentation examples, run by KUnit at boot (both kernels)
expect doctests '# rust_doctests_kernel: pass:[1-9][0-9]* fail:0 skip:[0-9]+ total:[0-9]+$' \
    "the kernel crate's doctests pass (KUnit)"
expect all '^\[ *[0-9.]+\] ok [0-9]+ rust_doctests_kernel$' 'the doctest suite is ok'
expect_not all 'not ok [0-9]+ rust_doctest' 'no doctest fails'

# ---- the series' KUnit suite
if [[ $S ]]; then
    for c in returned_error_names_its_line earlier_error_of_the_same_code cleanup_failing_with_the_same_code \
        more_codes_than_kept nested_captures hard_irq_during_the_capture task_dies_inside_a_capture two_cpus_at_once; do
        expect kunit "^\\[ *[0-9.]+\\]     ok [0-9]+ $c\$" "rust_error_origin: $c passes"
    done
    expect kunit '# rust_error_origin: pass:8 fail:0 skip:0 total:8$' 'rust_error_origin: 8 of 8 pass'
    expect all '^\[ *[0-9.]+\] ok [0-9]+ rust_error_origin$' 'the suite is ok'
else
    expect_not all 'rust_error_origin' 'no rust_error_origin suite without the series' 'ERRTRACE-RUN:'
fi

# ---- in-tree modules load and unload (both kernels: the series keeps them working)
for m in rust_minimal rust_print rust_driver_platform rust_driver_faux; do
    expect intree-load "^ERRTRACE-RUN: /sbin/insmod $m\\.ko\$" "$m is loaded"
    expect intree-load "^ERRTRACE-RUN: rmmod $m\$" "$m is unloaded"
done
expect_count intree-load '^ERRTRACE-RC: 0 \((insmod|rmmod)\)$' 8 'every load and unload succeeds'
expect intree-load "${K}rust_minimal: Rust minimal sample \\(init\\)\$" "rust_minimal's init ran"
expect intree-load "${K}faux_driver rust-faux-sample-device: Hello from faux device!\$" "the faux sample's init ran"

# ---- dynamic debug: the in-tree platform sample's dev_dbg!
if [[ $S ]]; then
    expect dyndbg '^2$' "the platform sample's two dev_dbg! sites are in the control file"
    expect dyndbg "^$(re "samples/rust/rust_driver_platform.rs:$DBG [rust_driver_platform]rust_driver_platform =_ \"Probe Rust Platform driver sample.\\n\"")\$" \
        "its probe's site is listed (line $DBG), disabled"
    expect dyndbg "^$(re "samples/rust/rust_driver_platform.rs:$DBG [rust_driver_platform]rust_driver_platform =p \"Probe Rust Platform driver sample.\\n\"")\$" \
        'after +p: enabled'
    expect_count dyndbg "${K}rust_driver_platform $Dre: Probe Rust Platform driver sample\\.\$" 1 \
        'and it prints, with its device, when the sample probes'
    expect dyndbg "${K}rust_driver_platform $Dre: Remove Rust Platform driver sample\\.\$" 'the other site too'
else
    expect dyndbg '^0$' 'without the series: no Rust site in the control file'
    expect_not dyndbg 'Probe Rust Platform driver sample' 'and nothing prints after +p' 'ERRTRACE-RUN:'
fi
expect_rc dyndbg 0 bind
PRDBG=$(line_in "$TEST_SRC" 'pr_debug!("probing a device in mode {}\n", mode);')
DEVDBG=$(line_in "$TEST_SRC" 'dev_dbg!(dev, "probe in mode {}\n", mode);')
if [[ $S ]]; then
    expect pr-debug "^$(re "rust_probe_test.rs:$PRDBG [rust_probe_test]rust_probe_test =_ \"probing a device in mode {}\n\"")\$" \
        "the test driver's pr_debug! is a dynamic debug site (line $PRDBG)"
    expect pr-debug "^$(re "rust_probe_test.rs:$DEVDBG [rust_probe_test]rust_probe_test =_ \"probe in mode {}\n\"")\$" \
        "and its dev_dbg! (line $DEVDBG)"
    expect_count pr-debug "${K}rust_probe_test: probing a device in mode 0\$" 1 'after +p, pr_debug! prints with the module prefix'
    expect_count pr-debug "${K}rust_probe_test $Dre: probe in mode 0\$" 1 'and dev_dbg! with the device'
else
    expect_not pr-debug 'probing a device|probe in mode' 'without the series: neither is listed nor prints' 'ERRTRACE-RUN:'
fi

# failslab does not fail the samples' allocations on the debug configuration (upstream-debug):
# these scenarios are checked on the other two kernels.
if [[ $FLAVOUR != upstream-debug ]]; then
# ---- an unmodified driver's probe fails (failslab)
expect_rc failslab-setup 0 sh
expect probe-fails 'FAULT_INJECTION: forcing a failure' 'failslab failed an allocation of the probe'
expect probe-fails "${K}rust_driver_platform $Dre: probe with driver rust_driver_platform failed with error -12\$" \
    "the driver core's line"
expect probe-fails '^bound: 1$' 'the device is not bound'
if [[ $S ]]; then
    expect_not probe-fails 'probe failed' "-ENOMEM: no report (dev_err_probe()'s rule: the allocator reports it)" 'ERRTRACE-RUN:'
else
    expect_not probe-fails 'probe failed' 'without the postings: only the errno'
fi

# ---- unmodified modules' init fails (failslab)
expect init-fails 'FAULT_INJECTION: forcing a failure' 'failslab failed an allocation of the init'
expect init-fails "insmod: can't insert 'rust_minimal\\.ko': Cannot allocate memory" 'init failed with ENOMEM'
expect init-fails '^0$' 'the module is not loaded'
expect faux-init-fails "insmod: can't insert 'rust_driver_faux\\.ko': No such device" 'the faux sample: ENODEV'
if [[ $S ]]; then
    expect_not init-fails 'init failed' '-ENOMEM from init: no report (the allocator reports it); the tracepoint names it below' 'ERRTRACE-RUN:'
    expect_not faux-init-fails 'init failed' '-ENODEV from init (faux.rs returns it for a failed allocation): no report, as for a probe' 'ERRTRACE-RUN:'
else
    expect_not init-fails 'init failed' 'without the postings: the kernel prints nothing of the failed init'
    expect_not faux-init-fails 'init failed' 'nor of the faux sample'
fi

fi

# ---- probes of the test driver (kernel/upstream-module/rust_probe_test.rs)
expect probe-bare "${K}rust_probe_test $Dre: probe with driver rust_probe_test failed with error -5\$" 'a bare EIO: the core line'
expect probe-c-fails "${K}rust_probe_test $Dre: probe with driver rust_probe_test failed with error -5\$" 'a C API EIO: the core line'
expect_not probe-nodev "${K}rust_probe_test" 'ENODEV from probe prints nothing (all kernels)' 'ERRTRACE-RUN:'
expect_rc probe-nodev 0 bind
if [[ $S ]]; then
    expect probe-defers "^$Dre	rust_probe_test: $(re "probe deferred, made at rust_probe_test.rs:$SUPPLIER")\$" \
        "the deferral reason in devices_deferred, with its origin (line $SUPPLIER)"
    expect_not probe-defers "${K}rust_probe_test" 'a deferral prints nothing' 'ERRTRACE-RUN:|taints kernel'
    expect_count probe-bare "${K}rust_probe_test $Dre: error -EIO: probe failed, origin not recorded\$" 1 \
        'a bare constant: origin not recorded'
    expect_count probe-c-fails "${K}rust_probe_test $Dre: $(re "error -EIO: probe failed, made at rust_probe_test.rs:$BUS")\$" 1 \
        "a C API's error: its line (to_result, line $BUS)"
    expect_count probe-cleanup-fails "${K}rust_probe_test $Dre: $(re "error -EIO: probe failed, made at rust_probe_test.rs:$RESET or at rust_probe_test.rs:$POWER_OFF")\$" 1 \
        "a reset and its cleanup fail with the same code: both named, first and last (lines $RESET, $POWER_OFF)"
    expect_count probe-logs "${K}rust_probe_test $Dre: error -EINVAL: mode 3 is not supported\$" 1 \
        'dev_err_probe! reports once, where the error is made'
    expect_not probe-logs 'probe failed' 'and the adapter does not report it again'
    expect probe-own-reason "^$Dre	rust_probe_test: waiting for the test's clock\$" "dev_err_probe!'s reason in devices_deferred"
    expect_not probe-own-reason 'probe deferred, ' 'not overwritten by the adapter'
    [[ $FLAVOUR == upstream-debug ]] ||
        expect tracepoint "^insmod-[0-9]+ $(re "error_made: error -12 made at samples/rust/rust_minimal.rs:$PUSH:")[0-9]+\$" \
            'rust:error_made traced the failed init (errno, file:line:column)'
    expect tracepoint " $(re "error_made: error -517 made at rust_probe_test.rs:$SUPPLIER:")[0-9]+\$" 'and the deferral'
else
    expect_not probe-defers 'probe deferred' 'without the series: no deferral reason'
    expect_not probe-bare 'probe failed' 'and only the errno of a failed probe'
    expect_not all 'error_made:' 'no rust:error_made tracepoint' 'ERRTRACE-RUN:'
fi
