"""The table of workloads: perf-scripts/workloads.toml (and any file a user
names with --workload-file) read into Workload records.  Every other
module takes a workload's facts from here: its timing mode, window, guest
commands, generator sources, host traffic.

A workload's facts flow one way: the plan puts its window into a Cell
(idlebench/plan.py), and launch.guest_words() makes the words of
guest-image/guest/bench.sh from the Cell and these records.
"""
import os
import re
import tomllib
from dataclasses import dataclass, replace

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILTIN = os.path.join(TOP, "perf-scripts", "workloads.toml")
# the corpus of real recordings: RECORDINGS/NAME/workload.toml (workload
# rec_NAME) and its how line (perf-scripts/record-load.sh writes both;
# idlebench/recordings.py checks them)
RECORDINGS = os.path.join(TOP, "perf-scripts", "recordings")
TIMINGS = ("icount", "real")
TRAFFIC_MODES = ("periodic", "two", "burst", "poisson")
PROBE_US = 10100
# hpet_irqgen (series, drivers/misc/hpet-irqgen.c): at most this many
# sources at once (one HPET comparator each), and a periodic source's
# jitter_us below half its period_us; it takes any period_us above 0; a
# list source at most GEN_LIST_MAX intervals (IRQGEN_LIST_MAX), each of
# 1 us to GEN_MAX_US (IRQGEN_MAX_US)
GEN_MAX_SOURCES = 8
GEN_LIST_MAX = 65536
GEN_MAX_US = 10000000
# a gen line's intervals_us=@NAME: the list NAME of the workload's lists file
LIST_REF = re.compile(r"^intervals_us=@([a-z0-9_]+)$")
LIST_NAME = re.compile(r"^[a-z0-9_]+$")


class WorkloadError(Exception):
    """A workload file that cannot be used, with the file and the entry."""


@dataclass(frozen=True)
class Traffic:
    """Host UDP traffic (perf-scripts/udpgen.c) into the guest's NICs."""
    mode: str
    period_us: int
    period2_us: int = 0
    burst: int = 0
    seed: int = 0

    @property
    def streams(self):
        return 2 if self.mode == "two" else 1

    def udpgen_args(self, ports):
        """udpgen's arguments, the streams sent to ports[0] (and ports[1])."""
        a = ["-m", self.mode, "-p", str(ports[0]), "-P", str(self.period_us)]
        if self.mode == "two":
            a += ["-q", str(ports[1]), "-Q", str(self.period2_us)]
        if self.burst:
            a += ["-n", str(self.burst)]
        if self.seed:
            a += ["-s", str(self.seed)]
        return a


@dataclass(frozen=True)
class Workload:
    name: str
    timing: str
    seconds: int
    default: bool = False
    about: str = ""
    cyclictest_us: int = PROBE_US
    rtc_hz: int = 0
    blk_period_us: int = 0
    pipe_loops: int = 0
    pipe_period_us: int = 0
    gen: tuple = ()
    traffic: Traffic = None
    lists: str = ""         # the lists file (absolute path), or none
    recording: str = ""     # a real recording's how line (RECORDINGS), or none
    min_vcpus: int = 1      # the fewest vCPUs it runs on (gen_cpus() at least)

    @property
    def needs_vcpus(self):
        """The fewest vCPUs its guest needs: min_vcpus, and one more than
        the highest numbered CPU of its generator sources (hpet_irqgen
        refuses a CPU the guest does not have; cpu=last is any guest's)."""
        return max(self.min_vcpus, gen_cpus(self.gen))

    def list_refs(self):
        """The list names its gen lines name (intervals_us=@NAME), in order."""
        return [m.group(1) for g in self.gen for w in g.split() for m in [LIST_REF.match(w)] if m]

    @property
    def device(self):
        """Driven by a device (or what stands for one): the report holds
        these to the device-interrupt targets (report/tables.py TARGETS)."""
        return bool(self.rtc_hz or self.blk_period_us or self.gen or self.traffic)

    @property
    def gen_rate(self):
        """Arrivals per second of its generator sources, from their lines
        (periodic and poisson: one per period_us or mean_us; burst: n per
        period_us; onoff: those of on_us in every on_us + off_us); None
        when a source has no rate of its own (a list) or there is none."""
        total = 0.0
        for line in self.gen:
            kv = gen_fields(line)
            proc = kv.get("proc")
            try:
                if proc in ("periodic", "poisson"):
                    total += 1e6 / int(kv["period_us" if proc == "periodic" else "mean_us"])
                elif proc == "burst":
                    total += int(kv["n"]) * 1e6 / int(kv["period_us"])
                elif proc == "onoff":
                    per = int(kv["on_us"]) // int(kv["period_us"])
                    total += per * 1e6 / (int(kv["on_us"]) + int(kv["off_us"]))
                else:
                    return None
            except (KeyError, ValueError, ZeroDivisionError):
                return None
        return total if self.gen else None

    def mode(self, timing):
        """The timing mode under --timing TIMING (mixed: the workload's own;
        icount: -icount unless the host sends traffic)."""
        if timing == "mixed":
            return self.timing
        if timing == "icount" and self.traffic is None:
            return "icount"
        return "real"


