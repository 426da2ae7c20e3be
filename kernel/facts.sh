#!/usr/bin/env bash
# Compile every Rust crate of Linux 7.3 (rust/, the Rust drivers, samples/rust),
# and no other object, with a given compiler: errtrace-rustc, a rustc driver that
# writes per-crate facts to $ERRTRACE_FACTS_DIR. Debian's linux-source-7.3 with
# Debian's amd64 config plus what the crates need (SUPPORT, CRATES below).
#
# Usage: kernel/facts.sh --rustc COMPILER --out DIR [--force]
#   --rustc COMPILER  passed as RUSTC= and HOSTRUSTC=; `COMPILER --print sysroot`
#                     must name a sysroot with rust-src (core is built from it).
#   --out DIR         exported as ERRTRACE_FACTS_DIR (created, never emptied; this
#                     script's mark in DIR/.facts-sh: without it, all is compiled;
#                     DIR/.tree names the tree the facts describe).
#   --force           compile every Rust crate again.
# Cache: ${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}/facts-KEY, KEY a hash
# of the source and config packages, this script, `COMPILER -vV` and the LLVM
# tools. Another compiler binary (its sha256) or --out on the same tree deletes
# the tree's Rust outputs: every crate is compiled, its facts written, again.
set -Eeuo pipefail

CACHE_ROOT=${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}
JOBS=${ERRTRACE_JOBS:-$(nproc)}
KVER=7.3
KSRC_TAR=/usr/src/linux-source-$KVER.tar.xz
KCONFIG=/usr/src/linux-config-$KVER/config.amd64_none_amd64.xz
BINDGEN=${ERRTRACE_BINDGEN:-$CACHE_ROOT/tools/bindgen-0.71.1/bin/bindgen}
LLVM_SUFFIX=-19

# Options the crates need. Debian's config has DRM and USB as modules, the C
# binder, no device tree, KUnit or fwctl, and debug info (only costs time here).
SUPPORT=(
    RUST=y
    COMPILE_TEST=y       # PWM_TH1520 (else ARCH_THEAD), DRM_TYR (else ARM/ARM64)
    OF=y                 # CPUFREQ_DT_RUST
    DRM=y                # DRM_NOVA and DRM_TYR depend on DRM=y
    USB=y                # SAMPLE_RUST_DRIVER_USB depends on USB=y
    ANDROID_BINDER_IPC=n # ANDROID_BINDER_IPC_RUST depends on !ANDROID_BINDER_IPC
    KUNIT=y              # rust/kernel/kunit.rs is #[cfg(CONFIG_KUNIT)] (=y only)
    FWCTL=y RUST_FWCTL_ABSTRACTIONS=y   # rust/kernel/fwctl.rs
    SAMPLES=y SAMPLES_RUST=y DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=n DEBUG_INFO_NONE=y)
# The crates outside rust/ (prepare builds rust/): OPTION=VALUE, the Rust object,
# the make target if not the object. drivers/gpu/Makefile builds nova.o (with
# --extern nova_core); named, it would be built in drivers/gpu/drm/ without those.
CRATES='
ANDROID_BINDER_IPC_RUST=y drivers/android/binder/rust_binder_main.o
BLK_DEV_RUST_NULL=m       drivers/block/rnull/rnull.o
CPUFREQ_DT_RUST=m         drivers/cpufreq/rcpufreq_dt.o
DRM_PANIC_SCREEN_QR_CODE=y drivers/gpu/drm/drm_panic_qr.o
NOVA_CORE=m               drivers/gpu/nova-core/nova_core.o
DRM_NOVA=m                drivers/gpu/drm/nova/nova.o drivers/gpu/nova-drm.o
DRM_TYR=m                 drivers/gpu/drm/tyr/tyr.o
AX88796B_RUST_PHY=y       drivers/net/phy/ax88796b_rust.o
AMCC_QT2025_PHY=m         drivers/net/phy/qt2025.o
PWM_TH1520=m              drivers/pwm/pwm_th1520.o
FIND_BIT_BENCHMARK_RUST=m lib/find_bit_benchmark_rust.o
SAMPLE_RUST_HOSTPROGS=y   samples/rust/hostprogs/single samples/rust/hostprogs/
SAMPLE_RUST_PRINT=m       samples/rust/rust_print_main.o'
for s in MINIMAL MISC_DEVICE DMA DEBUGFS DEBUGFS_SCOPED DRIVER_I2C I2C_CLIENT DRIVER_PCI \
    DRIVER_PLATFORM DRIVER_USB DRIVER_FAUX DRIVER_AUXILIARY DRIVER_SERDEV CONFIGFS SOC; do
    CRATES+=$'\n'"SAMPLE_RUST_$s=m samples/rust/rust_${s,,}.o"
