"""The report's prose: what was run where, how to read it, the caveats."""
import datetime
import glob
import os
import platform
import subprocess

from .. import cells, cost, lateness, linuxtree, series
from ..configs import CONFIGS
from ..workloads import PROBE_US, TOP


def host_info():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        q = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                           text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        q = "unknown"
    return f"{platform.node()} ({platform.system()} {platform.release()}, {os.cpu_count()} CPUs, {cpu})", q


COST_NOTE = (
    "Measured in three boots per configuration, seeds 1-3 (bench.py's cost stage; one "
    "with --quick): 2 vCPUs, "
    "`-icount shift=0,sleep=off` (single-threaded TCG: guest time advances one ns per "
    "instruction, so a duration is an instruction count), the block workload (one "
    "O_DIRECT read every 3 ms, cyclictest probe at %g ms) and dev2 (two HPET sources, "
    "1000 and 1500 us, on one CPU), booted with `cpuidle_cost.enable=1`: the kernel's "
    "probe (a test-infrastructure patch of the series, in both kernels) reads the clock around the selection "
    "(stock: cpuidle_select(), the governor's select with its own latency limit and "
    "sleep length; ours: the latency limit, sched_idle_next_wakeup(), which drains the "
    "per-CPU stamp ring and asks the predictor, and sched_idle_choose(), the state, "
    "the tick, the state again when the tick is kept, learning's shallower state), "
    "around the reflection after the idle period (cpuidle_reflect(); ours: "
    "sched_idle_learn_from()), with interrupts disabled across it while probing so no "
    "handler is counted, and around the interrupt path's stamp (6.12: "
    "record_irq_time(), empty in the stock kernel; 7.3: irq_stamp(), which the stock "
    "kernel does not have). The probe's own cost, an empty "
    "bracket timed at boot, is subtracted from every span; per idle entry = (select + "
    "reflect time) / selections. Per idle entry leaves out what only the patched kernel "
    "pays in the interrupt path; all-in per idle entry counts it: per idle entry + "
    "(stamp per interrupt - the stock kernel's span around its empty stamp, 0 where it has "
    "none, "
    "the mean of menu's and teo's on the workload, i.e. the added per interrupt below) "
    "× interrupts / idle entries, each boot with its own counts over the window and "
    "both CPUs; for menu and teo the added part is 0 (their kernel has no stamp), so "
    "their all-in figure is their per idle entry one. The target, at or below teo's, "
    "is held on the all-in figure. The counters restart at the window's start "
    "(guest-image/guest/bench.sh) and are read at its end." % (PROBE_US / 1000))
COST_CAVEAT = (
    "Instructions are not cycles: TCG models no cache misses or branch costs, so "
    "memory-heavy code (the per-IRQ tables) is flattered relative to hardware. The "
    "patched kernel's per-interrupt work is split: the stamp in the interrupt path "
    "(per interrupt) and its processing at the next idle entry (the drain inside "
    "sched_idle_next_wakeup(), counted in the selection). The empty bracket is timed "
    "in a loop at boot; the inlined brackets in the idle loop may differ from it by a "
    "few register moves.")
LOAD_NOTE = (
    "The selection cost stage's probe (`cpuidle_cost.enable=1`, 2 vCPUs, "
    "`-icount shift=0,sleep=off`, so a duration is an instruction count; the probe's "
    "empty bracket subtracted from every span) as the interrupts on one CPU grow: "
    "`bench.py --cost-load` "
    "(`make bench-cost-load`) boots each configuration once per seed and runs every "
    "workload below in it, each in its own window. A workload's sources are the HPET "
    "generator's periodic sources of its entry in perf-scripts/workloads.toml, all on "
    "CPU 0, each period a prime number of microseconds with a small jitter, so that no "
    "two keep a phase; the sources sweep holds their total rate and adds sources, the "
    "rate sweep holds two sources and raises their rate. Interrupts/s: what the "
    "periods make, then in brackets what the probe counted, its stamps over the "
    "window (every device interrupt of both CPUs), mean over the boots. Per entry = "
    "(select + reflect time) / selections; per irq = the interrupt path's stamp, "
    "empty in the stock kernel (its column is the probe's floor), so sched's is set "
    "against teo's by difference. Means over the boots, the per entry range in "
    "brackets when there are several. Each sweep's line holds sched's cost per idle "
    "entry, and its stamp, to flat: largest over smallest within %d%%; the growth from "
    "the sweep's first workload to its last is stated beside it."
    % round(100 * (cost.LOAD_FLAT - 1)))


