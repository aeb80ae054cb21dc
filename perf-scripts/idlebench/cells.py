"""A bench run's directory and its cells: one boot each, one directory each.

Every `make bench` run writes a directory of its own, named by its start
(UTC) as rcutorture's kvm.sh names its results:

    build/bench/YYYY.MM.DD-HH.MM.SS[-quick|-costload]/   one run (BENCH below)
    build/bench/latest -> YYYY.MM.DD-...       the newest run
    BENCH/run.json           the run's bench.py arguments (--resume reads them)

(new_run(), find_run()).  A directory named with --out holds the same
layout.

    BENCH/cells/CELL/        console.log, qemu.cmd, launch.info,
                             verdict (guest-image/judge.sh's, or the host's
                             when parsing failed), meta.json (the cell, without
                             the verdict), parsed.json (the numbers, without
                             meta), results/WORKLOAD/ (raw data)
    BENCH/cells/CELL.run/    a cell being run; renamed to CELL when done
    BENCH/cells/CELL/rerun-N/  a later boot of the workloads CELL lacked
                             (its own console.log, results/, verdict);
                             what it measured is moved into CELL/results/

A cell is written under CELL.run/ and renamed in one step; JSON files are
written to a temporary name and renamed (atomic_write), so a full disk or
a kill leaves the earlier cell as it was.  A cell whose verdict is PASS,
whose parsed.json exists and whose meta matches what would run now
(workloads, windows, seed, kernel image, guest image, kernel command
line) is not run again,
except for the workloads its parsed.json lacks or marks failed
(missing()): those boot again, alone, and merge into it (merge())."""
import glob
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass, field

from . import linuxtree
from .workloads import TOP

# make bench's runs (of the tree LINUX names), each in a directory named
# by its start, and the link to the newest of them
RUNS = os.path.join(linuxtree.BUILD, "bench")
LATEST = "latest"
# the modes of cells that measure the selection cost with the kernel's
# probe (idlebench/cost.py): the cost stage, and the cost-load stage
# (bench.py --cost-load) with its workloads of growing load
COST_MODES = ("cost", "costload")


@dataclass
class Cell:
    config: str
    vcpus: int
    repeat: int
    mode: str                   # icount, real, cost or costload
    works: list                 # [(workload, seconds)]
    seed: int = None            # the repeat unless given (launch.py derives from it)
    only: tuple = None          # the workloads this boot runs, when not all:
                                # a rerun of those a kept cell lacks
    name: str = field(init=False)

    def __post_init__(self):
        if self.seed is None:
            self.seed = self.repeat
        self.name = f"{self.config}-{self.vcpus}cpu-{self.mode}-r{self.repeat}"

    @property
    def boot_works(self):
        """[(workload, seconds)] this boot runs: works, or those of only."""
        return [(w, s) for w, s in self.works if self.only is None or w in self.only]


def atomic_write(path, text):
    """Write path in one rename; on an error (a full disk) no .tmp stays."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_SHA = {}


def file_id(path):
    """sha256 of a kernel or guest image (cached per process)."""
    if path not in _SHA:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _SHA[path] = h.hexdigest()
    return _SHA[path]


def read_json(path):
    """The JSON of path, or None when it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def verdict(d):
    """The cell's verdict (its verdict file), or a FAIL saying it has none."""
    try:
        with open(os.path.join(d, "verdict")) as f:
            return f.read().strip() or "FAIL: empty verdict"
    except OSError:
        return "FAIL: no verdict"


def missing(d, cell, kernel, image, cmdline):
    """The workloads of cell to run: none when d holds all of them, those
    it lacks or marks failed when d is a cell to keep, every one otherwise.
    A cell is kept when it passed, was parsed, and ran with the same
    workloads, seed, kernel image, guest image (mkinitramfs.sh makes the
    same image from the same inputs, so a change to bench.sh reruns the
    cells) and kernel command line (meta.json's cmdline, which carries
    every workload's parameters: a changed period in workloads.toml reruns
    the cells that run it; cmdline None, a line that cannot be made, keeps
    none).  A cost cell (COST_MODES) is kept or run whole: whole again
    when its parsed.json marks one of its workloads failed."""
    every = [w for w, _ in cell.works]
    meta = read_json(os.path.join(d, "meta.json"))
    parsed = read_json(os.path.join(d, "parsed.json"))
    if not (meta and parsed is not None and verdict(d).startswith("PASS") and
            meta.get("workloads") == dict(cell.works) and meta.get("seed") == cell.seed and
            meta.get("kernel_sha256") == file_id(kernel) and
            meta.get("image_sha256") == file_id(image) and
            cmdline is not None and meta.get("cmdline") == cmdline):
        return every
    if cell.mode in COST_MODES:
        return every if parsed.get("failed") else []
    runs = parsed.get("runs") or {}
    return [w for w in every if w not in runs]


def done(d, cell, kernel, image, cmdline):
    """Nothing of cell is left to run (missing())."""
    return not missing(d, cell, kernel, image, cmdline)


def next_rerun(final):
    """The directory of final's next rerun boot, rerun-N (N past every
    one there, a half-merged one included)."""
    n = [int(x.rsplit("-", 1)[1]) for x in os.listdir(final)
         if x.startswith("rerun-") and x.rsplit("-", 1)[1].isdigit()] \
        if os.path.isdir(final) else []
    return os.path.join(final, f"rerun-{max(n, default=0) + 1}")


