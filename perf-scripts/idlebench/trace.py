"""The bench's reader of tracefs text: the nop tracer's event lines (parse,
energy, lateness; arrivals.py reads interrupt arrivals from the same
text, idle-loop/parse.c reads it for the replay).

    <idle>-0  [001] d....  12.345678: cpu_idle: state=3 cpu_id=1

power:cpu_idle with state=EXIT_STATE ((u32)-1, PWR_EVENT_EXIT) closes the
idle period the previous cpu_idle of that CPU opened."""
import re

EXIT_STATE = 4294967295
_LINE = re.compile(r"\[(\d+)\].*?\s(\d+\.\d+):\s+(\w+):\s+(.*)$")


class ParseError(Exception):
    """Malformed or missing input, with the file it came from (every parser
    of the bench raises it)."""


def kv_line(line, src, lineno):
    """The key=value words of one line of a debugfs or sysfs snapshot, as
    strings; any other word is an error."""
    out = {}
    for word in line.split():
        if "=" not in word:
            raise ParseError(f"{src}:{lineno}: '{word}' is not key=value")
        k, v = word.split("=", 1)
        out[k] = v
    return out


def rows(text, src, row):
    """[row(kv_line) of each non-blank line of text]; a field that row()
    finds missing (KeyError) or bad (ValueError) is an error."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        kv = kv_line(line, src, i)
        try:
            out.append(row(kv))
        except (KeyError, ValueError) as e:
            raise ParseError(f"{src}:{i}: missing or bad field ({e})") from None
    return out


def fields(rest):
    """An event's key=value words; values that are numbers become ints."""
    kv = {}
    for w in rest.split():
        if "=" in w:
            k, v = w.split("=", 1)
            try:
                kv[k] = int(v)
            except ValueError:
                kv[k] = v
    return kv


def events(text, src="trace.txt", strict=True):
    """(cpu, t_s, event, fields) of each event line.  strict: a line that
    is not an event is an error; otherwise it is skipped."""
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = _LINE.search(line)
        if not m:
            if strict:
                raise ParseError(f"{src}: cannot read trace line: {line[:100]}")
            continue
        yield int(m.group(1)), float(m.group(2)), m.group(3), fields(m.group(4))


def idle_state(ev, src="trace.txt"):
    """(cpu, state) of a cpu_idle event's fields; state EXIT_STATE on exit."""
    cpu, state = ev.get("cpu_id"), ev.get("state")
    if not isinstance(cpu, int) or not isinstance(state, int):
        raise ParseError(f"{src}: bad cpu_idle event: {ev}")
    return cpu, state


# What ended an idle period: the first of these events on its CPU after
# the period opened and before the next one did.  With the emulated
# states the waking interrupt's handler runs inside the halt (before the
# exit event); with a hardware driver it runs after the exit.
ENDERS = ("task timer", "tick", "other timer", "device", "untraced")
_TICK_FNS = ("tick_nohz_handler", "tick_sched_timer", "tick_nohz_highres_handler")


def ender(event, f):
    """The kind of wakeup an event is (ENDERS[:-1]), or None: a task's
    timer (hrtimer_wakeup: a sleeper's nanosleep, poll or futex timeout),
    the tick, another hrtimer, a device interrupt's handler."""
    if event == "hrtimer_expire_entry":
        fn = f.get("function")
        if fn == "hrtimer_wakeup":
            return "task timer"
        return "tick" if fn in _TICK_FNS else "other timer"
    if event == "irq_handler_entry":
        return "device"
    return None


class IdlePeriods:
    """Pairs cpu_idle entries with exits: periods {cpu: [(t_enter, t_exit,
    state)]}; an exit without an entry (the window opened inside an idle
    period) is dropped, and so is an entry still open at the end.
    enders {cpu: [kind]}, one per period: what ended it (ENDERS; an IPI
    or a wakeup whose event is not traced reads "untraced")."""

    def __init__(self):
        self.periods, self.enders, self._open, self._last = {}, {}, {}, {}

    def add(self, cpu, t, state):
        if state == EXIT_STATE:
            if cpu in self._open:
                t0, st, why = self._open.pop(cpu)
                self.periods.setdefault(cpu, []).append((t0, t, st))
                self.enders.setdefault(cpu, []).append(why or "untraced")
                self._last[cpu] = why is None
        else:
            self._open[cpu] = (t, state, None)
            self._last.pop(cpu, None)

    def woke(self, cpu, kind):
        """An event of that kind (ender()) on cpu: it ended the open
        period, or the one that just closed, if nothing did before."""
        if cpu in self._open:
            t0, st, why = self._open[cpu]
            if why is None:
                self._open[cpu] = (t0, st, kind)
        elif self._last.pop(cpu, False):
            self.enders[cpu][-1] = kind

    def ended_by(self):
        """{state: {kind: periods}} over all CPUs."""
        out = {}
        for cpu, ps in self.periods.items():
            for (_t0, _t1, st), why in zip(ps, self.enders[cpu]):
                d = out.setdefault(st, {})
                d[why] = d.get(why, 0) + 1
        return out


def idle_periods(text, src="trace.txt"):
    """A tracefs text's idle periods, read once: (IdlePeriods of its
    power:cpu_idle events, [fields of each sched_idle_select], (first_s,
    last_s) event times)."""
    idle = IdlePeriods()
    sel = []
    first = last = None
    for ecpu, t, ev, f in events(text, src):
        first = t if first is None else first
        last = t
        if ev == "cpu_idle":
            cpu, state = idle_state(f, src)
            idle.add(cpu, t, state)
        elif ev == "sched_idle_select":
            sel.append(f)
        else:
            kind = ender(ev, f)
            if kind:
                idle.woke(ecpu, kind)
    return idle, sel, (first, last)


def span(text, src="trace.txt"):
    """(first_s, last_s) event times of a trace, or None if it has none:
    the window, since bench.sh turns tracing on and off at its edges."""
    first = last = None
    for _cpu, t, _ev, _f in events(text, src, strict=False):
        first = t if first is None else first
        last = t
    return None if first is None else (first, last)
