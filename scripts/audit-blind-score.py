#!/usr/bin/env python3
"""Score `cargo errtrace audit` against the blind labels of crates/cargo-errtrace/corpus/linux-7.3-blind.

    scripts/audit-blind-score.py TREE [--audit BIN] [--with-kernel] [--facts DIR] [--check] [--driver NAME=PATH …]

TREE is a Linux 7.3 source tree (Debian's linux-source-7.3, as kernel/test.sh unpacks it). For
each driver with a `<name>.labels.json`, the audit runs on the driver alone (as in the blind
first run) and is scored against the labels, which were written before any run:

- recall: labelled silent paths (default report: not returned to user space) that a finding
  reports: a finding at the label's line (or up to eight lines after it: the `)?;` of the same
  call), or whose chain passes that line (a step's line or one of its `also_at` lines), or
  that names the line as another place its error enters the driver (`also_enters`);
- precision: default findings that match a labelled path are true, those at a line the reader
  listed as not silent are false; then `judged-after.json` and `<driver>.judged-after.json`
  (findings judged after they were seen, not blind); any other finding is counted as unjudged
  and listed: judge it there.

With --check, exits 1 when a finding is unjudged, or recall or precision is below 80 % (or
the --floor given).

With --kernel-tree, the audit reads what each C callee does from TREE's C (TREE must then be a
whole tree, with Kbuild); without it, from the built-in name lists, as a driver folder alone.

With --kernel-crate, scores the kernel crate's own labels instead (`rust_kernel_{a,b,c}`: three
parts of rust/kernel, labelled the same way): `rust/` is audited alone, once, and each part is
scored on the findings whose origin is in its files.

Findings that are overflow guards (listed with --guards) are not scored, as in the first run.

With --facts DIR, the audit resolves calls as the compiler did when it built TREE (the facts
`kernel/facts.sh` makes `errtrace-rustc` write); without it, by syntax.

With --with-kernel, each driver is audited together with the kernel crate (`rust/`, generated
bindings left out), so calls into it are followed to where the kernel crate makes the error;
only findings whose origin or chain is in the driver are scored.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "crates", "cargo-errtrace", "corpus", "linux-7.3-blind")

# The drivers of the blind run: label file name -> path in the tree.
DRIVERS = [
    ("tyr", "drivers/gpu/drm/tyr"),
    ("rnull", "drivers/block/rnull"),
    ("pwm_th1520", "drivers/pwm/pwm_th1520.rs"),
    ("rcpufreq_dt", "drivers/cpufreq/rcpufreq_dt.rs"),
    ("ax88796b_rust", "drivers/net/phy/ax88796b_rust.rs"),
    ("qt2025", "drivers/net/phy/qt2025.rs"),
    ("nova", "drivers/gpu/drm/nova"),
    ("samples_rust", "samples/rust"),
    ("nova_core", "drivers/gpu/nova-core"),
    ("drm_panic_qr", "drivers/gpu/drm/drm_panic_qr.rs"),
    ("binder", "drivers/android/binder"),
]
KINDS = ("silent-chain", "discarded", "swallowed")
# The kernel crate, labelled on its own in three parts (label file name -> its part of the crate):
# audited once as `rust/` (the kernel crate with its sibling crates), each part scored on the
# findings whose origin is in its files.
KERNEL_PARTS = ["rust_kernel_a", "rust_kernel_b", "rust_kernel_c"]


def near(f_file, f_line, file, line):
    return f_file == file and 0 <= f_line - line <= 8


def touches(finding, file, line):
    if near(finding["file"], finding["line"], file, line):
        return True
    # A chain step's line, and the other lines of that function the same error passes
    # (`also_at`: further calls of the same callee).
    if any(
        near(c.get("file"), step, file, line)
        for c in finding.get("chain", [])
        for step in [c.get("line", -1), *c.get("also_at", [])]
    ):
        return True
    # An origin in the kernel crate: the other places its error enters the driver unlogged.
    return any(near(e.get("file"), e.get("line", -1), file, line) for e in finding.get("also_enters", []))


def in_driver(f, prefix):
    """The finding with its paths made relative to the driver, if its origin, its chain or one of
    the places its error enters unlogged (`also_enters`) is there."""
    if not prefix:
        return f
    strip = lambda p: p[len(prefix):] if p and p.startswith(prefix) else None
    chain = [dict(c, file=strip(c.get("file"))) for c in f.get("chain", [])]
    enters_here = any(strip(e.get("file")) for e in f.get("also_enters", []))
    if strip(f["file"]) is None and not any(c["file"] for c in chain) and not enters_here:
        return None
    # Chain steps outside the driver keep their tree paths.
    chain = [dict(c, file=c["file"] or o.get("file")) for c, o in zip(chain, f.get("chain", []))]
    enters = [dict(e, file=strip(e.get("file")) or e.get("file")) for e in f.get("also_enters", [])]
    return dict(f, file=strip(f["file"]) or f["file"], chain=chain, also_enters=enters,
                outside=strip(f["file"]) is None)


def staged(tree, path):
    """A directory with the kernel crate and the driver, as in the tree."""
    d = tempfile.mkdtemp(prefix="blind-")
    for src in dict.fromkeys(("rust", path)):
        s = os.path.join(tree, src)
        if os.path.isdir(s):
            shutil.copytree(s, os.path.join(d, src), ignore=shutil.ignore_patterns("*_generated.rs"))
        else:
            os.makedirs(os.path.dirname(os.path.join(d, src)), exist_ok=True)
            shutil.copy(s, os.path.join(d, src))
    return d


FACTS = []

# With --corpus: labels by the kernel's truth, written from DEFINITIONS.md (files named from the
# tree's root); a finding names the origin only at a labelled line (a call the audit could not
# follow is not one).
STRICT = False

# The drivers of the kernel-truth corpus (crates/cargo-errtrace/corpus/linux-7.3-kernel-truth).
TRUTH_DRIVERS = [
    ("pwm_th1520", "drivers/pwm/pwm_th1520.rs"),
    ("rcpufreq_dt", "drivers/cpufreq/rcpufreq_dt.rs"),
    ("ax88796b_rust", "drivers/net/phy/ax88796b_rust.rs"),
    ("qt2025", "drivers/net/phy/qt2025.rs"),
    ("rnull", "drivers/block/rnull"),
    ("samples_rust", "samples/rust"),
]

# Without --kernel-tree, the labels are scored as the audit reads a driver folder alone: what a
# C callee does is known from the built-in name lists (the labels of this corpus were written to
# that reading). With it, from the given tree's C.
TREE = ["--no-kernel-tree"]


def run_audit(audit, target):
    out = subprocess.run(
        [audit, "errtrace", "audit", target, "--format", "json", "--user-space", "--guards"] + FACTS + TREE,
        capture_output=True,
        text=True,
    )
    if out.returncode not in (0, 1):
        sys.exit(f"audit failed on {target} ({out.returncode}): {out.stderr}")
    found = json.loads(out.stdout)["findings"]
    if "--kernel-tree" in TREE:
        # The tree's kernel crate is named by its full path: made relative to the tree, as the
        # labels and the judgements name it.
        root = os.path.abspath(TREE[1]) + "/"
        rel = lambda p: p[len(root):] if p and p.startswith(root) else p
        for f in found:
            f["file"] = rel(f["file"])
            for c in f.get("chain", []) + f.get("also_enters", []):
                c["file"] = rel(c.get("file"))
    return found


_KERNEL_RUN = {}


def kernel_findings(tree, audit):
    """The audit of `rust/` alone (once per run of this script), paths relative to rust/kernel."""
    if "findings" not in _KERNEL_RUN:
        stage = staged(tree, "rust")
        try:
            found = run_audit(audit, stage)
        finally:
            shutil.rmtree(stage)
        _KERNEL_RUN["findings"] = [
            g for f in found if f["kind"] in KINDS and (g := in_driver(f, "rust/kernel/")) is not None
        ]
    return _KERNEL_RUN["findings"]


def score(name, path, tree, audit, with_kernel):
    labels = json.load(open(os.path.join(CORPUS, f"{name}.labels.json")))
    if STRICT:
        labels = relative_labels(labels, tree, path)
    if name in KERNEL_PARTS:
        # The kernel crate itself: the same run with or without --with-kernel; a part's findings
        # are those whose origin is in its files (any finding may match its labels).
        every = kernel_findings(tree, audit)
        own = set(labels["files"])
        return tally(name, labels, every, [f for f in every if f["file"] in own])
    # With the tree's C, the driver is audited where it is: the audit joins the tree's kernel
    # crate itself.
    stage = staged(tree, path) if with_kernel and "--kernel-tree" not in TREE else None
    target = stage or os.path.join(tree, path)
    prefix = (path.rstrip("/") + "/" if os.path.isdir(os.path.join(tree, path)) else os.path.dirname(path) + "/") if stage else ""
    try:
        found = run_audit(audit, target)
    finally:
        if stage:
            shutil.rmtree(stage)
    findings = [g for f in found if f["kind"] in KINDS and (g := in_driver(f, prefix)) is not None]
    if STRICT and os.path.isdir(os.path.join(tree, path)):
        # A reader who labelled some files of a directory (three of the samples) judges the
        # findings that start or pass there.
        own = set(labels["files"])
        findings = [f for f in findings if f["file"] in own or any(c.get("file") in own for c in f.get("chain", []))]
    return tally(name, labels, findings, findings)


def relative_labels(labels, tree, path):
    """Labels that name files from the tree's root (`drivers/pwm/pwm_th1520.rs`), with the
    driver's own files made relative to the driver, as the findings name them; the kernel
    crate's files stay as they are."""
    prefix = path.rstrip("/") + "/" if os.path.isdir(os.path.join(tree, path)) else os.path.dirname(path) + "/"
    rel = lambda f: f[len(prefix):] if f.startswith(prefix) else f
    out = dict(labels)
    out["files"] = [rel(f) for f in labels["files"]]
    for key in ("paths", "not_silent"):
        out[key] = [dict(p, file=rel(p["file"])) for p in labels.get(key, [])]
    return out


