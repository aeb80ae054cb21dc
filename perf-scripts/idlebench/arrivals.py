"""Device-interrupt arrivals of a recorded trace, and the generator's list
sources that replay them (perf-scripts/trace2workload.py, the replay check
scripts/tests/replay-workload.sh).

A trace is either `perf script --ns` text (perf-scripts/record.sh) or
tracefs text (the bench's trace.txt):

      swapper     0 [001]   812.000123456: irq:irq_handler_entry: irq=24 name=eth0
       <idle>-0   [001] d.h1.   812.000123: irq_handler_entry: irq=24 name=eth0

An arrival is one irq_handler_entry of a source, a (IRQ, CPU) pair.  A
shared line runs every handler of the line on each interrupt, each with
its own irq_handler_entry: only the handler seen first on a source counts,
so that one interrupt is one arrival.

A source becomes an hpet_irqgen list (series, drivers/misc/hpet-irqgen.c):
its arrivals in whole microseconds from the start of the trace (its first
event), as intervals, the first one from that start, so that every source
of the replay keeps its phase to the others.  Rounding the times rather
than the intervals keeps every replayed arrival within half a microsecond
of the recorded one; two arrivals that round to the same microsecond are
kept 1 us apart (the generator takes no interval of 0).  The generator
takes at most GEN_LIST_MAX intervals per source, none above GEN_MAX_US:
a source is cut before the first one it cannot take.
"""
import gzip
import json
import lzma
import os
import re
from dataclasses import dataclass, field

from .workloads import GEN_LIST_MAX, GEN_MAX_US

# [CPU], then anything (flags), then the stamp, then the event with or
# without its system ("irq:irq_handler_entry:" or "irq_handler_entry:")
_LINE = re.compile(r"\[(\d+)\].*?\s(\d+)\.(\d{1,9}):\s+(?:\w+:)?(\w+):\s*(.*)$")
_IRQ = re.compile(r"\birq=(\d+)\s+name=(\S+)")
# the lead of hpet_irqgen: its first arrival comes this long after start
LEAD_US = 1000
# the window's margin after the last arrival
MARGIN_US = 100000


class TraceError(Exception):
    """A trace that cannot be read or holds no interrupt, with its file."""


@dataclass
class Source:
    irq: int
    cpu: int
    name: str
    times_ns: list = field(default_factory=list)   # every arrival, in order
    others: set = field(default_factory=set)       # other handlers of the line

    @property
    def key(self):
        return f"irq {self.irq} ({self.name}) on CPU {self.cpu}"


@dataclass
class Recording:
    path: str
    start_ns: int
    end_ns: int
    sources: list          # [Source], busiest first


def read_text(path):
    """A trace's text: PATH, or PATH/trace.txt for a directory of
    record.sh; .gz and .xz are read as such."""
    if os.path.isdir(path):
        path = os.path.join(path, "trace.txt")
    opener = {".gz": gzip.open, ".xz": lzma.open}.get(os.path.splitext(path)[1], open)
    try:
        with opener(path, "rt", errors="replace") as f:
            return path, f.read()
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise TraceError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None


def parse(text, src="trace.txt"):
    """The Recording of a trace's text: its span (first and last event of
    any kind) and its sources, busiest first (then by IRQ and CPU)."""
    start = end = None
    sources = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.search(line)
        if not m:
            raise TraceError(f"{src}:{n}: not an event line of perf script or tracefs: "
                             f"{line.strip()[:80]}")
        cpu, t = int(m.group(1)), int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0"))
        start = t if start is None else min(start, t)
        end = t if end is None else max(end, t)
        if m.group(4) != "irq_handler_entry":
            continue
        irq = _IRQ.search(m.group(5))
        if not irq:
            raise TraceError(f"{src}:{n}: irq_handler_entry without irq= and name=: "
                             f"{line.strip()[:80]}")
        key = (int(irq.group(1)), cpu)
        s = sources.setdefault(key, Source(key[0], cpu, irq.group(2)))
        if irq.group(2) != s.name:
            s.others.add(irq.group(2))
            continue
        if s.times_ns and t < s.times_ns[-1]:
            raise TraceError(f"{src}:{n}: {s.key} goes back in time "
                             f"({t} ns after {s.times_ns[-1]} ns): not one CPU's ordered trace")
        s.times_ns.append(t)
    if not sources:
        raise TraceError(f"{src}: no irq_handler_entry event (record with "
                         "perf-scripts/record.sh, or trace irq:irq_handler_entry)")
    ranked = sorted(sources.values(), key=lambda s: (-len(s.times_ns), s.irq, s.cpu))
    return Recording(src, start, end, ranked)


