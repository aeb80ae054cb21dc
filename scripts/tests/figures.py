#!/usr/bin/env python3
"""figures.py [--self-test | --control KIND]: every figure quoted in the
cover letter (series/cover.txt and the cover-letter patch), the changelogs
(series/0*.patch, and series-*/ of other trees, up to the '---'), docs/ and every README is found in a
generated file, in its context.

A figure is a number with a unit: x, %, mW, ns, us, ms, s, instructions
("0.17x", "17.7%", "478 mW", "1074 vs 993 ns", "+50 instructions").  A
measured one must be found in GENERATED (docs/results.md, which make
bench writes, docs/results-7.3.md, which make bench LINUX=7.3 writes,
docs/results-recordings.md and -7.3.md, which make bench-recordings writes,
docs/cost-load.md and -7.3.md, which make bench-cost-load writes,
docs/recordings.md, which make recordings-table writes): the
same number (a ratio's x dropped, a sign kept), in a compatible unit (ns
and instructions are one unit under -icount shift=0; a ratio reads bare
in the tables), in a row or sentence whose context agrees with the
quote's: each workload and each metric the quote names (its clause, else
its sentence, else its paragraph) is among those of the generated
figure's table row, column and section, or of its sentence, and so is a
vCPU count.  A quote that names neither a workload nor a metric has no
context and fails.  A quoted table is read as the generated ones are:
its row label and column heading are its cells' context.

Measured are: ns, mW and instructions always; x, %, us, ms and s when
the number has a decimal point or a sign, is one end of a span or a
comparison ("170-270 us", "100 -> 14 us", "from 87 to 64 us", "943 vs
1001 ns") or is hedged ("about 200 us", "~70 ms").  A whole number
otherwise is a parameter of the design or the bench (a 133 us exit
latency, a 2 ms period, a 5% goal) and is counted, not sourced; so are
the rows of a table of settings (a heading "exit latency" or "target
residency": an idle-state model).  A range of settings names each end's
unit ("50 us to 750 us"); one unit after both ends reads as measured.  Figures
in code (`...`, indented or fenced blocks) are not quotes.

Prints each figure without a source as FILE:LINE: FIGURE (why) and exits
1 when there is one.

--self-test runs the checker on texts with a known answer, wrong figures
of each kind among them ("943 vs 1001 ns", "+57 instructions" where the
table has +50, "stamp costs 99 ns", another workload's misprediction):
each must fail.  --control KIND (x, %, mW, ns, workload, metric) runs
the whole check with one sentence added to the quoted texts, built from
a real cell of the generated tables: its figure changed to one that no
generated table holds (KIND the unit), or the figure put on another
workload, or under another metric; it must fail (test.sh's controls).
The same sentence with the true figure must pass first, or the control
says so and exits 0, and so fails as a control.
"""
import functools
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATED = ["docs/results.md", "docs/results-7.3.md", "docs/results-recordings.md", "docs/results-recordings-7.3.md", "docs/cost-load.md", "docs/cost-load-7.3.md",
             "docs/recordings.md"]
UNITS = ("x", "%", "mW", "ns", "us", "ms", "s", "instructions")
ALWAYS_MEASURED = ("mW", "ns", "instructions")
NUM = r"[+\-−]?\d[\d,]*(?:\.\d+)?"
UNIT = r"(?:x|%|mW|ns|us|µs|ms|s|instructions)"
# the unit glued (x, %) or after one space; no word or path goes on
ONE = re.compile(r"(?<![\w./+\-−@#=:^])(%s)(?:(x|%%)|\s(mW|ns|us|µs|ms|s|instructions))(?![\w/])" % NUM)
# a span or comparison: each end is a figure in the unit after the second
SPAN = re.compile(r"(?<![\w./+\-−@#=:^])(?:from\s)?(%s)\s*(?:-|–|->|→|to|vs\.?|against)\s*(%s)(?:(x|%%)|\s(mW|ns|us|µs|ms|s|instructions))(?![\w/])"
                  % (NUM, NUM))
