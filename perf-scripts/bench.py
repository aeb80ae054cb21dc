#!/usr/bin/env python3
"""bench.py: the idle-governor benchmark matrix (what `make bench` runs).

Boots one guest per cell (configuration x vCPUs x repeat x timing mode)
with guest-image/run-qemu.sh, runs that cell's workloads in sequence with
perf-scripts/guest/bench.sh, parses each cell (parse.py) and finally
writes docs/results.md and docs/plots/ (report.py).

  python3 perf-scripts/bench.py [--quick] [--configs menu,teo,sched]
        [--vcpus 1,2] [--repeats N] [--workloads idle,timer,...]
        [--shift N] [--jobs N] [--out build/bench] [--no-report]

Raw data: build/bench/cells/CELL/ (console.log, results/, verdict,
parsed.json).  A cell whose verdict is PASS and whose parsed.json exists
is not run again (resume).  Standard library only.
"""
import argparse
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
import parse  # noqa: E402

KERNELS = os.path.join(TOP, "build", "kernels")
CONFIGS = {
    # name: (kernel image, kernel args, governor the guest must report)
    "menu": ("stock.bzImage", "cpuidle.governor=menu", "menu"),
    "teo": ("stock.bzImage", "cpuidle.governor=teo", "teo"),
    "sched": ("patched.bzImage", "", None),
}
# name: (timing mode, seconds full, seconds quick, udpgen arguments or None)
P1, P2 = 5001, 5002
WORKLOADS = {
    "idle": ("icount", 10, 1, None),
    "timer": ("icount", 10, 1, None),
    "rtc": ("icount", 10, 1, None),
    "block": ("icount", 10, 1, None),
    "ipi": ("icount", 10, 1, None),
    "net": ("real", 10, 2, ["-m", "periodic", "-p", str(P1), "-P", "1000"]),
    "net2": ("real", 10, 2, ["-m", "two", "-p", str(P1), "-P", "1000",
                             "-q", str(P2), "-Q", "2700"]),
    "netburst": ("real", 10, 2, ["-m", "burst", "-p", str(P1), "-P", "5000", "-n", "8"]),
    "netpoisson": ("real", 10, 2, ["-m", "poisson", "-p", str(P1), "-P", "1000", "-s", "7"]),
    "mixed": ("real", 10, 2, ["-m", "periodic", "-p", str(P1), "-P", "2000"]),
}
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
# replay in idle-loop/ (patch 7).
COMMON_ARGS = ("hpet=disable trace_event=power:cpu_idle,irq:irq_handler_entry,"
               "sched_idle:sched_idle_select,irq_predict:irq_predict_stamp,"
               "irq_predict:irq_predict_forget,irq_predict:irq_predict_next")
REAL_ARGS = "tsc=reliable"


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
    def __init__(self, config, vcpus, repeat, mode, works):
        self.config, self.vcpus, self.repeat, self.mode = config, vcpus, repeat, mode
        self.works = works  # [(name, seconds)]
        self.name = f"{config}-{vcpus}cpu-{mode}-r{repeat}"


