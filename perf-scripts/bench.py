#!/usr/bin/env python3
"""bench.py: the idle-governor benchmark matrix (what `make bench` runs).

Boots one guest per cell (configuration x vCPUs x repeat x timing mode)
with guest-image/run-qemu.sh, runs that cell's workloads in sequence with
perf-scripts/guest/bench.sh, parses each cell (parse.py) and finally
writes docs/results.md and docs/plots/ (report.py).

  python3 perf-scripts/bench.py [--quick] [--configs menu,teo,sched]
        [--vcpus 1,2] [--repeats N] [--workloads idle,timer,...]
        [--timing mixed|real|icount] [--shift N] [--jobs N] [--out build/bench]
        [--no-cost | --cost-only] [--dry-run] [--no-report]

Prints the planned boots and an estimated duration first (estimate()),
then one progress line per boot (i/N, elapsed, ETA).  The cost stage
boots each configuration once under -icount with function_graph on the
selection functions and the IRQ path (cost.py).

Raw data: build/bench/cells/CELL/ (console.log, results/, verdict,
parsed.json).  A cell whose verdict is PASS and whose parsed.json exists
is not run again (resume) if its workloads and the sha256 of its kernel image
are unchanged.  Standard library only.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import cost  # noqa: E402
import parse  # noqa: E402

KERNELS = os.path.join(TOP, "build", "kernels")
CONFIGS = {
    # name: (kernel image, kernel args, governor the guest must report)
    "menu": ("stock.bzImage", "cpuidle.governor=menu", "menu"),
    "teo": ("stock.bzImage", "cpuidle.governor=teo", "teo"),
    "sched": ("patched.bzImage", "", None),
    # the RFC-baseline predictor of the series (patch 5's sched_idle_rule=)
    "sched-rfc": ("patched.bzImage", "sched_idle_rule=rfc", None),
    # the debug build of the patched kernel (lockdep, KASAN, UBSAN, ...):
    # scripts/test-robust.sh runs every workload on it once, for splats,
    # not numbers; never in the default matrix.  no5lvl: 4-level paging,
    # because with QEMU's LA57 an interrupt during identify_cpu() gets a
    # false KASAN wild-memory-access (upstream bug, fixed after 6.12).
    # Its built-in rcutorture starts at boot: without the boost test and
    # the forward-progress flood (as in scripts/test-robust.sh, which says
    # why); the boost test failed once under TCG ("rtbf: 1", a WARN).
    "sched-debug": ("patched-debug.bzImage",
                    "no5lvl rcutorture.test_boost=0 rcutorture.fwd_progress=0", None),
}
# configurations a run without --configs leaves out
NOT_DEFAULT = ("sched-debug",)
DEFAULT_CONFIGS = [c for c in CONFIGS if c not in NOT_DEFAULT]
# guest settings (bench.sh set.KEY=VALUE) per configuration.  sched-debug:
# no perf sched record, whose tracepoints are switched on at run time:
# that patches kernel text while the other vCPUs run it, and under
# multi-threaded TCG it crashed one debug boot in __schedule (int3 Oops,
# the one seen in ~1 of 15 bench boots as well).
GUEST_SETS = {"sched-debug": "set.perf=0"}
# a line the console must show, proving the configuration took effect
EXPECT_CONSOLE = {"sched": "interrupt rule adaptive", "sched-rfc": "interrupt rule rfc",
                  "sched-debug": "interrupt rule adaptive"}
# configurations the full matrix runs on 1 vCPU too (sched-rfc: 2 vCPUs only,
# see perf-scripts/README.md "Budget")
ONE_VCPU_CONFIGS = ("menu", "teo", "sched")
# name: (timing mode, seconds full, seconds quick, udpgen arguments or None,
#        in the default matrix)
# Full-mode choices (perf-scripts/README.md "Budget"): -icount for the
# workloads without host traffic, where it lowers the noise and makes a
# boot exact (the noise table of docs/results.md); real time for ipi
# (under -icount its latencies are noisier: cyclictest p99 cv 93% against
# 27%, perf sched p99 21% against 7%) and for the host-driven ones.  1 s
# windows: an -icount workload costs ~26 s of wall time even at 1 s, and
# the matrix must fit 90 min.  The default leaves out rtc and block (timer
# workloads in disguise: 6.12 emulates the RTC's periodic interrupt with
# an hrtimer, and block's reads are paced by a guest timer) and three of
# the noise-dominated real-time network workloads, and devburst and
# devonoff (budget); --workloads names them.  The real-time section of
# the full matrix is shortened first: 2 vCPUs and REAL_REPEATS repeats.
# --quick runs the default workloads in real time, 1 s.
P1, P2 = 5001, 5002
WORKLOADS = {
    "idle": ("icount", 1, 1, None, True),
    "timer": ("icount", 1, 1, None, True),
    "rtc": ("icount", 1, 1, None, False),
    "block": ("icount", 1, 1, None, False),
    # device interrupts at exact guest times: the HPET interrupt generator
    # (series patch 3), sources set up by guest/bench.sh gen_sources
    "dev": ("icount", 1, 1, None, True),
    "dev2": ("icount", 1, 1, None, True),
    "devburst": ("icount", 1, 1, None, False),
    "devpoisson": ("icount", 1, 1, None, True),
    "devonoff": ("icount", 1, 1, None, False),
    "devmix": ("icount", 1, 1, None, True),
    "ipi": ("real", 1, 1, None, True),
    "net": ("real", 1, 1, ["-m", "periodic", "-p", str(P1), "-P", "1000"], True),
    "net2": ("real", 1, 1, ["-m", "two", "-p", str(P1), "-P", "1000",
                            "-q", str(P2), "-Q", "2700"], False),
    "netburst": ("real", 1, 1, ["-m", "burst", "-p", str(P1), "-P", "5000", "-n", "8"], False),
    "netpoisson": ("real", 1, 1, ["-m", "poisson", "-p", str(P1), "-P", "1000", "-s", "7"],
                   False),
    "mixed": ("real", 1, 1, ["-m", "periodic", "-p", str(P1), "-P", "2000"], True),
}
DEFAULT_WORKLOADS = [w for w, v in WORKLOADS.items() if v[4]]
REAL_REPEATS, REAL_VCPUS = 3, (2,)
# every boot: 8 HPET comparators for the generator (QEMU's default is 3;
# the guest reads the count from the HPET itself, not from ACPI)
HPET_QEMU = "-global hpet.timers=8"
# Boot words every guest gets.  hpet=disable: RTC on IRQ 8 (see the
# README: 6.12 emulates RTC PIE with an hrtimer anyway).  tsc=reliable in
# real time only: multi-threaded TCG trips the clocksource watchdog, the
# TSC is marked unstable and the emulated driver's exit spin on
# local_clock() can then stall a CPU (seen: RCU stall); under -icount the
# option hangs the early boot, so it is not used there.
# trace_event=: the events are enabled at boot, before the other CPUs
# come up, and only tracing_on is toggled around each window: flipping
# their static keys at run time patches kernel text under the other
# vCPUs' feet, which has crashed multi-threaded TCG guests (see
# guest-image/README.md).  A kernel without sched_idle ignores those.
# irq_predict:*: the predictor's exact inputs and answers, for an exact
# replay in idle-loop/ (patch 8).
COMMON_ARGS = ("hpet=disable trace_event=power:cpu_idle,irq:irq_handler_entry,"
               "sched_idle:sched_idle_select,irq_predict:irq_predict_stamp,"
               "irq_predict:irq_predict_forget,irq_predict:irq_predict_next")
REAL_ARGS = "tsc=reliable"
# The cost stage: one -icount boot per configuration, function_graph on
# the selection functions and the IRQ path only (cost.py), set at boot.
COST_WORKLOAD, COST_VCPUS = cost.COST_TRACE.split("/")[0], 2
QUICK_COST_CONFIGS = ("menu", "sched")


def cost_args(config):
    fl = ",".join(cost.funcs_for(config))
    return ("hpet=disable trace_event=power:cpu_idle,irq:irq_handler_entry "
            f"ftrace=function_graph ftrace_filter={fl} ftrace_graph_filter={fl} "
            "ftrace_graph_max_depth=1")


# Wall-time model of one cell (seconds), fitted on this machine's logs
# (build/bench-quick*.log, build/bench/cells/*/meta.json): a boot, then
# per workload a fixed cost and a cost per guest second.  -icount cells run
# two at a time, so they count half.
def estimate(cell):
    v = cell.vcpus
    if cell.mode == "real":
        return 30 + sum(2 + 1.2 * s for _, s in cell.works)
    per_s = 3.0 * v
    fixed = 8 if cell.mode == "cost" else 20
    return 36 + 12 * v + sum(fixed + per_s * s for _, s in cell.works)


def estimate_total(cells, jobs):
    """-icount cells longest first on `jobs` workers, then real-time ones alone."""
    workers = [0.0] * max(1, jobs)
    for e in sorted((estimate(c) for c in cells if c.mode != "real"), reverse=True):
        workers[workers.index(min(workers))] += e
    return max(workers) + sum(estimate(c) for c in cells if c.mode == "real")


def log(msg):
    print(f"bench: {msg}", flush=True)


def die(msg):
    print(f"bench: error: {msg}", file=sys.stderr)
    sys.exit(2)


def split_list(s, valid, what):
    items = [x for x in s.split(",") if x]
    bad = [x for x in items if x not in valid]
    if bad:
        die(f"unknown {what} {', '.join(bad)} (valid: {' '.join(valid)})")
    return items


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


def build_tools(build):
    """udpgen (host) and benchtool (guest, static); then the initramfs."""
    os.makedirs(os.path.join(build, "guest-tools"), exist_ok=True)
    jobs = [(os.path.join(HERE, "udpgen.c"), os.path.join(build, "udpgen"), ["-lm"]),
            (os.path.join(HERE, "guest-tools", "benchtool.c"),
             os.path.join(build, "guest-tools", "benchtool"), ["-static"])]
    changed = False
    for src, out, extra in jobs:
        if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
            cmd = ["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", out, src] + extra
            if subprocess.run(cmd).returncode:
                die(f"building {out} failed: {' '.join(cmd)}")
            changed = True
    initrd = os.path.join(build, "initramfs.cpio")
    guest = [os.path.join(HERE, "guest", f) for f in os.listdir(os.path.join(HERE, "guest"))]
    newest = max(os.path.getmtime(p) for p in guest + [jobs[1][1]])
    if changed or not os.path.exists(initrd) or os.path.getmtime(initrd) < newest:
        r = subprocess.run([os.path.join(TOP, "guest-image", "mkinitramfs.sh"), initrd])
        if r.returncode:
            die("guest-image/mkinitramfs.sh failed")
    return initrd


class Cell:
    def __init__(self, config, vcpus, repeat, mode, works, seed=None):
        self.config, self.vcpus, self.repeat, self.mode = config, vcpus, repeat, mode
        # the workload's seed (guest/bench.sh set.seed): the repeat number
        # unless --seeds gives the list
        self.seed = repeat if seed is None else seed
        self.works = works  # [(name, seconds)]
        self.name = f"{config}-{vcpus}cpu-{mode}-r{repeat}"


_KERNEL_IDS = {}


def kernel_id(config):
    """sha256 of the configuration's kernel image (cached per run)."""
    path = os.path.join(KERNELS, CONFIGS[config][0])
    if path not in _KERNEL_IDS:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _KERNEL_IDS[path] = h.hexdigest()
    return _KERNEL_IDS[path]