HEDGE = re.compile(r"(?:about|around|nearly|roughly|~|≈)\s*$")

METRICS = {
    "misprediction": r"mispredict\w*|too deep|too shallow",
    "power": r"power|energy|\bmW\b",
    "oracle": r"oracle",
    "cyclictest": r"cyclictest",
    "perf sched": r"perf sched|perf's|wakeup latency",
    "lateness": r"lateness|late\b",
    "cost": r"selection cost|cost per|per (?:idle )?entry|select\b|selection|reflect",
    "stamp": r"stamp|per interrupt|per irq|added per",
    "idle entries": r"idle entries|idle periods",
    "tick": r"tick stops|tick restarts|stops/s|restarts/s",
    "run time": r"\btook\b|run time|wall",
    "spread": r"\bcv\b|spread|counting floor",
    "interrupts": r"interrupts/s|interrupts during",
    "window": r"\bwindows?\b|measured \d",
}
METRIC_RE = {k: re.compile(v, re.I) for k, v in METRICS.items()}
# workload names that are also words count only where they name a workload
WORDY = {"idle", "timer", "mixed", "block", "net", "rtc"}
VCPU = re.compile(r"(\d+) vCPUs?\b")


def workload_names():
    """The bench's workload names: the tables of perf-scripts/workloads.toml."""
    text = open(os.path.join(TOP, "perf-scripts", "workloads.toml")).read()
    return sorted(set(re.findall(r"^\[([\w@.-]+)\]", text, re.M)), key=len, reverse=True)


@functools.lru_cache(maxsize=None)
def workload_re(w):
    if w in WORDY:
        # `idle`, idle workload, idle, 2 vCPU, idle 1074, a cell "idle"
        return re.compile(r"`%s`|(?<![\w-])%s(?= workload|, \d vCPU| \d|\s*$)|(?<=^)%s(?![\w-])"
                          % ((re.escape(w),) * 3))
    return re.compile(r"(?<![\w@-])%s(?![\w@-])" % re.escape(w))


def workloads_in(text, names):
    """The workloads text names."""
    return {w for w in names if w in text and workload_re(w).search(text)}


def metrics_in(text):
    return {k for k, r in METRIC_RE.items() if r.search(text)}


def vcpus_in(text):
    return set(VCPU.findall(text))


def unit_of(m_unit):
    return "us" if m_unit == "µs" else m_unit


def blank_code(line):
    """line with its code spans blanked (same length)."""
    return re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def line_figures(text):
    """(start, number, unit, measured) of every figure in one line of prose."""
    found = {}
    for m in SPAN.finditer(text):
        u = unit_of(m.group(3) or m.group(4))
        for g in (1, 2):
            found[m.start(g)] = (m.group(g), u, True)
    for m in ONE.finditer(text):
        if m.start(1) in found:
            continue
        num, u = m.group(1), unit_of(m.group(2) or m.group(3))
        measured = (u in ALWAYS_MEASURED or "." in num or num[0] in "+-−"
                    or bool(HEDGE.search(text[:m.start(1)])))
        found[m.start(1)] = (num, u, measured)
    return [(pos,) + found[pos] for pos in sorted(found)]


def norm(num):
    return num.replace(",", "").replace("−", "-")


