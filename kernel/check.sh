#!/usr/bin/env bash
# Checks on the guest's serial log. Usage: kernel/check.sh SERIAL_LOG
# Each check prints "ok" or "FAIL"; the script exits 1 if any check failed.
# Add checks at the end, using the helpers:
#   section NAME                 the log lines of scenario NAME (from its
#                                "ERRTRACE-SCENARIO: NAME" marker to the next)
#   expect   NAME REGEX [WHAT]   scenario NAME has a line matching REGEX
#   expect_not NAME REGEX [WHAT [IGNORE]]
#                                scenario NAME has no line matching REGEX
#                                (lines matching IGNORE don't count)
#   expect_rc NAME RC CMD        in scenario NAME, `run CMD ...` exited RC
# NAME "all" means the whole log. REGEX is an extended regex (grep -E).
set -uo pipefail

LOG=${1:?usage: check.sh SERIAL_LOG}
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
expect() {
    section "$1" | grep -Eq -- "$2"
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
    section "$1" | grep -Fxq -- "ERRTRACE-RC: $2 ($3)"
    report $? "[$1] $3 exits $2"
}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Kernel lines ("[    1.234567] ...") and a module's printk prefix.
K='^\[ *[0-9]+\.[0-9]+\] '
M="${K}errtrace_demo: "

# ---- the guest ran to the end
expect all '^ERRTRACE-GUEST: start$' 'guest init started'
expect all '^ERRTRACE-GUEST: done$' 'guest init finished all scenarios'
expect all '\] Linux version 6\.12\.' 'kernel 6.12 booted'

# ---- no kernel trouble anywhere (the command line itself says panic=-1)
TROUBLE='(\bBUG\b|Oops|\bpanic\b|WARNING:|Call Trace|general protection|segfault)'
hits=$(grep -Ev '[Cc]ommand line:|ERRTRACE-RUN:' "$LOG" | grep -E "$TROUBLE")
[[ -z $hits ]]; report $? "[all] no BUG/Oops/panic/WARNING lines"
[[ -z $hits ]] || printf '       %s\n' "$hits" | head -n 10

# ---- before: init returns Err(EINVAL); insmod fails; the kernel says nothing
expect before 'ERRTRACE-RC: [1-9][0-9]* \(insmod\)' 'insmod fails'
expect before "can't insert 'errtrace_demo.ko': Invalid argument" 'insmod reports EINVAL'
# (The first out-of-tree module load prints the taint notice; nothing else.)
expect_not before "$K" 'no kernel message about the failure' \
    'errtrace_demo: loading out-of-tree module taints kernel\.$'

# ---- load: separate crate + #[track_caller] + proc-macro + C parameter
DEMO=$HERE/module/demo.rs
ORIGIN_LINE=$(grep -n 'errtrace::Error::new(-22)' "$DEMO" | cut -d: -f1)
HOP_LINE=$(grep -n 'map_err(|e| e.hop())' "$DEMO" | cut -d: -f1)
expect_rc load 0 insmod
expect load "${M}loaded \(errtrace stand-in" 'init runs, sink over printk installed'
expect load "${M}param ctl=\"func layer_\* \+p\"$" 'C string parameter read from Rust'
expect load "${M}enter demo::layer_a$" 'proc-macro rewrote layer_a'
expect load "${M}enter demo::layer_b$" 'proc-macro rewrote layer_b'
expect load "${M}error -22 created at kernel/module/demo.rs:$ORIGIN_LINE \(#1\)$" \
    "#[track_caller] origin is demo.rs:$ORIGIN_LINE (repository-relative path)"
expect load "${M}  hop at kernel/module/demo.rs:$HOP_LINE$" "hop at demo.rs:$HOP_LINE"
expect load "${M}layer_a failed: EINVAL \(errno -22\), origin kernel/module/demo.rs:$ORIGIN_LINE:[0-9]+, seq 1$" \
    'conversion to kernel::error::Error'
expect load "${M}layer_a\(1\) = 2$" 'success path'
expect load "${M}type_name: errtrace::sink::SinkSlot$" 'core::any::type_name'
expect load "${M}fixed buffer: \"fixed-buffer-tru\"$" 'core::fmt::Write into a fixed buffer'
expect load "${M}debugfs control file ready$" 'C init called from Rust'
expect load '^writes: 0$' 'control file read (C read -> Rust)'
expect load '^created: 1$' 'atomics in the separate crate'
expect load "^last_site: kernel/module/demo.rs:$ORIGIN_LINE$" 'AtomicPtr<Location> in the separate crate'

# ---- control-write: C write handler -> Rust
expect_rc control-write 0 sh
expect control-write "${M}control: query \"module errtrace_demo \+p\"$" 'Rust handled the write'
expect control-write '^writes: 1$' 'write counted'
expect control-write '^last: module errtrace_demo \+p$' 'query stored'

# ---- control-write-error: Rust returns -EINVAL through C to user space
expect control-write-error "${M}control: rejected query \"fail\"$" 'pr_err from the write handler'
expect control-write-error 'ERRTRACE-RC: [1-9][0-9]* \(sh\)' 'write fails'
expect control-write-error 'Invalid argument' 'write fails with EINVAL'

# ---- unload
expect_rc unload 0 rmmod
expect unload "${M}unloaded$" 'drop ran'
expect_rc unload 1 grep
expect unload 'ERRTRACE-RC: [1-9][0-9]* \(ls\)' 'debugfs directory removed'

# ---- add checks above this line
echo "$PASS passed, $FAIL failed"
((FAIL == 0))
