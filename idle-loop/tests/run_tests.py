#!/usr/bin/env python3
"""make -C idle-loop test: synthetic traces with known answers, malformed
inputs, and mutated inputs under ASan+UBSan.  Prints PASS/FAIL per check
and ends with "N passed, M failed"; exits 1 when a check failed.

make -C idle-loop control (--control): the same suite against a replay
built wrong on purpose; exits 0 only when the suite fails there, with at
least one known-answer check failed, and prints the first of them."""
import argparse
import concurrent.futures
import lzma
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
import exact_gen  # noqa: E402

MS = gen.MS


class Tally:
    """The count of checks.  A check passes only when its result is True
    itself: any other value, a non-boolean that happens to be truthy or
    falsy included, is a failure, so an expression that yields [] or None
    cannot be read as a pass or slip past the count.  Each check belongs
    to the section current when it runs."""

    def __init__(self, out=print):
        self.out = out
        self.section = ""
        self.passed = 0
        self.failures = []              # (section, printed FAIL line)

    def check(self, name, ok, why=""):
        if not isinstance(ok, bool):
            why = "not a boolean but %s %.60r%s" % (type(ok).__name__, ok,
                                                   "; " + why if why else "")
            ok = False
        if ok:
            self.passed += 1
            line = "PASS " + name
        else:
            line = "FAIL %s: %s" % (name, why)
            self.failures.append((self.section, line))
        if self.out:
            self.out(line)
        return ok

    @property
    def failed(self):
        return len(self.failures)

    def failed_in(self, sections):
        return [ln for sec, ln in self.failures if sec in sections]

    def all_passed(self):
        """True when at least one check ran and none failed."""
        return self.passed > 0 and not self.failures


TALLY = Tally()


def check(name, ok, why=""):
    return TALLY.check(name, ok, why)


def tally_test():
    """The count itself, before anything is counted with it: of True,
    False and six values that are not booleans, only True passes, and
    each non-boolean's failure names its type; an empty tally has not
    passed."""
    values = [True, False, None, [], {}, "", 1, [1]]
    t = Tally(out=None)
    for i, v in enumerate(values):
        t.check("v%d" % i, v)
    named = all(("but %s " % type(v).__name__) in ln
                for v, (_, ln) in zip(values[2:], t.failures[1:]))
    ok = (t.passed == 1 and t.failed == 7 and named and t.all_passed() is False
          and Tally(out=None).all_passed() is False)
    return ok, "%d passed, %d failed: %s" % (t.passed, t.failed, [ln for _, ln in t.failures])


