#!/usr/bin/env python3
"""Synthetic idle traces in replay's native format, with known answers.

A CPU model: each CPU is idle until the earlier of its next device
interrupt and its next timer, then busy for BUSY_NS handling it (more
interrupts arriving meanwhile are handled without an idle period), then
idle again.  Lines:
    T_NS CPU irq N
    T_NS CPU idle_enter TIMER_NS     (time from entry to the next timer)
    T_NS CPU idle_exit
Deterministic: jitter comes from random.Random(seed).
"""
import argparse
import heapq
import random
import sys

BUSY_NS = 5000


class Source:
    """A periodic interrupt: PERIOD ns, +-JITTER fraction, on CPU until MOVE_AT
    then on CPU2; none before START or after STOP."""

    def __init__(self, irq, period, phase=0, jitter=0.0, start=0, stop=None,
                 cpu=0, cpu2=None, move_at=None, bursts=()):
        self.irq, self.period, self.phase, self.jitter = irq, period, phase, jitter
        self.start, self.stop, self.cpu = start, stop, cpu
        self.cpu2, self.move_at, self.bursts = cpu2, move_at, bursts

    def times(self, end, rng):
        """(t, cpu, irq) of every interrupt before END."""
        out = []
        k = 0
        while True:
            base = self.start + self.phase + k * self.period
            k += 1
            t = base + int(rng.uniform(-self.jitter, self.jitter) * self.period)
            if base >= end or (self.stop is not None and base >= self.stop):
                break
            out.append(t)
        for (at, count, gap) in self.bursts:
            out.extend(at + i * gap for i in range(count))
        out.sort()
        res = []
        for t in out:
            cpu = self.cpu
            if self.move_at is not None and t >= self.move_at:
                cpu = self.cpu2
            res.append((t, cpu, self.irq))
        return res


