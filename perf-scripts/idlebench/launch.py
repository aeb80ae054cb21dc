"""Launching one cell: its kernel command line, the archive of its own
files appended to the initramfs (its guest words, its generator lists),
its QEMU devices, the host traffic it needs, guest-image/run-qemu.sh
(boot, collect, judge), then the host-side post-processing and the
cell's files (cells.finish, or cells.merge for a boot of only the
workloads a kept cell lacks).

A workload whose output is missing or does not parse fails alone: the
cell keeps the others and parsed.json marks it under "failed" with the
reason and the log that shows it (a path relative to the cell)."""
import hashlib
import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass

from . import cells, cost, parse, trace
from .configs import CONFIGS
from .workloads import TOP, read_lists

# every bench boot, cost boots too: no KUnit at boot (make test runs it;
# it delays user space by a different time in each kernel), and no PS/2
# controller, whose probe falls inside the first window
# (report/sources.py checks the windows' interrupt sources)
QUIET_ARGS = "kunit.enable=0 initcall_blacklist=i8042_init"
RUN_QEMU = os.path.join(TOP, "guest-image", "run-qemu.sh")
# The NICs of a cell with host traffic: MAC, guest address, the UDP port
# the host forwards into it (udpgen sends to 127.0.0.1:PORT).
NICS = (("52:54:00:00:be:01", "10.0.2.15", 5001), ("52:54:00:00:be:02", "10.0.3.15", 5002))
PORTS = [n[2] for n in NICS]
# every boot: 8 HPET comparators for the generator (QEMU's default is 3;
# the guest reads the count from the HPET itself, not from ACPI)
HPET_COMPARATORS = 8
# Host traffic runs TRAFFIC_MARGIN seconds past its window: udpgen sends
# and the guest's receiver listens for traffic_seconds() (guest word
# NAME.udpsecs), the one place that sum is made.
TRAFFIC_MARGIN = 3
# The generator's sources of one boot are seeded from the cell's seed:
# source i (0-based, in its workload's order) gets gen_seed(seed, i)
# (guest word NAME.gen=...,seed=N), so that every source of a cell has a
# seed of its own and another seed moves them all.
GEN_SEEDS_PER_CELL = 64
# Where a boot's windows start against the tick: each opens
# window_phase_us(seed) after its recorders record (guest word set.phase),
# so that repeats of other seeds start at other phases of the tick.
PHASE_STEP_US, PHASE_SPAN_US = 7919, 10000
# Boot words of every measurement boot.  hpet=disable: the HPET is left to
# the generator (and the RTC gets IRQ 8).  trace_event=: the events are
# enabled at boot, before the other CPUs come up, and only tracing_on is
# toggled around each window: flipping their static keys at run time
# patches kernel text under the other vCPUs' feet, which has crashed
# multi-threaded TCG guests (guest-image/README.md).  A kernel without
# sched_idle ignores those.  irq_predict:*: the predictor's exact inputs
# and answers (lost stamps and table resets included), for an exact replay
# in idle-loop/.  timer:*: the hrtimer and timer-wheel events the replayed
# menu and teo need for their sleep length (without them the governor
# rows of a replay are rough); no_hash_pointers, or every timer's address
# prints as the same hashed placeholder in an -icount guest.
COMMON_ARGS = ("hpet=disable no_hash_pointers " + QUIET_ARGS + " "
               "trace_event=power:cpu_idle,irq:irq_handler_entry,"
               "sched_idle:sched_idle_select,irq_predict:irq_predict_stamp,"
               "irq_predict:irq_predict_next,"
               "irq_predict:irq_predict_lost,irq_predict:irq_predict_reset,"
               "timer:hrtimer_start,timer:hrtimer_cancel,timer:hrtimer_expire_entry,"
               "timer:timer_start,timer:timer_cancel,timer:timer_expire_entry")
# real time only: multi-threaded TCG trips the clocksource watchdog, the
# TSC is marked unstable and the emulated driver's exit spin can stall a
# CPU; under -icount the option hangs the early boot
REAL_ARGS = "tsc=reliable"
# real time: TCG threads (run-qemu.sh -T)
REAL_THREADS = "single"
CMDLINE_MAX = 2048  # x86 COMMAND_LINE_SIZE
# What a boot's guest reads besides the image goes in an archive of its
# own that the host appends to the initramfs (the kernel unpacks every
# archive of the initrd in turn), not on the command line, which holds
# at most CMDLINE_MAX bytes: the generator lists of its workloads
# (LISTS_DIR/WORKLOAD/NAME, hundreds of KiB; each workload's words carry
# their digest) and its words, one a line, in WORDS_DIR/DIGEST, DIGEST
# that of the file (words_file()), which the command line names as
# guest.args=@/WORDS_DIR/DIGEST.  The words alone outgrow the line: a
# boot of the five real recordings (perf-scripts/recordings/) has 1,858
# bytes of them, beside the ~570 of the boot options and run-qemu.sh's.
LISTS_DIR = "bench-lists"
WORDS_DIR = "bench-words"


