"""The report's "Oracle violations" section: energy.check() on every run
(the model against the driver's counters, the oracle against the states
the kernel entered), the counters check made from each run's raw files
(counters())."""
import statistics

from .. import energy, parse
from ..trace import ParseError

TEXT = (
    "Every run (one workload of one boot) is checked two ways. The energy model: the "
    "driver's counters of the window (cpuidle_emu/stats before and after it: each "
    "state's entries and halted time, the exit spin, the active time), charged by "
    "perf-scripts/idlebench/energy.py's formula with the model the guest printed "
    "(cpuidle_emu/model), must give the energy the driver counted itself, to the nJ it "
    "prints, and the exit spin must be at least the model's exit latencies of the "
    "entries; a model or a formula other than the driver's fails here. A read of the "
    "counters torn by a halt that ended while it was printed (its fields do not add up "
    "to the elapsed time) is allowed that halt's time at active power and one entry's "
    "energy. The oracle: in every traced idle period the oracle's state costs at most "
    "the state the kernel entered, under "
    "the same formula on the same halted time; that holds by construction unless the "
    "minimum in energy.py is wrong, so it checks the code. A violation fails the run "
    "(bench.py and report.py exit 1 after writing the report). The oracle is the least "
    "energy any choice of states could have spent on its own run's traced idle periods: "
    "it bounds the trace's charge of that run, not the driver's measured power, whose "
    "window holds time the trace's span does not and which charges the exit spin past "
    "the latency at active power, nor another configuration's power, whose choices "
    "moved the wake times: one configuration's power can be below another's oracle.\n")


def counters(results, model):
    """The counters check of a run (energy.counters_check(), through
    parse.parse_emu()) made from its raw files, results/before.emu and
    after.emu, as the report makes it for every run: a run is judged by
    the check of the report's code, whenever it was parsed.  None
    without the files or the model."""
    if not model:
        return None
    try:
        return parse.parse_emu(results, model).get("counters")
    except ParseError:
        return None


def violations(runs):
    """[(cell, workload, metrics, what fails)] of every run of runs."""
    return section(runs)[1]


def counters_lines(cpus):
    """The section's lines on the counters check: over how many CPU windows,
    the largest difference of a read that is not torn, the torn reads, and
    the exit spin past the model's latencies per entry.  cpus: [(cell,
    workload, counters_check() entry)]."""
    whole = [(abs(c["measured_nj"] - c["model_nj"]), cell, w) for cell, w, c in cpus
             if "missing" not in c and not c["torn_ns"]]
    torn = [x for x in cpus if "missing" not in x[2] and x[2]["torn_ns"]]
    L = []
    if whole:
        d, cell, w = max(whole)
        where = "".join(f" ({cell}, {w}, cpu {c['cpu']})" for cell, w, c in torn)
        L.append(f"- The model on the driver's counters: {len(cpus)} CPU windows; "
                 f"largest difference from the driver's count {d:.2f} nJ ({cell}, {w}); "
                 f"{len(torn)} read{'s' if len(torn) != 1 else ''} torn by a halt{where}.")
    over = [((c["exit_ns"] - c["exit_min_ns"]) / c["entries"] / 1e3, cell, w)
            for cell, w, c in cpus if "missing" not in c and c["entries"]]
    if over:
        over.sort()
        hi = over[-1]
        L.append("- Exit spin past the model's exit latencies, per entry (the driver charges "
                 "it at active power, the trace's halted time at the state's power): median "
                 f"{statistics.median([x for x, _, _ in over]):.2f} us, max {hi[0]:.2f} us "
                 f"({hi[1]}, {hi[2]}).")
    return L


def summary_lines(unchecked, cpus, ratios):
    """The section's lines after the violations: how many runs were not
    checked, the counters check's figures and the trace-modelled power
    against the measured one."""
    L = []
    if unchecked:
        L.append(f"- {unchecked} runs without a trace or the driver's counters and model: "
                 "not checked.")
    L.extend(counters_lines(cpus))
    if ratios:
        ratios.sort()
        lo, hi = ratios[0], ratios[-1]
        L.append("- Trace-modelled over measured power (the trace's span is shorter than the "
                 "counters' window, and its halted time holds the exit spin past the latency): "
                 f"median {statistics.median([r for r, _, _ in ratios]):.3f}, "
                 f"min {lo[0]:.3f} ({lo[1]}, {lo[2]}), max {hi[0]:.3f} ({hi[1]}, {hi[2]}), "
                 f"over {len(ratios)} runs.")
    return L


def violation_lines(bad, checked):
    """The table of violations, or the line that there is none."""
    if not bad:
        return [f"- none: {checked} runs checked." if checked else
                "- no run could be checked: none has a trace or the driver's counters "
                "with its model."]

    def mj(x):
        return "n/a" if x is None else f"{x:.6g}"

    L = [f"**{len(bad)} violation{'s' if len(bad) > 1 else ''} in {checked} checked runs:**\n",
         "| cell | workload | oracle mJ | kernel's states mJ | what fails |",
         "|---|---|---|---|---|"]
    for cell, w, m, why in bad:
        L.append(f"| {cell} | {w} | {mj(m.get('oracle_energy_mj'))} | "
                 f"{mj(m.get('model_energy_mj'))} | {why} |")
    L.append("")
    return L


def section(runs):
    """runs {(workload, vcpus): {config: [metrics]}} -> (the section's
    lines: each violation with its run, or none; how many runs were
    checked, the counters check's figures and the trace-modelled power
    against the measured one; the violations)."""
    bad, checked, unchecked, cpus, ratios = [], 0, 0, [], []
    for (w, v), g in sorted(runs.items()):
        for c, ms in sorted(g.items()):
            for m in ms:
                cell = m.get("_meta", {}).get("cell", f"{c}-{v}cpu")
                why = energy.check(m)
                if why is None:
                    unchecked += 1
                    continue
                checked += 1
                bad.extend((cell, w, m, x) for x in why)
                cpus.extend((cell, w, x) for x in m.get("counters") or [])
                if m.get("model_measured_ratio") is not None:
                    ratios.append((m["model_measured_ratio"], cell, w))
    L = ["## Oracle violations\n", TEXT] + violation_lines(bad, checked)
    L.extend(summary_lines(unchecked, cpus, ratios))
    L.append("")
    return L, bad
