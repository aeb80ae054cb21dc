#!/usr/bin/env python3
"""gen-lists.py: perf-scripts/workloads.lists, the generator lists of the
built-in workloads whose arrivals no hpet_irqgen process draws by itself.

  python3 perf-scripts/gen-lists.py [-o perf-scripts/workloads.lists]
  python3 perf-scripts/gen-lists.py --check   # the file is what this writes

storage: a disk serving requests.  Requests come as a Poisson process
(mean STORAGE_MEAN_US); each ends in 1 to 3 completion interrupts (equally
likely), the first when the request comes, the next ones 40 to 90 us apart
(uniform), as a queue of a few commands completing one after another.  A
burst may overlap the next request's.  STORAGE_SECONDS of arrivals, drawn
from a fixed seed (Python's random.Random: the same list on every
machine), as intervals by idlebench/arrivals.py's list_us(); the workload
plays the list in a loop, and the bench's seeds move the window's phase
in it.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from idlebench import arrivals  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads.lists")
STORAGE_MEAN_US = 1200
STORAGE_BURST = (1, 3)
STORAGE_GAP_US = (40, 90)
STORAGE_SECONDS = 20
SEED = 1


def storage_times_ns(seed=SEED):
    """The storage source's arrival times (ns from 0), sorted."""
    rnd = random.Random(seed)
    times, t = [], 0.0
    while True:
        t += rnd.expovariate(1.0 / STORAGE_MEAN_US)
        if t >= STORAGE_SECONDS * 1e6:
            break
        c = t
        for k in range(rnd.randint(*STORAGE_BURST)):
            if k:
                c += rnd.uniform(*STORAGE_GAP_US)
            times.append(int(c * 1000))
    return sorted(times)


def text():
    """The lists file."""
    iv, _nudged, cut = arrivals.list_us(storage_times_ns(), 0)
    if cut:
        sys.exit(f"gen-lists: storage: {cut}")
    return ("# Written by perf-scripts/gen-lists.py (do not edit): the generator lists\n"
            "# of perf-scripts/workloads.toml, NAME then the intervals in us\n"
            f"storage mean_us={STORAGE_MEAN_US} burst={STORAGE_BURST[0]}-{STORAGE_BURST[1]} "
            f"gap_us={STORAGE_GAP_US[0]}-{STORAGE_GAP_US[1]} seed={SEED} "
            f"intervals_us={','.join(map(str, iv))}\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--out", default=OUT)
    ap.add_argument("--check", action="store_true",
                    help="fail unless the file holds what this script writes")
    a = ap.parse_args(argv)
    want = text()
    if a.check:
        try:
            with open(a.out) as f:
                have = f.read()
        except OSError as e:
            sys.exit(f"gen-lists: cannot read {a.out}: {e.strerror}")
        if have != want:
            sys.exit(f"gen-lists: {a.out} is not what gen-lists.py writes: run it again")
        print(f"gen-lists: {a.out} is up to date")
        return
    with open(a.out, "w") as f:
        f.write(want)
    print(f"gen-lists: {a.out}")


if __name__ == "__main__":
    main()
