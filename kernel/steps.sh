# The step helpers of kernel/test.sh and kernel/facts.sh, sourced by both after they set
# STEPS_NAME (their name in messages) and `set -Eeuo pipefail`: each step prints `==> [name]`
# and `<== [name] done in Ns` and records its wall time; a failure names its step and shows the
# last lines of the step's log.

CURRENT_STEP=setup
STEP_LOG=
TIMINGS=()
die() { echo "$STEPS_NAME: FAILED in step '$CURRENT_STEP': $*" >&2; exit 1; }
on_err() {
    local rc=$?
    echo "$STEPS_NAME: FAILED in step '$CURRENT_STEP' (command exited $rc at line ${BASH_LINENO[0]})" >&2
    [[ -n $STEP_LOG && -f $STEP_LOG ]] && { echo "--- last lines of $STEP_LOG:" >&2; tail -n 40 "$STEP_LOG" >&2; }
    exit "$rc"
}
trap on_err ERR
# Where the step times go besides TIMINGS: a file, when steps run in subshells (kernel/test.sh
# runs each flavour in its own, so that one flavour's failure does not end the others).
TIMINGS_FILE=${TIMINGS_FILE:-}
# step NAME FUNCTION: run FUNCTION, print and record its wall time.
step() {
    local name=$1 fn=$2 t0=$SECONDS line
    CURRENT_STEP=$name
    STEP_LOG=
    echo "==> [$name] $(date +%T)"
    "$fn"
    line=$(printf '%-24s %5ss' "$name" $((SECONDS - t0)))
    TIMINGS+=("$line")
    [[ -z $TIMINGS_FILE ]] || echo "$line" >>"$TIMINGS_FILE"
    echo "<== [$name] done in $((SECONDS - t0))s"
}
print_timings() {
    echo "==> timings:"
    local t
    if [[ -n $TIMINGS_FILE ]]; then
        sed 's/^/    /' "$TIMINGS_FILE"
    else
        for t in "${TIMINGS[@]}"; do echo "    $t"; done
    fi
}
# logged LOG CMD...: CMD's output in LOG (its tail shown on failure).
logged() {
    STEP_LOG=$1; shift
    "$@" >"$STEP_LOG" 2>&1
}
