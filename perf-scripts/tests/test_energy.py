"""Unit tests of idlebench/energy.py: the oracle is the least energy per
idle period under the driver's formula, the model charges a bench run's
counters as the driver did, the checks catch an oracle that is not the
least and a model or a formula that is not the driver's (negative
controls), the report lists what they find, and idle-loop's replay, which
compiles the driver's model, gives the same oracle energy on the same
trace."""
import csv
import importlib.util
import io
import lzma
import os
import random
import re
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from common import FIX, HERE, fx
from idlebench import cells, energy, parse, report, workloads
from idlebench.report import oracle as report_oracle

TOP = os.path.dirname(os.path.dirname(HERE))
SKX = parse.parse_model(fx("emu-model"))  # what cpuidle_emu/model prints for skx
POLL, C1, C1E, C6 = range(4)
US = 1000


def uj(i, halted_us, model=SKX):
    return energy.period_energy_pj(model, i, halted_us * US) / 1e6


def fit_state(model, halted_ns):
    """The deepest state whose target residency fits: what the oracle is
    not, fed to the checks as a wrong oracle."""
    best = 0
    for i, s in enumerate(model):
        if s["residency_us"] * US <= halted_ns:
            best = i
    return best


def no_exit_cost(model, halted_ns):
    """A broken formula: the least energy with the exit latency left out,
    another wrong oracle for the checks."""
    return min(range(len(model)), key=lambda i: halted_ns * model[i]["power_mw"]
               + model[i]["entry_uj"] * 1e6)


def ftrace(events):
    """tracefs text of events [(t_us, cpu, state)], in time order."""
    return "# tracer: nop\n#\n" + "".join(
        f"          <idle>-0       [{cpu:03d}] d....  {t // 1000000:5d}.{t % 1000000:06d}: "
        f"cpu_idle: state={st} cpu_id={cpu}\n"
        for t, cpu, st in sorted(events, key=lambda e: (e[0], e[1])))


def random_trace(seed, ncpu=2, n=300, nstates=4):
    """Idle periods of every state at lengths around every crossing and
    the residencies, exit spins included (shorter than the exit latency
    too), on ncpu CPUs; starts with an entry, ends with an exit, 100 s
    into the trace clock like a guest's."""
    rnd = random.Random(seed)
    lengths = [0, 1, 3, 5, 12, 20, 30, 42, 45, 50, 140, 170, 500, 560, 600, 617, 700,
               733, 1000, 2500, 4000]
    ev = []
    for cpu in range(ncpu):
        t = 100 * 1000000 + cpu
        for _ in range(n):
            st = rnd.randrange(nstates)
            p = rnd.choice(lengths) if rnd.random() < 0.5 else rnd.randrange(0, 3000)
            ev.append((t, cpu, st))
            ev.append((t + p, cpu, 4294967295))
            t += p + rnd.randrange(1, 200)
    return ftrace(ev)


def good_trace(n=200):
    """One CPU entering the least-energy state of each period, as a
    governor that knew every wakeup would: the oracle's equal."""
    ev, t = [], 0
    for i in range(n):
        halted = (0, 3, 30, 45, 300, 500, 2000)[i % 7] * US
        st = energy.min_energy_state(SKX, halted)
        p = round(halted + (SKX[st]["exit_us"] * US if st else 0)) // US
        ev += [(t, 0, st), (t + p, 0, 4294967295)]
        t += p + 50
    return ftrace(ev)


def model_of(spec):
    """The cpuidle_emu/model text of a cpuidle_emu.table= spec
    (active=MW,NAME:EXIT_US:RES_US:MW:ENTRY_UJ,...), parsed as the bench
    parses the guest's."""
    parts = spec.split(",")
    active = parts[0].split("=")[1]
    text = f"name=POLL exit_us=0 residency_us=0 power_mw={active} entry_uj=0\n"
    for p in parts[1:]:
        n, e, r, mw, u = p.split(":")
        text += f"name={n} exit_us={e} residency_us={r} power_mw={mw} entry_uj={u}\n"
    return parse.parse_model(text)


