"""The energy model of the emulated idle driver (cpuidle_emu, a test-
infrastructure patch of the series), the oracle, and their checks.

The driver charges (emu_idle_entry_energy_pj(), emu_idle_active_energy_pj()):
  a halting entry into state s:  halted_ns * power_mw(s)
                                 + exit_ns * active_mw + entry_uj(s) * 1e6  [pJ]
  running or polling:            active_ns * active_mw                      [pJ]
where exit_ns is the exit spin, at least the state's exit latency; it
reports the per-CPU totals in debugfs cpuidle_emu/stats (energy_nj,
elapsed_ns, active_ns, exit_ns and each state's entries and halted_ns),
from which measured_power() takes the window's power.

A traced idle period (power:cpu_idle entry to exit) of P ns holds the halt
and then the exit spin, which the driver runs before it returns: the
halted time is taken as T = P - exit(entered state), and T = P when the
CPU polled.  T ends at the wakeup, which no choice of state moves, so
every state is charged for the same T:

- modelled (model_power_mw): each period in the state the kernel entered,
  E(entered, T) by the driver's formula; the driver's own charge seen
  through the trace, but for the trace's span, which is shorter than the
  counters' window, and for an exit spin past the state's latency, which
  the driver charges at active power and T at the state's
  (model_measured_ratio shows how far the two are);
- oracle (oracle_power_mw): each period in the state of least energy for
  its T, min over all the model's states (polling included) of E(s, T):
  the least any choice of states could have spent on the same wake times.
  The entered state is one of the candidates, so the oracle is at most the
  modelled energy period by period.

Both charge the time outside the traced periods at active power.  The
deepest state whose target residency fits the period is not the minimum:
with skx, C6 beats C1E from T = 484 us on (below C6's 600 us residency)
and C1E beats C1 only from T = 40 us (above C1E's 20 us).  idle-loop/'s
replay takes the same minimum with the driver's compiled model
(states.c), on the same halted times; perf-scripts/tests/test_energy.py
runs both on one trace.

check() holds a run to two things: the model, charged by charge_pj() on
the driver's own counters of the window (counters_check()), gives the
energy the driver counted, to the nJ it prints, which a model or a
formula other than the driver's does not, and its exit spin covers the
model's exit latencies; and in every period the oracle's state costs at
most the entered one, which holds by construction unless the minimum is
wrong."""
from . import trace
from .trace import ParseError, rows


def parse_model(text, src="emu-model"):
    """cpuidle_emu/model: [{name, exit_us, residency_us, power_mw,
    entry_uj}], POLL first (its power is the active power)."""
    def row(kv):
        return dict(name=kv["name"], **{k: float(kv[k]) for k in (
            "exit_us", "residency_us", "power_mw", "entry_uj")})
    out = rows(text, src, row)
    if not out:
        raise ParseError(f"{src}: empty model")
    return out


def charge_pj(model, index, halted_ns, exit_ns=0, entries=1):
    """The driver's energy (pJ) of entries halting entries into state index
    that halted for halted_ns and spun exit_ns of exit latency in all: the
    halted time at the state's power, the spin at active power, each
    entry's energy; index 0 is running or polling, halted_ns at active
    power and nothing else."""
    active_mw = model[0]["power_mw"]
    if index == 0:
        return halted_ns * active_mw
    s = model[index]
    return halted_ns * s["power_mw"] + exit_ns * active_mw + entries * s["entry_uj"] * 1e6


def period_energy_pj(model, index, halted_ns):
    """The driver's energy of one idle period halted for halted_ns in state
    index, its exit latency spun at active power, plus its entry energy
    (0 is polling: active power, no exit, no entry energy)."""
    return charge_pj(model, index, halted_ns, model[index]["exit_us"] * 1e3 if index else 0)


def halted_ns(model, index, period_ns):
    """The halted time of a traced period of period_ns in state index: the
    period less the state's exit spin (never below 0); all of it polling."""
    if index == 0:
        return period_ns
    return max(0.0, period_ns - model[index]["exit_us"] * 1e3)


def min_energy_state(model, halted):
    """The state of least energy for an idle period halted for halted ns
    (the shallowest of equals)."""
    return min(range(len(model)), key=lambda i: period_energy_pj(model, i, halted))


