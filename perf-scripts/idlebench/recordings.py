"""The corpus of real recordings: perf-scripts/recordings/NAME/, each a
machine recorded by perf-scripts/record.sh while a load a user runs ran
(perf-scripts/record-load.sh writes the folder), kept as

    how            one line: the command, the machine, the kernel, what else ran
    states         the machine's idle states (record.sh's table)
    trace.txt.xz   the trace (record.sh's trace.txt, xz)
    workload.toml  the bench workload rec_NAME that replays its device
    workload.lists interrupts (perf-scripts/trace2workload.py's defaults)

workloads.corpus() puts them into the bench's workload table.  check()
says what is wrong with an entry, or returns its figures:

    python3 -m idlebench.recordings [DIR ...]    # default: every entry

An entry must last MIN_SECONDS or more and hold MIN_CPU_IRQS or more
device interrupts on some CPU, in the trace and in what the guest
replays; its workload must be the one trace2workload.py makes of its
trace today (same lists), so that the bench replays what was recorded.
"""
import lzma
import os
import sys
from dataclasses import dataclass

from . import arrivals, workloads

# What the corpus asks of a recording (perf-scripts/README.md, "Real
# recordings"): long enough for the governors' histories to turn over
# many times, and enough device interrupts on one CPU for a source's
# prediction to be measured, not guessed
MIN_SECONDS = 10
MIN_CPU_IRQS = 1000
# loads in the corpus (the quiet machine among them), and what an entry
# may weigh in the repository (its trace is the bulk: xz of record.sh's
# text; a longer or busier recording is trimmed before it is kept)
MIN_ENTRIES = 5
MAX_ENTRY_BYTES = 1 << 20
FILES = ("how", "states", "trace.txt.xz", "workload.toml", "workload.lists")
# trace2workload.py's defaults, with which record-load.sh converts
MAX_SOURCES = 5
GUEST_CPUS = 2
PREFIX = "rec_"


class CorpusError(Exception):
    """An entry that does not meet the corpus' requirements, with its folder."""


@dataclass
class Entry:
    name: str               # the folder's name
    workload: str           # the bench workload's name (rec_NAME)
    how: str
    seconds: float          # the trace's span
    cpu_irqs: dict          # {CPU: device interrupts}, recorded
    guest_irqs: dict        # {guest CPU: arrivals} the replay plays
    sources: int            # sources replayed


def entries(root=workloads.RECORDINGS):
    """The entry folders under root, sorted."""
    if not os.path.isdir(root):
        return []
    return [os.path.join(root, d) for d in sorted(os.listdir(root))
            if os.path.isdir(os.path.join(root, d))]


