# Checks of the upstream kernels' serial logs (kernel/upstream-scenarios.sh),
# sourced by kernel/check.sh for FLAVOUR upstream-before (Linux 6.12 as
# shipped) and upstream (with kernel/patches/). Uses check.sh's helpers and
# $KSRC, the kernel source tree (check.sh's third argument), for positions.

# The in-tree position of TEXT's NEEDLE in FILE (relative to the kernel tree):
# "FILE:LINE:COL", or FILE:?:? without the tree.
kat() {
    local file=$1 text=$2 needle=$3
    if [[ -z ${KSRC:-} || ! -f $KSRC/$file ]]; then echo "$file:?:?"; return; fi
    awk -v f="$file" -v t="$text" -v n="$needle" '
        index($0, t) { print f ":" NR ":" index($0, t) + index(t, n) - 1; exit }' "$KSRC/$file"
}
# `?`'s location (#[track_caller] through From) is the start of its expression.
PUSH=$(kat samples/rust/rust_minimal.rs 'numbers.push(72, GFP_KERNEL)?;' 'numbers')

# ---- the kernel crate's documentation examples, run by KUnit at boot (both kernels)
expect doctests '# rust_doctests_kernel: pass:[1-9][0-9]* fail:0 skip:[0-9]+ total:[0-9]+$' \
    "the kernel crate's doctests pass (KUnit)"
expect all '^\[ *[0-9.]+\] ok [0-9]+ rust_doctests_kernel$' 'the doctest suite is ok'
expect_not all 'not ok [0-9]+ rust_doctest' 'no doctest fails'
if [[ $FLAVOUR == upstream ]]; then
    # Error::recorded, recent_origin (recorded line, equality with the constant) and
    # init_failure (ENODEV and ENXIO quiet): the series' own examples.
    expect_count doctests 'ok [0-9]+ rust_doctest_kernel_error_rs_[0-9]+$' 3 "error.rs's three examples pass"
fi

# ---- in-tree modules load and unload (both kernels: the series keeps them working)
for m in rust_minimal rust_print rnull_mod ax88796b_rust qt2025; do
    expect intree-load "^ERRTRACE-RUN: /sbin/insmod $m\\.ko\$" "$m is loaded"
    expect intree-load "^ERRTRACE-RUN: rmmod $m\$" "$m is unloaded"
done
expect_count intree-load '^ERRTRACE-RC: 0 \((insmod|rmmod)\)$' 10 'every load and unload succeeds'
expect_rc intree-load 0 ls
expect intree-load "${K}rust_minimal: Rust minimal sample \\(init\\)\$" "rust_minimal's init ran"
expect intree-load "${K}rust_minimal: My numbers are \\[72, 108, 200\\]\$" 'and its exit'
expect_rc failslab-setup 0 sh

# ---- an unmodified module's init fails (failslab)
expect init-fails 'FAULT_INJECTION: forcing a failure' 'failslab failed an allocation'
expect init-fails "insmod: can't insert 'rust_minimal\\.ko': Cannot allocate memory" 'init failed with ENOMEM'
expect init-fails '^0$' 'the module is not loaded'
expect init-fails-deeper 'FAULT_INJECTION: forcing a failure' 'rnull: failslab failed an allocation'
expect init-fails-deeper "insmod: can't insert 'rnull_mod\\.ko': Cannot allocate memory" 'rnull: init failed with ENOMEM'

if [[ $FLAVOUR == upstream-before ]]; then
    # 6.12 as shipped: nothing but the fault injection's own notice.
    expect_not init-fails "${K}rust_minimal: " 'the kernel prints nothing of the failed init' 'Rust minimal sample \(init\)|Am I built-in'
    expect_not init-fails-deeper "${K}rnull_mod: " 'nor of rnull' 'Rust null_blk loaded'
    expect_not all 'rust_error' 'no rust_error tracepoint' '^ERRTRACE-RUN:'
else
    # With the series: one line, the module's prefix, the errno name and the origin.
    expect_count init-fails "${K}rust_minimal: $(re "init failed: ENOMEM (-12), made at $PUSH")\$" 1 \
        "the failed init names its origin: the sample's own \`?\` ($PUSH)"
    expect_count init-fails-deeper "${K}rnull_mod: init failed: ENOMEM \\(-12\\), made at rust/kernel/[a-z/_]+\\.rs:[0-9]+:[0-9]+\$" 1 \
        "rnull's failed init names the kernel crate's line where the allocation failed"
    expect tracepoint "rust_error: -ENOMEM at $(re "${PUSH%:*}")\$" 'rust_error:rust_error traced the origin (errno, file:line)'
fi
