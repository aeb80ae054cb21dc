#!/usr/bin/env python3
"""replay-compare.py [--control] [--stats irqgen.stats] WORKLOAD.toml
RECORDED_TRACE REPLAYED_TRACE: the judge of scripts/tests/replay-workload.sh.

Each list source of the workload (perf-scripts/trace2workload.py wrote it
from RECORDED_TRACE) names its recorded source in its lists file (irq=,
cpu=, handler=); the replay's source i is the generator's irqgen<i> (gen
line i) on its guest CPU.  Per source, the replay's arrivals (its
irq_handler_entry events in REPLAYED_TRACE) are matched in order to the
recorded ones, on the replay's timeline (the median offset between the
two), and compared: interval k of the replay with interval k of the
recording, and each arrival with its recorded time, on one line fitted through every
source's arrivals that came on time (the offset, common to all sources
since their lists start together, and the clock rate: the two boots'
clocks are calibrated apart, about 1 ppm here).  One row per source, then all
sources pooled; exit 0 only when:

  - per source: every recorded arrival has its replayed one, and the
    replay has at most one entry per EXTRA_PER more (an entry of the
    handler with no arrival: the I/O APIC delivering a level interrupt
    again, seen in the bench's 2-vCPU traces before any replay); with
    --stats (the replay's irqgen.stats) the generator counted exactly as
    many arrivals as were recorded (the list played once, whole); no
    arrival more than EARLY_US before its recorded time or more than
    LATE_US after it; the clocks within RATE_PPM;
  - pooled: median |interval difference| <= MEDIAN_US, and at least
    MIN_EXACT of the arrivals within EXACT_US of their recorded times.

Why: each replayed arrival is at its recorded time rounded to 1 us (the
lists) plus the replay's own wakeup latency.  The latter is about 1 us
(handler entry), or up to the deepest emulated state's exit latency
(cpuidle_emu C6, 133 us) when the arrival finds its CPU spinning out of
a state another wakeup ended: that depends on the replay's idle states,
not on the list, and a burst (a console's) finds it more often than a
lone arrival: so it is judged pooled.  A tracefs trace cuts to
microseconds (up to 1 us more).  So a replayed arrival is never early by
more than those (0.5 + 1 us) and the handler entry's own variation
(about 1 us): EARLY_US; rarely late, never later than LATE_US.  An
arrival off by one of the list is hundreds of microseconds off (Poisson
at 1 ms).

--control compares with the recorded arrivals shifted by one (arrival
k+1 against replayed arrival k): it must fail, or the tolerance could not
tell a replay from a wrong one.
"""
import os
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "perf-scripts"))
from idlebench import arrivals, workloads  # noqa: E402

MEDIAN_US = 1.0
EXACT_US = 2.0
MIN_EXACT = 0.75
EARLY_US = 3.0
LATE_US = 200.0
EXTRA_PER = 1000
RATE_PPM = 50.0


def die(msg):
    print(f"replay-compare: error: {msg}", file=sys.stderr)
    sys.exit(2)


