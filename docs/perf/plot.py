#!/usr/bin/env python3
"""Draws docs/perf/instructions.svg from docs/perf/results.json (no dependencies).

    cargo run --release -p errtrace-bench -- --save docs/perf   # results.json, results.txt
    python3 docs/perf/plot.py [results.json [out.svg]]

It also puts the plot inline into docs/src/performance.md, between the lines
`<!-- plot:begin ... -->` and `<!-- plot:end -->` (the book only ships files under docs/src).

One panel per scenario (S1 success, S2 error + 10 `?`, S3 + a context per frame, S4 + the
report), one bar per implementation, instructions per call on a logarithmic axis, heap
allocations per call written after the bar; then the errtrace-only costs (S5 suppressed log,
S6 disarmed drop, S7 disabled fail point) against their targets.
"""

import json
import math
import os
import sys
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
IMPLS = [
    "errtrace-origin",
    "errtrace-trail",
    "errno32",
    "errno64",
    "anyhow",
    "eyre",
    "error-stack",
    "snafu",
    "thiserror",
]
SCENARIOS = [
    ("S1", "S1: success through 10 frames"),
    ("S2", "S2: error at the leaf + 10 ? + drop"),
    ("S3", "S3: S2 + a context message per frame"),
    ("S4", "S4: S2 + formatting the full report"),
]
EXTRAS = [
    ("S5", "S5 quiet log", 40),
    ("S5.ratelimit", "S5 rate-limited", 40),
    ("S6", "S6 handled()", 10),
    ("S7", "S7 fail point", 3),
]
# Rows whose scenario the implementation cannot express.
NOTES = {
    ("errno32", "S3"): "  (no context: the S2 frames)",
    ("errno64", "S3"): "  (no context: the S2 frames)",
}
COLORS = {
    "errtrace-origin": "#1f6fb4",
    "errtrace-trail": "#5aa0e0",
    "errno32": "#8c8c8c",
    "errno64": "#b0b0b0",
}
PEER = "#e08a3c"

LABEL_W = 130
PLOT_W = 520
RIGHT_W = 90
BAR_H = 14
GAP = 4
PANEL_HEAD = 26
PANEL_GAP = 18
X_MIN, X_MAX = 50.0, 20000.0


def fmt(x):
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def xpos(v):
    v = min(max(v, X_MIN), X_MAX)
    return LABEL_W + PLOT_W * (math.log10(v) - math.log10(X_MIN)) / (
        math.log10(X_MAX) - math.log10(X_MIN)
    )


def text(x, y, s, size=11, anchor="start", weight="normal", color="#222"):
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{color}">{escape(s)}</text>'
    )


def render(rows):
    get = {(r["impl"], r["scenario"]): r for r in rows}
    out = []
    y = 34
    width = LABEL_W + PLOT_W + RIGHT_W
    out.append(
        text(
            width / 2,
            18,
            "errtrace and peers: instructions per call (callgrind, log scale)",
            13,
            "middle",
            "bold",
        )
    )
    ticks = [50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]
    for key, title in SCENARIOS:
        out.append(text(LABEL_W, y + 14, title, 12, weight="bold"))
        top = y + PANEL_HEAD
        n = len(IMPLS)
        h = n * (BAR_H + GAP)
        for t in ticks:
            x = xpos(t)
            out.append(
                f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + h}" '
                f'stroke="#e4e4e4" stroke-width="1"/>'
            )
            out.append(text(x, top + h + 11, fmt(t), 9, "middle", color="#777"))
        for i, imp in enumerate(IMPLS):
            by = top + i * (BAR_H + GAP)
            out.append(text(LABEL_W - 6, by + BAR_H - 3, imp, 11, "end"))
            r = get.get((imp, key))
            if r is None:
                out.append(text(LABEL_W + 4, by + BAR_H - 3, "not measured", 10, color="#999"))
                continue
            v = float(r["instructions"])
            x1 = xpos(v)
            color = COLORS.get(imp, PEER)
            out.append(
                f'<rect x="{LABEL_W}" y="{by}" width="{max(x1 - LABEL_W, 1):.1f}" '
                f'height="{BAR_H}" fill="{color}"/>'
            )
            label = fmt(v)
            a = float(r["allocs"])
            if a:
                label += f"  ({fmt(a)} alloc{'s' if a != 1 else ''})"
            label += NOTES.get((imp, key), "")
            out.append(text(x1 + 4, by + BAR_H - 3, label, 10))
        y = top + h + 14 + PANEL_GAP
    # errtrace-only costs against targets: each row scaled to its own target (the tick).
    out.append(
        text(
            LABEL_W,
            y + 14,
            "errtrace only: instructions over the plain path, each row scaled to its target",
            12,
            weight="bold",
        )
    )
    top = y + PANEL_HEAD
    target_x = LABEL_W + PLOT_W * 0.3
    for i, (key, title, target) in enumerate(EXTRAS):
        by = top + i * (BAR_H + GAP + 4)
        out.append(text(LABEL_W - 6, by + BAR_H - 3, title, 11, "end"))
        r = get.get(("errtrace-origin", key))
        if r is not None:
            v = float(r["instructions"])
            met = v <= target
            # Bars past 2.2 x the target are cut there (the number says how far).
            x1 = LABEL_W + min(PLOT_W * 0.3 * max(v, 0) / target, PLOT_W * 0.66)
            out.append(
                f'<rect x="{LABEL_W}" y="{by}" width="{max(x1 - LABEL_W, 1):.1f}" height="{BAR_H}" '
                f'fill="{"#3a9a4a" if met else "#c8423b"}"/>'
            )
            out.append(
                text(
                    max(x1, target_x) + 6,
                    by + BAR_H - 3,
                    f"{fmt(v)} (target {target}: {'met' if met else 'missed'})",
                    10,
                )
            )
        out.append(
            f'<line x1="{target_x:.1f}" y1="{by - 2}" x2="{target_x:.1f}" y2="{by + BAR_H + 2}" '
            f'stroke="#222" stroke-width="2"/>'
        )
    y = top + len(EXTRAS) * (BAR_H + GAP + 4) + 10
    out.append(
        text(
            LABEL_W,
            y + 10,
            "blue: errtrace; grey: bare errnos; orange: peers. Black tick: the target.",
            10,
            color="#555",
        )
    )
    height = y + 22
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif">\n'
        f'<rect width="100%" height="100%" fill="white"/>\n'
    )
    return head + "\n".join(out) + "\n</svg>\n"


def main(argv):
    src = argv[1] if len(argv) > 1 else os.path.join(HERE, "results.json")
    dst = argv[2] if len(argv) > 2 else os.path.join(HERE, "instructions.svg")
    with open(src, encoding="utf-8") as f:
        rows = json.load(f)
    svg = render(rows)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(svg)
    print(f"wrote {dst}")
    page = os.path.join(HERE, "..", "src", "performance.md")
    if len(argv) <= 2 and os.path.exists(page):
        embed(page, svg)
    return 0


def embed(page, svg):
    """Replaces what is between the plot markers of `page` with `svg` (one HTML block)."""
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    try:
        begin = next(i for i, l in enumerate(lines) if l.startswith("<!-- plot:begin"))
        end = next(i for i, l in enumerate(lines) if l.startswith("<!-- plot:end"))
    except StopIteration:
        return
    # An HTML block ends at a blank line: the SVG must have none.
    body = [l for l in svg.strip().split("\n") if l.strip()]
    lines[begin + 1 : end] = body
    with open(page, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print(f"embedded the plot in {os.path.normpath(page)}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
