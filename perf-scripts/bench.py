#!/usr/bin/env python3
"""bench.py: the idle-governor benchmark matrix (what `make bench` runs).

Boots one guest per cell (configuration x vCPUs x repeat x timing mode),
runs that cell's workloads in sequence, parses each cell and writes
docs/results.md and docs/plots/.  The tables are perf-scripts/workloads.toml
and idlebench/configs.py; the work is in idlebench/ (perf-scripts/README.md).

  python3 perf-scripts/bench.py [--quick] [--configs menu,teo,sched]
        [--vcpus 1,2] [--repeats N | --seeds 1,1,2] [--workloads idle,timer,...]
        [--workload-file FILE] [--timing mixed|real|icount] [--shift N] [--jobs N]
        [--kernels DIR] [--out DIR | --resume [RUN]] [--no-cost | --cost-only | --cost-load]
        [--dry-run] [--no-report | --report-only]

Each run writes a directory of its own, build/bench/YYYY.MM.DD-HH.MM.SS
(UTC, -quick appended for --quick), and build/bench/latest points to the
newest.  --resume [RUN] continues a run (default latest) with the
arguments it was started with: a cell whose verdict is PASS and whose
numbers match what would run now is not run again; if some of its
workloads failed or are missing, a boot of only those runs and its
results merge into the cell.  --out DIR does the same in a directory of
your own.  Prints the planned boots and an estimated duration first,
then one progress line per boot (i/N, elapsed, ETA).

--cost-load runs the cost-load stage alone (`make bench-cost-load`): the
selection cost per idle entry and per interrupt of menu, teo and sched as
the interrupts on one CPU grow (idlebench/cost.py LOAD_SWEEPS), into a run
of its own, build/bench/YYYY.MM.DD-HH.MM.SS-costload, reported into that
run's report/results.md (docs/results.md stays the matrix's).
"""
import argparse
import dataclasses
import glob
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from idlebench import cells, cost, launch, plan, report, workloads  # noqa: E402
from idlebench.cells import atomic_write  # noqa: E402,F401 (scripts/tests/disk-full.sh)
from idlebench.configs import CONFIGS, DEFAULT_CONFIGS, VCPUS  # noqa: E402
from idlebench.workloads import TOP  # noqa: E402

from idlebench.linuxtree import BUILD, SHARED, RESULTS  # noqa: E402


def log(msg):
    print(f"bench: {msg}", flush=True)


def die(msg):
    print(f"bench: error: {msg}", file=sys.stderr)
    sys.exit(2)


def split_list(s, valid, what, conv=str):
    try:
        items = [conv(x) for x in s.split(",") if x]
    except ValueError:
        die(f"{what}s are numbers, not '{s}'")
    bad = [str(x) for x in items if valid is not None and x not in valid]
    if bad or not items:
        die(f"unknown {what} {', '.join(bad) or 'none'} (valid: {' '.join(map(str, valid))})")
    return items