def cell_done(d, cell):
    """PASS, parsed, and run with the same workloads, durations and kernel."""
    try:
        with open(os.path.join(d, "verdict")) as f:
            ok = f.read().startswith("PASS")
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        return ok and os.path.exists(os.path.join(d, "parsed.json")) and \
            meta.get("workloads") == dict(cell.works) and meta.get("seed") == cell.seed and \
            meta.get("kernel_sha256") == kernel_id(cell.config)
    except (OSError, ValueError):
        return False


def host_perf(results, works):
    """perf sched latency/timehist of each workload's perf.data, on the host."""
    for name, _ in works:
        d = os.path.join(results, name)
        pd = os.path.abspath(os.path.join(d, "perf.data"))
        if not os.path.exists(pd):
            continue
        for sub, out in (("timehist", "sched-timehist.txt"), ("latency", "sched-latency.txt")):
            with open(os.path.join(d, out), "w") as f:
                subprocess.run(["perf", "sched", sub, "-i", pd], stdout=f,
                               stderr=subprocess.DEVNULL, cwd=d)


def traffic_thread(console, udpgen, works, stop, gen_logs):
    """Follow the console; on 'bench-sync: start NAME SECS' start udpgen."""
    seen = set()
    pos = 0
    procs = []
    while not stop.is_set():
        try:
            with open(console, "rb") as f:
                f.seek(pos)
                chunk = f.read()
        except OSError:
            chunk = b""
        if chunk:
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                pos += nl + 1
                for line in chunk[:nl].decode("utf-8", "replace").splitlines():
                    m = re.search(r"bench-sync: start (\w+) (\d+)", line)
                    if m and m.group(1) not in seen:
                        name, secs = m.group(1), int(m.group(2))
                        seen.add(name)
                        args = WORKLOADS[name][3]
                        if args:
                            lf = open(gen_logs.format(name), "w")
                            procs.append(subprocess.Popen(
                                [udpgen] + args + ["-d", str(secs + 3)], stdout=lf,
                                stderr=subprocess.STDOUT))
        for p in procs:
            p.poll()
        time.sleep(0.1)
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def run_cell(cell, a, initrd, cells_dir):
    final = os.path.join(cells_dir, cell.name)
    work = final + ".run"
    kernel = os.path.join(KERNELS, CONFIGS[cell.config][0])
    kargs, gov = CONFIGS[cell.config][1], CONFIGS[cell.config][2]
    words = [f"{n}={s}" for n, s in cell.works]
    if cell.mode == "cost":
        boot = f"{cost_args(cell.config)} {kargs} guest.args=set.perf=0:{':'.join(words)}"
    else:
        sets = [GUEST_SETS[cell.config]] if cell.config in GUEST_SETS else []
        # the repeat number seeds the repeat (guest/bench.sh set.seed)
        sets.append(f"set.seed={cell.seed}")
        boot = f"{COMMON_ARGS} {kargs} guest.args={':'.join(sets + words)}"
    qemu_x = HPET_QEMU
    # the disk only when a workload reads it: its reads (the partition scan
    # at boot included) complete in host time, so a boot with a disk is
    # not deterministic under -icount (scripts/tests/determinism.sh)
    if any(n == "block" for n, _ in cell.works):
        qemu_x += (f" -drive if=none,id=bd0,format=raw,file={a.disk},readonly=on"
                   " -device virtio-blk-pci,drive=bd0")
    cmd = [os.path.join(TOP, "guest-image", "run-qemu.sh"), "-k", kernel, "-i", initrd,
           "-o", work, "-c", str(cell.vcpus), "-d", "cpuidle_emu", "-r", "bench"]
    if gov:
        cmd += ["-g", gov]
    if cell.mode in ("icount", "cost"):
        cmd += ["-I", str(a.shift)]
    else:
        boot += f" {REAL_ARGS}"
        qemu_x += (f" -netdev user,id=n0,net=10.0.2.0/24,hostfwd=udp:127.0.0.1:{P1}-10.0.2.15:{P1}"
                   " -device virtio-net-pci,netdev=n0,mac=52:54:00:00:be:01"
                   f" -netdev user,id=n1,net=10.0.3.0/24,hostfwd=udp:127.0.0.1:{P2}-10.0.3.15:{P2}"
                   " -device virtio-net-pci,netdev=n1,mac=52:54:00:00:be:02")
    # generous: icount costs up to ~10 s of wall time per guest second
    budget = 120 + sum(s for _, s in cell.works) * (6 if cell.mode == "real" else 25)
    # -icount: OVMF prints nothing for minutes when the host is loaded
    quiet = 120 if cell.mode == "real" else 300
    cmd += ["-a", boot.strip(), "-x", qemu_x, "-t", str(budget + 180), "-q", str(quiet)]
    shutil.rmtree(work, ignore_errors=True)
    stop = threading.Thread
    ev = threading.Event()
    th = None
    if cell.mode == "real":
        os.makedirs(work, exist_ok=True)
        th = stop(target=traffic_thread, args=(os.path.join(work, "console.log"), a.udpgen,
                                                cell.works, ev, final + ".udpgen-{}.log"))
        th.start()
    t0 = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ev.set()
    if th:
        th.join()
    wall = time.time() - t0
    try:
        with open(os.path.join(work, "verdict")) as f:
            verdict = f.read().strip()
    except OSError:
        verdict = f"FAIL: run-qemu.sh gave no verdict: {r.stdout.strip()[-200:]}"
    if "file system full" in verdict:
        # every later cell would fail the same way; finished cells stay as they are
        die(f"cell {cell.name}: {verdict}; earlier cells in {cells_dir} untouched")
    parsed = None
    want = EXPECT_CONSOLE.get(cell.config)
    if verdict.startswith("PASS") and want:
        try:
            with open(os.path.join(work, "console.log"), errors="replace") as f:
                if want not in f.read():
                    verdict = f"FAIL: console lacks '{want}' (wrong kernel or boot argument)"
        except OSError:
            pass
    if verdict.startswith("PASS"):
        res = os.path.join(work, "results")
        for name, _ in cell.works:
            g = final + f".udpgen-{name}.log"
            if os.path.exists(g):
                shutil.move(g, os.path.join(res, name, "udpgen.log"))
        if cell.mode == "cost":
            tr = os.path.join(res, cost.COST_TRACE)
            try:
                with open(tr, errors="replace") as f:
                    c = cost.summarize(cost.parse_trace(f.read()), cell.config)
                if not c["idle_entries"] or not any(
                        d["n"] for fn, d in c["funcs"].items() if fn != cost.IRQ_FUNC):
                    verdict = (f"FAIL: cost: no idle entries or no traced selection call "
                               f"in {tr}")
                else:
                    info = dict(ln.split("=", 1) for ln in open(
                        os.path.join(res, "bench-info")).read().splitlines() if "=" in ln)
                    parsed = {"cost": c, "runs": {}, "info": info}
            except OSError as e:
                verdict = f"FAIL: cost: {e}"
        else:
            host_perf(res, cell.works)
            try:
                parsed = parse.parse_cell(res)
            except parse.ParseError as e:
                verdict = f"FAIL: parse: {e}"
    meta = {"cell": cell.name, "config": cell.config, "vcpus": cell.vcpus,
            "kernel_sha256": kernel_id(cell.config),
            "repeat": cell.repeat, "seed": cell.seed, "mode": cell.mode,
            "shift": a.shift if cell.mode != "real" else None,
            "workloads": dict(cell.works), "verdict": verdict, "wall_s": round(wall, 1),
            "console": os.path.join(final, "console.log"), "qemu_cmd": " ".join(cmd)}
    with open(os.path.join(work, "verdict"), "w") as f:
        f.write(verdict + "\n")
    if parsed is not None:
        parsed["meta"] = meta
        atomic_write(os.path.join(work, "parsed.json"), json.dumps(parsed, default=str))
    atomic_write(os.path.join(work, "meta.json"), json.dumps(meta, indent=1))
    # the finished cell replaces any old one in one rename
    if os.path.exists(final):
        shutil.rmtree(final)
    os.replace(work, final)
    return meta


