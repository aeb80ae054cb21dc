"""Unit tests of perf-scripts/cost.py (function_graph parsing) and of the
bench.py plan/estimate and report.py cost section."""
import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import bench  # noqa: E402
import cost  # noqa: E402
import report  # noqa: E402


def fx(name):
    with open(os.path.join(HERE, "fixtures", name)) as f:
        return f.read()


class FuncgraphTest(unittest.TestCase):
    def setUp(self):
        self.p = cost.parse_trace(fx("funcgraph.txt"))

    def test_calls_and_units(self):
        self.assertEqual(self.p["calls"]["menu_select"], [2345, 150250])
        self.assertEqual(self.p["calls"]["menu_reflect"], [500, 700])
        # an opened call closed by '}' and a leaf call
        self.assertEqual(self.p["calls"][cost.IRQ_FUNC], [12000, 3000])

    def test_idle_entries_and_irq_names(self):
        self.assertEqual(self.p["idle_entries"], 2)  # exits (4294967295) not counted
        self.assertEqual(self.p["irq"], {"virtio1-req.0": [12000]})
        self.assertEqual(self.p["lost"], 1)  # the stray '}' at the end

    def test_summary(self):
        s = cost.summarize(self.p, "menu")
        self.assertAlmostEqual(s["select_ns_per_entry"], (2345 + 150250 + 500 + 700) / 2)
        self.assertEqual(s["funcs"]["menu_select"]["per_idle_entry"], 1.0)
        self.assertEqual(s["funcs"]["menu_select"]["median"], 2345)
        self.assertEqual(s["funcs"]["menu_select"]["p99"], 150250)
        self.assertIn("sched_idle_stop_tick", cost.funcs_for("sched-rfc"))
        self.assertEqual(s["select_calls_per_entry"], 2.0)
        self.assertEqual(s["select_median_per_entry"], 2345 + 500)

    def test_empty(self):
        s = cost.summarize(cost.parse_trace(""), "teo")
        self.assertIsNone(s["select_ns_per_entry"])
        self.assertEqual(s["funcs"]["teo_select"]["n"], 0)


def args(**kw):
    a = argparse.Namespace(quick=False, seconds=None, timing="mixed", no_cost=False,
                           cost_only=False, configs_given=False, jobs=2)
    vars(a).update(kw)
    return a


class PlanTest(unittest.TestCase):
    def test_full_matrix(self):
        self.assertNotIn("sched-debug", bench.DEFAULT_CONFIGS)  # test-robust's only
        cells = bench.plan(args(), bench.DEFAULT_CONFIGS, [1, 2], bench.DEFAULT_WORKLOADS, 5)
        names = {c.name for c in cells}
        self.assertIn("sched-rfc-2cpu-icount-r5", names)
        self.assertNotIn("sched-rfc-1cpu-icount-r1", names)  # 2 vCPUs only by default
        self.assertEqual(sorted(c.config for c in cells if c.mode == "cost"),
                         sorted(bench.DEFAULT_CONFIGS))
        self.assertTrue(all(c.vcpus == bench.COST_VCPUS for c in cells if c.mode == "cost"))
        # explicitly asked for: taken as given
        cells = bench.plan(args(configs_given=True), ["sched-rfc"], [1], ["block"], 1)
        self.assertIn("sched-rfc-1cpu-icount-r1", {c.name for c in cells})

    def test_budgets(self):
        full = bench.plan(args(), bench.DEFAULT_CONFIGS, [1, 2], bench.DEFAULT_WORKLOADS, 5)
        self.assertLess(bench.estimate_total(full, 2), 90 * 60 * 0.85)
        q = args(quick=True, timing="real")
        quick = bench.plan(q, ["menu", "teo", "sched"], [1, 2], bench.DEFAULT_WORKLOADS, 2)
        self.assertLess(bench.estimate_total(quick, 2), 15 * 60 * 0.92)
        self.assertEqual(sorted(c.config for c in quick if c.mode == "cost"),
                         ["menu", "sched"])

    def test_cost_only_and_no_cost(self):
        c = bench.plan(args(cost_only=True), ["menu"], [1, 2], ["idle"], 5)
        self.assertEqual([x.mode for x in c], ["cost"])
        c = bench.plan(args(no_cost=True), ["menu"], [2], ["block"], 1)
        self.assertEqual([x.mode for x in c], ["icount"])


class ReportCostTest(unittest.TestCase):
    def test_section(self):
        p = cost.parse_trace(fx("funcgraph.txt"))
        menu = cost.summarize(p, "menu")
        ours = dict(menu, select_ns_per_entry=menu["select_ns_per_entry"] / 2)
        L, verdict = report.cost_section({"menu": menu, "sched": ours})
        self.assertIn("met", verdict)
        self.assertTrue(any("virtio1-req.0" in x for x in L))
        L, verdict = report.cost_section({"menu": menu,
                                          "sched": dict(menu, select_ns_per_entry=1e9)})
        self.assertIn("MISSED", verdict)
        L, verdict = report.cost_section({})
        self.assertIsNone(verdict)


if __name__ == "__main__":
    unittest.main()


class NoiseSectionTest(unittest.TestCase):
    def test_cv_per_mode(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            for i, (mode, x) in enumerate([("icount", 0.10), ("icount", 0.10),
                                           ("real", 0.10), ("real", 0.30)]):
                c = os.path.join(d, "cells", f"c{i}")
                os.makedirs(c)
                with open(os.path.join(c, "parsed.json"), "w") as f:
                    json.dump({"meta": {"mode": mode},
                               "runs": {"rtc": {"miss_rate": x}}}, f)
            L = report.noise_section(d)
        row = [x for x in L if x.startswith("| rtc | miss_rate")][0]
        self.assertIn("| 10.0%, 0% (2) |", row)
        self.assertIn("20.0%, 71% (2)", row)
        self.assertIn("no noise run", report.noise_section("/nonexistent")[1])


class ReportMatrixTest(unittest.TestCase):
    """4 vCPUs and sched-rfc show up as their own tables/columns."""

    def test_4cpu_and_sched_rfc(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            for cfg in ("menu", "teo", "sched", "sched-rfc"):
                for v in (2, 4):
                    for r in (1, 2):
                        c = os.path.join(d, "cells", f"{cfg}-{v}cpu-icount-r{r}")
                        os.makedirs(c)
                        meta = {"cell": os.path.basename(c), "config": cfg, "vcpus": v,
                                "repeat": r, "mode": "icount", "shift": 0,
                                "workloads": {"rtc": 1}, "verdict": "PASS", "console": "x"}
                        run = {"miss_rate": 0.1 * r, "power_mw": 10.0 + r, "ct_p99_us": 50,
                               "states": {"C1": {"usage": 5, "time": 100, "above": 1,
                                                 "below": 0}},
                               "irqs": {"rtc0": 10}}
                        with open(os.path.join(c, "meta.json"), "w") as f:
                            json.dump(meta, f)
                        with open(os.path.join(c, "parsed.json"), "w") as f:
                            json.dump({"info": {"kernel": "6.12"}, "runs": {"rtc": run}}, f)
            out = os.path.join(d, "results.md")
            report.main(["--bench", d, "--out", out, "--noise", "/nonexistent"])
            with open(out) as f:
                text = f.read()
        self.assertIn("## rtc, 4 vCPU", text)
        self.assertIn("| metric | menu | teo | sched | sched-rfc |", text)
        self.assertIn("sched/sched-rfc", text)
        self.assertIn("selection cost per idle entry: no verdict", text)