def arguments(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help=f"2 repeats, {plan.QUICK_SECONDS} s windows, real time, menu teo sched "
                    "(fits 15 minutes)")
    ap.add_argument("--configs", help=f"default {','.join(DEFAULT_CONFIGS)} "
                    "(--quick: the configurations marked quick)")
    ap.add_argument("--vcpus", help="comma-separated vCPU counts, any of "
                    f"{','.join(map(str, VCPUS))} (default "
                    f"{','.join(map(str, plan.DEFAULT_VCPUS))}): each configuration runs on "
                    "those of them among its own (Config.vcpus, idlebench/configs.py), named "
                    "in --configs or not, and one with none of them is refused; given, the "
                    "matrix is shaped by hand, real-time cells on each count and repeat too "
                    f"(the full matrix without it: {','.join(map(str, plan.REAL_VCPUS))} vCPUs, "
                    f"{plan.REAL_REPEATS} repeats)")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--seeds", help="comma-separated seed of each repeat (default: the repeat "
                    "number); the same seed twice reruns a cell exactly under -icount")
    ap.add_argument("--workloads", help="comma-separated names (default: those marked "
                    "default, or every workload of --workload-file)")
    ap.add_argument("--workload-file", help="a TOML file of workloads in the form of "
                    "perf-scripts/workloads.toml (`make bench WORKLOADS=FILE`)")
    ap.add_argument("--seconds", type=int, help="every window, the cost stage's too "
                    "(instead of the workload's, or --quick's)")
    ap.add_argument("--shift", type=int, default=0, help="-icount shift (default 0)")
    ap.add_argument("--timing", choices=("mixed", "real", "icount"),
                    help="mixed: each workload's own mode (default); real: everything in "
                    "real time (default of --quick); icount: every workload without host "
                    "traffic under -icount (noise comparisons)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="parallel -icount guests (single-threaded TCG each)")
    ap.add_argument("--kernels", default=os.path.join(BUILD, "kernels"),
                    help="directory of the kernel images (default build/kernels)")
    ap.add_argument("--out", help="a bench directory of your own, run into as --resume "
                    "does (reported to OUT/report/results.md); default: a new run "
                    "directory build/bench/YYYY.MM.DD-HH.MM.SS[-quick] (reported to "
                    "docs/results.md), build/bench/latest pointing to it")
    ap.add_argument("--resume", nargs="?", const=cells.LATEST, metavar="RUN",
                    help="continue the run RUN (a directory, or a name under build/bench; "
                    "default latest) with the arguments it was started with: only the cells "
                    "and workloads it lacks or that failed run; only --jobs, --dry-run, "
                    "--no-report and --report-only go with it")
    ap.add_argument("--no-cost", action="store_true",
                    help=f"skip the cost stage ({plan.COST_REPEATS} -icount boots per "
                    f"configuration on {plan.COST_VCPUS} vCPUs, {plan.COST_SECONDS} s windows; "
                    f"one boot of {plan.QUICK_SECONDS} s windows with --quick: selection cost "
                    "per idle entry, cost per IRQ)")
    ap.add_argument("--cost-only", action="store_true", help="only the cost stage")
    ap.add_argument("--cost-load", action="store_true",
                    help="only the cost-load stage, a run of its own (-costload): "
                    f"{','.join(plan.LOAD_CONFIGS)} on {plan.COST_VCPUS} vCPUs, "
                    f"{plan.LOAD_REPEATS} -icount boot each (seed 1; --repeats or --seeds "
                    "for more) running the workloads "
                    f"{','.join(cost.LOAD_WORKLOADS)} (or --workloads), booted with "
                    "cpuidle_cost.enable=1; reported into RUN/report/results.md, "
                    "\"Selection cost versus load\"")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the planned matrix and its estimated duration, run nothing")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--guest-words", metavar="WORKLOADS",
                    help="print guest-image/guest/bench.sh's words for these workloads "
                    "(':'-separated, for guest.args= of a boot by hand) and exit")
    return ap.parse_args(argv)


# what --cost-load leaves to the stage: its own vCPUs, timing and matrix
LOAD_REFUSES = ("quick", "vcpus", "timing", "no_cost", "cost_only")


def load_request(a, table):
    """The cost-load stage's run (--cost-load): LOAD_CONFIGS (or --configs)
    on COST_VCPUS, LOAD_REPEATS seeds (or --repeats / --seeds), the
    workloads cost.LOAD_WORKLOADS (or --workloads)."""
    for k in LOAD_REFUSES:
        if getattr(a, k):
            die(f"--{k.replace('_', '-')} does not go with --cost-load (the stage runs "
                f"{plan.COST_VCPUS} vCPUs under -icount, alone)")
    configs = split_list(a.configs, list(CONFIGS), "configuration") if a.configs \
        else list(plan.LOAD_CONFIGS)
    works = split_list(a.workloads, list(table), "workload") if a.workloads \
        else list(cost.LOAD_WORKLOADS)
    real = [w for w in works if table[w].mode("icount") != "icount"]
    if real:
        die(f"--cost-load runs under -icount; {real[0]} needs host traffic (real time)")
    seeds = split_list(a.seeds, None, "seed", int) if a.seeds else None
    repeats = a.repeats or (len(seeds) if seeds else plan.LOAD_REPEATS)
    if seeds and len(seeds) != repeats:
        die(f"--seeds gives {len(seeds)} seeds for {repeats} repeats")
    return plan.Request(configs=configs, vcpus=[plan.COST_VCPUS], works=works,
                        repeats=repeats, timing="icount", seconds=a.seconds, seeds=seeds,
                        shaped=True, configs_given=a.configs is not None, cost="load")