def trace_energy(periods, span, model, ncpu, oracle=min_energy_state):
    """The traced span's energy (pJ, summed over CPUs) charged two ways:
    {model_pj: each period in its entered state, oracle_pj: each in
    oracle(model, T)'s state, periods: how many, above: in how many the
    oracle's state cost more than the entered one, span_ns}; None without
    a span.  periods {cpu: [(t_enter_s, t_exit_s, state)]}, span (first_s,
    last_s)."""
    first, last = span
    if first is None or last is None or last <= first:
        return None
    dur_ns = round((last - first) * 1e9)
    active_mw = model[0]["power_mw"]
    model_pj = oracle_pj = 0.0
    n = above = 0
    for cpu in range(ncpu):
        busy_ns = dur_ns
        for t0, t1, entered in periods.get(cpu, []):
            if not 0 <= entered < len(model):
                raise ParseError(f"cpu {cpu}: idle state {entered} is not in the model "
                                 f"({len(model)} states)")
            # the trace prints whole us: rounding keeps the ns exact
            p = round((t1 - t0) * 1e9)
            t = halted_ns(model, entered, p)
            # summed in one order with o <= e term by term, so the sums
            # keep o <= e too (rounding is monotonic)
            e = period_energy_pj(model, entered, t)
            o = period_energy_pj(model, oracle(model, t), t)
            model_pj += e
            oracle_pj += o
            n += 1
            above += o > e
            busy_ns -= p
        model_pj += active_mw * max(0, busy_ns)
        oracle_pj += active_mw * max(0, busy_ns)
    return {"model_pj": model_pj, "oracle_pj": oracle_pj, "periods": n, "above": above,
            "span_ns": dur_ns}


def run_energy(periods, span, model, ncpu, power_mw=None, oracle=min_energy_state):
    """One run's trace energy metrics: model_power_mw, oracle_power_mw,
    model_energy_mj, oracle_energy_mj, trace_span_s, trace_periods,
    oracle_above_periods (periods where the oracle's state cost more than
    the entered one: 0 unless the oracle is wrong); with the driver's
    measured power_mw also model_measured_ratio.  oracle(model, halted_ns)
    -> state: min_energy_state, or another rule to show that check()
    catches it."""
    e = trace_energy(periods, span, model, ncpu, oracle)
    if e is None:
        return {"oracle_power_mw": None, "model_power_mw": None}
    d = e["span_ns"]
    m = {"model_energy_mj": e["model_pj"] / 1e9, "oracle_energy_mj": e["oracle_pj"] / 1e9,
         "model_power_mw": e["model_pj"] / d, "oracle_power_mw": e["oracle_pj"] / d,
         "trace_span_s": d / 1e9, "trace_periods": e["periods"],
         "oracle_above_periods": e["above"]}
    if power_mw:
        m["model_measured_ratio"] = m["model_power_mw"] / power_mw
    return m


def trace_metrics(text, src, model, ncpu, power_mw=None, oracle=min_energy_state):
    """run_energy() of a tracefs text's idle periods (power:cpu_idle)."""
    idle, _sel, span = trace.idle_periods(text, src)
    return run_energy(idle.periods, span, model, ncpu, power_mw, oracle)


# the driver prints energy_nj in whole nJ (its pJ / 1000, rounded down), so
# the difference of two reads is within 1 nJ of the pJ it charged between them
ROUND_NJ = 1.0


def counters_delta(before, after):
    """The driver's counters over a window (cpuidle_emu/stats before and
    after it, parse.parse_cpu_kv()): {cpu: {field: after - before}}."""
    return {c: {k: v - before.get(c, {}).get(k, 0) for k, v in after[c].items()}
            for c in after}


def counters_charge(model, d):
    """One CPU's window of the driver's counters d (counters_delta()),
    charged by charge_pj() with model: {model_nj: each state's halted time
    and entries, the exit spin shared over the entries (the driver keeps
    one total, charged at active power however it is shared), the active
    time as polling; measured_nj: what the driver counted; torn_ns: the
    window's time not in active, exit or halted time, 0 unless a halt
    ended while a read printed its fields; exit_ns, exit_min_ns: the exit
    spin and the model's exit latencies of the entries; entries; missing:
    the model's states the counters do not hold}."""
    states = range(1, len(model))
    names = {i: model[i]["name"] for i in states}
    missing = [names[i] for i in states
               if f"{names[i]}_entries" not in d or f"{names[i]}_halted_ns" not in d]
    if missing:
        return {"missing": missing}
    n = {i: d[f"{names[i]}_entries"] for i in states}
    halted = {i: d[f"{names[i]}_halted_ns"] for i in states}
    entries = sum(n.values())
    spin = d["exit_ns"]
    pj = charge_pj(model, 0, d["active_ns"] + (spin if not entries else 0))
    for i in states:
        pj += charge_pj(model, i, halted[i], spin * n[i] / entries if entries else 0, n[i])
    return {"model_nj": pj / 1e3, "measured_nj": d["energy_nj"],
            "torn_ns": d["elapsed_ns"] - d["active_ns"] - spin - sum(halted.values()),
            "exit_ns": spin, "exit_min_ns": sum(n[i] * model[i]["exit_us"] * 1e3 for i in states),
            "entries": entries}


