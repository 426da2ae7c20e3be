#!/usr/bin/env bash
# The SDT probes for real: build the demo with `--features errtrace/sdt`, check that readelf lists
# the stapsdt notes, and have gdb stop at `errtrace:error` and `errtrace:hop` and print their
# arguments.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="$root/target/sdt"
cargo build -q --example driver --features errtrace/sdt
bin="$CARGO_TARGET_DIR/debug/examples/driver"

notes="$(readelf -n "$bin")"
for name in error hop; do
    if ! grep -A1 "Provider: errtrace" <<<"$notes" | grep -q "Name: $name"; then
        echo "test-sdt: no stapsdt note errtrace:$name in $bin" >&2
        exit 1
    fi
done
echo "readelf: stapsdt notes errtrace:error and errtrace:hop present"

# Every errtrace note must point into .text: a probe inlined into a function the linker
# discarded leaves a note at an address of nothing, where a tracer would write its breakpoint.
text_start=$((16#$(readelf -SW "$bin" | awk '$2 == ".text" { print $4 }')))
bad=0 count=0
while read -r loc; do
    count=$((count + 1))
    if (( 16#${loc#0x} < text_start )); then bad=$((bad + 1)); fi
done < <(grep -A2 "Provider: errtrace" <<<"$notes" | grep -o 'Location: 0x[0-9a-f]*' | cut -d' ' -f2)
if (( bad > 0 || count != 2 )); then
    echo "test-sdt: $count errtrace notes, $bad outside .text (want one each for error and hop, in .text)" >&2
    exit 1
fi
echo "readelf: one note each, both in .text"

# The guide's readelf and gdb output blocks (marked `<!-- output: sdt -->` in
# docs/src/probes.md) must be what these tools print now, addresses aside.
normalize() { sed -E 's/0x[0-9a-f]+/0x…/g; s/Breakpoint 1\.[0-9]+/Breakpoint 1/; s/[[:space:]]+$//'; }
check_doc_block() {
    local n=$1 output=$2 line missing=0
    while IFS= read -r line; do
        [[ -z "${line// }" ]] && continue
        if ! grep -qF -- "$(normalize <<<"$line" | sed 's/^[[:space:]]*//')" < <(normalize <<<"$output"); then
            echo "test-sdt: docs/src/probes.md, output block $n: not in the real output: $line" >&2
            missing=1
        fi
    done < <(awk -v want="$n" '
        /<!-- output: sdt -->/ { k++; grab = (k == want); next }
        grab && /^```text/ { inb = 1; next }
        inb && /^```/ { inb = 0; grab = 0; next }
        inb' "$root/docs/src/probes.md")
    return $missing
}
check_doc_block 1 "$notes" || exit 1
echo "docs: the guide's readelf block is what readelf prints"

check_probe() {
    local probe="$1"
    local out
    out="$(gdb -batch -nx \
        -ex "break -probe-stap errtrace:$probe" \
        -ex run \
        -ex 'print $_probe_arg0' \
        -ex 'print $_probe_arg4' \
        -ex 'x/s $_probe_arg3' \
        "$bin" 2>&1 </dev/null)"
    local code line
    code="$(grep -E '^\$1 = ' <<<"$out" | sed 's/^\$1 = //')"
    line="$(grep -E '^\$2 = ' <<<"$out" | sed 's/^\$2 = //')"
    if ! grep -q "Breakpoint 1" <<<"$out" || [[ -z "$code" || -z "$line" ]] \
        || ((code < 1 || code > 4095 || line < 1)) || ! grep -q '\.rs' <<<"$out"; then
        echo "test-sdt: gdb did not stop at errtrace:$probe with sane arguments:" >&2
        echo "$out" | tail -20 >&2
        exit 1
    fi
    echo "gdb: stopped at errtrace:$probe with errno $code, line $line, file $(grep -o '"[^"]*\.rs' <<<"$out" | head -1)\""
    if [[ $probe == error ]]; then
        check_doc_block 2 "$out" || exit 1
        echo "docs: the guide's gdb block is what gdb prints"
    fi
}
check_probe error
check_probe hop
echo "test-sdt: 6 passed, 0 failed"