def traffic_seconds(window):
    """How long udpgen sends and the guest receives for a window."""
    return window + TRAFFIC_MARGIN


def gen_seed(seed, i):
    """The seed of a boot's generator source i of a workload."""
    return seed * GEN_SEEDS_PER_CELL + i


def window_phase_us(seed):
    """How long after its recorders record a window of a boot of seed
    opens (us)."""
    return seed * PHASE_STEP_US % PHASE_SPAN_US


class LaunchError(Exception):
    """A cell that cannot be started as asked (one line for the user)."""


@dataclass
class Setup:
    """What every cell of a run shares."""
    workloads: dict
    kernels: str            # directory of the kernel images
    initrd: str
    disk: str               # the block workload's disk image
    udpgen: str
    shift: int = 0


# The cost cells (both stages, cells.COST_MODES): the kernel's probe on
# (cost.py); no trace event, nothing reads a trace there.
COST_ARGS = "hpet=disable " + QUIET_ARGS + " cpuidle_cost.enable=1"


def guest_words(cell, table):
    """Every word of guest-image/guest/bench.sh for one boot of cell (they
    reach it in a file, words_file(); bench.sh's header says what each
    means), and the only place they are made: the configuration's
    set. words and the windows' phase, the NICs when a workload takes
    host traffic, then for each workload of the boot NAME=SECONDS, the
    window the cell holds for it, and NAME.CMD=VALUE for each command of
    its table entry, with what derives from the cell (the phase and each
    generator source's seed from its seed, the traffic's duration and
    the pipe's round trips from the window) computed here: the guest does
    no arithmetic on them."""
    ws = [(n, secs, table[n]) for n, secs in cell.boot_works]
    sets = ["set.perf=0"] if cell.mode in cells.COST_MODES else \
        list(CONFIGS[cell.config].guest_sets)
    words = sets + [f"set.phase={window_phase_us(cell.seed)}"]
    if any(w.traffic for _, _, w in ws):
        words += [f"nic={mac.replace(':', '-')},{addr}/24" for mac, addr, _ in NICS]
    for n, secs, w in ws:
        words += [f"{n}={secs}", f"{n}.ct={w.cyclictest_us}"]
        if w.list_refs():
            words.append(f"{n}.lists={lists_digest(boot_lists(n, w))}")
        if w.rtc_hz:
            words.append(f"{n}.rtc={w.rtc_hz}")
        if w.blk_period_us:
            words.append(f"{n}.blk={w.blk_period_us}")
        if w.pipe_loops:
            words.append(f"{n}.pipe={w.pipe_loops * secs}")
        if w.pipe_period_us:
            words.append(f"{n}.pipeper={w.pipe_period_us}")
        words += [f"{n}.gen={src.replace(' ', ',')},seed={gen_seed(cell.seed, i)}"
                  for i, src in enumerate(w.gen)]
        if w.traffic:
            words += [f"{n}.udp={','.join(map(str, PORTS[:w.traffic.streams]))}",
                      f"{n}.udpsecs={traffic_seconds(secs)}"]
    return words


def words_file(cell, table):
    """(path in the initramfs, text) of the file of a boot of cell's words:
    WORDS_DIR/DIGEST, one word a line, DIGEST the sha256 of the text cut
    to 16 hex digits, so that the command line that names it changes
    with any word (cells.missing() compares the lines)."""
    text = "".join(w + "\n" for w in guest_words(cell, table))
    return f"{WORDS_DIR}/{hashlib.sha256(text.encode()).hexdigest()[:16]}", text


def boot_lists(name, w):
    """{path in the initramfs: intervals} of the lists workload name's gen
    lines name."""
    have = read_lists(w.lists)
    return {f"{LISTS_DIR}/{name}/{ref}": have[ref] for ref in w.list_refs()}


def lists_digest(files):
    """What guest-image/guest/bench.sh checks the lists it finds against:
    the sha256 of the files' contents in the order of their names, cut to
    16 hex digits (cat DIR/* | sha256sum)."""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(files[path].encode())
    return h.hexdigest()[:16]