def split_row(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def blocks(text):
    """The text's paragraphs and table rows: (kind, first line number,
    lines, header cells or None); code is left out."""
    out, para, start, header, fenced = [], [], 0, None, False
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or re.match(r"(?: {4}|\t)", line) and not para:
            continue
        if line.lstrip().startswith("|"):
            if para:
                out.append(("para", start, para, None))
                para = []
            cells = split_row(line)
            if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                continue
            nxt = lines[n] if n < len(lines) else ""
            if re.match(r"\s*\|[\s:|-]+\|?\s*$", nxt):
                header = cells
                out.append(("header", n, [line], cells))
            else:
                out.append(("row", n, [line], header))
            continue
        header = None
        new_item = re.match(r"\s*(?:[-*] |\d+\. |#)", line)
        if not line.strip() or new_item:
            if para:
                out.append(("para", start, para, None))
            para = []
            if not line.strip():
                continue
        if not para:
            start = n
        para.append(line)
    if para:
        out.append(("para", start, para, None))
    return out


class Figure:
    """One figure and its context: workloads, metrics, vCPU counts named by
    its clause, its sentence, its block and its section."""

    def __init__(self, path, line, num, unit, measured, levels):
        self.path, self.line, self.num, self.unit = path, line, norm(num), unit
        self.shown, self.measured, self.levels = num, measured, levels

    def named(self, what):
        """What the nearest level that names any of kind what names."""
        for level in self.levels:
            if level[what]:
                return level[what]
        return set()

    def all_named(self, what):
        out = set()
        for level in self.levels:
            out |= level[what]
        return out


@functools.lru_cache(maxsize=None)
def _context(text, names):
    return {"w": workloads_in(text, names), "m": metrics_in(text), "v": vcpus_in(text)}


def context(text, names):
    """The workloads ("w"), metrics ("m") and vCPU counts ("v") text names."""
    c = _context(text, tuple(names))
    return {k: set(v) for k, v in c.items()}


def figures(path, text, names):
    """Every Figure of text, with its context."""
    out, heading = [], ""
    for kind, start, lines, header in blocks(text):
        if kind == "para" and lines[0].startswith("#"):
            heading = lines[0].lstrip("#").strip()
        section = context(heading, names)
        if kind == "para":
            joined, where = "", []
            for i, line in enumerate(lines):
                where.append((len(joined), start + i))
                joined += blank_code(line.strip()) + " "
            full = " ".join(line.strip() for line in lines)
            for pos, num, unit, measured in line_figures(joined):
                line = [n for off, n in where if off <= pos][-1]
                sent = sentence_at(full, pos)
                clause = clause_at(sent[0], pos - sent[1])
                levels = [context(clause, names), context(sent[0], names),
                          context(full, names), section]
                out.append(Figure(path, line, num, unit, measured, levels))
        elif kind == "row":
            if header and any(re.search(r"exit latency|target residency", h) for h in header):
                # a table of settings (an idle-state model): parameters
                for cell in split_row(lines[0]):
                    for pos, num, unit, measured in line_figures(blank_code(cell)):
                        out.append(Figure(path, start, num, unit, False, []))
                continue
            cells = split_row(lines[0])
            label = " | ".join(c for c in cells if not re.match(r"\s*[+\-−]?\d", c))
            for i, cell in enumerate(cells):
                head = header[i] if header and i < len(header) else ""
                cell = blank_code(cell)
                for pos, num, unit, measured in cell_figures(cell, head, label, heading):
                    levels = [context(label + " " + head, names), context(heading, names)]
                    levels[0]["m"] |= metrics_in(head) or metrics_in(label)
                    if re.search(r"(?:cv |±)$", cell[:pos]):
                        # a spread beside the mean: a figure of the spread
                        levels[0]["m"], levels[1]["m"] = {"spread"}, set()
                    out.append(Figure(path, start, num, unit, measured, levels))
    return out


def cell_figures(cell, head, label, heading):
    """Figures of a table cell: its own units, else its column's or its
    section's; a bare number of a ratio column is a ratio."""
    own = line_figures(cell)
    m = re.match(r"\s*(%s)(\*|†)*" % NUM, cell)
    # a number cell: words only of the marks the report puts beside it
    if not m or re.search(r"[A-Za-z]{2,}", re.sub(r"\b(?:ok|MISS|cv|min|max|n/a)\b", "", cell)) \
            or any(pos == m.start(1) for pos, *_ in own):
        return own
    if re.search(r"/|\bvs\b", head):
        return own + [(m.start(1), m.group(1), "x", True)]  # a ratio column
    u = None
    for src in (head, label, heading):
        um = re.search(r"\((mW|us|ms|ns|s)\b|\b(instructions|ns)\b", src, re.I)
        if um:
            u = (um.group(1) or um.group(2)).lower().replace("mw", "mW")
            break
    if u is None and re.search(r"per (?:idle )?entry|per irq|per interrupt|select|reflect|stamp|bracket", head, re.I):
        u = "ns"  # the cost tables' columns: instructions, ns under -icount
    if u is None:
        u = "x"  # a ratio, or a count read as one
    return own + [(m.start(1), m.group(1), u, True)]


def sentence_at(text, pos):
    """(sentence, its offset) around pos."""
    starts = [0] + [m.end() for m in re.finditer(r"[.:!?]\s+(?=[A-Z(`*\"])", text)]
    s = max(x for x in starts if x <= pos)
    ends = [m.start() + 1 for m in re.finditer(r"[.!?]\s+(?=[A-Z(`*\"])", text) if m.start() >= pos]
    e = min(ends) if ends else len(text)
    return text[s:e], s


def clause_at(text, pos):
    s = text.rfind(";", 0, pos) + 1
    e = text.find(";", pos)
    return text[s:e if e >= 0 else len(text)]


def compatible(u_quote, u_gen):
    if u_quote == u_gen:
        return True
    if {u_quote, u_gen} <= {"ns", "instructions"}:
        return True
    return False


def agrees(q, g):
    """g's context holds every workload, metric and vCPU count q names."""
    for what in ("w", "m", "v"):
        named = q.named(what)
        if named and not named & g.all_named(what):
            return False
    return True


def why_unsourced(q, gens):
    """None when q has a source in gens, else why not."""
    if not (q.named("w") or q.named("m")):
        return "names no workload or metric"
    same = [g for g in gens if g.num == q.num and compatible(q.unit, g.unit)]
    if not same:
        return "in no generated table"
    if not any(agrees(q, g) for g in same):
        where = sorted({"%s:%d" % (g.path, g.line) for g in same})[:3]
        return "in no generated table in its context (%s, %s; the number stands at %s)" % (
            ", ".join(sorted(q.named("w"))) or "any workload",
            ", ".join(sorted(q.named("m"))) or "any metric", ", ".join(where))
    return None


def quoted_texts():
    """(path, text) of every file whose figures must have a source."""
    out = [("series/cover.txt", open(os.path.join(TOP, "series/cover.txt")).read())]
    # series/ and the other trees' series (series-7.3/): changelogs and cover letters
    for p in sorted(glob.glob(os.path.join(TOP, "series*", "0*.patch"))):
        text = open(p).read()
        out.append((os.path.relpath(p, TOP), text.split("\n---\n", 1)[0]))
    for p in sorted(glob.glob(os.path.join(TOP, "docs", "**", "*.md"), recursive=True)):
        rel = os.path.relpath(p, TOP)
        if rel not in GENERATED:
            out.append((rel, open(p).read()))
    for d, dirs, files in os.walk(TOP):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and
                         os.path.relpath(os.path.join(d, x), TOP) not in ("build", "seeds", "docs"))
        if "README.md" in files:
            p = os.path.join(d, "README.md")
            out.append((os.path.relpath(p, TOP), open(p).read()))
    return out


