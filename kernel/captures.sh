#!/usr/bin/env bash
# Writes kernel/captures/*.txt from a serial log of kernel/test.sh (real lines,
# scenario by scenario, each file with a header saying what it shows).
# Usage: kernel/captures.sh [SERIAL_LOG [DEBUG_SERIAL_LOG]]   (default: the last run's logs:
# base, debug and the upstream pair are Linux 7.3, 6.12 is Linux 6.12)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOG=${1:-${ERRTRACE_KERNEL_OUT:-${ERRTRACE_KERNEL_CACHE:-/var/cache/errtrace-kernel}/run}/serial.log}
OUT=$HERE/captures
DEBUG_LOG=${2:-$(dirname "$LOG")/debug/serial.log}
UP_BEFORE_LOG=$(dirname "$LOG")/upstream-before/serial.log
UP_LOG=$(dirname "$LOG")/upstream/serial.log
UP_DEBUG_LOG=$(dirname "$LOG")/upstream-debug/serial.log
LOG_612=$(dirname "$LOG")/6.12/serial.log
for f in "$LOG" "$DEBUG_LOG" "$LOG_612" "$UP_BEFORE_LOG" "$UP_LOG" "$UP_DEBUG_LOG"; do
    [[ -f $f ]] || { echo "captures.sh: no such file: $f" >&2; exit 1; }
done
bash "$HERE/check.sh" "$LOG" >/dev/null || { echo "captures.sh: $LOG does not pass check.sh" >&2; exit 1; }
bash "$HERE/check.sh" "$DEBUG_LOG" debug >/dev/null ||
    { echo "captures.sh: $DEBUG_LOG does not pass check.sh (debug)" >&2; exit 1; }
bash "$HERE/check.sh" "$LOG_612" 6.12 >/dev/null ||
    { echo "captures.sh: $LOG_612 does not pass check.sh (6.12)" >&2; exit 1; }
for f in upstream-before upstream upstream-debug; do
    bash "$HERE/check.sh" "$(dirname "$LOG")/$f/serial.log" $f "$(cat "$(dirname "$LOG")/$f/kdir")" >/dev/null ||
        { echo "captures.sh: the $f log does not pass check.sh ($f)" >&2; exit 1; }
done
mkdir -p "$OUT"
VERSION=$(grep -m1 -o 'Linux version [^ ]*' "$LOG" | cut -d' ' -f3)

# section NAME: the lines of scenario NAME, its marker included; kernel lines of other
# subsystems that happen to interleave (a mouse being probed…) are left out: only kernel
# lines matching KEEP are kept.
ERRTRACE_KEEP='errtrace[-_](demo|peer|builtin|kunit)|KTAP|errtrace_recorder|] +(ok [0-9]|# |1[.][.])'
KEEP=$ERRTRACE_KEEP
section() {
    awk -v s="ERRTRACE-SCENARIO: $1" -v keep="$KEEP" '
        index($0, s) && length($0) - index($0, s) + 1 == length(s) { on = 1; print; next }
        /ERRTRACE-SCENARIO: |ERRTRACE-GUEST: done/ { on = 0 }
        /^(<[0-9]>)?\[ *[0-9]+\.[0-9]+\] / && $0 !~ keep { next }
        on' "$LOG"
}
# The scenarios the captures come from (named in their header).
SCENARIOS_FILE=kernel/scenarios.sh
# capture FILE "HEADER" SCENARIO...
capture() {
    local file=$1 header=$2 s; shift 2
    {
        sed 's/^/# /; s/ $//' <<<"$header"
        echo "#"
        echo "# Real serial console lines (Linux $VERSION, rustc 1.85, qemu TCG), captured by"
        echo "# kernel/test.sh and extracted by kernel/captures.sh; scenarios in"
        echo "# $SCENARIOS_FILE. ERRTRACE- lines are the test harness's own markers;"
        echo "# lines without a [timestamp] are the commands' output."
        echo
        for s in "$@"; do section "$s"; done
    } >"$OUT/$file"
    echo "$OUT/$file"
}

capture builtin.txt "errtrace built into the kernel: the peer's source linked into vmlinux as
errtrace_builtin (drivers/misc/errtrace_builtin/, kernel/test.sh's builtin
step) ran at boot. dynamic_debug groups its sites under its module name, as
for C, and the peer module's own copy of errtrace loads beside it: each copy
keeps its own sites, no symbol clashes." builtin

