#!/usr/bin/env bash
# Boots a kernel under qemu (x86-64, TCG: no KVM needed) with the given modules
# and a shell script, and prints the serial log: a driver's test run.
#
# Usage: kernel/kit/boot.sh --kdir KDIR [--script FILE] [--smp N] [--timeout S] MODULE.ko...
#   --kdir KDIR   the kernel build tree (its arch/x86/boot/bzImage and .config)
#   --script FILE run by the guest's /init from /lib/modules, with busybox's
#                 commands and these helpers (kit/guest.sh; default script:
#                 insmod each module):
#                   say TEXT         a line in the log
#                   run CMD...       CMD, its output and its exit code in the log
#                   bind DRIVER      binds DRIVER to a platform device without a
#                                    driver (driver_override): its probe runs
#                 The modules are in /lib/modules; debugfs and tracefs are mounted.
#   --smp N       CPUs (default 1); --timeout S: qemu's limit (default 300 s)
# The guest's lines are in the kernel's log, in order with the kernel's own; the
# run ends with "BOOT-SH: done". Needs qemu-system-x86, busybox-static and clang.
set -euo pipefail

KIT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KDIR='' SCRIPT='' SMP=1 TIMEOUT=300 MODULES=()
while (($#)); do
    case $1 in
        --kdir) KDIR=${2:?--kdir needs a directory}; shift ;;
        --script) SCRIPT=${2:?--script needs a file}; shift ;;
        --smp) SMP=${2:?--smp needs a number}; shift ;;
        --timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "boot.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) MODULES+=("$1") ;;
    esac
    shift
done
die() { echo "boot.sh: $*" >&2; exit 1; }
[[ -n $KDIR ]] || die "--kdir is required (see --help)"
BZIMAGE=$KDIR/arch/x86/boot/bzImage
[[ -f $BZIMAGE ]] || die "$BZIMAGE missing: build the kernel first"
for m in "${MODULES[@]}" ${SCRIPT:+"$SCRIPT"}; do [[ -f $m ]] || die "$m: no such file"; done
for t in qemu-system-x86_64 clang cpio; do command -v "$t" >/dev/null || die "$t not found"; done
[[ -x /bin/busybox ]] || die "/bin/busybox missing (Debian: busybox-static)"

work=$(mktemp -d "${TMPDIR:-/tmp}/boot-sh.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,lib/modules}
cp /bin/busybox "$root/bin/busybox"
# finit_module only: busybox's insmod runs a failing module init twice (it
# retries with init_module).
clang -static -Os -s -Wall -o "$root/sbin/insmod" "$KIT/../guest/insmod.c"
((${#MODULES[@]} == 0)) || cp "${MODULES[@]}" "$root/lib/modules/"
if [[ -n $SCRIPT ]]; then
    cp "$SCRIPT" "$root/script.sh"
else
    for m in "${MODULES[@]}"; do echo "run insmod $(basename "$m")"; done >"$root/script.sh"
fi
cp "$KIT/guest.sh" "$root/guest.sh"
cat >"$root/init" <<'EOF'
#!/bin/busybox sh
. /guest.sh
. /script.sh
say "BOOT-SH: done"
reboot -f
EOF
chmod +x "$root/init"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"

machine=(-m 512 -smp "$SMP")
# A kernel without ACPI: qemu's microvm machine (its firmware lists the CPUs in the
# MP table); `reboot=t` resets by a triple fault, which ends qemu (-no-reboot).
grep -qx CONFIG_ACPI=y "$KDIR/.config" 2>/dev/null || machine=(-M microvm,acpi=off "${machine[@]}")
rc=0
timeout --foreground -k 10 "$TIMEOUT" qemu-system-x86_64 -accel tcg -nographic -no-reboot \
    "${machine[@]}" -kernel "$BZIMAGE" -initrd "$work/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 printk.devkmsg=on reboot=t" \
    -serial "file:$work/serial.log" -monitor none </dev/null >"$work/qemu.out" 2>&1 || rc=$?
sed -E -e 's/\r$//' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' \
    -e 's/^\[ *[0-9]+\.[0-9]+\] @@ //' "$work/serial.log" 2>/dev/null || true
((rc != 124)) || die "qemu timed out after ${TIMEOUT}s"
((rc == 0)) || die "qemu exited $rc: $(cat "$work/qemu.out")"
# A panic or a script that ended the guest also ends qemu with 0: the guest's last line says.
grep -q 'BOOT-SH: done' "$work/serial.log" || die "the guest did not finish its script (see the log above)"
