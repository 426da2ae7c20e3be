#!/usr/bin/env bash
# Checks on the guest's serial log.
# Usage: kernel/check.sh SERIAL_LOG [base|debug|upstream-before|upstream [KERNEL_TREE]]
# (debug: the debug kernel's log, which also has the stress scenario; upstream*:
# the in-tree modules' scenarios, checked by check-upstream.sh).
# Each check prints "ok" or "FAIL"; the script exits 1 if any check failed.
# Add checks at the end, using the helpers:
#   section NAME                 the log lines of scenario NAME (from its
#                                "ERRTRACE-SCENARIO: NAME" marker to the next)
#   expect   NAME REGEX [WHAT]   scenario NAME has a line matching REGEX
#   expect_not NAME REGEX [WHAT [IGNORE]]
#                                scenario NAME has no line matching REGEX
#                                (lines matching IGNORE don't count)
#   expect_rc NAME RC CMD        in scenario NAME, `run CMD ...` exited RC
#   expect_count NAME REGEX N [WHAT]
#                                scenario NAME has exactly N lines matching REGEX
#   expect_block NAME WHAT LINE...
#                                scenario NAME has these module lines, in this
#                                order, one after the other (each LINE is the
#                                exact text after the "errtrace_demo: " prefix,
#                                or after $BLOCK_M's regex when it is set)
# NAME "all" means the whole log. REGEX is an extended regex (grep -E).
# Source positions are computed from the module's sources with `at`, so the
# checks follow edits of the demo.
set -uo pipefail

LOG=${1:?usage: check.sh SERIAL_LOG [base|debug]}
FLAVOUR=${2:-base}
# The kernel source tree (upstream flavours: positions in in-tree files).
KSRC=${3:-}
[[ -f $LOG ]] || { echo "check.sh: no such file: $LOG" >&2; exit 1; }

PASS=0
FAIL=0
section() {
    if [[ $1 == all ]]; then cat "$LOG"; return; fi
    awk -v s="ERRTRACE-SCENARIO: $1" '
        index($0, s) && length($0) - index($0, s) + 1 == length(s) { on = 1; next }
        /ERRTRACE-SCENARIO: |ERRTRACE-GUEST: done/ { on = 0 }
        on' "$LOG"
}
report() { # report OK? WHAT
    if [[ $1 == 0 ]]; then
        PASS=$((PASS + 1)); echo "ok   $2"
    else
        FAIL=$((FAIL + 1)); echo "FAIL $2"
    fi
}
# (grep reads its whole input, without -q: with pipefail, a grep that stops at the first match
# can make the pipeline fail with awk's SIGPIPE.)
expect() {
    section "$1" | grep -E -- "$2" >/dev/null
    report $? "[$1] ${3:-has /$2/}"
}
expect_not() {
    local hits
    hits=$(section "$1" | grep -E -- "$2" | grep -Ev -- "${4:-^\$^}")
    [[ -z $hits ]]
    report $? "[$1] ${3:-no /$2/}"
    [[ -z $hits ]] || printf '       %s\n' "$hits" | head -n 10
}
expect_rc() {
    section "$1" | grep -Fx -- "ERRTRACE-RC: $2 ($3)" >/dev/null
    report $? "[$1] $3 exits $2"
}