# The peer's printk sink prints a record as one message: its continuation lines carry no
# module prefix. The kernel's own fault injection lines are kept too.
KEEP="$ERRTRACE_KEEP|FAULT_INJECTION|name fail_errtrace_peer|  error E[A-Z]+ |origin: kernel|via: +kernel" \
capture fault-attr.txt "A driver's copy of errtrace, built without the control language (the peer
module, as a distribution's driver would ship it): its fail point is armed by
the kernel's own fault injection, a struct fault_attr of the module. fail=
takes failslab='s format (interval,probability,space,times), fail_points= a
glob of point names; the kernel decides (should_fail(), its FAULT_INJECTION
lines), errtrace injects the point's code with the point as origin and the
init boundary reports it. Loaded without fail=, the point does not fail; the
attribute's debugfs knobs are the kernel's, and go with the module." fault-attr

capture before.txt "The \"before\" picture: the demo driver's init fails (a fault injected at the
first bus read), and the error is returned to the kernel as a bare errno, as
every Rust module does today (plain=1: init does
probe().map_err(|e| to_kernel(e.into_code()))). The kernel prints nothing but
the taint notice of the first out-of-tree load; user space gets \"Input/output
error\": no module, function, file or line." before

capture after.txt "The \"after\" picture: the same driver, the same injected fault (named at load
time in the ctl= parameter), now returned through
errtrace::boundary(\"errtrace_demo init\", probe()): nobody reported the error
on its way up, so the boundary prints it once, with its origin (the fault
point in the bus layer) and every hop (#[errtrace::trace]'s \`?\`, a
.during(), the probe's \`?\`), then hands EIO to the kernel." load-fail

capture creator.txt "A creator that logs: the chip id is wrong (chip_id=0x42), and the device
layer makes the error with err!(ENODEV, \"unexpected chip id ...\"), which logs
at its site. The boundary does not print it a second time; with +p on its
site (ctl=\"file demo.rs +p\") it says so at debug level (KERN_DEBUG, shown
because the console level is 8)." load-fail-logged

capture control.txt "Runtime control through the kernel's dynamic_debug: every errtrace site of
the module is a descriptor in /proc/dynamic_debug/control. At load
(dyndbg=\"format busy +p\" on the insmod line) and while loaded (echo to
/proc/dynamic_debug/control), the quiet retry site (EAGAIN while the chip
resets) prints after +p, is silenced by -p, gets CPU/function/line prefixes
with =pflt. errtrace's own debugfs errtrace_demo/control lists the sites with
their counters and takes what dynamic_debug has no words for: a fault armed
while loaded fails one bus write with a code override, reported at the
trigger file's boundary; bad queries are rejected whole, with a position; a
bad trigger command is logged by its creator and handed to user space as
EINVAL." \
    load control-on control-off control-flags control-fail control-error

capture devices.txt "Device context: the demo's platform driver errtrace-demo with devices
errtrace-demo.0 ... errtrace-demo.7 (echo 'devices N [CHIP_ID]' > trigger),
each probe in a device scope (kernel/module/devctx.rs). Four identical devices
failing the same way (a bus read fault): each report is printed on its device,
as dev_err() prints (driver and device name), followed by the driver core's
own line. A creator that logs inside a probe (wrong chip id) names the device,
and the probe's end does not print it again. EPROBE_DEFER (supply off) prints
nothing and becomes the deferral reason in /sys/kernel/debug/devices_deferred,
with the origin; ENOMEM (a fault before the allocation) prints nothing of
errtrace's. A device that binds makes the driver core retry the deferred one." \
    devices devices-creator devices-defer devices-enomem devices-bound

capture drop.txt "An error dropped unhandled (\`if let Ok(c) = dev.calibration() { ... }\` with
no else) is reported as a warning with its origin and trail." drop

capture expecting.txt "The caller's say: the trigger's \`scan\` reads the simulated bus at 0x00..=0x0f
inside errtrace::expecting(ENXIO, ...): the 10 absent registers' creator lines (\"bus: no register
at ...\") are held back and counted at the read site." expecting

capture recorder.txt "The flight recorder read back through debugfs errtrace_demo/recorder: the
recent errors since the module was loaded, oldest first, each with its
origin and trail (errtrace::recorder::write_event per event)." recorder

capture tracepoints.txt "errtrace's events as kernel tracepoints: errtrace:errtrace_error (errno,
file, line, function, site, sequence number) when an error is made and
errtrace:errtrace_hop (sequence number, errno, file, line) at each recorded
hop, enabled through tracefs. A fault on the bus read fails one sample: one
error event, three hops with the same sequence number. With the events
disabled again, a second failing sample adds no line." tracepoints

capture storm.txt "An error storm: 1,000 failures at one creator site (err!(EOVERFLOW, ...) in
Device::sample), right after dynamic_debug's blanket \"module errtrace_demo -p\",
which quiets debug output, not error reports. The site's default rate limit
prints the burst (10 per 5 s, like printk_ratelimited), then
errtrace::policy::flush_suppressed() prints the count held back. Then
errtrace's own \"func sample -p\" silences a second storm, which is still
counted." storm storm-off