def kernel_crate_row(tree, audit):
    """The three parts as one label set (a path labelled in two parts once), over every
    finding in rust/kernel."""
    merged = {"paths": [], "user_space_paths": [], "not_silent": [], "files": []}
    seen = set()
    for n in KERNEL_PARTS:
        lab = json.load(open(os.path.join(CORPUS, f"{n}.labels.json")))
        for key in ("paths", "user_space_paths"):
            for p in lab.get(key, []):
                if (key, p["kind"], p["file"], p["line"]) not in seen:
                    seen.add((key, p["kind"], p["file"], p["line"]))
                    merged[key].append(p)
        merged["not_silent"] += lab.get("not_silent", [])
        merged["files"] += lab["files"]
    every = kernel_findings(tree, audit)
    row = tally("rust_kernel", merged, every, every)
    row["name"] = "rust/kernel (all three parts, each path once)"
    row["whole"] = True
    return row


def tally(name, labels, findings, scored):
    """Recall of `labels` over `findings`; precision over `scored` (the findings that are this
    label file's to judge)."""
    default = [
        f for f in scored if not f.get("guard") and not (f.get("boundary") or {}).get("user_space")
    ]
    paths = [p for p in labels["paths"] if p["kind"] in KINDS and not p.get("user_space")]
    found = [p for p in paths if any(touches(f, p["file"], p["line"]) for f in findings)]
    # Judged after the run: the shared file, and the driver's own `<name>.judged-after.json`.
    after_files = [os.path.join(CORPUS, "judged-after.json"), os.path.join(CORPUS, f"{name}.judged-after.json")]
    after = [
        j
        for path in after_files if os.path.exists(path)
        for j in json.load(open(path))["findings"]
        if j["driver"] == name
    ]
    true, false, unjudged = [], [], []
    for f in default:
        later = [j for j in after if f["file"] == j["file"] and f["line"] == j["line"]]
        if any(touches(f, p["file"], p["line"]) for p in paths):
            true.append(f)
        elif any(near(f["file"], f["line"], n["file"], n["line"]) for n in labels.get("not_silent", [])):
            false.append(f)
        elif later:
            (true if later[0]["label"] == "true" else false).append(f)
        else:
            unjudged.append(f)
    # True findings that name the real origin: at a labelled line (the reader labelled the line
    # where the driver makes the error or calls what fails), or, with the kernel crate, in the
    # kernel crate where the error is made; not those that stop at a call the audit did not
    # follow, or start elsewhere and only pass a labelled line.
    origin = [
        f for f in true
        if (f.get("outside") and not STRICT)
        or any(near(f["file"], f["line"], p["file"], p["line"]) for p in paths)
    ]
    # Paths to user space (listed with --user-space): recall only, as a separate figure.
    user = [p for p in labels.get("user_space_paths", []) if p["kind"] in KINDS]
    user += [p for p in labels["paths"] if p["kind"] in KINDS and p.get("user_space")]
    user_missed = [p for p in user if not any(touches(f, p["file"], p["line"]) for f in findings)]
    return {
        "name": name,
        "user_labelled": len(user),
        "user_found": len(user) - len(user_missed),
        "user_missed": user_missed,
        "origin": len(origin),
        "labelled": len(paths),
        "found": len(found),
        "missed": [p for p in paths if p not in found],
        "findings": len(default),
        "true": len(true),
        "true_findings": true,
        "false": false,
        "unjudged": unjudged,
    }