def _cpio_entry(name, mode, data=b""):
    """One entry of a newc cpio archive, padded to 4 bytes."""
    fields = (0, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name) + 1, 0)
    head = b"070701" + b"".join(b"%08X" % f for f in fields) + name.encode() + b"\0"
    return head + b"\0" * (-len(head) % 4) + data + b"\0" * (-len(data) % 4)


def boot_archive(files):
    """A newc cpio archive of files {path: text}, with their directories."""
    dirs = set()
    for p in files:
        d = os.path.dirname(p)
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    out = b"".join(_cpio_entry(d, 0o40755) for d in sorted(dirs))
    out += b"".join(_cpio_entry(p, 0o100644, files[p].encode()) for p in sorted(files))
    return out + _cpio_entry("TRAILER!!!", 0)


def boot_files(cell, table):
    """{path in the initramfs: text} of what a boot of cell reads besides
    the image: its words (words_file()) and its workloads' generator
    lists (boot_lists())."""
    files = dict([words_file(cell, table)])
    for n, _ in cell.boot_works:
        w = table[n]
        if w.list_refs():
            files.update(boot_lists(n, w))
    return files


def cell_initrd(cell, s, path):
    """path: s.initrd followed by the archive of the boot's own files
    (boot_files()).  LaunchError when it cannot be written (a full disk:
    every later cell would fail the same way)."""
    try:
        with open(s.initrd, "rb") as src, open(path + ".tmp", "wb") as out:
            shutil.copyfileobj(src, out)
            # each archive starts on 4 bytes
            out.write(b"\0" * (-out.tell() % 4) + boot_archive(boot_files(cell, s.workloads)))
        os.replace(path + ".tmp", path)
    except OSError as e:
        if os.path.exists(path + ".tmp"):
            os.unlink(path + ".tmp")
        raise LaunchError(f"cell {cell.name}: cannot write its initramfs {path}: "
                          f"{e.strerror or e}") from None
    return path


def kernel_cmdline(cell, s):
    """The command line of a boot of cell, as run-qemu.sh -a takes it: the
    boot options, and the file of its guest words (words_file(), in the
    archive cell_initrd() appends).  LaunchError when the line, with what
    run-qemu.sh adds, would not fit the kernel's CMDLINE_MAX."""
    cfg = CONFIGS[cell.config]
    head = COST_ARGS if cell.mode in cells.COST_MODES else COMMON_ARGS
    words = [head, cfg.args, f"guest.args=@/{words_file(cell, s.workloads)[0]}"]
    if cell.mode == "real":
        words.append(REAL_ARGS)
    line = " ".join(w for w in words if w)
    # run-qemu.sh adds its own ~150 characters
    if len(line) + 150 > CMDLINE_MAX:
        raise LaunchError(f"cell {cell.name}: the kernel command line would be {len(line) + 150} "
                          f"bytes, over the kernel's {CMDLINE_MAX}: configuration "
                          f"{cell.config}'s boot options (idlebench/configs.py args) are too long")
    return line


def qemu_devices(cell, s):
    """run-qemu.sh's device options of a cell."""
    ws = [s.workloads[n] for n, _ in cell.boot_works]
    dev = ["-H", str(HPET_COMPARATORS)]
    # the disk only when a workload reads it: its reads (the partition scan
    # at boot included) complete in host time, so a boot with a disk is
    # not deterministic under -icount (scripts/tests/determinism.sh)
    if any(w.blk_period_us for w in ws):
        dev += ["-D", s.disk]
    if any(w.traffic for w in ws):
        for mac, addr, port in NICS:
            dev += ["-N", f"{port}:{addr}:{mac}"]
    return dev


def run_qemu_cmd(cell, s, work, initrd=None):
    """run-qemu.sh's command of a boot of cell into work; initrd: the
    cell's own (cell_initrd(); s.initrd lacks the file of its words)."""
    cfg = CONFIGS[cell.config]
    cmd = [RUN_QEMU, "-k", os.path.join(s.kernels, cfg.kernel), "-i", initrd or s.initrd,
           "-o", work,
           "-c", str(cell.vcpus), "-d", "cpuidle_emu", "-r", "bench"]
    if cfg.governor:
        cmd += ["-g", cfg.governor]
    if cfg.expect:
        cmd += ["-e", cfg.expect]
    if cell.mode != "real":
        cmd += ["-I", str(s.shift)]
    else:
        cmd += ["-T", REAL_THREADS]
    # generous: icount costs up to ~10 s of wall time per guest second on
    # 2 vCPUs, and grows with the vCPUs (one host thread runs them all);
    # -icount: OVMF prints nothing for minutes when the host is loaded
    per_s = 6 if cell.mode == "real" else max(25, 8 * cell.vcpus)
    budget = 120 + 30 * cell.vcpus + sum(secs for _, secs in cell.boot_works) * per_s
    quiet = 120 if cell.mode == "real" else 300
    return cmd + qemu_devices(cell, s) + ["-a", kernel_cmdline(cell, s),
                                          "-t", str(budget + 180), "-q", str(quiet)]


