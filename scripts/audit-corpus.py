#!/usr/bin/env python3
"""Measure `cargo errtrace audit` on a labelled corpus of real kernel Rust.

    scripts/audit-corpus.py LABELS TREE [--audit BIN] [--check]

LABELS is a JSON file of crates/cargo-errtrace/corpus/: every finding the audit is expected to
make on TREE, each read by a person and labelled true or false with the reason (or unknown, when the source needed to judge it is
missing; not counted), and paths
found by reading the code ("recall"). The audit runs with --user-space and --guards, so that
the findings it lists only on request (errnos returned to user space, overflow guards) are
measured too.

Prints, per kind, the findings of the default report and how many are true (precision), the
same for those returned to user space, and the recall. With --check, exits 1 when a finding
has no label (the labels are stale: read it and label it), when a labelled finding is gone
(say so in the labels), or when the default report's precision for silent-chain, discarded
and swallowed together, or its recall, is below 80 %.
"""

import argparse
import json
import subprocess
import sys

COUNTED = ("silent-chain", "discarded", "swallowed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("labels")
    ap.add_argument("tree")
    ap.add_argument("--audit", default="cargo-errtrace", help="the cargo-errtrace binary")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()

    labels = json.load(open(a.labels))
    out = subprocess.run(
        [a.audit, "errtrace", "audit", a.tree, "--format", "json", "--user-space", "--guards",
         "--no-kernel-tree"],
        capture_output=True,
        text=True,
    )
    if out.returncode not in (0, 1):
        sys.exit(f"audit failed ({out.returncode}): {out.stderr}")
    report = json.loads(out.stdout)

    # Several findings may share a line (two calls on it): one label each.
    by_key = {}
    for l in labels["findings"]:
        by_key.setdefault((l["kind"], l["file"], l["line"]), []).append(l)
    problems = []
    rows = {}
    unknown = 0
    found_lines = set()
    for f in report["findings"]:
        if f["kind"] == "panic":
            continue
        key = (f["kind"], f["file"], f["line"])
        found_lines.add((f["file"], f["line"]))
        if f.get("guard"):
            user = "guard"
        elif (f.get("boundary") or {}).get("user_space"):
            user = "user"
        else:
            user = "default"
        pending = by_key.get(key) or []
        label = pending.pop(0) if pending else None
        if label is None:
            problems.append(f"unlabelled finding: {f['kind']} {f['file']}:{f['line']}: {f['message']}")
            continue
        if label["label"] == "unknown":
            unknown += 1
            continue
        r = rows.setdefault((user, f["kind"]), [0, 0])
        r[0] += 1
        r[1] += label["label"] == "true"
    for key, left in by_key.items():
        for _ in left:
            problems.append(f"labelled finding no longer reported: {key[0]} {key[1]}:{key[2]}")

    print(f"corpus: {labels['name']}")
    fixed = labels.get("no_longer_reported", [])
    if fixed:
        wrong = sum(1 for l in fixed if l["label"] == "false")
        print(f"({len(fixed)} findings of earlier runs are no longer reported, {wrong} of them false)")
    print(f"files {report['files']}, lines {report['summary']['lines']}, `?` {report['summary']['question_marks']}")
    print()
    print("| report | kind | findings | true | precision |")
    print("|---|---|---:|---:|---:|")
    totals = {}
    for user in ("default", "user", "guard"):
        where = {
            "default": "default",
            "user": "returned to user space (--user-space)",
            "guard": "overflow guards (--guards)",
        }[user]
        n_all = t_all = 0
        for kind in COUNTED:
            n, t = rows.get((user, kind), (0, 0))
            if n:
                print(f"| {where} | {kind} | {n} | {t} | {100 * t / n:.0f} % |")
            n_all += n
            t_all += t
        pct = f"{100 * t_all / n_all:.0f} %" if n_all else "–"
        print(f"| {where} | all three | {n_all} | {t_all} | {pct} |")
        totals[user] = (n_all, t_all)

    if unknown:
        print(f"\n{unknown} finding(s) labelled unknown (the source needed to judge is missing), not counted")
    recall = labels.get("recall", [])
    default_paths = [p for p in recall if not p["user_space"]]
    default_lines = {
        (f["file"], f["line"])
        for f in report["findings"]
        if not f.get("guard") and not (f.get("boundary") or {}).get("user_space")
    }
    hit = [p for p in default_paths if (p["file"], p["line"]) in default_lines]
    hit_all = [p for p in recall if (p["file"], p["line"]) in found_lines]
    print()
    print(f"recall, default report: {len(hit)} of {len(default_paths)} paths")
    print(f"recall, with --user-space: {len(hit_all)} of {len(recall)} paths")
    for p in recall:
        mark = "found" if (p["file"], p["line"]) in found_lines else "MISSED"
        print(f"  {mark}: {p['file']}:{p['line']}: {p['what']}")
    if labels.get("recall_note"):
        print(f"  ({labels['recall_note']})")
    for p in problems:
        print(f"error: {p}")

    if a.check:
        n, t = totals["default"]
        if problems:
            sys.exit(1)
        if n and t / n < 0.8:
            sys.exit(f"precision {t}/{n} is below 80 %")
        if default_paths and len(hit) / len(default_paths) < 0.8:
            sys.exit(f"recall {len(hit)}/{len(default_paths)} is below 80 %")


if __name__ == "__main__":
    main()