capture levels.txt "The printk level of each kind of record, as dmesg -r shows it: <3> KERN_ERR
(creator lines, boundary reports), <4> KERN_WARNING (suppressed counts,
dropped unhandled), <6> KERN_INFO (the module's own messages), <7> KERN_DEBUG
(the boundary's \"already reported\")." levels

# The debug kernel's stress run (its own log).
BASE_LOG=$LOG
LOG=$DEBUG_LOG
VERSION=$(grep -m1 -o 'Linux version [^ ]*' "$LOG" | cut -d' ' -f3)
capture kunit.txt "Right after boot, the KUnit suite errtrace_recorder (kernel/kunit/kunit.rs,
in errtrace_kunit.ko with its own copy of errtrace), which KUnit runs when the
module loads, on the debug kernel's 4 CPUs: a shard wrapping over released
events and around a live one; writers on every CPU at once (in on_each_cpu()'s
IPI); readers of the whole recorder while the other CPUs write." kunit
capture stress.txt "The debug kernel (Linux 7.3, a small config with full preemption, lockdep,
KASAN, atomic-sleep and preemption checks, 4 CPUs): one kthread per CPU makes errors
three frames down, hops them, logs, handles and drops them, while an hrtimer
(hard IRQ), a timer (softirq) and self-NMIs (NMI context) make errors too,
with errtrace's tracepoints enabled; user space writes queries to errtrace
and to dynamic_debug, reads the recorder and the site list, loads and unloads
a second errtrace module (errtrace_peer.ko) while another loop reads the
control files, and a third takes CPUs 1-3 offline and back. The summary
reconciles the counts: every error readable in the recorder while alive (or
counted as unrecorded), every site's created count equal to the errors made
there. Then both modules are loaded and unloaded demo first." stress two-modules
LOG=$BASE_LOG

# The upstream kernels (kernel/patches/): the same unmodified modules and test driver, before and after.
KEEP='rust_minimal|rust_faux_driver|rust_driver_platform|rust_probe_test|FAULT_INJECTION|name failslab|rust_error|error_made|ok [0-9]+ [a-z_]+$'
SCENARIOS_FILE=kernel/upstream-scenarios.sh
LOG=$UP_BEFORE_LOG
capture upstream-before.txt "Linux 7.3 as shipped (Debian's linux-source-7.3 and config, trimmed as the
base kernel, plus kernel/config/upstream.fragment: the Rust samples as
modules, failslab). The platform sample's dev_dbg! is no dynamic debug site.
failslab fails the first allocation made with module code on the stack in the
platform sample's probe (bound to a platform device without a driver through
driver_override) and in the init of the minimal and faux samples, all
unmodified; a test driver's probe (kernel/upstream-module/) defers and fails
with a bare EIO. The kernel says the errno at most, and nothing of the
deferral." dyndbg pr-debug probe-fails init-fails faux-init-fails probe-defers probe-bare
LOG=$UP_LOG
capture upstream-after.txt "The same kernel, config and scenarios with the three postings of
kernel/patches/ applied (dynamic debug, dev_err_probe!, error origins) and the
origins' options on (config/upstream-series.fragment). The KUnit suite
rust_error_origin passed at boot. The platform sample's dev_dbg! sites are in
the dynamic debug control file and print after +p. A failing probe or init
names the returned error's origin: a C API's line, both lines when a cleanup
failed with the same code, \"origin not recorded\" for a bare constant;
-ENOMEM is not reported (the allocator reports it); the deferral's origin is
in devices_deferred; dev_err_probe! reports once, and its deferral reason is
kept; the rust:error_made tracepoint has every error made." \
    kunit dyndbg pr-debug probe-fails init-fails faux-init-fails probe-defers probe-bare probe-c-fails probe-cleanup-fails probe-logs probe-own-reason tracepoint
