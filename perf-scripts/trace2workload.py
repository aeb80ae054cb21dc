#!/usr/bin/env python3
"""trace2workload.py: a recorded machine's device interrupts as a bench
workload that replays them in the guest, each arrival at its recorded time.

  python3 perf-scripts/trace2workload.py RECORD_DIR_or_trace.txt -o FILE.toml
        [--max-sources 5] [--cpus 2] [--map HOST:GUEST,...] [--name replay]

Reads the irq:irq_handler_entry events of a trace (perf-scripts/record.sh's
directory or trace.txt, perf script text; or a bench trace.txt, tracefs
text; .gz and .xz too).  Each (IRQ, CPU) is a source; the busiest
--max-sources of them (default 5: in the bench's guest only 5 HPET
comparators reach a free GSI) become hpet_irqgen list sources that play
the recording once (once=1), each on the guest CPU of its CPU (CPU modulo
--cpus, or --map).  Writes FILE.toml, one workload in the form of
perf-scripts/workloads.toml (`make bench WORKLOADS=FILE.toml`, or
bench.py --workload-file), whose window holds the whole recording, and
beside it FILE.lists, the intervals, which the bench sends to the guest
with the initramfs (idlebench/launch.py).  Says on stderr what it dropped
or changed.  idlebench/arrivals.py says how arrivals become intervals.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from idlebench import arrivals, workloads  # noqa: E402


def note(msg):
    print(f"trace2workload: {msg}", file=sys.stderr)


def die(msg):
    print(f"trace2workload: error: {msg}", file=sys.stderr)
    sys.exit(2)


def cpu_map(text, cpus):
    """{host CPU: guest CPU} of "H:G,H:G"."""
    out = {}
    for pair in filter(None, (text or "").split(",")):
        try:
            h, g = (int(x) for x in pair.split(":"))
        except ValueError:
            die(f"--map takes HOST:GUEST pairs of CPU numbers, not '{pair}'")
        if not 0 <= g < cpus:
            die(f"--map {pair}: the guest has CPUs 0 to {cpus - 1} (--cpus {cpus})")
        out[h] = g
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", help="record.sh's directory or a trace.txt (perf script or tracefs)")
    ap.add_argument("-o", "--out", required=True, help="the workload file to write (FILE.toml)")
    ap.add_argument("--max-sources", type=int, default=5,
                    help="sources kept, busiest first (default 5, at most "
                         f"{workloads.GEN_MAX_SOURCES})")
    ap.add_argument("--cpus", type=int, default=2, help="the guest's vCPUs (default 2)")
    ap.add_argument("--map", help="HOST:GUEST,... guest CPU of a recorded CPU "
                    "(default: CPU modulo --cpus)")
    ap.add_argument("--name", default="replay", help="the workload's name (default replay)")
    a = ap.parse_args(argv)
    if not 1 <= a.max_sources <= workloads.GEN_MAX_SOURCES:
        die(f"--max-sources must be 1 to {workloads.GEN_MAX_SOURCES} (hpet_irqgen's sources)")
    if a.cpus < 1:
        die("--cpus must be at least 1")
    if not a.out.endswith(".toml"):
        die(f"-o {a.out}: a workload file's name ends in .toml")
    if not workloads.LIST_NAME.match(a.name) or not a.name[0].isalpha():
        die(f"--name {a.name}: a workload's name is a-z, 0-9 and '_', starting with a letter")
    mapping = cpu_map(a.map, a.cpus)
    try:
        path, text = arrivals.read_text(a.trace)
        rec = arrivals.parse(text, path)
    except arrivals.TraceError as e:
        die(str(e))
    lists = arrivals.choose(rec, a.max_sources, a.cpus, mapping, note)
    if not lists:
        die(f"{path}: no source the generator can replay")
    lists_file = os.path.basename(a.out)[:-len(".toml")] + ".lists"
    lists_path = os.path.join(os.path.dirname(os.path.abspath(a.out)), lists_file)
    try:
        with open(lists_path, "w") as f:
            f.write(arrivals.lists_text(rec, lists))
        with open(a.out, "w") as f:
            f.write(arrivals.workload_toml(a.name, rec, lists, lists_file, a.cpus))
    except OSError as e:
        die(f"cannot write {e.filename}: {e.strerror}")
    # what the bench will read: the file must load as a workload
    try:
        w = workloads.load(a.out)[a.name]
    except workloads.WorkloadError as e:
        die(f"the written file does not load: {e}")
    for ls in lists:
        note(f"{ls.name}: {ls.source.key} -> guest CPU {ls.guest_cpu}: "
             f"{len(ls.intervals)} arrivals")
    note(f"wrote {a.out} ({w.seconds} s window) and {lists_path}")


if __name__ == "__main__":
    main()