def kernel_lines(ks, checkout, releases):
    """The header's kernels: per kernel image the run used (ks:
    series.kernels()), its configurations, release (releases {image:
    {uname -r}}), bzImage sha256 (two builds of one source differ there)
    and the series it was built from, as its boot line says, against the
    checkout's series/ (checkout: series.ids())."""
    if not ks:
        return ["- Kernels: none"]
    if checkout.get("error"):
        mine = f"the checkout's series/ cannot be read: {checkout['error']}"
    else:
        mine = (f"the checkout's {os.path.basename(series.SERIES)}/: "
                + ", ".join(f"{k} {checkout[k]}" for k in series.KINDS))
    L = ["- Kernels, each with the series it was built from (its boot line's "
         f"`@series-ID`, perf-scripts/idlebench/series.py; {mine}):"]
    for image, k in series.ordered(ks):
        rel = ", ".join(sorted(releases.get(image, ()))) or "?"
        sha = ", ".join(x[:12] for x in sorted(k["sha256"])) or "?"
        L.append(f"  - {image} ({', '.join(k['configs'])}): {rel}, bzImage sha256 {sha}; "
                 f"{series.describe(image, k, checkout)}")
    return L


def load_header(bench, last, ks, checkout):
    """The opening of a cost-load run's own report (report.build_load);
    ks and checkout as kernel_lines() takes them."""
    host, qemu = host_info()
    releases = {}
    for _d, meta, p in cells.load(bench):
        info = (p or {}).get("info", {})
        if meta.get("config") in CONFIGS and info.get("kernel"):
            releases.setdefault(CONFIGS[meta["config"]].kernel, set()).add(info["kernel"])
    warn = series.warning(ks, checkout)
    L = ["# Idle-governor bench: selection cost versus load\n"] + ([warn] if warn else []) + [
         "Generated by `perf-scripts/report.py` from the cost-load cells under "
         f"`{os.path.relpath(os.path.join(bench, 'cells'), TOP)}/` (`bench.py --cost-load`: "
         "raw data, console logs and `parsed.json` per boot). Every number below comes "
         "from those runs; the bench's other tables are in docs/results.md.\n",
         f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
         f"- Host: {host}",
         f"- QEMU: {qemu}, OVMF, q35, emulated idle driver cpuidle_emu"]
    L.extend(kernel_lines(ks, checkout, releases))
    if last:
        L.append(f"- The last bench.py run took {last.get('seconds')} s for "
                 f"{last.get('ran')} boots")
    L.append("")
    return L


def lateness_lines(bench):
    """Caveat lines: how late timer wakeups came, per timing mode, from
    sched's traces (lateness.py)."""
    by = {}
    for d, meta, parsed in cells.load(bench):
        if meta.get("config") != "sched" or meta.get("mode") not in ("icount", "real") or \
                parsed is None:
            continue
        for tr in glob.glob(os.path.join(d, "results", "*", "trace.txt")):
            with open(tr, errors="replace") as f:
                by.setdefault(meta["mode"], []).append(lateness.analyze(f.read()))
    L = []
    for mode, rs in sorted(by.items()):
        what = "-icount" if mode == "icount" else "real-time"
        L.append(f"- Timer lateness, sched's {what} cells (perf-scripts/idlebench/lateness.py; negative: "
                 f"woken early by something else): {lateness.describe(lateness.merge(rs))}. "
                 "Every governor polls when the timer is already due, and an idle period that "
                 "outlasts its timer makes the chosen state count as too shallow; menu's "
                 "correction factor learns such a bias, our timer input trusts the programmed "
                 "time. On hardware the lateness is microseconds.")
    return L



def window_text(by_secs):
    """A workload's window: "2 s", or per vCPU count when cells differ
    ("5 s (1 vCPU), 4 s (2, 4 vCPUs)")."""
    if len(by_secs) <= 1:
        return f"{next(iter(by_secs), None)} s"
    return ", ".join(f"{s} s ({', '.join(map(str, sorted(v)))} vCPU{'' if v == {1} else 's'})"
                     for s, v in sorted(by_secs.items(), key=lambda kv: min(kv[1])))