class KnownAnswerTest(unittest.TestCase):
    """skx: active 2000 mW; C1 2/2 us 1000 mW; C1E 10/20 us 600 mW; C6
    133/600 us 50 mW, 20 uJ."""

    def test_formula(self):
        self.assertAlmostEqual(uj(C6, 500), 500 * 0.05 + 133 * 2 + 20)   # 311
        self.assertAlmostEqual(uj(C1E, 500), 500 * 0.6 + 10 * 2)         # 320
        self.assertAlmostEqual(uj(POLL, 500), 500 * 2)

    def test_least_energy(self):
        for halted_us, want in ((500, C6), (30, C1), (45, C1E), (0, POLL), (3, POLL),
                                (5, C1), (39, C1), (41, C1E), (483, C1E), (484, C6),
                                (10000, C6)):
            got = energy.min_energy_state(SKX, halted_us * US)
            self.assertEqual(got, want, f"{halted_us} us: {SKX[got]['name']}")
            self.assertEqual(min(uj(i, halted_us) for i in range(4)), uj(got, halted_us))

    def test_ties_take_the_shallowest(self):
        # C1 and C1E both cost 44 uJ at 40 us, polling and C1 8 uJ at 4 us
        self.assertEqual(energy.min_energy_state(SKX, 40 * US), C1)
        self.assertEqual(energy.min_energy_state(SKX, 4 * US), POLL)

    def test_deepest_fit_is_not_the_minimum(self):
        # 500 us fits C1E (C6 needs 600) but C6 costs 9 uJ less; 30 us fits
        # C1E but C1 costs 4 uJ less
        self.assertEqual(fit_state(SKX, 500 * US), C1E)
        self.assertLess(uj(C6, 500), uj(C1E, 500))
        self.assertEqual(fit_state(SKX, 30 * US), C1E)
        self.assertLess(uj(C1, 30), uj(C1E, 30))

    def test_halted_time(self):
        # the traced period holds the exit spin; polling has none
        self.assertEqual(energy.halted_ns(SKX, C6, 633 * US), 500 * US)
        self.assertEqual(energy.halted_ns(SKX, C1E, 5 * US), 0)
        self.assertEqual(energy.halted_ns(SKX, POLL, 5 * US), 5 * US)


class OracleBoundTest(unittest.TestCase):
    def metrics(self, text, oracle=energy.min_energy_state, ncpu=2, **kw):
        return energy.trace_metrics(text, "t", SKX, ncpu, oracle=oracle, **kw)

    def test_oracle_at_most_modelled(self):
        for text in (fx("trace.txt"), random_trace(1), random_trace(2, ncpu=4)):
            m = self.metrics(text, ncpu=4)
            self.assertLessEqual(m["oracle_energy_mj"], m["model_energy_mj"])
            self.assertLessEqual(m["oracle_power_mw"], m["model_power_mw"])
            self.assertEqual(energy.check(m), [])

    def test_per_period(self):
        periods, _, span = parse.parse_trace(random_trace(3))
        for cpu, ps in periods.items():
            for t0, t1, st in ps:
                t = energy.halted_ns(SKX, st, round((t1 - t0) * 1e9))
                o = energy.min_energy_state(SKX, t)
                self.assertLessEqual(energy.period_energy_pj(SKX, o, t),
                                     energy.period_energy_pj(SKX, st, t))

    def test_control_deepest_fit(self):
        # the former oracle, fed to the check: caught in the periods where
        # the state entered cost less than the fit ...
        m = self.metrics(random_trace(1), oracle=fit_state)
        bad = energy.check(m)
        self.assertEqual(len(bad), 1)
        self.assertRegex(bad[0], r"oracle above the kernel's own state in \d+ of 600 periods")
        # ... and in total where the kernel entered the least-energy state
        m = self.metrics(good_trace(), oracle=fit_state, ncpu=1)
        bad = energy.check(m)
        self.assertGreater(m["oracle_energy_mj"], m["model_energy_mj"])
        self.assertIn("of the kernel's own states on the same periods", bad[1])

    def test_control_broken_formula(self):
        m = self.metrics(random_trace(1), oracle=no_exit_cost)
        self.assertTrue(energy.check(m))
        m = self.metrics(good_trace(), oracle=no_exit_cost, ncpu=1)
        self.assertEqual(len(energy.check(m)), 2)


