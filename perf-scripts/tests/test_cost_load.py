"""The cost-load stage (bench.py --cost-load): its workloads in
workloads.toml, its cells (plan.py), their probe files read one workload
at a time (cost.py, launch.py, cells.py), and the report's "Selection cost
versus load" with a verdict per sweep (report/tables.py), with the
controls that must fail: a sweep that grows past cost.LOAD_FLAT reads
MISSED, a sweep with a workload missing gives no verdict, a run without
cost-load cells has no section."""
import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

from common import HERE, boot_words, fx
import bench
from idlebench import cells, cost, launch, plan, report, workloads
from idlebench.report import tables
from test_report import write_cell

TABLE = workloads.table()
REPORT = os.path.join(os.path.dirname(HERE), "report.py")
SOURCES = dict(cost.LOAD_SWEEPS)["sources"]
RATES = dict(cost.LOAD_SWEEPS)["rate"]
# the probe files: flat (the base), the stock kernel's (an empty stamp), one
# a little dearer than the base (within LOAD_FLAT), one far dearer (past it)
BASE, STOCK, WITHIN, GROWN = ("cpuidle_cost.txt", "cpuidle_cost-stock.txt",
                              "cpuidle_cost-within.txt", "cpuidle_cost-grown.txt")


def summary(name):
    return cost.summarize(cost.parse(fx(name)))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def periods(w):
    return [int(workloads.gen_fields(g)["period_us"]) for g in TABLE[w].gen]


class WorkloadsTest(unittest.TestCase):
    """The sweeps' workloads: what they vary, what they hold."""

    def test_sweeps(self):
        self.assertEqual(list(cost.LOAD_WORKLOADS), [w for w in TABLE if w.startswith("load_")])
        for w in cost.LOAD_WORKLOADS:
            x = TABLE[w]
            self.assertFalse(x.default, w)
            self.assertEqual((x.timing, x.seconds), ("icount", 2), w)
            self.assertTrue(x.about, w)
            for g in x.gen:
                kv = workloads.gen_fields(g)
                self.assertEqual((kv["cpu"], kv["proc"]), ("0", "periodic"), g)
                self.assertGreater(int(kv["jitter_us"]), 0, g)
        # the sources sweep: 1, 2, 4, 5 sources, one total rate
        self.assertEqual([len(TABLE[w].gen) for w in SOURCES], [1, 2, 4, 5])
        self.assertLessEqual(len(TABLE[SOURCES[-1]].gen), workloads.GEN_MAX_SOURCES)
        rates = [TABLE[w].gen_rate for w in SOURCES]
        self.assertLess(max(rates) / min(rates), 1.02)
        self.assertAlmostEqual(rates[0], 2000, delta=2000 * 0.02)
        # the rate sweep: two sources, about 1k, 10k and 50k interrupts/s
        self.assertEqual({len(TABLE[w].gen) for w in RATES}, {2})
        for w, want in zip(RATES, (1000, 10000, 50000)):
            self.assertAlmostEqual(TABLE[w].gen_rate, want, delta=want * 0.02, msg=w)

    def test_no_two_periods_keep_a_phase(self):
        # within a workload no two periods share a factor, and none divides
        # the 4 ms tick
        for w in cost.LOAD_WORKLOADS:
            ps = periods(w)
            for i, a in enumerate(ps):
                self.assertNotEqual(4000 % a, 0, (w, a))
                for b in ps[i + 1:]:
                    self.assertEqual(math.gcd(a, b), 1, (w, a, b))

    def test_control_the_generators_limits(self):
        def load(text):
            with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
                f.write('[x]\ntiming = "icount"\nseconds = 2\n' + text)
            try:
                return workloads.load(f.name)
            finally:
                os.unlink(f.name)
        nine = ", ".join(f'"cpu=0 proc=periodic period_us={p}"' for p in range(101, 110))
        for text, msg in ((f"gen = [{nine}]\n", "9 sources, hpet_irqgen takes at most 8"),
                          ('gen = ["cpu=0 proc=periodic period_us=37 jitter_us=19"]\n',
                           "jitter_us must be below half"),
                          ('gen = ["cpu=0 proc=periodic period_us=0"]\n', "period_us > 0")):
            with self.assertRaisesRegex(workloads.WorkloadError, msg):
                load(text)
        # the same at the limits loads
        eight = ", ".join(f'"cpu=0 proc=periodic period_us={p} jitter_us=50"'
                          for p in range(101, 109))
        self.assertEqual(len(load(f"gen = [{eight}]\n")["x"].gen), 8)
        # a rate the lines do not give is none, not a guess
        x = load('gen = ["cpu=0 proc=list intervals_us=150"]\n')["x"]
        self.assertIsNone(x.gen_rate)
        self.assertIsNone(TABLE["timer"].gen_rate)
        self.assertAlmostEqual(TABLE["devburst"].gen_rate, 8 * 200)


