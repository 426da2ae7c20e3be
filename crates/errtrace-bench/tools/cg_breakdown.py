#!/usr/bin/env python3
"""Per-call instructions of one case, by the innermost errtrace function they belong to.

    python3 crates/errtrace-bench/tools/cg_breakdown.py BIN SHORT.out N1 LONG.out N2 [--all]

BIN is the measured binary (target/bench-release/errtrace-bench), the two files are what
`errtrace-bench --keep DIR` leaves for a case (callgrind.<case>.<n>.out, dumped with
`--dump-instr=yes`). Every executed instruction's self cost is taken per iteration,
(cost(N2) - cost(N1)) / (N2 - N1), and attributed, through `addr2line -i` (the inline chain of
each address), to the innermost frame whose function is in the `errtrace` crate; instructions
with no errtrace frame are grouped by their innermost function (the benchmark's frames, the
loop, a peer crate). Fat LTO inlines nearly everything, so this is what callgrind_annotate's
"inclusive cost per function" cannot show: which part of errtrace costs what.

With --all, prints the whole inline chain of each group instead of the innermost frame only.
With --summary, groups into the parts of errtrace's cost (site lookup, recorder claim, hop
append, release, policy decision, ...) by the innermost frame that names one of them.
"""

import re
import subprocess
import sys
from collections import defaultdict


def parse_pos(tok, last):
    if tok == "*":
        return last
    if tok[0] == "+":
        return last + int(tok[1:], 0)
    if tok[0] == "-":
        return last - int(tok[1:], 0)
    return int(tok, 0)


def instr_costs(path):
    """{address: self Ir} from a callgrind file with `positions: instr ...`."""
    costs = defaultdict(int)
    positions = ["line"]
    last = [0, 0]
    skip_next = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if line.startswith("positions:"):
                positions = line.split(":", 1)[1].split()
                last = [0] * len(positions)
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            c = line[0]
            if not (c.isdigit() or c in "+-*"):
                continue
            parts = line.split()
            npos = len(positions)
            if len(parts) < npos:
                continue
            pos = [parse_pos(parts[i], last[i]) for i in range(npos)]
            last = pos
            if skip_next:
                skip_next = False
                continue
            if "instr" not in positions:
                sys.exit(f"{path}: no instruction positions (run the bench with --keep DIR)")
            ir = int(parts[npos]) if len(parts) > npos else 0
            costs[pos[positions.index("instr")]] += ir
    return costs


def inline_chains(binary, addrs):
    """{address: [function names, innermost first]} via addr2line."""
    chains = {}
    if not addrs:
        return chains
    out = subprocess.run(
        ["addr2line", "-a", "-f", "-i", "-C", "-e", binary] + [hex(a) for a in addrs],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    cur = None
    i = 0
    while i < len(out):
        l = out[i]
        if re.match(r"^0x[0-9a-f]+$", l):
            cur = int(l, 16)
            chains[cur] = []
            i += 1
            continue
        # function line, then file:line line
        if cur is not None:
            chains[cur].append(l)
        i += 2
    return chains


# (group, pattern), matched against each frame of an inline chain, innermost first.
PARTS = [
    ("recorder claim (the owned shard's head: load and store; the slot's state check, fill, publish)", r"Recorder<_>::(try_)?claim"),
    ("the thread's shard (its lease: one thread-local load)", r"errtrace::shard::"),
    ("hop append (the slot from the handle, the end mark and location stores; past the kept hops, the count's store)", r"Recorder<_>::(hop_owned|made_at)"),
    ("release (recorder slot: clear LIVE; a travelled error's count)", r"Recorder<_>::(release_owned|travelled)"),
    ("reported/logged checks (recorder slot)", r"Recorder<_>::(is_reported|mark_reported)"),
    ("per-shard counters (errors made, travelled: load and store in the owned shard)", r"errtrace::counters::|SiteState>::count$"),
    ("site (static site's link check, location pool lookup, id)", r"errtrace::site::"),
    ("cpu id / clock hooks", r"errtrace::platform::"),
    ("coarse clock (rdtsc and the thread's last CLOCK_MONOTONIC_COARSE reading; the vDSO when stale)", r"coarse_monotonic_m?s|read_coarse_ms|_rdtsc|clock_gettime|sub_timespec|<_>::now$|^\?\?$"),
    ("err! call site of a logging error (format_args!, the call)", r"errtrace_impl::leaf_(quiet|ratelimited)$"),
    ("policy decision and log bookkeeping", r"errtrace::(policy|emit|__private::log_created)"),
    ("hop bookkeeping (the count's range test and add in the error's bits; the cold call past the kept hops)", r"lifecycle::.*(hop|hop_at|hopped|hopped_unless_made_at)\b|hop_bits|hop_slow|hops_of|lifecycle::counted|__errtrace_hop|ResultExt"),
    ("error value (counters, last code, bits)", r"lifecycle::.*(make|new|__at_site|at_location)\b"),
    ("drop/handled (Error side)", r"lifecycle::.*(release|dispose|handled)|release_slow|Drop"),
    ("report formatting", r"errtrace::report|fmt::"),
]


def part_of(chain):
    for f in chain:
        for name, pat in PARTS:
            if re.search(pat, f):
                return name
    return "not errtrace: the ten frames' ?, the loop, the leaf's branch"


def clean(name):
    name = re.sub(r"::h[0-9a-f]{16}$", "", name)
    name = re.sub(r"<[^<>]*>", "<_>", name)
    return name


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    show_all = "--all" in argv
    if len(args) < 5:
        print(__doc__)
        return 2
    binary, a, n1, b, n2 = args[0], args[1], int(args[2]), args[3], int(args[4])
    ca, cb = instr_costs(a), instr_costs(b)
    per = {}
    for addr in set(ca) | set(cb):
        d = (cb.get(addr, 0) - ca.get(addr, 0)) / (n2 - n1)
        if abs(d) >= 0.01:
            per[addr] = d
    chains = inline_chains(binary, sorted(per))
    groups = defaultdict(float)
    for addr, d in per.items():
        chain = [clean(f) for f in chains.get(addr, ["??"])]
        if "--summary" in argv:
            key = part_of(chain)
        elif show_all:
            key = " <- ".join(chain)
        else:
            inner = next((f for f in chain if f.startswith("errtrace::")), None)
            key = inner if inner else "(not errtrace) " + (chain[0] if chain else "??")
        groups[key] += d
    total = 0.0
    for key, d in sorted(groups.items(), key=lambda kv: -kv[1]):
        total += d
        print(f"{d:8.1f}  {key}")
    print(f"{total:8.1f}  total per call")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