# the guest's word that its receiver listens (guest-image/guest/bench.sh
# cmd_udp): the workload's name, nothing the host does not hold already
SYNC = re.compile(r"bench-sync: start (\S+)")


class TrafficThread(threading.Thread):
    """Follows the console of a boot of cell; on the guest's 'bench-sync:
    start NAME' starts udpgen with workload NAME's traffic for the window
    the cell holds for it and its margin (traffic_seconds), its output in
    log_fmt.format(NAME).  A NAME that is not a workload of this boot with
    host traffic starts nothing: error says so in one line, and the cell
    fails with it."""

    def __init__(self, console, cell, s, log_fmt):
        super().__init__()
        self.console, self.cell, self.s, self.log_fmt = console, cell, s, log_fmt
        self.windows = {n: secs for n, secs in cell.boot_works if s.workloads[n].traffic}
        self.seen, self.error = set(), None
        self.stop = threading.Event()

    def feed(self, text, procs):
        """The sync lines of text, complete lines of the console."""
        for name in SYNC.findall(text):
            if name in self.seen:
                continue
            self.seen.add(name)
            if name not in self.windows:
                self.error = self.error or (
                    f"FAIL: bench-sync names '{name}', not a workload with traffic of "
                    f"{self.cell.name} ({','.join(self.windows) or 'none'})")
                continue
            with open(self.log_fmt.format(name), "w") as lf:
                procs.append(subprocess.Popen(
                    [self.s.udpgen] + self.s.workloads[name].traffic.udpgen_args(PORTS)
                    + ["-d", str(traffic_seconds(self.windows[name]))],
                    stdout=lf, stderr=subprocess.STDOUT))

    def run(self):
        pos, procs = 0, []
        while not self.stop.is_set():
            try:
                with open(self.console, "rb") as f:
                    f.seek(pos)
                    chunk = f.read()
            except OSError:
                chunk = b""
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                pos += nl + 1
                self.feed(chunk[:nl].decode("utf-8", "replace"), procs)
            time.sleep(0.1)
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


def host_perf(results, works):
    """perf sched latency/timehist of each workload's perf.data, on the host."""
    for name, _ in works:
        d = os.path.join(results, name)
        pd = os.path.abspath(os.path.join(d, "perf.data"))
        if not os.path.exists(pd):
            continue
        # perf records from before the window to after it (its own
        # start-up and exit); timehist keeps the window's rows: the trace's
        # span, on the same clock (local_clock)
        tr = os.path.join(d, "trace.txt")
        win = trace.span(parse._read(tr), tr) if os.path.exists(tr) else None
        for sub, out in (("timehist", "sched-timehist.txt"), ("latency", "sched-latency.txt")):
            cmd = ["perf", "sched", sub, "-i", pd]
            if sub == "timehist" and win:
                cmd.append(f"--time={win[0]:.6f},{win[1]:.6f}")
            with open(os.path.join(d, out), "w") as f:
                subprocess.run(cmd, stdout=f, stderr=subprocess.DEVNULL, cwd=d)


def summarize_cost(res, works, each=False):
    """(parsed, None) of a cost cell's probe files of works, or (None, why
    it failed).  each (the cost-load cells): a workload whose file is
    missing or bad fails alone, marked under "failed" (its reason, and the
    log that shows why: bench.sh's mark, else the console), and the cell
    fails only when none is left."""
    try:
        info = parse.parse_info(os.path.join(res, "bench-info"))
        if not each:
            return {"cost": cost.load_cell(res, works), "runs": {}, "info": info}, None
    except (OSError, parse.ParseError, cost.CostError) as e:
        return None, f"FAIL: cost: {e}"
    c, bad = cost.load_each(res, works)
    if not c:
        return None, f"FAIL: cost: {'; '.join(bad.values())}"
    failed = {}
    for w, why in bad.items():
        mark = parse.workload_failed(os.path.join(res, w))
        top = os.path.join(res, "")
        failed[w] = {"reason": mark["reason"] if mark else f"cost: {why.replace(top, '')}",
                     "log": os.path.join("results", mark["log"]) if mark else "console.log"}
    return {"cost": c, "runs": {}, "info": info, "failed": failed}, None


# A test knob: the workloads named here (comma-separated) lose their
# cyclictest.json before the parse, as a lost file would, so that a
# workload's failure and its rerun can be shown on a boot that went well.
DROP_ENV = "IDLEBENCH_DROP_OUTPUT"