def check(texts, sources, names, out=print):
    """Count the figures of texts; print and count those without a source."""
    gens = [f for path, text in sources for f in figures(path, text, names)]
    counts = {"measured": 0, "parameters": 0, "missing": 0}
    for path, text in texts:
        for q in figures(path, text, names):
            if not q.measured:
                counts["parameters"] += 1
            else:
                counts["measured"] += 1
                why = why_unsourced(q, gens)
                if why:
                    out("%s:%d: %s %s has no generated source: %s" % (q.path, q.line, q.shown, q.unit, why))
                    counts["missing"] += 1
    return counts


SELF_SOURCE = """## Headline (2 vCPUs)

| workload | misprediction | power |
|---|---|---|
| dev2 | 0.06* ok | 0.91* ok |
| devonoff | 0.10* ok | 0.99 ok |

- selection cost per idle entry, sched vs teo: block 1074 vs 993 ns (1.08x); dev2 1179 vs 1033 ns (1.14x).

Added per interrupt (sched's stamp minus the stock kernel's empty span): block +57, dev2 +57 instructions.

## dev, 1 vCPU

| metric | menu | teo | sched |
|---|---|---|---|
| modelled power (mW, all CPUs) | 478 ±2 n=5 | 484 ±3 n=5 | 470 ±2 n=5 |
| mispredicted (above+below)/usage | 17.7% ±1% n=5 | 9.1% ±1% n=5 | 2.0% ±1% n=5 |
"""
SELF_COSTLOAD = """## Selection cost versus load

- sources sweep (load_s1, load_s5): sched per idle entry 855 (load_s1) to 1054 (load_s5) instructions; +50 instructions per idle entry per added source from load_s1 to load_s5.
"""


