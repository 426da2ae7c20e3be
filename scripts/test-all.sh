#!/usr/bin/env bash
# Runs every check of the repository, installing what it needs on a fresh Debian 12 machine
# (Rust stable via rustup must be there). CI runs exactly this (.ci/run).
#
#   bash scripts/test-all.sh
#
# ERRTRACE_SKIP_KERNEL=1 skips the Linux kernel test under qemu (CI never sets it).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

passed=0
failed=0
step() {
    local name="$1"
    shift
    echo
    echo "=== $name"
    local t0=$SECONDS
    if "$@"; then
        passed=$((passed + 1))
        echo "=== $name: ok ($((SECONDS - t0)) s)"
    else
        failed=$((failed + 1))
        echo "=== $name: FAILED ($((SECONDS - t0)) s)"
        echo "test-all: $passed passed, $failed failed"
        exit 1
    fi
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

install_tools() {
    apt_install valgrind gdb binutils
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
    # no_std targets: Cortex-M4F (with compare-and-swap) and Cortex-M0 (without).
    rustup target add thumbv7em-none-eabi thumbv6m-none-eabi >/dev/null 2>&1 || true
    # errtrace-rustc is the kernel's compiler version with the compiler's own crates: the
    # toolchain its rust-toolchain.toml names, with rustc-dev (and rust-src, for the kernel's
    # `core` when it builds a kernel tree).
    local channel
    channel=$(sed -n 's/^channel = "\(.*\)"$/\1/p' crates/errtrace-rustc/rust-toolchain.toml)
    rustup toolchain install "$channel" --profile minimal \
        -c rustc-dev -c rust-src -c rustfmt -c clippy >/dev/null
    if ! command -v mdbook >/dev/null 2>&1; then
        cargo install mdbook --locked --version 0.5.4 --quiet
    fi
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
        | while read -r exe; do
            echo "memcheck: $exe"
            valgrind --tool=memcheck --error-exitcode=1 --leak-check=no -q "$exe" --test-threads=1 -q
        done
}

sdt() {
    bash scripts/test-sdt.sh
}

kernel() {
    if [[ "${ERRTRACE_SKIP_KERNEL:-}" == 1 ]]; then
        echo "skipped: ERRTRACE_SKIP_KERNEL=1"
        return 0
    fi
    bash kernel/test.sh
}

# rust_sources TREE DEST: the .rs files of a kernel tree's rust/, drivers/ and samples/rust/,
# without the generated bindings, copied to DEST with their paths.
rust_sources() {
    (cd "$1" && find rust drivers samples/rust -name '*.rs' ! -name '*_generated.rs' -print0 |
        tar --null -T - -cf -) | tar -xf - -C "$2"
}

# The audit on a labelled corpus of real kernel Rust: Linux 6.12's rust/, drivers/ and
# samples/rust/ from the base kernel tree the kernel step unpacked (its generated bindings
# left out). Fails when a finding is unlabelled or gone, or precision/recall drop below 80 %.
audit_corpus() {
    if [[ "${ERRTRACE_SKIP_KERNEL:-}" == 1 ]]; then
        echo "skipped: ERRTRACE_SKIP_KERNEL=1 (the corpus is the kernel step's tree)"
        return 0
    fi
    local out="${ERRTRACE_KERNEL_OUT:-${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}/run}"
    local kdir tree
    kdir="$(cat "$out/6.12/kdir")"
    tree="$(mktemp -d)"
    rust_sources "$kdir" "$tree"
    cargo build -q --release -p cargo-errtrace
    python3 scripts/audit-corpus.py crates/cargo-errtrace/corpus/linux-6.12.json "$tree" \
        --audit target/release/cargo-errtrace --check
    local rc=$?
    rm -rf "$tree"
    return $rc
}

# The same labels, with calls resolved as the compiler resolved them: errtrace-rustc (the
# kernel's compiler version, with the facts callback) builds every Rust crate of a Linux 7.3 tree
# configured from Debian's config (kernel/facts.sh, cached and keyed; the crates are compiled
# again when the driver changes), and the audit reads the facts it wrote.
audit_facts() {
    if [[ "${ERRTRACE_SKIP_KERNEL:-}" == 1 ]]; then
        echo "skipped: ERRTRACE_SKIP_KERNEL=1 (the tree is the kernel step's)"
        return 0
    fi
    local out="${ERRTRACE_KERNEL_OUT:-${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}/run}"
    local facts="${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}/facts-out"
    (cd crates/errtrace-rustc && cargo build -q --release) &&
        bash kernel/facts.sh --rustc crates/errtrace-rustc/target/release/errtrace-rustc --out "$facts" &&
        cargo build -q --release -p cargo-errtrace &&
        python3 scripts/audit-blind-score.py "$(cat "$out/kdir")" --with-kernel --facts "$facts" \
            --audit target/release/cargo-errtrace --check &&
        python3 scripts/audit-blind-score.py "$(cat "$out/kdir")" --kernel-crate --facts "$facts" \
            --audit target/release/cargo-errtrace --check &&
        facts_notes "$(cat "$facts/.tree")" "$facts"
}

# kernel/captures/audit-facts.txt (the guide shows two of its lines) is the per-crate
# resolution the audit reports with the facts on all of rust/, drivers/ and samples/rust of the
# tree they were built from (kernel/facts.sh's own, without the kernel step's additions).
facts_notes() {
    local whole rc=0
    whole="$(mktemp -d)"
    rust_sources "$1" "$whole"
    target/release/cargo-errtrace errtrace audit "$whole" --facts "$2" --color never >"$whole.out" || true
    grep '^note: crate ' "$whole.out" | diff -u kernel/captures/audit-facts.txt - || rc=1
    rm -rf "$whole" "$whole.out"
    return $rc
}

# The audit on Linux 7.3's drivers and samples labelled blind (crates/cargo-errtrace/corpus/linux-7.3-blind),
# each with the kernel crate, and on the kernel crate's own labels, from the base kernel's tree:
# fails when a finding is unjudged, or recall or precision drops below 80 %.
audit_blind() {
    if [[ "${ERRTRACE_SKIP_KERNEL:-}" == 1 ]]; then
        echo "skipped: ERRTRACE_SKIP_KERNEL=1 (the drivers are the kernel step's tree)"
        return 0
    fi
    local out="${ERRTRACE_KERNEL_OUT:-${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}/run}"
    cargo build -q --release -p cargo-errtrace
    python3 scripts/audit-blind-score.py "$(cat "$out/kdir")" --with-kernel \
        --audit target/release/cargo-errtrace --check &&
        # The kernel crate's own labels (rust/kernel in three parts), rust/ audited alone.
        python3 scripts/audit-blind-score.py "$(cat "$out/kdir")" --kernel-crate \
            --audit target/release/cargo-errtrace --check
}

step "install tools" install_tools
step "format" cargo fmt --all --check
# The kernel module's Rust (not a cargo package): rustfmt with the kernel's own
# settings (.rustfmt.toml in Linux: edition 2021, Unix newlines).
step "format of the kernel module" \
    rustfmt --edition 2021 --config newline_style=Unix --check kernel/module/*.rs kernel/misuse/*.rs kernel/upstream-module/*.rs
step "clippy" cargo clippy --workspace --all-targets -- -D warnings
step "errtrace-rustc: format and clippy (its own toolchain)" \
    bash -c 'cd crates/errtrace-rustc && cargo fmt --check && cargo clippy -q --release -- -D warnings'
step "tests (default features, incl. doc tests and the guide)" cargo test --workspace
step "clippy with every optional feature (log, tracing, defmt, sdt)" \
    cargo clippy -p errtrace --features log,tracing,defmt,sdt --all-targets -- -D warnings
step "clippy without default features" \
    cargo clippy -p errtrace --no-default-features --all-targets -- -D warnings
step "tests with the kernel demo's features (no_std, tracepoints, dyndbg, control)" \
    cargo test -p errtrace --no-default-features --features macros,tracepoints,dyndbg,control --lib
step "tests with a kernel driver's features (no control language: dynamic_debug, fault_attr)" \
    cargo test -p errtrace --no-default-features --features macros,tracepoints,dyndbg --lib
step "sink adapters (log, tracing)" \
    cargo test -p errtrace --features log,tracing --test test_sink_log --test test_sink_tracing
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
step "no_std build for thumbv7em-none-eabi (Cortex-M4)" \
    cargo build -p errtrace --no-default-features --features macros --target thumbv7em-none-eabi
step "no_std build for thumbv6m-none-eabi (Cortex-M0, portable-atomic)" \
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
step "thumbv6m-none-eabi without portable-atomic: one error naming the feature" no_cas_error
step "bare metal: Cortex-M3 firmware under qemu (errtrace RAM at most 8 KiB, registry in flash)" \
    bash scripts/test-baremetal.sh
step "loom model checking" loom
step "valgrind memcheck of the unsafe cells" memcheck
step "SDT probes (readelf, gdb)" sdt
step "object code: no panic call sites, stack frames within limits" bash scripts/check-object.sh
step "layers import only downward" cargo test -q -p errtrace --test test_layers
step "audit tool on errtrace's own core (no panic paths)" \
    cargo run -q -p cargo-errtrace -- audit crates/errtrace/src --deny panic
step "guide builds" mdbook build docs
step "README commands" bash scripts/check-readme.sh
step "Linux kernel module under qemu" kernel
step "audit on a labelled corpus (Linux 6.12)" audit_corpus
step "audit on drivers labelled blind (Linux 7.3)" audit_blind
step "audit with the compiler's facts (errtrace-rustc building Linux 7.3's Rust crates)" audit_facts

echo
echo "test-all: $passed passed, $failed failed"