def check(path):
    """The Entry of the folder path; CorpusError when it falls short."""
    name = os.path.basename(os.path.normpath(path))

    def bad(msg):
        raise CorpusError(f"{path}: {msg}")
    missing = [f for f in FILES if not os.path.isfile(os.path.join(path, f))]
    if missing:
        bad(f"missing {', '.join(missing)} (perf-scripts/record-load.sh writes them)")
    size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)
               if os.path.isfile(os.path.join(path, f)))
    if size > MAX_ENTRY_BYTES:
        bad(f"{size} bytes, an entry {MAX_ENTRY_BYTES} or fewer (trim the recording)")
    with open(os.path.join(path, "how")) as f:
        how = f.read()
    lines = [x for x in how.splitlines() if x.strip()]
    if len(lines) != 1 or not all(k in lines[0] for k in ("command:", "machine:", "kernel:")):
        bad("how is one line that names the command:, the machine: and the kernel:")
    try:
        _p, text = arrivals.read_text(os.path.join(path, "trace.txt.xz"))
        rec = arrivals.parse(text, os.path.join(path, "trace.txt.xz"))
    except arrivals.TraceError as e:
        bad(str(e))
    seconds = (rec.end_ns - rec.start_ns) / 1e9
    if seconds < MIN_SECONDS:
        bad(f"the trace lasts {seconds:.1f} s, a recording {MIN_SECONDS} s or more")
    cpu = {}
    for s in rec.sources:
        cpu[s.cpu] = cpu.get(s.cpu, 0) + len(s.times_ns)
    if max(cpu.values()) < MIN_CPU_IRQS:
        bad(f"at most {max(cpu.values())} device interrupts on a CPU, a recording "
            f"{MIN_CPU_IRQS} or more on some CPU")
    try:
        table = workloads.load(os.path.join(path, "workload.toml"))
    except workloads.WorkloadError as e:
        bad(str(e))
    want = PREFIX + name
    if list(table) != [want]:
        bad(f"workload.toml holds {', '.join(table)}, not the one workload {want}")
    w = table[want]
    have = workloads.read_lists(w.lists)
    lists = arrivals.choose(rec, MAX_SOURCES, GUEST_CPUS, {}, lambda _m: None)
    made = {ls.name: ",".join(map(str, ls.intervals)) for ls in lists}
    if have != made:
        bad("workload.lists is not what trace2workload.py makes of trace.txt.xz "
            "(run perf-scripts/record-load.sh again, or convert the trace again)")
    if w.seconds != arrivals.window_s(lists):
        bad(f"the workload's window ({w.seconds} s) is not the one that holds its lists "
            f"({arrivals.window_s(lists)} s)")
    guest = {}
    for ls in lists:
        guest[ls.guest_cpu] = guest.get(ls.guest_cpu, 0) + len(ls.intervals)
    if max(guest.values()) < MIN_CPU_IRQS:
        bad(f"the replay plays at most {max(guest.values())} interrupts on a guest CPU, "
            f"{MIN_CPU_IRQS} or more on some CPU")
    return Entry(name, want, lines[0], seconds, cpu, guest, len(lists))


def keep(text, max_bytes=None):
    """(xz bytes, seconds kept) of a perf script trace's text, cut to its
    first whole lines so that the xz file stays within max_bytes (default:
    what MAX_ENTRY_BYTES leaves to the trace beside the lists and the
    rest, a quarter): the whole text when it fits.  The cut keeps the
    beginning (the sources keep their phases) and may leave too little
    for check(), which says so."""
    budget = max_bytes or MAX_ENTRY_BYTES * 3 // 4
    lines = text.splitlines(keepends=True)
    n = len(lines)
    while True:
        data = lzma.compress("".join(lines[:n]).encode(), preset=9)
        if len(data) <= budget or n <= 1:
            break
        # compressed size is about proportional to lines; aim a tenth under
        n = max(1, min(n - 1, int(n * budget / len(data) * 0.9)))
    stamps = [m for m in (arrivals._LINE.search(x) for x in lines[:n]) if m]
    secs = 0.0
    if stamps:
        first, last = stamps[0], stamps[-1]
        secs = (int(last.group(2)) - int(first.group(2))
                + (int(last.group(3).ljust(9, "0")) - int(first.group(3).ljust(9, "0"))) / 1e9)
    return data, secs, n < len(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--keep"]:
        # record-load.sh: TRACE.txt -> OUT.xz, cut to fit; prints what it kept
        if len(argv) != 3:
            print("usage: python3 -m idlebench.recordings --keep TRACE.txt OUT.xz", file=sys.stderr)
            return 2
        with open(argv[1]) as f:
            data, secs, cut = keep(f.read())
        with open(argv[2], "wb") as f:
            f.write(data)
        print(f"the first {secs:.1f} s (cut to fit {MAX_ENTRY_BYTES} bytes)" if cut else "all of it")
        return 0
    paths = argv or entries()
    if not paths:
        print(f"recordings: no entry under {workloads.RECORDINGS}", file=sys.stderr)
        return 1
    st = 0
    for p in paths:
        try:
            e = check(p)
        except CorpusError as err:
            print(f"FAIL {err}")
            st = 1
            continue
        irqs = ", ".join(f"CPU {c}: {n}" for c, n in sorted(e.cpu_irqs.items()))
        print(f"ok {e.workload}: {e.seconds:.1f} s, device interrupts {irqs}; "
              f"{e.sources} sources replayed")
    return st


if __name__ == "__main__":
    sys.exit(main())
