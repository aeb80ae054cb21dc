"""The cells of a run, their windows and their wall-time estimate.

A configuration runs only on its own Config.vcpus, whether the run names
it (--configs) or not: the run's vCPU counts (--vcpus, else DEFAULT_VCPUS)
pick among them, and the cost stages run on COST_VCPUS, which every
configuration has (tests/test_plan.py).  The full matrix (docs/method.md)
also runs real-time cells only on REAL_VCPUS for REAL_REPEATS repeats; a
matrix shaped by hand (--vcpus, --repeats or --seeds) runs those on every
count and repeat it asks."""
from dataclasses import dataclass

from . import cost
from .cells import Cell
from .configs import CONFIGS

# the run's vCPU counts without --vcpus
DEFAULT_VCPUS = (1, 2)
REAL_REPEATS, REAL_VCPUS = 2, (2,)
# the cost stage: COST_REPEATS -icount boots per configuration (seeds 1..N,
# one with --quick) on COST_VCPUS, the workloads cost.COST_WORKLOADS in each
# for COST_SECONDS (QUICK_SECONDS with --quick): a selection's cost follows
# the workload's idle pattern, which the seed moves
COST_VCPUS, COST_REPEATS, COST_SECONDS = 2, 3, 2
# --quick: every window, the cost stage's too
QUICK_SECONDS = 1
# the cost-load stage (bench.py --cost-load), a run of its own: per
# configuration of cost.LOAD_CONFIGS, LOAD_REPEATS -icount boots on COST_VCPUS
# (seed 1 with one), each running the workloads cost.LOAD_WORKLOADS.  One
# seed: its table compares workloads within a configuration, and a seed
# under -icount is an exact rerun, so more seeds only show how the
# workloads' own arrivals move the figures (the cost stage's range over its
# seeds says by how much); --repeats or --seeds adds them
LOAD_CONFIGS, LOAD_REPEATS = cost.LOAD_CONFIGS, 1


@dataclass
class Request:
    configs: list
    vcpus: list
    works: list                 # workload names
    repeats: int
    timing: str = "mixed"       # mixed, real or icount (Workload.mode)
    seconds: int = None         # every window, instead of the workload's
    seeds: list = None          # one per repeat; default the repeat number
    quick: bool = False
    shaped: bool = False        # --vcpus, --repeats or --seeds given
    configs_given: bool = False
    cost: str = "on"            # on, off, only, or load (the cost-load stage alone)


def _seconds(req, own):
    """A window in a run of req whose own length is own: --seconds, else
    QUICK_SECONDS with --quick, else own.  The one place --seconds and
    --quick are resolved."""
    return req.seconds or (QUICK_SECONDS if req.quick else own)


def window(req, workload):
    """The window of workload (a Workload) in a run of req: its table's,
    unless --seconds or --quick (_seconds())."""
    return _seconds(req, workload.seconds)


def too_few(req, workloads):
    """One line naming the workloads of req that a vCPU count it asks for
    cannot run (Workload.needs_vcpus), or None when every one runs on
    every count; plan() leaves those out."""
    out = []
    for w in req.works:
        need = workloads[w].needs_vcpus
        few = [v for v in req.vcpus if v < need]
        if few and req.cost != "load":
            out.append(f"{w} on {','.join(map(str, few))} "
                       f"(it needs {need}, min_vcpus or its gen lines' cpu=)")
    return ("skipped, too few vCPUs: " + "; ".join(out)) if out else None


def cost_window(req):
    """The cost stage's window: COST_SECONDS, unless --seconds or --quick
    (_seconds()); its workloads' table windows are the measurement
    cells'."""
    return _seconds(req, COST_SECONDS)


def plan(req, workloads):
    """The cells of a run, in order: measurement cells per repeat, then the
    cost stage; or, with cost "load", the cost-load stage's cells alone."""
    if req.cost == "load":
        return [Cell(c, COST_VCPUS, rep, "costload",
                     [(w, window(req, workloads[w])) for w in req.works],
                     req.seeds[rep - 1] if req.seeds else None)
                for c in req.configs for rep in range(1, req.repeats + 1)]
    full = not req.quick and not req.shaped
    cells = []
    for rep in range(1, 0 if req.cost == "only" else req.repeats + 1):
        for mode in ("icount", "real"):
            ws = [(w, window(req, workloads[w]))
                  for w in req.works if workloads[w].mode(req.timing) == mode]
            if not ws or (mode == "real" and full and rep > REAL_REPEATS):
                continue
            for c in req.configs:
                for v in req.vcpus:
                    if v not in CONFIGS[c].vcpus:
                        continue
                    if mode == "real" and full and v not in REAL_VCPUS:
                        continue
                    # a workload that needs more vCPUs than v is left out
                    # (too_few() says which)
                    fit = [(w, s) for w, s in ws if workloads[w].needs_vcpus <= v]
                    if fit:
                        cells.append(Cell(c, v, rep, mode, fit,
                                          req.seeds[rep - 1] if req.seeds else None))
    if req.cost != "off":
        secs = cost_window(req)
        for c in req.configs:
            if req.quick and not req.configs_given and not CONFIGS[c].quick_cost:
                continue
            for rep in range(1, 2 if req.quick else COST_REPEATS + 1):
                cells.append(Cell(c, COST_VCPUS, rep, "cost",
                                  [(w, secs) for w in cost.COST_WORKLOADS]))
    return cells


# Wall-time model of one cell (seconds): a boot, then per workload a fixed
# cost and a cost per guest second, fitted on the wall-seconds of the
# -icount cells of both trees' default runs, 1 and 2 vCPUs, on this 2-core
# machine (2 -icount jobs at once; each cell's meta.json records its own,
# wall_s): within 25% of them, and above the 1-vCPU ones.  -icount with
# sleep=off skips the guest's idle time, so a busy workload costs more
# per second than an idle one (ipi, block); the real recordings, which
# replay thousands of interrupts a second, take less than half the model.
def estimate(cell):
    v = cell.vcpus
    if cell.mode == "real":
        return 12 + sum(2 + 2.0 * s for _, s in cell.boot_works)
    per_s = 1.5 * v
    return 21 + 12 * v + sum(2 + per_s * s for _, s in cell.boot_works)


def estimate_total(cells, jobs):
    """-icount cells longest first on `jobs` workers, then real-time ones alone."""
    workers = [0.0] * max(1, jobs)
    for e in sorted((estimate(c) for c in cells if c.mode != "real"), reverse=True):
        workers[workers.index(min(workers))] += e
    return max(workers) + sum(estimate(c) for c in cells if c.mode == "real")
