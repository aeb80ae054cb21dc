#!/usr/bin/env python3
"""report.py: docs/results.md and docs/plots/*.png from a bench run's
directory (`make report`, `make report RUN=DIR`).  The work is in
idlebench/report/.

  python3 perf-scripts/report.py [--run RUN] [--out docs/results.md]
        [--noise build/bench-noise] [--workload-file FILE]

RUN is a run's directory, or a name under build/bench (a run as bench.py
names it, YYYY.MM.DD-HH.MM.SS[-quick|-costload]); default latest, the
newest run.  A directory without a finished cell is refused with one line.
The default --out is docs/results.md, but for a run of the cost-load stage
alone (bench.py --cost-load): RUN/report/results.md, its section
"Selection cost versus load" alone.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from idlebench import cells, linuxtree, report, workloads  # noqa: E402
from idlebench.workloads import TOP  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", default=cells.LATEST,
                    help="a run's directory, or a name under build/bench (default latest)")
    ap.add_argument("--out", help="default docs/results.md (a cost-load run: "
                    "RUN/report/results.md)")
    ap.add_argument("--noise", default=os.path.join(linuxtree.BUILD, "bench-noise"),
                    help="cells of the -icount/real-time noise comparison")
    ap.add_argument("--workload-file", help="workloads besides perf-scripts/workloads.toml")
    a = ap.parse_args(argv)
    try:
        run = cells.find_run(a.run)
        if not cells.has_cells(run):
            raise cells.RunError(f"{run} has no finished cell (cells/CELL/meta.json): "
                                 "not a bench run, or one that has not finished a boot")
        table = workloads.table(a.workload_file)
    except (cells.RunError, workloads.WorkloadError) as e:
        sys.exit(f"report: error: {e}")
    out = a.out or (os.path.join(run, "report", "results.md") if report.load_only(run)
                    else linuxtree.RESULTS)
    bad = report.build(run, out, a.noise, table)
    if bad:
        sys.exit(f"report: error: {bad} failed check{'s' if bad > 1 else ''} of the runs "
                 f"(\"Oracle violations\" and \"Interrupt sources outside the design\" "
                 f"in {out})")


if __name__ == "__main__":
    main()