def simulate(sources, end, ncpus=1, tick=None, rearm=None, seed=1):
    """Lines of a trace.  TICK: a periodic timer (ns) on every CPU.
    REARM: a timer re-armed REARM ns after every wakeup (a timeout)."""
    rng = random.Random(seed)
    irqs = {c: [] for c in range(ncpus)}
    for s in sources:
        for (t, cpu, irq) in s.times(end, rng):
            if 0 <= t < end:
                irqs[cpu].append((t, irq))
    events = []
    seq = 0
    for cpu in range(ncpus):
        q = sorted(irqs[cpu])
        i = 0
        now = 0
        next_rearm = rearm if rearm else None
        while now < end:
            # Interrupts that arrived while busy: handled, no idle period.
            while i < len(q) and q[i][0] <= now:
                events.append((q[i][0], seq, "%d %d irq %d" % (q[i][0], cpu, q[i][1])))
                seq += 1
                i += 1
                now = max(now, q[i - 1][0]) + BUSY_NS
            timers = []
            if tick:
                timers.append((now // tick + 1) * tick)
            if next_rearm is not None:
                timers.append(max(next_rearm, now + 1))
            timer = min(timers) if timers else None
            nirq = q[i][0] if i < len(q) else None
            wake = min(x for x in (timer, nirq, end) if x is not None)
            if wake <= now:
                now += BUSY_NS
                continue
            tstr = str(timer - now) if timer is not None else "-"
            events.append((now, seq, "%d %d idle_enter %s" % (now, cpu, tstr)))
            seq += 1
            events.append((wake, seq, "%d %d idle_exit" % (wake, cpu)))
            seq += 1
            if nirq is not None and wake == nirq:
                events.append((wake, seq, "%d %d irq %d" % (wake, cpu, q[i][1])))
                seq += 1
                i += 1
            if rearm:
                next_rearm = wake + rearm
            now = wake + BUSY_NS
    events.sort()
    return [e[2] for e in events]


MS = 1000000
US = 1000

SCENARIOS = {
    # One periodic source, 1 ms, far timer.
    "periodic": lambda: simulate([Source(40, 1000 * US)], 500 * MS, tick=50 * MS),
    # Two interleaved periodic sources, never coincident.
    "two": lambda: simulate([Source(40, 1000 * US), Source(41, 1500 * US, phase=250 * US)],
                            600 * MS, tick=50 * MS),
    # A source that stops at 0.3 s; the 4 ms tick goes on.
    "stop": lambda: simulate([Source(40, 1000 * US, stop=300 * MS)], 1600 * MS, tick=4 * MS),
    # Jitter: 2.6 ms +-5 %.
    "jitter": lambda: simulate([Source(40, 2600 * US, jitter=0.05)], 2000 * MS,
                               tick=50 * MS, seed=7),
    # A burst of 20 interrupts 20 us apart on the periodic source's line.
    "burst": lambda: simulate([Source(40, 1000 * US, bursts=[(200 * MS + 300 * US, 20, 20 * US)])],
                              400 * MS, tick=50 * MS),
    # A source that moves from CPU 0 to CPU 1 at 0.3 s.
    "move": lambda: simulate([Source(40, 1000 * US, cpu=0, cpu2=1, move_at=300 * MS)],
                             1600 * MS, ncpus=2, tick=4 * MS),
    # A timeout re-armed 300 us after every wakeup beats the 1 ms source.
    "timerwins": lambda: simulate([Source(40, 1000 * US)], 300 * MS, rearm=300 * US),
    # Network-like: 1000 us and 1500 us sources with 5 % jitter, 4 ms tick.
    "network": lambda: simulate([Source(40, 1000 * US, jitter=0.05),
                                 Source(41, 1500 * US, phase=333 * US, jitter=0.05)],
                                2000 * MS, tick=4 * MS, seed=3),
    # The same with an irregular first source: 1000 us +-90 %, so the
    # adaptive rule's irq_predict_upper() runs.
    "irregular": lambda: simulate([Source(40, 1000 * US, jitter=0.9),
                                   Source(41, 1500 * US, phase=333 * US, jitter=0.05)],
                                  2000 * MS, tick=4 * MS, seed=3),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    lines = SCENARIOS[a.scenario]()
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()


def to_perf(lines, select_states=None, hrtimers=True):
    """The same trace as `perf script --ns` text (perf record -k mono):
    irq:irq_handler_entry, power:cpu_idle and either timer:hrtimer_* events
    (one per-CPU timer re-armed before each idle entry) or, with
    SELECT_STATES (a list of the states chosen, in entry order),
    sched_idle:sched_idle_select."""
    out = []
    n_enter = 0

    def stamp(t):
        return "%d.%09d" % (t // 1000000000, t % 1000000000)

    for ln in lines:
        f = ln.split()
        t, cpu, ev = int(f[0]), int(f[1]), f[2]
        head = "%16s %5d [%03d] %s:" % ("swapper/%d" % cpu, 0, cpu, stamp(t))
        if ev == "irq":
            out.append("%s irq:irq_handler_entry: irq=%s name=eth0-rx-%s" % (head, f[3], f[3]))
        elif ev == "idle_enter":
            if select_states is not None:
                timer = f[3] if f[3] != "-" else "18446744073709551615"
                out.append("%s sched_idle:sched_idle_select: cpu=%d timer_ns=%s irq_ns=-1 irq=0 "
                           "latency_req_ns=2000000000 state=%d stop_tick=1"
                           % (head, cpu, timer, select_states[n_enter]))
            elif hrtimers and f[3] != "-":
                out.append("%s timer:hrtimer_cancel: hrtimer=0xffff8880%08x" % (head, cpu))
                out.append("%s timer:hrtimer_start: hrtimer=0xffff8880%08x function=hrtimer_wakeup "
                           "expires=%d softexpires=%d mode=ABS|PINNED_HARD"
                           % (head, cpu, t + int(f[3]), t + int(f[3])))
            out.append("%s power:cpu_idle: state=2 cpu_id=%d" % (head, cpu))
            n_enter += 1
        elif ev == "idle_exit":
            out.append("%s power:cpu_idle: state=4294967295 cpu_id=%d" % (head, cpu))
    return out
