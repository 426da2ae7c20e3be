#!/usr/bin/env python3
"""Per-call self cost of each source line, from two callgrind files of one case.

    python3 crates/errtrace-bench/tools/cg_lines.py SHORT.out N1 LONG.out N2 [FILTER]

The files are those `errtrace-bench --keep DIR` leaves (callgrind.<case>.<n>.out). Prints, for
every source line whose self cost differs between the runs, (cost(N2) - cost(N1)) / (N2 - N1):
the instructions that line executes per iteration, fixed costs cancelled. FILTER (a substring of
the file name, for example `errtrace/src`) keeps only matching files. Lines are attributed where
the compiler inlined them (the file of the inlined code, not of the caller), so the output reads
as "which source line of errtrace costs what" with no need for the functions to exist.
"""

import re
import sys
from collections import defaultdict


def self_costs(path):
    """{(file, line): Ir} of self cost (the inclusive costs of calls= lines are skipped)."""
    # fl=, fi=, fe=, cfi= and cfl= share one table of file names (name compression).
    files = {}
    costs = defaultdict(int)
    cur_file = None
    file_of_fn = None
    last_line = 0
    skip_next = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line:
                continue
            m = re.match(r"^(fl|fi|fe|fn|cfi|cfl|cfn|ob|cob)=(?:\((\d+)\))?\s*(.*)$", line)
            if m:
                kind, num, name = m.groups()
                if kind in ("fl", "fi", "fe", "cfi", "cfl"):
                    if num is not None:
                        if name:
                            files[num] = name
                        name = files.get(num, name)
                if kind == "fl":
                    file_of_fn = name
                    cur_file = name
                elif kind in ("fi", "fe"):
                    cur_file = name
                elif kind == "fn":
                    cur_file = file_of_fn
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if line[0].isdigit() or line[0] in "+-*":
                parts = line.split()
                pos = parts[0]
                if pos == "*":
                    ln = last_line
                elif pos[0] == "+":
                    ln = last_line + int(pos[1:])
                elif pos[0] == "-":
                    ln = last_line - int(pos[1:])
                else:
                    ln = int(pos)
                last_line = ln
                if skip_next:
                    skip_next = False
                    continue
                ir = int(parts[1]) if len(parts) > 1 else 0
                costs[(cur_file, ln)] += ir
    return costs


def main(argv):
    if len(argv) < 5:
        print(__doc__)
        return 2
    a, n1, b, n2 = argv[1], int(argv[2]), argv[3], int(argv[4])
    filt = argv[5] if len(argv) > 5 else ""
    ca, cb = self_costs(a), self_costs(b)
    rows = []
    for key in set(ca) | set(cb):
        d = (cb.get(key, 0) - ca.get(key, 0)) / (n2 - n1)
        if abs(d) >= 0.05 and filt in (key[0] or ""):
            rows.append((key, d))
    rows.sort(key=lambda r: (r[0][0] or "", r[0][1]))
    total = 0.0
    for (file, ln), d in rows:
        total += d
        print(f"{d:8.1f}  {file}:{ln}")
    print(f"{total:8.1f}  total")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
