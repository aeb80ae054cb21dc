"""cost.py: selection cost per idle entry and cost per interrupt from the
kernel's own probe (cpuidle_cost, a test-infrastructure patch of the
series carried by both kernels; the patched kernel's idle path gets the
same spans in another).

The cost cells boot with cpuidle_cost.enable=1: the idle loop reads the
clock around the state selection (cpuidle_select() on the stock path; the
latency limit, sched_idle_next_wakeup() and sched_idle_choose() on ours)
and around the reflection after the idle period (cpuidle_reflect(); ours:
sched_idle_learn_from()), with interrupts disabled across the reflection
while probing, and the interrupt path reads it around its timings stamp
(record_irq_time(), empty in the stock kernel).  guest-image/guest/bench.sh
restarts the counters before each window and copies
/sys/kernel/debug/cpuidle_cost to WORKLOAD/after.cost after it:

  enabled=1
  select count=N sum_ns=S min_ns=A max_ns=B
  reflect ...
  irq ...
  empty ...      the probe's own cost (an empty bracket), timed at boot

Under -icount shift=0 guest time advances one nanosecond per
instruction, so each figure is an instruction count; the empty bracket
is subtracted from every span.  The cost per idle entry counted whole
(all_in()) adds to select + reflect what the patched kernel's stamp costs
per interrupt above the stock kernel's empty span, times interrupts per
idle entry.

  PYTHONPATH=perf-scripts python3 -m idlebench.cost CELL/results/WORKLOAD/after.cost

Standard library only.
"""
import json
import os
import re
import sys

SPANS = ("select", "reflect", "irq", "empty")
FIELDS = ("count", "sum_ns", "min_ns", "max_ns")
# the workloads of a cost cell, and where bench.sh leaves the probe's file
COST_WORKLOADS = ("block", "dev2")
COST_FILE = "after.cost"
# the cost-load stage (bench.py --cost-load): the same probe as the work on
# CPU 0 grows, in two sweeps of workloads.toml's generator workloads; the
# report holds sched's cost per idle entry within each sweep to LOAD_FLAT
# (report/tables.py load_section)
LOAD_SWEEPS = (("sources", ("load_s1", "load_s2", "load_s4", "load_s5")),
               ("rate", ("load_r1k", "load_r10k", "load_r50k")))
LOAD_WORKLOADS = tuple(w for _, ws in LOAD_SWEEPS for w in ws)
LOAD_CONFIGS = ("menu", "teo", "sched")
# flat: largest over smallest of sched's figure within a sweep at most this
LOAD_FLAT = 1.10

_LINE = re.compile(r"^(\w+)((?: \w+=\d+)+)$")


class CostError(Exception):
    pass


def parse(text):
    """-> {"enabled": bool, span: {count, sum_ns, min_ns, max_ns}} for every
    span of SPANS; CostError on anything else."""
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("enabled="):
            out["enabled"] = line == "enabled=1"
            continue
        m = _LINE.match(line)
        if not m or m.group(1) not in SPANS:
            raise CostError(f"line {n}: not a cpuidle_cost line: {line!r}")
        kv = dict(f.split("=") for f in m.group(2).split())
        if set(kv) != set(FIELDS):
            raise CostError(f"line {n}: want {', '.join(FIELDS)}: {line!r}")
        out[m.group(1)] = {k: int(v) for k, v in kv.items()}
    missing = [s for s in SPANS + ("enabled",) if s not in out]
    if missing:
        raise CostError(f"missing {', '.join(missing)}")
    return out


def _mean(st):
    return st["sum_ns"] / st["count"] if st["count"] else None