class PlanTest(unittest.TestCase):
    def request(self, argv):
        return bench.request(bench.arguments(argv), TABLE)

    def test_cells(self):
        cs = plan.plan(self.request(["--cost-load"]), TABLE)
        self.assertEqual([c.name for c in cs],
                         [f"{c}-{plan.COST_VCPUS}cpu-costload-r1" for c in cost.LOAD_CONFIGS])
        for c in cs:
            self.assertEqual((c.mode, c.vcpus, c.seed), ("costload", plan.COST_VCPUS, 1))
            self.assertEqual(c.works, [(w, TABLE[w].seconds) for w in cost.LOAD_WORKLOADS])
            s = launch.Setup(TABLE, "/k", "/i", "/d", "/u")
            line = launch.kernel_cmdline(c, s)
            self.assertIn(launch.COST_ARGS, line)
            self.assertNotIn("trace_event=", line)
            self.assertIn("load_r50k.gen=cpu=0,proc=periodic,period_us=37,jitter_us=1",
                          boot_words(c, s))
        # more seeds on request
        cs = plan.plan(self.request(["--cost-load", "--seeds", "1,2"]), TABLE)
        self.assertEqual(sorted((c.config, c.seed) for c in cs),
                         sorted((c, s) for c in cost.LOAD_CONFIGS for s in (1, 2)))
        cs = plan.plan(self.request(["--cost-load", "--configs", "sched",
                                     "--workloads", "load_s1,load_s5"]), TABLE)
        self.assertEqual([(c.name, [w for w, _ in c.works]) for c in cs],
                         [("sched-2cpu-costload-r1", ["load_s1", "load_s5"])])

    def test_control_the_matrix_has_none(self):
        # the default run and its cost stage: no cost-load cell, no load workload
        cs = plan.plan(self.request([]), TABLE)
        self.assertFalse([c for c in cs if c.mode == "costload"])
        self.assertFalse({w for c in cs for w, _ in c.works} & set(cost.LOAD_WORKLOADS))
        self.assertIn("cost", {c.mode for c in cs})
        # what the stage leaves alone is refused, in one line
        for extra in (["--quick"], ["--vcpus", "1"], ["--cost-only"], ["--workloads", "net"]):
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(SystemExit):
                self.request(["--cost-load"] + extra)
            self.assertEqual(err.getvalue().count("\n"), 1, err.getvalue())

    def test_dry_run(self):
        with tempfile.TemporaryDirectory() as k:
            for img in ("stock.bzImage", "patched.bzImage"):
                write(os.path.join(k, img), "kernel")

            def dry(argv):
                with contextlib.redirect_stdout(io.StringIO()) as out:
                    bench.main(argv + ["--dry-run", "--kernels", k])
                return out.getvalue()
            out = dry(["--cost-load"])
            cs = plan.plan(self.request(["--cost-load"]), TABLE)
            mins = plan.estimate_total(cs, 2) / 60
            self.assertIn(f"costload: {len(cs)} boots, workloads "
                          + " ".join(f"{w}={s}s" for w, s in cs[0].works), out)
            self.assertIn(f"estimated duration {mins:.0f} min for the {len(cs)} boots", out)
            # control: the matrix's dry run plans none
            self.assertNotIn("costload", dry(["--configs", "menu", "--vcpus", "2"]))


