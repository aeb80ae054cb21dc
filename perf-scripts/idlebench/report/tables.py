"""The report's tables: per workload and vCPU count, the headline against
the targets, the selection cost, the noise comparison."""
import math
import os

from .. import cells, cost, parse, stats, trace
from ..configs import CONFIGS as ALL_CONFIGS, REPORTED_CONFIGS
from . import prose

CONFIGS = REPORTED_CONFIGS
# (key, label, lower is better)
METRICS = [
    ("ct_avg_us", "cyclictest avg (us)"),
    ("ct_p99_us", "cyclictest p99 (us)"),
    ("ct_max_us", "cyclictest max (us)"),
    ("ps_avg_us", "perf sched delay avg (us)"),
    ("ps_p99_us", "perf sched delay p99 (us)"),
    ("ps_max_us", "perf sched delay max (us)"),
    ("miss_rate", "mispredicted (above+below)/usage"),
    ("miss_above", "  too deep (above)/usage"),
    ("miss_below", "  too shallow (below)/usage"),
    ("power_mw", "modelled power (mW, all CPUs)"),
    # the same charged from the trace: where it parts from power_mw, the
    # trace misses idle time or the formula is not the driver's
    ("model_power_mw", "  same, from the trace's idle periods (mW)"),
    ("oracle_power_mw", "oracle power (mW, all CPUs)"),
    ("idle_entries", "idle entries"),
    # dev* workloads: the HPET generator's handler lateness (wakeup latency
    # of a device interrupt, idle exit latency included)
    ("dev_lat_p50_us", "device irq lateness p50 (us)"),
    ("dev_lat_p99_us", "device irq lateness p99 (us)"),
    ("dev_lat_max_us", "device irq lateness max (us)"),
    ("dev_late_rearms", "device irq late re-arms"),
]
HEADLINE = ["ct_p99_us", "ps_p99_us", "miss_rate", "power_mw"]
# the ratio columns of the per-workload tables: (numerator, denominator)
RATIOS = [("sched", "menu"), ("sched", "teo"), ("teo", "menu"),
          ("sched", "sched-nolearn"), ("sched", "sched-rfc")]
ALPHA = 0.05


def fmt(x, key=""):
    if x is None:
        return "n/a"
    if key.startswith("miss"):
        return f"{100 * x:.1f}%"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"


def cell_text(s, key):
    if s is None:
        return "not run"
    ci = f" ±{fmt(s['ci95'], key)}" if s["ci95"] is not None else ""
    cv = f" (cv {100 * s['cv']:.0f}%)" if s["cv"] is not None else ""
    return f"{fmt(s['mean'], key)}{ci}{cv} n={s['n']}"


def compare(a, b):
    """ratio mean(a)/mean(b) and a mark: '*' Welch p < 0.05, '†' CIs disjoint."""
    if not a or not b:
        return "–", None
    ma, mb = stats.mean(a), stats.mean(b)
    ratio = ma / mb if mb else None
    mark = ""
    w = stats.welch(a, b)
    if w is not None and w[2] < ALPHA:
        mark += "*"
    ca, cb = stats.ci95(a), stats.ci95(b)
    if ca is not None and cb is not None and (ma + ca < mb - cb or mb + cb < ma - ca):
        mark += "†"
    r = f"{ratio:.2f}" if ratio is not None else "n/a"
    return f"{r}{mark}", (ratio, mark, w)


def values(group, cfg, key):
    return [m.get(key) for m in group.get(cfg, []) if m.get(key) is not None]


# The targets on device-interrupt workloads, 2 vCPUs: (metric, its name,
# the limit on sched's mean over the better governor's).  On the other
# workloads the limit is 1.0: no worse than either governor.
TARGETS = [("miss_rate", "misprediction", 0.7), ("power_mw", "power", 1.0),
           ("ct_p99_us", "cyclictest p99", 1.05), ("ps_p99_us", "perf sched p99", 1.05),
           ("dev_lat_p99_us", "generator lateness p99", 1.05)]
# sched's modelled power over the oracle's, same runs
ORACLE_TARGET = 1.10


