#!/usr/bin/env python3
"""make -C idle-loop cost: instructions (callgrind Ir, inclusive) per call of
each function of FUNCS (the predictor's record and next, the state choice,
learning's reflect and intercept check), per rule, on fixed synthetic traces
(gen.py's "network", two jittered periodic sources, and "irregular", the same
with the first source irregular).  Written to OUT/cost.txt."""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

FUNCS = ("irq_predict_record", "irq_predict_next", "sched_idle_choose",
         "sched_idle_reflect", "sched_idle_intercepted")
RULES = ("timer", "last", "rfc", "adaptive")
SCENARIOS = ("network", "irregular")


def annotate(cg):
    """{function: (inclusive Ir, calls)} from callgrind_annotate's caller tree."""
    txt = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                          "--tree=caller", cg], capture_output=True, text=True,
                         check=True).stdout
    res = {}
    calls = 0
    for ln in txt.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+<.*\(([\d,]+)x\)", ln)
        if m:
            calls += int(m.group(2).replace(",", ""))
            continue
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\*\s+\S*:(\w+)(\s|$)", ln)
        if m:
            if m.group(2) in FUNCS and calls:
                res[m.group(2)] = (int(m.group(1).replace(",", "")), calls)
            calls = 0
            continue
        if not ln.strip():
            calls = 0
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replay", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    lines = ["# callgrind (valgrind --tool=callgrind), inclusive instructions per call,",
             "# replay built -O2 from the tree's kernel/irq/predict.c and",
             "# kernel/sched/idle_select.c; 4 ms tick, 2 s, 1 CPU, traces of gen.py:",
             "# network: irq 40 every 1000 us and irq 41 every 1500 us, +-5 % jitter;",
             "# irregular: the same with irq 40 +-90 % (irq_predict_upper() runs)",
             "# (choose: the whole choice, state and tick; reflect and intercepted:",
             "# the learning, after each period and inside a choice when early",
             "# periods are the majority; irq_predict_upper() is inlined into next)"]
    for scen in SCENARIOS:
        trace = os.path.join(a.out, "cost-trace-%s.txt" % scen)
        with open(trace, "w") as f:
            f.write("\n".join(gen.SCENARIOS[scen]()) + "\n")
        lines.append(" ".join(["%-19s" % "trace, rule"] +
                              ["%10s %12s" % (fn.split("_")[-1] + "s", "Ir/call")
                               for fn in FUNCS]))
        for r in RULES:
            cg = os.path.join(a.out, "callgrind.%s.%s.out" % (scen, r))
            subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg,
                            a.replay, "--rules", r, trace],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            res = annotate(cg)
            row = []
            for fn in FUNCS:
                ir, calls = res.get(fn, (0, 0))
                row += [calls, ir / calls if calls else float("nan")]
            lines.append(" ".join(["%-19s" % ("%s, %s" % (scen, r))] +
                                  ["%10d %12.1f" % tuple(row[2 * i:2 + 2 * i])
                                   for i in range(len(FUNCS))]))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "cost.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    print("written to %s" % os.path.join(a.out, "cost.txt"))


if __name__ == "__main__":
    main()
