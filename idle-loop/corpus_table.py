#!/usr/bin/env python3
"""The corpus of real recordings (perf-scripts/recordings/) replayed open
loop: what was predicted against what came, per recording and per source.

Each recording's trace.txt.xz is replayed by build/idle-loop/replay with
the bench's emulated state table (--table, default skx: the recorded
machine's own states are too few to choose among), once for the rows'
summary (--csv) and once for the idle periods (--dump).  Each idle period
is credited to the source that ended it: the first device interrupt of
its CPU from its entry to WAKE_SLACK_NS after its exit (idle-loop/timers.c
takes an interrupt so close to the exit as the one that ended it); without
one, to a timer that expired then (hrtimer or timer wheel), else to
nothing traced (an IPI, say: record.sh traces no IPI).  Per source it gives the periods it
ended, their length (median), what the adaptive rule predicted for them
(the earlier of its interrupt prediction and the next timer: median, and
how often the prediction came from an interrupt), and how often it said
later or earlier than what came.

    idle-loop/corpus_table.py [--replay BIN] [--table skx] [--out docs/recordings.md]
        [RECORDING_DIR ...]
"""
import argparse
import csv
import io
import lzma
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
CORPUS = os.path.join(TOP, "perf-scripts", "recordings")
# idle-loop/timers.c WAKE_SLACK_NS: an interrupt this soon after an idle
# exit ended that idle period
WAKE_SLACK_NS = int(re.search(r"#define\s+WAKE_SLACK_NS\s+(\d+)",
                              open(os.path.join(HERE, "timers.c")).read()).group(1))
RULES = "adaptive,menu,teo"
_IRQ = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d{9}):\s+irq:irq_handler_entry:\s+irq=(\d+)\s+name=(\S+)")
_TIMER = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d{9}):\s+timer:(?:hr)?timer_expire_entry:")
TIMER = "a timer"
OTHER = "nothing traced (an IPI, ...)"


def wakers(text):
    """{cpu: [(t_ns, what)]} of a perf script trace, in order: each device
    interrupt ('irq N name') and each timer expiry (TIMER)."""
    out = defaultdict(list)
    for m in _IRQ.finditer(text):
        out[int(m.group(1))].append((int(m.group(2)) * 10**9 + int(m.group(3)),
                                     f"irq {m.group(4)} {m.group(5)}"))
    for m in _TIMER.finditer(text):
        out[int(m.group(1))].append((int(m.group(2)) * 10**9 + int(m.group(3)), TIMER))
    return out


def replay(binary, table, trace, *opts):
    p = subprocess.run([binary, "--table", table, "--rules", RULES, *opts, trace],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"corpus_table: {trace}: {p.stderr.strip().splitlines()[-1:]}")
    return p.stdout


def waker(per_cpu, cpu, start, end):
    """What ended cpu's idle period [start, end]: the first device interrupt
    from start to end + WAKE_SLACK_NS, else a timer that expired then,
    else OTHER."""
    seen = OTHER
    for t, name in per_cpu.get(cpu, ()):
        if t > end + WAKE_SLACK_NS:
            break
        if t >= start and name != TIMER:
            return name
        if t >= start:
            seen = TIMER
    return seen


def one(binary, table, d):
    """(summary rows, per-source rows) of the recording in folder d."""
    with lzma.open(os.path.join(d, "trace.txt.xz"), "rt") as f:
        text = f.read()
    per_cpu = wakers(text)
    for v in per_cpu.values():
        v.sort()
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.txt")
        with open(trace, "w") as f:
            f.write(text)
        summary = list(csv.DictReader(io.StringIO(replay(binary, table, trace, "--csv"))))
        dump = os.path.join(tmp, "dump")
        replay(binary, table, trace, "--dump", dump)
        with open(dump) as f:
            lines = [x.split() for x in f if x.startswith("adaptive ")]
    by = defaultdict(list)
    for _r, cpu, t0, pred, actual, timer, irq_ns, _ch, _fit in lines:
        cpu, t0, actual = int(cpu), int(t0), int(actual)
        src = waker(per_cpu, cpu, t0, t0 + actual)
        by[(src, cpu)].append((int(pred), actual, int(timer), int(irq_ns)))
    rows = []
    for (src, cpu), ps in sorted(by.items(), key=lambda kv: -len(kv[1])):
        known = [(p, a, ti, iq) for p, a, ti, iq in ps if p >= 0]
        later = sum(p > a for p, a, _t, _i in known)
        earlier = sum(p < a for p, a, _t, _i in known)
        from_irq = sum(0 <= iq and (ti < 0 or iq <= ti) for _p, _a, ti, iq in known)
        rows.append({
            "source": f"{src}, CPU {cpu}", "periods": len(ps),
            "actual": statistics.median(a for _p, a, _t, _i in ps) / 1e3,
            "predicted": statistics.median(p for p, _a, _t, _i in known) / 1e3 if known else None,
            "from_irq": 100.0 * from_irq / len(known) if known else None,
            "later": 100.0 * later / len(known) if known else None,
            "earlier": 100.0 * earlier / len(known) if known else None})
    return summary, rows


