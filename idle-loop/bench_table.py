#!/usr/bin/env python3
"""The replay's variant table over a bench's recorded traces.

For every cell of the given bench directories (CONFIG-NcPU-icount-rK,
default configuration "sched"; --config sched,teo takes the cells of each),
every workload's trace.txt is replayed open loop with --rules, and per
workload, vCPU count and configuration whose traces were replayed, the mean
over the repeats of too deep %, too shallow % and modelled energy / oracle
is printed for each rule, with the number of traces and their spread
(min-max of the misprediction); with several configurations, a row "mean"
averages the rule's energy over them.

Open loop favours the configuration that recorded the trace: its own
choices shaped the idle periods (a tick it kept split them, a state it
entered set the exit latency), so rank rules on the traces of both
(docs/design.md section 11).  The open-loop replay reads neither the traced answers
(irq_predict_next) nor the kernel's rule numbers, so those lines are left
out: traces of an older kernel replay too.

    idle-loop/bench_table.py [--replay BIN] [--rules adaptive,menu,teo]
        [--config sched[,teo]] [--workloads dev2,devmix] BENCH_DIR...
"""
import argparse
import csv
import io
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict


def replay_csv(binary, rules, trace):
    """{rule: (deep %, shallow %, energy ratio)} of one trace, or None."""
    with open(trace) as f, tempfile.NamedTemporaryFile("w", suffix=".txt") as t:
        for ln in f:
            if "irq_predict_next:" not in ln:
                t.write(ln)
        t.flush()
        p = subprocess.run([binary, "--csv", "--rules", rules, t.name],
                           capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write("bench_table: %s: %s\n" % (trace, p.stderr.strip().splitlines()[-1:]))
        return None
    rows = csv.DictReader(io.StringIO(p.stdout))
    return {r["rule"]: (float(r["too_deep_pct"]), float(r["too_shallow_pct"]),
                        float(r["energy_ratio"])) for r in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--replay", default=os.path.join(here, "..", "build", "idle-loop", "replay"))
    ap.add_argument("--rules", default="adaptive,menu,teo")
    ap.add_argument("--config", default="sched")
    ap.add_argument("--workloads", default="")
    ap.add_argument("bench", nargs="+")
    a = ap.parse_args()
    want = set(filter(None, a.workloads.split(",")))
    configs = a.config.split(",")
    cell_re = re.compile(r"^(%s)-(\d+)cpu-icount-r\d+$" % "|".join(map(re.escape, configs)))
    res = defaultdict(lambda: defaultdict(list))
    for bench in a.bench:
        cells = os.path.join(bench, "cells")
        if not os.path.isdir(cells):
            sys.exit("bench_table: %s: no cells/ directory" % bench)
        for cell in sorted(os.listdir(cells)):
            m = cell_re.match(cell)
            if not m:
                continue
            rdir = os.path.join(cells, cell, "results")
            for wl in sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []:
                trace = os.path.join(rdir, wl, "trace.txt")
                if (want and wl not in want) or not os.path.isfile(trace):
                    continue
                r = replay_csv(a.replay, a.rules, trace)
                if r:
                    for rule, v in r.items():
                        res[(wl, int(m.group(2)), m.group(1))][rule].append(v)
    if not res:
        sys.exit("bench_table: no {%s}-*cpu-icount-r* traces found" % a.config)
    print("%-12s %5s %-10s %-9s %6s %8s %9s %11s %8s" % (
        "workload", "vCPUs", "traces_of", "rule", "traces", "deep_%", "shallow_%",
        "miss_range", "E/oracle"))
    groups = sorted({(wl, n) for wl, n, _ in res})
    for wl, n in groups:
        mean = defaultdict(list)
        for cfg in configs:
            by_rule = res.get((wl, n, cfg), {})
            for rule in a.rules.split(","):
                v = by_rule.get(rule)
                if not v:
                    continue
                k = len(v)
                miss = [d + s for d, s, _ in v]
                e = sum(x[2] for x in v) / k
                mean[rule].append(e)
                print("%-12s %5d %-10s %-9s %6d %8.2f %9.2f %5.1f-%-5.1f %8.3f" % (
                    wl, n, cfg, rule, k, sum(x[0] for x in v) / k,
                    sum(x[1] for x in v) / k, min(miss), max(miss), e))
        if len(configs) > 1:
            for rule in a.rules.split(","):
                if len(mean[rule]) == len(configs):
                    print("%-12s %5d %-10s %-9s %6s %8s %9s %11s %8.3f" % (
                        wl, n, "mean", rule, "", "", "", "",
                        sum(mean[rule]) / len(configs)))


if __name__ == "__main__":
    main()