def self_test():
    names = ["devonoff", "devburst", "dev2", "dev", "block", "load_s1", "load_s5"]
    src = [("docs/results.md", SELF_SOURCE), ("docs/cost-load.md", SELF_COSTLOAD)]
    cases = [
        ("sourced: headline ratios", "Misprediction 0.06x the better governor on dev2, power 0.91x.", 0),
        ("sourced: the headline quoted as a table",
         "| workload | misprediction | power |\n|---|---|---|\n| dev2 | 0.06* ok | 0.91* ok |", 0),
        ("sourced: a cost comparison", "On block sched's selection cost is 1074 vs 993 ns, 1.08x teo's.", 0),
        ("sourced: a stamp", "The stamp adds +57 instructions per interrupt.", 0),
        ("sourced: a sweep", "The selection cost per idle entry grows by +50 instructions per added source.", 0),
        ("sourced: power on dev, 1 vCPU", "On dev (1 vCPU) teo's power is 484 mW, menu's 478 mW.", 0),
        ("parameters are not figures", "C6 exits in 133 us, a 2 ms period, a 5% goal, patch 14.", 0),
        ("control: 943 vs 1001 ns", "On block the selection cost is 943 vs 1001 ns.", 2),
        ("control: +57 instructions per added source",
         "The selection cost per idle entry grows by +57 instructions per added source.", 1),
        ("control: +57 instructions, no context", "+57 instructions.", 1),
        ("control: stamp costs 99 ns", "The stamp costs 99 ns per interrupt.", 1),
        ("control: the stamp's figure as the selection cost", "On dev2 sched's selection cost per idle entry is 57 ns.", 1),
        ("control: misprediction 0.10x on dev2 (devonoff's)", "Misprediction 0.10x on dev2.", 1),
        ("control: a power figure of another vCPU count", "On dev, 2 vCPUs, teo's power is 484 mW.", 1),
        ("control: a percentage changed", "menu mispredicts 17.6% of its idle periods on dev.", 1),
        ("control: a percentage of another metric", "On dev menu's power is 17.7% above sched's.", 1),
        ("control: a hedged run time", "A cell takes about 90 s.", 1),
        ("control: a quoted table row changed",
         "| workload | misprediction | power |\n|---|---|---|\n| dev2 | 0.07* ok | 0.91* ok |", 1),
        ("control: a quoted row's figure under another workload",
         "| workload | misprediction | power |\n|---|---|---|\n| dev2 | 0.10* ok | 0.91* ok |", 1),
    ]
    bad = 0
    for name, text, want in cases:
        lines = []
        got = check([("case", text)], src, names, out=lines.append)["missing"]
        ok = got == want
        bad += not ok
        print("%s figures self-test: %s (%d unsourced, want %d)%s" % (
            "PASS" if ok else "FAIL", name, got, want, "".join("\n    " + x for x in lines)))
    return bad


