"""The cells of a run and their wall-time estimate.

The full matrix (docs/method.md) is shortened in two
places: configurations run only on their Config.vcpus, and real-time
cells only on REAL_VCPUS for REAL_REPEATS repeats.  A matrix shaped by
hand (--configs, --vcpus, --repeats or --seeds) is run as asked."""
from dataclasses import dataclass

from . import cost
from .cells import Cell
from .configs import CONFIGS

REAL_REPEATS, REAL_VCPUS = 2, (2,)
# the cost stage: COST_REPEATS -icount boots per configuration (seeds 1..N,
# one with --quick) on COST_VCPUS, the workloads cost.COST_WORKLOADS in each:
# a selection's cost follows the workload's idle pattern, which the seed moves
COST_VCPUS, COST_REPEATS = 2, 3
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


def plan(req, workloads):
    """The cells of a run, in order: measurement cells per repeat, then the
    cost stage; or, with cost "load", the cost-load stage's cells alone."""
    if req.cost == "load":
        return [Cell(c, COST_VCPUS, rep, "costload",
                     [(w, req.seconds or workloads[w].seconds) for w in req.works],
                     req.seeds[rep - 1] if req.seeds else None)
                for c in req.configs for rep in range(1, req.repeats + 1)]
    full = not req.quick and not req.shaped
    cells = []
    for rep in range(1, 0 if req.cost == "only" else req.repeats + 1):
        for mode in ("icount", "real"):
            ws = [(w, req.seconds or (1 if req.quick else workloads[w].seconds))
                  for w in req.works if workloads[w].mode(req.timing) == mode]
            if not ws or (mode == "real" and full and rep > REAL_REPEATS):
                continue
            for c in req.configs:
                for v in req.vcpus:
                    if v not in CONFIGS[c].vcpus and not req.configs_given:
                        continue
                    if mode == "real" and full and v not in REAL_VCPUS:
                        continue
                    cells.append(Cell(c, v, rep, mode, ws,
                                      req.seeds[rep - 1] if req.seeds else None))
    if req.cost != "off":
        secs = req.seconds or (1 if req.quick else 2)
        for c in req.configs:
            if req.quick and not req.configs_given and not CONFIGS[c].quick_cost:
                continue
            for rep in range(1, 2 if req.quick else COST_REPEATS + 1):
                cells.append(Cell(c, COST_VCPUS, rep, "cost",
                                  [(w, secs) for w in cost.COST_WORKLOADS]))
    return cells


# Wall-time model of one cell (seconds): a boot, then per workload a fixed
# cost and a cost per guest second, fitted on the wall-seconds of the
# cells of 2 vCPUs on this 2-core machine (2 -icount jobs at once; the
# measured run times are in docs/method.md).  A workload's cost depends
# on how busy it is (ipi, block), so expect +-30%.
def estimate(cell):
    v = cell.vcpus
    if cell.mode == "real":
        return 12 + sum(2 + 2.0 * s for _, s in cell.boot_works)
    per_s = 3.0 * v
    return 21 + 12 * v + sum(2 + per_s * s for _, s in cell.boot_works)


def estimate_total(cells, jobs):
    """-icount cells longest first on `jobs` workers, then real-time ones alone."""
    workers = [0.0] * max(1, jobs)
    for e in sorted((estimate(c) for c in cells if c.mode != "real"), reverse=True):
        workers[workers.index(min(workers))] += e
    return max(workers) + sum(estimate(c) for c in cells if c.mode == "real")