def request(a, table):
    """The run a user asked for, checked (one error line on bad input)."""
    if a.cost_load:
        return load_request(a, table)
    if a.configs:
        configs = split_list(a.configs, list(CONFIGS), "configuration")
    else:
        configs = [c for c in DEFAULT_CONFIGS if CONFIGS[c].quick or not a.quick]
    if a.workloads:
        works = split_list(a.workloads, list(table), "workload")
    elif a.workload_file:
        works = list(workloads.load(a.workload_file))
    else:
        works = [w for w, x in table.items() if x.default]
    vcpus = split_list(a.vcpus, VCPUS, "vCPU count", int) if a.vcpus \
        else list(plan.DEFAULT_VCPUS)
    if not a.cost_only:
        for c in configs:
            if not set(vcpus) & set(CONFIGS[c].vcpus):
                die(f"{c} runs on {' or '.join(map(str, CONFIGS[c].vcpus))} vCPUs only "
                    f"(idlebench/configs.py), not --vcpus {','.join(map(str, vcpus))}")
    seeds = split_list(a.seeds, None, "seed", int) if a.seeds else None
    repeats = a.repeats or (len(seeds) if seeds else 2 if a.quick else 5)
    if seeds and len(seeds) != repeats:
        die(f"--seeds gives {len(seeds)} seeds for {repeats} repeats")
    return plan.Request(configs=configs, vcpus=vcpus, works=works, repeats=repeats,
                        timing=a.timing or ("real" if a.quick else "mixed"),
                        seconds=a.seconds, seeds=seeds, quick=a.quick,
                        shaped=bool(a.repeats or seeds or a.vcpus),
                        configs_given=a.configs is not None,
                        cost="only" if a.cost_only else "off" if a.no_cost else "on")


# what --resume takes from this call: how to run, not what (that is the
# resumed run's own, from its run.json)
RESUME_TAKES = ("jobs", "dry_run", "no_report", "report_only")


def resumed(a):
    """The arguments of the run that a (with --resume) continues: those it
    recorded in its run.json, with a's RESUME_TAKES; out is the run's
    directory."""
    try:
        d = cells.find_run(a.resume)
    except cells.RunError as e:
        die(str(e))
    default = vars(arguments([]))
    given = [k for k, v in vars(a).items()
             if k not in RESUME_TAKES + ("resume", "argv") and v != default[k]]
    if given:
        die(f"--resume runs what {os.path.relpath(d, TOP)} was started with; "
            f"--{given[0].replace('_', '-')} does not go with it (start a new run instead)")
    rec = cells.read_json(os.path.join(d, "run.json")) or {}
    if not isinstance(rec.get("argv"), list):
        die(f"{os.path.relpath(d, TOP)} has no run.json with the arguments it was run "
            "with: not a bench run")
    old = arguments(rec["argv"])
    for k in RESUME_TAKES:
        setattr(old, k, getattr(a, k))
    old.out, old.resume, old.argv = d, a.resume, rec["argv"]
    return old


def run_dir(a):
    """The run's directory, when it exists already: --out's (made here),
    --resume's, the latest run for --report-only; None for a new run,
    which is made when it starts (a dry run makes none)."""
    if a.out:
        d = os.path.abspath(a.out)
        os.makedirs(d, exist_ok=True)
        return d
    if a.report_only:
        try:
            return cells.find_run(cells.LATEST)
        except cells.RunError as e:
            die(str(e))
    return None


def in_runs(d):
    """d is one of the runs under build/bench."""
    return os.path.dirname(d) == cells.RUNS


def cmdline_or_none(cell, setup):
    """The cell's kernel command line, None when it cannot be made (no
    kept cell matches it; main() makes every cell's line first and stops
    at one that cannot be made)."""
    try:
        return launch.kernel_cmdline(cell, setup)
    except launch.LaunchError:
        return None


