#!/usr/bin/env bash
# Runs every check of the repository, installing what it needs on a fresh Debian 12 machine
# (Rust stable via rustup must be there). CI runs exactly this (.ci/run).
#
#   bash scripts/test-all.sh
#
# A failing step does not end the run: the steps that do not need it go on, and the run ends with
# every step's time, the failed steps and those skipped because of them (exit 1 if any failed).
# The kernel work (the kernel's tools, five kernels built, booted and checked) runs in the
# background from the start, beside the cargo steps; its steps at the end wait for it and show
# its log.
#
# ERRTRACE_SKIP_KERNEL=1 skips the kernel work and the audit's kernel corpora (CI never sets it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# step [--needs NAME]... NAME CMD...: run CMD as the step NAME. A failing step does not stop the
# run: the steps after it run, except those that need it (--needs, directly or through a step that
# was skipped), which are skipped. The run ends with the list of failed and skipped steps and
# exits non-zero if any failed, so one run shows how far from green it is.
declare -A status=()
passed=0
failed=()
skipped=()
times=()
step() {
    local needs=() missing=()
    while [[ $1 == --needs ]]; do needs+=("$2"); shift 2; done
    local name="$1"
    shift
    [[ -z ${status[$name]:-} ]] || { echo "test-all: step '$name' defined twice" >&2; exit 2; }
    local n
    for n in "${needs[@]}"; do
        [[ -n ${status[$n]:-} ]] || { echo "test-all: step '$name' needs '$n', which has not run" >&2; exit 2; }
        [[ ${status[$n]} == ok ]] || missing+=("$n")
    done
    echo
    if ((${#missing[@]})); then
        status[$name]=skipped
        skipped+=("$name (needs: ${missing[*]})")
        echo "=== $name: SKIPPED (needs: ${missing[*]})"
        return 0
    fi
    echo "=== $name ($(date -u +%T))"
    local t0=$SECONDS rc=0
    # In a subshell outside any `if`, so that `set -e` holds inside the step's functions.
    set +e
    (set -e; "$@")
    rc=$?
    set -e
    if ((rc == 0)); then
        status[$name]=ok
        passed=$((passed + 1))
        echo "=== $name: ok ($((SECONDS - t0)) s)"
    else
        status[$name]=failed
        failed+=("$name")
        echo "=== $name: FAILED ($((SECONDS - t0)) s)"
    fi
    times+=("$(printf '%6d s  %-8s %s' $((SECONDS - t0)) "${status[$name]}" "$name")")
}

# summary: every step's time and result, then the failed and skipped steps; non-zero if any failed.
summary() {
    echo
    echo "test-all: step times"
    printf '  %s\n' "${times[@]}"
    say_disk "at the end"
    echo "test-all: $passed passed, ${#failed[@]} failed, ${#skipped[@]} skipped, $SECONDS s in all"
    local s
    for s in "${failed[@]}"; do echo "  FAILED:  $s"; done
    for s in "${skipped[@]}"; do echo "  skipped: $s"; done
    ((${#failed[@]} == 0))
}

# A cold run writes about 25 GB: the kernel cache (five trees and the facts tree, about 15 GB; kept
# between runs, and pruned of trees no flavour uses) and target/ (about 7 GB). A full disk shows as
# whichever step writes next, so the free space is said at the start and at the end.
disk_free() {
    local dir=$1
    while [[ ! -d $dir ]]; do dir=$(dirname "$dir"); done
    df -P -B1G "$dir" | awk 'NR == 2 { print $4 }'
}
kernel_cache="${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}"
say_disk() {
    echo "test-all: disk $1: $(disk_free "$root") GB free for target/, $(disk_free "$kernel_cache") GB for the kernel cache ($kernel_cache)"
}
say_disk "at the start"
if (($(disk_free "$root") < 25)); then
    echo "test-all: warning: a cold run needs about 25 GB (less with a warm kernel cache); steps may fail for want of space"
fi

# The kernel work (the kernel's tools, then five kernels built, booted and checked) is most of a
# cold run: it runs in the background from the start, beside the cargo steps, with its output in
# a log shown when its step is joined. (Its parts run one after the other: kernel/test.sh allows
# one run per cache.)
bg_dir="$(mktemp -d)"
# background NAME CMD...: start CMD in the background; its output goes to NAME's log.
background() {
    local name=$1
    shift
    (
        t0=$SECONDS
        set +e
        (set -e; "$@") >"$bg_dir/$name.log" 2>&1
        # Written whole, then renamed: a reader never sees it half-written.
        echo "$? $((SECONDS - t0))" >"$bg_dir/$name.rc.tmp"
        mv "$bg_dir/$name.rc.tmp" "$bg_dir/$name.rc"
    ) &
    echo "$!" >"$bg_dir/$name.pid"
    echo "=== $name: started in the background ($(date -u +%T))"
}
# joined NAME: wait for NAME's background run, show its log and time, return its status.
joined() {
    local name=$1 rc secs
    wait_for "$name"
    cat "$bg_dir/$name.log"
    read -r rc secs <"$bg_dir/$name.rc"
    echo "($name ran for $secs s in the background)"
    return "$rc"
}

apt_install() {
    local missing=()
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "installing: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=900 update -qq
        apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >/dev/null
    fi
}

install_packages() {
    apt_install valgrind gdb binutils
}

install_rustup() {
    rustup component add rustfmt clippy
    # no_std targets: Cortex-M4F (with compare-and-swap) and Cortex-M0 (without).
    rustup target add thumbv7em-none-eabi thumbv6m-none-eabi
}

# errtrace-rustc is the kernel's compiler version with the compiler's own crates: the toolchain
# its rust-toolchain.toml names, with rustc-dev (and rust-src, for the kernel's `core` when it
# builds a kernel tree). Its LLVM library comes with the rustc component (build.rs links it from
# the toolchain's lib/), so no llvm-tools.
install_rustc_dev() {
    local channel
    channel=$(sed -n 's/^channel = "\(.*\)"$/\1/p' crates/errtrace-rustc/rust-toolchain.toml)
    rustup toolchain install "$channel" --profile minimal \
        -c rustc-dev -c rust-src -c rustfmt -c clippy
}

# Without its default features (the `serve` and `watch` commands, the search index): CI only
# builds the guide, and they were half of a cold run's mdbook build.
install_mdbook() {
    command -v mdbook >/dev/null 2>&1 ||
        cargo install mdbook --locked --version 0.5.4 --no-default-features --quiet
}

loom() {
    RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR="$root/target/loom" \
        cargo test -p errtrace --lib --release loom_tests
}

memcheck() {
    # The unsafe cells (crates/errtrace/src/raw.rs) under valgrind's memcheck: the unit tests and
    # the recorder/site-table integration tests, which store and load every kind of cell.
    cargo test -p errtrace --lib --test test_error --test test_control --no-run --message-format=json \
        | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("errtrace", "test_error", "test_control"):
        print(m["executable"])' \
        >"$bg_dir/memcheck.list"
    # All three test binaries, or the step checks nothing.
    (($(wc -l <"$bg_dir/memcheck.list") == 3)) ||
        { echo "memcheck: expected 3 test binaries, found: $(cat "$bg_dir/memcheck.list")"; return 1; }
    while read -r exe; do
        echo "memcheck: $exe"
        valgrind --tool=memcheck --error-exitcode=1 --leak-check=no -q "$exe" --test-threads=1 -q
    done <"$bg_dir/memcheck.list"
}

sdt() {
    bash scripts/test-sdt.sh
}

CACHE="${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}"
FACTS="$CACHE/facts-out"

# The kernel test's tools (apt packages, the kernel's Rust toolchain, bindgen), which the
# kernel steps and the audit's corpora need.
kernel_tools() {
    bash kernel/test.sh --tools-only
}

# Every kernel, its modules, boots and checks. One flavour's failure does not stop the others:
# kernel/test.sh goes on with the flavours that do not need the failed one and lists what failed.
kernel() {
    bash kernel/test.sh
}

# The background chain: the kernel's tools, then the kernels (the critical path of a cold run).
# The facts tree is built in the foreground once the cargo steps are done, beside the kernels,
# whose builds leave a core idle while they link or compile one Rust crate.
kernel_chain() {
    local rc
    background kernel-tools kernel_tools
    wait_for kernel-tools
    read -r rc _ <"$bg_dir/kernel-tools.rc"
    if ((rc != 0)); then
        echo "not run: the kernel tools failed" >"$bg_dir/kernel.log"
        echo "1 0" >"$bg_dir/kernel.rc"
        return
    fi
    background kernel kernel
}

# wait_for NAME: until NAME's background run has ended. If its process is gone without a result
# (killed), the result is a failure, not a wait that never ends.
wait_for() {
    local pid
    while [[ ! -f $bg_dir/$1.rc ]]; do
        pid=$(cat "$bg_dir/$1.pid" 2>/dev/null || true)
        if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && [[ ! -f $bg_dir/$1.rc ]]; then
            echo "1 0" >"$bg_dir/$1.rc"
            echo "$1: the background run ended without a result (killed?)" >>"$bg_dir/$1.log"
        fi
        sleep 5
    done
}

# rust_sources TREE DEST: the .rs files of a kernel tree's rust/, drivers/ and samples/rust/,
# without the generated bindings, copied to DEST with their paths.
rust_sources() {
    (cd "$1" && find rust drivers samples/rust -name '*.rs' ! -name '*_generated.rs' -print0 |
        tar --null -T - -cf -) | tar -xf - -C "$2"
}

# The audit steps run the debug build the tests made (a release build of the tool and its
# dependencies cost a cold run about 5 minutes of both cores; the corpora take seconds either way).

# The audit on a labelled corpus of real kernel Rust: Linux 6.12's rust/, drivers/ and
# samples/rust/ from Debian's linux-source-6.12 (the .rs files only, generated bindings left
# out). Fails when a finding is unlabelled or gone, or precision/recall drop below 80 %.
audit_corpus() {
    local tree rc=0
    tree="$(mktemp -d)"
    tar -C "$tree" -xJf /usr/src/linux-source-6.12.tar.xz --strip-components=1 --wildcards \
        'linux-source-6.12/rust/*.rs' 'linux-source-6.12/drivers/*.rs' 'linux-source-6.12/samples/rust/*.rs'
    find "$tree" -name '*_generated.rs' -delete
    cargo build -q -p cargo-errtrace &&
        python3 scripts/audit-corpus.py crates/cargo-errtrace/corpus/linux-6.12.json "$tree" \
            --audit target/debug/cargo-errtrace --check || rc=$?
    rm -rf "$tree"
    return $rc
}

# errtrace-rustc (the kernel's compiler version, with the facts callback) builds every Rust crate
# of a Linux 7.3 tree configured from Debian's config (kernel/facts.sh, cached and keyed; the
# crates are compiled again when the driver changes). Its tree is also the 7.3 source the blind
# labels are scored on.
facts() {
    (cd crates/errtrace-rustc && cargo build -q --release) &&
        bash kernel/facts.sh --rustc crates/errtrace-rustc/target/release/errtrace-rustc --out "$FACTS"
}

# The blind labels, with calls resolved as the compiler resolved them.
audit_facts() {
    local kdir
    kdir="$(cat "$FACTS/.tree")"
    cargo build -q -p cargo-errtrace &&
        python3 scripts/audit-blind-score.py "$kdir" --with-kernel --facts "$FACTS" \
            --audit target/debug/cargo-errtrace --check &&
        python3 scripts/audit-blind-score.py "$kdir" --kernel-crate --facts "$FACTS" \
            --audit target/debug/cargo-errtrace --check &&
        facts_notes "$kdir" "$FACTS"
}

# The table the RFC's cover letter quotes: each in-tree Rust driver's size on the facts tree,
# then with kernel/patches/ applied, the option off and on (kernel/driver-sizes.sh).
# The objects carry the compiler's paths (core's panic locations name its rust-src), so a
# toolchain installed elsewhere moves each size by some bytes: every number must be within
# 1 % or 64 bytes of the capture's, and the objects the same.
driver_sizes() {
    bash kernel/driver-sizes.sh --rustc crates/errtrace-rustc/target/release/errtrace-rustc |
        tee "$bg_dir/driver-sizes.log" | sed -n '/^Rust drivers of/,$p' >"$bg_dir/driver-sizes.txt"
    python3 - kernel/captures/upstream-driver-sizes.txt "$bg_dir/driver-sizes.txt" <<'EOF'
import sys
def rows(path):
    return {l.split()[0]: [int(x) for x in l.split()[1:]]
            for l in open(path) if l.startswith("drivers/")}
want, got = rows(sys.argv[1]), rows(sys.argv[2])
bad = sorted(set(want) ^ set(got))
for o in sorted(set(want) & set(got)):
    if any(abs(a - b) > max(64, abs(a) // 100) for a, b in zip(want[o], got[o])):
        bad.append(o)
for o in bad:
    print(f"{o}: capture {want.get(o)}, now {got.get(o)}")
print(f"{len(want)} objects, {len(bad)} outside 1 % or 64 bytes of the capture")
sys.exit(1 if bad or not want else 0)
EOF
}

# kernel/captures/audit-facts.txt (the guide shows two of its lines) is the per-crate
# resolution the audit reports with the facts on all of rust/, drivers/ and samples/rust of the
# tree they were built from.
facts_notes() {
    local whole rc=0
    whole="$(mktemp -d)"
    rust_sources "$1" "$whole"
    target/debug/cargo-errtrace errtrace audit "$whole" --facts "$2" --color never >"$whole.out" || true
    grep '^note: crate ' "$whole.out" | diff -u kernel/captures/audit-facts.txt - || rc=1
    rm -rf "$whole" "$whole.out"
    return $rc
}

# The audit on Linux 7.3's drivers and samples labelled blind (crates/cargo-errtrace/corpus/linux-7.3-blind),
# each with the kernel crate (once by the name lists, once with the tree's C), and on the kernel
# crate's own labels, from the facts step's 7.3
# tree (its sources are Debian's, unmodified): fails when a finding is unjudged, or recall or
# precision drops below 80 %.
audit_blind() {
    local kdir
    kdir="$(cat "$FACTS/.tree")"
    cargo build -q -p cargo-errtrace &&
        python3 scripts/audit-blind-score.py "$kdir" --with-kernel \
            --audit target/debug/cargo-errtrace --check &&
        # The kernel crate's own labels (rust/kernel in three parts), rust/ audited alone.
        python3 scripts/audit-blind-score.py "$kdir" --kernel-crate \
            --audit target/debug/cargo-errtrace --check &&
        # Each driver audited where it is, with what the tree's C says of each C callee.
        python3 scripts/audit-blind-score.py "$kdir" --kernel-tree \
            --audit target/debug/cargo-errtrace --check &&
        # Six of them labelled again by the kernel's truth (linux-7.3-kernel-truth): the audit
        # does not reach 80 % there yet, so it is held to what it reached (recall:precision).
        python3 scripts/audit-blind-score.py "$kdir" --with-kernel --corpus "$TRUTH" --floor 72:55 \
            --audit target/debug/cargo-errtrace --check &&
        python3 scripts/audit-blind-score.py "$kdir" --kernel-tree --corpus "$TRUTH" --floor 72:55 \
            --audit target/debug/cargo-errtrace --check
}

TRUTH=crates/cargo-errtrace/corpus/linux-7.3-kernel-truth

step "install: apt packages (valgrind, gdb)" install_packages
step "install: rustfmt, clippy, no_std targets" install_rustup
step "install: errtrace-rustc's toolchain (rustc-dev)" install_rustc_dev
# The kernel chain starts as soon as the toolchains are there.
if [[ "${ERRTRACE_SKIP_KERNEL:-}" != 1 ]]; then
    kernel_chain &
fi
step "install: mdbook" install_mdbook
R=(--needs "install: rustfmt, clippy, no_std targets")
D=(--needs "install: errtrace-rustc's toolchain (rustc-dev)")
step "${R[@]}" "format" cargo fmt --all --check
# The kernel module's Rust (not a cargo package): rustfmt with the kernel's own
# settings (.rustfmt.toml in Linux: edition 2021, Unix newlines).
step "${R[@]}" "format of the kernel module" \
    rustfmt --edition 2021 --config newline_style=Unix --check kernel/module/*.rs kernel/kit/linux/*.rs kernel/kit/template/*.rs kernel/misuse/*.rs kernel/upstream-module/*.rs kernel/peer/*.rs kernel/kunit/*.rs
step "${R[@]}" "clippy" cargo clippy --workspace --all-targets -- -D warnings
step "${D[@]}" "errtrace-rustc: format and clippy (its own toolchain)" \
    bash -c 'cd crates/errtrace-rustc && cargo fmt --check && cargo clippy -q --release -- -D warnings'
step "${D[@]}" "tests (default features, incl. doc tests and the guide)" cargo test --workspace
step "${R[@]}" "clippy with every optional feature (log, tracing, defmt, sdt)" \
    cargo clippy -p errtrace --features log,tracing,defmt,sdt --all-targets -- -D warnings
step "${R[@]}" "clippy without default features" \
    cargo clippy -p errtrace --no-default-features --all-targets -- -D warnings
step "tests with the kernel demo's features (no_std, tracepoints, dyndbg, control)" \
    cargo test -p errtrace --no-default-features --features macros,tracepoints,dyndbg,control --lib
step "tests with a kernel driver's features (no control language: dynamic_debug, fault_attr)" \
    cargo test -p errtrace --no-default-features --features macros,tracepoints,dyndbg --lib
step "sink adapters (log, tracing)" \
    cargo test -p errtrace --features log,tracing --test test_sink_log --test test_sink_tracing
step "#[trace] into anyhow::Result (the anyhow feature's Carrier)" \
    cargo test -p errtrace --features anyhow --test test_carrier --test test_traced
step "API docs build without warnings" env RUSTDOCFLAGS="-D warnings" cargo doc -p errtrace --no-deps
step "tests without default features (no_std core)" \
    cargo test -p errtrace --no-default-features --lib --tests
step "no_std shard hooks with four shards (contexts that own a shard)" \
    env ERRTRACE_RECORDER_SHARDS=4 cargo test -p errtrace --no-default-features --test test_shard_hooks
step "tests without default features but the control language" \
    cargo test -p errtrace --no-default-features --features control --lib --tests
step "build without default features for a no_std target check" \
    cargo build -p errtrace --no-default-features
# Embedded targets: thumbv7em has compare-and-swap; thumbv6m (Cortex-M0) has none and builds
# with the `portable-atomic` feature (here on portable-atomic's single-core assumption; a
# multi-core part would enable portable-atomic's `critical-section` feature instead).
step "${R[@]}" "no_std build for thumbv7em-none-eabi (Cortex-M4)" \
    cargo build -p errtrace --no-default-features --features macros --target thumbv7em-none-eabi
step "${R[@]}" "no_std build for thumbv6m-none-eabi (Cortex-M0, portable-atomic)" \
    env RUSTFLAGS="--cfg portable_atomic_unsafe_assume_single_core" \
    cargo build -p errtrace --no-default-features --features macros,portable-atomic \
    --target thumbv6m-none-eabi
# Without compare-and-swap and without the feature: one error, naming the feature (not one
# per atomic operation errtrace uses).
no_cas_error() {
    local out
    if out=$(cargo build -p errtrace --no-default-features --features macros \
        --target thumbv6m-none-eabi 2>&1); then
        echo "errtrace built for thumbv6m-none-eabi without portable-atomic"
        return 1
    fi
    grep -E '^error' <<<"$out"
    grep -q "enable errtrace's \`portable-atomic\` feature" <<<"$out" &&
        grep -q 'due to 1 previous error' <<<"$out"
}
step "${R[@]}" "thumbv6m-none-eabi without portable-atomic: one error naming the feature" no_cas_error
step "${R[@]}" "bare metal: Cortex-M3 firmware under qemu (errtrace RAM at most 8 KiB, registry in flash)" \
    bash scripts/test-baremetal.sh
step "loom model checking" loom
step --needs "install: apt packages (valgrind, gdb)" "valgrind memcheck of the unsafe cells" memcheck
step --needs "install: apt packages (valgrind, gdb)" "SDT probes (readelf, gdb)" sdt
step "object code: no panic call sites, stack frames within limits" bash scripts/check-object.sh
step "layers import only downward" cargo test -q -p errtrace --test test_layers
step "audit tool on errtrace's own core (no panic paths)" \
    cargo run -q -p cargo-errtrace -- audit crates/errtrace/src --deny panic
step --needs "install: mdbook" "guide builds" mdbook build docs
step "README commands" bash scripts/check-readme.sh
step "the guide's output blocks carry their captures' timestamps" python3 scripts/refresh-outputs.py --check
if [[ "${ERRTRACE_SKIP_KERNEL:-}" == 1 ]]; then
    echo
    echo "=== kernel steps and the audit's kernel corpora: not run (ERRTRACE_SKIP_KERNEL=1)"
    skipped+=("kernel steps and the audit's kernel corpora (ERRTRACE_SKIP_KERNEL=1)")
else
    K=(--needs "kernel tools (apt packages, bindgen)")
    step "kernel tools (apt packages, bindgen)" joined kernel-tools
    step "${K[@]}" "audit on a labelled corpus (Linux 6.12)" audit_corpus
    step "${K[@]}" "${D[@]}" "facts: errtrace-rustc building Linux 7.3's Rust crates" facts
    F=(--needs "facts: errtrace-rustc building Linux 7.3's Rust crates")
    step "${F[@]}" "audit on drivers labelled blind (Linux 7.3)" audit_blind
    step "${F[@]}" "audit with the compiler's facts (Linux 7.3)" audit_facts
    step "${F[@]}" "the postings' cost to Linux 7.3's Rust drivers" driver_sizes
    step "${K[@]}" "Linux kernels and the kernel module under qemu" joined kernel
fi

summary