def load_sources():
    return [(g, open(os.path.join(TOP, g)).read()) for g in GENERATED if os.path.exists(os.path.join(TOP, g))]


# how a control sentence names each metric (metrics_in() reads it back)
PHRASES = {"cost": "selection cost per idle entry", "stamp": "stamp per interrupt",
           "idle entries": "count of idle entries", "tick": "tick stops/s",
           "run time": "run time", "spread": "cv", "interrupts": "interrupts/s"}
CONTROLS = ("x", "%", "mW", "ns", "workload", "metric")


def control_sentence(kind, sources, names):
    """(true sentence, wrong sentence) for control KIND, from a generated
    table cell that names one workload and one metric: the figure changed
    to one no generated table holds (KIND a unit: x, %, mW, ns), the figure
    on another workload, or under another metric."""
    gens = [f for path, text in sources for f in figures(path, text, names)]
    held = {g.num for g in gens}
    for g in gens:
        w, m = g.named("w"), g.named("m")
        if len(w) != 1 or len(m) != 1 or g.unit not in ("x", "%", "mW", "ns"):
            continue
        if kind in ("x", "%", "mW", "ns") and g.unit != kind:
            continue
        if g.unit in ("x", "%") and "." not in g.num:
            continue  # a whole ratio or percentage reads as a parameter
        (w,), (m,), v = w, m, g.all_named("v")
        vc = ", %s vCPU" % sorted(v)[0] if len(v) == 1 else ""
        unit = {"x": "x", "%": "%"}.get(g.unit, " " + g.unit)

        def say(num, wl, metric):
            return "On %s%s the %s is %s%s." % (wl, vc, PHRASES.get(metric, metric), num, unit)
        true = say(g.num, w, m)
        if kind in ("x", "%", "mW", "ns"):
            digits = len(g.num.split(".")[1]) if "." in g.num else 0
            new = float(g.num)
            while "%.*f" % (digits, new) in held:
                new += 10 ** -digits
            return true, say("%.*f" % (digits, new), w, m)
        if kind == "workload":
            for other in names:
                if other != w and not any(h.num == g.num and other in h.all_named("w") for h in gens):
                    return true, say(g.num, other, m)
        if kind == "metric":
            for other in sorted(METRICS):
                if metrics_in(PHRASES.get(other, other)) != {other}:
                    continue
                if other != m and not any(h.num == g.num and other in h.all_named("m") for h in gens):
                    return true, say(g.num, w, other)
    return None


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        sys.exit(1 if self_test() else 0)
    names, sources, texts = workload_names(), load_sources(), quoted_texts()
    if len(args) == 2 and args[0] == "--control" and args[1] in CONTROLS:
        pair = control_sentence(args[1], sources, names)
        if pair is None:
            print("control %s: no generated figure to build it from" % args[1])
            sys.exit(0)
        true, wrong = pair
        if check([("docs/design.md", "\n" + true + "\n")], sources, names)["missing"]:
            print("control %s: the true sentence fails too: %s" % (args[1], true))
            sys.exit(0)
        print("control %s: %r passes; added: %r" % (args[1], true, wrong))
        texts = texts + [("docs/design.md (control)", "\n" + wrong + "\n")]
    elif args:
        sys.exit(__doc__)
    c = check(texts, sources, names)
    print("figures: %d measured, %d without a generated source (%s); %d parameters not sourced"
          % (c["measured"], c["missing"], ", ".join(GENERATED), c["parameters"]))
    sys.exit(1 if c["missing"] else 0)


if __name__ == "__main__":
    main()