def run_counters(name):
    """The driver's counters file name (before.emu, after.emu) of
    fixtures/oracle-run/, a bench run's timer workload on 2 vCPUs."""
    return parse.parse_cpu_kv(fx(os.path.join("oracle-run", name)), name)


def kv(cpu, **f):
    """A cpuidle_emu/stats line of cpu with fields f, the skx states' that
    f leaves out at 0."""
    for st in ("C1", "C1E", "C6"):
        f.setdefault(f"{st}_entries", 0)
        f.setdefault(f"{st}_halted_ns", 0)
    return f"cpu={cpu} " + " ".join(f"{k}={v}" for k, v in f.items()) + "\n"


class CountersTest(unittest.TestCase):
    """The model, charged on the driver's own counters, gives the energy the
    driver counted; a model or a formula other than the driver's does not."""

    def failures(self, model, before=None, after=None):
        return energy.counters_failures(energy.counters_check(
            model, before or run_counters("before.emu"), after or run_counters("after.emu")))

    def test_bench_run(self):
        model = parse.parse_model(fx(os.path.join("oracle-run", "emu-model")))
        self.assertEqual(model, SKX)
        cpus = energy.counters_check(SKX, run_counters("before.emu"), run_counters("after.emu"))
        self.assertEqual(len(cpus), 2)
        for c in cpus:
            self.assertLess(abs(c["measured_nj"] - c["model_nj"]), energy.ROUND_NJ)
            self.assertEqual(c["torn_ns"], 0)
            self.assertGreaterEqual(c["exit_ns"], c["exit_min_ns"])
        self.assertEqual(energy.counters_failures(cpus), [])

    def test_control_wrong_models(self):
        # each a model other than the driver's, on the same counters
        def changed(name, **f):
            return [dict(s, **f) if s["name"] == name else s for s in SKX]

        wrong = {"no entry energy": [dict(s, entry_uj=0) for s in SKX],
                 "C6 1 mW more": changed("C6", power_mw=51),
                 "C1E 1 mW more": changed("C1E", power_mw=601),
                 "active 1 mW more": changed("POLL", power_mw=2001),
                 "C6 entry 1 uJ more": changed("C6", entry_uj=21)}
        for why, model in wrong.items():
            bad = self.failures(model)
            self.assertEqual(len(bad), 2, why)
            self.assertRegex(bad[0], r"cpu 0: the model charges the driver's counters \d+ nJ, "
                                     r"the driver counted \d+ nJ", why)

    def test_control_exit_latency(self):
        # exit latency and target residency read the wrong way round: the
        # driver spun less than such a model's exit latencies
        model = [dict(s, exit_us=s["residency_us"]) for s in SKX]
        bad = self.failures(model)
        self.assertTrue(any(re.search(r"cpu \d: exit spin \d+ ns, below the model's exit "
                                      r"latencies of its \d+ entries", b) for b in bad), bad)

    def test_control_missing_state(self):
        bad = self.failures(SKX[:3] + [dict(SKX[3], name="C7")])
        self.assertEqual(bad[0], "cpu 0: the driver's counters hold no state C7 of the model")

    def test_control_wrong_formula(self):
        # the exit spin charged at the state's power instead of active power
        def state_power_spin(model, index, halted_ns, exit_ns=0, entries=1):
            if index == 0:
                return halted_ns * model[0]["power_mw"]
            s = model[index]
            return (halted_ns + exit_ns) * s["power_mw"] + entries * s["entry_uj"] * 1e6

        with mock.patch.object(energy, "charge_pj", state_power_spin):
            self.assertEqual(len(self.failures(SKX)), 2)
        self.assertEqual(self.failures(SKX), [])

    def test_torn_read(self):
        # over the window a C6 halt of 100 ms, counted whole, and one of 1
        # ms that ended while the driver printed cpu 0's fields: its entry
        # and time are in the printed halted fields, not in the time the
        # active time was taken from nor in the energy (a real run's torn
        # read, menu-2cpu-real-r2 net, tore the same way)
        before = parse.parse_cpu_kv(kv(0, elapsed_ns=10**9, active_ns=10**9, exit_ns=0,
                                       energy_nj=2 * 10**9), "b")
        spin, active = 133000, 10**9 - 10**8 - 133000
        pj = 10**8 * 50 + spin * 2000 + 20 * 10**6 + active * 2000
        after = {"elapsed_ns": 2 * 10**9, "active_ns": 10**9 + active, "exit_ns": spin,
                 "C6_entries": 2, "C6_halted_ns": 10**8 + 10**6}
        a = parse.parse_cpu_kv(kv(0, energy_nj=2 * 10**9 + pj // 1000, **after), "a")
        cpus = energy.counters_check(SKX, before, a)
        self.assertEqual(cpus[0]["torn_ns"], -10**6)
        # the torn halt: 1 ms at C6's 50 mW and its 20 uJ entry
        self.assertAlmostEqual(cpus[0]["model_nj"] - cpus[0]["measured_nj"],
                               (10**6 * 50 + 20 * 10**6) / 1e3)
        self.assertEqual(energy.counters_failures(cpus), [])
        # the same difference in a read that adds up is a wrong model (and
        # the second entry's spin is missing from it)
        a = parse.parse_cpu_kv(kv(0, energy_nj=2 * 10**9 + pj // 1000,
                                  **dict(after, active_ns=after["active_ns"] - 10**6)), "a")
        cpus = energy.counters_check(SKX, before, a)
        self.assertEqual(cpus[0]["torn_ns"], 0)
        bad = energy.counters_failures(cpus)
        self.assertRegex(bad[0], r"^cpu 0: the model charges the driver's counters")
        self.assertRegex(bad[1], r"^cpu 0: exit spin 133000 ns, below")

    def test_rounding(self):
        # the driver prints whole nJ: a window's difference is within 1 nJ
        before = parse.parse_cpu_kv(kv(0, elapsed_ns=0, active_ns=0, exit_ns=0,
                                       energy_nj=0), "b")
        a = parse.parse_cpu_kv(kv(0, elapsed_ns=1001, active_ns=1001, exit_ns=0,
                                  energy_nj=1001 * 2000 // 1000), "a")
        self.assertEqual(energy.counters_failures(energy.counters_check(SKX, before, a)), [])
        a = parse.parse_cpu_kv(kv(0, elapsed_ns=1001, active_ns=1001, exit_ns=0,
                                  energy_nj=1001 * 2000 // 1000 + 1), "a")
        self.assertEqual(len(energy.counters_failures(energy.counters_check(SKX, before, a))), 1)

    def test_check_takes_both(self):
        # check() holds the counters without a trace, and a trace's oracle
        cpus = energy.counters_check([dict(s, entry_uj=0) for s in SKX],
                                     run_counters("before.emu"), run_counters("after.emu"))
        self.assertEqual(len(energy.check({"counters": cpus})), 2)
        self.assertIsNone(energy.check({"power_mw": 1.0}))


class ReportTest(unittest.TestCase):
    def runs(self, **changes):
        good = self.metrics(random_trace(1))
        out = {("dev", 2): {"sched": [dict(good, _meta={"cell": "sched-2cpu-icount-r1"})]}}
        for cell, m in changes.items():
            out[("dev", 2)].setdefault("menu", []).append(dict(m, _meta={"cell": cell}))
        return out

    def metrics(self, text, **kw):
        return energy.trace_metrics(text, "t", SKX, 2, **kw)

    def test_none(self):
        L = report_oracle.section(self.runs())[0]
        self.assertEqual(L[0], "## Oracle violations\n")
        self.assertIn("- none: 1 runs checked.", L)

    def test_violation_listed(self):
        wrong = self.metrics(random_trace(1), oracle=fit_state)
        L = report_oracle.section(self.runs(**{"menu-2cpu-icount-r2": wrong}))[0]
        self.assertIn("**1 violation in 2 checked runs:**\n", L)
        row = [x for x in L if x.startswith("| menu-2cpu-icount-r2 | dev |")]
        self.assertEqual(len(row), 1)
        self.assertIn(f"{wrong['oracle_energy_mj']:.6g}", row[0])
        self.assertFalse(any(x.startswith("- none") for x in L))

    def test_violations_counted(self):
        # what bench.py and report.py exit 1 on
        self.assertEqual(report_oracle.violations(self.runs()), [])
        wrong = self.metrics(random_trace(1), oracle=fit_state)
        bad = report_oracle.violations(self.runs(**{"menu-2cpu-icount-r2": wrong}))
        self.assertEqual([(c, w) for c, w, _m, _x in bad], [("menu-2cpu-icount-r2", "dev")])

    def test_counters_violation(self):
        # a run whose model is not the driver's: listed and counted
        m = dict(self.metrics(random_trace(1)), counters=energy.counters_check(
            [dict(s, entry_uj=0) for s in SKX], run_counters("before.emu"),
            run_counters("after.emu")))
        L, bad = report_oracle.section(self.runs(**{"menu-2cpu-icount-r2": m}))
        self.assertEqual([(c, w) for c, w, _m, _x in bad], [("menu-2cpu-icount-r2", "dev")] * 2)
        self.assertIn("**2 violations in 2 checked runs:**\n", L)
        self.assertTrue(any("the model charges the driver's counters" in x for x in L))

    def test_counters_summary(self):
        good = dict(self.metrics(random_trace(1)), counters=energy.counters_check(
            SKX, run_counters("before.emu"), run_counters("after.emu")))
        L = report_oracle.section(self.runs(**{"menu-2cpu-icount-r1": good}))[0]
        line = [x for x in L if x.startswith("- The model on the driver's counters:")]
        self.assertEqual(len(line), 1)
        self.assertIn("2 CPU windows", line[0])
        self.assertIn("0 reads torn by a halt.", line[0])
        self.assertTrue(any(x.startswith("- Exit spin past the model's exit latencies") for x in L))

    def test_nothing_checked(self):
        L = report_oracle.section({("rtc", 2): {"menu": [{"power_mw": 1.0}]}})[0]
        self.assertTrue(any(x.startswith("- no run could be checked") for x in L))
        self.assertIn("- 1 runs without a trace or the driver's counters and model: "
                      "not checked.", L)

    def test_counters_from_raw_files(self):
        # the report's counters check, made from a run's before.emu and
        # after.emu whatever its parse stored
        d = tempfile.mkdtemp()
        try:
            for src, dst in (("emu.before", "before.emu"), ("emu.after", "after.emu")):
                shutil.copy(os.path.join(FIX, src), os.path.join(d, dst))
            cpus = report_oracle.counters(d, SKX)
            self.assertEqual([c["cpu"] for c in cpus], [0, 1])
            self.assertEqual(energy.check({"counters": cpus}), [])
            # control: a model that is not the driver's is caught
            wrong = report_oracle.counters(d, [dict(s, entry_uj=0) for s in SKX])
            self.assertEqual(len(energy.check({"counters": wrong})), 1)
            # without the files or the model, nothing to check
            self.assertIsNone(report_oracle.counters("/nonexistent", SKX))
            self.assertIsNone(report_oracle.counters(d, None))
        finally:
            shutil.rmtree(d)


def bench_of_oracle_run(bench, model):
    """A run directory holding one finished cell, the timer workload of
    fixtures/oracle-run/ (its trace, its counters), parsed with model and
    without the counters' figures, which the report makes from the raw
    files (report/oracle.py counters())."""
    name = "teo-2cpu-icount-r1"
    work = os.path.join(bench, "cells", name + ".run")
    res = os.path.join(work, "results", "timer")
    os.makedirs(res)
    src = os.path.join(FIX, "oracle-run")
    with lzma.open(os.path.join(src, "trace.txt.xz"), "rt") as f, \
            open(os.path.join(res, "trace.txt"), "w") as out:
        out.write(f.read())
    for f in ("before.emu", "after.emu"):
        shutil.copy(os.path.join(src, f), os.path.join(res, f))
    b, a = run_counters("before.emu"), run_counters("after.emu")
    run = {"miss_rate": 0.0, "window_s": 1.0, "power_mw": energy.measured_power(b, a)[1],
           "states": {"C6": {"usage": 1, "time": 1, "above": 0, "below": 0}},
           "irqs": {"LOC": 100}}
    meta = {"cell": name, "config": "teo", "vcpus": 2, "repeat": 1, "seed": 1, "mode": "icount",
            "shift": 0, "workloads": {"timer": 1}, "console": "x"}
    cells.finish(work, os.path.join(bench, "cells", name), meta, "PASS",
                 {"info": {"kernel": "6.12", "cpus": "2"}, "model": model,
                  "runs": {"timer": run}})


class ReportFailsTest(unittest.TestCase):
    """A bench run whose model is not the driver's fails the report:
    report.build() counts the violation, report.py exits 1 (bench.py
    exits on the same count); the driver's own model passes."""

    def build(self, model):
        with tempfile.TemporaryDirectory() as d:
            bench_of_oracle_run(d, model)
            out = os.path.join(d, "results.md")
            bad = report.build(d, out, "/nonexistent", workloads.table())
            with open(out) as f:
                return bad, f.read()

    def test_drivers_model_passes(self):
        bad, text = self.build(SKX)
        self.assertEqual(bad, 0)
        self.assertIn("- none: 1 runs checked.", text)
        self.assertIn("- The model on the driver's counters: 2 CPU windows;", text)

    def test_control_wrong_model_fails(self):
        bad, text = self.build([dict(s, entry_uj=0) for s in SKX])
        self.assertEqual(bad, 2)
        self.assertIn("**2 violations in 1 checked runs:**", text)
        self.assertIn("| teo-2cpu-icount-r1 | timer |", text)

    def test_control_report_py_exits_1(self):
        spec = importlib.util.spec_from_file_location(
            "report_py", os.path.join(os.path.dirname(HERE), "report.py"))
        cli = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cli)
        with tempfile.TemporaryDirectory() as d:
            bench_of_oracle_run(d, [dict(s, entry_uj=0) for s in SKX])
            with self.assertRaises(SystemExit) as e:
                cli.main(["--run", d, "--out", os.path.join(d, "results.md"),
                          "--noise", "/nonexistent"])
        self.assertRegex(str(e.exception), r"^report: error: 2 failed checks of the runs")


class ReplaySameOracleTest(unittest.TestCase):
    """idle-loop's replay (the driver's model compiled from the tree) and
    energy.py give the same energies, oracle and the kernel's own states,
    on the same trace: one formula, one minimum, one halted time."""

    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(os.path.join(TOP, "build", "linux", "kernel")):
            raise unittest.SkipTest("no kernel tree in build/linux (make tree): "
                                    "the replay compiles from it")
        p = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "idle-loop")],
                           capture_output=True, text=True)
        if p.returncode:
            raise AssertionError(f"make -C idle-loop failed: {p.stderr[-500:]}")
        cls.replay = os.path.join(TOP, "build", "idle-loop", "replay")

    def replay_rows(self, text, table):
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write(text)
            f.flush()
            p = subprocess.run([self.replay, "--csv", "--table", table, f.name],
                               capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return {r["rule"]: r for r in csv.DictReader(io.StringIO(p.stdout))}

    def python_mj(self, text, model, ncpu, oracle=energy.min_energy_state):
        """(modelled, oracle) mJ of the traced periods alone (the replay
        charges nothing outside them)."""
        periods, _, span = parse.parse_trace(text)
        e = energy.trace_energy(periods, span, model, ncpu, oracle)
        out = model[0]["power_mw"] * sum(
            e["span_ns"] - sum(round((t1 - t0) * 1e9) for t0, t1, _ in periods.get(c, []))
            for c in range(ncpu))
        return (e["model_pj"] - out) / 1e9, (e["oracle_pj"] - out) / 1e9

    def same(self, text, table, model, ncpu):
        rows = self.replay_rows(text, table)
        em, om = self.python_mj(text, model, ncpu)
        # the CSV prints mJ to 1e-6 (1 nJ)
        self.assertAlmostEqual(float(rows["kernel"]["energy_mj"]), em, delta=1e-6)
        for r in rows.values():
            self.assertAlmostEqual(float(r["oracle_energy_mj"]), om, delta=1e-6, msg=r["rule"])
            self.assertLessEqual(float(r["oracle_energy_mj"]), float(r["energy_mj"]), r["rule"])
        # and the check has teeth: the deepest fit's total is far off
        _, fit = self.python_mj(text, model, ncpu, fit_state)
        self.assertGreater(abs(fit - om), 1e-3)

    def test_skx(self):
        self.same(random_trace(1), "skx", SKX, 2)

    def test_custom_table(self):
        spec = "active=1000,A:1:1:800:0,B:300:2000:100:100,C:1600:2500:20:150"
        self.same(random_trace(2, ncpu=3), spec, model_of(spec), 3)


if __name__ == "__main__":
    unittest.main()
