"""Unit tests of idlebench/parse.py on the fixtures in fixtures/."""
import json
import os
import shutil
import tempfile
import unittest

from common import FIX, ParserTest, fx
from idlebench import energy, parse, trace


class CyclictestTest(ParserTest):
    def test_merged_histogram(self):
        self.assertFields(parse.parse_cyclictest(fx("cyclictest.json")), {
            "ct_min_us": 10, "ct_max_us": 150000, "ct_avg_us": 767.5, "ct_samples": 200,
            "ct_overflows": 1, "ct_p99_us": 300})

    def test_p99_unknown_when_overflows_exceed_one_percent(self):
        d = json.loads(fx("cyclictest.json"))
        d["thread"]["1"]["histogram"] = {"15": 90}
        r = parse.parse_cyclictest(json.dumps(d))
        self.assertIsNone(r["ct_p99_us"])

    def test_malformed(self):
        self.assertRejects(parse.ParseError, parse.parse_cyclictest, [
            (fx("bad-cyclictest.json"), "bad-cyclictest.json",
             "bad-cyclictest.json: thread 0: missing"),
            ("{", "x.json", "not JSON"),
            ("{}", "x.json", "no 'thread'")])


class TimehistTest(unittest.TestCase):
    def test_delays(self):
        r = parse.parse_timehist(fx("timehist.txt"))
        self.assertEqual(r["ps_n"], 3)
        self.assertAlmostEqual(r["ps_avg_us"], 153.0)
        self.assertAlmostEqual(r["ps_p99_us"], 359.0)
        self.assertAlmostEqual(r["ps_max_us"], 359.0)

    def test_empty(self):
        with self.assertRaisesRegex(parse.ParseError, "th.txt: no perf sched timehist rows"):
            parse.parse_timehist("Samples do not have callchains.\n", "th.txt")


class StatesTest(ParserTest):
    def test_parse(self):
        s = parse.parse_states(fx("states.after"))
        self.assertEqual(s[(0, 2)], {"name": "C6", "usage": 55, "time": 55000,
                                     "above": 11, "below": 0})

    def test_malformed(self):
        self.assertRejects(parse.ParseError, parse.parse_states, [
            (fx("bad.states"), "bad.states", r"bad.states:1: missing or bad field"),
            ("cpu=0 junk\n", "s", "not key=value"),
            ("", "s", "no cpuidle states")])


class InterruptsTest(unittest.TestCase):
    def test_parse(self):
        b = parse.parse_interrupts(fx("interrupts.before"))
        a = parse.parse_interrupts(fx("interrupts.after"))
        self.assertEqual(a["8:rtc0"] - b["8:rtc0"], 1024)
        self.assertEqual(a["30:virtio2-input.0"] - b["30:virtio2-input.0"], 100)
        self.assertEqual(a["LOC"] - b["LOC"], 600)
        self.assertEqual(a["ERR"], 0)

    def test_malformed(self):
        with self.assertRaisesRegex(parse.ParseError, "no CPU header"):
            parse.parse_interrupts("  0: 1 2 timer\n", "interrupts")


