#!/usr/bin/env bash
# Build Linux kernels with Rust support (once, cached), build the out-of-tree
# errtrace module, boot it under qemu and check the serial log. Runs from a
# fresh Debian 12 machine as root. See kernel/README.md.
#
# Usage: kernel/test.sh [--tools-only|--kernel-only] [--flavour base|upstream-before|upstream|6.12|debug|upstream-debug]...
#   --tools-only    install the toolchain (apt packages, bindgen), then stop.
#   --kernel-only   install the toolchain and build/cache the kernel(s), then stop.
#   --flavour F     only this kernel (repeatable; default: all six, in this order).
#                   Three of them share one Linux 7.3 tree (Debian's
#                   linux-source-7.3 on tinyconfig with Debian's values of the
#                   options config/debian.options names, config/guest.fragment,
#                   config/errtrace.fragment, config/upstream.fragment), built
#                   once; they differ only in what is added on top:
#                   base:  a copy of that tree with errtrace built into vmlinux
#                          (incremental); JUMP_LABEL, DYNAMIC_DEBUG,
#                          PREEMPT_DYNAMIC, SMP as Debian ships them; one CPU,
#                          every scenario of scenarios.sh.
#                   upstream-before: the tree itself (the Rust samples,
#                          failslab, fail_function, the kernel crate's doctests),
#                          2 CPUs; upstream-scenarios.sh with in-tree modules and
#                          upstream-module/ (a driver whose probe fails as told).
#                   upstream: a copy with the three postings of
#                          kernel/patches/*/ applied and
#                          config/upstream-series.fragment (their options on),
#                          rebuilt incrementally; also built with the options
#                          off (sizes), with CLIPPY=1; checkpatch, rustfmtcheck
#                          and rustdoc.
#                   6.12:  Linux 6.12 (the LTS Android's GKI ships Rust binder
#                          on), tinyconfig + config.fragment (no jump labels):
#                          every scenario.
#                   debug: Linux 7.3 on tinyconfig with config/guest.fragment,
#                          config/errtrace.fragment and config/debug.fragment
#                          (full preemption, lockdep, KASAN, atomic-sleep and
#                          preemption checks), booted with 4 CPUs: the scenarios
#                          pinned to CPU 0, then the stress. The only other 7.3
#                          build: KASAN instruments everything.
#                   upstream-debug: a copy of the debug tree with
#                          config/upstream.fragment: each posting of
#                          kernel/patches/*/ built alone on it, patch by patch,
#                          with its options off and on (CLIPPY=1; cached by the
#                          posting's content), then all three with their options
#                          on, booted with 2 CPUs, lockdep and KASAN:
#                          upstream-scenarios.sh.
# A flavour that fails does not stop the others: each runs in its own subshell,
# a 7.3 tree that failed to build is not built again in the same run (the
# flavours on it fail at once, saying so), and the run ends with the list of
# failed flavours (exit 1).
set -Eeuo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)

# ---------------------------------------------------------------- settings
CACHE_ROOT=${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}
# Source tree of the library crate linked into the module (its lib.rs is the
# crate root; it is compiled as crate `errtrace`).
CORE_SRC=${ERRTRACE_CORE_SRC:-$REPO/crates/errtrace/src}
# Extra rustc flags for that crate (cargo features are plain --cfg's here). The
# kernel build has no `std` and no `registry` (linkme); `macros` re-exports
# #[errtrace::trace] from the proc-macro crate given with --extern; `tracepoints`
# lets the glue forward errors and hops to the module's tracepoints; `dyndbg`
# makes every static site a dynamic_debug descriptor. DRIVER_FEATURES is how a
# driver ships errtrace (the peer module and the built-in copy): per-site flags
# from dynamic_debug, fail points through the kernel's fault_attr
# (module/fault_attr.c). CORE_FEATURES (the demo and its KUnit suite) adds
# `control`, errtrace's own control language (debugfs `control`, `ctl=`). Both are
# passed to the driver kit's errtrace.mk as ERRTRACE_FEATURES.
DRIVER_FEATURES=${ERRTRACE_DRIVER_FEATURES-"macros tracepoints dyndbg"}
CORE_FEATURES=${ERRTRACE_CORE_FEATURES-"$DRIVER_FEATURES control"}
# Cargo package dir of the proc-macro crate (standalone or workspace member).
MACROS_DIR=${ERRTRACE_MACROS_DIR:-$REPO/crates/errtrace-macros}
MACROS_PKG=${ERRTRACE_MACROS_PKG:-errtrace-macros}
MACROS_LIB=${ERRTRACE_MACROS_LIB:-${MACROS_PKG//-/_}}
# Kbuild module sources (Kbuild + *.rs + *.c), copied to the build dir.
MODULE_SRC=${ERRTRACE_MODULE_DIR:-$HERE/module}
# Commands run inside the guest, and the checks on the serial log.
SCENARIOS=${ERRTRACE_SCENARIOS:-$HERE/scenarios.sh}
# The upstream kernels' scenarios (in-tree modules only).
UPSTREAM_SCENARIOS=${ERRTRACE_UPSTREAM_SCENARIOS:-$HERE/upstream-scenarios.sh}
# The debug kernel's stress scenario, run after the others.
STRESS=${ERRTRACE_STRESS:-$HERE/stress.sh}
CHECK=${ERRTRACE_CHECK:-$HERE/check.sh}
JOBS=${ERRTRACE_JOBS:-$(nproc)}
# errtrace's storage for the module (errtrace::config): location sites, recorder
# slots (all shards) and shards (shard.c: one per CPU of the 4-CPU test VM, for
# its tasks, and the shared shard 0 for interrupts, rounded up to a power of two).
LOCATION_SITES=${ERRTRACE_LOCATION_SITES:-32}
RECORDER_SLOTS=${ERRTRACE_RECORDER_SLOTS:-64}
RECORDER_SHARDS=${ERRTRACE_RECORDER_SHARDS:-8}
COUNTED_SITES=${ERRTRACE_COUNTED_SITES:-64}
# Tasks inside an errtrace::expecting scope at once (as many as device scopes).
EXPECT_CONTEXTS=${ERRTRACE_EXPECT_CONTEXTS:-8}
# They are read at compile time (errtrace::config): the environment of every
# build of errtrace.
STORAGE_ENV=(ERRTRACE_LOCATION_SITES="$LOCATION_SITES" ERRTRACE_RECORDER_SLOTS="$RECORDER_SLOTS"
    ERRTRACE_RECORDER_SHARDS="$RECORDER_SHARDS" ERRTRACE_COUNTED_SITES="$COUNTED_SITES"
    ERRTRACE_EXPECT_CONTEXTS="$EXPECT_CONTEXTS")
# The footprint limits of a whole errtrace instance in the module (bytes), per
# kernel. data+bss includes one dynamic_debug descriptor per static site (what a
# C pr_debug() callsite costs: 56 bytes with jump labels, 40 without) and the
# demo's own statics (its platform driver, device buses); text includes the
# tracepoint and dyndbg paths; Debian's config optimizes for speed (Rust at
# -Copt-level=2, with IBT and return thunks), tinyconfig for size (-Copt-level=s);
# errtrace.o itself is compiled for size on both (kernel/module/Kbuild). The
# demo's text on 6.12: 59.5 KiB since sites that appear in NMI defer their
# standing queries (the defer hook and the deferred walk).
MAX_DATA_BSS_73=43008
MAX_DATA_BSS_612=38912
MAX_TEXT_73=65536
MAX_TEXT_612=60416
# errtrace's text as a driver ships it (the peer's copy: no control language),
# on both kernels: 48 KiB.
MAX_DRIVER_TEXT=49152
BOOT_TIMEOUT=${ERRTRACE_BOOT_TIMEOUT:-300}
# Per-run output (module build, initramfs, serial log); outside the repository.
OUT=${ERRTRACE_KERNEL_OUT:-$CACHE_ROOT/run}

RUST_WEB_VERSION=1.85.0+dfsg3-1~deb12u3
RUSTC=/usr/bin/rustc
RUSTDOC=/usr/bin/rustdoc
RUSTFMT=/usr/bin/rustfmt
CLIPPY_DRIVER=/usr/bin/clippy-driver
# Linux 7.3 (Debian trixie-backports, with Debian's kernel configs) needs LLVM
# >= 17 and bindgen >= 0.71.1; Linux 6.12 (bookworm) builds with bookworm's
# LLVM 14 and the same bindgen (6.12 asks for >= 0.65.1 and sets no maximum;
# Debian trixie builds its 6.12 with 0.71.1): one bindgen to build, not two.
BACKPORTS_SUITE=trixie-backports
KSRC_PKG_73=linux-source-7.3
KCONFIG_PKG_73=linux-config-7.3
KCONFIG_73=/usr/src/linux-config-7.3/config.amd64_none_amd64.xz
BINDGEN_VERSION_73=0.71.1
LLVM_73=-19
KSRC_PKG_612=linux-source-6.12
BINDGEN_VERSION_612=0.71.1
LLVM_612=1
# Bump when the way the kernel is built changes, to invalidate caches.
RECIPE=1

KERNEL_ONLY=0
TOOLS_ONLY=0
FLAVOURS=()
while (($#)); do
    case $1 in
        --tools-only) TOOLS_ONLY=1 ;;
        --kernel-only) KERNEL_ONLY=1 ;;
        --flavour)
            [[ ${2:-} =~ ^(base|debug|6\.12|upstream-before|upstream|upstream-debug)$ ]] ||
                { echo "test.sh: --flavour takes base, debug, 6.12, upstream-before, upstream or upstream-debug" >&2; exit 2; }
            FLAVOURS+=("$2"); shift ;;
        -h|--help) sed -n '2,/^set -Eeuo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "test.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done
