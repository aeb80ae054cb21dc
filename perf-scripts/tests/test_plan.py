"""Unit tests of idlebench/plan.py: the matrix and its budget."""
import unittest

import common  # noqa: F401 (sets the path)
from idlebench import plan, workloads
from idlebench.configs import DEFAULT_CONFIGS

TABLE = workloads.table()
DEFAULT_WORKLOADS = [w for w, x in TABLE.items() if x.default]


def req(configs=DEFAULT_CONFIGS, vcpus=(1, 2), works=DEFAULT_WORKLOADS, repeats=5, **kw):
    return plan.Request(configs=list(configs), vcpus=list(vcpus), works=list(works),
                        repeats=repeats, **kw)


class PlanTest(unittest.TestCase):
    def test_full_matrix(self):
        self.assertNotIn("sched-debug", DEFAULT_CONFIGS)  # test-robust's only
        cells = plan.plan(req(), TABLE)
        names = {c.name for c in cells}
        self.assertIn("sched-rfc-2cpu-icount-r5", names)
        self.assertNotIn("sched-rfc-1cpu-icount-r1", names)  # 2 vCPUs only by default
        self.assertEqual(sorted(c.config for c in cells if c.mode == "cost"),
                         sorted(DEFAULT_CONFIGS * plan.COST_REPEATS))
        # one cost boot per seed: the seed reaches the guest
        self.assertEqual({c.seed for c in cells if c.mode == "cost"},
                         set(range(1, plan.COST_REPEATS + 1)))
        self.assertTrue(all(c.vcpus == plan.COST_VCPUS for c in cells if c.mode == "cost"))
        # real time: 2 vCPUs, REAL_REPEATS repeats
        real = [c for c in cells if c.mode == "real"]
        self.assertEqual({c.vcpus for c in real}, {2})
        self.assertEqual(max(c.repeat for c in real), plan.REAL_REPEATS)
        # explicitly asked for: taken as given
        cells = plan.plan(req(["sched-rfc"], [1], ["block"], 1, configs_given=True), TABLE)
        self.assertIn("sched-rfc-1cpu-icount-r1", {c.name for c in cells})

    def test_budgets(self):
        full = plan.plan(req(), TABLE)
        self.assertLess(plan.estimate_total(full, 2), 90 * 60 * 0.85)
        quick = plan.plan(req(["menu", "teo", "sched"], repeats=2, quick=True, timing="real"),
                          TABLE)
        self.assertLess(plan.estimate_total(quick, 2), 15 * 60 * 0.92)
        self.assertEqual(sorted(c.config for c in quick if c.mode == "cost"), ["menu", "sched"])

    def test_cost_only_and_no_cost(self):
        c = plan.plan(req(["menu"], works=["idle"], cost="only"), TABLE)
        self.assertEqual([x.mode for x in c], ["cost"] * plan.COST_REPEATS)
        c = plan.plan(req(["menu"], [2], ["block"], 1, cost="off"), TABLE)
        self.assertEqual([x.mode for x in c], ["icount"])

    def test_timing_and_seeds(self):
        # --timing icount: every workload without traffic in the -icount boot, traffic real time
        c = plan.plan(req(["menu"], [2], ["ipi", "net", "timer"], 2, timing="icount",
                          seeds=[7, 7], shaped=True, cost="off"), TABLE)
        self.assertEqual([(x.mode, x.works, x.seed) for x in c],
                         [("icount", [("ipi", 2), ("timer", 1)], 7), ("real", [("net", 1)], 7)] * 2)


if __name__ == "__main__":
    unittest.main()