class ModelTraceTest(unittest.TestCase):
    def test_model(self):
        m = parse.parse_model(fx("emu-model"))
        self.assertEqual([s["name"] for s in m], ["POLL", "C1", "C1E", "C6"])
        self.assertEqual(m[3]["residency_us"], 600)
        with self.assertRaisesRegex(parse.ParseError, "model:1: missing or bad field"):
            parse.parse_model("name=C1 exit_us=x\n", "model")

    def test_trace_and_oracle(self):
        periods, sel, span = parse.parse_trace(fx("trace.txt"))
        self.assertEqual(len(periods[0]), 2)
        self.assertEqual(periods[0][0][2], 3)
        self.assertEqual(sel[0]["irq"], 30)
        self.assertEqual(sel[0]["latency_req_ns"], -1)
        model = parse.parse_model(fx("emu-model"))
        # 1000 us entered as C6 (exit 133 us): 867 us halted, C6 the least
        # (43.35 + 266 + 20 uJ); 10 us entered as C1E (exit 10 us): 0 us
        # halted, where polling costs nothing and C1E its exit (20 uJ);
        # 990 us active (1980 uJ); over 2 ms
        e = energy.run_energy(periods, span, model, 1)
        self.assertAlmostEqual(e["model_power_mw"], (329.35 + 20 + 1980) / 2, places=6)
        self.assertAlmostEqual(e["oracle_power_mw"], (329.35 + 0 + 1980) / 2, places=6)
        self.assertEqual(e["trace_span_s"], 0.002)

    def test_oracle_charges_the_drivers_formula(self):
        model = parse.parse_model(fx("emu-model"))
        # the driver's emu_idle_entry_energy_pj() for 1 ms halted in C6:
        # halted power, the exit latency at active power, the entry energy
        self.assertEqual(energy.period_energy_pj(model, 3, 1e6), 1e6 * 50 + 133e3 * 2000 + 20e6)
        self.assertEqual(energy.period_energy_pj(model, 0, 1e6), 1e6 * 2000)  # polling
        # the traced period holds the exit spin: halted = period - exit
        self.assertEqual(energy.halted_ns(model, 3, 1e6), 1e6 - 133e3)
        self.assertEqual(energy.halted_ns(model, 2, 5e3), 0)
        self.assertEqual(energy.halted_ns(model, 0, 5e3), 5e3)

    def test_span_is_the_window(self):
        # perf sched timehist keeps the rows inside this span (launch.host_perf)
        self.assertEqual(trace.span(fx("trace.txt")), parse.parse_trace(fx("trace.txt"))[2])
        self.assertIsNone(trace.span("# tracer: nop\n#\n"))

    def test_trace_malformed(self):
        with self.assertRaisesRegex(parse.ParseError, "bad-trace.txt: cannot read trace line"):
            parse.parse_trace(fx("bad-trace.txt"), "bad-trace.txt")
        with self.assertRaisesRegex(parse.ParseError, "bad cpu_idle event"):
            parse.parse_trace("  <idle>-0 [000] d.... 1.000000: cpu_idle: state=x cpu_id=0\n", "t")


class EnderTest(unittest.TestCase):
    """What ended each idle period: the first waking event on its CPU,
    inside the period (the emulated states) or after its exit (hardware)."""
    TRACE = "\n".join(f"<idle>-0 [00{c}] d.... {t}: {e}" for c, t, e in (
        (0, "1.000000", "cpu_idle: state=3 cpu_id=0"),
        (0, "1.000500", "irq_handler_entry: irq=16 name=irqgen0"),
        (0, "1.000600", "cpu_idle: state=4294967295 cpu_id=0"),
        (0, "1.001000", "cpu_idle: state=2 cpu_id=0"),
        (0, "1.001100", "cpu_idle: state=4294967295 cpu_id=0"),
        (0, "1.001101", "hrtimer_expire_entry: hrtimer=ff function=hrtimer_wakeup now=1"),
        (0, "1.001102", "irq_handler_entry: irq=16 name=irqgen0"),
        (0, "1.002000", "cpu_idle: state=2 cpu_id=0"),
        (0, "1.002100", "cpu_idle: state=4294967295 cpu_id=0"),
        (1, "1.002100", "irq_handler_entry: irq=17 name=irqgen1"),
        (0, "1.003000", "cpu_idle: state=1 cpu_id=0"),
        (1, "1.003000", "cpu_idle: state=3 cpu_id=1"),
        (1, "1.003500", "hrtimer_expire_entry: hrtimer=ff function=tick_nohz_handler now=1"),
        (1, "1.003501", "hrtimer_expire_entry: hrtimer=fe function=hrtimer_wakeup now=1"),
        (1, "1.003600", "cpu_idle: state=4294967295 cpu_id=1"),
        (0, "1.004000", "hrtimer_expire_entry: hrtimer=fd function=dl_task_timer now=1"),
        (0, "1.004100", "cpu_idle: state=4294967295 cpu_id=0"),
    ))

    def test_first_waking_event_on_the_cpu(self):
        idle, _sel, _span = trace.idle_periods(self.TRACE)
        self.assertEqual(idle.enders[0], ["device", "task timer", "untraced", "other timer"])
        self.assertEqual(idle.enders[1], ["tick"])
        self.assertEqual(idle.ended_by(), {
            3: {"device": 1, "tick": 1}, 2: {"task timer": 1, "untraced": 1},
            1: {"other timer": 1}})

    def test_named_by_the_state_table(self):
        idle, _sel, _span = trace.idle_periods(self.TRACE)
        states = {(0, i): {"name": n} for i, n in enumerate(("POLL", "C1", "C1E", "C6"))}
        self.assertEqual(parse.named_enders(idle, states)["C6"], {"device": 1, "tick": 1})