# Every flavour, in the order a run takes them (a copy after the tree it copies).
ALL_FLAVOURS=(base upstream-before upstream 6.12 debug upstream-debug)
((${#FLAVOURS[@]} > 0)) || FLAVOURS=("${ALL_FLAVOURS[@]}")

# ---------------------------------------------------------------- helpers
STEPS_NAME=test.sh
# shellcheck source=kernel/steps.sh
source "$HERE/steps.sh"

[[ $(id -u) -eq 0 ]] || die "must run as root (installs packages, makes device nodes)"

# ---------------------------------------------------------------- steps
APT=(apt-get -o DPkg::Lock::Timeout=900 -y -q)
PACKAGES=(
    "rustc-web=$RUST_WEB_VERSION" "rust-web-src=$RUST_WEB_VERSION"
    "libstd-rust-web-dev=$RUST_WEB_VERSION" "libstd-rust-web-1.85=$RUST_WEB_VERSION"
    "rustfmt-web=$RUST_WEB_VERSION" "rust-web-clippy=$RUST_WEB_VERSION"
    clang lld llvm libclang-dev clang-19 lld-19 llvm-19 libclang-19-dev
    qemu-system-x86 busybox-static flex bison bc libelf-dev libssl-dev cpio
    "$KSRC_PKG_612" "$KSRC_PKG_73/$BACKPORTS_SUITE" "$KCONFIG_PKG_73/$BACKPORTS_SUITE"
    make xz-utils gzip libc6-dev openssl
)

# add_suite SUITE: apt's sources get SUITE on the Debian mirror the machine already uses (the
# URIs of its bookworm entry), at apt's default priority for backports (nothing is taken from it
# unless asked for by name).
add_suite() {
    local suite=$1 file=/etc/apt/sources.list.d/errtrace-$1.sources uri keyring
    grep -rqsE "^(Suites:.*[[:space:]]|deb .*[[:space:]])$suite([[:space:]]|\$)" \
        /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
    uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | grep -v security | grep -m1 -E 'debian/?$' |
        awk '{ print $2 }')
    [[ -n $uri ]] || uri=$(grep -hsE '^deb .* bookworm( |$)' /etc/apt/sources.list | awk '{ print $2 }' | head -n1)
    [[ -n $uri ]] || die "no Debian mirror found in apt's sources to add $suite to"
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    echo "    apt: adding $suite from $uri ($file)"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
        "$uri" "$suite" "$keyring" >"$file"
    APT_UPDATE=1
}

do_apt() {
    APT_UPDATE=0
    add_suite "$BACKPORTS_SUITE"
    # A machine whose qemu-utils came from bookworm-backports (qemu 10) cannot install
    # bookworm's qemu-system-x86 7.2 beside it: take qemu from the same suite.
    local qemu_utils
    qemu_utils=$(dpkg-query -W -f='${db:Status-Status} ${Version}' qemu-utils 2>/dev/null || true)
    if [[ $qemu_utils == installed*bpo12* ]]; then
        add_suite bookworm-backports
        PACKAGES=("${PACKAGES[@]/#qemu-system-x86/qemu-system-x86/bookworm-backports}"
            qemu-system-common/bookworm-backports qemu-system-data/bookworm-backports
            seabios/bookworm-backports)
    fi
    # Skip apt entirely when every package is installed at the wanted version.
    local missing=() p name ver have
    for p in "${PACKAGES[@]}"; do
        name=${p%%=*}; name=${name%%/*}; ver=${p#*=}; [[ $ver == "$p" ]] && ver=
        have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$name" 2>/dev/null || true)
        if [[ $have != installed* ]] || [[ -n $ver && $have != "installed $ver" ]]; then
            missing+=("$p")
        fi
    done
    if ((${#missing[@]} == 0)); then
        echo "    all packages present"
    else
        echo "    installing: ${missing[*]}"
        mkdir -p "$CACHE_ROOT"
        APT_UPDATE=1
    fi
    if ((APT_UPDATE)); then
        mkdir -p "$CACHE_ROOT"
        logged "$CACHE_ROOT/apt.log" "${APT[@]}" update
    fi
    if ((${#missing[@]})); then
        logged "$CACHE_ROOT/apt-install.log" \
            env DEBIAN_FRONTEND=noninteractive "${APT[@]}" install --no-install-recommends "${PACKAGES[@]}"
    fi
    [[ -x $RUSTC ]] || die "$RUSTC missing after install"
    "$RUSTC" --version | grep -q '^rustc 1\.85\.' || die "$RUSTC is not 1.85: $("$RUSTC" --version)"
    local v
    for v in 7.3 6.12; do
        [[ -f /usr/src/linux-source-$v.tar.xz ]] || die "/usr/src/linux-source-$v.tar.xz missing after install"
    done
    [[ -f $KCONFIG_73 ]] || die "$KCONFIG_73 missing after install"
    command -v cargo >/dev/null || die "cargo not found (needed for bindgen-cli and the proc-macro crate)"
}

bindgen_path() { echo "$CACHE_ROOT/tools/bindgen-$1/bin/bindgen"; }

do_bindgen() {
    local v b
    # The bindgen versions the chosen flavours need.
    for v in $(for FLAVOUR in "${FLAVOURS[@]}"; do kernel_vars; echo "$BINDGEN_VERSION"; done | sort -u); do
        b=$(bindgen_path "$v")
        if [[ -x $b ]] && "$b" --version | grep -q " $v\$"; then
            echo "    $b present"
            continue
        fi
        mkdir -p "$CACHE_ROOT/tools"
        # Built with the machine's cargo/rustc; it is a host tool only.
        logged "$CACHE_ROOT/tools/bindgen-$v.log" \
            cargo install --locked --force --root "$CACHE_ROOT/tools/bindgen-$v" bindgen-cli --version "$v"
        "$b" --version
    done
}

KMAKE=()
# What the flavour's own kernel build adds to make's command line (upstream: CLIPPY=1).
KBUILD_EXTRA=()
FLAVOUR=base
# The kernel of the current flavour: version, source package and toolchain.
kernel_vars() {
    case $FLAVOUR in
        6.12)
            KVER=6.12 KSRC_PKG=$KSRC_PKG_612 BINDGEN_VERSION=$BINDGEN_VERSION_612 LLVM_ARG=$LLVM_612 ;;
        *)
            KVER=7.3 KSRC_PKG=$KSRC_PKG_73 BINDGEN_VERSION=$BINDGEN_VERSION_73 LLVM_ARG=$LLVM_73 ;;
    esac
    KSRC_TAR=/usr/src/linux-source-$KVER.tar.xz
    BINDGEN=$(bindgen_path "$BINDGEN_VERSION")
    # LLVM=-19 means clang-19, ld.lld-19, …; LLVM=1 the unsuffixed ones.
    if [[ $LLVM_ARG == 1 ]]; then LLVM_SUFFIX=; else LLVM_SUFFIX=$LLVM_ARG; fi
}
# The config fragments of the current flavour, merged in this order on
# tinyconfig. The 7.3 tree of base and upstream*: Debian's values of the options
# config/debian.options names (debian_fragment writes them to
# $KBASE/debian.fragment), what the guest needs, what errtrace's tests need, then
# the upstream kernels' additions. debug: what the guest and errtrace's tests
# need, and the checkers (its job is finding bugs, not being Debian's kernel).
fragments() {
    case $FLAVOUR in
        6.12)
            echo "$HERE/config.fragment" ;;
        debug)
            echo "$HERE/config/guest.fragment"
            echo "$HERE/config/errtrace.fragment"
            echo "$HERE/config/debug.fragment" ;;
        upstream-debug)
            echo "$HERE/config/guest.fragment"
            echo "$HERE/config/errtrace.fragment"
            echo "$HERE/config/debug.fragment"
            echo "$HERE/config/upstream-debug.fragment"
            echo "$HERE/config/upstream.fragment" ;;
        *)
            echo "${KBASE:-}/debian.fragment"
            echo "$HERE/config/guest.fragment"
            echo "$HERE/config/errtrace.fragment"
            echo "$HERE/config/upstream.fragment" ;;
    esac
}
# The flavour whose built tree this flavour's starts as a copy of (none: built from the tarball).
tree_source() {
    case $FLAVOUR in
        base|upstream) echo upstream-before ;;
        upstream-debug) echo debug ;;
    esac
    return 0
}
# The postings of kernel/patches/: one folder each, in the order they apply (and of value).
postings() { ls -d "$HERE"/patches/*/; }
# posting_patches DIR: one posting's patches, in order (its cover letter is no patch).
posting_patches() { ls "$1"/0*.patch | grep -v '/0000-cover-letter\.patch$'; }
# Every posting's patches, in the order the series kernels apply them.
patches() { local d; for d in $(postings); do posting_patches "$d"; done; }
# The series' options, turned on after the series is applied (the unpatched kernel has none).
SERIES_FRAGMENT=$HERE/config/upstream-series.fragment
upstream() { [[ $FLAVOUR == upstream* ]]; }
kernel_key() {
    kernel_vars
    {
        echo "recipe $RECIPE"
        dpkg-query -W -f='${Package} ${Version}\n' "$KSRC_PKG"
        stat -c '%s %Y' "$KSRC_TAR"
        if [[ $KVER == 7.3 ]]; then
            dpkg-query -W -f='${Package} ${Version}\n' "$KCONFIG_PKG_73"
            xzcat "$KCONFIG_73"
        fi
        local f
        [[ $KVER == 7.3 ]] && cat "$HERE/config/debian.options"
        # (debian.fragment is derived from the two above)
        for f in $(fragments); do [[ $f == */debian.fragment ]] || cat "$f"; done
        # A copy of another flavour's tree: what is added on top.
        case $FLAVOUR in
            base) echo "copy with errtrace built in" ;;
            upstream|upstream-debug)
                for f in $(patches); do cat "$f"; done
                for f in $(postings); do cat "$f"/options.fragment 2>/dev/null || true; done
                cat "$SERIES_FRAGMENT" ;;
        esac
        "$RUSTC" -vV
        "$BINDGEN" --version
        "clang$LLVM_SUFFIX" --version | head -n1
        "ld.lld$LLVM_SUFFIX" --version
    } | sha256sum | cut -c1-16
}
setup_kernel_vars() {
    kernel_vars
    KEY=$(kernel_key)
    KBASE=$CACHE_ROOT/$KEY
    KDIR=$KBASE/linux-source-$KVER
    KSTAMP=$KBASE/.built
    # bindgen loads the newest libclang it finds unless told: each kernel's bindgen gets its
    # own LLVM's libclang (6.12's LLVM 14, 7.3's LLVM 19), as its clang is that LLVM's.
    KMAKE=(env LIBCLANG_PATH="$("llvm-config$LLVM_SUFFIX" --libdir)"
        make -C "$KDIR" LLVM="$LLVM_ARG" RUSTC="$RUSTC" RUSTDOC="$RUSTDOC" BINDGEN="$BINDGEN"
        RUSTFMT="$RUSTFMT" CLIPPY_DRIVER="$CLIPPY_DRIVER")
    KBUILD_EXTRA=()
    [[ $FLAVOUR == upstream || $FLAVOUR == upstream-debug ]] && KBUILD_EXTRA=(CLIPPY=1)
    # This flavour's module build, initramfs and serial log (the base one where it always was).
    if [[ $FLAVOUR == base ]]; then RUN=$OUT; else RUN=$OUT/$FLAVOUR; fi
}

# A copy of the built tree of tree_source (same config), to which this flavour
# adds its part (the series, errtrace built in), so that only that is rebuilt.
do_copy() {
    local src key
    src=$(tree_source)
    key=$(FLAVOUR=$src; kernel_key)
    src=$CACHE_ROOT/$key/linux-source-$KVER
    [[ -f $src/../.built ]] || die "the $(tree_source) kernel is not built"
    echo "    kernel cache: $KBASE (from $src)"
    # Each copy is a 2-3 GB tree: keep only the current one of this flavour.
    local old
    for old in "$CACHE_ROOT"/*/.flavour; do
        [[ -f $old && $(cat "$old") == "$FLAVOUR" ]] || continue
        echo "    removing an earlier $FLAVOUR tree: $(dirname "$old")"
        rm -rf "$(dirname "$old")"
    done
    rm -rf "$KBASE"
    mkdir -p "$KBASE"
    echo "$FLAVOUR" >"$KBASE/.flavour"
    cp -a "$src" "$KDIR"
    cp "$src/../config.fragment" "$KBASE/config.fragment"
}

# A copy whose additions are built later (errtrace built in: do_builtin) is ready as copied.
do_stamp() {
    date -u +%FT%TZ >"$KSTAMP"
}

do_patch() {
    local p
    for p in $(patches); do
        echo "    $(basename "$p")"
        apply_patch "$p"
    done
    touch_rust_outside_crate
}
# apply_patch FILE [-R]: applies a patch to the tree (or takes it off), logged.
apply_patch() {
    if [[ ${2:-} == -R ]]; then
        logged "$KBASE/patch.log" patch -d "$KDIR" -p1 -R --batch -i "$1"
    else
        logged "$KBASE/patch.log" patch -d "$KDIR" -p1 --forward --batch -i "$1"
    fi
}
# Kbuild does not always rebuild a module's Rust objects when the kernel crate
# or the macros change (rnull.o, in composite rnull_mod.ko, kept its unpatched
# module! expansion): make every Rust file outside rust/ newer.
touch_rust_outside_crate() {
    find "$KDIR" -name '*.rs' ! -path "$KDIR/rust/*" -exec touch {} +
}
# merge_fragments FILE...: the fragments merged into the tree's .config, then olddefconfig.
merge_fragments() {
    (cd "$KDIR" && logged "$KBASE/config.log" ./scripts/kconfig/merge_config.sh -m .config "$@")
    logged "$KBASE/config.log" "${KMAKE[@]}" olddefconfig
}
# check_fragment FILE [--defined]: every CONFIG_ line of FILE is in .config (with --defined,
# only those whose symbol some Kconfig file of the tree defines: a later patch may add one).
check_fragment() {
    local line
    while IFS= read -r line; do
        [[ $line =~ ^CONFIG_([A-Z0-9_]+)= ]] || continue
        [[ ${2:-} == --defined ]] &&
            ! grep -rqx --include='Kconfig*' "config ${BASH_REMATCH[1]}" "$KDIR" && continue
        grep -qx "$line" "$KDIR/.config" || die "not in .config: $line ($1)"
    done <"$1"
}

# The series with its options off, as a kernel that does not turn them on
# builds it: its sizes, for the costs (do_costs).
do_build_off() {
    logged "$KBASE/config.log" "${KMAKE[@]}" olddefconfig
    ! grep -qE '^CONFIG_RUST_ERROR_ORIGINS=y' "$KDIR/.config" || die "RUST_ERROR_ORIGINS is on by default"
    logged "$KBASE/build-off.log" "${KMAKE[@]}" -j"$JOBS" vmlinux modules
    sizes "$KDIR" >"$KBASE/sizes-off.txt"
    cat "$KBASE/sizes-off.txt"
}

# The objects the costs compare: vmlinux and the in-tree Rust modules.
COST_OBJECTS=(vmlinux samples/rust/rust_minimal.ko samples/rust/rust_print.ko
    samples/rust/rust_driver_platform.ko samples/rust/rust_driver_faux.ko)
# sizes TREE: one line per cost object of the built TREE: NAME TEXT DATA BSS (size(1), Berkeley).
sizes() {
    local o
    for o in "${COST_OBJECTS[@]}"; do
        echo "$o $(size "$1/$o" | awk 'NR == 2 { print $1, $2, $3 }')"
    done
}

# The series' options on (config/upstream-series.fragment), checked in .config.
do_series_config() {
    merge_fragments "$SERIES_FRAGMENT"
    check_fragment "$SERIES_FRAGMENT"
}

# The files the series touches (for the checks that also see the rest of the tree).
series_files() { for p in $(patches); do sed -nE 's|^\+\+\+ b/(.*)$|\1|p' "$p"; done | sort -u; }

# The series as the list builds it: with clippy (CLIPPY=1; no warning in the
# files the series touches), rustfmtcheck (the whole tree), rustdoc (the kernel
# crate's documentation, no warning). Results in $KBASE/series-checks.txt.
# The clippy build is the options-on build itself, do_kbuild with CLIPPY=1
# (KBUILD_EXTRA; clippy-driver compiles as rustc does), so the Rust objects are
# built once with the options on; its log is read here, after it.
do_series_checks() {
    local out=$KBASE/series-checks.txt files n stamp
    # The tree counts as built only once its checks passed.
    stamp=$(cat "$KSTAMP")
    rm -f "$KSTAMP"
    : >"$out"
    files=$(series_files | grep '\.rs$' | paste -sd'|')
    n=$(grep -cE -- "--> ($files):" "$KBASE/build.log" || true)
    echo "CLIPPY=1: $n warnings in the series' files ($(grep -c '^warning' "$KBASE/build.log" || true) in the tree)" | tee -a "$out"
    ((n == 0)) || { grep -E -B4 -A8 -- "--> ($files):" "$KBASE/build.log" >&2; die "clippy warns on the series"; }
    logged "$KBASE/rustfmtcheck.log" "${KMAKE[@]}" rustfmtcheck ||
        { cat "$KBASE/rustfmtcheck.log" >&2; die "make rustfmtcheck failed"; }
    echo "rustfmtcheck: clean" | tee -a "$out"
    logged "$KBASE/rustdoc.log" "${KMAKE[@]}" -j"$JOBS" rustdoc ||
        { tail -n 40 "$KBASE/rustdoc.log" >&2; die "make rustdoc failed"; }
    n=$(grep -c '^warning' "$KBASE/rustdoc.log" || true)
    echo "rustdoc: $n warnings" | tee -a "$out"
    ((n == 0)) || { grep -A8 '^warning' "$KBASE/rustdoc.log" >&2; die "rustdoc warns"; }
    echo "$stamp" >"$KSTAMP"
}

# upstream-debug: the debug tree with what the upstream scenarios need (the Rust samples,
# failslab, fail_function, the kernel crate's doctests, PCI and I2C for their adapters).
do_upstream_debug_config() {
    merge_fragments "$HERE/config/upstream-debug.fragment" "$HERE/config/upstream.fragment"
    check_fragment "$HERE/config/upstream-debug.fragment"
    check_fragment "$HERE/config/upstream.fragment"
}
# The debug tree with config/upstream.fragment, built, is kept apart from the postings
# ($UPSTREAM_DEBUG_BASE, for as long as the debug tree and the fragments are the same), so that
# a change to a posting costs the postings' builds, not this one's.
UPSTREAM_DEBUG_BASE=$CACHE_ROOT/upstream-debug-base
do_upstream_debug_base() {
    local key
    key=$( { FLAVOUR=debug; kernel_key; cat "$HERE/config/upstream-debug.fragment" "$HERE/config/upstream.fragment"; } |
        sha256sum | cut -c1-16)
    if [[ -f $UPSTREAM_DEBUG_BASE/.key && $(cat "$UPSTREAM_DEBUG_BASE/.key") == "$key" ]]; then
        echo "    the debug tree with config/upstream.fragment, built before: $UPSTREAM_DEBUG_BASE"
        rm -rf "$KDIR"
        cp -a "$UPSTREAM_DEBUG_BASE/linux-source-$KVER" "$KDIR"
        return 0
    fi
    do_upstream_debug_config
    logged "$KBASE/build-base.log" "${KMAKE[@]}" -j"$JOBS" vmlinux modules
    rm -rf "$UPSTREAM_DEBUG_BASE"
    mkdir -p "$UPSTREAM_DEBUG_BASE"
    cp -a "$KDIR" "$UPSTREAM_DEBUG_BASE/linux-source-$KVER"
    echo "$key" >"$UPSTREAM_DEBUG_BASE/.key"
}

# Each posting built alone on the tree, patch by patch: every patch with the posting's options
# (its options.fragment) off, then, for a posting that has options, every patch with them on
# (CLIPPY=1 throughout: no warning in the files the posting touches). A posting whose builds
# passed before with the same content, tree and options is not built again ($POSTINGS_CACHE).
# Each posting is taken off again before the next, except the last, which stays with its options
# on; the others are applied on top of it, so that the tree ends as the series kernel
# (do_kbuild builds it). Results in $KBASE/postings.txt.
POSTINGS_CACHE=$CACHE_ROOT/postings
do_postings() {
    local out=$KBASE/postings.txt base_config=$KBASE/base.config all last d
    : >"$out"
    cp "$KDIR/.config" "$base_config"
    mapfile -t all < <(postings)
    last=${all[-1]}
    for d in "${all[@]}"; do
        posting_alone "$d" | tee -a "$out"
        [[ $d == "$last" ]] && continue
        posting_apply "$d" -R
        # The next posting starts from the tree's own configuration.
        cp "$base_config" "$KDIR/.config"
        logged "$KBASE/config.log" "${KMAKE[@]}" olddefconfig
    done
    for d in "${all[@]}"; do [[ $d == "$last" ]] || posting_apply "$d"; done
    do_series_config
    touch_rust_outside_crate
}
# posting_apply DIR [-R]: applies (or takes off) a posting's patches, in order (reverse order).
posting_apply() {
    local ps p
    mapfile -t ps < <(posting_patches "$1")
    if [[ ${2:-} == -R ]]; then
        for ((p = ${#ps[@]} - 1; p >= 0; p--)); do apply_patch "${ps[p]}" -R; done
    else
        for p in "${ps[@]}"; do apply_patch "$p"; done
    fi
}
# posting_alone DIR: the builds of one posting, ending with all its patches applied (and its
# options on, if it has any).
posting_alone() {
    local d=$1 name ps opts key i files n
    name=$(basename "$d")
    mapfile -t ps < <(posting_patches "$d")
    opts=$d/options.fragment
    key=$( { echo "$KEY"; cat "${ps[@]}"; cat "$opts" 2>/dev/null || true; } | sha256sum | cut -c1-16)
    files=$(for i in "${ps[@]}"; do sed -nE 's|^\+\+\+ b/(.*\.rs)$|\1|p' "$i"; done | sort -u | paste -sd'|')
    # posting_build WHAT: one build of the tree as it is now; no clippy warning in the posting's files.
    posting_build() {
        touch_rust_outside_crate
        logged "$KBASE/posting-build.log" "${KMAKE[@]}" -j"$JOBS" CLIPPY=1 vmlinux modules ||
            { tail -n 40 "$KBASE/posting-build.log" >&2; die "$name: $1 does not build"; }
        n=$(grep -cE -- "--> ($files):" "$KBASE/posting-build.log" || true)
        ((n == 0)) || { grep -E -B4 -A8 -- "--> ($files):" "$KBASE/posting-build.log" >&2; die "$name: clippy warns in $1"; }
        echo "$name: $1: builds, CLIPPY=1 clean"
    }
    if [[ -f $POSTINGS_CACHE/$key ]]; then
        echo "$name: built alone before with this content ($(cat "$POSTINGS_CACHE/$key")); not again"
        posting_apply "$d"
        [[ -f $opts ]] && posting_options "$opts"
        return 0
    fi
    for i in "${!ps[@]}"; do
        apply_patch "${ps[i]}"
        if [[ -f $opts ]]; then posting_build "$(basename "${ps[i]}") (options off)"; else posting_build "$(basename "${ps[i]}")"; fi
    done
    if [[ -f $opts ]]; then
        # Options on: from the first patch again (the others taken off), then one by one.
        for ((i = ${#ps[@]} - 1; i >= 1; i--)); do apply_patch "${ps[i]}" -R; done
        for i in "${!ps[@]}"; do
            ((i == 0)) || apply_patch "${ps[i]}"
            # The options this patch's tree has (a later patch may add one: it is on from there).
            posting_options "$opts"
            posting_build "$(basename "${ps[i]}") (options on)"
        done
    fi
    mkdir -p "$POSTINGS_CACHE"
    date -u +%FT%TZ >"$POSTINGS_CACHE/$key"
}
# posting_options FILE: a posting's options on, those the tree has so far (each checked in .config).
posting_options() {
    merge_fragments "$1"
    check_fragment "$1" --defined
}

do_untar() {
    echo "    kernel cache: $KBASE"
    rm -rf "$KBASE"
    mkdir -p "$KBASE"
    tar -C "$KBASE" -xJf "$KSRC_TAR"
    [[ -f $KDIR/Makefile ]] || die "unexpected tarball layout: no $KDIR/Makefile"
}

# debian_fragment: Debian's line for each option config/debian.options names,
# into $KBASE/debian.fragment.
debian_fragment() {
    local debian opt line
    debian=$(xzcat "$KCONFIG_73")
    : >"$KBASE/debian.fragment"
    while read -r opt; do
        [[ $opt =~ ^[A-Z0-9_]+$ ]] || continue
        line=$(grep -E "^(CONFIG_$opt=|# CONFIG_$opt is not set\$)" <<<"$debian") ||
            die "config/debian.options: $opt is not in Debian's config"
        echo "$line" >>"$KBASE/debian.fragment"
    done < <(grep -v '^#' "$HERE/config/debian.options")
}

do_config() {
    logged "$KBASE/config.log" "${KMAKE[@]}" rustavailable
    logged "$KBASE/config.log" "${KMAKE[@]}" tinyconfig
    [[ $KVER == 7.3 ]] && debian_fragment
    local -a frags
    mapfile -t frags < <(fragments)
    merge_fragments "${frags[@]}"
    cat "${frags[@]}" >"$KBASE/config.fragment"
    # Every line of the fragments must have survived (dependencies can drop options).
    local line opt bad=0
    while IFS= read -r line; do
        if [[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ]]; then
            grep -qx "$line" "$KDIR/.config" || { echo "    not in .config: $line" >&2; bad=1; }
        elif [[ $line =~ ^#\ (CONFIG_[A-Z0-9_]+)\ is\ not\ set$ ]]; then
            opt=${BASH_REMATCH[1]}
            grep -q "^$opt=" "$KDIR/.config" && { echo "    still set: $(grep "^$opt=" "$KDIR/.config")" >&2; bad=1; }
        fi
    done < <(cat "${frags[@]}")
    ((bad == 0)) || die "config fragment not applied (see $KBASE/config.log and $KDIR/.config)"
}

do_kbuild() {
    echo "    log: $KBASE/build.log"
    # `modules` (no in-tree modules with this config) writes Module.symvers,
    # which modpost needs to resolve an external module's kernel symbols.
    logged "$KBASE/build.log" "${KMAKE[@]}" -j"$JOBS" "${KBUILD_EXTRA[@]}" bzImage modules modules_prepare
    [[ -f $KDIR/arch/x86/boot/bzImage ]] || die "no bzImage"
    [[ -f $KDIR/Module.symvers ]] || die "no Module.symvers"
    [[ -f $KDIR/rust/libkernel.rmeta ]] || die "no rust/libkernel.rmeta (Rust support not built)"
    date -u +%FT%TZ >"$KSTAMP"
}

do_macros() {
    [[ -f $MACROS_DIR/Cargo.toml ]] || die "no Cargo.toml in ERRTRACE_MACROS_DIR=$MACROS_DIR"
    local target=$CACHE_ROOT/macros-target
    echo "    $MACROS_PKG from $MACROS_DIR (target dir $target)"
    # Same rustc as the kernel: a proc-macro .so is loaded into that rustc.
    # -p builds only that package and its dependencies, even in a workspace.
    logged "$OUT/macros.log" \
        env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS RUSTC="$RUSTC" RUSTDOC="$RUSTDOC" \
        cargo build --release -p "$MACROS_PKG" \
        --manifest-path "$MACROS_DIR/Cargo.toml" --target-dir "$target"
    MACROS_SO=$target/release/lib$MACROS_LIB.so
    [[ -f $MACROS_SO ]] || die "proc-macro library not found: $MACROS_SO"
    echo "    $MACROS_SO"
}

# Path of a directory relative to the repository (absolute if outside it).
repo_rel() {
    local abs
    abs=$(cd "$1" && pwd)
    case $abs in
        "$REPO"/*) echo "${abs#"$REPO"/}" ;;
        *) echo "$abs" ;;
    esac
}

# The errtrace users' sources, each in its own folder as a driver's would be: the demo, the
# peer (also built into the kernel) and the KUnit suite.
PEER_SRC=$HERE/peer
KUNIT_SRC=$HERE/kunit

# stage_module SRC DIR: a fresh DIR with SRC's files and errtrace through the driver kit
# (kernel/kit/setup.sh: errtrace/ with the core's source, linked, and the Linux glue), as a
# driver of its own would have them.
stage_module() {
    local src=$1 mdir=$2
    rm -rf "$mdir"
    mkdir -p "$mdir"
    cp -r "$src/." "$mdir/"
    bash "$HERE/kit/setup.sh" --link --core "$CORE_SRC" "$mdir" >/dev/null
}

# kbuild_vars SRC: the variables the kit's errtrace.mk reads for the module of SRC, one
# NAME=VALUE a line: the module build passes them on make's command line, the built-in copy
# writes them into its Kbuild file.
kbuild_vars() {
    printf '%s\n' "ERRTRACE_MACROS_SO=$MACROS_SO" "ERRTRACE_MACROS_LIB=$MACROS_LIB" \
        "ERRTRACE_FEATURES=$CORE_FEATURES" \
        "ERRTRACE_CORE_REL=$(repo_rel "$CORE_SRC")" \
        "ERRTRACE_MODULE_REL=$(repo_rel "$1")"
}

# build_module SRC DIR LOG [MAKE ARGS...]: a copy of SRC with errtrace, built in DIR.
build_module() {
    local src=$1 mdir=$2 log=$3; shift 3
    stage_module "$src" "$mdir"
    # A misuse to add (do_misuse): one more submodule of the main crate.
    if [[ -n ${MODULE_SRC_EXTRA:-} ]]; then
        cp "$MODULE_SRC_EXTRA" "$mdir/misuse.rs"
        printf '\nmod misuse;\n' >>"$mdir/demo.rs"
    fi
    echo "    build dir: $mdir"
    local rc=0 vars
    mapfile -t vars < <(kbuild_vars "$src")
    logged "$log" env "${STORAGE_ENV[@]}" "${KMAKE[@]}" -j"$JOBS" M="$mdir" \
        "${vars[@]}" "$@" modules || rc=$?
    # A misuse (do_misuse) is expected to fail: its diagnostics are not printed.
    if [[ -z ${MODULE_SRC_EXTRA:-} ]] && grep -E '^(warning|error)' "$log" >/dev/null; then
        echo "    compiler diagnostics (full log: $log):"
        grep -E -A6 '^(warning|error)' "$log" | sed 's/^/      /'
    fi
    return "$rc"
}

# A copy of errtrace built into the kernel (Linux 6.13+, the base flavour): the
# peer's source as drivers/misc/errtrace_builtin/ (module name errtrace_builtin,
# linked into vmlinux), beside the modules' own copies. The directory is a copy
# of the module's sources with errtrace's, as for a module; its Kbuild names
# what the module build passes on make's command line. Rebuilt incrementally.
do_builtin() {
    local dir=$KDIR/drivers/misc/errtrace_builtin stage=$RUN/builtin-src
    stage_module "$PEER_SRC" "$stage"
    {
        echo "# Written by kernel/test.sh: the peer (kernel/peer) built into the kernel."
        echo "obj-y := errtrace_builtin.o"
        echo "errtrace_builtin-y := peer.o fault_attr.o"
        echo "ERRTRACE_MODULE := errtrace_builtin"
        echo "ERRTRACE_USERS := peer.o"
        CORE_FEATURES=$DRIVER_FEATURES kbuild_vars "$PEER_SRC" | sed 's/=/ := /'
        echo 'include $(src)/errtrace/errtrace.mk'
    } >"$stage/Kbuild"
    # Replaced (and so rebuilt) only when the sources differ from the last copy's
    # (the checksum reads through errtrace/core's links).
    local sum
    sum=$(cd "$stage" && find -L . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
    if [[ ! -f $dir/.sources.sum || $(cat "$dir/.sources.sum") != "$sum" ]]; then
        rm -rf "$dir"
        # Real files, not links into the repository: the kernel tree outlives the checkout.
        cp -rL "$stage" "$dir"
        echo "$sum" >"$dir/.sources.sum"
    fi
    grep -qx 'obj-y += errtrace_builtin/' "$KDIR/drivers/misc/Makefile" ||
        echo 'obj-y += errtrace_builtin/' >>"$KDIR/drivers/misc/Makefile"
    echo "    $dir (log: $RUN/builtin.log)"
    logged "$RUN/builtin.log" env "${STORAGE_ENV[@]}" "${KMAKE[@]}" -j"$JOBS" bzImage
    local syms
    syms=$(nm "$KDIR/vmlinux")
    grep -q ' __errtrace_builtin_init$' <<<"$syms" || die "errtrace_builtin is not in vmlinux"
}

# tree_state: every file of the kernel tree with its size, mode and modification time.
tree_state() {
    find "$KDIR" -printf '%P %s %m %T@\n' | LC_ALL=C sort
}

# check_expect FILE LOG: FILE's patterns (kernel/kit/template/try.expect's form: one extended
# regular expression a line, matched in order; `!PATTERN` must match no line) against LOG.
check_expect() {
    local pat at=0 n bad=0
    while IFS= read -r pat; do
        [[ -z $pat || $pat == '#'* ]] && continue
        if [[ $pat == '!'* ]]; then
            if grep -Eq -- "${pat#!}" "$2"; then
                echo "    unexpected: /${pat#!}/: $(grep -E -m1 -- "${pat#!}" "$2")"; bad=1
            fi
            continue
        fi
        n=$(tail -n +$((at + 1)) "$2" | grep -En -m1 -- "$pat" | cut -d: -f1) || true
        if [[ -z $n ]]; then
            echo "    missing (after line $at): /$pat/"; bad=1
        else
            at=$((at + n))
        fi
    done <"$1"
    return "$bad"
}

# The driver kit as a driver's author uses it (kernel/kit): the template set up in a clean folder
# with setup.sh, built against this tree twice (the second after a change to its source: an
# incremental build), the tree's files unchanged by both (path, size, mode, modification time);
# then booted with kit/boot.sh and its try.sh, and the serial log held to try.expect.
do_kit() {
    local dir=$RUN/kit-template log=$RUN/kit.log before o
    rm -rf "$dir"
    bash "$HERE/kit/setup.sh" --template --kdir "$KDIR" "$dir" >"$log"
    before=$(tree_state)
    logged "$log" "${KMAKE[@]}" -j"$JOBS" M="$dir" modules
    touch "$dir/template.rs"
    logged "$RUN/kit-rebuild.log" "${KMAKE[@]}" -j"$JOBS" M="$dir" modules
    grep -q 'RUSTC \[M\] template.o' "$RUN/kit-rebuild.log" || die "the second build did not rebuild template.o"
    if [[ $(tree_state) != "$before" ]]; then
        diff <(echo "$before") <(tree_state) | head -n 20 >&2
        die "building the template changed the kernel tree $KDIR (above)"
    fi
    echo "    $dir: built twice, the kernel tree unchanged"
    echo "    the template's sizes (size, bytes):"
    for o in errtrace/core/errtrace.o errtrace/linux/errtrace_linux.o errtrace_template.ko; do
        size "$dir/$o" | awk -v o="$o" 'NR == 2 { printf "      %-32s text %6d  data %5d  bss %6d\n", o, $1, $2, $3 }'
    done | tee "$RUN/kit-sizes.txt"
    logged "$RUN/kit-boot.log" bash "$HERE/kit/boot.sh" --kdir "$KDIR" \
        --script "$HERE/kit/template/try.sh" "$dir/errtrace_template.ko"
    STEP_LOG=
    check_expect "$HERE/kit/template/try.expect" "$RUN/kit-boot.log" ||
        die "the template's boot log (kit/template/try.expect; log: $RUN/kit-boot.log)"
    echo "    booted: the failing probes' reports as kit/template/try.expect says"
}

do_module() {
    [[ -f $CORE_SRC/lib.rs ]] || die "no lib.rs in ERRTRACE_CORE_SRC=$CORE_SRC"
    build_module "$MODULE_SRC" "$RUN/module" "$RUN/module.log"
    # The second errtrace user (errtrace_peer.ko), with its own copy of errtrace,
    # built as a driver ships it (no control language).
    CORE_FEATURES=$DRIVER_FEATURES build_module "$PEER_SRC" "$RUN/peer" "$RUN/peer.log"
    local ko expected=2
    # The KUnit suite errtrace_recorder (errtrace_kunit.ko; #[kunit_tests] needs Linux 6.13+).
    rm -rf "$RUN/kunit"
    if [[ $KVER != 6.12 ]]; then
        build_module "$KUNIT_SRC" "$RUN/kunit" "$RUN/kunit.log"
        expected=3
    fi
    shopt -s nullglob
    KOS=("$RUN/module"/*.ko "$RUN/peer"/*.ko "$RUN/kunit"/*.ko)
    shopt -u nullglob
    ((${#KOS[@]} == expected)) || die "expected $expected modules (demo, peer, kunit), built: ${KOS[*]}"
    for ko in "${KOS[@]}"; do echo "    $ko ($(stat -c %s "$ko") bytes)"; done
    static_branches "$RUN/module/errtrace_demo.ko"
    do_misuse
    footprint "$RUN/module" "$RUN/peer"
}

# The misuses of kernel/misuse/*.rs must not compile: each is added to a copy of
# the module (as a submodule of demo.rs) and rustc must refuse it with the
# error its first line names ("// expect: E0603 ...").
do_misuse() {
    local f name expect log
    for f in "$HERE"/misuse/*.rs; do
        name=$(basename "$f" .rs)
        expect=$(sed -nE 's|^// expect: (.*)$|\1|p' "$f")
        [[ -n $expect ]] || die "$f: no '// expect: ERROR' line"
        log=$RUN/misuse-$name.log
        if MODULE_SRC_EXTRA=$f build_module "$MODULE_SRC" "$RUN/misuse-$name" "$log" 2>/dev/null; then
            die "misuse $name compiled; it must not (log: $log)"
        fi
        grep -qF -- "$expect" "$log" || die "misuse $name failed without '$expect' (log: $log)"
        echo "    misuse $name: rejected by rustc with '$expect'"
    done
}

# With CONFIG_JUMP_LABEL a dynamic_debug descriptor of errtrace's sites has one
# static branch on its key: a __jump_table entry naming the descriptor (the
# site's check of p); without it, none (the check is a load of the flags word).
# A site whose code the compiler removed keeps its descriptor (it is #[used])
# but has no branch: hence at most one per descriptor.
static_branches() {
    local ko=$1 descriptors branches
    descriptors=$(nm "$ko" | grep -c '___ERRTRACE_DYNDBG$' || true)
    branches=$( (objdump -r -j __jump_table "$ko" 2>/dev/null || true) | grep -c '___ERRTRACE_DYNDBG' || true)
    echo "    dynamic_debug descriptors: $descriptors, static branches on their keys: $branches"
    ((descriptors > 0)) || die "no dynamic_debug descriptors in $ko"
    if grep -qx 'CONFIG_JUMP_LABEL=y' "$KDIR/.config"; then
        ((branches > 0 && branches <= descriptors)) ||
            die "JUMP_LABEL=y: expected up to one static branch per descriptor, at least one"
    else
        ((branches == 0)) || die "JUMP_LABEL off: expected no static branches"
    fi
}

# The errtrace footprint, measured with size(1) (Berkeley: text = code and
# read-only data). The library object holds errtrace's code, recorder, location
# pool and tables; the demo's static sites are in the rest of the module. Limits:
# errtrace's text (the library object) and data+bss of the whole module (which
# bounds core + recorder + the demo's sites).
footprint() {
    local mdir=$1 pdir=$2 obj t d b lib_t drv_t ko_data name
    # Also kept in $RUN/footprint.txt, which kernel/captures.sh copies for the guide.
    exec 3>"$RUN/footprint.txt"
    echo "    errtrace footprint (size, bytes):" | tee -a /dev/fd/3
    for obj in "$mdir/errtrace/core/errtrace.o" "$mdir/errtrace_demo.ko" "$pdir/errtrace/core/errtrace.o"; do
        read -r t d b < <(size "$obj" | awk 'NR == 2 { print $1, $2, $3 }')
        name=$(basename "$obj")
        case $obj in
            "$mdir"/*/errtrace.o) lib_t=$t; name="errtrace.o (demo)" ;;
            "$pdir"/*/errtrace.o) drv_t=$t; name="errtrace.o (driver)" ;;
            *.ko) ko_data=$((d + b)) ;;
        esac
        printf '      %-22s text %6d  data %6d  bss %6d  data+bss %6d\n' \
            "$name" "$t" "$d" "$b" $((d + b)) | tee -a /dev/fd/3
    done
    if [[ $FLAVOUR == debug ]]; then
        # KASAN and lockdep instrument every access: sizes say nothing about errtrace's.
        echo "    (no limits for the $FLAVOUR kernel's instrumented build)"
        exec 3>&-
        return
    fi
    local max_data=$MAX_DATA_BSS_612 max_text=$MAX_TEXT_612
    [[ $KVER == 7.3 ]] && { max_data=$MAX_DATA_BSS_73; max_text=$MAX_TEXT_73; }
    echo "    limits (Linux $KVER): errtrace text <= $max_text (demo, with the control language), <= $MAX_DRIVER_TEXT (driver), module data+bss <= $max_data" | tee -a /dev/fd/3
    exec 3>&-
    ((lib_t <= max_text)) || die "errtrace text $lib_t bytes > $max_text"
    ((drv_t <= MAX_DRIVER_TEXT)) || die "errtrace text as a driver ships it: $drv_t bytes > $MAX_DRIVER_TEXT"
    ((ko_data <= max_data)) || die "module data+bss $ko_data bytes > $max_data"
}

# The upstream kernels: the in-tree Rust modules the config builds, unmodified,
# and upstream-module/ (a platform driver whose probe fails as told).
UPSTREAM_MODULE_SRC=$HERE/upstream-module
do_intree_modules() {
    local ko
    mapfile -t KOS < <(find "$KDIR/samples/rust" -name '*.ko' | sort)
    for ko in rust_minimal rust_print rust_driver_platform rust_driver_faux; do
        printf '%s\n' "${KOS[@]}" | grep -q "/$ko\.ko\$" || die "in-tree module $ko.ko not built"
    done
    for ko in "${KOS[@]}"; do echo "    ${ko#"$KDIR"/} ($(stat -c %s "$ko") bytes)"; done
    # Built into vmlinux: the kernel crate's doctests.
    [[ -f $KDIR/rust/doctests_kernel_generated.o ]] || die "the kernel crate's doctests were not built"
    echo "    rust/doctests_kernel_generated.o (built in)"
    local mdir=$RUN/upstream-module
    rm -rf "$mdir"
    cp -r "$UPSTREAM_MODULE_SRC" "$mdir"
    logged "$RUN/upstream-module.log" "${KMAKE[@]}" -j"$JOBS" M="$mdir" modules
    [[ -f $mdir/rust_probe_test.ko ]] || die "rust_probe_test.ko not built"
    KOS+=("$mdir/rust_probe_test.ko")
    echo "    $mdir/rust_probe_test.ko ($(stat -c %s "$mdir/rust_probe_test.ko") bytes)"
}

do_initramfs() {
    local root=$RUN/initramfs
    rm -rf "$root"
    mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,lib/modules}
    [[ -x /bin/busybox ]] || die "/bin/busybox missing (package busybox-static)"
    cp /bin/busybox "$root/bin/busybox"
    # Our insmod (finit_module only), run as /sbin/insmod: busybox's runs a
    # failing module init twice (it retries with init_module), and busybox sh
    # prefers its own applets to PATH. See kernel/guest/insmod.c.
    STEP_LOG=$RUN/insmod.log
    clang -static -Os -s -Wall -o "$root/sbin/insmod" "$HERE/guest/insmod.c" >"$STEP_LOG" 2>&1
    mknod -m 600 "$root/dev/console" c 5 1
    mknod -m 666 "$root/dev/null" c 1 3
    cp "${KOS[@]}" "$root/lib/modules/"
    if upstream; then
        cp "$UPSTREAM_SCENARIOS" "$root/scenarios.sh"
    else
        cp "$SCENARIOS" "$root/scenarios.sh"
    fi
    # The debug kernel also runs the stress scenario, with every CPU.
    [[ $FLAVOUR == debug ]] && cp "$STRESS" "$root/stress.sh"
    cp "$HERE/kit/guest.sh" "$root/guest.sh"
    cat >"$root/init" <<'EOF'
#!/bin/busybox sh
# The helpers (say, run, bind) and the mounts: kernel/kit/guest.sh.
MARK=ERRTRACE-
. /guest.sh
say "ERRTRACE-GUEST: start"
# scenario NAME: marks the start of a scenario in the serial log.
scenario() { say "ERRTRACE-SCENARIO: $*"; }
# With the stress scenario (the debug kernel, 4 CPUs), the other scenarios run
# pinned to CPU 0, so that their CPU ids and orders are those of the base kernel.
if [ -f /stress.sh ]; then taskset -p 1 $$ >/dev/null; fi
. /scenarios.sh
if [ -f /stress.sh ]; then taskset -p ff $$ >/dev/null; . /stress.sh; fi
say "ERRTRACE-GUEST: done"
reboot -f
EOF
    chmod +x "$root/init"
    (cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$RUN/initramfs.cpio.gz"
    echo "    $RUN/initramfs.cpio.gz"
}

do_boot() {
    SERIAL_LOG=$RUN/serial.log
    rm -f "$SERIAL_LOG"
    echo "    serial log: $SERIAL_LOG"
    local rc=0 machine=(-m 512) limit=$BOOT_TIMEOUT
    # The 7.3 kernels have no ACPI (config/guest.fragment): qemu's microvm machine, whose
    # firmware (qboot) lists every CPU in the MP table. 6.12 (one CPU) boots on the PC machine.
    # `reboot=t`: the guest's `reboot -f` resets by a triple fault, which ends qemu (-no-reboot);
    # microvm has no keyboard controller or ACPI reset to do it otherwise (qemu kept spinning).
    [[ $KVER == 7.3 ]] && machine=(-M microvm,acpi=off "${machine[@]}")
    # The debug kernel: 4 CPUs, and room for KASAN's shadow and lockdep's tables.
    [[ $FLAVOUR == debug ]] && { machine=(-M microvm,acpi=off -smp 4 -m 1024); limit=$((BOOT_TIMEOUT * 3)); }
    # The upstream kernels: 2 CPUs (the series' KUnit suite runs captures on both at once);
    # on the debug tree, room for KASAN's shadow and lockdep's tables.
    upstream && machine=(-M microvm,acpi=off -smp 2 -m 1024)
    [[ $FLAVOUR == upstream-debug ]] && { machine=(-M microvm,acpi=off -smp 2 -m 1536); limit=$((BOOT_TIMEOUT * 3)); }
    timeout --foreground -k 10 "$limit" \
        qemu-system-x86_64 -accel tcg -nographic -no-reboot "${machine[@]}" \
        -kernel "$KDIR/arch/x86/boot/bzImage" -initrd "$RUN/initramfs.cpio.gz" \
        -append "console=ttyS0 panic=-1 oops=panic printk.devkmsg=on log_buf_len=8M reboot=t" \
        -serial "file:$SERIAL_LOG" -monitor none </dev/null >"$RUN/qemu.out" 2>&1 || rc=$?
    # Drop CRs and the firmware's terminal escape sequences; the guest's own lines
    # (said through /dev/kmsg, see /init) lose their timestamp and mark.
    [[ -f $SERIAL_LOG ]] && sed -i -E -e 's/\r$//' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' \
        -e 's/^\[ *[0-9]+\.[0-9]+\] @@ //' "$SERIAL_LOG"
    ((rc != 124)) || die "qemu timed out after ${limit}s (serial log: $SERIAL_LOG)"
    ((rc == 0)) || die "qemu exited $rc: $(cat "$RUN/qemu.out") (serial log: $SERIAL_LOG)"
    [[ -s $SERIAL_LOG ]] || die "empty serial log"
}

# disasm ELF REGEX: the instructions of the text symbol matching REGEX (not its
# __pfx_ padding symbol).
disasm() {
    local start end
    # (awk reads all of nm's output: an early exit would kill nm with SIGPIPE)
    read -r start end < <(nm -n "$1" | awk -v re="$2" '
        found == 1 { print s, $1; found = 2 } !found && $2 ~ /^[Tt]$/ && $3 ~ re && $3 !~ /^__pfx_/ { s = $1; found = 1 }')
    objdump -d --no-show-raw-insn --start-address=0x"$start" --stop-address=0x"$end" "$1" |
        awk '/^ *[0-9a-f]+:\t/ { sub(/^ *[0-9a-f]+:\t/, "      "); print }'
}

# The series' cost, measured on the two upstream trees (same config): sizes of
# vmlinux and of the in-tree Rust modules without the series, with it and its
# options off (do_build_off), and with them on; the success path of a caller
# of to_result() (kernel::firmware::request_into_buf: the same instructions up
# to its return); what an error made while no probe or init runs executes
# with the options on.
do_costs() {
    local before m tb db to do ta da _
    before=$(FLAVOUR=$(tree_source); kernel_key)
    before=$CACHE_ROOT/$before/linux-source-$KVER
    [[ -f $before/vmlinux ]] || die "no upstream-before vmlinux in $before"
    [[ -f $KBASE/sizes-off.txt ]] || die "no sizes of the options-off build in $KBASE"
    exec 3>"$RUN/costs.txt"
    {
        echo "    size (bytes)                   text: before   options off (+)      on (+)"
        # Before, options off, on: the same objects in the same order, side by side.
        while read -r m tb db _ _ to do _ _ ta da _; do
            printf '    %-30s %10d %10d (%+6d) %10d (%+6d)\n' "$(basename "$m") text" "$tb" "$to" $((to - tb)) "$ta" $((ta - tb))
            printf '    %-30s %10d %10d (%+6d) %10d (%+6d)\n' "$(basename "$m") data" "$db" "$do" $((do - db)) "$da" $((da - db))
        done < <(paste -d' ' <(sizes "$before") "$KBASE/sizes-off.txt" <(sizes "$KDIR"))
        local fn='6kernel8firmware16request_into_buf$'
        echo "    kernel::firmware::request_into_buf (to_result on request_firmware_into_buf), before:"
        disasm "$before/vmlinux" "$fn"
        echo "    after (options on):"
        disasm "$KDIR/vmlinux" "$fn"
        echo "    what each error made runs after its constructor (options on), Error::made_here: current"
        echo "    (the get_current helper), a load of its rust_error_capture, a load of the tracepoint"
        echo "    key's count; note when either is set:"
        disasm "$KDIR/vmlinux" '6kernel5error.*5Error9made_here$'
        echo "    instructions of the out-of-line part (tracepoint, capture), origin::imp::note: $(disasm "$KDIR/vmlinux" '6origin3imp4note$' | wc -l)"
    } | tee /dev/fd/3
    exec 3>&-
}

# The series' checks done when its kernel was built (do_series_checks), and
# checkpatch --strict (no sign-off check: the patches carry none, a submitter
# adds theirs); any ERROR fails the run.
do_checkpatch() {
    local out=$RUN/checkpatch.txt p total
    : >"$out"
    for p in $(patches); do
        total=$(cd "$KDIR" && perl scripts/checkpatch.pl --strict --no-signoff "$p" 2>&1 |
            grep '^total:' || true)
        [[ -n $total ]] || die "checkpatch printed no total for $(basename "$p")"
        printf '    %s\n      %s\n' "$(basename "$p")" "$total" | tee -a "$out"
        [[ $total == "total: 0 errors"* ]] || die "checkpatch reports errors in $(basename "$p")"
    done
    [[ -f $KBASE/series-checks.txt ]] || die "no $KBASE/series-checks.txt (the series' checks did not run)"
    sed 's/^/    /' "$KBASE/series-checks.txt" | tee -a "$out"
}

do_check() {
    # The tree the log came from (check.sh reads in-tree positions from it; captures.sh too).
    echo "$KDIR" >"$RUN/kdir"
    bash "$CHECK" "$SERIAL_LOG" "$FLAVOUR" "$KDIR" || die "serial log checks failed (log: $SERIAL_LOG)"
}

# ---------------------------------------------------------------- disk
# A built tree is 2-3 GB; the six flavours' trees and the facts tree take about 18 GB.
TREE_GB=4
# Trees of keys no flavour has now (an earlier config, series or toolchain) are removed
# before anything is built: without this the cache grows by a tree at every change.
prune_trees() {
    local keep=() f d
    for f in "${ALL_FLAVOURS[@]}"; do keep+=("$(FLAVOUR=$f; kernel_key)"); done
    for d in "$CACHE_ROOT"/????????????????/; do
        [[ -d $d ]] || continue
        d=${d%/}
        [[ " ${keep[*]} " == *" ${d##*/} "* ]] && continue
        echo "    removing a tree no flavour uses now: $d ($(du -sh "$d" | cut -f1))"
        rm -rf "$d"
    done
}
# Before a tree is unpacked or copied: a full disk otherwise shows as thousands of tar lines.
need_disk() {
    local free
    free=$(df -P -B1G "$CACHE_ROOT" | awk 'NR == 2 { print $4 }')
    ((free >= TREE_GB)) ||
        die "$CACHE_ROOT has ${free} GB free; a kernel tree needs about $TREE_GB GB (a whole cold run about 25 GB: kernel/README.md)"
    return 0
}

