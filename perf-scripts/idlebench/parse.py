"""parse.py: turn one bench run (one workload of one boot) into numbers.

Reads what guest-image/guest/bench.sh wrote into RESULTS/NAME/ and what
launch.py added on the host (sched-timehist.txt), returns a flat dict of
metrics.  Every parser raises ParseError with the file name and the reason
on malformed input; nothing is guessed.

    PYTHONPATH=perf-scripts python3 -m idlebench.parse RESULTS_DIR[/NAME]  # JSON
"""
import json
import math
import os
import re
import sys

from . import energy, trace
from .energy import parse_model
from .trace import ParseError, rows


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as e:
        raise ParseError(f"{path}: cannot read: {e.strerror}") from None


def percentile(sorted_vals, q):
    """Nearest-rank percentile of an already sorted list (q in 0..100)."""
    if not sorted_vals:
        raise ValueError("percentile of an empty list")
    k = max(1, math.ceil(q / 100.0 * len(sorted_vals)))
    return sorted_vals[k - 1]


# ---------------------------------------------------------------- cyclictest
def parse_cyclictest(text, src="cyclictest.json", hist_limit_us=None):
    """min/avg/p99/max (us) over all threads, from the JSON histogram.

    The histogram keys are bucket values in us; the p99 comes from the
    merged histogram.  Samples beyond -h only count as overflows: when
    more than 1% overflow the p99 is unknown and is None (never guessed);
    the max is cyclictest's own and stays exact."""
    try:
        d = json.loads(text)
    except ValueError as e:
        raise ParseError(f"{src}: not JSON: {e}") from None
    threads = d.get("thread") if isinstance(d, dict) else None
    if not isinstance(threads, dict) or not threads:
        raise ParseError(f"{src}: no 'thread' object")
    hist = {}
    cycles = overflows = 0
    mn, mx, wsum = None, None, 0.0
    for tid, t in threads.items():
        try:
            c = int(t["cycles"])
            tmin, tmax, tavg = int(t["min"]), int(t["max"]), float(t["avg"])
            h = {int(k.rstrip(":")): int(v) for k, v in t["histogram"].items()}
        except (KeyError, TypeError, ValueError) as e:
            raise ParseError(f"{src}: thread {tid}: missing or bad field ({e})") from None
        if c == 0:
            continue
        if sum(h.values()) > c:
            raise ParseError(f"{src}: thread {tid}: histogram holds {sum(h.values())} "
                             f"samples, more than its {c} cycles")
        # samples above -h are only counted as overflows
        overflows += c - sum(h.values())
        for k, v in h.items():
            hist[k] = hist.get(k, 0) + v
        cycles += c
        wsum += tavg * c
        mn = tmin if mn is None else min(mn, tmin)
        mx = tmax if mx is None else max(mx, tmax)
    if cycles == 0:
        raise ParseError(f"{src}: no samples")
    need = math.ceil(0.99 * cycles)
    acc = 0
    p99 = None
    for k in sorted(hist):
        acc += hist[k]
        if acc >= need:
            p99 = k
            break
    return {"ct_min_us": mn, "ct_avg_us": wsum / cycles, "ct_p99_us": p99,
            "ct_max_us": mx, "ct_samples": cycles, "ct_overflows": overflows,
            "ct_hist": hist}


# ---------------------------------------------------------- perf sched timehist
_TH = re.compile(r"^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(.+?)\s+(\d+\.\d+)\s+(\d+\.\d+)\s+(\d+\.\d+)\s*$")


def parse_timehist(text, src="sched-timehist.txt"):
    """Wakeup-to-run delays ("sch delay", ms) of every non-idle task."""
    delays = []
    lines = 0
    for line in text.splitlines():
        m = _TH.match(line)
        if not m:
            continue
        lines += 1
        task = m.group(3)
        if task.startswith("<idle>"):
            continue
        delays.append(float(m.group(5)) * 1000.0)  # ms -> us
    if lines == 0:
        raise ParseError(f"{src}: no perf sched timehist rows")
    delays.sort()
    if not delays:
        return {"ps_n": 0}
    return {"ps_n": len(delays), "ps_avg_us": sum(delays) / len(delays),
            "ps_p99_us": percentile(delays, 99), "ps_max_us": delays[-1]}