def pct(a, b):
    return f"{round(100 * a / b)} %" if b else "–"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("--audit", default="cargo-errtrace")
    ap.add_argument("--with-kernel", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--driver", action="append", metavar="NAME=PATH",
                    help="score only this driver (NAME.labels.json, PATH in the tree); repeatable")
    ap.add_argument("--kernel-crate", action="store_true",
                    help="score the kernel crate's own labels (rust/kernel, three parts) instead")
    ap.add_argument("--save-first-run", metavar="FILE",
                    help="with --kernel-crate: also write the audit's findings on rust/ to FILE")
    ap.add_argument("--facts", metavar="DIR",
                    help="resolve calls with the facts errtrace-rustc wrote while building TREE (kernel/facts.sh)")
    ap.add_argument("--floor", metavar="RECALL:PRECISION", default="80:80",
                    type=lambda v: tuple(int(x) for x in v.split(":")),
                    help="with --check, the lowest recall and precision (judged) in percent (default 80:80): "
                         "a corpus the audit does not reach 80 %% on is held to what it reached")
    ap.add_argument("--unjudged-out", metavar="FILE",
                    help="write the unjudged findings (whole, with their chains) to FILE, for a reader to judge")
    ap.add_argument("--corpus", metavar="DIR",
                    help="score the labels in DIR (by the kernel's truth: linux-7.3-kernel-truth) instead")
    ap.add_argument("--kernel-tree", action="store_true",
                    help="read what C callees do from TREE's C (the audit's --kernel-tree TREE)")
    a = ap.parse_args()
    if a.facts:
        FACTS.extend(["--facts", a.facts])
    if a.kernel_tree:
        TREE[:] = ["--kernel-tree", a.tree]
    global CORPUS, STRICT
    if a.corpus:
        CORPUS, STRICT = a.corpus, True
    drivers = [tuple(d.split("=", 1)) for d in a.driver] if a.driver else (TRUTH_DRIVERS if a.corpus else DRIVERS)
    if a.kernel_crate:
        drivers = [(n, "rust/kernel") for n in KERNEL_PARTS]
    rows = [score(n, p, a.tree, a.audit, a.with_kernel) for n, p in drivers]
    if a.kernel_crate:
        # The parts' readers followed chains across parts: one path labelled in two parts
        # counts once in the whole crate's row.
        rows.append(kernel_crate_row(a.tree, a.audit))
        if a.save_first_run:
            with open(a.save_first_run, "w") as out:
                json.dump({"findings": kernel_findings(a.tree, a.audit)}, out, indent=1)
                out.write("\n")
    print("| driver | labelled | found | recall | findings | true | false | unjudged | precision (judged) "
          "| naming the origin |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tot = dict(labelled=0, found=0, findings=0, true=0, false=0, unjudged=0, origin=0)
    # With --kernel-crate the total is the whole crate's row (the parts overlap).
    counted = [r for r in rows if r.get("whole")] or rows
    for r in rows:
        nf, nu = len(r["false"]), len(r["unjudged"])
        print(
            f"| {r['name']} | {r['labelled']} | {r['found']} | {pct(r['found'], r['labelled'])} | "
            f"{r['findings']} | {r['true']} | {nf} | {nu} | {pct(r['true'], r['true'] + nf)} | "
            f"{r['origin']} ({pct(r['origin'], r['true'] + nf)}) |"
        )
        if r not in counted:
            continue
        for k, v in (("labelled", r["labelled"]), ("found", r["found"]), ("findings", r["findings"]),
                     ("true", r["true"]), ("false", nf), ("unjudged", nu), ("origin", r["origin"])):
            tot[k] += v
    print(
        f"| **total** | {tot['labelled']} | {tot['found']} | {pct(tot['found'], tot['labelled'])} | "
        f"{tot['findings']} | {tot['true']} | {tot['false']} | {tot['unjudged']} | "
        f"{pct(tot['true'], tot['true'] + tot['false'])} | "
        f"{tot['origin']} ({pct(tot['origin'], tot['true'] + tot['false'])}) |"
    )
    # Recall of the paths to user space (findings listed with --user-space; not in the bars).
    ul = sum(r["user_labelled"] for r in counted)
    uf = sum(r["user_found"] for r in counted)
    print()
    print(f"paths returned to user space (--user-space): {uf} of {ul} found ({pct(uf, ul)})")
    # Precision per finding kind, over all drivers.
    print()
    print("| kind | findings | true | false | unjudged | precision (judged) |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind in KINDS:
        t = sum(1 for r in counted for f in r["true_findings"] if f["kind"] == kind)
        n = sum(1 for r in counted for f in r["false"] if f["kind"] == kind)
        u = sum(1 for r in counted for f in r["unjudged"] if f["kind"] == kind)
        print(f"| {kind} | {t + n + u} | {t} | {n} | {u} | {pct(t, t + n)} |")
    problems = []
    if tot["unjudged"]:
        problems.append(f"{tot['unjudged']} findings are unjudged: judge them in judged-after.json")
    min_recall, min_precision = a.floor
    if 100 * tot["found"] < min_recall * tot["labelled"]:
        problems.append(f"recall {pct(tot['found'], tot['labelled'])} is below {min_recall} %")
    if 100 * tot["true"] < min_precision * (tot["true"] + tot["false"]):
        problems.append(f"precision {pct(tot['true'], tot['true'] + tot['false'])} is below {min_precision} %")
    for r in counted:
        for p in r["missed"]:
            print(f"missed: {r['name']} {p['file']}:{p['line']}: {p['reason'][:110]}")
        for p in r["user_missed"]:
            print(f"missed (user space): {r['name']} {p['file']}:{p['line']}: {p['reason'][:100]}")
        for f in r["false"]:
            print(f"false: {r['name']} {f['file']}:{f['line']}: {f['message'][:110]}")
        for f in r["unjudged"]:
            print(f"unjudged: {r['name']} {f['file']}:{f['line']}: {f['message'][:110]}")
    if a.unjudged_out:
        with open(a.unjudged_out, "w") as out:
            json.dump([dict(f, driver=r["name"]) for r in counted for f in r["unjudged"]], out, indent=1)
            out.write("\n")
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if a.check and problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
