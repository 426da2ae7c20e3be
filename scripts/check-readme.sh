#!/usr/bin/env bash
# Runs every command of README.md (the lines of its ```sh blocks) on the current checkout, as a
# new user would, from the repository root; fails on the first command that fails.
#
# The full test command (bash scripts/test-all.sh) is skipped: test-all.sh runs this script.
#
#   bash scripts/check-readme.sh            # run them
#   bash scripts/check-readme.sh --list     # only print them
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The commands, one per line: the non-empty, non-comment lines of ```sh blocks (indented ones
# too, as in list items), with `\` continuations joined.
commands="$(awk '
    /^[[:space:]]*```/ {
        if (inblock) { inblock = 0; next }
        if ($0 ~ /^[[:space:]]*```(sh|bash|shell)[[:space:]]*$/) { inblock = 1 }
        next
    }
    inblock {
        line = $0
        sub(/^[[:space:]]+/, "", line)
        if (pending != "") { line = pending " " line; pending = "" }
        if (line ~ /\\$/) { sub(/\\$/, "", line); pending = line; next }
        if (line == "" || line ~ /^#/) next
        print line
    }
' README.md)"

if [[ -z "$commands" ]]; then
    echo "check-readme: no commands found in README.md" >&2
    exit 1
fi

if [[ "${1:-}" == "--list" ]]; then
    printf '%s\n' "$commands"
    exit 0
fi

ran=0
skipped=0
while IFS= read -r cmd; do
    case "$cmd" in
        "bash scripts/test-all.sh"*)
            echo "check-readme: skip (it runs this script): $cmd"
            skipped=$((skipped + 1))
            continue
            ;;
    esac
    echo "check-readme: \$ $cmd"
    log="$(mktemp)"
    start=$SECONDS
    if ! bash -euo pipefail -c "$cmd" </dev/null >"$log" 2>&1; then
        echo "check-readme: FAILED: $cmd" >&2
        tail -n 40 "$log" >&2
        rm -f "$log"
        exit 1
    fi
    echo "check-readme: ok in $((SECONDS - start)) s ($(wc -l <"$log") lines of output)"
    rm -f "$log"
    ran=$((ran + 1))
done <<<"$commands"

echo "check-readme: $ran passed, 0 failed, $skipped skipped"