class IrqgenTest(ParserTest):
    STATS = ("source=0 cpu=0 irq=24 arrivals=100 woken=40 late_rearms=1 spurious=0 lat_min_ns=2000 "
             "lat_max_ns=150000 lat_sum_ns=1000000 hist=2000:50,4096:49,149504:1,\n"
             "source=1 cpu=1 irq=25 arrivals=0 woken=0 late_rearms=0 spurious=0 lat_min_ns=0 "
             "lat_max_ns=0 lat_sum_ns=0 hist=\n")

    def test_percentiles_from_merged_histogram(self):
        self.assertFields(parse.parse_irqgen(self.STATS), {
            "dev_sources": 2, "dev_arrivals": 100, "dev_late_rearms": 1, "dev_woken": 40,
            "dev_lat_p50_us": 2.0, "dev_lat_p99_us": 4.096, "dev_lat_max_us": 150.0,
            "dev_lat_mean_us": 10.0})

    def test_malformed(self):
        self.assertRejects(parse.ParseError, parse.parse_irqgen, [
            (self.STATS.replace("49,", "48,"), "s", "histogram holds 99"),
            ("source=0 cpu=0 arrivals=x\n", "s", "missing or bad field"),
            (self.STATS.splitlines()[1], "s", "no arrival"),
            ("", "s", "no generator source")])


