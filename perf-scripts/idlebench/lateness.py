"""lateness.py: how late timer wakeups arrive, from the patched kernel's
own trace (sched_idle:sched_idle_select gives the next timer the idle
loop was told about; power:cpu_idle gives when the CPU really woke up).

On hardware a timer interrupt arrives within microseconds of its
programmed time.  Under emulation it can arrive much later, which makes
every idle period longer than the timer said: a bias that menu's
correction factor learns and that our timer input does not.  The report
shows it so that "too shallow" can be read for what it is.

  PYTHONPATH=perf-scripts python3 -m idlebench.lateness TRACE...
"""
import bisect
import sys

from . import trace

# a select whose idle period starts later than this is not paired
_PAIR_S = 0.001


def analyze(text):
    """{'selects': n, 'overdue': n with timer_ns == 0, 'late_us': sorted
    [actual idle - timer, µs] of non-polling entries the timer won}."""
    sel, idle = {}, trace.IdlePeriods()
    n = overdue = 0
    for cpu, ts, ev, f in trace.events(text, strict=False):
        if ev == "sched_idle_select":
            timer, irq, st = f.get("timer_ns"), f.get("irq_ns"), f.get("state")
            if not all(isinstance(x, int) for x in (timer, irq, st)):
                continue
            n += 1
            overdue += timer == 0
            sel.setdefault(cpu, []).append((ts, timer, irq, st))
        elif ev == "cpu_idle" and isinstance(f.get("state"), int):
            idle.add(cpu, ts, f["state"])
    per = idle.periods
    late = []
    for cpu, ss in sel.items():
        ps = per.get(cpu, [])
        starts = [p[0] for p in ps]
        for ts, timer, irq, st in ss:
            if st <= 0 or timer <= 0 or (0 <= irq < timer):
                continue
            i = bisect.bisect_left(starts, ts)
            if i < len(ps) and ps[i][0] - ts <= _PAIR_S:
                late.append((ps[i][1] - ps[i][0]) * 1e6 - timer / 1e3)
    late.sort()
    return {"selects": n, "overdue": overdue, "late_us": late}


def merge(results):
    out = {"selects": 0, "overdue": 0, "late_us": []}
    for r in results:
        out["selects"] += r["selects"]
        out["overdue"] += r["overdue"]
        out["late_us"].extend(r["late_us"])
    out["late_us"].sort()
    return out


def describe(r):
    """One line: median/p10/p90 lateness and the overdue share."""
    late, n = r["late_us"], r["selects"]
    if not n:
        return "no sched_idle_select events"

    def q(p):
        return late[min(len(late) - 1, int(p * len(late)))]
    txt = f"{r['overdue'] / n:.0%} of {n} idle entries found the next timer already due"
    if late:
        txt += (f"; the {len(late)} non-polling entries the timer won woke up a median "
                f"{q(0.5):.0f} µs after it (p10 {q(0.1):.0f}, p90 {q(0.9):.0f})")
    return txt


def main(argv):
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rs = []
    for p in argv:
        with open(p, errors="replace") as f:
            r = analyze(f.read())
        print(f"{p}: {describe(r)}")
        rs.append(r)
    if len(rs) > 1:
        print(f"all: {describe(merge(rs))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