# ---------------------------------------------------------------- main
# build_tree: the current flavour's kernel tree, built (or cached); first the
# tree it is a copy of. A tree that failed earlier in this run is not tried again.
build_tree() {
    setup_kernel_vars
    [[ ! -e $RUN_STATE/tree-failed-$KEY ]] || die "the $FLAVOUR kernel failed to build earlier in this run"
    if [[ -f $KSTAMP ]]; then
        echo "==> $FLAVOUR kernel cached: $KDIR (built $(cat "$KSTAMP"))"
        return 0
    fi
    touch "$RUN_STATE/tree-failed-$KEY"
    local src
    src=$(tree_source)
    if [[ -n $src ]]; then
        (FLAVOUR=$src; build_tree)
        need_disk
        step "$FLAVOUR:copy" do_copy
        if [[ $FLAVOUR == upstream ]]; then
            step "$FLAVOUR:patch" do_patch
            step "$FLAVOUR:options-off" do_build_off
            step "$FLAVOUR:options-on" do_series_config
            step "$FLAVOUR:bzImage" do_kbuild
            step "$FLAVOUR:series-checks" do_series_checks
        elif [[ $FLAVOUR == upstream-debug ]]; then
            step "$FLAVOUR:base" do_upstream_debug_base
            step "$FLAVOUR:postings" do_postings
            step "$FLAVOUR:bzImage" do_kbuild
        else
            do_stamp
        fi
    else
        need_disk
        step "$FLAVOUR:untar" do_untar
        step "$FLAVOUR:config" do_config
        step "$FLAVOUR:bzImage" do_kbuild
    fi
    rm -f "$RUN_STATE/tree-failed-$KEY"
}