def timing_mode(w, timing):
    """The timing mode of workload w under --timing."""
    if timing == "mixed":
        return WORKLOADS[w][0]
    if timing == "icount" and WORKLOADS[w][3] is None and w != "mixed":
        return "icount"
    return "real"


def plan(a, configs, vcpus, works, repeats):
    """The cells of a run, in order: measurement cells per repeat, then the
    cost stage.  The full matrix runs sched-rfc on 2 vCPUs only (and 4 when
    asked), and its real-time cells on REAL_VCPUS for REAL_REPEATS repeats;
    --configs/--vcpus/--repeats given explicitly are taken as they are."""
    full = not a.quick and not getattr(a, "explicit", False)
    cells = []
    for rep in range(1, 0 if a.cost_only else repeats + 1):
        for mode in ("icount", "real"):
            ws = [(w, a.seconds or WORKLOADS[w][2 if a.quick else 1])
                  for w in works
                  if timing_mode(w, a.timing) == mode]
            if not ws:
                continue
            if mode == "real" and full and rep > REAL_REPEATS:
                continue
            for c in configs:
                for v in vcpus:
                    if v == 1 and c not in ONE_VCPU_CONFIGS and not a.configs_given:
                        continue
                    if mode == "real" and full and v not in REAL_VCPUS:
                        continue
                    cells.append(Cell(c, v, rep, mode, ws,
                                      a.seeds[rep - 1] if getattr(a, "seeds", None) else None))
    if not a.no_cost or a.cost_only:
        secs = a.seconds or (1 if a.quick else 2)
        # --quick: menu and sched only (the target's pair; one round of two
        # parallel boots), unless the configurations were given
        for c in configs:
            if a.quick and not a.configs_given and c not in QUICK_COST_CONFIGS:
                continue
            cells.append(Cell(c, COST_VCPUS, 1, "cost", [(COST_WORKLOAD, secs)]))
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="2 repeats, short workloads (fits 15 minutes)")
    ap.add_argument("--configs", default=None,
                    help="default menu,teo,sched,sched-rfc (--quick: menu,teo,sched)")
    ap.add_argument("--vcpus", default="1,2")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--workloads", default=",".join(DEFAULT_WORKLOADS),
                    help=f"default {','.join(DEFAULT_WORKLOADS)}; all: {','.join(WORKLOADS)}")
    ap.add_argument("--seconds", type=int, help="override every workload's duration")
    ap.add_argument("--seeds", default=None,
                    help="comma-separated seed of each repeat (default: the repeat number); "
                    "the same seed twice reruns a cell exactly under -icount")
    ap.add_argument("--shift", type=int, default=0, help="-icount shift (default 0)")
    ap.add_argument("--timing", choices=("mixed", "real", "icount"), default=None,
                    help="mixed: each workload's mode from WORKLOADS (idle timer rtc block "
                    "under -icount, the others in real time; default of the full matrix); real: everything "
                    "in real time, one boot per cell (no -icount boot, ~3x cheaper, not "
                    "deterministic; default of --quick, which must fit 15 minutes); icount: "
                    "every workload without host traffic under -icount (noise comparisons)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="parallel -icount guests (single-threaded TCG each)")
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench"))
    ap.add_argument("--no-cost", action="store_true",
                    help="skip the cost stage (one function_graph -icount boot per "
                    "configuration on 2 vCPUs: selection cost per idle entry, cost per IRQ)")
    ap.add_argument("--cost-only", action="store_true", help="only the cost stage")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the planned matrix and its estimated duration, run nothing")
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()

    a.configs_given = a.configs is not None
    # a matrix shaped by hand is run as asked (plan()'s shortening is off)
    a.explicit = a.repeats is not None or a.seeds is not None or \
        a.vcpus != ap.get_default("vcpus")
    if a.configs is None:
        a.configs = "menu,teo,sched" if a.quick else ",".join(DEFAULT_CONFIGS)
    configs = split_list(a.configs, list(CONFIGS), "configuration")
    works = split_list(a.workloads, list(WORKLOADS), "workload")
    try:
        vcpus = [int(v) for v in a.vcpus.split(",")]
    except ValueError:
        die(f"--vcpus takes numbers, not '{a.vcpus}'")
    if any(v not in (1, 2, 4) for v in vcpus):
        die("--vcpus takes 1, 2 or 4")
    repeats = a.repeats or (2 if a.quick else 5)
    if a.seeds is not None:
        try:
            a.seeds = [int(x) for x in a.seeds.split(",")]
        except ValueError:
            die(f"--seeds takes numbers, not '{a.seeds}'")
        if a.repeats is None:
            repeats = len(a.seeds)
        if len(a.seeds) != repeats:
            die(f"--seeds gives {len(a.seeds)} seeds for {repeats} repeats")
    if a.timing is None:
        a.timing = "real" if a.quick else "mixed"
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    cells_dir = os.path.join(a.out, "cells")
    os.makedirs(cells_dir, exist_ok=True)

    if not a.report_only:
        skipped = [f"{c}: not requested (--configs {a.configs})" for c in CONFIGS
                   if c not in configs and c not in NOT_DEFAULT]
        for c in list(configs):
            k = os.path.join(KERNELS, CONFIGS[c][0])
            if not os.path.exists(k):
                skipped.append(f"{c}: {k} is missing, not run")
                configs.remove(c)
        for s in skipped:
            log(f"note: {s}")
        if not a.dry_run:
            atomic_write(os.path.join(a.out, "skipped.json"), json.dumps(skipped))
        cells = plan(a, configs, vcpus, works, repeats)
        todo = [c for c in cells if not cell_done(os.path.join(cells_dir, c.name), c)]
        est = estimate_total(todo, a.jobs)
        log(f"{len(cells)} cells, {len(cells) - len(todo)} already done, {len(todo)} to run "
            f"(configs {','.join(configs)}; vCPUs {a.vcpus}; {repeats} repeats; "
            f"workloads {','.join(works)}; icount shift {a.shift}; "
            f"cost stage {'off' if a.no_cost else 'on'})")
        for mode in ("icount", "real", "cost"):
            ms = [c for c in cells if c.mode == mode]
            if ms:
                log(f"  {mode}: {len(ms)} boots, workloads "
                    + " ".join(f"{w}={s}s" for w, s in ms[0].works)
                    + f", vCPUs {','.join(sorted({str(c.vcpus) for c in ms}))}")
        log(f"estimated duration {est / 60:.0f} min for the {len(todo)} boots to run "
            f"(model: estimate() in bench.py)")
        if a.dry_run:
            return
        initrd = build_tools(os.path.join(TOP, "build"))
        a.udpgen = os.path.join(TOP, "build", "udpgen")
        a.disk = os.path.join(a.out, "disk.img")
        if not os.path.exists(a.disk):
            with open(a.disk + ".tmp", "wb") as f:
                f.write(os.urandom(64 << 20))
            os.replace(a.disk + ".tmp", a.disk)
        t0 = time.time()
        n = len(todo)
        done = [0]
        finished = []
        lock = threading.Lock()

        def one(cell):
            m = run_cell(cell, a, initrd, cells_dir)
            with lock:
                done[0] += 1
                finished.append(cell)
                el = time.time() - t0
                # the model's remaining estimate, scaled by how fast this run
                # has gone against the model so far
                left = [c for c in todo if c not in finished]
                model_done = estimate_total(finished, a.jobs)
                eta = estimate_total(left, a.jobs) * (el / model_done if model_done else 1)
                extra = "" if m["verdict"].startswith("PASS") else f" log {m['console']}"
                print(f"[{done[0]}/{n}] elapsed {el:.0f}s ETA {eta:.0f}s  {cell.name} "
                      f"{m['wall_s']:.0f}s {m['verdict'][:100]}{extra}", flush=True)
            return m

        # -icount guests are single-threaded and their numbers do not depend
        # on host load: run them in parallel.  Real-time guests run alone.
        # longest first: 2-vCPU -icount boots cost about 1.5x the 1-vCPU ones
        ic = sorted((c for c in todo if c.mode != "real"), key=lambda c: -estimate(c))
        rt = [c for c in todo if c.mode == "real"]
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            list(ex.map(one, ic))
        for c in rt:
            one(c)
        total = time.time() - t0
        log(f"matrix done in {total:.0f}s")
        atomic_write(os.path.join(a.out, "last-run.json"),
                     json.dumps({"seconds": round(total), "cells": len(cells), "ran": n,
                                 "quick": a.quick, "argv": sys.argv[1:]}))
    if not a.no_report:
        import report
        report.main(["--bench", a.out, "--out", os.path.join(TOP, "docs", "results.md")])


if __name__ == "__main__":
    main()
