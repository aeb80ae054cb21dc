"""The report's "Interrupt sources outside the design" section: every
interrupt source counted in a measured window (/proc/interrupts, before
and after it) must be one the workloads are made of: the CPUs' own
vectors (local timer, IPIs, irq_work), the HPET generator's lines,
virtio traffic, and the RTC of a workload that asks for it (rtc_hz).
Anything else, a device probed at boot (the PS/2 controller's i8042 on
IRQ 12, say) or a stray timer line, is a wakeup that one
configuration's window may hold and another's not, so it fails the run,
as an oracle violation does."""
from ..launch import QUIET_ARGS

# /proc/interrupts' per-CPU vectors the workloads make: the local timer,
# function-call, reschedule and TLB-shootdown IPIs, irq_work
VECTORS = frozenset(("LOC", "CAL", "RES", "TLB", "IWI"))
# numbered lines, by the name their handler registered: the generator
# (drivers/misc/hpet-irqgen.c) and virtio (net and block traffic)
NAMED = ("irqgen", "virtio")

TEXT = (
    "Each measured window's interrupts (/proc/interrupts before and after it) are "
    "checked against what the workloads are made of: the local timer (LOC), the "
    "function-call, reschedule and TLB IPIs (CAL, RES, TLB), irq_work (IWI), the HPET "
    "generator's lines (irqgen*), virtio traffic (virtio*) and, in a workload with "
    "rtc_hz, the RTC (rtc0). Another source, a "
    "device probed at boot or a line nobody asked for, wakes CPUs in one "
    "configuration's window and maybe not in another's; a run that holds one fails "
    "(bench.py and report.py exit 1 after writing the report). The bench boots with "
    f"{QUIET_ARGS}: no KUnit at boot, and no PS/2 controller's driver, whose probe "
    "fell inside the first window.\n")


def allowed(source, wl=None):
    """Whether a /proc/interrupts source ('LOC', '16:irqgen0') is one the
    workloads make; wl: the window's workload (idlebench/workloads.py),
    whose rtc_hz allows the RTC."""
    if source in VECTORS:
        return True
    irq, _, name = source.partition(":")
    names = NAMED + (("rtc",) if wl is not None and wl.rtc_hz else ())
    return irq.isdigit() and name.startswith(names)


def strays(runs, workloads=None):
    """runs {(workload, vcpus): {config: [metrics]}} -> [(workload, vcpus,
    config, source, runs holding it, runs, mean count over those)], sorted;
    workloads: {name: Workload}, for what each workload asks for."""
    out = []
    for (w, v), g in sorted(runs.items()):
        wl = (workloads or {}).get(w)
        for c, ms in sorted(g.items()):
            seen = {}
            for m in ms:
                for s, n in (m.get("irqs") or {}).items():
                    if n and not allowed(s, wl):
                        seen.setdefault(s, []).append(n)
            for s, ns in sorted(seen.items()):
                out.append((w, v, c, s, len(ns), len(ms), sum(ns) / len(ns)))
    return out


def section(runs, workloads=None):
    """(the section's lines, the number of (workload, vCPUs, configuration,
    source) rows that fail)."""
    L = ["## Interrupt sources outside the design\n", TEXT]
    bad = strays(runs, workloads)
    if bad:
        L.append(f"**{len(bad)} stray source{'s' if len(bad) > 1 else ''}:**\n")
        L.append("| workload | vCPUs | configuration | source | runs holding it | "
                 "mean count in those |")
        L.append("|---|---|---|---|---|---|")
        for w, v, c, s, k, n, mean in bad:
            L.append(f"| {w} | {v} | {c} | {s} | {k} of {n} | {mean:.0f} |")
    else:
        L.append("- none: every window held only the workloads' sources.")
    L.append("")
    return L, len(bad)
