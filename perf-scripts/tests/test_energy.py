"""Unit tests of idlebench/energy.py: the oracle is the least energy per
idle period under the driver's formula, the checks catch an oracle that is
not (negative controls), the report lists what they find, and idle-loop's
replay, which compiles the driver's model, gives the same oracle energy on
the same trace."""
import csv
import io
import os
import random
import shutil
import subprocess
import tempfile
import unittest

from common import FIX, HERE, fx
from idlebench import energy, parse, trace
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

    def test_control_measured(self):
        # one CPU, every period whole in the span, the counters' window the
        # span: the tolerance is only a halt in progress at the first read
        ev, t = [], 0
        for i in range(200):
            ev += [(t, 0, C6), (t + 700, 0, 4294967295)]
            t += 900
        text = ftrace(ev)
        span_ns = (t - 200) * US
        m = self.metrics(text, ncpu=1, counters_ns=span_ns, power_mw=1.0)
        tol = m["oracle_tolerance_mw"]
        self.assertAlmostEqual(tol, (2000 - 50) * 700 * US / span_ns)
        def run(power_mw, counters_ns=span_ns):
            # parse_run's metrics: the measured power, then the trace's
            return dict(self.metrics(text, ncpu=1, counters_ns=counters_ns, power_mw=power_mw),
                        power_mw=power_mw)

        self.assertEqual(energy.check(run(m["model_power_mw"])), [])
        self.assertEqual(energy.check(run(m["oracle_power_mw"] + 0.9 * tol)), [])
        bad = energy.check(run(m["oracle_power_mw"] - 1.1 * tol))
        self.assertEqual(len(bad), 1)
        self.assertIn("window tolerance", bad[0])
        # counters read inside the trace: nothing to compare, said so
        short = run(m["model_power_mw"], span_ns / 2)
        self.assertIsNone(short["oracle_tolerance_mw"])
        self.assertIn("does not hold the trace's span", energy.check(short)[0])

    def test_unseen_idle(self):
        # cpu0 idle when the trace starts (exit at 10) and at its end (entry
        # at 90); cpu1 only runs; cpu2 has no event: its whole span
        text = ftrace([(0, 1, C1), (5, 1, 4294967295), (10, 0, 4294967295),
                       (20, 0, C1E), (40, 0, 4294967295), (90, 0, C6), (100, 1, C1)])
        idle = trace.IdlePeriods()
        for _cpu, t, _ev, f in trace.events(text):
            cpu, state = trace.idle_state(f)
            idle.add(cpu, t, state)
        self.assertEqual(idle.edges(), {0: (10e-6, 90e-6), 1: (None, 100e-6)})
        self.assertAlmostEqual(energy.unseen_ns(idle.edges(), (0.0, 100e-6), 3),
                               10e3 + 10e3 + 0 + 0 + 100e3)


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

    def test_nothing_checked(self):
        L = report_oracle.section({("rtc", 2): {"menu": [{"power_mw": 1.0}]}})[0]
        self.assertTrue(any(x.startswith("- no run could be checked") for x in L))
        self.assertIn("- 1 runs without a trace or the driver's model: not checked.", L)

    def test_refresh(self):
        # a run parsed with the deepest-fit figure under the oracle's name
        d = tempfile.mkdtemp()
        try:
            for src, dst in (("trace.txt", "trace.txt"), ("emu.before", "before.emu"),
                             ("emu.after", "after.emu")):
                shutil.copy(os.path.join(FIX, src), os.path.join(d, dst))
            m = {"oracle_power_mw": 1165.0, "power_mw": 1500.0}
            self.assertTrue(report_oracle.refresh(d, m, SKX, 2))
            # cpu0 as in test_parse, cpu1 without an event: active
            self.assertAlmostEqual(m["oracle_power_mw"], (329.35 + 0 + 1980 + 4000) / 2)
            self.assertEqual(energy.check(m), [])
            m = {"oracle_power_mw": 1165.0}
            self.assertFalse(report_oracle.refresh("/nonexistent", m, SKX, 2))
            self.assertNotIn("oracle_power_mw", m)
        finally:
            shutil.rmtree(d)


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