# run_flavour: the current flavour from its tree to the checks of its serial log.
run_flavour() {
    build_tree
    ((KERNEL_ONLY)) && return 0
    setup_kernel_vars
    mkdir -p "$RUN"
    if upstream; then
        step "$FLAVOUR:modules" do_intree_modules
    else
        # The proc-macro crate (the errtrace module's flavours only; cached after the first).
        step "$FLAVOUR:macros" do_macros
        [[ $FLAVOUR == base ]] && step "$FLAVOUR:builtin" do_builtin
        [[ $FLAVOUR == base ]] && step "$FLAVOUR:kit" do_kit
        step "$FLAVOUR:module" do_module
    fi
    step "$FLAVOUR:initramfs" do_initramfs
    step "$FLAVOUR:boot" do_boot
    step "$FLAVOUR:check" do_check
    if [[ $FLAVOUR == upstream ]]; then
        step "$FLAVOUR:costs" do_costs
        step "$FLAVOUR:checkpatch" do_checkpatch
    fi
    # What the postings' builds found (captures.sh reads it beside the serial log).
    [[ $FLAVOUR == upstream-debug ]] && cp "$KBASE/postings.txt" "$RUN/postings.txt"
    echo "$SERIAL_LOG" >"$RUN_STATE/log-$FLAVOUR"
}

