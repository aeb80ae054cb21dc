"""docs/results.md and docs/plots/*.png from a bench run's cells.

Every number in the report comes from a parsed run (cells/*/parsed.json);
a configuration without runs shows as "not run", a failed cell is listed
with its console log.  tables.py, plots.py and prose.py write the parts;
this module groups the runs and puts the document together."""
import os

from .. import cells, cost, parse, series
from ..cells import atomic_write, read_json
from . import oracle, plots, prose, sources, tables
from .tables import CONFIGS


def load(bench, workloads, costs=None, loads=None):
    """runs {(workload, vcpus): {config: [metrics]}}, failed cells' metas;
    the cost stage's summaries go to costs {config: {workload: [summary of
    each boot]}} when given, the cost-load stage's to loads in the same
    form (each summary with its window_s, irqs_per_s and seed), where
    every configuration with a cost-load cell, failed or not, has a key.
    A workload run in another timing mode than its own is its own group
    (NAME@MODE): runs of different modes are never pooled."""
    runs, failed = {}, []
    for d, meta, p in cells.load(bench):
        if meta.get("mode") == "costload" and loads is not None:
            loads.setdefault(meta["config"], {})
        if p is None:
            failed.append(meta)
            continue
        if meta["mode"] == "costload":
            if loads is not None:
                # the probe's files again, as for the cost stage; a
                # workload without a usable one is left out (and listed
                # under Failed workloads when the boot marked it)
                wins = meta.get("workloads") or {}
                k, _bad = cost.load_each(os.path.join(d, "results"), list(wins))
                for w, x in k.items():
                    x = dict(x, window_s=wins[w], irqs_per_s=x["irqs"] / wins[w],
                             seed=meta["seed"])
                    loads[meta["config"]].setdefault(w, []).append(x)
            continue
        if meta["mode"] == "cost":
            if costs is not None:
                # the probe's files are the source of truth: summarize them
                # again, so a newer cost.py applies to old cells too (a
                # cost cell passed only with them read)
                k = cost.load_cell(os.path.join(d, "results"))
                for w, x in k.items():
                    costs.setdefault(meta["config"], {}).setdefault(w, []).append(x)
            continue
        for w, m in p["runs"].items():
            # the counters check of the report's code, from the raw files
            cpus = oracle.counters(os.path.join(d, "results", w), p.get("model"))
            if cpus is not None:
                m["counters"] = cpus
            if "ended_by" not in m:
                # a run parsed before parse_run() kept it: from its trace
                e = parse.run_enders(os.path.join(d, "results", w))
                if e is not None:
                    m["ended_by"] = e
            own = workloads[w].timing if w in workloads else meta["mode"]
            if meta["mode"] != own:
                w = f"{w}@{meta['mode']}"
            m["_info"] = p["info"]
            m["_meta"] = meta
            runs.setdefault((w, meta["vcpus"]), {}).setdefault(meta["config"], []).append(m)
    return runs, failed


def load_only(bench):
    """bench holds cells and every one is of the cost-load stage (a run of
    bench.py --cost-load): its report is the cost-load section alone, into
    the run's own report/results.md, never docs/results.md."""
    modes = {meta.get("mode") for _d, meta in cells.files(bench, "meta.json")}
    return modes == {"costload"}


def failure_lines(bench, failed):
    """The "Failed boots" and "Failed workloads" sections (empty when none)."""
    L = []
    if failed:
        L.append("## Failed boots\n")
        for m in failed:
            L.append(f"- {m['cell']}: {m['verdict']} (log: `{m['console']}`)")
        L.append("")
    # a boot keeps its other workloads when one fails (idlebench/cells.py)
    wfailed = cells.failed_workloads(bench)
    if wfailed:
        L.append("## Failed workloads\n")
        for cell, w, why, log in wfailed:
            L.append(f"- {cell} {w}: {why} (log: `{log}`)")
        L.append("")
    return L


def kernels(bench, series_dir):
    """(series.kernels() of every finished cell of bench, the checkout's
    ids: series.ids() of series_dir)."""
    checkout = series.ids(series_dir)
    return series.kernels(list(cells.files(bench, "meta.json")), checkout), checkout


