"""The energy model of the emulated idle driver (cpuidle_emu, a test-
infrastructure patch of the series), the oracle, and the checks that keep the oracle a lower bound.

The driver charges (emu_idle_entry_energy_pj(), emu_idle_active_energy_pj()):
  a halting entry into state s:  halted_ns * power_mw(s)
                                 + exit_ns * active_mw + entry_uj(s) * 1e6  [pJ]
  running or polling:            active_ns * active_mw                      [pJ]
and reports the per-CPU totals in debugfs cpuidle_emu/stats (energy_nj,
elapsed_ns), from which measured_power() takes the window's power.

A traced idle period (power:cpu_idle entry to exit) of P ns holds the halt
and then the exit latency, which the driver spins out before it returns:
the halted time is T = P - exit(entered state), and T = P when the CPU
polled.  T ends at the wakeup, which no choice of state moves, so every
state is charged for the same T:

- modelled (model_power_mw): each period in the state the kernel entered,
  E(entered, T) by the driver's formula; this is the driver's own charge
  seen through the trace, so it should agree with the measured power but
  for the edges of the window (model_measured_ratio shows how well);
- oracle (oracle_power_mw): each period in the state of least energy for
  its T, min over all the model's states (polling included) of E(s, T):
  the least any choice of states could have spent on the same wake times.
  The entered state is one of the candidates, so the oracle is at most the
  modelled energy period by period (check()).

Both charge the time outside the traced periods at active power.  The
deepest state whose target residency fits the period is not the minimum:
with skx, C6 beats C1E from T = 484 us on (below C6's 600 us residency)
and C1E beats C1 only from T = 40 us (above C1E's 20 us).  idle-loop/'s
replay takes the same minimum with the driver's compiled model
(states.c), on the same halted times; perf-scripts/tests/test_energy.py
runs both on one trace."""
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


def period_energy_pj(model, index, halted_ns):
    """The driver's energy of one idle period halted for halted_ns in state
    index, its exit latency spun at active power, plus its entry energy
    (0 is polling: active power, no exit, no entry energy)."""
    active_mw = model[0]["power_mw"]
    if index == 0:
        return halted_ns * active_mw
    s = model[index]
    return halted_ns * s["power_mw"] + s["exit_us"] * 1e3 * active_mw + s["entry_uj"] * 1e6


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
    oracle's state cost more than the entered one, span_ns, longest_ns:
    the longest period}; None without a span.  periods {cpu: [(t_enter_s,
    t_exit_s, state)]}, span (first_s, last_s)."""
    first, last = span
    if first is None or last is None or last <= first:
        return None
    dur_ns = round((last - first) * 1e9)
    active_mw = model[0]["power_mw"]
    model_pj = oracle_pj = 0.0
    longest = n = above = 0
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
            longest = max(longest, p)
        model_pj += active_mw * max(0, busy_ns)
        oracle_pj += active_mw * max(0, busy_ns)
    return {"model_pj": model_pj, "oracle_pj": oracle_pj, "periods": n, "above": above,
            "span_ns": dur_ns, "longest_ns": longest}


def unseen_ns(edges, span, ncpu):
    """Idle time in the span that no traced period covers, at most: the
    part of a period open when the trace started (to its exit) or still
    open at its end (from its entry), and the whole span of a CPU without
    a cpu_idle event.  edges: trace.IdlePeriods.edges()."""
    first, last = span
    tot = 0.0
    for cpu in range(ncpu):
        if cpu not in edges:
            tot += last - first
            continue
        lead, tail = edges[cpu]
        tot += (lead - first if lead is not None else 0) + (last - tail if tail is not None else 0)
    return tot * 1e9


def oracle_tolerance_mw(model, ncpu, e, unseen, counters_ns, power_mw):
    """How far the window mismatch alone can put the oracle's power above
    the driver's measured power (mW), or None when the counters' window
    does not hold the trace's span (then the two do not compare).

    The oracle is at most the modelled energy, which charges each traced
    period as the driver does; the two sides still differ where one of
    them sees time the other does not, and there any CPU spends between
    the lowest state's power and active power (entry energies only add):
    - idle time in the span outside the traced periods (unseen_ns()),
      which the trace charges at active power;
    - a halt in progress when the counters are read first: the driver adds
      it only when it ends, so until then it counts as active time and the
      window's difference misses up to (active - lowest) power of it, on
      each CPU; it is taken to be no longer than the longest traced period;
    - the counters' window holds X ns more than the trace's span, spent at
      no less than the lowest power on each CPU, which lowers the window's
      average by at most (measured - ncpu * lowest) * X / (span + X)."""
    d = e["span_ns"]
    x = counters_ns - d
    if x < 0:
        return None
    active, low = model[0]["power_mw"], min(s["power_mw"] for s in model)
    mismatch = unseen + ncpu * e["longest_ns"]
    return ((active - low) * mismatch + max(0.0, power_mw - ncpu * low) * x) / d


def run_energy(periods, span, model, ncpu, edges=None, counters_ns=None, power_mw=None,
               oracle=min_energy_state):
    """One run's trace energy metrics: model_power_mw, oracle_power_mw,
    model_energy_mj, oracle_energy_mj, trace_span_s, trace_periods,
    oracle_above_periods (periods where the oracle's state cost more than
    the entered one: 0 unless the oracle is wrong); with the driver's
    measured power_mw and its counters' window counters_ns also
    model_measured_ratio and, given the trace's edges
    (trace.IdlePeriods.edges()), oracle_tolerance_mw (None: the windows do
    not nest).  oracle(model, halted_ns) -> state: min_energy_state, or
    another rule to show that check() catches it."""
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
        if counters_ns is not None and edges is not None:
            m["oracle_tolerance_mw"] = oracle_tolerance_mw(
                model, ncpu, e, unseen_ns(edges, span, ncpu), counters_ns, power_mw)
    return m


def trace_metrics(text, src, model, ncpu, counters_ns=None, power_mw=None,
                  oracle=min_energy_state):
    """run_energy() of a tracefs text's idle periods (power:cpu_idle)."""
    idle, _sel, span = trace.idle_periods(text, src)
    return run_energy(idle.periods, span, model, ncpu, idle.edges(), counters_ns,
                      power_mw, oracle)


def check(m):
    """The oracle's bounds on one run's metrics (run_energy()'s and the
    measured power_mw): [what fails], empty when they hold; None when the
    run has no oracle.  In every period the oracle's state costs at most
    the entered one, and so its energy is at most the modelled energy of
    the same periods, exactly (both sums are made term by term in one
    order); its power is at most the measured power plus
    oracle_tolerance_mw, the window mismatch's share."""
    o, e = m.get("oracle_energy_mj"), m.get("model_energy_mj")
    if o is None or e is None:
        return None
    bad = []
    if m.get("oracle_above_periods"):
        bad.append(f"oracle above the kernel's own state in {m['oracle_above_periods']} "
                   f"of {m.get('trace_periods')} periods")
    if o > e:
        bad.append(f"oracle {o:.6g} mJ > {e:.6g} mJ of the kernel's own states "
                   "on the same periods")
    p = m.get("power_mw")
    if p is not None:
        tol = m.get("oracle_tolerance_mw")
        if tol is None:
            bad.append(f"oracle {m['oracle_power_mw']:.4g} mW not comparable with the "
                       f"measured {p:.4g} mW: the counters' window does not hold the "
                       "trace's span")
        elif m["oracle_power_mw"] > p + tol:
            bad.append(f"oracle {m['oracle_power_mw']:.4g} mW > measured {p:.4g} mW "
                       f"+ {tol:.3g} mW window tolerance")
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
