#!/usr/bin/env python3
"""figures.py [--self-test]: every figure quoted in the cover letter
(series/cover.txt), the changelogs (series/0*.patch, up to the '---') and
docs/ has a generated source.

A figure is a measured-looking number: a decimal (1.06, 0.24x), a
percentage (17.7%), or a count of milliwatts or instructions (478 mW,
1461 instructions).  Each must appear, as written (a trailing x dropped),
in a generated file (GENERATED): docs/results.md, which make bench
writes, or docs/cost-load.md, which make bench-cost-load writes.  Whole
numbers with other units (a 133 us exit latency, a 2 ms period) are
parameters, not measurements, and are not figures, unless they span a
range or a change ("170-270 us", "100 -> 14 us"): then each end is.  Prints each figure
without a source as FILE:LINE: FIGURE and exits 1 when there is one.

--self-test runs the checker on texts with a known answer, the negative
control among them (a sourced text with one figure changed must fail)."""
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATED = ["docs/results.md", "docs/cost-load.md"]
NUM = r"\d+(?:\.\d+)?"
FIGURE = re.compile(
    r"(?<![\w./+])(?:\d+\.\d+x?|\d+(?:\.\d+)?%|\d+ (?:mW|instructions)\b)(?![\w])")
# a span of measurements, whatever its unit: "170-270 us", "100 -> 14 us",
# "from 87 to 64 us"; each end is a figure
SPAN = re.compile(r"(?<![\w./+])(%s)\s*(?:-|->|to)\s*(%s)\s*(?:us|ms|mW|%%|x|instructions)\b"
                  % (NUM, NUM))


def figures(text):
    """(line, figure) of every figure in text."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        found = {(m.start(), m.group(0)) for m in FIGURE.finditer(line)}
        for m in SPAN.finditer(line):
            found |= {(m.start(1), m.group(1)), (m.start(2), m.group(2))}
        # a span's end that is also a figure of its own is counted once
        starts = {}
        for pos, fig in sorted(found):
            if pos not in starts or len(fig) > len(starts[pos]):
                starts[pos] = fig
        out += [(n, starts[pos]) for pos in sorted(starts)]
    return out


def key(fig):
    """The form searched for in the generated sources: a ratio's x is a
    table's column heading there, not part of the number."""
    return fig[:-1] if fig.endswith("x") else fig


def unsourced(text, sources):
    """The figures of text that no generated source contains."""
    found = re.compile(r"(?<![\w.])%s(?![\d])")
    return [(n, f) for n, f in figures(text)
            if not any(re.search(found.pattern % re.escape(key(f)), s) for s in sources)]


def quoted_texts():
    """(path, text) of every file whose figures must have a source."""
    out = [("series/cover.txt", open(os.path.join(TOP, "series/cover.txt")).read())]
    for p in sorted(glob.glob(os.path.join(TOP, "series", "0*.patch"))):
        if p.endswith("0000-cover-letter.patch"):
            continue  # cover.txt plus the generated headline
        text = open(p).read()
        out.append((os.path.relpath(p, TOP), text.split("\n---\n", 1)[0]))
    for p in sorted(glob.glob(os.path.join(TOP, "docs", "**", "*.md"), recursive=True)):
        rel = os.path.relpath(p, TOP)
        if rel not in GENERATED:
            out.append((rel, open(p).read()))
    return out


def self_test():
    src = ["| dev2 | 0.07* ok | 0.91* ok |\nmean 1478 instructions, 17.7% too deep, 484 mW"]
    cases = [
        ("sourced", "misprediction 0.07x, power 0.91x; 1478 instructions; 17.7%; 484 mW", 0),
        ("control: one figure changed", "misprediction 0.08x and 0.91x", 1),
        ("control: a count not in the source", "1461 instructions per entry", 1),
        ("parameters are not figures", "C6 exits in 133 us, a 2 ms period, patch 14", 0),
        ("a longer number is not the shorter one", "1.071 of the oracle", 1),
        ("control: both ends of a range", "from 1478-1500 us and 2-12%", 2),
        ("control: a change in us", "latency 1478 -> 65 us", 1),
    ]
    bad = 0
    for name, text, want in cases:
        got = len(unsourced(text, src))
        ok = got == want
        bad += not ok
        print("%s figures self-test: %s (%d unsourced, want %d)" % ("PASS" if ok else "FAIL", name, got, want))
    return bad


def main():
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(1 if self_test() else 0)
    sources = [open(os.path.join(TOP, g)).read() for g in GENERATED]
    n = missing = 0
    for path, text in quoted_texts():
        for line, fig in unsourced(text, sources):
            print("%s:%d: %s has no generated source" % (path, line, fig))
            missing += 1
        n += len(figures(text))
    print("figures: %d quoted, %d without a generated source (%s)" % (n, missing, ", ".join(GENERATED)))
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