def target_prose():
    """The targets of TARGETS in words, for the headline."""
    parts = [f"{name} <= {limit:g}x" for _key, name, limit in TARGETS]
    parts.insert(2, f"power within {ORACLE_TARGET:.2f}x of the oracle (both charged "
                    "from the trace's idle periods)")
    return ", ".join(parts)


def headline(runs, works, device, warning=None, recording=None):
    """The summary table: sched against the better of menu and teo on 2
    vCPUs, per workload, with the targets marked met or missed.
    device(w): whether workload w is driven by a device (Workload.device).
    warning: the section's first line when given (series.warning(): a
    kernel that is not the checkout's series/).  recording(w): whether w
    replays a real recording (Workload.recording); their ratios are also
    summed up in a row "real recordings" (recordings_row)."""
    L = ["## Headline (2 vCPUs)\n"] + ([warning] if warning else []) + [
         "sched's mean divided by the better (lower) mean of menu and teo; `ok` "
         f"where the target holds ({target_prose()} on "
         "device-interrupt workloads; no worse than either on the others), `MISS` "
         "where it does not. `*` after a ratio: sched differs from that better "
         "governor by Welch's t-test (p < 0.05) over the repeats; a `MISS` without it "
         "is within the repeats' spread, not a shown loss. Full significance marks "
         "are in the per-workload tables below.\n",
         "| workload | misprediction | power | power / oracle | cyclictest p99 | "
         "perf sched p99 | device irq lateness p99 |", "|---|---|---|---|---|---|---|"]
    real = {}      # {metric key, or "oracle": [ratio per real recording]}
    for w in works:
        g = runs.get((w, 2))
        if not g or not g.get("sched"):
            continue
        is_device = device(w.split("@")[0])
        row = []
        for key, _name, limit in TARGETS:
            ours = values(g, "sched", key)
            others = [(stats.mean(values(g, c, key)), values(g, c, key))
                      for c in ("menu", "teo") if values(g, c, key)]
            if not ours or not others:
                row.append("n/a")
                continue
            best, best_vals = min(others, key=lambda o: o[0])
            lim = limit if is_device else 1.0
            if best == 0:
                ratio = 1.0 if stats.mean(ours) == 0 else float("inf")
            else:
                ratio = stats.mean(ours) / best
            sig = "*" if "*" in compare(ours, best_vals)[1][1] else ""
            row.append(f"{ratio:.2f}{sig} {'ok' if ratio <= lim else 'MISS'}")
            if recording and recording(w.split("@")[0]):
                real.setdefault(key, []).append(ratio)
            if key == "power_mw":
                # the trace's own charge over the oracle's, on the same idle
                # periods and span: the measured power also holds the
                # window's edges (the snapshots), which the trace does not
                mod = values(g, "sched", "model_power_mw")
                orc = values(g, "sched", "oracle_power_mw")
                if mod and orc and stats.mean(orc):
                    r = stats.mean(mod) / stats.mean(orc)
                    row.append(f"{r:.2f} {'ok' if r <= ORACLE_TARGET else 'MISS'}")
                    if recording and recording(w.split("@")[0]):
                        real.setdefault("oracle", []).append(r)
                else:
                    row.append("n/a")
        L.append(f"| {w} | " + " | ".join(row) + " |")
    if real:
        L.extend(recordings_row(real))
    L.append("")
    return L


def recordings_row(real):
    """The headline's row "real recordings": per metric, the geometric mean
    of sched's ratio over the real recordings that have one (the device
    targets; the plain mean when a ratio is 0 or infinite), then a line that
    says how many recordings each mean is over and the worst one."""
    cells, worst = [], []
    for key, name, limit in TARGETS + [("oracle", "power / oracle", ORACLE_TARGET)]:
        rs = real.get(key, [])
        if not rs:
            cells.append((key, "n/a"))
            continue
        if all(0 < r < math.inf for r in rs):
            g = math.exp(sum(math.log(r) for r in rs) / len(rs))
        else:       # a 0 or an infinite ratio has no logarithm
            g = stats.mean(rs)
        cells.append((key, f"{g:.2f} {'ok' if g <= limit else 'MISS'}"))
        worst.append(f"{name} {max(rs):.2f}x ({len(rs)})")
    order = [k for k, _n, _l in TARGETS]
    order.insert(2, "oracle")
    text = dict(cells)
    n = max(len(v) for v in real.values())
    return [f"| **real recordings** ({n}, geometric mean) | "
            + " | ".join(text[k] for k in order) + " |",
            "",
            "Real recordings (perf-scripts/recordings/, a machine recorded while a "
            "user's load ran, its device interrupts replayed arrival by arrival): the "
            "row above is the geometric mean of sched's ratio over them, held to the "
            "device targets; the worst single recording per metric (and how many "
            "recordings had it): " + ", ".join(worst) + "."]



