#!/usr/bin/env python3
"""oracle-check.py [--control] [TRACE MODEL NCPU]: the bench's oracle
checks (perf-scripts/idlebench/energy.py check(), the ones a bench run's
"Oracle violations" section applies, which fail bench.py and report.py)
on a recorded trace: in every idle period the oracle's state costs at
most the state the kernel entered, and the oracle's energy over the trace
is at most the kernel's.  Prints one line; exits 1 on a violation.

Default: perf-scripts/tests/fixtures/oracle-trace.txt.xz, the cpu_idle
events of a bench run (teo, 1 vCPU, the timer workload, -icount) with the
driver's skx model (fixtures/emu-model), 1 CPU.

--control: the same checks with the oracle the bench had before it was
the energy minimum, the deepest state whose target residency fits the
halted time: on the Skylake-SP table C6 costs less than C1E from 484 us
halted, below C6's 600 us residency, so the checks must fail."""
import lzma
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "perf-scripts"))
from idlebench import energy, parse  # noqa: E402

FX = os.path.join(TOP, "perf-scripts", "tests", "fixtures")


def fit_state(model, halted_ns):
    """The deepest state whose target residency fits halted_ns: not the
    minimum, the control's wrong oracle."""
    best = 0
    for i, s in enumerate(model):
        if s["residency_us"] * 1000 <= halted_ns:
            best = i
    return best


def main():
    args = sys.argv[1:]
    control = args[:1] == ["--control"]
    args = args[1:] if control else args
    if not args:
        args = [os.path.join(FX, "oracle-trace.txt.xz"), os.path.join(FX, "emu-model"), "1"]
    if len(args) != 3:
        sys.exit(__doc__)
    trace, model_file, ncpu = args
    opener = lzma.open if trace.endswith(".xz") else open
    with opener(trace, "rt") as f:
        text = f.read()
    model = parse.parse_model(open(model_file).read(), model_file)
    m = energy.trace_metrics(text, trace, model, int(ncpu),
                             oracle=fit_state if control else energy.min_energy_state)
    bad = energy.check(m)
    if bad is None or not m.get("trace_periods"):
        print(f"oracle-check: FAIL: no idle periods in {trace}")
        sys.exit(1)
    what = "the fit rule as the oracle (control)" if control else "the oracle"
    if bad:
        print(f"oracle-check: FAIL: {what}, {m['trace_periods']} periods: " + "; ".join(bad))
        sys.exit(1)
    print(f"oracle-check: PASS: {what}, {m['trace_periods']} periods: "
          f"{m['oracle_energy_mj']:.6g} mJ <= {m['model_energy_mj']:.6g} mJ of the kernel's states, "
          "no period above the kernel's state")


if __name__ == "__main__":
    main()