def cell_done(d, cell):
    """PASS, parsed, and run with the same workloads and durations."""
    try:
        with open(os.path.join(d, "verdict")) as f:
            ok = f.read().startswith("PASS")
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        return ok and os.path.exists(os.path.join(d, "parsed.json")) and \
            meta.get("workloads") == dict(cell.works)
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
    boot = f"{COMMON_ARGS} {kargs} guest.args={':'.join(words)}"
    qemu_x = f"-drive if=none,id=bd0,format=raw,file={a.disk},readonly=on " \
             "-device virtio-blk-pci,drive=bd0"
    cmd = [os.path.join(TOP, "guest-image", "run-qemu.sh"), "-k", kernel, "-i", initrd,
           "-o", work, "-c", str(cell.vcpus), "-d", "cpuidle_emu", "-r", "bench"]
    if gov:
        cmd += ["-g", gov]
    if cell.mode == "icount":
        cmd += ["-I", str(a.shift)]
    else:
        boot += f" {REAL_ARGS}"
        qemu_x += (f" -netdev user,id=n0,net=10.0.2.0/24,hostfwd=udp:127.0.0.1:{P1}-10.0.2.15:{P1}"
                   " -device virtio-net-pci,netdev=n0,mac=52:54:00:00:be:01"
                   f" -netdev user,id=n1,net=10.0.3.0/24,hostfwd=udp:127.0.0.1:{P2}-10.0.3.15:{P2}"
                   " -device virtio-net-pci,netdev=n1,mac=52:54:00:00:be:02")
    # generous: icount costs up to ~10 s of wall time per guest second
    budget = 120 + sum(s for _, s in cell.works) * (25 if cell.mode == "icount" else 6)
    cmd += ["-a", boot.strip(), "-x", qemu_x, "-t", str(budget), "-q", "120"]
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
    if verdict.startswith("PASS"):
        res = os.path.join(work, "results")
        for name, _ in cell.works:
            g = final + f".udpgen-{name}.log"
            if os.path.exists(g):
                shutil.move(g, os.path.join(res, name, "udpgen.log"))
        host_perf(res, cell.works)
        try:
            parsed = parse.parse_cell(res)
        except parse.ParseError as e:
            verdict = f"FAIL: parse: {e}"
    meta = {"cell": cell.name, "config": cell.config, "vcpus": cell.vcpus,
            "repeat": cell.repeat, "mode": cell.mode,
            "shift": a.shift if cell.mode == "icount" else None,
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="2 repeats, short workloads (fits 15 minutes)")
    ap.add_argument("--configs", default="menu,teo,sched")
    ap.add_argument("--vcpus", default="1,2")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--seconds", type=int, help="override every workload's duration")
    ap.add_argument("--shift", type=int, default=0, help="-icount shift (default 0)")
    ap.add_argument("--timing", choices=("mixed", "real"), default=None,
                    help="mixed: -icount for the workloads without host traffic, real "
                    "time for the others (default of the full matrix); real: everything "
                    "in real time, one boot per cell (no -icount boot, ~3x cheaper, not "
                    "deterministic; default of --quick, which must fit 15 minutes)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="parallel -icount guests (single-threaded TCG each)")
    ap.add_argument("--out", default=os.path.join(TOP, "build", "bench"))
    ap.add_argument("--no-report", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()

    configs = split_list(a.configs, list(CONFIGS), "configuration")
    works = split_list(a.workloads, list(WORKLOADS), "workload")
    try:
        vcpus = [int(v) for v in a.vcpus.split(",")]
    except ValueError:
        die(f"--vcpus takes numbers, not '{a.vcpus}'")
    if any(v not in (1, 2, 4) for v in vcpus):
        die("--vcpus takes 1, 2 or 4")
    repeats = a.repeats or (2 if a.quick else 5)
    if a.timing is None:
        a.timing = "real" if a.quick else "mixed"
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    cells_dir = os.path.join(a.out, "cells")
    os.makedirs(cells_dir, exist_ok=True)

    if not a.report_only:
        skipped = [f"{c}: not requested (--configs {a.configs})" for c in CONFIGS
                   if c not in configs]
        for c in list(configs):
            k = os.path.join(KERNELS, CONFIGS[c][0])
            if not os.path.exists(k):
                skipped.append(f"{c}: {k} is missing, not run")
                configs.remove(c)
        for s in skipped:
            log(f"note: {s}")
        atomic_write(os.path.join(a.out, "skipped.json"), json.dumps(skipped))
        initrd = build_tools(os.path.join(TOP, "build"))
        a.udpgen = os.path.join(TOP, "build", "udpgen")
        a.disk = os.path.join(a.out, "disk.img")
        if not os.path.exists(a.disk):
            with open(a.disk + ".tmp", "wb") as f:
                f.write(os.urandom(64 << 20))
            os.replace(a.disk + ".tmp", a.disk)
        cells = []
        for rep in range(1, repeats + 1):
            for mode in ("icount", "real"):
                ws = [(w, a.seconds or WORKLOADS[w][2 if a.quick else 1])
                      for w in works
                      if (WORKLOADS[w][0] if a.timing == "mixed" else "real") == mode]
                if not ws:
                    continue
                for c in configs:
                    for v in vcpus:
                        cells.append(Cell(c, v, rep, mode, ws))
        todo = [c for c in cells if not cell_done(os.path.join(cells_dir, c.name), c)]
        log(f"{len(cells)} cells, {len(cells) - len(todo)} already done, {len(todo)} to run "
            f"(configs {','.join(configs)}; vCPUs {a.vcpus}; {repeats} repeats; "
            f"workloads {','.join(works)}; icount shift {a.shift})")
        t0 = time.time()
        n = len(todo)
        done = [0]
        lock = threading.Lock()

        def one(cell):
            m = run_cell(cell, a, initrd, cells_dir)
            with lock:
                done[0] += 1
                el = time.time() - t0
                eta = el / done[0] * (n - done[0])
                extra = "" if m["verdict"].startswith("PASS") else f" log {m['console']}"
                print(f"[{done[0]}/{n}] elapsed {el:.0f}s ETA {eta:.0f}s  {cell.name} "
                      f"{m['wall_s']:.0f}s {m['verdict'][:100]}{extra}", flush=True)
            return m

        # -icount guests are single-threaded and their numbers do not depend
        # on host load: run them in parallel.  Real-time guests run alone.
        # longest first: 2-vCPU -icount boots cost about 1.5x the 1-vCPU ones
        ic = sorted((c for c in todo if c.mode == "icount"), key=lambda c: -c.vcpus)
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