def build_load(bench, out, workloads, loads, failed, series_dir=series.SERIES):
    """The report of a run of the cost-load stage alone."""
    ks, checkout = kernels(bench, series_dir)
    L = prose.load_header(bench, read_json(os.path.join(bench, "last-run.json")) or {},
                          ks, checkout)
    L.extend(tables.load_section(loads, workloads))
    L.extend(failure_lines(bench, failed))
    L.append("- Selection cost: " + prose.COST_CAVEAT + "\n")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    atomic_write(out, "\n".join(L) + "\n")
    print(f"report: {out}")


def build(bench, out, noise_dir, workloads, series_dir=series.SERIES):
    """Write the report of bench to out (plots next to it in plots/, or
    plots-7.3/ for results-7.3.md);
    returns how many oracle violations (report/oracle.py) and stray
    interrupt sources (report/sources.py) it lists, 0 for a cost-load run.
    series_dir: the checkout's series/, against which the kernels' series
    ids are told (idlebench/series.py)."""
    costs, loads = {}, {}
    runs, failed = load(bench, workloads, costs, loads)
    if load_only(bench):
        build_load(bench, out, workloads, loads, failed, series_dir)
        return 0
    ks, checkout = kernels(bench, series_dir)
    cost_lines, cost_verdict = tables.cost_section(costs)
    # results.md's plots in plots/, results-7.3.md's in plots-7.3/
    stem = os.path.splitext(os.path.basename(out))[0]
    pname = "plots" + (stem[len("results"):] if stem.startswith("results-") else "")
    pdir = os.path.join(os.path.dirname(os.path.abspath(out)), pname)
    os.makedirs(pdir, exist_ok=True)
    made = []
    last = read_json(os.path.join(bench, "last-run.json")) or {}
    skipped = read_json(os.path.join(bench, "skipped.json")) or []
    order = list(workloads) + sorted({k[0] for k in runs if k[0] not in workloads})
    works = [w for w in order if any(k[0] == w for k in runs)]
    vcpus = sorted({k[1] for k in runs})
    L = prose.header(runs, works, vcpus, CONFIGS, bench, last, skipped, ks, checkout)
    L.append("")
    L.extend(tables.noise_section(noise_dir))
    L.append(prose.METHOD)
    L.append(prose.TICK_NOTE)
    # a kernel not built from the checkout's series/ (or of unknown
    # series) is said in the headline's first line, which the cover
    # letter quotes (scripts/export-series.sh)
    L.extend(tables.headline(runs, works,
                             lambda w: w in workloads and workloads[w].device,
                             series.warning(ks, checkout),
                             lambda w: w in workloads and bool(workloads[w].recording)))
    L.append(f"- {cost_verdict or 'selection cost per idle entry, all-in: no verdict (needs the cost boots of sched and teo)'}"
             " (details in \"Selection cost per idle entry\").\n")
    oracle_lines, violations = oracle.section(runs)
    L.extend(oracle_lines)
    source_lines, strays = sources.section(runs, workloads)
    L.extend(source_lines)
    L.extend(failure_lines(bench, failed))
    losses, noise = [], {}
    for w in works:
        for v in vcpus:
            g = runs.get((w, v))
            if not g:
                continue
            L.extend(tables.workload_tables(g, w, v, losses, noise))
            png = plots.plot_cdf(g, w, v, pdir, made)
            if png:
                L.append(f"\n![latency CDF {w} {v} vCPU]({pname}/{os.path.basename(png)})")
            L.append("")
    L.append("## Plots per vCPU count\n")
    for v in vcpus:
        for png in plots.per_vcpu(runs, v, works, pdir, made):
            L.append(f"![{os.path.basename(png)}]({pname}/{os.path.basename(png)})")
        L.append("")
    L.extend(prose.caveats(bench))
    L.extend(cost_lines)
    if loads:
        # only a run that holds cost-load cells has the section
        L.extend(tables.load_section(loads, workloads))
    L.extend(tables.cv_goal_section(runs, works,
                                    lambda w: w in workloads and workloads[w].device))
    L.extend(prose.conclusions(noise, losses, runs, skipped, bench))
    atomic_write(out, "\n".join(L) + "\n")
    print(f"report: {out} ({len(made)} plots in {pdir})")
    return len(violations) + strays
