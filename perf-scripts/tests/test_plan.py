"""Unit tests of idlebench/plan.py: the matrix and its budget."""
import contextlib
import io
import unittest

import common  # noqa: F401 (sets the path)
import bench
from idlebench import plan, workloads
from idlebench.configs import CONFIGS, DEFAULT_CONFIGS

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
        # every default configuration on 1 and 2 vCPUs
        self.assertIn("sched-rfc-1cpu-icount-r1", names)
        # a configuration's own vCPU counts bound it
        names = {c.name for c in plan.plan(req(configs=DEFAULT_CONFIGS + ["sched-nolearn"]),
                                           TABLE)}
        self.assertIn("sched-nolearn-2cpu-icount-r1", names)
        self.assertNotIn("sched-nolearn-1cpu-icount-r1", names)
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
        # named in --configs, on a count of its own: run as asked
        cells = plan.plan(req(["sched-rfc"], [1], ["block"], 1, configs_given=True), TABLE)
        self.assertIn("sched-rfc-1cpu-icount-r1", {c.name for c in cells})

    def test_a_configuration_runs_on_its_own_vcpus_only(self):
        # named in --configs (as it must be: it is not in the default) or
        # not, and whatever --vcpus asks, sched-nolearn runs on its 2 vCPUs
        self.assertEqual(CONFIGS["sched-nolearn"].vcpus, (2,))
        for kw in ({}, {"configs_given": True}, {"configs_given": True, "shaped": True},
                   {"configs_given": True, "quick": True, "timing": "real"}):
            cells = plan.plan(req(["menu", "sched-nolearn"], (1, 2, 4), **kw), TABLE)
            self.assertEqual({c.vcpus for c in cells if c.config == "sched-nolearn"}, {2}, kw)
            self.assertIn(1, {c.vcpus for c in cells if c.config == "menu"})

    def asked(self, argv):
        """The cells of bench.py's run for argv, as bench.py plans them."""
        return plan.plan(bench.request(bench.arguments(argv), TABLE), TABLE)

    def test_configs_named_on_the_command_line(self):
        # bench.py sets configs_given itself: sched-nolearn named in
        # --configs, with counts it lacks asked, still runs on its own only
        self.assertTrue(bench.request(bench.arguments(["--configs", "menu"]), TABLE)
                        .configs_given)
        for argv in (["--configs", "menu,sched-nolearn"],
                     ["--configs", "menu,sched-nolearn", "--vcpus", "1,2,4"],
                     ["--quick", "--configs", "menu,sched-nolearn", "--vcpus", "1,2"]):
            cells = self.asked(argv + ["--no-cost"])
            self.assertEqual({c.vcpus for c in cells if c.config == "sched-nolearn"}, {2}, argv)
            self.assertIn(1, {c.vcpus for c in cells if c.config == "menu"}, argv)
        # without --vcpus: DEFAULT_VCPUS, among each configuration's own
        cells = self.asked(["--configs", "menu", "--no-cost"])
        self.assertEqual({c.vcpus for c in cells}, set(plan.DEFAULT_VCPUS))
        # none of its own counts asked: refused with one line, not an empty run
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit):
            self.asked(["--configs", "sched-nolearn", "--vcpus", "1"])
        self.assertIn("sched-nolearn runs on 2 vCPUs only", err.getvalue())

    def test_every_configuration_runs_the_cost_stages(self):
        # the cost and cost-load stages boot COST_VCPUS whatever the run asks
        for c in CONFIGS.values():
            self.assertIn(plan.COST_VCPUS, c.vcpus, c.name)

    def test_windows(self):
        # --seconds, else --quick's, else the table's or COST_SECONDS: the
        # measurement cells and the cost stage alike
        def windows(**kw):
            cells = plan.plan(req(["menu"], [2], ["dev2"], 1, **kw), TABLE)
            return {c.mode: {s for _, s in c.works} for c in cells}
        self.assertEqual(windows(), {"icount": {TABLE["dev2"].seconds},
                                     "cost": {plan.COST_SECONDS}})
        self.assertEqual(windows(quick=True, timing="icount"),
                         {"icount": {plan.QUICK_SECONDS}, "cost": {plan.QUICK_SECONDS}})
        self.assertEqual(windows(quick=True, timing="icount", seconds=3),
                         {"icount": {3}, "cost": {3}})

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



class DoneTest(unittest.TestCase):
    """A finished cell is kept only while what it ran is what would run."""

    def setUp(self):
        import json
        import os
        import tempfile
        from idlebench import cells, launch
        self.cells, self.launch = cells, launch
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.kernel, self.image = os.path.join(d, "k"), os.path.join(d, "i")
        for p in (self.kernel, self.image):
            with open(p, "w") as f:
                f.write(p)
        self.cell = [c for c in plan.plan(req(), TABLE) if c.mode == "icount"][0]
        self.setup = launch.Setup(TABLE, d, self.image, "", "")
        self.line = launch.kernel_cmdline(self.cell, self.setup)
        self.dir = os.path.join(d, self.cell.name)
        os.mkdir(self.dir)
        runs = {"runs": {w: {} for w, _ in self.cell.works}}
        for name, text in (("verdict", "PASS\n"), ("parsed.json", json.dumps(runs))):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        self.meta = {"workloads": dict(self.cell.works), "seed": self.cell.seed,
                     "kernel_sha256": cells.file_id(self.kernel),
                     "image_sha256": cells.file_id(self.image),
                     "qemu_cmd": "run-qemu.sh -k k -a " + self.line + " -t 810 -q 300"}
        self.write = lambda m: open(os.path.join(self.dir, "meta.json"), "w").write(json.dumps(m))

    def tearDown(self):
        self.tmp.cleanup()

    def done(self, line):
        return self.cells.done(self.dir, self.cell, self.kernel, self.image, line)

    def test_command_line_decides(self):
        # a cell records its line
        self.write(dict(self.meta, cmdline=self.line))
        self.assertTrue(self.done(self.line))
        self.assertFalse(self.done(self.line + " x"))
        # a workload's parameter changed (a pipe period): its words, and
        # so the line that names their file by its digest, differ: run again
        import dataclasses
        w = next(w for w, _ in self.cell.works if TABLE[w].pipe_period_us)
        other = dict(TABLE, **{w: dataclasses.replace(
            TABLE[w], pipe_period_us=TABLE[w].pipe_period_us + 1)})
        changed = self.launch.kernel_cmdline(self.cell, self.launch.Setup(other, "", "", "", ""))
        self.assertNotEqual(changed, self.line)
        self.assertFalse(self.done(changed))
        # a line that cannot be made, or a cell without its line: run again
        self.assertFalse(self.done(None))
        self.write(self.meta)
        self.assertFalse(self.done(self.line))
        self.assertFalse(self.done(None))


if __name__ == "__main__":
    unittest.main()