def header(runs, works, vcpus, configs, bench, last, skipped, ks, checkout):
    """The report's opening: where the numbers come from and how they were
    run; ks and checkout as kernel_lines() takes them."""
    ncells = len(glob.glob(os.path.join(bench, "cells", "*")))
    host, qemu = host_info()
    releases, modes, reps, durs, seeds, measured = {}, {}, {}, {}, {}, {}
    for (w, v), g in runs.items():
        for c, ms in g.items():
            for m in ms:
                mt = m["_meta"]
                if c in CONFIGS and m["_info"].get("kernel"):
                    releases.setdefault(CONFIGS[c].kernel, set()).add(m["_info"]["kernel"])
                modes[w] = ("-icount shift=%s,sleep=off, single-threaded TCG, exact for a "
                            "given seed (guest-image/README.md)"
                            % mt["shift"]) if mt["mode"] == "icount" else \
                    "real time, single-threaded TCG, not repeatable"
                seeds.setdefault(mt["mode"], set()).add(mt["seed"])
                durs.setdefault(w, {}).setdefault(
                    mt["workloads"].get(w.split("@")[0]), set()).add(v)
                # the window the guest measured (its uptime at the window's
                # start and end), not only the one it was asked for
                if m.get("window_s") is not None:
                    measured.setdefault(w, []).append(m["window_s"])
            reps[(w, v, c)] = len(ms)
    cfgs_run = sorted({c for g in runs.values() for c in g}, key=configs.index)
    L = []
    L.append("# Idle-governor bench results\n")
    L.append("Generated by `perf-scripts/report.py` from the runs under "
             f"`{os.path.relpath(os.path.join(bench, 'cells'), TOP)}/` "
             "(raw data, console logs and `parsed.json` per boot). Every number below "
             "comes from those runs; a configuration without runs reads \"not run\".\n")
    L.append(f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}")
    L.append(f"- Host: {host}")
    L.append(f"- QEMU: {qemu}, OVMF, q35, emulated idle driver cpuidle_emu")
    L.append(f"- Tree: Linux {linuxtree.LINUX} ({linuxtree.describe()}); menu and teo are "
             "that tree's own")
    L.extend(kernel_lines(ks, checkout, releases))
    L.append(f"- Configurations run: {', '.join(cfgs_run) or 'none'}; "
             f"not run: {', '.join(c for c in configs if c not in cfgs_run) or 'none'}")
    for s in skipped:
        L.append(f"  - {s}")
    L.append(f"- vCPUs: {', '.join(map(str, vcpus))}; repeats per cell: "
             f"{max(reps.values()) if reps else 0}"
             + (f"; the last bench.py run took {last.get('seconds')} s for {last.get('ran')} boots"
                f"{' (quick mode)' if last.get('quick') else ''}"
                f" (cells in the directory: {ncells})" if last else ""))
    for mode, ss in sorted(seeds.items()):
        L.append(f"- Seeds of the repeats ({mode}): {', '.join(map(str, sorted(ss)))} "
                 "(idlebench/launch.py: the windows' phase and the generator's seeds); "
                 "under -icount the spread between repeats is the workload's, not the "
                 "emulator's")
    L.append("- Timing mode and window per workload:")
    for w in works:
        got = measured.get(w)
        seen = f" (measured {min(got):.3f}-{max(got):.3f} s over {len(got)} runs)" if got else ""
        L.append(f"  - {w}: {window_text(durs.get(w, {}))}{seen}, {modes.get(w)}")
    return L


METHOD = (
    "Cells read `mean ±95% CI (cv) n=repeats`. Ratios are sched/menu, sched/teo and "
    "teo/menu of the means; `*` marks Welch's t-test p < 0.05, `†` disjoint 95% "
    "confidence intervals. For every metric lower is better. Power is the "
    "emulated driver's energy model (cpuidle_emu/model) as its own counters "
    "(cpuidle_emu/stats) charged it over the window, summed over CPUs. The row \"same, "
    "from the trace's idle periods\" charges every traced idle period (power:cpu_idle "
    "enter to exit) by the driver's formula in the state the kernel entered: the time "
    "halted (the "
    "period less that state's exit latency, which the driver spins out before the "
    "exit is traced) at the state's power, its exit latency at active power, its "
    "entry energy; time outside the periods at active power. The oracle charges each "
    "period the same way in the state of least energy for its halted time, over all "
    "the model's states, polling included: the least any choice of states could have "
    "spent on the same wake times, which the deepest state whose target residency "
    "fits is not (skx: C6 costs less than C1E from 484 us halted, below its 600 us "
    "residency). A governor's different choices would have moved later wake times, "
    "which the oracle does not model (perf-scripts/idlebench/energy.py; idle-loop/ "
    "compiles the driver's own model and takes the same minimum). The model and "
    "the oracle are checked on every run under \"Oracle violations\". The headline's "
    "power / oracle is the trace's charge over the oracle's, both on the same periods "
    "and span. The driver's counters also hold the window's edges (the snapshots "
    "before and after it), and charge at active power the exit spin past each state's "
    "exit latency, which the trace's halted time charges at the state's power: the "
    "measured power and the trace's differ by both.\n")


