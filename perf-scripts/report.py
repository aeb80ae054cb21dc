#!/usr/bin/env python3
"""report.py: docs/results.md and docs/plots/*.png from a bench directory
(`make report`).  The work is in idlebench/report/.

  python3 perf-scripts/report.py [--bench build/bench] [--out docs/results.md]
        [--noise build/bench-noise] [--workload-file FILE]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from idlebench import report, workloads  # noqa: E402
from idlebench.workloads import TOP  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=os.path.join(TOP, "build", "bench"))
    ap.add_argument("--out", default=os.path.join(TOP, "docs", "results.md"))
    ap.add_argument("--noise", default=os.path.join(TOP, "build", "bench-noise"),
                    help="cells of the -icount/real-time noise comparison")
    ap.add_argument("--workload-file", help="workloads besides perf-scripts/workloads.toml")
    a = ap.parse_args(argv)
    try:
        table = workloads.table(a.workload_file)
    except workloads.WorkloadError as e:
        sys.exit(f"report: error: {e}")
    report.build(a.bench, a.out, a.noise, table)


if __name__ == "__main__":
    main()