def summarize(p):
    """Net of the probe (its empty bracket's mean):
    select_ns, reflect_ns   mean per span
    per_entry_ns            (select + reflect time) / idle entries
                            (a select span is one idle entry that chose)
    irq_ns                  mean per interrupt of the stamp
    and the raw figures they come from."""
    empty = _mean(p["empty"])
    if not p["enabled"] or empty is None:
        raise CostError("the probe was off (boot without cpuidle_cost.enable=1?)")
    sel, ref, irq = p["select"], p["reflect"], p["irq"]
    n = sel["count"]
    out = {"entries": n, "empty_ns": empty, "empty_min_ns": p["empty"]["min_ns"],
           "reflects": ref["count"], "irqs": irq["count"], "raw": p}
    out["select_ns"] = _mean(sel) - empty if n else None
    out["reflect_ns"] = _mean(ref) - empty if ref["count"] else None
    out["per_entry_ns"] = ((sel["sum_ns"] + ref["sum_ns"]) / n
                           - empty * (1 + ref["count"] / n)) if n else None
    out["irq_ns"] = _mean(irq) - empty if irq["count"] else None
    return out


POOLED = ("per_entry_ns", "select_ns", "reflect_ns", "irq_ns", "entries",
          "irqs", "empty_ns")


def all_in(k, floor_ns):
    """One boot's cost per idle entry counted whole: its per_entry_ns (select
    + reflect) plus what its interrupts' stamps add, spread over its idle
    entries: (irq_ns - floor_ns) * irqs / entries.  floor_ns: the stock
    kernel's span around its empty record_irq_time() on the same workload
    (what the stamp adds is the span above it).  None when k has no idle
    entry."""
    x = k["per_entry_ns"]
    if x is None or not k["irqs"] or k["irq_ns"] is None:
        return x
    return x + (k["irq_ns"] - floor_ns) * k["irqs"] / k["entries"]


# pool()'s floor_ns for the stock kernel's boots: no stamp, nothing added
NO_STAMP = "no stamp"


def pool(summaries, floor_ns=None):
    """One summary of a configuration's cost boots (one per seed): the mean
    of each figure, with n and the per-entry range (lo, hi); all_in_ns,
    the mean of each boot's all_in() against floor_ns, and its range
    all_in_range.  floor_ns NO_STAMP: the stock kernel's boots, whose
    all-in figure is their per-entry one; None: not known (all_in_ns
    None)."""
    out = {"n": len(summaries), "empty_min_ns": min(k["empty_min_ns"] for k in summaries)}
    for f in POOLED:
        xs = [k[f] for k in summaries if k[f] is not None]
        out[f] = sum(xs) / len(xs) if xs else None
    pe = [k["per_entry_ns"] for k in summaries if k["per_entry_ns"] is not None]
    out["per_entry_range"] = (min(pe), max(pe)) if pe else None
    if floor_ns is None:
        ai = []
    elif floor_ns == NO_STAMP:
        ai = pe
    else:
        ai = [x for x in (all_in(k, floor_ns) for k in summaries) if x is not None]
    out["all_in_ns"] = sum(ai) / len(ai) if ai else None
    out["all_in_range"] = (min(ai), max(ai)) if ai else None
    return out


def load_workload(res, w):
    """The summary of workload w's probe file in a results directory;
    CostError (naming the file) when it is missing or bad."""
    path = os.path.join(res, w, COST_FILE)
    try:
        with open(path) as f:
            s = summarize(parse(f.read()))
    except OSError as e:
        raise CostError(f"{path}: {e.strerror}") from None
    except CostError as e:
        raise CostError(f"{path}: {e}") from None
    if not s["entries"]:
        raise CostError(f"{path}: no idle entry was measured")
    return s


def load_each(res, works):
    """({workload: summary}, {workload: why it has none}) of the workloads
    works of a cost cell's results directory: one bad file costs only its
    own workload (the cost-load cells)."""
    out, bad = {}, {}
    for w in works:
        try:
            out[w] = load_workload(res, w)
        except CostError as e:
            bad[w] = str(e)
    return out, bad


def load_cell(res, works=COST_WORKLOADS):
    """{workload: summary} of a cost cell's results directory; CostError
    when a workload's file is missing or bad."""
    return {w: load_workload(res, w) for w in works}


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            s = summarize(parse(f.read()))
    except (OSError, CostError) as e:
        print(f"cost: {argv[1]}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(s, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