def build_inputs(run):
    """udpgen and the initramfs (one make rule each), the block disk: one
    for every run under build/bench, a directory of one's own has its own."""
    r = subprocess.run(["make", "-s", "-C", TOP, "build/udpgen", "build/initramfs.cpio"])
    if r.returncode:
        die("building build/udpgen or build/initramfs.cpio failed (make, above)")
    home = cells.RUNS if run is None or in_runs(run) else run
    os.makedirs(home, exist_ok=True)
    disk = os.path.join(home, "disk.img")
    if not os.path.exists(disk):
        with open(disk + ".tmp", "wb") as f:
            f.write(os.urandom(64 << 20))
        os.replace(disk + ".tmp", disk)
    return os.path.join(SHARED, "initramfs.cpio"), os.path.join(SHARED, "udpgen"), disk


def to_run(cell, cells_dir, kernels, initrd, lines):
    """cell itself, a copy that runs only the workloads its kept directory
    lacks, or None when nothing of it is left to run (cells_dir None: a
    new run, where all is)."""
    if cells_dir is None or not os.path.exists(initrd):
        return cell
    need = cells.missing(os.path.join(cells_dir, cell.name), cell,
                         os.path.join(kernels, CONFIGS[cell.config].kernel), initrd,
                         cmdline_or_none(cell, lines))
    if not need:
        return None
    if len(need) == len(cell.works):
        return cell
    return dataclasses.replace(cell, only=tuple(need))


def announce(req, all_cells, todo, jobs, shift):
    log(f"{len(all_cells)} cells, {len(all_cells) - len(todo)} already done, {len(todo)} to run "
        f"(configs {','.join(req.configs)}; vCPUs {','.join(map(str, req.vcpus))}; "
        f"{req.repeats} repeats; workloads {','.join(req.works)}; icount shift {shift}; "
        + ("the cost-load stage alone)" if req.cost == "load" else f"cost stage {req.cost})"))
    for c in todo:
        if c.only is not None:
            log(f"  {c.name}: kept, reruns only its missing or failed workloads "
                f"{','.join(c.only)}")
    if os.environ.get(launch.DROP_ENV):
        log(f"note: {launch.DROP_ENV}={os.environ[launch.DROP_ENV]}: those workloads lose "
            "their cyclictest.json before the parse (a test knob)")
    for mode in ("icount", "real") + cells.COST_MODES:
        ms = [c for c in all_cells if c.mode == mode]
        if ms:
            log(f"  {mode}: {len(ms)} boots, workloads "
                + " ".join(f"{w}={s}s" for w, s in ms[0].works)
                + f", vCPUs {','.join(sorted({str(c.vcpus) for c in ms}))}")
    log(f"estimated duration {plan.estimate_total(todo, jobs) / 60:.0f} min for the "
        f"{len(todo)} boots to run (model: idlebench/plan.py estimate())")


def run_all(todo, setup, cells_dir, jobs):
    """-icount guests in parallel (their numbers do not depend on host
    load), longest first; real-time guests alone."""
    t0, finished, lock = time.time(), [], threading.Lock()

    def one(cell):
        try:
            m = launch.run(cell, setup, cells_dir)
        except launch.LaunchError as e:
            die(str(e))
        with lock:
            finished.append(cell)
            el = time.time() - t0
            # the model's remaining estimate, scaled by this run's pace so far
            model_done = plan.estimate_total(finished, jobs)
            left = [c for c in todo if c not in finished]
            eta = plan.estimate_total(left, jobs) * (el / model_done if model_done else 1)
            extra = "" if m["verdict"].startswith("PASS") else f" log {m['console']}"
            what = cell.name if cell.only is None else f"{cell.name} (rerun of {','.join(cell.only)})"
            print(f"[{len(finished)}/{len(todo)}] elapsed {el:.0f}s ETA {eta:.0f}s  "
                  f"{what} {m['wall_s']:.0f}s {m['verdict'][:100]}{extra}", flush=True)
            for w, (why, wlog) in sorted(m.get("failed", {}).items()):
                print(f"    workload {w} FAILED: {why[:160]} (log {wlog})", flush=True)

    ic = sorted((c for c in todo if c.mode != "real"), key=lambda c: -plan.estimate(c))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        list(ex.map(one, ic))
    for c in todo:
        if c.mode == "real":
            one(c)
    return time.time() - t0