def collect(cell, final, res):
    """Host-side post-processing of a PASS cell: (parsed, None) or (None,
    verdict) when the boot's own files (bench-info) are unusable.  A
    workload's failure stays in parsed["failed"], its log relative to
    the cell directory."""
    for name, _ in cell.boot_works:
        g = final + f".udpgen-{name}.log"
        if os.path.exists(g) and os.path.isdir(os.path.join(res, name)):
            shutil.move(g, os.path.join(res, name, "udpgen.log"))
    if cell.mode in cells.COST_MODES:
        return summarize_cost(res, [w for w, _ in cell.boot_works], cell.mode == "costload")
    for name in filter(None, os.environ.get(DROP_ENV, "").split(",")):
        p = os.path.join(res, name, "cyclictest.json")
        if os.path.exists(p):
            os.unlink(p)
    host_perf(res, cell.boot_works)
    try:
        parsed = parse.parse_cell(res, [w for w, _ in cell.boot_works])
    except parse.ParseError as e:
        return None, f"FAIL: parse: {e}"
    for f in parsed["failed"].values():
        f["log"] = os.path.join("results", f["log"])
    return parsed, None


def read_verdict(work, out):
    try:
        with open(os.path.join(work, "verdict")) as f:
            return f.read().strip()
    except OSError:
        return f"FAIL: run-qemu.sh gave no verdict: {out.strip()[-200:]}"


def run(cell, s, cells_dir):
    """Boot one cell; returns its meta.  A full disk raises LaunchError:
    every later cell would fail the same way."""
    final = os.path.join(cells_dir, cell.name)
    work = final + ".run"
    initrd = cell_initrd(cell, s, final + ".initrd")
    cmd = run_qemu_cmd(cell, s, work, initrd)
    shutil.rmtree(work, ignore_errors=True)
    traffic = None
    if cell.mode == "real":
        os.makedirs(work, exist_ok=True)
        traffic = TrafficThread(os.path.join(work, "console.log"), cell, s,
                                final + ".udpgen-{}.log")
        traffic.start()
    t0 = time.time()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        os.unlink(initrd)
    if traffic:
        traffic.stop.set()
        traffic.join()
    wall = time.time() - t0
    verdict = read_verdict(work, r.stdout)
    if "file system full" in verdict:
        raise LaunchError(f"cell {cell.name}: {verdict}; earlier cells in {cells_dir} untouched")
    if traffic and traffic.error:
        # host and guest disagree on the boot's workloads: nothing of it counts
        verdict = traffic.error if verdict.startswith("PASS") else \
            f"{verdict}; {traffic.error.removeprefix('FAIL: ')}"
    parsed = None
    if verdict.startswith("PASS"):
        parsed, failed = collect(cell, final, os.path.join(work, "results"))
        verdict = failed or verdict
    if cell.only is not None:
        sub = cells.next_rerun(final)
        boot = {"workloads": [w for w, _ in cell.boot_works], "wall_s": round(wall, 1),
                "cmdline": kernel_cmdline(cell, s), "guest_words": guest_words(cell, s.workloads),
                "console": os.path.join(sub, "console.log"),
                "qemu_cmd": " ".join(cmd)}
        cells.merge(work, final, boot, verdict, parsed)
        return dict(boot, cell=cell.name, verdict=verdict,
                    failed=_failed(final, boot["workloads"]))
    kernel = os.path.join(s.kernels, CONFIGS[cell.config].kernel)
    meta = {"cell": cell.name, "config": cell.config, "vcpus": cell.vcpus,
            "kernel_sha256": cells.file_id(kernel),
            "image_sha256": cells.file_id(s.initrd),
            "repeat": cell.repeat, "seed": cell.seed, "mode": cell.mode,
            "shift": s.shift if cell.mode != "real" else None,
            "workloads": dict(cell.works), "wall_s": round(wall, 1),
            "cmdline": kernel_cmdline(cell, s), "guest_words": guest_words(cell, s.workloads),
            "console": os.path.join(final, "console.log"), "qemu_cmd": " ".join(cmd)}
    cells.finish(work, final, meta, verdict, parsed)
    return dict(meta, verdict=verdict, failed=_failed(final))


def _failed(final, names=None):
    """{workload: (reason, log path)} of those of names (None: every one)
    that final's parsed.json marks failed."""
    p = cells.read_json(os.path.join(final, "parsed.json")) or {}
    return {w: (f["reason"], os.path.join(final, f["log"]))
            for w, f in (p.get("failed") or {}).items() if names is None or w in names}