def lower_quartile(xs):
    xs = sorted(xs)
    return xs[len(xs) // 4]


def first_offset(rec, rep):
    """The replay's offset from the recording, from one source: the lower
    quartile of its first differences, as a replayed arrival is on time
    or late, not early."""
    k = min(len(rec), len(rep), 40)
    return lower_quartile(b - a for a, b in zip(rec[:k], rep[:k])) if k else 0


def match(rec, rep, off):
    """(pairs [(i, j)], extra replayed entries): rec[i] and rep[j] (ns)
    matched in order on the replay's timeline (offset off), each replayed
    arrival at most EARLY_US early or LATE_US late against its recorded
    one."""
    pairs, j = [], 0
    for i, t in enumerate(rec):
        while j < len(rep) and rep[j] - off < t - EARLY_US * 1000:
            j += 1
        if j < len(rep) and rep[j] - off <= t + LATE_US * 1000:
            pairs.append((i, j))
            j += 1
    return pairs, len(rep) - len(pairs)


def clock_fit(d):
    """(offset ns, rate) of the line x = offset + rate * t through the
    points (t, x) (recorded time, replayed minus recorded time) of the
    arrivals that came on time (within 5 us of the lower quartile of the
    differences), least squares."""
    base = lower_quartile(x for _, x in d)
    on = [(t, x) for t, x in d if abs(x - base) <= 5000] or d
    mt = statistics.fmean(t for t, _ in on)
    mx = statistics.fmean(x for _, x in on)
    var = sum((t - mt) ** 2 for t, _ in on)
    rate = sum((t - mt) * (x - mx) for t, x in on) / var if var else 0.0
    return mx - rate * mt, rate


def judge(rec, rep, pairs, extra, fit, arrivals_counted):
    """(row, ok, arrival deviations in us, interval |differences| in us)
    of one source: rec and rep its arrival times in ns, matched by pairs,
    fit the replay's line."""
    off, rate = fit
    row = {"n_rec": len(rec), "n_rep": len(rep), "extra": extra, "iv_med": None,
           "iv_p99": None, "exact": None, "early": None, "late_max": None}
    if len(pairs) < 2:
        return row, False, [], []
    dev = [(rep[j] - rec[i] - off - rate * rec[i]) / 1000 for i, j in pairs]
    iv = sorted(abs((rep[j2] - rep[j1]) - (rec[i2] - rec[i1])) / 1000
                for (i1, j1), (i2, j2) in zip(pairs, pairs[1:]) if i2 == i1 + 1)
    row.update(iv_med=statistics.median(iv) if iv else None, iv_p99=p99(iv),
               exact=sum(abs(d) <= EXACT_US for d in dev) / len(rec),
               early=sum(d < -EARLY_US for d in dev), late_max=max(dev))
    ok = (len(pairs) == len(rec) and extra * EXTRA_PER <= len(rec) and
          (arrivals_counted is None or arrivals_counted == len(rec)) and
          row["early"] == 0 and row["late_max"] <= LATE_US)
    return row, ok, dev, iv


def p99(xs):
    return sorted(xs)[min(len(xs) - 1, int(0.99 * len(xs)))] if xs else None


def stats_arrivals(path):
    """{source index: arrivals} of an irqgen.stats file."""
    out = {}
    with open(path) as f:
        for line in f:
            kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
            if "source" in kv:
                out[int(kv["source"])] = int(kv["arrivals"])
    return out


def main(argv):
    control = "--control" in argv
    argv = [a for a in argv if a != "--control"]
    stats = None
    if "--stats" in argv:
        i = argv.index("--stats")
        try:
            stats = stats_arrivals(argv[i + 1])
        except (IndexError, OSError, ValueError, KeyError) as e:
            die(f"--stats: cannot read the generator's statistics: {e}")
        del argv[i:i + 2]
    if len(argv) != 3:
        die("usage: replay-compare.py [--control] [--stats irqgen.stats] WORKLOAD.toml "
            "RECORDED_TRACE REPLAYED_TRACE")
    try:
        table = workloads.load(argv[0])
    except workloads.WorkloadError as e:
        die(str(e))
    (name, w), = table.items()
    refs = w.list_refs()
    if not refs or len(refs) != len(w.gen):
        die(f"{argv[0]}: [{name}] is not a replay (every gen line a list source)")
    meta = {}
    with open(w.lists) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                words = line.split()
                meta[words[0]] = dict(x.split("=", 1) for x in words[1:] if "=" in x)
    try:
        recorded, replayed = (arrivals.parse(text, path) for path, text in
                              map(arrivals.read_text, argv[1:]))
    except arrivals.TraceError as e:
        die(str(e))
    rec_by = {(s.irq, s.cpu): s.times_ns for s in recorded.sources}
    rep_by = {(s.name, s.cpu): s.times_ns for s in replayed.sources}
    # per source (recorded, replayed) arrivals, on the recording's start
    t0 = recorded.start_ns
    both = []
    for i, ref in enumerate(refs):
        m = meta[ref]
        rec = [t - t0 for t in rec_by.get((int(m["irq"]), int(m["cpu"])), [])]
        both.append((rec[1:] if control else rec,
                     rep_by.get((f"irqgen{i}", int(m["guest_cpu"])), [])))
    # match on the busiest source's offset, fit one line through them all
    off = first_offset(*max(both, key=lambda b: len(b[0])))
    matched = [match(rec, rep, off) for rec, rep in both]
    fit = clock_fit([(rec[i], rep[j] - rec[i]) for (rec, rep), (pairs, _) in zip(both, matched)
                     for i, j in pairs] or [(0, off)])
    what = "control: recorded arrivals shifted by one" if control else "replay"
    print(f"{what}; pass: every arrival matched, none > {EARLY_US:g} us early or > "
          f"{LATE_US:g} us late, clocks within {RATE_PPM:g} ppm; pooled: interval median "
          f"|diff| <= {MEDIAN_US:g} us, >= {MIN_EXACT:.0%} of arrivals within {EXACT_US:g} us")
    print(f"{'source':30} {'n rec':>6} {'n rep':>6} {'extra':>5} {'iv med':>7} {'iv p99':>7} "
          f"{'<=2us':>6} {'early':>5} {'late max':>8}  verdict")
    ok_all, devs, ivs = abs(fit[1]) * 1e6 <= RATE_PPM, [], []
    for i, ref in enumerate(refs):
        m = meta[ref]
        (rec, rep), (pairs, extra) = both[i], matched[i]
        row, ok, dev, iv = judge(rec, rep, pairs, extra, fit,
                                 None if stats is None or control else stats.get(i))
        ok_all &= ok
        devs += dev
        ivs += iv

        def f(v, fmt):
            return "-" if v is None else format(v, fmt)
        label = f"{ref} irq {m['irq']} {m['handler']} cpu {m['cpu']}"
        print(f"{label:30} {row['n_rec']:6d} {row['n_rep']:6d} {row['extra']:5d} "
              f"{f(row['iv_med'], '7.2f'):>7} {f(row['iv_p99'], '7.2f'):>7} "
              f"{f(row['exact'], '6.1%'):>6} {f(row['early'], 'd'):>5} "
              f"{f(row['late_max'], '8.1f'):>8}  {'ok' if ok else 'MISMATCH'}")
    n = sum(len(rec) for rec, _ in both)
    exact = sum(abs(d) <= EXACT_US for d in devs) / n if n else 0.0
    med = statistics.median(ivs) if ivs else None
    pooled = med is not None and med <= MEDIAN_US and exact >= MIN_EXACT
    print(f"{'all sources':30} {n:6d} {'':6} {'':5} {'-' if med is None else format(med, '7.2f'):>7} "
          f"{'-' if not ivs else format(p99(ivs), '7.2f'):>7} {exact:6.1%} {'':5} {'':8}  "
          f"{'ok' if pooled else 'MISMATCH'}")
    print(f"clock: the replay {fit[0] / 1000:+.1f} us {fit[1] * 1e6:+.2f} ppm from the recording "
          f"({'ok' if abs(fit[1]) * 1e6 <= RATE_PPM else 'MISMATCH'})")
    ok_all &= pooled
    print(f"{what}: {'PASS' if ok_all else 'FAIL'}")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