# ------------------------------------------------------------ key=value files
def parse_states(text, src="states"):
    """bench.sh .states: {(cpu, state): {name, usage, time, above, below}}"""
    def row(kv):
        return (int(kv["cpu"]), int(kv["state"])), dict(
            name=kv["name"], **{f: int(kv[f]) for f in ("usage", "time", "above", "below")})
    out = dict(rows(text, src, row))
    if not out:
        raise ParseError(f"{src}: no cpuidle states (no idle driver?)")
    return out


def parse_cpu_kv(text, src):
    """cpuidle_emu stats / sched_idle stats: {cpu: {key: int}}"""
    def row(kv):
        return int(kv.pop("cpu")), {k: int(v) for k, v in kv.items()}
    out = dict(rows(text, src, row))
    if not out:
        raise ParseError(f"{src}: empty")
    return out


def parse_interrupts(text, src="interrupts"):
    """/proc/interrupts: {source: total over CPUs}; source is 'IRQ:name'."""
    lines = text.splitlines()
    if not lines or "CPU0" not in lines[0]:
        raise ParseError(f"{src}: no CPU header line")
    ncpu = len(lines[0].split())
    out = {}
    for line in lines[1:]:
        parts = line.split()
        if not parts or not parts[0].endswith(":"):
            continue
        irq = parts[0][:-1]
        counts = []
        for p in parts[1:1 + ncpu]:
            if not p.isdigit():
                break
            counts.append(int(p))
        if not counts:
            continue  # ERR:/MIS: with one column are handled above; others skip
        desc = parts[1 + len(counts):]
        name = desc[-1] if desc and irq.isdigit() else " ".join(desc[:3]) if desc else ""
        out[f"{irq}:{name}" if irq.isdigit() else irq] = sum(counts)
    return out


# ------------------------------------------------------------------- tracefs
def parse_trace(text, src="trace.txt"):
    """tracefs text: ({cpu: [(t_enter_s, t_exit_s, state)]}, [sched_idle_select
    fields], (first_ts, last_ts))"""
    idle, sel, span = trace.idle_periods(text, src)
    return idle.periods, sel, span


# ------------------------------------------------------------------ one run
# ------------------------------------------------------ interrupt generator
def parse_irqgen(text, src="irqgen.stats"):
    """The HPET generator's stats (one line per source) -> device metrics.

    Each line: source=N cpu=N irq=N arrivals=N woken=N late_rearms=N
    spurious=N lat_min_ns=N lat_max_ns=N lat_sum_ns=N hist=LOW:COUNT,...
    (woken: arrivals that ended an emulated halt; their lateness includes
    the state's exit latency, which cpuidle_emu spends after the handler)  The
    histogram's buckets are at most 3% wide; a percentile is the low edge
    of the bucket that holds it (so it is never overstated by more than
    the bucket's width).  Lateness = handler entry - programmed deadline:
    the device interrupt's wakeup latency, idle exit latency included."""
    hist, arrivals, woken, late, spurious, lsum, lmax, n = {}, 0, 0, 0, 0, 0, 0, 0
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
        try:
            a = int(kv["arrivals"])
            woken += int(kv["woken"])
            late += int(kv["late_rearms"])
            spurious += int(kv["spurious"])
            lsum += int(kv["lat_sum_ns"])
            lmax = max(lmax, int(kv["lat_max_ns"]))
            got = 0
            for pair in kv["hist"].split(","):
                if pair:
                    low, cnt = pair.split(":")
                    hist[int(low)] = hist.get(int(low), 0) + int(cnt)
                    got += int(cnt)
        except (KeyError, ValueError) as e:
            raise ParseError(f"{src}:{i}: missing or bad field ({e})") from None
        if got != a:
            raise ParseError(f"{src}:{i}: histogram holds {got} arrivals, the count says {a}")
        arrivals += a
        n += 1
    if not n:
        raise ParseError(f"{src}: no generator source")
    if not arrivals:
        raise ParseError(f"{src}: no arrival in the window (generator not running?)")

    def pct(q):
        need, acc = math.ceil(q / 100.0 * arrivals), 0
        for low in sorted(hist):
            acc += hist[low]
            if acc >= need:
                return low / 1000.0
        return None

    return {"dev_sources": n, "dev_arrivals": arrivals, "dev_woken": woken,
            "dev_late_rearms": late,
            "dev_spurious": spurious, "dev_lat_mean_us": lsum / arrivals / 1000.0,
            "dev_lat_p50_us": pct(50), "dev_lat_p99_us": pct(99),
            "dev_lat_max_us": lmax / 1000.0}