class RunTest(unittest.TestCase):
    """parse_run on a directory laid out like bench.sh writes it."""

    def setUp(self):
        self.d = tempfile.mkdtemp()
        for src, dst in (("cyclictest.json", "cyclictest.json"), ("timehist.txt", "sched-timehist.txt"),
                         ("states.before", "before.states"), ("states.after", "after.states"),
                         ("emu.before", "before.emu"), ("emu.after", "after.emu"),
                         ("interrupts.before", "before.interrupts"),
                         ("interrupts.after", "after.interrupts"), ("trace.txt", "trace.txt")):
            shutil.copy(os.path.join(FIX, src), os.path.join(self.d, dst))
        with open(os.path.join(self.d, "window"), "w") as f:
            f.write("start 10.00\nend 12.50\n")

    def tearDown(self):
        shutil.rmtree(self.d)

    def test_run(self):
        m = parse.parse_run(self.d, parse.parse_model(fx("emu-model")), 2)
        self.assertEqual(m["states"]["C1"], {"usage": 100, "time": 1000, "above": 0, "below": 10})
        self.assertEqual(m["idle_entries"], 190)
        self.assertAlmostEqual(m["miss_rate"], 24 / 190)
        self.assertAlmostEqual(m["miss_above"], 14 / 190)
        self.assertAlmostEqual(m["miss_below"], 10 / 190)
        # the counters over 1 s: cpu0 4 C1 entries halted 100 ms, 8 us of exit
        # spin, the rest active (1900 mJ); cpu1 4 C6 entries halted 400 ms,
        # 532 us of spin, the rest active (20 + 0.08 + 1.064 + 1198.936 mJ)
        self.assertAlmostEqual(m["energy_mj"], 3120.08)
        self.assertAlmostEqual(m["power_mw"], 3120.08)
        self.assertEqual([(c["cpu"], c["model_nj"], c["measured_nj"], c["torn_ns"])
                          for c in m["counters"]],
                         [(0, 1.9e9, 1900000000, 0), (1, 1.22008e9, 1220080000, 0)])
        self.assertEqual(m["irqs"], {"8:rtc0": 1024, "30:virtio2-input.0": 100, "LOC": 600})
        self.assertAlmostEqual(m["window_s"], 2.5)
        self.assertEqual(m["si_selects"], 1)
        # the trace's energy: cpu0's periods as in test_trace_and_oracle,
        # cpu1 without an event (active); the counters' window is 1 s
        self.assertAlmostEqual(m["model_power_mw"], (329.35 + 20 + 1980 + 4000) / 2, places=6)
        self.assertAlmostEqual(m["oracle_power_mw"], (329.35 + 0 + 1980 + 4000) / 2, places=6)
        self.assertAlmostEqual(m["model_measured_ratio"], m["model_power_mw"] / 3120.08)
        self.assertAlmostEqual(m["emu_window_s"], 1.0)
        self.assertEqual(m["oracle_above_periods"], 0)
        self.assertEqual(energy.check(m), [])

    # sched_idle/stats of the patched kernel, one line per CPU, with the
    # tick's counters and without them (an older kernel)
    SI = ("cpu={c} entries={e} timer_won=1 irq_won=2 no_state=0 err_early=3 err_good=4 "
          "err_late=5 checked=0 shortcut=0 mismatched=0 tick_stops={s} tick_restarts={r}\n")

    def write_si(self, before, after, old=False):
        for name, rows in (("before.sched_idle", before), ("after.sched_idle", after)):
            with open(os.path.join(self.d, name), "w") as f:
                for c, (e, st, r) in enumerate(rows):
                    line = self.SI.format(c=c, e=e, s=st, r=r)
                    f.write(line.split(" tick_stops=")[0] + "\n" if old else line)

    def test_sched_idle_tick(self):
        self.write_si([(10, 1, 0), (20, 2, 1)], [(110, 51, 10), (220, 102, 16)])
        m = parse.parse_run(self.d)
        self.assertEqual(m["sched_idle"]["entries"], 300)
        self.assertEqual(m["sched_idle"]["tick_stops"], 150)
        self.assertEqual(m["sched_idle"]["tick_restarts"], 25)
        # over the 2.5 s window
        self.assertAlmostEqual(m["tick_stops_per_s"], 60)
        self.assertAlmostEqual(m["tick_restarts_per_s"], 10)

    def test_sched_idle_without_tick_counters(self):
        # an older kernel: the other counters as before, no rate
        self.write_si([(10, 0, 0), (20, 0, 0)], [(110, 0, 0), (220, 0, 0)], old=True)
        m = parse.parse_run(self.d)
        self.assertEqual(m["sched_idle"]["entries"], 300)
        self.assertNotIn("tick_stops", m["sched_idle"])
        self.assertNotIn("tick_stops_per_s", m)
        self.assertNotIn("tick_restarts_per_s", m)
        # the stock kernel: no file, no counters at all
        for f in ("before.sched_idle", "after.sched_idle"):
            os.unlink(os.path.join(self.d, f))
        m = parse.parse_run(self.d)
        self.assertNotIn("sched_idle", m)
        self.assertNotIn("tick_stops_per_s", m)
        # a run parsed before the rates existed gets them from its deltas
        self.assertEqual(parse.tick_rates({"sched_idle": {"tick_stops": 5, "tick_restarts": 1},
                                           "window_s": 0.5}),
                         {"tick_stops_per_s": 10, "tick_restarts_per_s": 2})
        self.assertEqual(parse.tick_rates({"sched_idle": {"tick_stops": 5}}), {})

    def test_missing_file(self):
        os.unlink(os.path.join(self.d, "after.states"))
        with self.assertRaisesRegex(parse.ParseError, "after.states: cannot read"):
            parse.parse_run(self.d)

    def test_state_table_changed(self):
        with open(os.path.join(self.d, "after.states"), "a") as f:
            f.write("cpu=1 state=3 name=C7 usage=1 time=1 above=0 below=0\n")
        with self.assertRaisesRegex(parse.ParseError, "state tables before and after differ"):
            parse.parse_run(self.d)


if __name__ == "__main__":
    unittest.main()