def num(x, fmt="{:.1f}"):
    return "–" if x is None else fmt.format(x)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--replay", default=os.path.join(TOP, "build", "idle-loop", "replay"))
    ap.add_argument("--table", default="skx")
    ap.add_argument("--out", default=os.path.join(TOP, "docs", "recordings.md"))
    ap.add_argument("dirs", nargs="*")
    a = ap.parse_args(argv)
    dirs = a.dirs or [os.path.join(CORPUS, d) for d in sorted(os.listdir(CORPUS))
                      if os.path.isfile(os.path.join(CORPUS, d, "trace.txt.xz"))]
    if not dirs:
        sys.exit(f"corpus_table: no recording under {CORPUS}")
    L = ["# Real recordings replayed: what was predicted against what came", "",
         "Generated by `idle-loop/corpus_table.py` (do not edit): each recording of "
         "`perf-scripts/recordings/` (its `how` line says how it was made) replayed "
         f"open loop by `build/idle-loop/replay --table {a.table}`, the bench's emulated "
         "states on the recorded idle periods (the recorded machine's own driver, "
         "haltpoll, has one state to choose). Open loop: the periods are those the "
         "recorded machine lived, whatever a rule chose (idle-loop/README.md).", "",
         "## Per recording", "",
         "| recording | row | idle periods | too deep % | too shallow % | energy / oracle |",
         "|---|---|---|---|---|---|"]
    detail = []
    for d in dirs:
        name = os.path.basename(os.path.normpath(d))
        summary, rows = one(a.replay, a.table, d)
        for r in summary:
            L.append(f"| {name} | {r['rule']} | {r['periods']} | "
                     f"{float(r['too_deep_pct']):.1f} | {float(r['too_shallow_pct']):.1f} | "
                     f"{num(float(r['energy_ratio']) if r['energy_ratio'] else None, '{:.2f}')} |")
        with open(os.path.join(d, "how")) as f:
            how = f.read().strip()
        detail += [f"### {name}", "", f"How it was made (`how`): {how}", "",
                   "| source that ended the period | periods | actual p50 (us) | "
                   "predicted p50 (us) | from an interrupt % | said later % | said earlier % |",
                   "|---|---|---|---|---|---|---|"]
        for r in rows:
            detail.append(f"| {r['source']} | {r['periods']} | {r['actual']:.1f} | "
                          f"{num(r['predicted'])} | {num(r['from_irq'])} | "
                          f"{num(r['later'])} | {num(r['earlier'])} |")
        detail.append("")
    L += ["", "## Per source (the adaptive rule)", "",
          "Each idle period goes to the device interrupt that ended it (the first of "
          f"its CPU from its entry to {WAKE_SLACK_NS // 1000} us after its exit); without "
          f"one, to \"{TIMER}\" that expired then, else to \"{OTHER}\" (record.sh "
          "traces no IPI). *Predicted* is the adaptive rule's expected idle "
          "duration (the earlier of its interrupt prediction and the next timer); "
          "*from an interrupt*: how often the interrupt prediction was the earlier; "
          "*said later / earlier*: how often the prediction was longer / shorter "
          "than the period that came.", ""] + detail
    with open(a.out + ".tmp", "w") as f:
        f.write("\n".join(L).rstrip("\n") + "\n")
    os.replace(a.out + ".tmp", a.out)
    print(f"corpus_table: {a.out} ({len(dirs)} recordings)")


if __name__ == "__main__":
    main()
