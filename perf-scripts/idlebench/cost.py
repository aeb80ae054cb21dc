"""cost.py: selection cost per idle entry and cost per interrupt from a
function_graph trace (the "cost" cells of the bench, plan.py).

The guest boots with the function_graph tracer limited to a few functions
(ftrace_filter= and ftrace_graph_filter= the same list, max depth 1) and
the events power:cpu_idle and irq:irq_handler_entry.  Under -icount
shift=0 guest time advances one nanosecond per instruction, so each
duration is an instruction count (plus the tracer's own entry/exit
hooks, the same for every traced call).

  PYTHONPATH=perf-scripts python3 -m idlebench.cost TRACE.txt [FUNC,FUNC...]   # JSON summary

Standard library only.
"""
import json
import re
import sys

from . import trace

# functions that together do what a governor's select (+ reflect) does,
# per configuration; IRQ_FUNC is the per-interrupt path where the patched
# kernel pushes its timings stamp (record_irq_time()).
IRQ_FUNC = "__handle_irq_event_percpu"
# where the cost cells leave the trace, under CELL/results/
COST_TRACE = "block/trace.txt"
SELECT_FUNCS = {
    "menu": ["menu_select", "menu_reflect"],
    "teo": ["teo_select", "teo_reflect"],
    # every call from kernel/sched/idle.c into the choice, out of line
    # (sched_idle_choose's callees may be inlined into it)
    "sched": ["sched_idle_next_wakeup", "sched_idle_choose", "sched_idle_reflect"],
}
SELECT_FUNCS["sched-rfc"] = SELECT_FUNCS["sched"]
SELECT_FUNCS["sched-nolearn"] = SELECT_FUNCS["sched"]

_LINE = re.compile(r"^\s*(\d+)\)\s+(?:[+!#*@$]\s*)?(?:(\d+\.\d+) us\s+)?\|\s*(.*?)\s*$")


def funcs_for(config):
    return SELECT_FUNCS[config] + [IRQ_FUNC]


def parse_trace(text):
    """-> {"calls": {func: [ns...]}, "irq": {name: [ns...]}, "idle_entries": N,
    "lost": N (closings without an opening, e.g. after a buffer wrap)}"""
    calls, irq, open_, lost = {}, {}, {}, 0
    idle = 0
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        cpu, dur, body = int(m.group(1)), m.group(2), m.group(3)
        ev = trace.comment_event(body)
        if ev:
            name, f = ev
            if name == "cpu_idle":
                if isinstance(f.get("state"), int) and f["state"] != trace.EXIT_STATE:
                    idle += 1
            elif name == "irq_handler_entry" and open_.get(cpu) and "name" in f:
                open_[cpu][-1][1] = str(f["name"])
            continue
        fm = re.match(r"([\w.]+)\(\)\s*(;|\{)", body)
        if fm:
            if fm.group(2) == ";":
                if dur is not None:
                    calls.setdefault(fm.group(1), []).append(round(float(dur) * 1000))
            else:
                open_.setdefault(cpu, []).append([fm.group(1), None])
            continue
        if body.startswith("}"):
            st = open_.get(cpu)
            if not st:
                lost += 1
                continue
            fn, name = st.pop()
            if dur is None:
                continue
            ns = round(float(dur) * 1000)
            calls.setdefault(fn, []).append(ns)
            if fn == IRQ_FUNC and name:
                irq.setdefault(name, []).append(ns)
    return {"calls": calls, "irq": irq, "idle_entries": idle, "lost": lost}


def pct(xs, p):
    if not xs:
        return None
    s = sorted(xs)
    k = min(len(s) - 1, max(0, int(round(p / 100 * (len(s) - 1)))))
    return s[k]


def dist(xs):
    if not xs:
        return None
    return {"n": len(xs), "mean": sum(xs) / len(xs), "median": pct(xs, 50),
            "p99": pct(xs, 99), "min": min(xs), "max": max(xs)}


def summarize(parsed, config):
    """per function distribution, calls per idle entry, selection ns per
    idle entry (sum of the selection functions' time / idle entries)."""
    idle = parsed["idle_entries"]
    sel = SELECT_FUNCS.get(config, [])
    out = {"config": config, "idle_entries": idle, "lost": parsed["lost"], "funcs": {},
           "irq": {}}
    total = 0
    for fn in sel + [IRQ_FUNC]:
        xs = parsed["calls"].get(fn, [])
        d = dist(xs) or {"n": 0}
        d["per_idle_entry"] = len(xs) / idle if idle else None
        out["funcs"][fn] = d
        if fn in sel:
            total += sum(xs)
    out["select_ns_per_entry"] = total / idle if idle else None
    # robust to an interrupt landing inside a call (reflect runs with
    # interrupts enabled): the sum of median x calls per idle entry
    out["select_median_per_entry"] = (
        sum(out["funcs"][fn].get("median") * out["funcs"][fn]["per_idle_entry"]
            for fn in sel if out["funcs"][fn].get("n")) if idle else None)
    out["select_calls_per_entry"] = (sum(len(parsed["calls"].get(fn, [])) for fn in sel) / idle
                                     if idle else None)
    for name, xs in parsed["irq"].items():
        out["irq"][name] = dist(xs)
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], errors="replace") as f:
        p = parse_trace(f.read())
    cfg = argv[2] if len(argv) > 2 else "sched"
    print(json.dumps(summarize(p, cfg), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