TICK_NOTE = (
    "Tick stops and restarts: the patched kernel's debugfs sched_idle/stats counts, per "
    "CPU, the idle entries that stopped a running tick (`tick_stops`) and those that "
    "started a stopped tick again from the idle loop (`tick_restarts`); the tables give "
    "both per second of each run's measured window, summed over the CPUs, beside the "
    "sched idle path's other counters (err_early, err_good, err_late). The series' idle "
    "path restarts a stopped tick only behind a guess (a state the history shortened, or a "
    "prediction from devices with no rhythm) when the next timer allows a deeper state "
    "(sched_idle_choose()). The stock kernel "
    "has no such counters, so menu and teo read n/a: its idle loop never restarts a "
    "stopped tick, menu and teo only keep it running or stop it, and a tick once "
    "stopped stays stopped until the CPU leaves the idle loop (kernel/sched/idle.c: "
    "idle_call_stop_or_retain_tick() stops a stopped tick again whatever the governor "
    "says; do_idle()'s one restart comes before polling, with idle=poll or an expired "
    "broadcast timer, not after a governor's choice). A patched kernel whose stats lack "
    "the two keys reads \"not counted\".\n")


def caveats(bench):
    L = []
    L.append("## Caveats\n")
    L.append("- rtc: 6.12's rtc core emulates the RTC periodic interrupt with an hrtimer "
             "(rtc_pie_update_irq), so IRQ 8 does not move: this workload is a 512 Hz kernel "
             "timer, not a device interrupt (see the interrupt tables).")
    L.append("- Real-time cells (net*, mixed) run on one TCG thread sharing the host's cores "
             "with QEMU's other threads: latencies of several ms and large 'below' shares there are "
             "emulation jitter for every governor; compare governors only within a table.")
    L.append("- Repeats are few in quick mode; a `*` from n=2 is weak evidence.")
    L.append("- Real time runs single-threaded TCG (idlebench/launch.py REAL_THREADS): "
             "multi-threaded, QEMU 7.2 runs stale kernel text after perf patches it "
             "(guest-image/README.md, \"Known limits\").")
    L.append("- Device-interrupt lateness under -icount is set by the emulator, not the "
             "governor, whenever one vCPU is busy while another one's interrupt is pending: "
             "single-threaded TCG's round-robin then runs the busy vCPU until the next QEMU "
             "timer deadline (docs/design.md, device lateness tails). The window leaves "
             "cyclictest's start and histogram write-out outside, and the pipe of devmix, ipi "
             "and mixed is paced (one round trip per period for the whole window) instead of "
             "`perf bench sched pipe`'s burst, which kept CPU 0 busy for ~70 ms while the last "
             "CPU's interrupts waited; a workload that still runs `pipe_loops` keeps that "
             "effect in its lateness tail.")
    L.extend(lateness_lines(bench))
    L.append("- Selection cost: " + COST_CAVEAT + "\n")
    return L


def conclusions(noise, losses, runs, skipped, bench):
    """Run-to-run noise and where sched loses (bench: the run's directory)."""
    L = ["## Run-to-run noise\n"]
    if noise:
        for k, cvs in noise.items():
            L.append(f"- {k}: coefficient of variation across repeats, median "
                     f"{100 * sorted(cvs)[len(cvs) // 2]:.0f}%, worst {100 * max(cvs):.0f}% "
                     f"(over {len(cvs)} workload/vCPU/config cells)")
    else:
        L.append("- fewer than 2 repeats per cell: no noise estimate")
    L.append("\n## Where sched loses\n")
    if not any("sched" in g for g in runs.values()):
        why = [x for x in skipped if x.startswith("sched:")]
        L.append("- sched was not run (" + (why[0] if why else
                                           f"no runs of it in {os.path.relpath(bench, TOP)}")
                 + "): no comparison, so no claim either way.")
    elif losses:
        L.extend(f"- {x}" for x in losses)
    else:
        L.append("- no headline metric where sched is significantly worse than menu or teo.")
    L.append("")
    return L