done
# Where .rs files are looked for, and why the known ones are in no compiled crate.
SCAN_DIRS=(rust drivers samples lib mm scripts)
why_not() {
    case $1 in
        mm/kasan/kasan_test_rust.rs) echo "part of kasan_test.ko: needs KASAN (instruments all of the kernel)" ;;
        scripts/rustdoc_test_*) echo "host tools of RUST_KERNEL_DOCTESTS (doctests, built by rustdoc; not asked for)" ;;
        rust/pin-init/examples/*) echo "pin-init's user-space examples (cargo), not in the kernel build" ;;
        rust/zerocopy/benches/*) echo "zerocopy's benchmarks (cargo), not in the kernel build" ;;
        rust/proc-macro2/probe/*) echo "proc-macro2's build.rs probes (cargo), not in the kernel build" ;;
        *) echo "a module behind a #[cfg] this build does not set (e.g. a cargo feature rust/Makefile leaves off)" ;;
    esac
}

RUSTC='' OUT='' FORCE=0
while (($#)); do
    case $1 in
        --rustc) RUSTC=${2:?--rustc needs a path}; shift ;;
        --out) OUT=${2:?--out needs a directory}; shift ;;
        --force) FORCE=1 ;;
        -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "facts.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done
[[ -n $RUSTC && -n $OUT ]] || { echo "facts.sh: --rustc and --out are required (see --help)" >&2; exit 2; }

STEPS_NAME=facts.sh
# shellcheck source=kernel/steps.sh
source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
# measured LOG CMD...: as `logged`, with /usr/bin/time -v's report in LOG.time and its wall
# time and peak memory printed.
measured() {
    logged "$1" /usr/bin/time -v -o "$1.time" "${@:2}"
    awk -F': ' '/Elapsed/ { w = $2 } /Maximum resident/ { m = int($2 / 1024) }
        END { printf "    %s: wall %s, peak RSS %d MiB\n", lg, w, m }' lg="$1" "$1.time"
}

for f in "$RUSTC" "$BINDGEN" "llvm-config$LLVM_SUFFIX" "clang$LLVM_SUFFIX" "ld.lld$LLVM_SUFFIX" /usr/bin/time; do
    command -v "$f" >/dev/null || die "$f not found"
done
[[ -f $KSRC_TAR && -f $KCONFIG ]] || die "$KSRC_TAR or $KCONFIG missing (kernel/test.sh --kernel-only installs them)"
# Kbuild runs the compiler in the tree: both absolute. ERRTRACE_FACTS_DIR is in
# the environment of every call of it, this script's own (-vV, --version) too.
RUSTC=$(realpath -s "$(command -v "$RUSTC")")   # -s: a rustup proxy is a symlink
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
export ERRTRACE_FACTS_DIR=$OUT

# The tree's key; not the compiler's binary (do_compiler): a rebuilt driver reuses it.
KEY=$({
    dpkg-query -W -f='${Package} ${Version}\n' "linux-source-$KVER" "linux-config-$KVER"
    stat -c '%s %Y' "$KSRC_TAR"
    xzcat "$KCONFIG"
    sha256sum <"${BASH_SOURCE[0]}"
    "$RUSTC" -vV
    "$BINDGEN" --version
    "clang$LLVM_SUFFIX" --version | head -n1
    "ld.lld$LLVM_SUFFIX" --version
} | sha256sum | cut -c1-16)
KBASE=$CACHE_ROOT/facts-$KEY
KDIR=$KBASE/linux-source-$KVER
COMPILER_ID="$(sha256sum <"$RUSTC" | cut -c1-64) $OUT"
# RUSTC_BOOTSTRAP=1 comes from the kernel's Makefile. HOSTRUSTC (host programs:
# scripts/generate_rust_target, samples/rust/hostprogs) is the compiler too.
KMAKE=(env LIBCLANG_PATH="$("llvm-config$LLVM_SUFFIX" --libdir)"
    make -C "$KDIR" LLVM="$LLVM_SUFFIX" RUSTC="$RUSTC" HOSTRUSTC="$RUSTC" BINDGEN="$BINDGEN")

do_untar() {
    local free
    free=$(df -P -B1G "$CACHE_ROOT" | awk 'NR == 2 { print $4 }')
    ((free >= 3)) || die "$CACHE_ROOT has $free GB free; the facts tree needs about 3 GB"
    rm -rf "$KBASE"
    mkdir -p "$KBASE"
    tar -C "$KBASE" -xJf "$KSRC_TAR"
    [[ -f $KDIR/Makefile ]] || die "unexpected tarball layout: no $KDIR/Makefile"
    touch "$KBASE/.untarred"
}

do_config() {
    # A compiler Kconfig cannot use would silently turn RUST off: say so first.
    measured "$KBASE/rustavailable.log" "${KMAKE[@]}" rustavailable
    xzcat "$KCONFIG" >"$KDIR/.config"
    local o args=() want
    mapfile -t want < <(printf '%s\n' "${SUPPORT[@]}"; awk 'NF { print $1 }' <<<"$CRATES")
    for o in "${want[@]}"; do
        case ${o#*=} in y) args+=(--enable) ;; m) args+=(--module) ;; n) args+=(--disable) ;; esac
        args+=("${o%%=*}")
    done
    (cd "$KDIR" && ./scripts/config "${args[@]}")
    measured "$KBASE/config.log" "${KMAKE[@]}" olddefconfig
    # Dependencies can drop options: each must have survived (n: be unset).
    for o in "${want[@]}"; do
        if [[ $o == *=n ]]; then
            if ! grep -q "^CONFIG_${o%=n}=" "$KDIR/.config"; then continue; fi
        elif grep -qx "CONFIG_$o" "$KDIR/.config"; then
            continue
        fi
        echo "    did not survive olddefconfig: CONFIG_$o (now: $(grep -E "CONFIG_${o%%=*}[= ]" "$KDIR/.config" || echo unset))"
    done
    grep -qx CONFIG_RUST=y "$KDIR/.config" || die "CONFIG_RUST is off (see $KBASE/config.log)"
    touch "$KBASE/.configured"
}

# rust_cmds: .cmd files of targets compiled from a .rs (crates, proc macros, host
# programs); cmd_target CMD: the target of one.
rust_cmds() {
    (cd "$KDIR" && find "${SCAN_DIRS[@]}" -name '.*.cmd' -print0 | { xargs -0 grep -l '^source_.* := .*\.rs$' || true; }) | sort
}
cmd_target() { sed -n 's/^savedcmd_\([^ ]*\) :=.*/\1/p' "$KDIR/$1"; }

