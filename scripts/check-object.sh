#!/usr/bin/env bash
# check-object.sh: checks errtrace's own object code (x86_64) for
#   1. panic sites: any call/jmp from an errtrace function into a panic path (core::panicking::*,
#      panic_bounds_check, panic_const_*, unwrap_failed, slice_*_fail, ... : anything with
#      `panic` in its name, or `_fail`/`capacity_overflow`/`handle_error` in core/alloc/std);
#   2. stack frames over a limit: frame = 8 * (pushes in the prologue) + `sub $N,%rsp` (stack-probe
#      loops included); the return address is not counted.
# It builds the library crate twice, one object each (codegen-units=1, debuginfo=0, into
# target/objcheck/<config>, or $OBJCHECK_DIR/<config>; CARGO_BUILD_JOBS=1 for a busy machine):
#   kernel: release --no-default-features --features macros,tracepoints,dyndbg,control (as kernel/test.sh builds the demo), -C overflow-checks=on -C panic=abort
#   std:    release, features std + macros (not `registry`: linkme's distributed slice asserts
#           its linker bounds with a panic inlined into the functions that iterate it)
# and analyses `objdump -d -r -C` of it. An "errtrace function" is one whose mangled name contains
# the crate name (its own functions, impls on its types, drop_in_place::<errtrace::..>); core
# generics instantiated into the object are not (their panic calls are only shown as a note).
# Not counted: the sink delivery's catch_unwind machinery (std only), which stops a panic.
# Limitation: a generic function is only instantiated (and so checked) where the crate itself
# uses it; generic code instantiated only by users of errtrace is not checked here.
#
#   bash scripts/check-object.sh                 # both configurations
#   bash scripts/check-object.sh kernel          # one (kernel | std)
#   bash scripts/check-object.sh --object FILE [--crate NAME]   # analyse a given .o only
# Exit: 0 clean, 1 a panic site or a frame over its limit, 2 build or tool failure.
set -uo pipefail

# ---- limits -------------------------------------------------------------------------------------
FRAME_LIMIT=256        # bytes: every errtrace function not listed below
FRAME_LIMIT_BIG=1024   # bytes: functions whose demangled name matches one of these (POSIX ERE)
BIG_FRAME_FUNCS=(
    '^errtrace::control::((apply|env|listing)::)?(apply|apply_file|read_query_file|list|init_from_env|write_site|fail_room|earlier_fail_name|standing_list::push)(::|$)'  # apply/list/env
    # std only: the capture sink of tests builds a whole `Captured` (text, origins, message).
    '^<errtrace::sink::Capture as errtrace::sink::Sink>::emit$'
    '^<?errtrace::control::query::'                       # query parsing (whole module)
    # Control's standing queries, applied by the hook a site calls when it first appears (only
    # when a query was given before the site fired): query parsing, so control's limit.
    '^errtrace::control::(apply::)?(on_new_site|matches|act)(::|$)'
    '^errtrace::recorder::(dump|for_each|write_event)(::|$)'
    '^<?errtrace::recorder::Recorder<[^>]*>>?::for_each(::|$)'
    # Reading one event (inspection, never on an error's path): a whole copy of the slot
    # (code, site, location and the hops) beside the event it returns.
    '^errtrace::recorder::read::<impl errtrace::recorder::Recorder<[^>]*>>::read(_tagged)?$'
    # std only: formats a foreign error's text (`?` on a ParseIntError…) into a bounded
    # 256-byte stack buffer, so that formatting never allocates.
    '^errtrace::interop::keep_text(::|$)'
)
TOP=15                 # how many of the largest frames to print
# -------------------------------------------------------------------------------------------------

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "check-object: error: $*" >&2; exit 2; }

usage() { sed -n '2,/^# Exit/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

object="" crate="errtrace" configs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --object) object="${2:?--object needs a file}"; shift 2 ;;
        --crate) crate="${2:?--crate needs a name}"; shift 2 ;;
        kernel|std) configs+=("$1"); shift ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done