# the patched kernel's sched_idle/stats counters of the tick, summed over
# CPUs in "sched_idle", and their rates over the measured window: entries
# that stopped a running tick, entries that started a stopped tick again
# from the idle loop.  Older kernels lack both keys (no rate then); the
# stock kernel has no such file.
TICK_RATES = (("tick_stops", "tick_stops_per_s"), ("tick_restarts", "tick_restarts_per_s"))


def tick_rates(m):
    """{tick_stops_per_s, tick_restarts_per_s} of one run's metrics m: its
    sched_idle deltas over its measured window (window_s); a key its
    kernel's stats lack is left out, and all of them without sched_idle or
    a window."""
    si, win = m.get("sched_idle"), m.get("window_s")
    if not si or not win:
        return {}
    return {rate: si[k] / win for k, rate in TICK_RATES if k in si}


def parse_emu(d, model=None):
    """The driver's counters of a run directory d (before.emu, after.emu):
    energy_mj, power_mw, emu_window_s and, with its model, counters (the
    model against them, energy.counters_check()); {} without them."""
    eb, ea = os.path.join(d, "before.emu"), os.path.join(d, "after.emu")
    if not (os.path.exists(eb) and os.path.exists(ea)):
        return {}
    b, a = parse_cpu_kv(_read(eb), eb), parse_cpu_kv(_read(ea), ea)
    m = {"emu_window_s": energy.counters_window_ns(b, a) / 1e9}
    m["energy_mj"], m["power_mw"] = energy.measured_power(b, a)
    if model:
        m["counters"] = energy.counters_check(model, b, a)
    return m


def named_enders(idle, states):
    """What ended the idle periods of a trace.IdlePeriods, per state name
    of a parse_states() table: {name: {kind: periods}}."""
    names = {key[1]: v["name"] for key, v in states.items()}
    return {names.get(st, f"state{st}"): kinds for st, kinds in idle.ended_by().items()}


def run_enders(d):
    """named_enders() of a workload directory's trace.txt and after.states,
    or None without both (for runs parsed before parse_run() kept it)."""
    tr, st = os.path.join(d, "trace.txt"), os.path.join(d, "after.states")
    if not (os.path.exists(tr) and os.path.exists(st)):
        return None
    idle, _sel, _span = trace.idle_periods(_read(tr), tr)
    return named_enders(idle, parse_states(_read(st), st))


def parse_run(d, model=None, ncpu=None):
    """All metrics of one workload directory d."""
    m = {}
    ct = parse_cyclictest(_read(os.path.join(d, "cyclictest.json")),
                          os.path.join(d, "cyclictest.json"), hist_limit_us=100000)
    m.update(ct)
    th = os.path.join(d, "sched-timehist.txt")
    if os.path.exists(th):
        m.update(parse_timehist(_read(th), th))
    b = parse_states(_read(os.path.join(d, "before.states")), os.path.join(d, "before.states"))
    a = parse_states(_read(os.path.join(d, "after.states")), os.path.join(d, "after.states"))
    if set(a) != set(b):
        raise ParseError(f"{d}: the state tables before and after differ")
    per_state = {}
    for key in sorted(a):
        name = a[key]["name"]
        s = per_state.setdefault(name, {"usage": 0, "time": 0, "above": 0, "below": 0})
        for f in s:
            s[f] += a[key][f] - b[key][f]
    m["states"] = per_state
    usage = sum(s["usage"] for s in per_state.values())
    above = sum(s["above"] for s in per_state.values())
    below = sum(s["below"] for s in per_state.values())
    m["idle_entries"] = usage
    m["miss_above"] = above / usage if usage else 0.0
    m["miss_below"] = below / usage if usage else 0.0
    m["miss_rate"] = (above + below) / usage if usage else 0.0
    ncpu = ncpu or (max(k[0] for k in a) + 1)
    m.update(parse_emu(d, model))
    tr = os.path.join(d, "trace.txt")
    if os.path.exists(tr) and model:
        idle, sel, span = trace.idle_periods(_read(tr), tr)
        m.update(energy.run_energy(idle.periods, span, model, ncpu, m.get("power_mw")))
        m["ended_by"] = named_enders(idle, a)
        if sel:
            # which input won is taken from the kernel's own counters
            # (sched_idle stats), not re-derived from the event fields
            m["si_selects"] = len(sel)
    sb, sa = os.path.join(d, "before.sched_idle"), os.path.join(d, "after.sched_idle")
    if os.path.exists(sb) and os.path.exists(sa):
        b, a2 = parse_cpu_kv(_read(sb), sb), parse_cpu_kv(_read(sa), sa)
        tot = {}
        for c in a2:
            for k, v in a2[c].items():
                tot[k] = tot.get(k, 0) + v - b.get(c, {}).get(k, 0)
        m["sched_idle"] = tot
    ib, ia = os.path.join(d, "before.interrupts"), os.path.join(d, "after.interrupts")
    b, a2 = parse_interrupts(_read(ib), ib), parse_interrupts(_read(ia), ia)
    m["irqs"] = {k: a2[k] - b.get(k, 0) for k in a2 if a2[k] - b.get(k, 0) > 0}
    ig = os.path.join(d, "irqgen.stats")
    if os.path.exists(ig):
        m.update(parse_irqgen(_read(ig), ig))
    w = _read(os.path.join(d, "window")).split()
    try:
        m["window_s"] = float(w[3]) - float(w[1])
    except (IndexError, ValueError):
        raise ParseError(f"{d}/window: want 'start T' and 'end T' lines") from None
    m.update(tick_rates(m))
    for f in ("workload.log", "udprecv.log", "udpgen.log"):
        p = os.path.join(d, f)
        if os.path.exists(p):
            m[f.split(".")[0]] = _read(p).strip().splitlines()[-1:] or [""]
    return m