class CellTest(unittest.TestCase):
    """A cost-load cell keeps the workloads whose probe file is good."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.res = os.path.join(self.tmp.name, "results")
        write(os.path.join(self.res, "bench-info"), "kernel=6.12\ncpus=2\n")
        for w in ("load_s1", "load_s2"):
            write(os.path.join(self.res, w, cost.COST_FILE), fx(BASE))

    def tearDown(self):
        self.tmp.cleanup()

    def test_one_bad_workload_fails_alone(self):
        # load_s4: bench.sh marked it failed; load_s5: no file, no mark
        write(os.path.join(self.res, "load_s4", "failed"),
              "cyclictest not measuring after 30s\nlog=load_s4/workload.log\n")
        works = ["load_s1", "load_s2", "load_s4", "load_s5"]
        p, why = launch.summarize_cost(self.res, works, each=True)
        self.assertIsNone(why)
        self.assertEqual(sorted(p["cost"]), ["load_s1", "load_s2"])
        self.assertEqual(p["failed"]["load_s4"], {"reason": "cyclictest not measuring after 30s",
                                                  "log": "results/load_s4/workload.log"})
        self.assertIn("load_s5/after.cost", p["failed"]["load_s5"]["reason"])
        self.assertNotIn(self.res, p["failed"]["load_s5"]["reason"])
        # none left: the cell fails
        p, why = launch.summarize_cost(self.res, ["load_s4", "load_s5"], each=True)
        self.assertIsNone(p)
        self.assertRegex(why, "^FAIL: cost: ")

    def test_control_the_cost_stage_fails_whole(self):
        p, why = launch.summarize_cost(self.res, ["load_s1", "load_s5"])
        self.assertIsNone(p)
        self.assertIn("load_s5", why)
        p, why = launch.summarize_cost(self.res, ["load_s1", "load_s2"])
        self.assertEqual(sorted(p["cost"]), ["load_s1", "load_s2"])

    def test_a_failed_workload_reruns_the_cell(self):
        d = os.path.join(self.tmp.name, "cell")
        kernel, image = os.path.join(self.tmp.name, "k"), os.path.join(self.tmp.name, "i")
        write(kernel, "k")
        write(image, "i")
        c = cells.Cell("sched", 2, 1, "costload", [("load_s1", 2), ("load_s2", 2)])
        meta = {"workloads": dict(c.works), "seed": 1, "kernel_sha256": cells.file_id(kernel),
                "image_sha256": cells.file_id(image), "cmdline": "x"}
        write(os.path.join(d, "meta.json"), json.dumps(meta))
        write(os.path.join(d, "verdict"), "PASS\n")
        write(os.path.join(d, "parsed.json"), json.dumps({"cost": {}, "runs": {}, "failed": {}}))
        self.assertEqual(cells.missing(d, c, kernel, image, "x"), [])
        write(os.path.join(d, "parsed.json"),
              json.dumps({"cost": {}, "runs": {}, "failed": {"load_s2": {}}}))
        self.assertEqual(cells.missing(d, c, kernel, image, "x"), ["load_s1", "load_s2"])


def loads(sched, menu=STOCK, teo=STOCK, rate=200.0):
    """Synthetic pooled input of load_section: {config: {workload: [summary]}};
    sched {workload: fixture} (a workload it lacks is left out)."""
    def one(f):
        return [dict(summary(f), irqs_per_s=rate, seed=1)]
    out = {c: {w: one(f) for w in cost.LOAD_WORKLOADS} for c, f in (("menu", menu),
                                                                     ("teo", teo))}
    out["sched"] = {w: one(f) for w, f in sched.items()}
    return out


def verdict(lines, sweep):
    return [x for x in lines if x.startswith(f"- {sweep} sweep")][0]


class SectionTest(unittest.TestCase):
    def test_table_and_flat_verdicts(self):
        within = dict({w: BASE for w in cost.LOAD_WORKLOADS}, load_s5=WITHIN)
        L = tables.load_section(loads(within), TABLE)
        self.assertEqual(L[0], "## Selection cost versus load\n")
        b, s, w = summary(BASE), summary(STOCK), summary(WITHIN)
        row = [x for x in L if x.startswith("| sources | load_s2 |")][0]
        self.assertIn(f"| 2 | {TABLE['load_s2'].gen_rate:.0f} (200) |", row)
        self.assertIn(f"| {s['per_entry_ns']:.0f} | {s['per_entry_ns']:.0f} | "
                      f"{b['per_entry_ns']:.0f} | {b['per_entry_ns'] / s['per_entry_ns']:.2f} |",
                      row)
        self.assertTrue(row.endswith(f"| 0 | 0 | {b['irq_ns']:.0f} | "
                                     f"{b['irq_ns'] - s['irq_ns']:+.0f} |"), row)
        self.assertEqual(len([x for x in L if x.startswith("| rate | load_r")]), 3)
        v = verdict(L, "sources")
        r = w["per_entry_ns"] / b["per_entry_ns"]
        self.assertLess(r, cost.LOAD_FLAT)
        self.assertIn(f"sched per idle entry {b['per_entry_ns']:.0f} (load_s1) to "
                      f"{w['per_entry_ns']:.0f} (load_s5) instructions, largest over "
                      f"smallest {r:.2f}: flat within 10% met", v)
        # the growth from the first workload to the last, per added source
        self.assertIn(f"{(w['per_entry_ns'] - b['per_entry_ns']) / 4:+.0f} instructions per "
                      "idle entry per added source from load_s1 to load_s5", v)
        self.assertIn("stamp per interrupt 50 (load_s1) to 50 (load_s1), largest over "
                      "smallest 1.00: flat within 10% met", v)
        self.assertIn("largest over smallest 1.00: flat within 10% met", verdict(L, "rate"))
        self.assertIn("per 1,000 interrupts/s more from load_r1k to load_r50k",
                      verdict(L, "rate"))

    def test_control_grown_past_flat_is_missed(self):
        grown = dict({w: BASE for w in cost.LOAD_WORKLOADS}, load_s4=GROWN)
        L = tables.load_section(loads(grown), TABLE)
        v = verdict(L, "sources")
        r = summary(GROWN)["per_entry_ns"] / summary(BASE)["per_entry_ns"]
        self.assertGreater(r, cost.LOAD_FLAT)
        self.assertIn(f"to {summary(GROWN)['per_entry_ns']:.0f} (load_s4) instructions, "
                      f"largest over smallest {r:.2f}: flat within 10% MISSED", v)
        self.assertNotIn(": flat within 10% met;", v)
        # the other sweep is judged on its own
        self.assertIn("flat within 10% met", verdict(L, "rate"))
        # a growing stamp misses too
        fat = dict(summary(BASE), irq_ns=summary(BASE)["irq_ns"] * 2)
        x = loads({w: BASE for w in cost.LOAD_WORKLOADS})
        x["sched"]["load_r50k"] = [dict(fat, irqs_per_s=1.0, seed=1)]
        v = verdict(tables.load_section(x, TABLE), "rate")
        self.assertIn("flat within 10% met; ", v)
        self.assertIn("largest over smallest 2.00: flat within 10% MISSED", v)

    def test_missing_workload_no_verdict(self):
        partial = {w: BASE for w in cost.LOAD_WORKLOADS if w != "load_r50k"}
        L = tables.load_section(loads(partial), TABLE)
        v = verdict(L, "rate")
        self.assertIn("no verdict: load_r50k not measured for sched (measured per idle "
                      "entry: load_r1k 1248, load_r10k 1248)", v)
        self.assertNotIn("met", v)
        self.assertNotIn("MISSED", v)
        row = [x for x in L if x.startswith("| rate | load_r50k |")][0]
        self.assertIn("| not run | n/a |", row)
        # no sched at all: both sweeps say so
        L = tables.load_section(loads({}), TABLE)
        self.assertIn("no verdict: load_s1, load_s2, load_s4, load_s5 not measured for sched",
                      verdict(L, "sources"))
        # nothing measured: the section says so and nothing else
        L = tables.load_section({"sched": {}}, TABLE)
        self.assertIn("every cost-load boot failed", L[-1])
        self.assertFalse([x for x in L if x.startswith("| ")])


def load_cell(bench_dir, config, fixtures, verdict_line="PASS"):
    """A cost-load cell as the bench writes one: fixtures {workload: probe
    file} (a workload it lacks has no file)."""
    name = f"{config}-2cpu-costload-r1"
    meta = {"cell": name, "config": config, "vcpus": 2, "repeat": 1, "seed": 1,
            "mode": "costload", "shift": 0, "console": "x",
            "workloads": {w: 2 for w in cost.LOAD_WORKLOADS}}
    write_cell(bench_dir, name, meta, {"info": {"kernel": "6.12"}, "runs": {},
                                       "cost": {}}, verdict_line)
    for w, f in fixtures.items():
        write(os.path.join(bench_dir, "cells", name, "results", w, cost.COST_FILE), fx(f))


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.run = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def stage(self):
        for c in ("menu", "teo"):
            load_cell(self.run, c, {w: STOCK for w in cost.LOAD_WORKLOADS})
        load_cell(self.run, "sched", dict({w: BASE for w in cost.LOAD_WORKLOADS
                                           if w != "load_r50k"}, load_s5=GROWN))

    def test_report_of_a_cost_load_run(self):
        self.stage()
        self.assertTrue(report.load_only(self.run))
        r = subprocess.run([sys.executable, REPORT, "--run", self.run, "--noise", "/nonexistent"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        # its own report, not docs/results.md
        out = os.path.join(self.run, "report", "results.md")
        self.assertIn(f"report: {out}", r.stdout)
        with open(out) as f:
            text = f.read()
        self.assertTrue(text.startswith("# Idle-governor bench: selection cost versus load\n"))
        self.assertIn("## Selection cost versus load", text)
        # its cells have no console: the kernels' series is unknown, and
        # the report says so under its title
        self.assertTrue(text.startswith("# Idle-governor bench: selection cost versus load\n\n"
                                        "**Not the checkout's series/**"), text[:300])
        self.assertIn("  - stock.bzImage (menu, teo): ", text)
        self.assertIn("series unknown (no boot line in its consoles)", text)
        self.assertIn("Boots per configuration: menu 1 (seed 1); teo 1 (seed 1); "
                      "sched 1 (seed 1).", text)
        # the probe's 400 stamps over the 2 s window
        self.assertIn(f"| sources | load_s1 | 1 | {TABLE['load_s1'].gen_rate:.0f} (200) |", text)
        self.assertIn("flat within 10% MISSED", verdict(text.splitlines(), "sources"))
        self.assertIn("no verdict: load_r50k not measured for sched",
                      verdict(text.splitlines(), "rate"))
        self.assertNotIn("## Headline", text)

    def test_control_no_cost_load_cells_no_section(self):
        meta = {"cell": "menu-2cpu-icount-r1", "config": "menu", "vcpus": 2, "repeat": 1,
                "seed": 1, "mode": "icount", "shift": 0, "workloads": {"rtc": 1}, "console": "x"}
        run = {"miss_rate": 0.1, "power_mw": 10.0, "ct_p99_us": 50, "irqs": {"rtc0": 10},
               "states": {"C1": {"usage": 5, "time": 100, "above": 1, "below": 0}}}
        write_cell(self.run, meta["cell"], meta, {"info": {"kernel": "6.12"},
                                                  "runs": {"rtc": run}})
        out = os.path.join(self.run, "results.md")

        def text():
            with contextlib.redirect_stdout(io.StringIO()):
                report.build(self.run, out, "/nonexistent", TABLE)
            with open(out) as f:
                return f.read()
        self.assertFalse(report.load_only(self.run))
        self.assertNotIn("Selection cost versus load", text())
        # the same run with the stage's cells: the full report, and the section in it
        self.stage()
        self.assertFalse(report.load_only(self.run))
        full = text()
        self.assertIn("## Headline", full)
        self.assertIn("## Selection cost versus load", full)
        self.assertIn("flat within 10% MISSED", full)

    def test_failed_boot_listed(self):
        load_cell(self.run, "sched", {}, "FAIL: quiet for 300 s")
        out = os.path.join(self.run, "r.md")
        with contextlib.redirect_stdout(io.StringIO()):
            report.build(self.run, out, "/nonexistent", TABLE)
        with open(out) as f:
            text = f.read()
        self.assertIn("every cost-load boot failed", text)
        self.assertIn("- sched-2cpu-costload-r1: FAIL: quiet for 300 s", text)


class RunTest(unittest.TestCase):
    """bench.py --cost-load: a run of its own (-costload), reported into
    its own directory; --resume continues it.  Boots are stand-ins."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.kernels = os.path.join(t, "kernels")
        for img in ("stock.bzImage", "patched.bzImage"):
            write(os.path.join(self.kernels, img), "kernel")
        self.initrd = os.path.join(t, "initramfs.cpio")
        write(self.initrd, "image")
        self.saved = cells.RUNS, bench.build_inputs, bench.run_all, bench.TOP
        cells.RUNS = os.path.join(t, "bench")
        # where docs/results.md would be: it must stay unwritten
        bench.TOP = os.path.join(t, "top")
        bench.build_inputs = lambda run: (self.initrd, "/udpgen", "/disk.img")
        self.booted = []
        bench.run_all = self.boot

    def tearDown(self):
        cells.RUNS, bench.build_inputs, bench.run_all, bench.TOP = self.saved
        self.tmp.cleanup()

    def boot(self, todo, setup, cells_dir, jobs):
        self.booted.append([c.name for c in todo])
        for c in todo:
            kernel = os.path.join(self.kernels, "stock.bzImage" if c.config != "sched"
                                  else "patched.bzImage")
            meta = {"cell": c.name, "config": c.config, "vcpus": c.vcpus, "repeat": c.repeat,
                    "seed": c.seed, "mode": c.mode, "workloads": dict(c.works), "console": "x",
                    "kernel_sha256": cells.file_id(kernel),
                    "image_sha256": cells.file_id(self.initrd),
                    "cmdline": launch.kernel_cmdline(c, setup)}
            write_cell(os.path.dirname(cells_dir), c.name, meta,
                       {"info": {"kernel": "6.12"}, "runs": {}, "cost": {}})
            for w, _ in c.works:
                write(os.path.join(cells_dir, c.name, "results", w, cost.COST_FILE),
                      fx(BASE if c.config == "sched" else STOCK))
        return 1.0

    def main(self, argv):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            bench.main(argv)
        return out.getvalue()

    def test_own_run_own_report(self):
        out = self.main(["--cost-load", "--kernels", self.kernels])
        runs = [x for x in os.listdir(cells.RUNS) if x != "latest"]
        self.assertEqual(len(runs), 1)
        self.assertRegex(runs[0], r"^\d{4}\.\d\d\.\d\d-\d\d\.\d\d\.\d\d-costload$")
        run = os.path.join(cells.RUNS, runs[0])
        self.assertEqual(cells.find_run("latest"), run)
        self.assertEqual(self.booted, [[f"{c}-2cpu-costload-r1" for c in cost.LOAD_CONFIGS]])
        rep = os.path.join(run, "report", "results.md")
        self.assertIn(f"report: {rep}", out)
        with open(rep) as f:
            text = f.read()
        self.assertIn("## Selection cost versus load", text)
        self.assertIn("flat within 10% met", text)
        self.assertFalse(os.path.exists(os.path.join(bench.TOP, "docs", "results.md")))
        # resumed: its own arguments, nothing left to boot
        self.main(["--resume", "--no-report"])
        self.assertEqual(self.booted[1], [])

    def test_control_a_matrix_run_reports_into_docs(self):
        out = self.main(["--configs", "menu", "--vcpus", "2", "--repeats", "1",
                         "--workloads", "idle", "--timing", "icount", "--no-cost",
                         "--kernels", self.kernels])
        runs = [x for x in os.listdir(cells.RUNS) if x != "latest"]
        self.assertFalse(runs[0].endswith("-costload"))
        self.assertFalse(report.load_only(os.path.join(cells.RUNS, runs[0])))
        docs = os.path.join(bench.TOP, "docs", "results.md")
        self.assertIn(f"report: {docs}", out)
        with open(docs) as f:
            self.assertNotIn("Selection cost versus load", f.read())


if __name__ == "__main__":
    unittest.main()