def run(binary, args, data=None):
    p = subprocess.run([binary] + args, input=data, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def dump(replay, out, name, lines, extra=()):
    path = os.path.join(out, name + ".txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    dpath = os.path.join(out, name + ".dump")
    rc, so, se = run(replay, ["--dump", dpath, "--csv", *extra, path])
    if rc:
        raise RuntimeError("%s: replay failed: %s" % (name, se))
    rows = []
    for ln in open(dpath):
        f = ln.split()
        rows.append(dict(rule=f[0], cpu=int(f[1]), t=int(f[2]), pred=int(f[3]),
                         actual=int(f[4]), timer=int(f[5]), irq=int(f[6]),
                         chosen=int(f[7]), fit=int(f[8])))
    return rows, so, path


def csv_rows(text):
    """--csv output by row name, each a dict by column name, so that the
    checks do not depend on the columns' order."""
    lines = text.splitlines()
    if not lines:
        return {}
    head = lines[0].split(",")
    return {d["rule"]: d for d in (dict(zip(head, ln.split(","))) for ln in lines[1:])}


def rule(rows, r, cpu=None):
    return [x for x in rows if x["rule"] == r and (cpu is None or x["cpu"] == cpu)]


def mismatches(rows):
    """The rows whose choice is not the fit (the deepest state whose target
    residency fits the actual period)."""
    return [x for x in rows if x["chosen"] != x["fit"]]


def all_fit(rows):
    """Rows there are, and every choice among them is the fit: an empty
    selection says nothing, so it fails."""
    return len(rows) > 0 and len(mismatches(rows)) == 0


def differ(rows):
    return "%d of %d differ" % (len(mismatches(rows)), len(rows))


def known_answers(replay, out):
    # 1. One periodic source: after warm-up every choice of every
    #    predicting rule is the fit, and the prediction is exact.
    rows, _, _ = dump(replay, out, "periodic", gen.SCENARIOS["periodic"]())
    for r in ("adaptive", "last", "rfc"):
        rr = rule(rows, r)[5:]
        check("periodic-%s-matches-oracle" % r, all_fit(rr), differ(rr))
    rr = rule(rows, "adaptive")[5:]
    inexact = [x for x in rr if x["pred"] != x["actual"]]
    check("periodic-adaptive-exact", len(rr) > 0 and len(inexact) == 0,
          "%d of %d predictions inexact" % (len(inexact), len(rr)))

    # 2. Two interleaved periodic sources: per-source prediction is exact,
    #    the timer alone is too deep whenever the 250 us gap comes.
    rows, _, _ = dump(replay, out, "two", gen.SCENARIOS["two"]())
    rr = [x for x in rule(rows, "adaptive") if x["t"] > 10 * MS]
    check("two-adaptive-matches-oracle", all_fit(rr), differ(rr))
    tt = rule(rows, "timer")
    deep = sum(x["chosen"] > x["fit"] for x in tt)
    check("two-timer-too-deep", len(tt) > 0 and deep > len(tt) // 4,
          "%d of %d too deep" % (deep, len(tt)))

    # 3. A source that stops at 0.3 s (Arm table, where the 4 ms tick period
    #    deserves CLUOFF): the stale 1 ms source keeps the choice shallow
    #    only until it has been silent for IRQ_PREDICT_LATE_PERIODS (2)
    #    periods (8 in an earlier rule), then the timer rules; and after its
    #    reset (1 s) as well.
    rows, _, _ = dump(replay, out, "stop", gen.SCENARIOS["stop"](), ["--table", "arm"])
    aa = rule(rows, "adaptive")
    late = [x for x in aa if x["t"] > 1300 * MS + 4 * MS]
    check("stop-adaptive-after-reset", all_fit(late), differ(late))
    right = [x for x in aa if 299 * MS + MS // 2 < x["t"] < 301 * MS]
    check("stop-adaptive-shallow-right-after-stop",
          len(right) > 0 and all(x["chosen"] < x["fit"] for x in right),
          "(chosen, fit) %s" % [(x["chosen"], x["fit"]) for x in right])
    gap = [x for x in aa if 302 * MS < x["t"] < 1290 * MS]
    check("stop-adaptive-timer-after-window", all_fit(gap), differ(gap))
    early = [x for x in aa if 10 * MS < x["t"] < 299 * MS]
    check("stop-adaptive-before-stop", all_fit(early), differ(early))

    # 4. Jitter (2.6 ms +-5 %, Arm table: the CPUOFF/CLUOFF boundary at
    #    2.5 ms falls inside the jitter): the adaptive rule predicts the
    #    median of the intervals still possible, so it errs both ways but
    #    less often than the last-interval rule, and never too deep more
    #    often (the shortest interval would be rarely too deep but mostly
    #    too shallow here).
    rows, _, _ = dump(replay, out, "jitter", gen.SCENARIOS["jitter"](), ["--table", "arm"])
    deep, miss = {}, {}
    nan = float("nan")          # no rows: every comparison below is False
    for r in ("adaptive", "last", "rfc"):
        rr = rule(rows, r)[10:]
        deep[r] = sum(x["chosen"] > x["fit"] for x in rr) / len(rr) if rr else nan
        miss[r] = len(mismatches(rr)) / len(rr) if rr else nan
    check("jitter-adaptive-below-last", miss["adaptive"] < miss["last"],
          "adaptive %.3f last %.3f" % (miss["adaptive"], miss["last"]))
    check("jitter-adaptive-not-deeper-than-last", deep["adaptive"] <= deep["last"],
          "adaptive %.3f last %.3f" % (deep["adaptive"], deep["last"]))

    # 5. A burst of 20 interrupts 20 us apart on the periodic line: the
    #    window (8 intervals) flushes the burst out; from then on every
    #    choice matches again.
    rows, _, _ = dump(replay, out, "burst", gen.SCENARIOS["burst"]())
    aa = rule(rows, "adaptive")
    after = [x for x in aa if x["t"] > 200 * MS + 300 * 1000 + 20 * 20000 + 9 * MS]
    before = [x for x in aa if 10 * MS < x["t"] < 200 * MS]
    check("burst-adaptive-recovers", all_fit(after), differ(after))
    check("burst-adaptive-before", all_fit(before), differ(before))

    # 5b. Bursts of 8 arrivals 50 us apart every 5 ms: the window holds one
    #    burst, whose seven short intervals hide the long gap after the
    #    burst's last arrival from the sorted window ("noring", the rule
    #    before the repeating windows); the adaptive rule sees the window repeat itself
    #    and predicts the gap.
    src = gen.Source(40, 5 * MS, bursts=[(k * 5 * MS + 50 * 1000, 7, 50 * 1000)
                                         for k in range(80)])
    rows, _, _ = dump(replay, out, "burst8", gen.simulate([src], 400 * MS, tick=50 * MS),
                      ["--rules", "adaptive,noring"])
    gap = {r: [x for x in rule(rows, r) if x["t"] > 100 * MS and x["actual"] > 2 * MS]
           for r in ("adaptive", "noring")}
    check("burst8-adaptive-predicts-the-gap", all_fit(gap["adaptive"]), differ(gap["adaptive"]))
    shallow = [x for x in gap["noring"] if x["chosen"] < x["fit"]]
    check("burst8-noring-shallow-in-the-gap",
          len(gap["noring"]) > 0 and len(shallow) > len(gap["noring"]) // 2,
          "%d of %d too shallow" % (len(shallow), len(gap["noring"])))

    # 6. A source that moves from CPU 0 to CPU 1 at 0.3 s (Arm table): CPU 1
    #    predicts it after two interrupts; CPU 0 forgets it 1 s after its
    #    last interrupt there.
    rows, _, _ = dump(replay, out, "move", gen.SCENARIOS["move"](), ["--table", "arm"])
    c1 = [x for x in rule(rows, "adaptive", 1) if x["t"] > 303 * MS]
    check("move-new-cpu-matches", all_fit(c1), differ(c1))
    c0 = [x for x in rule(rows, "adaptive", 0) if x["t"] > 1304 * MS]
    check("move-old-cpu-forgets", all_fit(c0), differ(c0))

    # 7. A 300 us timeout re-armed at every wakeup beats the 1 ms source
    #    most of the time; the timer is exact and so is the source, so
    #    every choice after warm-up matches and, where the timer is the
    #    earlier, the adaptive choice is the timer-only choice.
    rows, _, _ = dump(replay, out, "timerwins", gen.SCENARIOS["timerwins"]())
    aa = rule(rows, "adaptive")[5:]
    tt = {(x["cpu"], x["t"]): x for x in rule(rows, "timer")}
    check("timerwins-matches-oracle", all_fit(aa), differ(aa))
    won = [x for x in aa if x["irq"] < 0 or x["timer"] <= x["irq"]]
    other = [x for x in won if x["chosen"] != tt[(x["cpu"], x["t"])]["chosen"]]
    check("timerwins-timer-decides", len(won) > len(aa) // 2 and len(other) == 0,
          "timer earlier in %d of %d, chosen unlike the timer rule in %d" %
          (len(won), len(aa), len(other)))

    # 8. The same trace as perf script text with hrtimer events replays to
    #    the same numbers; with sched_idle_select it replays to the states
    #    the (here: simulated) kernel chose.
    lines = gen.SCENARIOS["two"]()
    # (the rules only: the governors reflect the traced state, which the
    #  native format does not have)
    rules = ("--rules", "timer,last,rfc,adaptive")
    _, csv_native, _ = dump(replay, out, "two-native", lines, rules)
    _, csv_perf, _ = dump(replay, out, "two-perf", gen.to_perf(lines), rules)
    # energies left out: the perf text enters C1E, whose exit latency the
    # period holds (charged as exit, not halted), the native format no state
    strip = lambda c: [",".join(l.split(",")[1:9] + l.split(",")[12:]) for l in c.splitlines()]
    check("perf-hrtimer-same-as-native",
          len(strip(csv_native)) > 1 and strip(csv_native) == strip(csv_perf),
          "\n%s\n%s" % (csv_native, csv_perf))
    rows, _, _ = dump(replay, out, "two-native2", lines)
    states = [x["chosen"] for x in rule(rows, "adaptive")]
    _, csv_sel, _ = dump(replay, out, "two-select", gen.to_perf(lines, select_states=states))
    sel = {r: d.get("kernel_match_pct") for r, d in csv_rows(csv_sel).items()}
    check("perf-select-kernel-match", sel.get("adaptive") == "100.000", str(sel))
    # No timer input at all: wakeups by no interrupt are taken as the
    # timer, and every idle period is still replayed.
    _, csv_none, _ = dump(replay, out, "two-notimer", gen.to_perf(lines, hrtimers=False))
    periods = [csv_rows(c).get("adaptive", {}).get("periods") for c in (csv_native, csv_none)]
    check("perf-no-timer-approximation",
          periods[0] is not None and int(periods[0]) > 0 and periods[1] == periods[0],
          "adaptive periods: with timers %s, without %s" % tuple(periods))
    # An hrtimer started with no expiry or cancel after it in the trace
    # (a lost event; seen in a recording of a real machine) expires at its
    # due time: here due at the first event, so every number is the same
    # as without it, and the replay says it took one such timer.
    perf = gen.to_perf(lines)
    stamp = perf[0].split()[3]
    t0 = int(stamp.rstrip(":").replace(".", ""))
    orphan = ("swapper/0 0 [000] %s timer:hrtimer_start: hrtimer=0xffff8880dead0000 "
              "function=hrtimer_wakeup expires=%d softexpires=%d mode=ABS" % (stamp, t0, t0))
    _, csv_lost, lost_path = dump(replay, out, "two-hrt-lost", [orphan] + perf, rules)
    body = lambda c: [l.split(",")[1:] for l in c.splitlines()]
    check("hrtimer-lost-end-expires-at-due-time",
          len(body(csv_perf)) > 1 and body(csv_lost) == body(csv_perf),
          "\n%s\n%s" % (csv_perf, csv_lost))
    rc, so, se = run(replay, list(rules) + [lost_path])
    check("hrtimer-lost-end-counted",
          rc == 0 and "hrtimers with no expiry or cancel after their start: 1," in so
          and se.startswith("replay: warning: 1 hrtimer"), "rc=%d %r %r" % (rc, se, so[:300]))


PERF_OK = ("swapper/0 0 [000] 1.000000000: irq:irq_handler_entry: irq=40 name=eth0\n"
           "swapper/0 0 [000] 1.000010000: power:cpu_idle: state=2 cpu_id=0\n"
           "swapper/0 0 [000] 1.001000000: power:cpu_idle: state=4294967295 cpu_id=0\n")

MALFORMED = [
    # name, input, line of the error
    ("truncated-native", "0 0 irq 40\n5000 0 idle_enter\n", 2),
    ("truncated-native-cpu-only", "0 0 irq 40\n5000 0\n", 2),
    ("truncated-perf", PERF_OK + "swapper/0 0 [000] 1.002000000: irq:irq_handler_entry: irq=\n", 4),
    ("truncated-perf-noevent", PERF_OK + "swapper/0 0 [000] 1.002\n", 4),
    ("unknown-native", "0 0 irq 40\n10 0 softirq 3\n", 2),
    ("unknown-perf", PERF_OK + "swapper/0 0 [000] 1.002000000: sched:sched_switch: prev=a\n", 4),
    ("backwards-native", "100 0 irq 40\n50 0 irq 40\n", 2),
    ("backwards-perf", PERF_OK + "swapper/0 0 [000] 0.500000000: irq:irq_handler_entry: irq=1 name=x\n", 4),
    ("huge-time", "0 0 irq 40\n99999999999999999999999 0 irq 40\n", 2),
    ("huge-time-2^63", "0 0 irq 40\n9223372036854775808 0 irq 40\n", 2),
    ("huge-cpu", "0 0 irq 40\n10 4294967296 irq 40\n", 2),
    ("huge-irq", "0 0 irq 40\n10 0 irq 4294967296\n", 2),
    ("huge-timer", "0 0 idle_enter 99999999999999999999\n", 1),
    ("huge-state", PERF_OK + "swapper/0 0 [000] 1.002000000: power:cpu_idle: state=11 cpu_id=0\n", 4),
    ("negative", "0 0 irq -40\n", 1),
    ("double-enter", "0 0 idle_enter 100\n10 0 idle_enter 100\n", 2),
    ("exit-not-idle", "0 0 irq 1\n10 0 idle_exit\n", 2),
    ("no-cpu-perf", "hello world 1.0: irq:irq_handler_entry: irq=1 name=x\n", 1),
    ("garbage-after-native", "0 0 irq 40\nfoo bar\n", 2),
    ("nul-byte", "0 0 irq 40\n1\x000 0 irq 4\n", 2),
    # the irq_predict trace events
    ("predict-stamp-truncated", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_stamp: irq=40 ts_ns=\n", 4),
    ("predict-stamp-no-ts", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_stamp: irq=40\n", 4),
    ("predict-stamp-huge-irq", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_stamp: irq=16777216 ts_ns=5\n", 4),
    ("predict-stamp-huge-ts", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_stamp: irq=4 ts_ns=18446744073709551615\n", 4),
    ("predict-forget-no-irq", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_forget: irq=x\n", 4),
    ("predict-next-no-rule", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_next: now_ns=5 next_ns=-1 irq=0\n", 4),
    ("predict-next-bad-rule", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_next: now_ns=5 next_ns=-1 irq=0 rule=2\n", 4),
    ("predict-next-negative-rule", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_next: now_ns=5 next_ns=-1 irq=0 rule=-1\n", 4),
    ("predict-next-next-below-none", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_next: now_ns=5 next_ns=-2 irq=0 rule=0\n", 4),
    ("predict-next-bad-now", PERF_OK + "swapper/0 0 [000] 1.002000000: irq_predict_next: now_ns=-5 next_ns=-1 irq=0 rule=0\n", 4),
    ("predict-lost-bad-cpu", PERF_OK + "CPU:x [LOST 3 EVENTS]\n", 4),
    # timer events: a hashed address names no timer; the wheel's fields
    ("hrtimer-hashed", PERF_OK + "swapper/0 0 [000] 1.002000000: timer:hrtimer_start: "
     "hrtimer=(____ptrval____) function=f expires=5 softexpires=5 mode=0\n", 4),
    ("timer-no-timeout", PERF_OK + "swapper/0 0 [000] 1.002000000: timer:timer_start: "
     "timer=0xff1 function=f expires=5 bucket_expiry=6 cpu=0 idx=1 flags=\n", 4),
    ("timer-bad-cpu", PERF_OK + "swapper/0 0 [000] 1.002000000: timer:timer_start: "
     "timer=0xff1 function=f expires=5 [timeout=1] bucket_expiry=6 cpu=x idx=1 flags=\n", 4),
    ("timer-expire-no-now", PERF_OK + "swapper/0 0 [000] 1.002000000: timer:timer_expire_entry: "
     "timer=0xff1 function=f baseclk=5\n", 4),
]


def exact_mode(replay, out):
    """Patch 8's events: exact replay, mismatches with their line, warm-up."""
    eg = exact_gen

    def save(name, lines):
        path = os.path.join(out, name + ".txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def summary(so):
        first = [ln for ln in so.split("\n") if ln.startswith("exact replay")]
        if not first:
            return None
        w = first[0].replace(",", "").split()
        return dict(records=int(w[w.index("records") + 1]), warm=int(w[w.index("warm") + 1]),
                    pred=w[w.index("predictions") + 2], states=w[w.index("states") + 2])

    two = ({0: [(40, 1000000, 300000)], 1: [(41, 1500000, 100000), (42, 2300000, 700000)]},
           {0: (370000, 50000), 1: (410000, 20000)})
    # the kernel keeps one rule (adaptive, rule=0) besides the RFC baseline
    lines, kinds = eg.trace(*two, 200 * MS)
    path = save("exact-match-adaptive", lines)
    nq = kinds.count("next")
    rc, so, se = run(replay, ["--from-boot", "--check-exact", path])
    m = summary(so)
    check("exact-match-from-boot-adaptive",
          rc == 0 and m is not None and nq > 0 and m["records"] == nq and m["warm"] == nq and
          m["pred"] == "%d/%d" % (nq, nq) and m["states"] == "%d/%d" % (nq, nq),
          "rc %d %r %s" % (rc, m, se[:200]))

    # a wrong answer and a wrong state: reported with their line, exit 1
    lines, kinds = eg.trace(*two, 200 * MS)
    body = lines[2:]
    nexts = [i + 2 for i, k in enumerate(kinds) if k == "next" and "next_ns=-1" not in body[i]]
    sels = [i + 2 for i, k in enumerate(kinds) if k == "select"]
    bad = list(lines)
    i = nexts[len(nexts) // 2]
    w = bad[i].split("next_ns=")
    v = w[1].split()[0]
    bad[i] = w[0] + "next_ns=" + str(int(v) + 1) + w[1][len(v):]
    path = save("exact-wrong-next", bad)
    rc, so, _ = run(replay, ["--from-boot", "--check-exact", path])
    check("exact-wrong-next-reported", rc == 1 and ("first mismatch: %s:%d:" % (path, i + 1)) in so,
          "rc %d, want line %d: %s" % (rc, i + 1, so[:400]))
    rc, so, _ = run(replay, ["--from-boot", path])
    check("exact-wrong-next-exit0-without-check", rc == 0 and "first mismatch" in so, "rc %d" % rc)
    bad = list(lines)
    i = sels[len(sels) // 3]
    st = int(bad[i].split("state=")[1].split()[0])
    bad[i] = bad[i].replace("state=%d" % st, "state=%d" % ((st + 1) % 4))
    path = save("exact-wrong-state", bad)
    rc, so, _ = run(replay, ["--from-boot", "--check-exact", path])
    check("exact-wrong-state-reported", rc == 1 and ("first mismatch: %s:%d:" % (path, i + 1)) in so,
          "rc %d, want line %d: %s" % (rc, i + 1, so[:400]))
    # stop_tick=1 where the kernel could not have stopped it (polling
    # state, the tick traced running: a stopped tick stays stopped for a
    # device that keeps its rhythm, so an untraced tick state would allow
    # it); a trace with no such choice leaves nothing to check: a failure
    bad = list(lines)
    j = [k for k in sels if "state=0" in bad[k]]
    ok, why = False, "no sched_idle_select chose state 0 to alter"
    if j:
        bad[j[0]] = bad[j[0]].replace("stop_tick=0", "stop_tick=1 tick_stopped=0 learned_ns=-1")
        path = save("exact-wrong-stop-tick", bad)
        rc, so, _ = run(replay, ["--from-boot", "--check-exact", path])
        ok = rc == 1 and ("%s:%d:" % (path, j[0] + 1)) in so
        why = "rc %d: %s" % (rc, so[:300])
    check("exact-wrong-stop-tick-reported", ok, why)

    # warm-up: one source at 10 ms, questions every 3.7 ms, 2.5 s; the
    # trace cut at 0.5 s has 0.5 s of history the replay lacks
    lines, kinds = eg.trace({0: [(40, 10 * MS, 1234567)]}, {0: (3700000, 10000)}, 2500 * MS)
    body = list(zip(lines[2:], kinds))
    cut = [(ln, k) for ln, k in body if float(ln.split()[3].rstrip(":")) >= 0.5]
    path = save("exact-cut", lines[:2] + [ln for ln, _ in cut])
    rc, so, se = run(replay, ["--check-exact", path])
    m = summary(so)
    # expected: nothing warm until the first question more than 1 s after
    # the first one (Q*), then not before 9 stamps after Q*
    n0 = qstar = None
    post = warm = 0
    for ln, k in cut:
        if k == "stamp" and qstar:
            post += 1
        if k == "next":
            now = int(ln.split("now_ns=")[1].split()[0])
            if n0 is None:
                n0 = now
            if qstar is None and now - n0 > 1000000000:
                qstar = now
            warm += qstar is not None and post >= 9
    nq = [k for _, k in cut].count("next")
    check("exact-warmup-cut-trace",
          rc == 0 and m is not None and m["records"] == nq and m["warm"] == warm and
          warm > 0 and m["pred"] == "%d/%d" % (warm, warm),
          "rc %d %r, want warm %d of %d %s" % (rc, m, warm, nq, se[:200]))
    first_pred = [i for i, (ln, k) in enumerate(cut) if k == "next" and "next_ns=-1" not in ln][0]
    rc, so, _ = run(replay, ["--from-boot", "--check-exact", path])
    check("exact-cut-trace-is-not-from-boot", rc == 1 and ("%s:%d:" % (path, first_pred + 3)) in so,
          "rc %d, want line %d: %s" % (rc, first_pred + 3, so[:300]))
    short = [(ln, k) for ln, k in cut if float(ln.split()[3].rstrip(":")) < 1.4]
    path = save("exact-cut-short", lines[:2] + [ln for ln, _ in short])
    rc, so, se = run(replay, ["--check-exact", path])
    m = summary(so)
    check("exact-under-1s-is-cold",
          rc == 1 and m is not None and m["warm"] == 0 and "no warm record" in se,
          "rc %d %r" % (rc, m))
    # lost events: the CPU starts over, cold, even --from-boot
    k = [i for i, (ln, kk) in enumerate(body) if kk == "stamp" and
         float(ln.split()[3].rstrip(":")) >= 0.8][0]
    lost = [ln for ln, _ in body[:k]] + ["CPU:0 [LOST 1 EVENTS]"] + [ln for ln, _ in body[k + 1:]]
    path = save("exact-lost", lines[:2] + lost)
    rc, so, _ = run(replay, ["--from-boot", "--check-exact", path])
    m = summary(so)
    check("exact-lost-events-cold-then-warm",
          rc == 0 and m is not None and 0 < m["warm"] < m["records"],
          "rc %d %r %s" % (rc, m, so[:300]))
    # 17 sources on one CPU: the replay's table evicts, the kernel's may
    # have evicted another: that CPU stays cold without --from-boot
    many = {0: [(40 + j, (20 + j) * MS, j * 100000) for j in range(17)]}
    lines, _ = eg.trace(many, {0: (3700000, 10000)}, 2500 * MS)
    path = save("exact-evict", lines)
    rc, so, se = run(replay, ["--check-exact", path])
    m = summary(so)
    few = {0: [(40 + j, (20 + j) * MS, j * 100000) for j in range(16)]}
    lines, _ = eg.trace(few, {0: (3700000, 10000)}, 2500 * MS)
    rc2, so2, _ = run(replay, ["--check-exact", save("exact-16", lines)])
    m2 = summary(so2)
    check("exact-eviction-stays-cold",
          rc == 1 and m is not None and m["warm"] == 0 and "no warm record" in se and
          rc2 == 0 and m2 is not None and m2["warm"] > 0,
          "rc %d %r; 16 sources: rc %d %r" % (rc, m, rc2, m2))
    rc, _, se = run(replay, ["--check-exact", save("exact-none", PERF_OK.strip().split("\n"))])
    check("exact-check-needs-events", rc == 1 and "no irq_predict events" in se, "rc %d %s" % (rc, se))

    # a stopped tick restarted behind intercepted choices: completed with
    # the traced first expiry, every state matches
    lines, sels = eg.restarts(12)
    rc, so, se = run(replay, ["--from-boot", "--check-exact", save("exact-restart", lines)])
    m = summary(so)
    check("exact-restart-matches",
          rc == 0 and m is not None and m["states"] == "12/12" and "intercepted 11" in so,
          "rc %d %r %s" % (rc, m, se[:200]))
    # the kernel traced restarted_ns=-1 (not restarted) where the replay
    # restarts it: a mismatch on that line, not a trace too old to replay
    bad = list(lines)
    i = sels[5]
    bad[i] = bad[i].replace("restarted_ns=%d" % (4 * MS), "restarted_ns=-1")
    path = save("exact-restart-not-traced", bad)
    rc, so, se = run(replay, ["--from-boot", "--check-exact", path])
    want = "first mismatch: %s:%d: cpu 0: replayed irq_ns=-1 restarts the stopped tick" % (path, i + 1)
    check("exact-restart-kept-is-mismatch",
          rc == 1 and want in so and "traced restarted_ns=-1" in so and "too old" not in se,
          "rc %d, want %r: %s %s" % (rc, want, so[:300], se[:200]))
    # without restarted_ns at all (tick_stopped traced), the trace is too
    # old: it cannot tell a kept tick from an untraced restart
    bad = [ln.replace(" restarted_ns=%d" % (4 * MS), "").replace(" restarted_ns=-1", "")
           for ln in lines]
    path = save("exact-restart-untraced", bad)
    rc, _, se = run(replay, ["--from-boot", "--check-exact", path])
    check("exact-restart-untraced-too-old",
          rc != 0 and ("%s:%d: sched_idle_select restarted the tick without restarted_ns: too old"
                       % (path, sels[1] + 1)) in se,
          "rc %d %s" % (rc, se[:300]))


def malformed(replay, asan):
    for name, data, line in MALFORMED:
        for b in (replay, asan):
            rc, so, se = run(b, ["-"], data)
            tag = "malformed-%s%s" % (name, "-asan" if b == asan else "")
            ok = rc == 1 and (":%d:" % line) in se and "Sanitizer" not in se \
                and "runtime error" not in se
            check(tag, ok, "rc %d stderr %r" % (rc, se[:200]))


def mutate(rng, text):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        i = rng.randrange(len(lines))
        ln = lines[i]
        if op == 0 and ln:                      # flip a byte
            j = rng.randrange(len(ln))
            ln = ln[:j] + chr(rng.randrange(1, 127)) + ln[j + 1:]
        elif op == 1 and ln:                    # truncate
            ln = ln[:rng.randrange(len(ln))]
        elif op == 2:                           # delete a line
            del lines[i]
            if not lines:
                lines = [""]
            continue
        elif op == 3:                           # duplicate a line
            lines.insert(i, ln)
        elif op == 4 and ln:                    # a huge or odd number
            toks = ln.split(" ")
            j = rng.randrange(len(toks))
            toks[j] = rng.choice(["18446744073709551615", "18446744073709551616",
                                  "-1", "0", "4611686018427387905", "999999999999",
                                  "4294967295", "1e9", "", "0x10"])
            ln = " ".join(toks)
        elif op == 5 and len(lines) > 1:        # swap two lines
            k = rng.randrange(len(lines))
            lines[i], lines[k] = lines[k], lines[i]
            continue
        elif op == 6 and ln:                    # insert junk
            j = rng.randrange(len(ln) + 1)
            ln = ln[:j] + rng.choice(["=", ":", " ", "[", "]", ".", "\t", "9" * 30]) + ln[j:]
        elif op == 7 and ln:                    # replace a key=value
            ln = ln.replace("state=2", rng.choice(["state=", "state=99", "state=4294967295"]))
        lines[i] = ln
    return "\n".join(lines)


def fuzz(asan, n):
    rng = random.Random(12345)
    native = "\n".join(gen.simulate([gen.Source(40, 1000 * 1000), gen.Source(41, 1500 * 1000, phase=250000)],
                                    20 * MS, ncpus=1, tick=4 * MS)) + "\n"
    perf = "\n".join(gen.to_perf(native.strip().split("\n")[:120])) + "\n"
    sel = "\n".join(gen.to_perf(native.strip().split("\n")[:120], select_states=[3] * 200)) + "\n"
    ex, _ = exact_gen.trace({0: [(40, 1000000, 300000)], 1: [(41, 1500000, 100000)]},
                            {0: (370000, 50000), 1: (410000, 20000)}, 6 * MS)
    exact = "\n".join(ex[:100] + ["CPU:1 [LOST 2 EVENTS]"] + ex[100:]) + "\n"
    seeds = [native, perf, sel, exact]
    # a slice of a recorded stock-kernel trace: tick, hrtimer and wheel events
    fx = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gov-traces", "menu",
                      "trace.txt.xz")
    if os.path.exists(fx):
        with lzma.open(fx, "rt") as f:
            seeds.append("".join(f.readlines()[5000:5400]))
    inputs = [mutate(rng, rng.choice(seeds)) for _ in range(n)]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")

    def one(data):
        p = subprocess.run([asan, "--csv", "--check-exact", "-"], input=data.encode("latin-1"),
                           capture_output=True, env=env)
        se = p.stderr.decode("latin-1")
        bad = p.returncode not in (0, 1) or "Sanitizer" in se or "runtime error" in se \
            or (p.returncode == 1 and not se.startswith("replay: "))
        return bad, p.returncode, se, data

    bad = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        for r in ex.map(one, inputs):
            if r[0]:
                bad.append(r)
    check("fuzz-%d-mutated-inputs-asan-ubsan" % n, n > 0 and len(bad) == 0,
          "%d bad; first rc %d: %s" % (len(bad), bad[0][1], bad[0][2][:300]) if bad
          else "no input")


def intercepted(n=200, timer=10 * MS, woken=100000, busy=50000):
    """One CPU, its timer 10 ms away, woken after 100 us by nothing traced
    (as a reschedule IPI wakes it)."""
    lines, t = [], 1000000
    for _ in range(n):
        lines += ["%d 0 idle_enter %d" % (t, timer), "%d 0 idle_exit" % (t + woken)]
        t += woken + busy
    return lines


def learning(replay, out):
    # Unannounced wakeups every period: the rules expect the timer (C6,
    # too deep every time) unless they learn from each period, as the
    # kernel does by default (--no-learn: sched_idle_learn=0); learning
    # takes the state the periods reach (C1E) once its intercepts are the
    # majority.
    rows, _, _ = dump(replay, out, "intercepted", intercepted(), ("--no-learn",))
    a = rule(rows, "adaptive")
    check("learn-off-always-too-deep", len(a) == 200 and all(x["chosen"] > x["fit"] for x in a),
          "%d of %d too deep" % (sum(x["chosen"] > x["fit"] for x in a), len(a)))
    rows, _, _ = dump(replay, out, "intercepted-learn", intercepted())
    a = rule(rows, "adaptive")
    late = mismatches(a[5:])
    first = a[0] if a else dict(chosen=-1, fit=-1)
    check("learn-follows-intercepts",
          len(a) == 200 and len(late) == 0 and first["chosen"] > first["fit"],
          "%d rows, %d mismatches after 5 periods, first chosen %d fit %d" %
          (len(a), len(late), first["chosen"], first["fit"]))


def kept_tick(n=50):
    """sched_idle_select lines of a CPU whose timer is 500 us away with
    the tick 15 us away: the kernel keeps the tick (500 us is under a 4 ms
    period, and C6 is deeper than C1E, the state for 500 us) and chooses
    again for the tick: C1."""
    lines, t = [], 1000000000
    for _ in range(n):
        sec = "%d.%06d" % (t // 1000000000, t % 1000000000 // 1000)
        end = t + 16000
        esec = "%d.%06d" % (end // 1000000000, end % 1000000000 // 1000)
        lines += ["          <idle>-0       [000] d....  %s: sched_idle_select: cpu=0 timer_ns=500000 "
                  "delta_tick_ns=15000 irq_ns=-1 irq=0 latency_req_ns=2000000000000 state=1 stop_tick=0" % sec,
                  "          <idle>-0       [000] d....  %s: cpu_idle: state=1 cpu_id=0" % sec,
                  "          <idle>-0       [000] d....  %s: cpu_idle: state=4294967295 cpu_id=0" % esec]
        t += 1000000
    return lines


def tick_period(replay, out):
    # The tick decision needs the tick period even when --tick-ns (the
    # tick's phase) is not given: with 0 every duration stopped the tick,
    # the choice was never made again for the kept tick, and the replay
    # chose C6 where the kernel took C1E (timer: 16% too deep against the
    # kernel's 1.2%).  The tick is stopped behind the deepest state for a
    # predicted interrupt; the case is a timer and C1E cut to C1, kept
    # whichever rule holds.
    rows, _, _ = dump(replay, out, "kept-tick", kept_tick(), ("--rules", "adaptive", "--no-learn"))
    a = rule(rows, "adaptive")
    check("kept-tick-chosen-again", len(a) == 50 and all(x["chosen"] == 1 for x in a),
          "%d rows, chosen %s" % (len(a), sorted(set(x["chosen"] for x in a))))


def long_idle(n=300, period=10 * MS, busy=50000):
    """One CPU, no device interrupt, woken by its timer every PERIOD."""
    lines, t = [], 1000000
    for _ in range(n):
        lines += ["%d 0 idle_enter %d" % (t, period), "%d 0 idle_exit" % (t + period)]
        t += period + busy
    return lines


STATES_OK = ("# a state table as perf-scripts/record.sh writes it\n"
             "hz 1000\ngovernor menu\ndriver intel_idle\n"
             "state POLL 0 0 0\nstate C1 1 1 0\nstate C6 100 400 0\n")

STATES_BAD = [
    # name, table, line of the error
    ("unknown-line", STATES_OK + "power 5\n", 8),
    ("bad-number", STATES_OK.replace("C6 100 400", "C6 100 4x0"), 7),
    ("short-state", STATES_OK.replace("C1 1 1 0", "C1 1 1"), 6),
    ("residency-decreasing", STATES_OK.replace("C6 100 400", "C6 100 0"), 7),
    ("too-many", STATES_OK + "".join("state S%d 200 500 0\n" % i for i in range(8)), 15),
    ("bad-hz", STATES_OK.replace("hz 1000", "hz 0"), 2),
    ("long-name", STATES_OK.replace("C6 100", "C6_WITH_A_LONG_NAME 100"), 7),
    ("no-state", "hz 250\n", 1),
]


def governors(replay, out):
    # 1. menu and teo are compiled in and get rows of their own.
    rows, csv, _ = dump(replay, out, "gov-periodic", gen.SCENARIOS["periodic"]())
    names = [ln.split(",")[2] for ln in csv.splitlines()[1:]]
    check("governor-rows", "menu" in names and "teo" in names and "kernel" not in names,
          str(names))
    # 2. Woken only by a 10 ms timer: once they have learned, both choose
    #    the deepest state, which is the fit, every time.
    rows, _, _ = dump(replay, out, "gov-long-idle", long_idle())
    for g in ("menu", "teo"):
        rr = rule(rows, g)[20:]
        check("governor-%s-long-idle-deepest" % g,
              len(rr) > 0 and all(x["chosen"] == x["fit"] == 3 for x in rr),
              "%d rows, (chosen, fit) off C6: %s" %
              (len(rr), [(x["chosen"], x["fit"]) for x in rr if x["chosen"] != 3][:5]))
    # 3. A perf trace whose kernel entered what the replayed menu chose
    #    (the native replay's choices): every compared entry matches.
    lines = gen.SCENARIOS["two"]()
    rows, _, _ = dump(replay, out, "gov-two-native", lines)
    chosen = [x["chosen"] for x in rule(rows, "menu")]
    perf, k = [], 0
    for ln in gen.to_perf(lines):
        if "power:cpu_idle: state=2 " in ln:
            ln = ln.replace("state=2 ", "state=%d " % chosen[k])
            k += 1
        perf.append(ln)
    path = os.path.join(out, "gov-two-perf.txt")
    with open(path, "w") as f:
        f.write("\n".join(perf) + "\n")
    rc, so, se = run(replay, ["--rules", "menu,kernel", "--gov-warmup", "10", path])
    line = [ln for ln in so.splitlines() if ln.startswith("governor menu:")]
    want = "governor menu: %d of %d states" % (len(chosen) - 10, len(chosen) - 10)
    check("governor-menu-matches-own-choices",
          len(chosen) > 10 and rc == 0 and len(line) > 0 and line[0].startswith(want),
          "%s / %s" % (line, se))
    # 4. The tick's state at each selection, from its hrtimer: running
    #    (armed a tick ahead), stopped after entry B's selection (armed
    #    far ahead: B chose with it running, C with it stopped), running
    #    again before D.
    tick = "swapper/0 0 [000] %s: timer:hrtimer_start: hrtimer=0xffff0001 " \
        "function=tick_nohz_handler expires=%d softexpires=%d mode=0"
    idle = "swapper/0 0 [000] %s: power:cpu_idle: state=%s cpu_id=0"
    ev = [tick % ("1.000000000", 1004000000, 1004000000),
          idle % ("1.000100000", 3), idle % ("1.003000000", 4294967295),
          tick % ("1.003100000", 1900000000, 1900000000),
          idle % ("1.003200000", 3), idle % ("1.100000000", 4294967295),
          idle % ("1.100100000", 3), idle % ("1.200000000", 4294967295),
          tick % ("1.200050000", 1204000000, 1204000000),
          idle % ("1.201000000", 3), idle % ("1.202000000", 4294967295)]
    tp = os.path.join(out, "gov-tick.txt")
    with open(tp, "w") as f:
        f.write("\n".join(ev) + "\n")
    dp = os.path.join(out, "gov-tick.dump")
    rc, so, se = run(replay, ["--dump", dp, tp])
    stopped = [int(ln.split()[6]) for ln in open(dp) if ln.startswith("kernel ")] if rc == 0 else se
    check("governor-tick-stopped-at-select", stopped == [0, 0, 1, 0], str(stopped))
    # 4b. tick_nohz_get_sleep_length() counts from ts->idle_entrytime:
    #     from the entry when a task ran since the last exit (an event of
    #     another task, or need-resched on the exit in ftrace text), else
    #     from the end of the interrupt that ended the halt, C6's 133 us
    #     exit latency before the exit.  The wakeup timer is due at 1.002 s.
    wake = "sh 100 [000] 1.000000000: timer:hrtimer_start: hrtimer=0xffff0002 " \
        "function=hrtimer_wakeup expires=1002000000 softexpires=1002000000 mode=0"
    perf = [wake, idle % ("1.000010000", 3),
            "swapper/0 0 [000] 1.000500000: irq:irq_handler_entry: irq=5 name=dev",
            idle % ("1.000633000", 4294967295), idle % ("1.000636000", 2),
            idle % ("1.002010000", 4294967295)]
    ftr = "          <idle>-0       [000] %s %s: cpu_idle: state=%s cpu_id=0"
    ftrace = ["              sh-100     [000] d..1. 1.000000: hrtimer_start: "
              "hrtimer=ffff0002 function=hrtimer_wakeup expires=1002000000 "
              "softexpires=1002000000 mode=ABS was_armed=0",
              ftr % ("d..1.", "1.000010", 3), ftr % ("dN.1.", "1.000633", 4294967295),
              ftr % ("d..1.", "1.000636", 2), ftr % ("d..1.", "1.002010", 4294967295)]
    for name, ev, want in (("perf", perf, [(1990000, 1990000), (1500000, 1500000)]),
                           ("ftrace-resched", ftrace,
                            [(1990000, 1990000), (1364000, 1364000)])):
        tp = os.path.join(out, "gov-entrytime-%s.txt" % name)
        with open(tp, "w") as f:
            f.write("\n".join(ev) + "\n")
        dp = tp.replace(".txt", ".dump")
        rc, so, se = run(replay, ["--rules", "menu", "--dump", dp, tp])
        got = [(int(ln.split()[5]), int(ln.split()[6])) for ln in open(dp)
               if ln.startswith("menu ")] if rc == 0 else se
        check("governor-sleep-from-idle-entrytime-" + name, got == want, str(got))
    # 4c. *delta_next is the clock event device's next event: the hrtick
    #     (HRTIMER_MODE_LAZY_REARM) cancelled leaves it at its expiry, any
    #     other timer cancelled moves it to the next one.
    for fn, want in (("hrtick", (1990000, 290000)), ("hrtimer_wakeup", (1990000, 1990000))):
        ev = [wake, "sh 100 [000] 1.000001000: timer:hrtimer_start: hrtimer=0xffff0003 "
              "function=%s expires=1000300000 softexpires=1000300000 mode=0" % fn,
              "swapper/0 0 [000] 1.000005000: timer:hrtimer_cancel: hrtimer=0xffff0003",
              idle % ("1.000010000", 2), idle % ("1.000311000", 4294967295)]
        tp = os.path.join(out, "gov-next-event-%s.txt" % fn)
        with open(tp, "w") as f:
            f.write("\n".join(ev) + "\n")
        dp = tp.replace(".txt", ".dump")
        rc, so, se = run(replay, ["--rules", "menu", "--dump", dp, tp])
        got = [(int(ln.split()[5]), int(ln.split()[6])) for ln in open(dp)
               if ln.startswith("menu ")] if rc == 0 else se
        check("governor-next-event-%s" % fn, got == [want], str(got))
    # 5. --states: the table of a recorded machine; malformed tables stop
    #    with one line naming the file and line.
    sp = os.path.join(out, "states-ok")
    with open(sp, "w") as f:
        f.write(STATES_OK)
    rc, so, se = run(replay, ["--states", sp, "--csv", os.path.join(out, "gov-long-idle.txt")])
    check("states-file", rc == 0 and "conf_C6_C6" in so and "conf_C1E" not in so
          and ",menu," in so, se or so[:300])
    for name, table, ln in STATES_BAD:
        bp = os.path.join(out, "states-" + name)
        with open(bp, "w") as f:
            f.write(table)
        rc, so, se = run(replay, ["--states", bp, os.path.join(out, "gov-long-idle.txt")])
        lines = se.strip().split("\n")
        check("states-malformed-" + name,
              rc == 1 and len(lines) == 1 and lines[0].startswith(
                  "replay: %s:%d: bad state table: " % (bp, ln)), "rc=%d %r" % (rc, se))
    rc, so, se = run(replay, ["--states", os.path.join(out, "no-such-table"), sp])
    check("states-missing-file", rc == 1 and len(se.strip().split("\n")) == 1, se)
    # 6. --table: the emulated driver's own parser (cpuidle-emu-model.c):
    #    skx written out is skx; a cheaper C6 changes the energy only;
    #    a malformed table stops with one line.
    lp = os.path.join(out, "gov-long-idle.txt")
    skx = "active=2000,C1:2:2:1000:0,C1E:10:20:600:0,C6:133:600:50:20"
    _, base, _ = run(replay, ["--csv", "--table", "skx", lp])
    rc, same, se = run(replay, ["--csv", "--table", skx, lp])
    check("driver-table-custom-is-skx", rc == 0 and same == base.replace(",skx,", ",custom,"),
          se or same[:300])
    rc, cheap, se = run(replay, ["--csv", "--table", skx.replace(":50:20", ":10:20"), lp])
    energy = [(r, d.get("energy_mj"), csv_rows(cheap).get(r, {}).get("energy_mj"))
              for r, d in csv_rows(same).items()]
    check("driver-table-power-changes-energy",
          rc == 0 and len(energy) > 0 and any(e != c for _, e, c in energy),
          se or str(energy))
    rc, so, se = run(replay, ["--table", "active=2000,C1:2:2:1000", lp])
    check("driver-table-malformed", rc == 2 and len(se.strip().split("\n")) == 1
          and "not skx, arm or a valid" in se, "rc=%d %r" % (rc, se))
    # a traced state the table does not have
    bp = os.path.join(out, "states-two")
    with open(bp, "w") as f:
        f.write("state POLL 0 0 0\nstate C1 1 1 0\n")
    tp = os.path.join(out, "perf-ok.txt")
    with open(tp, "w") as f:
        f.write(PERF_OK)
    rc, so, se = run(replay, ["--states", bp, tp])
    check("states-trace-state-not-in-table",
          rc == 1 and se.startswith("replay: %s:2: idle state 2 is not in" % tp), se)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--replay", required=True)
    ap.add_argument("--asan", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fuzz", type=int, default=2000)
    ap.add_argument("--control", action="store_true",
                    help="REPLAY is wrong on purpose: succeed only if known-answer checks fail")
    a = ap.parse_args()
    # A count that can be fooled makes every line after it worthless:
    # the tally is checked before anything is counted with it.
    ok, why = tally_test()
    check("tally-counts-only-true", ok, why)
    if not ok:
        sys.exit(1)
    os.makedirs(a.out, exist_ok=True)
    sections = [
        ("known answers", True, lambda: known_answers(a.replay, a.out)),
        ("governors", True, lambda: governors(a.replay, a.out)),
        ("learning", True, lambda: learning(a.replay, a.out)),
        ("tick period", True, lambda: tick_period(a.replay, a.out)),
        ("exact replay", True, lambda: exact_mode(a.replay, a.out)),
        ("malformed inputs", False, lambda: malformed(a.replay, a.asan)),
        ("mutated inputs", False, lambda: fuzz(a.asan, a.fuzz)),
    ]
    for name, _, run_section in sections:
        TALLY.section = name
        run_section()
    known = TALLY.failed_in([name for name, is_known, _ in sections if is_known])
    print("%d passed, %d failed" % (TALLY.passed, TALLY.failed))
    if not a.control:
        sys.exit(0 if TALLY.all_passed() else 1)
    if known:
        print("control: %d known-answer checks fail on %s, as they must; the first:\n%s"
              % (len(known), a.replay, known[0]))
        sys.exit(0)
    print("control: no known-answer check fails on %s, which is wrong on purpose" % a.replay)
    sys.exit(1)


if __name__ == "__main__":
    main()