def finish(work, final, meta, verdict_line, parsed):
    """Write the verdict, parsed.json and meta.json into work, then put
    work in final's place in one rename."""
    with open(os.path.join(work, "verdict"), "w") as f:
        f.write(verdict_line + "\n")
    if parsed is not None:
        atomic_write(os.path.join(work, "parsed.json"), json.dumps(parsed, default=str))
    atomic_write(os.path.join(work, "meta.json"), json.dumps(meta, indent=1))
    if os.path.exists(final):
        shutil.rmtree(final)
    os.replace(work, final)


def merge(work, final, boot, verdict_line, parsed):
    """A rerun boot of some of final's workloads (work, its run directory)
    into the kept cell final.  work becomes final/rerun-N; each workload it
    measured moves into final/results/ (the failed attempt's directory to
    rerun-N/replaced/); one it did not keeps its mark, now with the rerun's
    reason and log; then parsed.json, then meta.json, which lists the
    boot in "reruns".  A kill part way leaves the workload marked failed
    in parsed.json, so the next run boots it again."""
    sub = next_rerun(final)
    rel = os.path.relpath(sub, final)
    with open(os.path.join(work, "verdict"), "w") as f:
        f.write(verdict_line + "\n")
    os.replace(work, sub)
    kept = read_json(os.path.join(final, "parsed.json"))
    meta = read_json(os.path.join(final, "meta.json"))
    runs, failed = kept.setdefault("runs", {}), kept.setdefault("failed", {})
    names = boot["workloads"]
    if parsed is None:
        for w in names:
            failed[w] = {"reason": f"rerun boot: {verdict_line}",
                         "log": os.path.join(rel, "console.log")}
    else:
        for w, m in parsed["runs"].items():
            old = os.path.join(final, "results", w)
            if os.path.exists(old):
                os.makedirs(os.path.join(sub, "replaced"), exist_ok=True)
                os.replace(old, os.path.join(sub, "replaced", w))
            os.replace(os.path.join(sub, "results", w), old)
            runs[w] = m
            failed.pop(w, None)
        for w, f in parsed.get("failed", {}).items():
            failed[w] = dict(f, log=os.path.join(rel, f["log"]))
    atomic_write(os.path.join(final, "parsed.json"), json.dumps(kept, default=str))
    meta.setdefault("reruns", []).append(dict(boot, dir=rel, verdict=verdict_line))
    atomic_write(os.path.join(final, "meta.json"), json.dumps(meta, indent=1))


def failed_workloads(bench):
    """[(cell, workload, reason, log)] of every workload a passed cell of
    bench marks failed; log is a path (the file that shows why)."""
    out = []
    for d, meta, p in load(bench):
        for w, f in sorted(((p or {}).get("failed") or {}).items()):
            out.append((meta.get("cell", os.path.basename(d)), w, f.get("reason", "?"),
                        os.path.join(d, f.get("log", "console.log"))))
    return out


def files(bench, name):
    """(cell directory, JSON of its file name) of every finished cell of a
    bench directory that has a readable one."""
    for d in sorted(glob.glob(os.path.join(bench, "cells", "*"))):
        if d.endswith(".run") or not os.path.isdir(d):
            continue
        j = read_json(os.path.join(d, name))
        if j is not None:
            yield d, j


def load(bench):
    """Every finished cell: [(directory, meta, parsed or None)]; meta
    carries the verdict (from the verdict file, so a cell judged again
    counts as judged), parsed is None for a failed cell and holds meta as
    parsed["meta"] otherwise."""
    out = []
    for d, meta in files(bench, "meta.json"):
        meta["verdict"] = verdict(d)
        p = read_json(os.path.join(d, "parsed.json")) \
            if meta["verdict"].startswith("PASS") else None
        if p is not None:
            p["meta"] = meta
        out.append((d, meta, p))
    return out


class RunError(Exception):
    """A run directory that cannot be made or read (one line)."""


def new_run(root, quick, now=None, stage=""):
    """A new run directory under root, named by the UTC time now (default:
    the present), YYYY.MM.DD-HH.MM.SS, with -quick for a --quick run and
    -STAGE for a run of one stage alone (-costload: bench.py --cost-load);
    root/latest points to it once it exists."""
    name = (time.strftime("%Y.%m.%d-%H.%M.%S", time.gmtime(now)) + ("-quick" if quick else "")
            + (f"-{stage}" if stage else ""))
    d = os.path.join(root, name)
    try:
        os.makedirs(root, exist_ok=True)
        os.mkdir(d)
    except FileExistsError:
        raise RunError(f"{d} exists already (a run started in the same second)") from None
    link = os.path.join(root, LATEST)
    tmp = link + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(name, tmp)
    os.replace(tmp, link)
    return d


def find_run(arg, root=None):
    """The directory of a run given as a path or as a name under root
    (default RUNS: latest, or a date as new_run() names it); latest read
    through to the run it points to, so that a report names the run and
    not the link.  RunError when there is none."""
    d = arg if os.path.isdir(arg) or os.sep in arg else os.path.join(root or RUNS, arg)
    if os.path.islink(d):
        d = os.path.join(os.path.dirname(d), os.readlink(d))
    if not os.path.isdir(d):
        hint = " (make bench makes one)" if os.path.basename(d) == LATEST else ""
        raise RunError(f"no run directory {d}{hint}")
    return os.path.abspath(d)


def has_cells(bench):
    """bench holds at least one finished cell (cells/CELL/meta.json)."""
    return any(True for _ in files(bench, "meta.json"))
