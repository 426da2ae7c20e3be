#!/usr/bin/env bash
# errtrace on bare metal, for real: builds the Cortex-M3 firmware crates/errtrace-baremetal
# (thumbv7m-none-eabi, errtrace without std, ERRTRACE_PROFILE=embedded), then checks
#
#   1. its formatting and clippy;
#   2. errtrace's RAM in it (.data + .bss) against ERRTRACE_RAM_LIMIT (8192 bytes);
#   3. that the link-time registry of sites is in flash, and that everything with contents is
#      loaded from flash (what a flasher writes is the whole program);
#   4. that without errtrace's linker fragment the registry is not in flash, and the firmware
#      does not find its sites;
#   5. the firmware's output under qemu-system-arm (the lm3s6965evb board, semihosting) against
#      crates/errtrace-baremetal/expected.txt, with `diff -u`.
#
# Every check runs; the script exits non-zero when any fails. Installs what it needs on a fresh
# Debian 12, as root (rustup must be there). Warm, it takes a few seconds.
#
#   bash scripts/test-baremetal.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fw="$root/crates/errtrace-baremetal"
# The firmware's .cargo/config.toml puts its target directory here.
elf="$root/target/baremetal/thumbv7m-none-eabi/release/errtrace-baremetal"
# The same firmware linked without errtrace-registry.x (check 4), in its own target directory.
nofrag_dir="$root/target/baremetal-nofragment"
nofrag_elf="$nofrag_dir/thumbv7m-none-eabi/release/errtrace-baremetal"
expected="$fw/expected.txt"
out_dir="$root/target/baremetal"
ram_limit="${ERRTRACE_RAM_LIMIT:-8192}"
# The LM3S6965's memory map (crates/errtrace-baremetal/memory.x).
flash_start=$((0x00000000)) flash_end=$((0x00040000))
qemu=(qemu-system-arm -cpu cortex-m3 -machine lm3s6965evb -nographic
    -semihosting-config enable=on,target=native -kernel)

# RUSTFLAGS from the environment would replace the link arguments of .cargo/config.toml.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS

failures=()
check() {
    local name=$1
    shift
    echo "--- $name"
    if "$@"; then
        echo "--- $name: ok"
    else
        echo "--- $name: FAILED"
        failures+=("$name")
    fi
}

# ---------------------------------------------------------------- tools

apt_get() {
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 -y -q "$@"
}

