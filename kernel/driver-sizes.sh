#!/usr/bin/env bash
# What the three postings (kernel/patches/) cost the in-tree Rust drivers: the
# size of each driver's object on the facts tree (Debian's 7.3 config with
# every in-tree Rust crate enabled: kernel/facts.sh, which must have run), then
# on a copy of it with the postings applied, CONFIG_RUST_ERROR_ORIGINS off and
# on. Prints one table (the RFC's cover letter quotes it).
#
# Usage: kernel/driver-sizes.sh [--rustc COMPILER]
#   --rustc COMPILER  the compiler the facts tree was built with (default:
#                     crates/errtrace-rustc/target/release/errtrace-rustc); the
#                     same one rebuilds the copy, so the unpatched objects are
#                     the facts tree's own.
# The copy (about 2 GB) is $CACHE/driver-sizes, made anew on each run and removed
# after it; the sizes stay in $CACHE/driver-sizes.tables. scripts/test-all.sh compares the table with
# kernel/captures/upstream-driver-sizes.txt.
set -Eeuo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE_ROOT=${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}
JOBS=${ERRTRACE_JOBS:-$(nproc)}
BINDGEN=${ERRTRACE_BINDGEN:-$CACHE_ROOT/tools/bindgen-0.71.1/bin/bindgen}
RUSTC=$HERE/../crates/errtrace-rustc/target/release/errtrace-rustc
while (($#)); do
    case $1 in
        --rustc) RUSTC=${2:?--rustc needs a path}; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "driver-sizes.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done
STEPS_NAME=driver-sizes.sh
# shellcheck source=kernel/steps.sh
source "$HERE/steps.sh"

RUSTC=$(realpath -s "$RUSTC")
# The drivers: the Rust object of each in-tree driver the facts tree builds.
DRIVERS=(drivers/android/binder/rust_binder_main.o drivers/gpu/nova-core/nova_core.o
    drivers/gpu/drm/nova/nova.o drivers/gpu/drm/tyr/tyr.o drivers/block/rnull/rnull.o
    drivers/cpufreq/rcpufreq_dt.o drivers/gpu/drm/drm_panic_qr.o
    drivers/net/phy/ax88796b_rust.o drivers/net/phy/qt2025.o drivers/pwm/pwm_th1520.o)
# Debian's own config builds these three (the others are on only in the facts tree).
DEBIAN_BUILDS=' drm_panic_qr.o ax88796b_rust.o qt2025.o '

FACTS=$(ls -d "$CACHE_ROOT"/facts-????????????????/linux-source-7.3 2>/dev/null | head -n1) ||
    true
[[ -n $FACTS && -f $FACTS/rust/kernel.o ]] || die "no built facts tree in $CACHE_ROOT (run kernel/facts.sh)"
KBASE=$CACHE_ROOT/driver-sizes
KDIR=$KBASE/linux-source-7.3
# Each build's sizes (kept: the tree is not).
TABLES=$CACHE_ROOT/driver-sizes.tables
KMAKE=(env LIBCLANG_PATH="$(llvm-config-19 --libdir)"
    make -C "$KDIR" LLVM=-19 RUSTC="$RUSTC" HOSTRUSTC="$RUSTC" BINDGEN="$BINDGEN")
# The objects make builds: the kernel crate and each driver (kernel/facts.sh's targets).
TARGETS=(prepare drivers/android/binder/rust_binder_main.o drivers/gpu/nova-core/nova_core.o
    drivers/gpu/nova-drm.o drivers/gpu/drm/tyr/tyr.o drivers/block/rnull/rnull.o
    drivers/cpufreq/rcpufreq_dt.o drivers/gpu/drm/drm_panic_qr.o drivers/net/phy/ax88796b_rust.o
    drivers/net/phy/qt2025.o drivers/pwm/pwm_th1520.o)

# sizes TREE: "object text data" for each driver. Text: code and read-only data (.text*,
# .init.text, .exit.text, .rodata*); data: .data*, .bss*, and the dynamic debug descriptors and
# static-key entries (__dyndbg, __jump_table), which the kernel keeps in writable memory.
sizes() {
    local o
    for o in "${DRIVERS[@]}"; do
        [[ -f $1/$o ]] || die "$1/$o missing"
        size -A "$1/$o" | awk -v o="$o" '
            $1 ~ /^\.(text|init\.text|exit\.text|rodata)/ { t += $2 }
            $1 ~ /^(\.data|\.bss|__dyndbg|__jump_table)/ { d += $2 }
            END { print o, t + 0, d + 0 }'
    done
}

do_copy() {
    rm -rf "$KBASE" "$TABLES"
    mkdir -p "$KBASE" "$TABLES"
    cp -a "$FACTS" "$KDIR"
    sizes "$KDIR" >"$TABLES/base.txt"
}

do_off() {
    local p
    for p in "$HERE"/patches/[0-9]-*/0[0-9][0-9][1-9]-*.patch; do
        logged "$KBASE/patch.log" patch -d "$KDIR" -p1 --forward --batch -i "$p"
    done
    # The kernel crate changed: every Rust object outside rust/ is rebuilt (Kbuild does not
    # always see that a driver depends on it).
    find "$KDIR" -name '*.rs' ! -path "$KDIR/rust/*" -exec touch {} +
    logged "$KBASE/off.log" "${KMAKE[@]}" -j"$JOBS" "${TARGETS[@]}"
    sizes "$KDIR" >"$TABLES/off.txt"
}

do_on() {
    (cd "$KDIR" && ./scripts/config --enable RUST_ERROR_ORIGINS)
    logged "$KBASE/config.log" "${KMAKE[@]}" olddefconfig
    grep -qx CONFIG_RUST_ERROR_ORIGINS=y "$KDIR/.config" || die "CONFIG_RUST_ERROR_ORIGINS did not stay on"
    find "$KDIR" -name '*.rs' ! -path "$KDIR/rust/*" -exec touch {} +
    logged "$KBASE/on.log" "${KMAKE[@]}" -j"$JOBS" "${TARGETS[@]}"
    sizes "$KDIR" >"$TABLES/on.txt"
}

do_report() {
    echo "Rust drivers of Linux 7.3 (Debian's config with every in-tree Rust driver on;"
    echo "* = Debian builds it), bytes per object: text (code, read-only data) and data"
    echo "(writable, with dynamic debug's descriptors); off/on: the three postings applied,"
    echo "CONFIG_RUST_ERROR_ORIGINS off/on, against the unpatched tree:"
    printf '%-42s %9s %9s %9s %9s %9s %9s\n' object text off on data off on
    join <(sort "$TABLES/base.txt") <(sort "$TABLES/off.txt") | join - <(sort "$TABLES/on.txt") |
        awk -v deb="$DEBIAN_BUILDS" '{
            n = split($1, p, "/"); mark = index(deb, " " p[n] " ") ? "*" : ""
            printf "%-42s %9d %+9d %+9d %9d %+9d %+9d\n", $1 mark, $2, $4 - $2, $6 - $2, $3, $5 - $3, $7 - $3
        }'
}

main() {
    exec 9>"$CACHE_ROOT/.facts.lock"
    flock -n 9 || { echo "==> waiting for kernel/facts.sh"; flock 9; }
    echo "==> facts tree: $FACTS"
    step copy do_copy
    step postings-off do_off
    step option-on do_on
    rm -rf "$KBASE"
    do_report
}
main