def main(argv=None):
    given = sys.argv[1:] if argv is None else argv
    a = arguments(given)
    a.argv = given
    if a.resume is not None:
        a = resumed(a)
    try:
        table = workloads.table(a.workload_file)
    except workloads.WorkloadError as e:
        die(str(e))
    if a.guest_words:
        # a boot's words (launch.guest_words) without its set. options,
        # which a boot by hand gives its own
        names = split_list(a.guest_words, list(table), "workload")
        one = plan.Request([], [], names, 1, seconds=a.seconds)
        cell = cells.Cell(DEFAULT_CONFIGS[0], 2, 1, "icount",
                          [(n, plan.window(one, table[n])) for n in names])
        print(":".join(w for w in launch.guest_words(cell, table) if not w.startswith("set.")))
        return
    req = request(a, table)
    run = run_dir(a)
    if not a.report_only:
        cells_dir = os.path.join(run, "cells") if run else None
        skipped = [f"{c}: not run by the last bench.py run (--configs "
                   f"{','.join(req.configs)}); its cells here are from an earlier one"
                   if cells_dir and glob.glob(os.path.join(cells_dir, f"{c}-*")) else
                   f"{c}: not run (--configs {','.join(req.configs)})"
                   for c in (plan.LOAD_CONFIGS if req.cost == "load" else DEFAULT_CONFIGS)
                   if c not in req.configs]
        for c in list(req.configs):
            k = os.path.join(a.kernels, CONFIGS[c].kernel)
            if not os.path.exists(k):
                skipped.append(f"{c}: {k} is missing, not run")
                req.configs.remove(c)
        few = plan.too_few(req, table)
        if few:
            skipped.append(few)
        for s in skipped:
            log(f"note: {s}")
        all_cells = plan.plan(req, table)
        initrd = os.path.join(SHARED, "initramfs.cpio")
        # only the workload table matters for the command lines
        lines = launch.Setup(table, a.kernels, initrd, "", "", a.shift)
        # every cell's command line is made before anything is built or
        # booted, a dry run's too: one that cannot be made stops the run
        try:
            for c in all_cells:
                launch.kernel_cmdline(c, lines)
        except launch.LaunchError as e:
            die(str(e))
        # the guest image is built first: which cells are done depends on it
        # (a dry run reads the one there is, or counts every cell to run)
        if not a.dry_run:
            initrd, udpgen, disk = build_inputs(run)
        todo = [t for t in (to_run(c, cells_dir, a.kernels, initrd, lines) for c in all_cells)
                if t is not None]
        announce(req, all_cells, todo, a.jobs, a.shift)
        if a.dry_run:
            return
        setup = launch.Setup(table, a.kernels, initrd, disk, udpgen, a.shift)
        if run is None:
            try:
                run = cells.new_run(cells.RUNS, a.quick,
                                    stage="costload" if a.cost_load else "")
            except (cells.RunError, OSError) as e:
                die(str(e))
        cells_dir = os.path.join(run, "cells")
        os.makedirs(cells_dir, exist_ok=True)
        log(f"run directory {os.path.relpath(run, TOP)}")
        # what --resume runs again (a resumed run: what it was started with)
        atomic_write(os.path.join(run, "run.json"), json.dumps({"argv": a.argv}))
        atomic_write(os.path.join(run, "skipped.json"), json.dumps(skipped))
        total = run_all(todo, setup, cells_dir, a.jobs)
        log(f"matrix done in {total:.0f}s")
        atomic_write(os.path.join(run, "last-run.json"),
                     json.dumps({"seconds": round(total), "cells": len(all_cells),
                                 "ran": len(todo), "quick": a.quick,
                                 "argv": given}))
    if not a.no_report:
        # docs/results.md is make bench's runs'; a directory of one's own,
        # or a run of the cost-load stage alone, reports into itself, so a
        # side run cannot overwrite it
        dest = (os.path.join(TOP, "docs", os.path.basename(RESULTS))
                if in_runs(run) and not report.load_only(run)
                else os.path.join(run, "report", "results.md"))
        bad = report.build(run, dest, os.path.join(BUILD, "bench-noise"), table)
        if bad:
            die(f"{bad} failed check{'s' if bad > 1 else ''} of the runs: an oracle "
                f"violation (the oracle or the energy model is wrong) or an interrupt "
                f"source outside the design ({os.path.relpath(dest, TOP)}, \"Oracle "
                f"violations\" and \"Interrupt sources outside the design\")")


if __name__ == "__main__":
    main()