def torn_allowance_nj(model, torn_ns):
    """What a read torn by torn_ns (a halt that ended while the driver
    printed one CPU's fields, so that some hold it and others do not) can
    move the energy by: that time at active power and one entry's
    energy; 0 for a read that is not torn."""
    if not torn_ns:
        return 0.0
    return (abs(torn_ns) * model[0]["power_mw"] + max(s["entry_uj"] for s in model) * 1e6) / 1e3


def counters_check(model, before, after):
    """The model against the driver's counters of one window (cpuidle_emu/
    stats before and after, parse.parse_cpu_kv()): [counters_charge() of
    each CPU, with cpu and allowed_nj, the difference check() lets pass]."""
    out = []
    for cpu, d in sorted(counters_delta(before, after).items()):
        c = dict(counters_charge(model, d), cpu=cpu)
        if "missing" not in c:
            c["allowed_nj"] = ROUND_NJ + torn_allowance_nj(model, c["torn_ns"])
        out.append(c)
    return out


def counters_failures(cpus):
    """[what fails] of counters_check()'s CPUs: a state of the model that
    the counters do not hold, a charge other than the driver's, an exit
    spin shorter than the model's exit latencies."""
    bad = []
    for c in cpus:
        if "missing" in c:
            bad.append(f"cpu {c['cpu']}: the driver's counters hold no state "
                       f"{', '.join(c['missing'])} of the model")
            continue
        diff = c["measured_nj"] - c["model_nj"]
        if abs(diff) >= c["allowed_nj"]:
            bad.append(f"cpu {c['cpu']}: the model charges the driver's counters "
                       f"{c['model_nj']:.0f} nJ, the driver counted {c['measured_nj']} nJ "
                       f"({diff:+.0f} nJ)")
        if c["exit_ns"] + abs(c["torn_ns"]) < c["exit_min_ns"]:
            bad.append(f"cpu {c['cpu']}: exit spin {c['exit_ns']} ns, below the model's exit "
                       f"latencies of its {c['entries']} entries ({c['exit_min_ns']:.0f} ns)")
    return bad


def check(m):
    """What fails in one run's metrics (run_energy()'s, and counters, the
    counters_check() parse_run() adds): [what fails], empty when all
    holds; None when the run has neither a trace nor the driver's
    counters with its model.  The model charges the driver's counters as
    the driver did (counters_failures()); in every period the oracle's
    state costs at most the entered one, and so its energy is at most the
    modelled energy of the same periods, exactly (both sums are made term
    by term in one order)."""
    o, e = m.get("oracle_energy_mj"), m.get("model_energy_mj")
    cpus = m.get("counters")
    if (o is None or e is None) and cpus is None:
        return None
    bad = counters_failures(cpus or [])
    if o is None or e is None:
        return bad
    if m.get("oracle_above_periods"):
        bad.append(f"oracle above the kernel's own state in {m['oracle_above_periods']} "
                   f"of {m.get('trace_periods')} periods")
    if o > e:
        bad.append(f"oracle {o:.6g} mJ > {e:.6g} mJ of the kernel's own states "
                   "on the same periods")
    return bad


def counters_window_ns(before, after):
    """The counters' window (ns): the mean over CPUs of elapsed_ns between
    two cpuidle_emu/stats reads, as measured_power() divides by."""
    return sum(after[c]["elapsed_ns"] - before[c]["elapsed_ns"] for c in after) / len(after)


def measured_power(before, after):
    """(energy_mj, power_mw) of a window from the driver's own counters
    (cpuidle_emu/stats before and after: {cpu: {energy_nj, elapsed_ns}});
    power is the CPUs' summed energy over the mean elapsed time."""
    de = sum(after[c]["energy_nj"] - before[c]["energy_nj"] for c in after)
    dt = counters_window_ns(before, after)
    return de / 1e6, (de / dt * 1e3 if dt > 0 else None)