expect_count() {
    local n
    n=$(section "$1" | grep -Ec -- "$2")
    [[ $n == "$3" ]]
    report $? "[$1] ${4:-/$2/ x $3} (found $n)"
}
expect_block() {
    local name=$1 what=$2; shift 2
    local -a got want=("$@")
    mapfile -t got < <(section "$name" | sed -nE "s/${BLOCK_M:-$M}//p")
    local i j ok=1
    for ((i = 0; i + ${#want[@]} <= ${#got[@]}; i++)); do
        ok=0
        for ((j = 0; j < ${#want[@]}; j++)); do
            [[ ${got[i + j]} == "${want[j]}" ]] || { ok=1; break; }
        done
        ((ok == 0)) && break
    done
    report $ok "[$name] $what"
    if ((ok != 0)); then
        printf '       expected:\n'; printf '         %s\n' "${want[@]}"
    fi
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$HERE/module
# at FILE TEXT [NEEDLE]: "kernel/module/FILE:LINE:COL" of the one line of FILE
# containing TEXT; COL is where NEEDLE (default TEXT) starts on it, 1-based.
at() {
    local file=$1 text=$2 needle=${3:-$2} hits line col path shown
    # FILE is in kernel/module/, or, with a slash, relative to kernel/ (peer/peer.rs).
    if [[ $file == */* ]]; then path=$SRC/../$file shown=kernel/$file; else path=$SRC/$file shown=kernel/module/$file; fi
    hits=$(grep -nF -- "$text" "$path" | cut -d: -f1)
    if [[ $(wc -w <<<"$hits") != 1 ]]; then
        echo "check.sh: '$text' is not on exactly one line of $file" >&2
        echo "$shown:?:?"; return
    fi
    line=$hits
    col=$(sed -n "${line}p" "$path" | awk -v n="$needle" '{ print index($0, n) }')
    echo "$shown:$line:$col"
}
# site FILE MESSAGE: "kernel/module/FILE:LINE:COL" of the `err!(` whose format
# string contains MESSAGE (on its line or the nearest one above: rustfmt
# splits long calls), COL being where `err!` starts.
site() {
    local file=$1 text=$2 hits
    hits=$(grep -nF -- "$text" "$SRC/$file" | cut -d: -f1)
    if [[ $(wc -w <<<"$hits") != 1 ]]; then
        echo "check.sh: '$text' is not on exactly one line of $file" >&2
        echo "kernel/module/$file:?:?"; return
    fi
    awk -v last="$hits" -v f="kernel/module/$file" '
        NR <= last && index($0, "err!(") { line = NR; col = index($0, "err!(") }
        END { if (line) print f ":" line ":" col; else print f ":?:?" }' "$SRC/$file"
}
# Without the column.
line_of() { local p; p=$(at "$@"); echo "${p%:*}"; }
# A regex matching a literal string.
re() { sed -e 's/[][\\.^$*+?(){}|/]/\\&/g' <<<"$1"; }
# Kernel lines ("[    1.234567] ...") and a module's printk prefix.
K='^\[ *[0-9]+\.[0-9]+\] '
M="${K}errtrace_demo: "

# ---- the guest ran to the end
expect all '^ERRTRACE-GUEST: start$' 'guest init started'
expect all '^ERRTRACE-GUEST: done$' 'guest init finished all scenarios'
case $FLAVOUR in
    6.12) expect all '\] Linux version 6\.12\.' 'kernel 6.12 booted' ;;
    *) expect all '\] Linux version 7\.3\.' 'kernel 7.3 booted' ;;
esac

# ---- no kernel trouble anywhere (the command line itself says panic=-1)
TROUBLE='(\bBUG\b|Oops|\bpanic\b|WARNING:|Call Trace|general protection|segfault)'
hits=$(grep -Ev '[Cc]ommand line:|ERRTRACE-RUN:' "$LOG" | grep -E "$TROUBLE")
[[ -z $hits ]]; report $? "[all] no BUG/Oops/panic/WARNING lines"
[[ -z $hits ]] || printf '       %s\n' "$hits" | head -n 10

# ---- the upstream kernels: in-tree modules only (kernel/upstream-scenarios.sh)
if [[ $FLAVOUR == upstream* ]]; then
    # shellcheck source=kernel/check-upstream.sh
    . "$HERE/check-upstream.sh"
    echo "$PASS passed, $FAIL failed"
    ((FAIL == 0))
    exit
fi

# ---- source positions the reports must name
FP_READ=$(at bus.rs 'fail_point!("bus_read"' 'errtrace::fail_point!')
FP_WRITE=$(at bus.rs 'fail_point!("bus_write"' 'errtrace::fail_point!')
HOP_BUS_READ=$(at regs.rs 'let value = self.bus.read(reg)?;' '?')
HOP_BUS_WRITE=$(at regs.rs 'self.bus.write(reg, value)?;' '?')
HOP_CHIP_ID=$(at device.rs '.during("reading chip id")?' 'during(')
HOP_PROBE=$(at demo.rs 'let dev = Device::setup(&BUS)?;' '?')
HOP_RESET_WRITE=$(at device.rs 'self.regs.write(CTRL, CTRL_RESET)?;' '?')
HOP_TRIGGER_RESET=$(at trigger.rs '.during("reset requested by the trigger file")?' 'during(')
ID_ORIGIN=$(site device.rs '"unexpected chip id')
BUSY=$(site device.rs '"chip busy')
OVERRUN=$(site device.rs '"sample FIFO overrun')
RANGE=$(at device.rs 'Err(ERANGE)?;' 'Err(')
HOP_CALIB=$(at device.rs 'let value = self.read_calibration()?;' '?')
BOGUS=$(site trigger.rs '"trigger: unknown command')
INSMOD_FAULT='ctl: "fail name=bus_read probability=100 times=1 code=EIO": 1 query, 0 sites matched, 1 fail point set'

# ---- kunit: the KUnit suite errtrace_recorder (Linux 6.13+; kernel/kunit/kunit.rs)
if [[ $FLAVOUR == base || $FLAVOUR == debug ]]; then
    expect_rc kunit 0 insmod
    for t in wrap_around writers_on_every_cpu readers_during_writes; do
        expect kunit "${K} +ok [0-9]+ $t\$" "KUnit: $t passed"
    done
    expect kunit "${K}ok [0-9]+ errtrace_recorder\$" 'KUnit: suite errtrace_recorder passed'
    expect_not kunit "${K}.*not ok" 'KUnit: no failure'
    expect kunit "${K}errtrace_kunit: errtrace_recorder: [1-9][0-9]* CPUs wrote [1-9][0-9]* errors, [0-9]+ readable while alive, [0-9]+ unrecorded\$" \
        'KUnit: the writers on every CPU'
fi

# ---- builtin: a copy of errtrace in vmlinux (base flavour of 7.3) beside a module's copy
if [[ $FLAVOUR == base ]]; then
    expect builtin "${K}errtrace_builtin: loaded: 100 errors made at [0-9]+ sites, 100 readable in its recorder\$" \
        'the built-in copy ran at boot'
    expect builtin '^dynamic_debug entries of errtrace_builtin: [1-9][0-9]*$' \
        "dynamic_debug groups the built-in copy's sites under its module name"
    n=$(section builtin | sed -nE 's/^dynamic_debug entries of errtrace_builtin: ([0-9]+)$/\1/p')
    expect builtin "^with p: ${n:-x}\$" "'module errtrace_builtin +p' reaches every one of its sites"
    expect_rc builtin 0 insmod
    expect builtin "${K}errtrace_peer: loaded: 100 errors made at [0-9]+ sites, 100 readable in its recorder\$" \
        "the peer module's own copy loads beside it"
    expect builtin "^dynamic_debug entries: builtin ${n:-x}, peer [1-9][0-9]*\$" 'each copy keeps its own sites'
    expect builtin '^/sys/kernel/tracing/events/errtrace_builtin$' "the built-in copy's events under its own system"
    expect builtin '^/sys/kernel/tracing/events/errtrace_peer$' "the peer module's events under its own: no clash"
    expect_rc builtin 0 rmmod
fi

# ---- fault-attr: a driver's copy (no control language) armed by the kernel's fault_attr
FP_PEER=$(at peer/peer.rs 'fail_point!("peer_setup"' 'errtrace::fail_point!')
HOP_PEER=$(at peer/peer.rs 'set_up()?;' '?')
expect fault-attr "${K}FAULT_INJECTION: forcing a failure\.\$" "the kernel's fault injection decides (fail=1,100,0,1)"
expect fault-attr "${K}name fail_errtrace_peer, interval 1, probability 100, space 0, times 1\$" \
    "the module's fault_attr, as fail= set it"
expect fault-attr "${K}errtrace_peer: fault injected at peer_setup: ENODEV \(-19\) at ${FP_PEER}\$" \
    'the fail point named by fail_points= injects its own code'
BLOCK_M="${K}(errtrace_peer: )?" expect_block fault-attr \
    'the peer init boundary reports the injected error with origin and hop' \
    'errtrace_peer init: returning ENODEV (-19), not reported before:' \
    '  error ENODEV (-19): No such device' \
    "    origin: ${FP_PEER} in peer::set_up" \
    "    via:    ${HOP_PEER}"
expect_rc fault-attr 19 insmod
expect fault-attr "${K}errtrace_peer: loaded: 100 errors made at [0-9]+ sites, 100 readable in its recorder\$" \
    'with probability 0 (fail= not given) the point does not fail'
# (The knobs are listed in order; a kernel with FAULT_INJECTION_STACKTRACE_FILTER has more.)
expect fault-attr '^fault_attr knobs: interval probability ([a-z-]+ )*space ([a-z-]+ )*task-filter times verbose ' \
    "the kernel's debugfs knobs for the module's fault_attr"
expect fault-attr '^fault_attr: probability 0, times 1$' 'their values: the kernel defaults'
expect fault-attr '^knobs after unload: removed$' 'the knobs go with the module'

# ---- before: the same fault, init returns a bare errno; the kernel says nothing
expect_rc before 5 insmod
expect before "can't insert 'errtrace_demo.ko': Input/output error" 'insmod reports EIO'
# (The first out-of-tree module load prints the taint notice, and on a kernel that signs its
# modules (7.3 with Debian's config) the unsigned-module notice; nothing else about it. Devices
# still probing from boot may print meanwhile: only lines about the module or a failure count.)
expect_not before "$K"'.*(errtrace|demo|[Ee]rror|EIO|[Ff]ail|init)' 'no kernel message about the failure' \
    'errtrace_demo: (loading out-of-tree module taints kernel\.|module verification failed: signature and/or required key missing - tainting kernel)$'

# ---- load-fail: a fault point named at load time; the boundary's full report
expect_rc load-fail 5 insmod
expect load-fail "can't insert 'errtrace_demo.ko': Input/output error" 'insmod reports EIO'
expect load-fail "${M}$(re "$INSMOD_FAULT")\$" 'ctl= parameter applied at load'
expect_block load-fail "boundary report: origin $FP_READ (the fault point), 3 hops" \
    'errtrace_demo init: returning EIO (-5), not reported before:' \
    '  error EIO (-5): Input/output error' \
    "    origin: $FP_READ in demo::bus::Bus::read" \
    "    via:    $HOP_BUS_READ" \
    "    via:    $HOP_CHIP_ID \"reading chip id\"" \
    "    via:    $HOP_PROBE"
expect_count load-fail 'not reported before' 1 'init ran and reported once'
expect load-fail "${M}$(re "fault injected at bus_read: EIO (-5) at $FP_READ")\$" \
    "the creator's line: the fault point says where it failed"
expect_count load-fail 'fault injected at bus_read' 1 "the creator's line is printed once"

# ---- load-fail-logged: the creator logs; the boundary does not print it again
expect_rc load-fail-logged 19 insmod
expect load-fail-logged "can't insert 'errtrace_demo.ko': No such device" 'insmod reports ENODEV'
expect load-fail-logged "${M}$(re "unexpected chip id 0x42 (expected 0x5a): ENODEV (-19) at $ID_ORIGIN")\$" \
    "the creator's line, at $ID_ORIGIN"
expect load-fail-logged "${M}$(re "errtrace_demo init: returning ENODEV (-19), already reported at $ID_ORIGIN")\$" \
    "the boundary's debug line (file demo.rs +p) points where it was printed"
expect_count load-fail-logged 'unexpected chip id' 1 'printed once'
expect_not load-fail-logged 'not reported before' 'no second report at the boundary'

# ---- load: dyndbg= at load makes the quiet retry site print
# dynamic_debug's listing of a site: "FILE:LINE [MODULE]FUNC =FLAGS "FORMAT""; errtrace's
# descriptors name the module path as the function.
ddline() { echo "^$(re "${1%:*} [errtrace_demo]$2 =$3 \"$4\"")\$"; }
UNEXPECTED=$(site device.rs '"unexpected chip id')
expect_rc load 0 insmod
expect_count load "${M}$(re "chip busy (status 0x01): EAGAIN (-11) at $BUSY")\$" 2 'quiet EAGAIN site prints after dyndbg=+p (2 busy polls)'
expect load "${M}loaded: chip 0x5a ready\$" 'probe succeeded'
expect load "^$(re "${BUSY%:*} [demo::device]poll_ready =p code=EAGAIN created=2 logged=2 suppressed=0 policy=quiet")\$" \
    "errtrace's listing shows the site printing (+p from dynamic_debug)"
expect load "$(ddline "$BUSY" demo::device p 'chip busy (status {status:#04x})')" \
    'dynamic_debug lists the quiet site, p set by dyndbg='
expect load "$(ddline "$UNEXPECTED" demo::device _ 'unexpected chip id {id:#04x} (expected {EXPECTED_CHIP_ID:#04x})')" \
    'a site that logs by default starts =_ too (p is the debug-output switch, as for pr_debug)'
expect load "$(ddline "$(at bus.rs 'fail_point!("bus_read"' 'errtrace::fail_point!')" demo::bus _ 'bus_read')" \
    'a fail point is listed with its name as the format'

# ---- control-on / control-off / control-flags: the debugfs control file
expect_count control-on "${M}$(re "chip busy (status 0x01): EAGAIN (-11) at $BUSY")\$" 2 'site prints (+p from load)'
expect control-on "${M}trigger: reset done\$" 'trigger file ran the reset'
expect_rc control-off 0 sh
expect_not control-off "${M}chip busy" 'site silenced at runtime'
expect control-off "${M}trigger: reset done\$" 'reset still ran'
expect control-off "$(ddline "$BUSY" demo::device _ 'chip busy (status {status:#04x})')" \
    'dynamic_debug lists it =_ (its default: EAGAIN is quiet)'
expect_count control-flags "${M}$(re "[0] poll_ready:$(cut -d: -f2 <<<"$BUSY"): chip busy (status 0x01): EAGAIN (-11) at $BUSY")\$" 2 \
    'flags =pflt: CPU id, function, line prefixes'
expect control-flags "^$(re "${BUSY%:*} [demo::device]poll_ready =pflt code=EAGAIN created=8 logged=6 suppressed=2 policy=quiet")\$" \
    "errtrace's listing shows dynamic_debug's flags and the counters"
expect control-flags "$(ddline "$BUSY" demo::device pflt 'chip busy (status {status:#04x})')" \
    'dynamic_debug lists =pflt'

# ---- control-fail: fault injection while loaded, reported at the trigger's boundary
expect control-fail "${M}$(re 'control: "fail name=bus_write times=1 code=ETIMEDOUT": 1 query, 0 sites matched, 1 fail point set')\$" 'fail query applied'
expect_block control-fail "boundary report: origin $FP_WRITE, code override, 3 hops" \
    'errtrace_demo trigger: returning ETIMEDOUT (-110), not reported before:' \
    '  error ETIMEDOUT (-110): Connection timed out' \
    "    origin: $FP_WRITE in demo::bus::Bus::write" \
    "    via:    $HOP_BUS_WRITE" \
    "    via:    $HOP_RESET_WRITE" \
    "    via:    $HOP_TRIGGER_RESET \"reset requested by the trigger file\""
expect control-fail 'write error: Connection timed out' 'the errno reaches user space'
expect_rc control-fail 1 sh
expect_count control-fail "${M}trigger: reset done\$" 1 'times=1: the next reset works'

# ---- control-error: bad queries are rejected whole, with a position
expect control-error "${M}$(re 'control: "fiel x +p": line 1, column 1: expected ')'file'.*found 'fiel'\$" 'error names position and expectation'
expect control-error "${M}control: .*column 21: expected .*found 'fiel'\$" 'second query of a multi-query input'
expect_count control-error 'write error: Invalid argument' 3 'EINVAL to user space (2 queries, 1 trigger)'
expect control-error "^$(re "${BUSY%:*} [demo::device]poll_ready =flt code=EAGAIN")" 'nothing of the rejected input applied (still -p)'
expect control-error "${M}$(re 'trigger: unknown command "bogus" (try reset, sample, storm N, drop, scan, devices N [CHIP_ID], supply on|off): EINVAL (-22) at ')${BOGUS}\$" \
    "creator's line for a bad trigger command"
expect_not control-error 'not reported before' 'boundary_errno does not print it again'

# ---- drop: an error dropped unhandled is reported with its origin
expect_rc drop 0 sh
expect_block drop "dropped-unhandled warning with origin $RANGE and a hop" \
    "ERANGE (-34) dropped unhandled, last seen at $HOP_CALIB (its last hop: dropped there or in a caller):" \
    '  error ERANGE (-34): Numerical result out of range' \
    "    origin: $RANGE" \
    "    via:    $HOP_CALIB"

# ---- expecting: a bus scan holds back the creator's ENXIO for absent registers
# (the read's is the first of bus.rs's two identical lines; the write's is the second)
NOREG_READ="kernel/module/bus.rs:$(grep -nF '"bus: no register at' "$SRC/bus.rs" | head -n 1 | cut -d: -f1)"
expect_rc expecting 0 sh
expect expecting "${M}trigger: scan found 6 registers in 0x00\\.\\.=0x0f\$" 'the scan found the 6 registers'
expect_not expecting 'no register at' 'the 10 absent addresses print nothing'
expect expecting "^$(re "$NOREG_READ") \\[demo::bus\\]read =p code=ENXIO created=10 logged=0 suppressed=10 " \
    'held back: counted as suppressed at the read site'

# ---- recorder: the flight recorder through debugfs
expect_rc recorder 0 cat
expect recorder '^# errtrace flight recorder: [0-9]+ events, shard by shard, oldest first' 'header'
expect recorder "^#[0-9]+ $(re "EAGAIN (-11) cpu 0 released: $BUSY in demo::device::Device::poll_ready")\$" 'quiet errors are recorded'
expect recorder "^#[0-9]+ $(re "ETIMEDOUT (-110) cpu 0 released: $FP_WRITE in demo::bus::Bus::write")\$" 'injected fault recorded'
expect recorder "^    via $(re "$HOP_RESET_WRITE")\$" 'with its trail'
expect recorder "^#[0-9]+ $(re "EINVAL (-22) cpu 0 released: $BOGUS in demo::trigger::run")\$" 'bad trigger command recorded'
expect recorder "^#[0-9]+ $(re "ERANGE (-34) cpu 0 released: $RANGE")\$" 'dropped error recorded'

# ---- tracepoints: errtrace:errtrace_error and errtrace:errtrace_hop in tracefs
HOP_SAMPLE=$(at trigger.rs 'let value = dev.sample().trace()?;' 'trace()')
expect_rc tracepoints 0 ls
expect tracepoints '^errtrace_error$' 'tracefs lists errtrace_error'
expect tracepoints '^errtrace_hop$' 'tracefs lists errtrace_hop'
TP_ERR="errtrace_error: $(re "EIO (-5) at ${FP_READ%:*} in demo::bus::Bus::read") site=[0-9]+ seq=[0-9]+\$"
expect tracepoints "^sh-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: $TP_ERR" 'an error event: errno, file:line, function, site, seq'
TP_SEQ=$(section tracepoints | grep -E "$TP_ERR" | head -n1 | sed -nE 's/.* seq=([0-9]+)$/\1/p')
expect tracepoints "errtrace_hop: seq=${TP_SEQ:-none} err=-5 via $(re "${HOP_BUS_READ%:*}")\$" 'its first hop, same seq'
expect tracepoints "errtrace_hop: seq=${TP_SEQ:-none} err=-5 via $(re "${HOP_SAMPLE%:*}")\$" 'its last hop (the trigger), same seq'
# The two counts of errtrace lines, before and after a second failing sample with the events disabled.
mapfile -t TP_COUNTS < <(section tracepoints | awk '/^ERRTRACE-RUN: sh -c grep -c errtrace_/ { getline; print }')
[[ ${#TP_COUNTS[@]} == 2 && ${TP_COUNTS[0]} -ge 3 && ${TP_COUNTS[0]} == "${TP_COUNTS[1]}" ]]
report $? "[tracepoints] disabled events add no line (counts: ${TP_COUNTS[*]})"
expect_count tracepoints "$TP_ERR" 1 'one error event: the second sample ran with the events off'

# ---- devices: the platform driver's probes, in device context
HOP_DEV_SETUP=$(at platform.rs 'let chip = Chip::setup(bus)?;' '?')
DEFER=$(site platform.rs '"supply vdd is not up"')
FP_ALLOC=$(at platform.rs 'fail_point!("dev_alloc"' 'errtrace::fail_point!')
# D N: the start of a dev_err!-style line of device errtrace-demo.N.
D() { echo "${K}errtrace-demo errtrace-demo\\.$1: "; }
for n in 0 1 2 3; do
    expect_count devices "$(D $n)probe: returning EIO \(-5\), not reported before:\$" 1 \
        "errtrace-demo.$n: the probe's report, on its device"
    expect devices "$(D $n)    origin: $(re "$FP_READ in demo::bus::Bus::read")\$" "errtrace-demo.$n: origin"
    expect devices "$(D $n)    via:    $(re "$HOP_DEV_SETUP")\$" "errtrace-demo.$n: the probe's hop"
done
expect_count devices "$(D '[0-3]')    via:    $(re "$HOP_CHIP_ID") \"reading chip id\"\$" 4 'four devices, four trails'
expect_not devices "${M}(probe|  error|    origin|    via)" 'no report line without its device'
expect devices "${M}trigger: devices added; device scopes open: 0\$" 'every device scope ended with its probe'
expect devices-creator "${M}trigger: devices added; device scopes open: 0\$" 'also after a probe whose creator logged'
expect_count devices-creator "$(D 4)$(re "unexpected chip id 0x42 (expected 0x5a): ENODEV (-19) at $ID_ORIGIN")\$" 1 \
    "a creator's line inside a probe names the device"
expect_not devices-creator "$(D 4)probe: returning" 'the probe does not print it again'
expect_not devices-creator "${M}unexpected chip id" 'and it is not printed without the device'
expect devices-defer "^errtrace-demo\.5	errtrace-demo: $(re "EPROBE_DEFER: Driver requests probe retry (at $DEFER)")\$" \
    'EPROBE_DEFER: the deferral reason in devices_deferred, with the origin'
expect_not devices-defer "$(D 5)" 'EPROBE_DEFER: no line at error level'
expect devices-enomem "$(D 6)$(re "fault injected at dev_alloc: ENOMEM (-12) at $FP_ALLOC")\$" 'ENOMEM injected'
expect_not devices-enomem "$(D 6)(probe: returning|  error|    origin)" 'ENOMEM: errtrace prints no report'
expect devices-bound '^errtrace-demo\.7$|errtrace-demo\.7 ' 'a device binds'
expect devices-bound '^errtrace-demo\.5 |errtrace-demo\.5$' 'then the driver core retries the deferred one, which binds'
expect devices-bound '^deferred: 0$' 'nothing left deferred'

# ---- storm: 1000 failures at one site: the burst, then the suppressed count
expect_count storm "${M}$(re "sample FIFO overrun (status 0x80): EOVERFLOW (-75) at $OVERRUN")\$" 10 \
    'burst of 10 printed (after dynamic_debug'"'"'s module -p: error reports are not debug output)'
expect storm "${M}$(re "${OVERRUN%:*} [demo::device]sample: 990 messages suppressed")\$" '990 messages suppressed'
expect storm "${M}trigger: storm of 1000 samples, 1000 failed\$" '1000 failures'
expect storm "^$(re "${OVERRUN%:*} [demo::device]sample =p code=EOVERFLOW created=1000 logged=10 suppressed=990 policy=ratelimit(10/5s)")\$" 'site counters'
expect_count storm-off 'sample FIFO overrun' 0 "errtrace's func sample -p: storm silenced"
expect storm-off "${M}trigger: storm of 1000 samples, 1000 failed\$" 'it still ran'
expect storm-off "^$(re "${OVERRUN%:*} [demo::device]sample =_ code=EOVERFLOW created=2000 logged=10 suppressed=1990")" 'and was counted'
expect_rc storm-off 0 sh

# ---- module-p: dynamic_debug's `module errtrace_demo =p`
expect_count module-p "${M}$(re "chip busy (status 0x01): EAGAIN (-11) at $BUSY")\$" 2 'the quiet site prints, without prefixes'

# ---- unload
expect_rc unload 0 rmmod
expect unload "${M}unloaded \([0-9]+ sites, 1 errors dropped unhandled\)\$" 'drop ran'
expect_rc unload 1 grep
expect unload 'ERRTRACE-RC: [1-9][0-9]* \(ls\)' 'debugfs directory removed'
expect unload "^dynamic_debug entries of errtrace_demo: 0\$" "dynamic_debug no longer lists the module's sites"
expect unload '^dynamic_debug lines: [1-9][0-9]*$' 'and its control file still reads'

# ---- levels: each kind of record at its printk level (dmesg -r)
expect levels '^<3>\[.*\] errtrace_demo: errtrace_demo init: returning EIO \(-5\), not reported before:$' 'boundary report: KERN_ERR'
expect levels '^<3>\[.*\] errtrace_demo: unexpected chip id' "creator's line: KERN_ERR"
expect levels '^<7>\[.*\] errtrace_demo: errtrace_demo init: returning ENODEV .*already reported' 'already reported: KERN_DEBUG'
expect levels '^<4>\[.*\] errtrace_demo: .*: 990 messages suppressed$' 'suppressed count: KERN_WARNING'
expect levels '^<4>\[.*\] errtrace_demo: ERANGE \(-34\) dropped unhandled, last seen at .*:$' 'dropped unhandled: KERN_WARNING'
expect levels '^<6>\[.*\] errtrace_demo: loaded: chip' 'module info: KERN_INFO'

# ---- the debug kernel: SMP, lockdep, KASAN, and the stress scenario
if [[ $FLAVOUR == debug ]]; then
    expect all 'smp: Brought up 1 node, 4 CPUs' 'booted with 4 CPUs'
    expect all 'Lock dependency validator' 'lockdep is on'
    expect all 'KernelAddressSanitizer initialized' 'KASAN is on'
    SPLATS='BUG: KASAN|possible (recursive|circular) locking|inconsistent lock state|sleeping function called from invalid context|suspicious RCU usage|turning off the locking correctness validator|blocked for more than|soft lockup|hard LOCKUP|BUG: using smp_processor_id'
    expect_not all "$SPLATS" 'no lockdep, KASAN, atomic-sleep, RCU or lockup report'

    STRESS_RETRY=$(at stress.rs 'Err(err!(quiet, EAGAIN))' 'err!')
    expect_rc stress 0 insmod
    expect_rc stress 0 stress
    expect stress "${M}$(re 'stress: 4 CPUs x 200000 iterations; errors made per CPU in kthreads: [200000, 200000, 200000, 200000]')\$" \
        '200000 errors made on each of 4 CPUs'
    expect stress "${M}stress: [0-9]+ errors made: 800000 in kthreads \(800 dropped unhandled\), 50000 logging at creation, [1-9][0-9]* in hard IRQ, [1-9][0-9]* in softirq, [1-9][0-9]* in NMI\$" \
        'errors made in kthreads, hard IRQ, softirq and NMI'
    expect stress "${M}errtrace stress: made=[0-9]+ hardirq=[1-9][0-9]* softirq=[1-9][0-9]* nmi=[1-9][0-9]* unrecorded=[0-9]+ lost=0\$" \
        'the one-line summary: NMIs made errors, none lost'
    expect stress "${M}stress: standing queries left by NMIs for later [1-9][0-9]* times, applied by [1-9][0-9]* irq_work runs\$" \
        'no standing-query parsing in NMI: left to an irq_work, which ran'
    expect stress '^[^ ]*stress\.rs:[0-9]+ \[[^]]*\]errtrace_demo_stress_nmi =t ' \
        "the NMI's site, which first fired in NMI, got its standing query afterwards"
    expect stress '^nmi_longest_ns: 40000000$' "the kernel's NMI duration limit set to ten of the guest's clock ticks"
    expect_not all 'NMI handler \(nmi_fn \[errtrace_demo\]\) took too long' \
        "errtrace's NMI handler never ran past the kernel's NMI duration limit (40 ms: see stress.sh)"
    expect stress '^ERRTRACE-LOOP: [1-9][0-9]* reads of the control files while modules came and went$' \
        'dynamic_debug, tracefs and errtrace control files read while the peer loaded and unloaded'
    expect stress '^ERRTRACE-LOOP: [1-9][0-9]* rounds of CPUs 1-3 offline and back$' 'CPUs taken offline and back during the stress'
    expect_not stress 'ERRTRACE-LOOP: a CPU hotplug write failed' 'every hotplug write succeeded'
    expect stress '^online CPUs: 0-3$' 'all 4 CPUs online at the end'
    expect stress "${M}stress: counts reconcile\$" 'made = recorded + unrecorded; site counters = errors made; logged + suppressed = made'
    expect_not stress 'DO NOT reconcile' 'no count mismatch'
    expect stress '^ERRTRACE-LOOP: [1-9][0-9]* rounds of queries, reads and peer load/unload$' \
        'user space wrote queries, read the recorder and loaded/unloaded the peer meanwhile'
    expect_not stress 'ERRTRACE-LOOP: peer not in dynamic_debug' "the peer's sites were listed every time it was loaded"
    expect stress "${K}errtrace_peer: loaded: 100 errors made at [0-9]+ sites, 100 readable in its recorder\$" \
        "the peer's own errtrace: its errors, sites and recorder"
    # Nothing printed twice, nothing lost: the printed lines of each printing site are its count.
    for what in 'logging:stress: cpu [0-9]+ iteration [0-9]+ failed: EIO \(-5\)' \
                "kthread retry:EAGAIN \(-11\) at $(re "$STRESS_RETRY")\$"; do
        name=${what%%:*}
        logged=$(section stress | sed -nE "s/.*stress: $name site [^ ]+: created=[0-9]+ \(made [0-9]+\) logged=([0-9]+) .*/\1/p")
        printed=$(section stress | grep -Ec "${M}${what#*:}")
        [[ -n $logged && $logged == "$printed" ]]
        report $? "[stress] $name site: $printed lines printed = its logged count ${logged:-?}"
    done

    expect two-modules '^/sys/kernel/tracing/events/errtrace$' "the demo's events: errtrace:*"
    expect two-modules '^/sys/kernel/tracing/events/errtrace_peer$' "the peer's, loaded beside it: errtrace_peer:*"
    expect two-modules '^dynamic_debug entries: demo [1-9][0-9]*, peer [1-9][0-9]*$' 'both modules listed in dynamic_debug'
    expect_rc two-modules 0 rmmod
    expect two-modules '^dynamic_debug entries: demo 0, peer [1-9][0-9]*$' "demo unloaded first: the peer's entries stay"
    expect two-modules '^tracefs errtrace events: 0$' "the demo's tracepoints are gone from tracefs"
    expect two-modules '^dynamic_debug lines: [1-9][0-9]*$' 'both unloaded: the control file still reads'
fi

# ---- add checks above this line
echo "$PASS passed, $FAIL failed"
((FAIL == 0))