# (in a function, so that editing this file cannot disturb a running test)
main() {
    # One test.sh at a time per cache (they share the kernel build and $OUT).
    mkdir -p "$CACHE_ROOT"
    exec 9>"$CACHE_ROOT/.lock"
    if ! flock -n 9; then
        echo "==> waiting for another kernel/test.sh using $CACHE_ROOT"
        flock 9
    fi
    RUN_STATE=$(mktemp -d)
    TIMINGS_FILE=$RUN_STATE/timings
    step apt do_apt
    step bindgen do_bindgen
    if ((TOOLS_ONLY)); then print_timings; return 0; fi
    mkdir -p "$OUT"
    step prune prune_trees
    # Each flavour in its own subshell: a failure ends that flavour (its step and
    # log are printed) and the next one runs; a tree that failed is not built twice.
    local failed=() logs=() rc
    for FLAVOUR in "${FLAVOURS[@]}"; do
        # Not `(…) || rc=$?`: inside a `||` list bash ignores `set -e` and the ERR trap.
        trap - ERR
        set +e
        (set -e; trap on_err ERR; run_flavour)
        rc=$?
        set -e
        trap on_err ERR
        if ((rc != 0)); then
            failed+=("$FLAVOUR")
        elif [[ -f $RUN_STATE/log-$FLAVOUR ]]; then
            logs+=("$(cat "$RUN_STATE/log-$FLAVOUR")")
        fi
    done
    print_timings
    rm -rf "$RUN_STATE"
    if ((${#failed[@]})); then
        echo "test.sh: FAILED: ${failed[*]} (see 'FAILED in step' above); passed: $(( ${#FLAVOURS[@]} - ${#failed[@]} )) of ${#FLAVOURS[@]}"
        return 1
    fi
    if ((KERNEL_ONLY)); then echo "test.sh: kernels built: ${FLAVOURS[*]}"; return 0; fi
    echo "test.sh: OK (serial logs: ${logs[*]})"
}

main "$@"