LOG=$UP_DEBUG_LOG
capture upstream-debug.txt "The three postings on the debug configuration (Linux 7.3 on tinyconfig with
full preemption, lockdep, KASAN, atomic-sleep and preemption checks, plus
kernel/config/upstream.fragment), booted with 2 CPUs: the KUnit suite
rust_error_origin, including a task that exits inside a capture followed by
new tasks, nested captures, an error made in hard interrupt context and
captures overlapping on two CPUs; kernel/check.sh found no KASAN, lockdep,
atomic-sleep or oops report in the whole log." kunit probe-c-fails probe-cleanup-fails
if [[ -f $(dirname "$LOG")/postings.txt ]]; then
    {
        echo "# Each posting of kernel/patches/ built alone on the debug tree, patch by patch, with"
        echo "# its options off and on (CLIPPY=1), as kernel/test.sh (flavour upstream-debug) built"
        echo "# them in the run the other captures come from, or found them built before with the"
        echo "# same content."
        echo "#"
        cat "$(dirname "$LOG")/postings.txt"
    } >"$OUT/upstream-postings.txt"
fi
LOG=$UP_LOG
if [[ -f $(dirname "$LOG")/costs.txt ]]; then
    {
        echo "# The series' cost, as kernel/test.sh measured it (size(1), objdump) on the"
        echo "# upstream-before and upstream trees of the run the other captures come from."
        echo "#"
        cat "$(dirname "$LOG")/costs.txt"
    } >"$OUT/upstream-costs.txt"
fi
if [[ -f $(dirname "$LOG")/checkpatch.txt ]]; then
    {
        echo "# scripts/checkpatch.pl --strict --no-signoff on each patch of kernel/patches/*/, as"
        echo "# kernel/test.sh ran it in the upstream tree of the run the other captures come from,"
        echo "# then the results of CLIPPY=1, make rustfmtcheck and make rustdoc recorded when that"
        echo "# tree was built."
        echo "#"
        cat "$(dirname "$LOG")/checkpatch.txt"
    } >"$OUT/upstream-checkpatch.txt"
fi
LOG=$BASE_LOG
KEEP=$ERRTRACE_KEEP
SCENARIOS_FILE=kernel/scenarios.sh

# The driver kit's template, as test.sh built and booted it in the same run (Linux 7.3).
KIT_LOG=$(dirname "$LOG")/kit-boot.log
if [[ -f $KIT_LOG && -f $(dirname "$LOG")/kit-sizes.txt ]]; then
    {
        echo "# The driver kit's template (kernel/kit/template), set up in a clean folder by"
        echo "# kernel/kit/setup.sh, built against Linux $VERSION and booted by kernel/kit/boot.sh"
        echo "# with template/try.sh: each mode's probe, bound to a platform device without a"
        echo "# driver. kernel/test.sh holds the log to template/try.expect."
        echo "#"
        awk '/^TRY: mode=0$/ { on = 1 } on && (/^(TRY|RUN|RC|binding|BOOT-SH)/ || /errtrace_template/) && !/taints kernel|module verification/' "$KIT_LOG"
    } >"$OUT/kit.txt"
    {
        echo "# The template's sizes (size(1), bytes) on Linux $VERSION, with the kit's capacities"
        echo "# for a driver (errtrace.mk); errtrace's storage is .bss."
        echo "#"
        cat "$(dirname "$LOG")/kit-sizes.txt"
    } >"$OUT/kit-sizes.txt"
    echo "$OUT/kit.txt"
    echo "$OUT/kit-sizes.txt"
fi

# The module's footprint on both kernels, as test.sh measured it in the same run.
if [[ -f $(dirname "$LOG")/footprint.txt && -f $(dirname "$LOG_612")/footprint.txt ]]; then
    {
        echo "# The errtrace footprint of the demo module, as kernel/test.sh measured it with"
        echo "# size(1) in the run whose serial logs the other captures come from: Linux 7.3"
        echo "# (Debian's code generation: -O2, jump labels, 56-byte descriptors), then Linux 6.12"
        echo "# (tinyconfig: -Os, no jump labels, 40-byte descriptors)."
        echo "#"
        cat "$(dirname "$LOG")/footprint.txt"
        cat "$(dirname "$LOG_612")/footprint.txt"
    } >"$OUT/footprint.txt"
fi