[[ ${#configs[@]} -gt 0 ]] || configs=(kernel std)
for tool in objdump awk sort; do command -v "$tool" >/dev/null || die "$tool not found (apt-get install binutils)"; done

big_re="$(IFS='|'; echo "${BIG_FRAME_FUNCS[*]}")"

# analyse LABEL OBJECT: prints the findings; returns 0 clean, 1 violations, 2 tool failure.
analyse() {
    local label="$1" obj="$2" tmp rc
    tmp="$(mktemp -d)" || die "mktemp failed"
    # the same disassembly twice: mangled names (ownership), then demangled with relocations
    if ! { objdump -d --no-show-raw-insn "$obj" >"$tmp/mangled" 2>"$tmp/err" &&
           objdump -d -r -C --no-show-raw-insn "$obj" >"$tmp/demangled" 2>>"$tmp/err"; }; then
        cat "$tmp/err" >&2; rm -rf "$tmp"; echo "check-object: error: objdump failed on $obj" >&2; return 2
    fi
    # Output records (tab-separated): P func target offset | N func target | F size limit func | C n owned
    awk -v crate="$crate" -v big_re="$big_re" -v lim="$FRAME_LIMIT" -v big="$FRAME_LIMIT_BIG" '
        function hex(s,   i, n) { n = 0; s = tolower(s); sub(/^0x/, "", s)
            for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return n }
        function flush_call(target) {            # resolve the pending call/jmp
            if (pend == "") return
            if (target == "" && pend_txt ~ /<[^>]*>/ && pend_txt !~ /^[a-z]+ +\*/) {
                target = substr(pend_txt, index(pend_txt, "<") + 1); sub(/(\+0x[0-9a-f]+)?>[^>]*$/, "", target) }
            # catch_unwind machinery in the std sink delivery is not a panic path: it stops one.
            if (fn ~ /^errtrace::sink::/ && target ~ /^(std::panicking::catch_unwind::cleanup|core::panicking::panic_cannot_unwind)$/) target = ""
            if (target != "" && target != fn && (target ~ /panic/ ||
                (target ~ /^(core|alloc|std)::/ && target ~ /(_fail|capacity_overflow|handle_error|handle_alloc_error)/)))
                print (own ? "P" : "N") "\t" fn "\t" target "\t0x" pend
            pend = "" }
        function end_fn() { flush_call("")
            if (fn != "" && own) print "F\t" frame "\t" (fn ~ big_re ? big : lim) "\t" fn }
        NR == FNR { if ($0 ~ /^[0-9a-f]+ <.*>:$/) { m = $0; sub(/^[0-9a-f]+ </, "", m); mangled[++nm] = m }; next }
        /^[0-9a-f]+ <.*>:$/ { end_fn(); fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn)
            k++; own = index(mangled[k], crate) > 0; nfn++; nown += own
            frame = 0; state = 0; skip = 0; next }
        fn == "" { next }
        /^\t\t\t *[0-9a-f]+: R_/ { if (pend != "") { n = split($0, f, "\t"); t = f[n]
                sub(/[-+]0x[0-9a-f]+$/, "", t); flush_call(t) }; next }
        /^ *[0-9a-f]+:\t/ { flush_call("")
            n = split($0, f, "\t"); ins = f[2]; off = f[1]; gsub(/[ :]/, "", off)
            sub(/^(notrack|bnd|rex\.W|data16|cs|ds) +/, "", ins); split(ins, w, " +"); op = w[1]; arg = w[2]
            if (op ~ /^(call|jmp|j[a-z]+)q?$/) { pend = off; pend_txt = ins }
            if (state < 2) {                     # prologue: first push/sub %rsp run (shrink-wrap ok)
                if (op ~ /^pushq?$/ && arg ~ /^%/) { frame += 8; state = 1 }
                else if (op ~ /^subq?$/ && arg ~ /^\$0x[0-9a-f]+,%r11$/) { frame += hex(substr(arg, 2, index(arg, ",") - 2)); skip = 1 }
                else if (op ~ /^subq?$/ && arg ~ /^\$0x[0-9a-f]+,%rsp$/) {
                    if (skip == 1 && arg ~ /^\$0x1000,/) skip = 2; else frame += hex(substr(arg, 2, index(arg, ",") - 2))
                    state = 1 }
                else if (state == 1 && !(op ~ /^movq?$/ && arg ~ /^(%rsp,%(rbp|r11)|\$0x0,\(%rsp\))$/) &&
                         !(op ~ /^cmpq?$/ && arg == "%r11,%rsp") && !(skip == 2 && op == "jne")) state = 2
            }
            next }
        END { end_fn(); print "C\t" nfn "\t" nown }
    ' "$tmp/mangled" "$tmp/demangled" >"$tmp/out" || { rm -rf "$tmp"; echo "check-object: error: awk failed" >&2; return 2; }

    local nfn nown npanic nover
    read -r _ nfn nown < <(grep '^C' "$tmp/out")
    [[ "${nown:-0}" -gt 0 ]] ||
        { rm -rf "$tmp"; echo "check-object: error: $label: no function of crate '$crate' in $obj" >&2; return 2; }
    npanic="$(grep -c '^P' "$tmp/out")"
    echo "check-object: $label: $obj: $nfn functions, $nown of $crate"
    # one line per (function, target): the call sites' offsets in the function
    grep '^P' "$tmp/out" | awk -F'\t' '{ k = $2 " -> " $3; if (!(k in n)) o[++c] = k; n[k]++; at[k] = at[k] (n[k] > 1 ? "," : "") $4 }
        END { for (i = 1; i <= c; i++) printf "panic: %s (%dx at %s)\n", o[i], n[o[i]], at[o[i]] }'
    grep '^N' "$tmp/out" | awk -F'\t' -v crate="$crate" '!s[$2]++ { l = l (l ? ", " : "") $2 }
        END { if (l) print "note: panic calls in non-" crate " functions (not counted): " l }'
    awk -F'\t' '$1 == "F" && $2 > $3 { printf "frame: %s: %d bytes > limit %d\n", $4, $2, $3 }' "$tmp/out"
    nover="$(awk -F'\t' '$1 == "F" && $2 > $3' "$tmp/out" | wc -l)"
    echo "largest frames (bytes, limit):"
    grep '^F' "$tmp/out" | sort -t$'\t' -k2,2nr | head -n "$TOP" |
        awk -F'\t' '{ printf "  %6d %5d%s %s\n", $2, $3, ($2 > $3 ? " OVER" : "     "), $4 }'
    echo "check-object: $label: $npanic panic sites, $nover frames over limit"
    rm -rf "$tmp"
    [[ "$npanic" -eq 0 && "$nover" -eq 0 ]]
}

if [[ -n "$object" ]]; then
    [[ -f "$object" ]] || die "no such object: $object"
    analyse object "$object"; exit $?
fi

command -v cargo >/dev/null || die "cargo not found"
status=0
for config in "${configs[@]}"; do
    dir="${OBJCHECK_DIR:-$root/target/objcheck}/$config"
    flags=(-C codegen-units=1 -C debuginfo=0)
    features=(--no-default-features --features std,macros,control)
    if [[ "$config" == kernel ]]; then
        features=(--no-default-features --features macros,tracepoints,dyndbg,control)
        flags+=(-C overflow-checks=on -C panic=abort)
    fi
    echo "check-object: $config: building errtrace (release ${features[*]} ${flags[*]}) in $dir"
    (cd "$root" && CARGO_TARGET_DIR="$dir" cargo rustc --quiet -p errtrace --release --lib "${features[@]}" \
        -- --emit=obj "${flags[@]}") || die "$config: cargo build failed"
    # the newest errtrace-<hash>.o: the one this build (re)wrote
    # shellcheck disable=SC2012
    obj="$(ls -t "$dir"/release/deps/errtrace-*.o 2>/dev/null | head -n 1)"
    [[ -n "$obj" ]] || die "$config: no errtrace-*.o under $dir/release/deps"
    analyse "$config" "$obj"; rc=$?
    [[ $rc -eq 2 ]] && exit 2
    [[ $rc -ne 0 ]] && status=1
done
exit $status