def fmt_ns(x):
    return "n/a" if x is None else f"{x:.0f}"


# the configurations of the stock kernel: no stamp in the interrupt path
STOCK = {n for n, c in ALL_CONFIGS.items() if c.kernel == ALL_CONFIGS["menu"].kernel}


def stock_floor(costs, w):
    """The stock kernel's span around its empty stamp on workload w (6.12:
    record_irq_time(), compiled in but off): the mean of menu's and teo's
    pooled stamp per interrupt (costs {config: {workload: pooled
    summary}}); 0 when their boots counted no such span at all (7.3's stock
    kernel has no stamp in its interrupt path, so nothing to subtract);
    None when neither was measured."""
    st = [costs[g][w]["irq_ns"] for g in ("menu", "teo")
          if w in costs.get(g, {}) and costs[g][w]["irq_ns"] is not None]
    if st:
        return sum(st) / len(st)
    if any(w in costs.get(g, {}) and not costs[g][w]["irqs"] for g in ("menu", "teo")):
        return 0.0
    return None


def _range(k, key):
    rng = k[key]
    return f" ({rng[0]:.0f}-{rng[1]:.0f})" if rng and k["n"] > 1 else ""


def cost_section(costs):
    """costs {config: {workload: [cost.summarize() summary of each boot]}}
    -> (lines, the target's verdict or None).  A configuration's boots
    (one per seed) are pooled: means, and the per-entry range.  The
    target is held on the all-in figure (cost.all_in(): select + reflect
    per idle entry plus the stamp's added cost per interrupt times
    interrupts per idle entry), which the stock kernel's equals its per
    idle entry one."""
    L = ["## Selection cost per idle entry and cost per interrupt\n", prose.COST_NOTE + "\n"]
    stock = {c: {w: cost.pool(ks) for w, ks in ws.items() if ks}
             for c, ws in costs.items() if c in STOCK}
    costs = {c: {w: cost.pool(ks, cost.NO_STAMP if c in STOCK else stock_floor(stock, w))
                 for w, ks in ws.items() if ks} for c, ws in costs.items()}
    if not costs:
        L.append("- not run (bench.py --no-cost, or the cost boots failed: see Failed boots)\n")
        return L, None
    cfgs = [c for c in CONFIGS if c in costs]
    L.append("Instructions (ns under `-icount shift=0`), the probe's empty bracket "
             "subtracted from every span; mean over the boots (one per seed), the range "
             "over the boots in brackets. All-in per idle entry: each boot's per idle "
             "entry plus its stamp per interrupt less the stock kernel's span (the mean "
             "of menu's and teo's on the workload) times its interrupts over its idle "
             "entries; the stock kernel has no stamp, so its all-in figure is its per "
             "idle entry one:\n")
    L.append("| workload | configuration | boots | idle entries | select | reflect "
             "| per idle entry | vs menu | vs teo | interrupts "
             "| stamp per interrupt | all-in per idle entry | all-in vs teo | empty bracket |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    for w in cost.COST_WORKLOADS:
        ref = {c: costs.get(c, {}).get(w, {}).get("per_entry_ns") for c in ("menu", "teo")}
        teo_all = costs.get("teo", {}).get(w, {}).get("all_in_ns")
        for c in cfgs:
            k = costs[c].get(w)
            if not k:
                continue
            x, ai = k["per_entry_ns"], k["all_in_ns"]
            rs = [f"{x / ref[g]:.2f}" if x is not None and ref[g] else "n/a"
                  for g in ("menu", "teo")]
            ra = f"{ai / teo_all:.2f}" if ai is not None and teo_all else "n/a"
            L.append(f"| {w} | {c} | {k['n']} | {k['entries']:.0f} | {fmt_ns(k['select_ns'])} | "
                     f"{fmt_ns(k['reflect_ns'])} | {fmt_ns(x)}{_range(k, 'per_entry_range')} | "
                     f"{rs[0]} | {rs[1]} | {k['irqs']:.0f} | {fmt_ns(k['irq_ns'])} | "
                     f"{fmt_ns(ai)}{_range(k, 'all_in_range')} | {ra} | "
                     f"{k['empty_ns']:.0f} (min {k['empty_min_ns']}) |")
        # the bar is teo, the cheaper of the two governors
        ours, bar = costs.get("sched", {}).get(w), costs.get("teo", {}).get(w)
        if ours and bar and bar["all_in_ns"]:
            verdicts.append((w, ours, bar))
    verdict = None
    if verdicts:
        parts, met = [], True
        for w, ours, bar in verdicts:
            x, m = ours["all_in_ns"], bar["all_in_ns"]
            old = (f"select + reflect alone {ours['per_entry_ns']:.0f} vs "
                   f"{bar['per_entry_ns']:.0f}, {ours['per_entry_ns'] / bar['per_entry_ns']:.2f}x"
                   if ours["per_entry_ns"] is not None and bar["per_entry_ns"] else
                   "select + reflect alone n/a")
            if x is None:
                # no stock span to subtract the stamp from
                met = False
                parts.append(f"{w} no all-in figure (no stamp span of the stock kernel); "
                             f"{old}")
                continue
            # met when the mean is below; apart when the two ranges of
            # boots do not meet, in either direction
            lo, hi = ours["all_in_range"], bar["all_in_range"]
            apart = lo[1] < hi[0] or hi[1] < lo[0]
            met = met and x <= m
            parts.append(f"{w} {x:.0f} vs {m:.0f} ns ({x / m:.2f}x, "
                         f"{'ranges apart' if apart else 'ranges overlap'}, "
                         f"{min(ours['n'], bar['n'])} boots each; {old})")
        verdict = ("selection cost per idle entry, all-in (select + reflect, and the stamp "
                   "per interrupt spread over the idle entries), sched vs teo: "
                   + "; ".join(parts)
                   + f": target 'at or below teo's', on the all-in figure, "
                     f"{'met' if met else 'MISSED'}")
        L.append(f"\nTarget: {verdict}.")
    # per interrupt: the stock kernel has no stamp (6.12's record_irq_time()
    # is empty without CONFIG_IRQ_TIMINGS; 7.3 has none), so its span, if
    # any, is the noise floor
    added = []
    for w in cost.COST_WORKLOADS:
        floor = stock_floor(stock, w)
        o = costs.get("sched", {}).get(w, {}).get("irq_ns")
        if floor is not None and o is not None:
            added.append(f"{w} {o - floor:+.0f}")
    if added:
        L.append("\nAdded per interrupt (sched's stamp minus the stock kernel's empty "
                 "span, mean of menu's and teo's boots): " + ", ".join(added)
                 + " instructions (target: at most 60).")
    L.append("\n- " + prose.COST_CAVEAT + "\n")
    return L, verdict


# what each sweep of cost.LOAD_SWEEPS varies, from the workload's table
# entry, and how its growth is stated: (axis, unit of the growth)
LOAD_AXES = {"sources": (lambda wl: len(wl.gen), "per added source"),
             "rate": (lambda wl: wl.gen_rate / 1000 if wl.gen_rate else None,
                      "per 1,000 interrupts/s more")}


def _span(name, xs, unit):
    """"LO (W) to HI (W) UNIT, largest over smallest R: flat within N% met"
    of xs {workload: figure}; None when the smallest is not above 0."""
    lo, hi = min(xs, key=xs.get), max(xs, key=xs.get)
    if xs[lo] <= 0:
        return None, None
    r = xs[hi] / xs[lo]
    ok = r <= cost.LOAD_FLAT
    return (f"{name} {xs[lo]:.0f} ({lo}) to {xs[hi]:.0f} ({hi}){unit}, largest over "
            f"smallest {r:.2f}: flat within {100 * (cost.LOAD_FLAT - 1):.0f}% "
            f"{'met' if ok else 'MISSED'}"), ok


def load_verdict(sweep, ws, ours, table):
    """One line on sched's figures across the workloads ws of a sweep
    (ours {workload: pooled summary}): its per idle entry cost, largest over
    smallest against cost.LOAD_FLAT, the growth from the sweep's first workload
    to its last per step of its axis, and the same for the stamp per
    interrupt.  A workload sched lacks gives no verdict, and says so."""
    head = f"{sweep} sweep ({', '.join(ws)})"
    entry = {w: ours.get(w, {}).get("per_entry_ns") for w in ws}
    lacking = [w for w in ws if entry[w] is None]
    if lacking:
        have = ", ".join(f"{w} {x:.0f}" for w, x in entry.items() if x is not None)
        return (f"{head}: no verdict: {', '.join(lacking)} not measured for sched"
                + (f" (measured per idle entry: {have})" if have else ""))
    text, _ok = _span("sched per idle entry", entry, " instructions")
    if text is None:
        return f"{head}: no verdict: a per idle entry cost of sched is not above 0"
    axis, unit = LOAD_AXES.get(sweep, (None, None))
    first, last = ws[0], ws[-1]
    if axis and first in table and last in table:
        a, b = axis(table[first]), axis(table[last])
        if a is not None and b is not None and a != b:
            text += (f"; {(entry[last] - entry[first]) / (b - a):+.0f} instructions per "
                     f"idle entry {unit} from {first} to {last}")
    stamp = {w: ours[w].get("irq_ns") for w in ws}
    if any(x is None for x in stamp.values()):
        text += "; stamp per interrupt: not measured in every workload"
    else:
        st, _ = _span("stamp per interrupt", stamp, "")
        text += f"; {st}" if st else "; stamp per interrupt: not above 0"
    return f"{head}: {text}"


def load_section(loads, table):
    """loads {config: {workload: [cost summary of each boot, with
    irqs_per_s and seed]}} (report.load) -> the lines of "Selection cost
    versus load": one table, a row per workload of cost.LOAD_SWEEPS (then
    any other workload the stage ran), and a verdict per sweep
    (load_verdict).  table: the workloads' table entries (sources and
    interrupts/s)."""
    L = ["## Selection cost versus load\n", prose.LOAD_NOTE + "\n"]
    pooled = {c: {w: cost.pool(ks) for w, ks in ws.items() if ks} for c, ws in loads.items()}
    if not any(pooled.values()):
        L.append("- no figure: every cost-load boot failed (see Failed boots and "
                 "Failed workloads)\n")
        return L
    cols = list(cost.LOAD_CONFIGS)
    boots = []
    for c in cols + sorted(set(loads) - set(cols)):
        seeds = sorted({x["seed"] for ks in loads.get(c, {}).values() for x in ks})
        n = max((len(ks) for ks in loads.get(c, {}).values()), default=0)
        boots.append(f"{c} {n}" + (f" (seed {', '.join(map(str, seeds))})" if seeds else "")
                     + ("" if c in cols else ", not in the table"))
    L.append("Boots per configuration: " + "; ".join(boots) + ".\n")
    rows = [(sweep, w) for sweep, ws in cost.LOAD_SWEEPS for w in ws]
    rows += [("other", w) for w in sorted({w for ws in pooled.values() for w in ws}
                                          - set(cost.LOAD_WORKLOADS))]
    L.append("| sweep | workload | sources | interrupts/s (measured) | "
             + " | ".join(f"{c} per entry" for c in cols) + " | sched/teo per entry | "
             + " | ".join(f"{c} per irq" for c in cols) + " | sched - teo per irq |")
    L.append("|---|---|---|---|" + "---|" * (2 * len(cols) + 2))

    def per_entry(k):
        if not k or k["per_entry_ns"] is None:
            return "not run" if not k else "n/a"
        rng = k["per_entry_range"]
        return fmt_ns(k["per_entry_ns"]) + (f" ({rng[0]:.0f}-{rng[1]:.0f})"
                                            if rng and k["n"] > 1 else "")
    for sweep, w in rows:
        ks = {c: pooled.get(c, {}).get(w) for c in cols}
        wl = table.get(w)
        rate = wl.gen_rate if wl else None
        got = [x["irqs_per_s"] for c in loads for x in loads[c].get(w, [])]
        measured = f" ({sum(got) / len(got):.0f})" if got else " (not run)"
        s, t = ks.get("sched"), ks.get("teo")
        ratio = (f"{s['per_entry_ns'] / t['per_entry_ns']:.2f}"
                 if s and t and s["per_entry_ns"] is not None and t["per_entry_ns"] else "n/a")
        added = (f"{s['irq_ns'] - t['irq_ns']:+.0f}"
                 if s and t and s["irq_ns"] is not None and t["irq_ns"] is not None else "n/a")
        L.append(f"| {sweep} | {w} | {len(wl.gen) if wl else '?'} | "
                 f"{f'{rate:.0f}' if rate else '?'}{measured} | "
                 + " | ".join(per_entry(ks[c]) for c in cols) + f" | {ratio} | "
                 + " | ".join(("not run" if not ks[c] else fmt_ns(ks[c]["irq_ns"]))
                              for c in cols) + f" | {added} |")
    L.append("")
    ours = pooled.get("sched", {})
    for sweep, ws in cost.LOAD_SWEEPS:
        L.append(f"- {load_verdict(sweep, ws, ours, table)}.")
    L.append("")
    return L


def noise_section(noise_dir):
    """CV of the same metric over repeats, -icount against real time, from
    the short cells of a noise run (see perf-scripts/README.md)."""
    L = ["### Method: noise, -icount against real time\n"]
    if not noise_dir or not os.path.isdir(os.path.join(noise_dir, "cells")):
        L.append("- no noise run under build/bench-noise (see perf-scripts/README.md)\n")
        return L
    by = {}
    for _d, meta, p in cells.load(noise_dir):
        if p is None:
            continue
        mode = meta["mode"]
        for w, m in p["runs"].items():
            for key in ("miss_rate", "ct_p99_us", "power_mw", "ps_p99_us"):
                if m.get(key) is not None:
                    by.setdefault((w, key), {}).setdefault(mode, []).append(m[key])
    if not by:
        L.append("- the noise run has no parsed cells\n")
        return L
    L.append("Coefficient of variation (stdev/mean) of one configuration's metric over "
             "repeated boots, same workloads and windows, in both timing modes "
             "(`bench.py --configs menu --vcpus 2 --workloads idle,timer,rtc,block,ipi "
             "--repeats 3 --seconds 1 --no-cost --out build/bench-noise --timing icount`, "
             "then `--timing real`); cells read mean, cv (n):\n")
    L.append("| workload | metric | -icount | real time |")
    L.append("|---|---|---|---|")
    for (w, key), mm in sorted(by.items()):
        def cv(xs):
            s = stats.summary(xs)
            if not s or len(xs) < 2 or s["cv"] is None:
                return "n/a" + (f" ({len(xs)})" if xs else "")
            return f"{fmt(s['mean'], key)}, {100 * s['cv']:.0f}% ({s['n']})"
        L.append(f"| {w} | {key} | {cv(mm.get('icount', []))} | {cv(mm.get('real', []))} |")
    seeds = sorted({meta.get("seed") for _d, meta, p in cells.load(noise_dir)
                    if p is not None and meta.get("mode") == "icount"} - {None})
    L.append("")
    L.append("Where the spread comes from: an -icount boot with a given seed is exact "
             "(scripts/tests/determinism.sh in `make test`), so the -icount column is the "
             "workload's own variation between seeds "
             f"({', '.join(str(x) for x in seeds) or 'not recorded'}: the window's phase, "
             "the generator's arrivals); the real-time column adds QEMU's host-time jitter.\n")
    return L



def workload_tables(g, w, v, losses, noise):
    """The tables of one workload on one vCPU count: metrics per
    configuration with ratios, per-state deltas, interrupts, sched's
    counters.  Appends sched's significant losses to losses and each
    headline metric's cv to noise."""
    L = []
    L.append(f"## {w}, {v} vCPU\n")
    L.append("| metric | " + " | ".join(CONFIGS) + " | "
             + " | ".join(f"{a}/{b}" for a, b in RATIOS) + " |")
    L.append("|---|" + "---|" * (len(CONFIGS) + len(RATIOS)))
    for key, label in METRICS:
        row = [cell_text(stats.summary(values(g, c, key)), key)
                 if g.get(c) else "not run" for c in CONFIGS]
        if all(c in ("not run", None) for c in row):
            continue
        if all(not values(g, c, key) for c in CONFIGS):
            continue
        ratios = [compare(values(g, a, key), values(g, b, key)) for a, b in RATIOS]
        c1, c2 = ratios[0][1], ratios[1][1]
        L.append(f"| {label} | " + " | ".join(row) + " | "
                 + " | ".join(r for r, _ in ratios) + " |")
        for c in CONFIGS:
            s = stats.summary(values(g, c, key))
            if s and s["cv"] is not None and key in HEADLINE:
                noise.setdefault(key, []).append(s["cv"])
        if key in HEADLINE and key != "oracle_power_mw":
            for cmp_, other in ((c1, "menu"), (c2, "teo")):
                if cmp_ and cmp_[0] is not None and cmp_[0] > 1 and cmp_[1]:
                    losses.append(f"{w}, {v} vCPU: {label} {cmp_[0]:.2f}x {other} ({cmp_[1]})")
    # states and interrupts
    L.append("")
    L.append("Per-state deltas (mean per run: usage / residency ms / above / below):\n")
    names = []
    for c in CONFIGS:
        for m in g.get(c, []):
            for n in m["states"]:
                if n not in names:
                    names.append(n)
    L.append("| state | " + " | ".join(CONFIGS) + " |")
    L.append("|---|" + "---|" * len(CONFIGS))
    for n in names:
        row = []
        for c in CONFIGS:
            ms = g.get(c)
            if not ms:
                row.append("not run")
                continue
            f = {k: stats.mean([m["states"].get(n, {}).get(k, 0) for m in ms])
                 for k in ("usage", "time", "above", "below")}
            row.append(f"{f['usage']:.0f} / {f['time'] / 1000:.1f} / {f['above']:.0f} / {f['below']:.0f}")
        L.append(f"| {n} | " + " | ".join(row) + " |")
    L += ender_table(g, names)
    srcs = {}
    for c in CONFIGS:
        for m in g.get(c, []):
            for s, x in m["irqs"].items():
                srcs.setdefault(s, {}).setdefault(c, []).append(x)
    if srcs:
        L.append("\nInterrupts during the window (mean count per run):\n")
        L.append("| source | " + " | ".join(CONFIGS) + " |")
        L.append("|---|" + "---|" * len(CONFIGS))
        for s in sorted(srcs, key=lambda s: -max(stats.mean(x) for x in srcs[s].values())):
            L.append(f"| {s} | " + " | ".join(
                f"{stats.mean(srcs[s][c]):.0f}" if c in srcs[s] else
                ("0" if g.get(c) else "not run") for c in CONFIGS) + " |")
    si = [m for m in g.get("sched", []) if "sched_idle" in m]
    if si:
        # every key any run has (a kernel's stats may lack the newer ones),
        # each the mean over the runs that have it
        keys = []
        for m in si:
            keys += [k for k in m["sched_idle"] if k not in keys]
        L.append("\nsched idle path (debugfs deltas, mean per run): " + ", ".join(
            f"{k} {stats.mean([m['sched_idle'][k] for m in si if k in m['sched_idle']]):.0f}"
            for k in keys))
    tick = tick_line(g)
    if tick:
        L.append("\n" + tick)
    return L


def ender_table(g, names):
    """What ended each state's idle periods (parse: ended_by, from the
    trace), mean per run per configuration; [] when no run has it."""
    if not any("ended_by" in m for c in CONFIGS for m in g.get(c, [])):
        return []
    L = ["\nWhat ended the idle periods, per state (mean per run, from the trace: "
         + " / ".join(trace.ENDERS) + "; a task timer is a sleeper's hrtimer_wakeup, "
         "whose task the state's exit latency delays; untraced: an IPI or another "
         "wakeup with no event):\n",
         "| state | " + " | ".join(CONFIGS) + " |",
         "|---|" + "---|" * len(CONFIGS)]
    for n in names:
        row = []
        for c in CONFIGS:
            ms = [m for m in g.get(c, []) if "ended_by" in m]
            if not ms:
                row.append("not run" if not g.get(c) else "n/a")
                continue
            row.append(" / ".join(
                f"{stats.mean([m['ended_by'].get(n, {}).get(k, 0) for m in ms]):.0f}"
                for k in trace.ENDERS))
        L.append(f"| {n} | " + " | ".join(row) + " |")
    return L


def tick_line(g):
    """Tick stops and restarts per second of the window, per configuration
    of a workload's runs g: the patched kernel's sched_idle counters
    (parse.tick_rates); n/a for the stock kernel, which has no such
    counters.  None when no run has them."""
    parts, have = [], False
    for c in CONFIGS:
        ms = g.get(c)
        if not ms:
            continue
        if c in STOCK:
            parts.append(f"{c} n/a")
            continue
        rates = [dict(parse.tick_rates(m)) for m in ms]
        got = []
        for key, unit in (("tick_stops_per_s", "stops/s"),
                          ("tick_restarts_per_s", "restarts/s")):
            xs = [r[key] for r in rates if key in r]
            if xs:
                have = True
                got.append(f"{stats.mean(xs):.0f} {unit}"
                           + (f" (over {len(xs)} of {len(ms)} runs)" if len(xs) < len(ms) else ""))
        parts.append(f"{c} " + (", ".join(got) if got else "not counted (kernel without the "
                                                           "tick counters)"))
    if not have:
        return None
    return ("Tick stops and restarts per second of the window (sched_idle tick_stops and "
            "tick_restarts over the measured window, mean per run; n/a: the stock kernel, "
            "see \"Tick stops and restarts\" under the method): " + "; ".join(parts) + ".")


CV_GOAL = 0.05  # misprediction cv across repeats (seeds)


def cv_goal_section(runs, works, device):
    """The misprediction's spread over the repeats of each device cell
    under -icount (each repeat a different generator seed) against the
    goal, beside the spread that counting alone gives: for a rate p over
    n idle periods, a binomial count has cv sqrt((1 - p) / (n p)), so a
    rare outcome cannot reach the goal with a window this short, whatever
    the emulator does."""
    L = ["## Misprediction spread across seeds (goal: cv at most "
         f"{100 * CV_GOAL:.0f}%)\n",
         "Device workloads under -icount; a cell's repeats differ only in the seed. "
         "Counting floor: the cv a binomial count of the mean rate over the mean number "
         "of idle periods would have; a cell above it varies with the seed's arrivals "
         "(or the governor's state), not with counting alone.\n",
         "| workload | vCPUs | configuration | repeats | idle periods (mean) | mispredicted | "
         "cv | counting floor | goal |",
         "|---|---|---|---|---|---|---|---|---|"]
    met = total = 0
    for w in works:
        if not device(w):
            continue
        for (ww, v), g in sorted(runs.items(), key=lambda kv: kv[0][1]):
            if ww != w:
                continue
            for c in CONFIGS:
                ms = [m for m in g.get(c, []) if m["_meta"]["mode"] == "icount"]
                xs = [m["miss_rate"] for m in ms if m.get("miss_rate") is not None]
                ns = [m["idle_entries"] for m in ms if m.get("idle_entries")]
                if len(xs) < 2 or not ns:
                    continue
                p, n = stats.mean(xs), stats.mean(ns)
                cv = stats.cv(xs)
                floor = ((1 - p) / (n * p)) ** 0.5 if p > 0 else None
                ok = cv is not None and cv <= CV_GOAL
                met += ok
                total += 1
                L.append(f"| {w} | {v} | {c} | {len(xs)} | {n:.0f} | {100 * p:.1f}% | "
                         + (f"{100 * cv:.0f}%" if cv is not None else "n/a") + " | "
                         + (f"{100 * floor:.1f}%" if floor is not None else "n/a") + " | "
                         + ("met" if ok else "over") + " |")
    if not total:
        return []
    L.append(f"\n{met} of {total} cells within the goal.\n")
    return L
