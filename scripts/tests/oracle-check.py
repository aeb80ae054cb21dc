#!/usr/bin/env python3
"""oracle-check.py [--control fit|model] [RUN MODEL NCPU]: the bench's
oracle checks (perf-scripts/idlebench/energy.py check(), the ones a bench
run's "Oracle violations" section applies, which fail bench.py and
report.py) on a recorded run: the model, charged on the driver's own
counters of the window, gives the energy the driver counted, and in every
idle period the oracle's state costs at most the state the kernel
entered.  Prints one line; exits 1 on a violation.

RUN is a workload's results directory of a bench run (trace.txt or
trace.txt.xz, before.emu, after.emu), MODEL its boot's emu-model, NCPU
its vCPUs.  Default: perf-scripts/tests/fixtures/oracle-run/, the timer
workload of a bench run (teo, 2 vCPUs, -icount): its cpu_idle events, its
counters and the driver's skx model.

--control fit: the same checks with the oracle the bench had before it
was the energy minimum, the deepest state whose target residency fits the
halted time: on the Skylake-SP table C6 costs less than C1E from 484 us
halted, below C6's 600 us residency, so the checks must fail.
--control model: the same checks with the model's entry energies left
out, a model other than the driver's: the counters check must fail."""
import argparse
import lzma
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "perf-scripts"))
from idlebench import energy, parse  # noqa: E402

RUN = os.path.join(TOP, "perf-scripts", "tests", "fixtures", "oracle-run")


def fit_state(model, halted_ns):
    """The deepest state whose target residency fits halted_ns: not the
    minimum, the fit control's wrong oracle."""
    best = 0
    for i, s in enumerate(model):
        if s["residency_us"] * 1000 <= halted_ns:
            best = i
    return best


def read_trace(run):
    """The text of run's trace.txt, or of its trace.txt.xz."""
    p = os.path.join(run, "trace.txt")
    if os.path.exists(p):
        return p, open(p).read()
    with lzma.open(p + ".xz", "rt") as f:
        return p + ".xz", f.read()


def metrics(run, model, ncpu, control):
    """energy.check()'s input for run: the trace's energy metrics and the
    counters check, with control's wrong oracle or model."""
    if control == "model":
        model = [dict(s, entry_uj=0) for s in model]
    src, text = read_trace(run)
    m = energy.trace_metrics(text, src, model, ncpu,
                             oracle=fit_state if control == "fit" else energy.min_energy_state)
    m.update(parse.parse_emu(run, model))
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--control", nargs="?", const="fit", choices=("fit", "model"))
    ap.add_argument("args", nargs="*", metavar="RUN MODEL NCPU")
    a = ap.parse_args()
    args = a.args or [RUN, os.path.join(RUN, "emu-model"), "2"]
    if len(args) != 3:
        sys.exit(__doc__)
    run, model_file, ncpu = args
    model = parse.parse_model(open(model_file).read(), model_file)
    m = metrics(run, model, int(ncpu), a.control)
    bad = energy.check(m)
    if not m.get("trace_periods") or not m.get("counters"):
        print(f"oracle-check: FAIL: no idle periods or no driver's counters in {run}")
        sys.exit(1)
    what = {"fit": "the fit rule as the oracle (control)",
            "model": "the model without entry energies (control)"}.get(a.control, "the oracle")
    n = f"{m['trace_periods']} periods, {len(m['counters'])} CPUs' counters"
    if bad:
        print(f"oracle-check: FAIL: {what}, {n}: " + "; ".join(bad))
        sys.exit(1)
    print(f"oracle-check: PASS: {what}, {n}: the model gives the driver's count, "
          f"{m['oracle_energy_mj']:.6g} mJ <= {m['model_energy_mj']:.6g} mJ of the kernel's "
          "states, no period above the kernel's state")


if __name__ == "__main__":
    main()
