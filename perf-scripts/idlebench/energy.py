"""The energy model of the emulated idle driver (cpuidle_emu, series
patch 2) and the oracle, in one place.

The driver charges (emu_idle_entry_energy_pj(), emu_idle_active_energy_pj()):
  a halting entry into state s:  halted_ns * power_mw(s)
                                 + exit_ns * active_mw + entry_uj(s) * 1e6  [pJ]
  running or polling:            active_ns * active_mw                      [pJ]
and reports the per-CPU totals in debugfs cpuidle_emu/stats (energy_nj,
elapsed_ns), from which measured_power_mw() takes the window's power.

The oracle knows each real idle period (power:cpu_idle entry to exit) and
puts it in the deepest state whose target residency fits (as
sched_idle_select_state() does for a known duration), charged with the
same formula: the period at the state's power, the state's exit latency at
active power, its entry energy; outside idle periods, active power.  This
is the driver's emu_idle_entry_energy_pj() (drivers/cpuidle/
cpuidle-emu-model.c, which idle-loop/states.c compiles) to the term, so
"oracle" means the same in the replay and in docs/results.md.  The traced
period ends after the chosen state's exit spin, so it is the halted time
plus that state's exit latency, in both places."""
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


def period_energy_pj(model, index, idle_ns):
    """The driver's energy of one idle period of idle_ns in state index
    (0 is polling: active power, no exit, no entry energy)."""
    active_mw = model[0]["power_mw"]
    if index == 0:
        return idle_ns * active_mw
    s = model[index]
    return idle_ns * s["power_mw"] + s["exit_us"] * 1e3 * active_mw + s["entry_uj"] * 1e6


def oracle_state(model, idle_us):
    """The deepest state whose target residency fits idle_us."""
    best = 0
    for i, s in enumerate(model):
        if s["residency_us"] <= idle_us:
            best = i
    return best


def oracle_power_mw(periods, span, model, ncpu):
    """Average power (mW, summed over CPUs) of the oracle over the traced
    span: periods {cpu: [(t_enter_s, t_exit_s, state)]}, span (first, last)."""
    first, last = span
    if first is None or last is None or last <= first:
        return None
    dur_ns = (last - first) * 1e9
    active_mw = model[0]["power_mw"]
    total_pj = 0.0
    for cpu in range(ncpu):
        idle_ns = 0.0
        for t0, t1, _chosen in periods.get(cpu, []):
            ns = (t1 - t0) * 1e9
            total_pj += period_energy_pj(model, oracle_state(model, ns / 1e3), ns)
            idle_ns += ns
        total_pj += active_mw * max(0.0, dur_ns - idle_ns)
    return total_pj / dur_ns  # pJ / ns = mW


def measured_power(before, after):
    """(energy_mj, power_mw) of a window from the driver's own counters
    (cpuidle_emu/stats before and after: {cpu: {energy_nj, elapsed_ns}});
    power is the CPUs' summed energy over the mean elapsed time."""
    de = sum(after[c]["energy_nj"] - before[c]["energy_nj"] for c in after)
    dt = sum(after[c]["elapsed_ns"] - before[c]["elapsed_ns"] for c in after) / len(after)
    return de / 1e6, (de / dt * 1e3 if dt > 0 else None)
