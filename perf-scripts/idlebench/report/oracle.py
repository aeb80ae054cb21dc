"""The report's "Oracle violations" section: the oracle's two bounds
(energy.check()) on every run, and the runs parsed before the oracle was
the energy minimum brought up to date from their raw files first."""
import os
import statistics

from .. import energy, parse
from ..trace import ParseError

TEXT = (
    "Every run (one workload of one boot) with a trace and the driver's model is "
    "checked: the oracle's energy is at most that of the states the kernel entered, "
    "charged by the same formula on the same idle periods (exact; it holds by "
    "construction unless the minimum or the charge in energy.py is wrong, so it "
    "checks the code, not the model), and the oracle's "
    "power is at most the driver's measured power plus the share of the window "
    "mismatch (the trace's span is not the counters' window: idle time at the "
    "trace's edges, a halt in progress when the counters are first read and the "
    "counters' longer window, each at most active minus the lowest state's power; "
    "`oracle_tolerance_mw()` in perf-scripts/idlebench/energy.py; a loose bound: "
    "its largest tolerance is below, so it catches only a grossly wrong model). "
    "A violation means the oracle or the energy model is wrong, not that a governor "
    "beat it, and fails the run (bench.py and report.py exit 1 after writing the "
    "report). The oracle bounds its own configuration's runs only: it is computed on "
    "that configuration's wake times, which another configuration's choices move, so "
    "one configuration's power can be below another's oracle.\n")


def refresh(results, m, model, ncpu):
    """A run parsed before model_energy_mj existed holds under
    oracle_power_mw the deepest state whose target residency fits each
    period, which is not the minimum: its trace energy metrics are made
    again from its raw files (results: the run's directory), or that
    figure is dropped when they cannot be read.  True when made again."""
    if not model or "model_energy_mj" in m:
        return False
    m.pop("oracle_power_mw", None)
    tr = os.path.join(results, "trace.txt")
    eb, ea = os.path.join(results, "before.emu"), os.path.join(results, "after.emu")
    try:
        win = None
        if os.path.exists(eb) and os.path.exists(ea):
            win = energy.counters_window_ns(parse.parse_cpu_kv(parse._read(eb), eb),
                                            parse.parse_cpu_kv(parse._read(ea), ea))
        m.update(energy.trace_metrics(parse._read(tr), tr, model, ncpu, win,
                                      m.get("power_mw")))
    except ParseError:
        return False
    return True


def violations(runs):
    """[(cell, workload, metrics, what fails)] of every run of runs."""
    return section(runs)[1]


def section(runs):
    """runs {(workload, vcpus): {config: [metrics]}} -> (the section's
    lines: each violation with its run and values, or none; how many runs
    were checked, the largest tolerance and the trace-modelled power
    against the measured one; the violations)."""
    L = ["## Oracle violations\n", TEXT]
    bad, checked, unchecked, again, tols, ratios = [], 0, 0, 0, [], []
    for (w, v), g in sorted(runs.items()):
        for c, ms in sorted(g.items()):
            for m in ms:
                cell = m.get("_meta", {}).get("cell", f"{c}-{v}cpu")
                again += bool(m.get("_refreshed"))
                why = energy.check(m)
                if why is None:
                    unchecked += 1
                    continue
                checked += 1
                bad.extend((cell, w, m, x) for x in why)
                if m.get("oracle_tolerance_mw") is not None and m.get("power_mw"):
                    tols.append((m["oracle_tolerance_mw"], m["power_mw"], cell, w))
                if m.get("model_measured_ratio") is not None:
                    ratios.append((m["model_measured_ratio"], cell, w))

    def mw(x):
        return "n/a" if x is None else f"{x:.4g}"

    if bad:
        L.append(f"**{len(bad)} violation{'s' if len(bad) > 1 else ''} in {checked} "
                 "checked runs:**\n")
        L.append("| cell | workload | oracle mJ | kernel's states mJ | oracle mW | "
                 "measured mW | tolerance mW | what fails |")
        L.append("|---|---|---|---|---|---|---|---|")
        for cell, w, m, why in bad:
            L.append(f"| {cell} | {w} | {m['oracle_energy_mj']:.6g} | "
                     f"{m['model_energy_mj']:.6g} | {mw(m.get('oracle_power_mw'))} | "
                     f"{mw(m.get('power_mw'))} | {mw(m.get('oracle_tolerance_mw'))} | {why} |")
        L.append("")
    elif checked:
        L.append(f"- none: {checked} runs checked.")
    else:
        L.append("- no run could be checked: none has a trace with the driver's model.")
    if unchecked:
        L.append(f"- {unchecked} runs without a trace or the driver's model: not checked.")
    if again:
        L.append(f"- {again} runs parsed before this check: their oracle made again from "
                 "their raw files (trace.txt, before.emu, after.emu).")
    if tols:
        t, p, cell, w = max(tols, key=lambda x: x[0] / x[1])
        L.append(f"- Largest window tolerance: {t:.3g} mW, {100 * t / p:.1f}% of the "
                 f"measured {p:.4g} mW ({cell}, {w}).")
    if ratios:
        ratios.sort()
        lo, hi = ratios[0], ratios[-1]
        L.append("- Trace-modelled over measured power (the trace charges each period as "
                 "the driver does; far from 1, the trace misses idle time or the formula "
                 f"differs): median {statistics.median([r for r, _, _ in ratios]):.3f}, "
                 f"min {lo[0]:.3f} ({lo[1]}, {lo[2]}), max {hi[0]:.3f} ({hi[1]}, {hi[2]}), "
                 f"over {len(ratios)} runs.")
    L.append("")
    return L, bad