def parse_info(path):
    """bench.sh's bench-info: {key: value} (kernel, cpus, workloads, ...)."""
    return dict(ln.split("=", 1) for ln in _read(path).splitlines() if "=" in ln)


def workload_failed(d):
    """bench.sh's mark of a workload that failed in the guest (d/failed:
    the reason, then log=FILE relative to the results directory):
    {"reason", "log"}, or None when d has no mark."""
    p = os.path.join(d, "failed")
    if not os.path.exists(p):
        return None
    lines = _read(p).splitlines()
    logs = [x[4:] for x in lines if x.startswith("log=")]
    return {"reason": (lines[0].strip() if lines else "") or "failed in the guest (no reason)",
            "log": logs[-1] if logs else "run.log"}


# what a parser may raise on output it did not expect besides ParseError:
# the workload fails with it, the boot's other workloads are kept
_UNEXPECTED = (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError, OSError)


def parse_cell(results, names=None):
    """Every workload of one boot: {"runs": {workload: metrics}, "failed":
    {workload: {"reason", "log"}}, "info", "model"}.  names: the workloads
    the boot ran (default: those bench-info lists).  A workload that the
    guest marked failed, that left no directory, or whose files do not
    parse is in "failed" (reason in one line, log relative to results),
    the others in "runs"; only a boot without a readable bench-info (or
    emu-model) raises ParseError."""
    info = parse_info(os.path.join(results, "bench-info"))
    model = None
    mp = os.path.join(results, "emu-model")
    if os.path.exists(mp):
        model = parse_model(_read(mp), mp)
    out = {"info": info, "model": model, "runs": {}, "failed": {}}
    if names is None:
        names = [w.split("=")[0] for w in info.get("workloads", "").split()]
    top = os.path.join(results, "")
    for name in names:
        d = os.path.join(results, name)
        mark = workload_failed(d)
        if mark is None and not os.path.isdir(d):
            mark = {"reason": f"no output: the guest wrote no {name}/", "log": "run.log"}
        if mark is None:
            try:
                out["runs"][name] = parse_run(d, model, int(info.get("cpus", 0)) or None)
            except (ParseError,) + _UNEXPECTED as e:
                why = str(e) if isinstance(e, ParseError) else f"{type(e).__name__}: {e}"
                why = " ".join(why.replace(top, "").split())
                # the file the parser names, else the workload's directory
                f = why.split(":", 1)[0]
                mark = {"reason": f"parse: {why}",
                        "log": f if os.path.isfile(os.path.join(results, f)) else name}
        if mark is not None:
            out["failed"][name] = mark
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m idlebench.parse RESULTS_DIR | RESULTS_DIR/WORKLOAD")
    try:
        p = sys.argv[1]
        r = parse_cell(p) if os.path.exists(os.path.join(p, "bench-info")) else parse_run(p)
    except ParseError as e:
        sys.exit(f"idlebench.parse: {e}")
    json.dump(r, sys.stdout, indent=1, default=str)
    print()