def read_lists(path):
    """{name: intervals} of a lists file (perf-scripts/trace2workload.py
    writes them): one list per line, "NAME [KEY=VALUE ...]
    intervals_us=US,US,...", '#' lines are comments; intervals is the
    comma-separated text as the generator takes it.  Raises ValueError
    with the line that is wrong."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror}") from None
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split()
        name, kv = words[0], dict(w.split("=", 1) for w in words[1:] if "=" in w)
        where = f"{path}:{n}"
        if not LIST_NAME.match(name) or len(kv) != len(words) - 1:
            raise ValueError(f"{where}: want NAME (a-z, 0-9, _) then KEY=VALUE words")
        if name in out:
            raise ValueError(f"{where}: list {name} given twice")
        iv = kv.get("intervals_us", "")
        nums = iv.split(",")
        if not iv or not all(x.isascii() and x.isdigit() and 0 < int(x) <= GEN_MAX_US
                             for x in nums):
            raise ValueError(f"{where}: intervals_us must be whole microseconds from 1 to "
                             f"{GEN_MAX_US}, comma-separated")
        if len(nums) > GEN_LIST_MAX:
            raise ValueError(f"{where}: {len(nums)} intervals, hpet_irqgen takes at most "
                             f"{GEN_LIST_MAX}")
        out[name] = iv
    return out


def gen_fields(line):
    """{key: value} of a generator source line ("cpu=0 proc=periodic
    period_us=1000 jitter_us=50")."""
    return dict(f.split("=", 1) for f in line.split() if "=" in f)


def gen_cpus(gen):
    """The vCPUs that generator source lines need: one more than their
    highest cpu=N (1 for none, or cpu=last)."""
    return 1 + max((int(kv["cpu"]) for kv in map(gen_fields, gen)
                    if kv.get("cpu", "").isdigit()), default=0)


_INTS = ("seconds", "cyclictest_us", "rtc_hz", "blk_period_us", "pipe_loops",
         "pipe_period_us", "min_vcpus")
_KEYS = set(_INTS) | {"timing", "default", "about", "gen", "traffic", "lists"}


def _workload(name, t, src):
    where = f"{src}: [{name}]"

    def bad(msg):
        raise WorkloadError(f"{where}: {msg}")
    if not name.replace("_", "").isalnum() or not name[0].isalpha() or name != name.lower():
        bad("a name is lower-case letters, digits and '_', starting with a letter")
    extra = set(t) - _KEYS
    if extra:
        bad(f"unknown key {', '.join(sorted(extra))} (known: {', '.join(sorted(_KEYS))})")
    if t.get("timing") not in TIMINGS:
        bad(f"timing must be one of {', '.join(TIMINGS)}")
    for k in _INTS:
        if k in t and (not isinstance(t[k], int) or isinstance(t[k], bool) or t[k] <= 0):
            bad(f"{k} must be a positive whole number")
    if "seconds" not in t:
        bad("seconds is missing")
    gen = t.get("gen", [])
    if not isinstance(gen, list) or not all(isinstance(g, str) and g for g in gen):
        bad("gen must be a list of hpet_irqgen source lines")
    if any("," in g or "seed=" in g for g in gen):
        bad("a gen line has no ',' and no seed= (the guest adds the seed)")
    if len(gen) > GEN_MAX_SOURCES:
        bad(f"gen has {len(gen)} sources, hpet_irqgen takes at most {GEN_MAX_SOURCES}")
    for g in gen:
        kv = gen_fields(g)
        if kv.get("proc") == "periodic":
            per, jit = kv.get("period_us", ""), kv.get("jitter_us", "0")
            if not per.isdigit() or not jit.isdigit() or int(per) <= 0:
                bad(f"'{g}': a periodic source needs period_us > 0 (whole microseconds)")
            if 2 * int(jit) >= int(per):
                bad(f"'{g}': jitter_us must be below half of period_us (hpet_irqgen refuses it)")
        once = kv.get("once", "0")
        if once not in ("0", "1") or (once == "1" and kv.get("proc") != "list"):
            bad(f"'{g}': once= is 0 or 1, and only for proc=list")
    if "min_vcpus" in t and t["min_vcpus"] < gen_cpus(gen):
        bad(f"min_vcpus is {t['min_vcpus']}, but its gen lines use {gen_cpus(gen)} CPUs")
    lists = t.get("lists", "")
    if not isinstance(lists, str):
        bad("lists must be the name of a lists file")
    if lists:
        lists = os.path.join(os.path.dirname(os.path.abspath(src)), lists)
        try:
            have = read_lists(lists)
        except ValueError as e:
            bad(f"lists: {e}")
    for g in gen:
        for w in g.split():
            if w.startswith("intervals_us=@") and not LIST_REF.match(w):
                bad(f"'{g}': a list is named intervals_us=@NAME (a-z, 0-9, _)")
            m = LIST_REF.match(w)
            if m and not lists:
                bad(f"'{g}': names list {m.group(1)}, but the workload has no lists file")
            if m and m.group(1) not in have:
                bad(f"'{g}': {lists} has no list {m.group(1)}")
    traffic = None
    if "traffic" in t:
        tr = t["traffic"]
        try:
            traffic = Traffic(**tr)
        except TypeError as e:
            bad(f"traffic: {e}")
        if traffic.mode not in TRAFFIC_MODES:
            bad(f"traffic mode must be one of {', '.join(TRAFFIC_MODES)}")
        if traffic.mode == "two" and not traffic.period2_us:
            bad("traffic mode two needs period2_us")
        if t["timing"] != "real":
            bad("host traffic has no meaning under -icount (sleep=off): timing = \"real\"")
    kw = {k: v for k, v in t.items() if k not in ("gen", "traffic", "lists")}
    return Workload(name=name, gen=tuple(gen), traffic=traffic, lists=lists, **kw)


def load(path):
    """{name: Workload} of one TOML file, in file order."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise WorkloadError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise WorkloadError(f"{path}: not TOML: {e}") from None
    out = {}
    for name, t in data.items():
        if not isinstance(t, dict):
            raise WorkloadError(f"{path}: '{name}' is not a table ([{name}])")
        out[name] = _workload(name, t, path)
    if not out:
        raise WorkloadError(f"{path}: no workload")
    return out


def corpus(root=RECORDINGS):
    """{name: Workload} of the real recordings under root, by folder name,
    each with its how line as recording."""
    out = {}
    for d in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        f = os.path.join(root, d, "workload.toml")
        if not os.path.isfile(f):
            continue
        try:
            with open(os.path.join(root, d, "how")) as h:
                how = h.read().strip()
        except OSError:
            how = ""
        if not how:
            raise WorkloadError(f"{f}: a recording without its how line ({d}/how)")
        for name, w in load(f).items():
            out[name] = replace(w, recording=how)
    return out


def table(extra=None):
    """The built-in workloads, the real recordings (corpus()), then those
    of the file extra (which may replace one of the same name)."""
    t = load(BUILTIN)
    t.update(corpus())
    if extra:
        t.update(load(extra))
    return t