def list_us(times_ns, start_ns):
    """(intervals in us, arrivals moved 1 us later to stay apart, why the
    list was cut or None): arrival times rounded to whole microseconds
    from start_ns, as intervals for the generator."""
    out, prev, nudged, cut = [], 0, 0, None
    for i, t in enumerate(times_ns):
        us = (t - start_ns + 500) // 1000
        if us <= prev:
            us, nudged = prev + 1, nudged + 1
        if us - prev > GEN_MAX_US:
            cut = (f"cut at arrival {i + 1} of {len(times_ns)}: a gap of "
                   f"{(us - prev) / 1e6:.1f} s, above the generator's {GEN_MAX_US // 10**6} s")
            break
        if len(out) == GEN_LIST_MAX:
            cut = (f"cut at arrival {i + 1} of {len(times_ns)}: the generator takes "
                   f"{GEN_LIST_MAX} intervals per source")
            break
        out.append(us - prev)
        prev = us
    return out, nudged, cut


@dataclass
class ListSource:
    name: str              # the list's name in the lists file: s0, s1, ...
    source: Source
    guest_cpu: int
    intervals: list

    def line(self):
        """Its line in the lists file."""
        s = self.source
        return (f"{self.name} irq={s.irq} cpu={s.cpu} handler={s.name} guest_cpu={self.guest_cpu} "
                f"intervals_us={','.join(map(str, self.intervals))}")

    def gen(self):
        """Its generator source line in the workload file."""
        return f"cpu={self.guest_cpu} proc=list once=1 intervals_us=@{self.name}"


def guest_cpu(cpu, cpus, mapping):
    """The guest CPU of a recorded CPU: mapping's, else cpu modulo cpus."""
    return mapping.get(cpu, cpu % cpus)


def choose(rec, max_sources, cpus, mapping, note):
    """The ListSources of the max_sources busiest sources of rec; note(msg)
    is told what was dropped or changed."""
    out = []
    for s in rec.sources:
        if s.others:
            note(f"{s.key}: shared with {', '.join(sorted(s.others))}; "
                 f"counted once per interrupt, from {s.name}")
        if len(out) == max_sources:
            note(f"dropped {s.key}: {len(s.times_ns)} arrivals (only the {max_sources} "
                 "busiest sources are kept)")
            continue
        iv, nudged, cut = list_us(s.times_ns, rec.start_ns)
        if nudged:
            note(f"{s.key}: {nudged} arrivals within 1 us of the previous one moved to 1 us after it")
        if cut:
            note(f"{s.key}: {cut}")
        if not iv:
            note(f"dropped {s.key}: no arrival the generator can replay")
            continue
        out.append(ListSource(f"s{len(out)}", s, guest_cpu(s.cpu, cpus, mapping), iv))
    return out


def window_s(lists):
    """Whole seconds of a window that holds every list played once (the
    generator's lead, the longest list, a margin)."""
    last = max(sum(ls.intervals) for ls in lists)
    return max(1, -(-(LEAD_US + last + MARGIN_US) // 10**6))


def workload_toml(name, rec, lists, lists_file, cpus):
    """A workload file in workloads.toml's form that replays lists."""
    n = sum(len(ls.intervals) for ls in lists)
    span = (rec.end_ns - rec.start_ns) / 1e9
    head = ["# Written by perf-scripts/trace2workload.py from the trace named in",
            "# about: the interrupt arrivals of its busiest (IRQ, CPU) sources,",
            f"# each replayed once by an hpet_irqgen list source on a guest of {cpus} vCPUs;",
            f"# the intervals are in {lists_file}, beside this file.",
            "#   list  recorded source -> guest CPU: arrivals"]
    head += [f"#   {ls.name}    {ls.source.key} -> CPU {ls.guest_cpu}: {len(ls.intervals)}"
             for ls in lists]
    gen = ",\n       ".join(f'"{ls.gen()}"' for ls in lists)
    return "\n".join(head) + f"""
[{name}]
about = {json.dumps(f"replay of {rec.path}: {len(lists)} sources, {n} interrupts in {span:.1f} s")}
timing = "icount"
seconds = {window_s(lists)}
min_vcpus = {1 + max(ls.guest_cpu for ls in lists)}
lists = {json.dumps(lists_file)}
gen = [{gen}]
"""


def lists_text(rec, lists):
    return (f"# hpet_irqgen lists of {rec.path}: NAME, the recorded source, the guest "
            "CPU, then the intervals in us\n" + "".join(ls.line() + "\n" for ls in lists))
