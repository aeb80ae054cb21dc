"""Synthetic ftrace text with the irq_predict events (exact replay).

Strictly periodic sources, questions at an unrelated period on each CPU.
For such sources the kernel's 'adaptive' rule (rule=0) predicts the last
stamp plus the period (the silence is always shorter than the period), so
the traced answers are known here without a model of the predictor; the
state is chosen as kernel/sched/idle.c sched_idle() does, from the
emulated Skylake-SP table."""

MS = 1000000
TICK = 4 * MS
# (exit latency, target residency) in ns: POLL, C1, C1E, C6
SKX = [(0, 0), (2000, 2000), (10000, 20000), (133000, 600000)]
NONE = -1


def select(duration, lat):
    index = -1
    for i, (exit_ns, res) in enumerate(SKX):
        if exit_ns > lat:
            continue
        if index < 0 or res <= duration:
            index = i
    return index


def choose(timer, delta, irq_ns, lat):
    """(state, stop_tick) as sched_idle() with the tick running."""
    duration = min(timer, irq_ns if irq_ns >= 0 else 1 << 64)
    index = select(duration, lat)
    # stopped for a long duration, or for a predicted interrupt that the
    # next tick would cut short when no usable state is deeper
    deeper = any(e <= lat for e, _ in SKX[index + 1:])
    irq_won = 0 <= irq_ns < timer
    stop = index != 0 and (duration >= TICK or
                           (irq_won and delta < duration and not deeper))
    if not stop and delta and delta < duration:
        index = select(delta, lat)
    return index, int(stop)


def stamp_line(t, cpu, irq, ts):
    return (t, "          <idle>-0       [%03d] d....  %d.%09d: irq_predict_stamp: irq=%d ts_ns=%d"
            % (cpu, t // 10**9, t % 10**9, irq, ts))


def trace(sources, questions, end, rule=0, lat_every=7):
    """sources: {cpu: [(irq, period_ns, phase_ns)]}; questions: {cpu:
    (period_ns, phase_ns)}.  Returns (lines, facts): facts per question:
    dict(cpu, now, line index of its next event)."""
    ev = []
    seq = 0
    for cpu, (qp, qph) in questions.items():
        stamps = sorted((ph + k * p, irq) for irq, p, ph in sources.get(cpu, [])
                        for k in range((end - ph) // p + 1))
        last = {}
        si = 0
        n = 0
        for now in range(qph, end, qp):
            while si < len(stamps) and stamps[si][0] < now:
                ts, irq = stamps[si]
                ev.append((now, seq, "stamp", stamp_line(now, cpu, irq, ts)[1]))
                seq += 1
                prev = last.get(irq, [None, 0])
                last[irq] = [ts, prev[1] + (prev[0] is not None)]
                si += 1
            best, who = NONE, 0
            if rule == 0:
                period = {irq: p for irq, p, _ in sources.get(cpu, [])}
                for irq, (ts, nint) in last.items():
                    if nint and (best < 0 or ts + period[irq] < best):
                        best, who = ts + period[irq], irq
            t = "%d.%09d" % (now // 10**9, now % 10**9)
            ev.append((now, seq, "next", "          <idle>-0       [%03d] d....  %s: irq_predict_next: "
                       "now_ns=%d next_ns=%d irq=%d rule=%d" % (cpu, t, now, best, who, rule)))
            seq += 1
            n += 1
            # the tick on a 4 ms grid; every third entry a far timer (tick stopped)
            delta = TICK - now % TICK
            timer = 50 * MS if n % 3 == 0 else delta
            lat = 5000 if n % lat_every == 0 else 2000000000
            irq_ns = best - now if best >= 0 else NONE
            state, stop = choose(timer, delta, irq_ns, lat)
            ev.append((now, seq, "select", "          <idle>-0       [%03d] d....  %s: sched_idle_select: "
                       "cpu=%d timer_ns=%d delta_tick_ns=%d irq_ns=%d irq=%d latency_req_ns=%d "
                       "state=%d stop_tick=%d" % (cpu, t, cpu, timer, delta, irq_ns, who, lat, state, stop)))
            seq += 1
    ev.sort(key=lambda e: (e[0], e[1]))
    head = ["# tracer: nop", "#"]
    return head + [e[3] for e in ev], [e[2] for e in ev]


def restarts(n, restarted_ns=4 * MS):
    """A CPU with no device and its tick stopped behind a timer 50 ms
    away, whose every idle period ends after 1 us: from the second
    period on, the history learned from says that early ends dominate,
    so the choice is intercepted (POLL) and the stopped tick is started
    again, its first expiry RESTARTED_NS away (kernel/sched/idle_select.c,
    sched_idle_choose()).  Returns the lines, and the line index of each
    sched_idle_select."""
    lines = ["# tracer: nop", "#"]
    sels = []
    t = 1000 * MS
    for k in range(n):
        sec = "%d.%09d" % (t // 10**9, t % 10**9)
        state, stop, restarted = (3, 1, -1) if k == 0 else (0, 0, restarted_ns)
        lines.append("          <idle>-0       [000] d....  %s: irq_predict_next: "
                     "now_ns=%d next_ns=-1 irq=0 rule=0" % (sec, t))
        sels.append(len(lines))
        lines.append("          <idle>-0       [000] d....  %s: sched_idle_select: cpu=0 timer_ns=%d "
                     "delta_tick_ns=%d irq_ns=-1 irq=0 latency_req_ns=2000000000000 state=%d "
                     "stop_tick=%d tick_stopped=1 restarted_ns=%d learned_ns=%d"
                     % (sec, 50 * MS, TICK, state, stop, restarted, -1 if k == 0 else 1000))
        t += 2 * MS
    return lines, sels