# Another compiler binary or --out than the tree's Rust outputs had, or an --out
# whose mark (.facts-sh) is gone: delete the outputs (make compiles every crate
# again, and what depends on them; the rest stays).
do_compiler() {
    local stamp=$KBASE/.compiler mark=$OUT/.facts-sh c n=0
    if [[ $(cat "$stamp" 2>/dev/null) != "$COMPILER_ID" || $(cat "$mark" 2>/dev/null) != "$KEY $COMPILER_ID" ]] ||
        ((FORCE)); then
        while read -r c; do
            rm -f "$KDIR/$(cmd_target "$c")"; n=$((n + 1))
        done < <(rust_cmds)
        ((n == 0)) || echo "    new compiler binary, --out (or its $mark) or --force: deleted $n Rust outputs"
    else
        echo "    same compiler binary and --out as the tree's Rust outputs"
    fi
    echo "$COMPILER_ID" >"$stamp"
    echo "$KEY $COMPILER_ID" >"$mark"
    echo "    compiler: $RUSTC ($("$RUSTC" --version)), sha256 ${COMPILER_ID%% *}"
    echo "    ERRTRACE_FACTS_DIR=$OUT"
}

# prepare builds rust/ (Makefile: `prepare: ... $(MAKE) $(build)=rust`): core, ffi,
# compiler_builtins, zerocopy, pin_init, build_error, bindings, uapi, kernel, the
# proc macros and their host crates (proc_macro2, quote, syn); scripts/'s host program.
do_prepare() {
    measured "$KBASE/prepare.log" "${KMAKE[@]}" -j"$JOBS" prepare
}