# A machine whose qemu came from bookworm-backports (qemu 10; kernel/test.sh does the same for
# qemu-system-x86) cannot install bookworm's qemu-system-arm 7.2 beside it: take it from there
# too. On a fresh machine, bookworm's own packages.
install_tools() {
    local pkgs=() qemu_bpo=0 p have
    for p in qemu-utils qemu-system-common; do
        have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$p" 2>/dev/null || true)
        [[ $have == installed*bpo12* ]] && qemu_bpo=1
    done
    command -v qemu-system-arm >/dev/null || pkgs+=(qemu-system-arm)
    for p in llvm-readelf-19 llvm-nm-19 llvm-objcopy-19; do
        command -v "$p" >/dev/null || { pkgs+=(llvm-19); break; }
    done
    command -v python3 >/dev/null || pkgs+=(python3)
    if ((${#pkgs[@]})); then
        if ((qemu_bpo)) && [[ " ${pkgs[*]} " == *" qemu-system-arm "* ]]; then
            if ! grep -rqsE '^(Suites:.*[[:space:]]|deb .*[[:space:]])bookworm-backports([[:space:]]|$)' \
                /etc/apt/sources.list /etc/apt/sources.list.d/; then
                local uri
                uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | grep -v security |
                    grep -m1 -E 'debian/?$' | awk '{ print $2 }')
                [[ -n $uri ]] || uri=$(grep -hsE '^deb .* bookworm( |$)' /etc/apt/sources.list |
                    awk '{ print $2 }' | head -n1)
                [[ -n $uri ]] || { echo "no Debian mirror in apt's sources for bookworm-backports" >&2; return 1; }
                printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: %s\n' \
                    "$uri" /usr/share/keyrings/debian-archive-keyring.gpg \
                    >/etc/apt/sources.list.d/errtrace-bookworm-backports.sources || return 1
            fi
            pkgs=("${pkgs[@]/#qemu-system-arm/qemu-system-arm/bookworm-backports}"
                qemu-system-common/bookworm-backports qemu-system-data/bookworm-backports)
        fi
        echo "installing: ${pkgs[*]}"
        apt_get update -qq || return 1
        apt_get install --no-install-recommends "${pkgs[@]}" >/dev/null || return 1
    fi
    if ! rustup target list --installed | grep -qx thumbv7m-none-eabi; then
        rustup target add thumbv7m-none-eabi || return 1
    fi
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
    echo "$(qemu-system-arm --version | head -n1); $(rustc --version)"
}

# ---------------------------------------------------------------- checks

fmt_and_clippy() {
    (cd "$fw" && cargo fmt --check && cargo clippy -q --locked --target thumbv7m-none-eabi -- -D warnings)
}

build() {
    (cd "$fw" && cargo build -q --locked --release)
}

# errtrace's RAM: the bytes of .data and .bss that errtrace's statics take, read from the
# firmware's symbols (llvm-nm -S: address and size of each). errtrace's statics are those whose
# path has `errtrace::` (the crate's own tables) or `::__ERRTRACE_` (the sites and fail points
# that its macros put in the firmware's functions). What no symbol covers is alignment padding,
# nearly all before errtrace's 64-byte-aligned recorder and counters: it is counted as
# errtrace's, so the number checked is the firmware's .data + .bss less the other crates'
# symbols, an upper bound. (Symbols named .L_MergedGlobals are the linker's merges of small
# statics; their members have symbols of their own, counted above.)
ram() {
    python3 - "$elf" "$ram_limit" <<'EOF'
import re, subprocess, sys
elf, limit = sys.argv[1], int(sys.argv[2])
def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
sections = {}
for line in run("llvm-readelf-19", "-SW", elf).splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m and m.group(1) in (".data", ".bss"):
        sections[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
symbols = []
for line in run("llvm-nm-19", "-S", "--demangle", elf).splitlines():
    f = line.split(None, 3)
    if len(f) < 4 or not re.fullmatch(r"[0-9a-f]+", f[1]) or int(f[1], 16) == 0:
        continue
    addr, size, name = int(f[0], 16), int(f[1], 16), f[3]
    if any(a <= addr < a + n for a, n in sections.values()):
        symbols.append((addr, size, name))
def covered(syms):
    total, end = 0, -1
    for a, b in sorted((a, a + s) for a, s, _ in syms):
        if b > max(a, end):
            total += b - max(a, end)
        end = max(end, b)
    return total
ours = [s for s in symbols if "errtrace::" in s[2] or "::__ERRTRACE_" in s[2]]
others = [s for s in symbols if s not in ours and not s[2].startswith(".L_MergedGlobals")]
whole = sum(n for _, n in sections.values())
mine, theirs = covered(ours), covered(others)
ram = whole - theirs
print(f"firmware .data + .bss: {whole} bytes (.data {sections['.data'][1]}, .bss {sections['.bss'][1]})")
print(f"  errtrace's statics: {mine} bytes; padding: {whole - mine - theirs}; other crates: {theirs}")
big = sorted(ours, key=lambda s: (-s[1], s[2]))
for _, size, name in big:
    if size >= 64:
        print(f"  {size:6d}  {re.sub(r'::h[0-9a-f]{16}.*', '', name)}")
print(f"errtrace RAM: {ram} bytes (limit {limit})")
sys.exit(0 if ram <= limit else 1)
EOF
}

# A symbol's address, from llvm-nm (empty when there is none).
sym() { llvm-nm-19 "$1" | awk -v s="$2" '$3 == s { print $1 }'; }

# The registry's bounds: linkme's __start_/__stop_ symbols of errtrace's two slices (the
# elements, linkme_*) and of their declaration checks (linkm2_*).
registry_symbols() {
    local s
    for s in SITE_REGISTRY FAIL_REGISTRY; do
        echo "__start_linkme_$s" "__stop_linkme_$s" "__start_linkm2_$s" "__stop_linkm2_$s"
    done
}

in_flash() { local a=$((16#$1)); ((a >= flash_start && a < flash_end)); }

# Check 3: every bound of the registry is in flash (the site slice not empty), and every
# segment with contents has its load address in flash.
registry_in_flash() {
    local bad=0 s a
    for s in $(registry_symbols); do
        a=$(sym "$elf" "$s")
        if [[ -z $a ]] || ! in_flash "$a"; then
            echo "$s at ${a:-nowhere}: not in flash"
            bad=1
        fi
    done
    local start stop
    start=$(sym "$elf" __start_linkme_SITE_REGISTRY) stop=$(sym "$elf" __stop_linkme_SITE_REGISTRY)
    if [[ -n $start && -n $stop ]]; then
        echo "registry of sites: 0x$start..0x$stop ($(((16#$stop - 16#$start) / 4)) sites)"
    fi
    llvm-readelf-19 -SW "$elf" | grep -E '\.errtrace_registry|linkm[e2]_' || true
    # Program headers: LOAD Offset VirtAddr PhysAddr FileSiz ...
    while read -r _ _ virt phys filesz _; do
        if ((filesz > 0)) && ! (in_flash "${phys#0x}" && in_flash "$(printf '%x' $((phys + filesz - 1)))"); then
            echo "segment at $virt loads from $phys: not from flash"
            bad=1
        fi
    done < <(llvm-readelf-19 -lW "$elf" | awk '$1 == "LOAD"')
    ((bad == 0)) && echo "every segment with contents loads from flash"
    return $bad
}

# Check 4: the same firmware linked with cortex-m-rt's link.x alone. The linker places linkme's
# sections as orphans after .data, in RAM with no load address in flash; cortex-m-rt's startup
# then copies .data over them from flash, so at run time the registry holds no sites, and the
# firmware says so (it must fail).
without_fragment() {
    (cd "$fw" && RUSTFLAGS="-C link-arg=-Tlink.x" cargo build -q --locked --release \
        --target-dir "$nofrag_dir") || return 1
    local s a bad=0
    for s in __start_linkme_SITE_REGISTRY __start_linkme_FAIL_REGISTRY; do
        a=$(sym "$nofrag_elf" "$s")
        if [[ -n $a ]] && in_flash "$a"; then
            echo "without the fragment, $s is in flash (0x$a): the check proves nothing"
            bad=1
        else
            echo "without the fragment: $s at 0x${a:-?}, not in flash"
        fi
    done
    llvm-readelf-19 -SW "$nofrag_elf" | grep -E 'linkm[e2]_' || true
    local out rc=0
    out=$(timeout 60 "${qemu[@]}" "$nofrag_elf" 2>&1) || rc=$?
    if ((rc == 0)); then
        echo "without the fragment, the firmware passed: the check proves nothing"
        bad=1
    elif grep -q "the registry is missing" <<<"$out"; then
        echo "without the fragment, the firmware fails (exit $rc): $(tail -n1 <<<"$out")"
    else
        echo "without the fragment, the firmware failed otherwise (exit $rc):"
        tail -n5 <<<"$out"
        bad=1
    fi
    return $bad
}

# Check 5: the run, compared line for line; nothing is normalised (no clock, no thread ids, and
# file names relative to the firmware's package: the output is the same on every run).
run_firmware() {
    local rc=0
    timeout 60 "${qemu[@]}" "$elf" >"$out_dir/output.txt" 2>"$out_dir/qemu-stderr.txt" || rc=$?
    if [[ -s "$out_dir/qemu-stderr.txt" ]]; then
        echo "qemu's standard error:"
        cat "$out_dir/qemu-stderr.txt"
    fi
    cat "$out_dir/output.txt"
    if ((rc != 0)); then
        echo "the firmware exited with $rc"
    fi
    diff -u "$expected" "$out_dir/output.txt" && ((rc == 0))
}

check "tools" install_tools
check "format and clippy (thumbv7m-none-eabi)" fmt_and_clippy
if check "build" build; then
    check "errtrace's RAM (.data + .bss) at most $ram_limit bytes" ram
    check "registry in flash" registry_in_flash
    check "without errtrace-registry.x, the registry is lost" without_fragment
    check "firmware under qemu (lm3s6965evb) matches expected.txt" run_firmware
fi

if ((${#failures[@]})); then
    printf -v list '%s; ' "${failures[@]}"
    echo "test-baremetal: FAILED: ${list%; }"
    exit 1
fi
echo "test-baremetal: all checks passed"
