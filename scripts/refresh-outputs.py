#!/usr/bin/env python3
"""Brings the kernel timestamps of the guide's output blocks up to date with their captures.

`tests/guide_outputs.rs` checks that every ```text block marked `<!-- output: file PATH -->`
appears in PATH, with any kernel timestamp (`[    1.234567]`) matching any other; so a block
keeps the timestamps of the run it was first copied from, which then disagree with each other and
with the capture. This script finds each such block in its file (the same rule: consecutive lines,
each the end of its source line, `…` lines for any number of lines) and writes the capture's
timestamps into it. Nothing else of a block changes; a block not found is reported and left.

    python3 scripts/refresh-outputs.py            # rewrites README.md and docs/src/*.md in place
    python3 scripts/refresh-outputs.py --check    # only says which blocks would change (exit 1)
    python3 scripts/refresh-outputs.py --numbers  # also every number (line:column after a code
                                                  # change): a block matched with any numbers
                                                  # takes its capture's; review the diff
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAMP = re.compile(r"\[ *[0-9]+\.[0-9]+\]")
MARKER = re.compile(r"<!-- output: file (\S+) -->")


NUMBER = re.compile(r"[0-9]+")
NUMBERS = False


def normalize(line):
    line = STAMP.sub("[T]", line.rstrip(), count=1)
    return NUMBER.sub("#", line) if NUMBERS else line


def is_gap(line):
    t = line.strip()
    return t in ("…", "...") or (t.startswith("…") and t.endswith("…"))


def match(block, src):
    """The source index of each block line (None for gaps), or None if the block is not there."""
    norm = [normalize(s) for s in src]

    def ends(i, b):
        return norm[i].endswith(normalize(b))

    def from_(bi, si):
        if bi == len(block):
            return []
        if is_gap(block[bi]):
            for k in range(si, len(src) + 1):
                rest = from_(bi + 1, k)
                if rest is not None:
                    return [None] + rest
            return None
        if si < len(src) and ends(si, block[bi]):
            rest = from_(bi + 1, si + 1)
            if rest is not None:
                return [si] + rest
        return None

    for start in range(len(src)):
        found = from_(0, start)
        if found is not None:
            return found
    return None


def refresh(doc, check):
    text = doc.read_text()
    lines = text.split("\n")
    changed = 0
    i = 0
    while i < len(lines):
        m = MARKER.search(lines[i])
        if not m or i + 1 >= len(lines) or not lines[i + 1].lstrip().startswith("```text"):
            i += 1
            continue
        indent = lines[i + 1][: len(lines[i + 1]) - len(lines[i + 1].lstrip())]
        start = i + 2
        end = start
        while end < len(lines) and not lines[end].lstrip().startswith("```"):
            end += 1
        block = [l[len(indent):] if l.startswith(indent) else l for l in lines[start:end]]
        block_nonempty = [(k, l) for k, l in enumerate(block) if l.strip()]
        source = ROOT / m.group(1)
        if not source.exists():
            i = end + 1
            continue
        src = [l for l in source.read_text().split("\n") if l.strip()]
        where = match([l for _, l in block_nonempty], src)
        if where is None:
            print(f"{doc.relative_to(ROOT)}:{i + 1}: block not found in {m.group(1)}")
            i = end + 1
            continue
        for (k, line), si in zip(block_nonempty, where):
            if si is None:
                continue
            if NUMBERS:
                # The block line is the end of its source line: its numbers are the source's last.
                mine = list(NUMBER.finditer(line))
                theirs = NUMBER.findall(src[si])[len(NUMBER.findall(src[si])) - len(mine):]
                new = line
                for m, t in reversed(list(zip(mine, theirs))):
                    new = new[: m.start()] + t + new[m.end():]
            else:
                ours, theirs = STAMP.search(line), STAMP.search(src[si])
                new = line
                if ours and theirs:
                    new = line[: ours.start()] + theirs.group(0) + line[ours.end():]
            if new != line:
                lines[start + k] = indent + new
                changed += 1
        i = end + 1
    if changed:
        what = "lines" if NUMBERS else "timestamps"
        print(f"{doc.relative_to(ROOT)}: {changed} {what} {'out of date' if check else 'refreshed'}")
        if not check:
            doc.write_text("\n".join(lines))
    return changed


def main():
    global NUMBERS
    check = "--check" in sys.argv[1:]
    NUMBERS = "--numbers" in sys.argv[1:]
    docs = [ROOT / "README.md"] + sorted((ROOT / "docs" / "src").glob("*.md"))
    total = sum(refresh(d, check) for d in docs)
    sys.exit(1 if check and total else 0)


if __name__ == "__main__":
    main()