do_crates() {
    local opt obj target targets=() modules=()
    # Kconfig runs again when RUSTC's path changes: a compiler it cannot use turns RUST off.
    grep -qx CONFIG_RUST=y "$KDIR/.config" ||
        { rm -f "$KBASE/.configured"; die "CONFIG_RUST went off (see $KBASE/prepare.log); the next run configures anew"; }
    while read -r opt obj target; do
        [[ -n $opt ]] || continue
        grep -qx "CONFIG_$opt" "$KDIR/.config" || { echo "    skipped (CONFIG_$opt not set): $obj"; continue; }
        targets+=("${target:-$obj}")
        if [[ ${opt#*=} == m ]]; then modules+=("$obj"); fi
    done <<<"$CRATES"
    echo "    make targets: prepare, then ${targets[*]}"
    # Single-object targets: make compiles these (and what they need: prepare,
    # objtool), no other object of their directories.
    measured "$KBASE/crates.log" "${KMAKE[@]}" -j"$JOBS" "${targets[@]}"
    # A module's object built in another directory's context lacks --cfg MODULE.
    for obj in "${modules[@]}"; do
        grep -q -- '--cfg MODULE' "$KDIR/$(dirname "$obj")/.$(basename "$obj").cmd" ||
            die "$obj was not compiled as a module's object (wrong make target?)"
    done
}

do_report() {
    local c t root n=0 used=$KBASE/used.txt
    : >"$used"
    echo "    Rust crate roots compiled (root -> output):"
    while read -r c; do
        t=$(cmd_target "$c")
        root=$(sed -n 's/^source_[^ ]* := //p' "$KDIR/$c")
        [[ -e $KDIR/$t ]] || die "$t missing after the build"
        [[ $(grep -m1 '^savedcmd_' "$KDIR/$c") == *"$RUSTC "* ]] || die "$t was not compiled by $RUSTC"
        printf '      %-52s -> %s\n' "$root" "$t"
        # The crate's files: its root and the .rs files of its dep-info.
        { echo "$root"; awk '/^deps_/ { d = 1; next } d && /\.rs( \\)?$/ { print $1 } /^$/ { d = 0 }' "$KDIR/$c"; } |
            sed "s|^$KDIR/||" >>"$used"
        n=$((n + 1))
    done < <(rust_cmds)
    echo "    $n crates; .rs files under ${SCAN_DIRS[*]} in none of them:"
    (cd "$KDIR" && find "${SCAN_DIRS[@]}" -name '*.rs') | sort | comm -23 - <(sort -u "$used") |
        while read -r f; do printf '%s\t%s\n' "$(why_not "$f")" "$f"; done | sort -s -t$'\t' -k1,1 |
        awk -F'\t' 'function out() { printf "      %s (%d)%s%s\n", r, n, l, (n > 8 ? "\n        ..." : "") }
            $1 != r { if (NR > 1) out(); r = $1; n = 0; l = "" } { if (++n <= 8) l = l "\n        " $2 } END { if (NR) out() }'
    echo "    not built: rust/doctests_kernel_generated (RUST_KERNEL_DOCTESTS, built by rustdoc; not asked for)"
    echo "    disk: $(du -sh "$KBASE" | cut -f1) in $KBASE; $OUT: $(find "$OUT" -type f -name '*.json' | wc -l) files"
}

# Before a new tree: remove the others (about 2 GB each; a tree of another key is never used again).
prune() {
    local d
    { ls -d "$CACHE_ROOT"/facts-????????????????/ 2>/dev/null || true; } | { grep -vx "$KBASE/" || true; } |
        while read -r d; do echo "    removing old facts tree $d"; rm -rf "$d"; done
}

main() {
    mkdir -p "$CACHE_ROOT"
    # One facts.sh at a time per cache: they share trees, and 2 cores.
    exec 9>"$CACHE_ROOT/.facts.lock"
    flock -n 9 || { echo "==> waiting for another kernel/facts.sh"; flock 9; }
    echo "==> tree: $KDIR"
    local t0=$SECONDS
    [[ -f $KBASE/.untarred ]] || { prune; step untar do_untar; }
    [[ -f $KBASE/.configured ]] || step config do_config
    touch "$KBASE"
    step compiler do_compiler
    step prepare do_prepare
    step crates do_crates
    step report do_report
    print_timings
    echo "    $(printf '%-16s %5ss' total $((SECONDS - t0)))"
    # The tree the facts describe (its paths are theirs), for a reader that wants its files.
    echo "$KDIR" >"$OUT/.tree"
    echo "facts.sh: OK (facts in $OUT, of the tree named in $OUT/.tree)"
}

main "$@"
