"""Unit tests of idlebench/cost.py (the kernel's cpuidle_cost probe)."""
import os
import tempfile
import unittest

from common import fx
from idlebench import cost


class ProbeTest(unittest.TestCase):
    def setUp(self):
        self.p = cost.parse(fx("cpuidle_cost.txt"))

    def test_parse(self):
        self.assertTrue(self.p["enabled"])
        self.assertEqual(self.p["select"], {"count": 1000, "sum_ns": 1100000,
                                            "min_ns": 800, "max_ns": 3000})
        self.assertEqual(self.p["empty"]["min_ns"], 100)

    def test_net_of_the_probe(self):
        s = cost.summarize(self.p)
        self.assertEqual(s["empty_ns"], 100)
        self.assertEqual(s["select_ns"], 1000)
        self.assertEqual(s["reflect_ns"], 250)
        self.assertEqual(s["irq_ns"], 50)
        # (1100000 + 346500) / 1000 - 100 * (1 + 0.99)
        self.assertAlmostEqual(s["per_entry_ns"], 1446.5 - 199)
        self.assertEqual(s["entries"], 1000)

    def test_all_in(self):
        s = cost.summarize(self.p)
        # 400 stamps of 50 over a floor of 20: 30 each, over 1000 entries
        self.assertAlmostEqual(cost.all_in(s, 20), s["per_entry_ns"] + 30 * 400 / 1000)
        # a stamp no dearer than the stock kernel's empty span adds nothing
        self.assertAlmostEqual(cost.all_in(s, 50), s["per_entry_ns"])
        # no interrupt, nothing to add; no idle entry, no figure
        self.assertEqual(cost.all_in(dict(s, irqs=0, irq_ns=None), 20), s["per_entry_ns"])
        self.assertIsNone(cost.all_in(dict(s, per_entry_ns=None, entries=0), 20))

    def test_pool_all_in(self):
        s = cost.summarize(self.p)
        x = s["per_entry_ns"]
        boots = [s, dict(s, per_entry_ns=x + 10, irqs=800)]
        # the stock kernel's boots: all-in is per idle entry, its range too
        k = cost.pool(boots, cost.NO_STAMP)
        self.assertAlmostEqual(k["all_in_ns"], x + 5)
        self.assertEqual(k["all_in_range"], k["per_entry_range"])
        # the patched kernel's: each boot its own interrupts per entry
        k = cost.pool(boots, 20)
        self.assertAlmostEqual(k["all_in_ns"], ((x + 12) + (x + 10 + 24)) / 2)
        self.assertEqual(k["all_in_range"], (x + 12, x + 34))
        # no floor known: no all-in figure, never the per-entry one instead
        k = cost.pool(boots)
        self.assertIsNone(k["all_in_ns"])
        self.assertIsNone(k["all_in_range"])
        self.assertAlmostEqual(k["per_entry_ns"], x + 5)

    def test_bad_input(self):
        text = fx("cpuidle_cost.txt")
        for bad in (text.replace("reflect", "reflekt"),
                    text.replace(" max_ns=700", ""),
                    text.replace("irq count=400", "irq count=x"),
                    "\n".join(text.splitlines()[:-1])):
            with self.assertRaises(cost.CostError):
                cost.parse(bad)
        with self.assertRaises(cost.CostError):
            cost.summarize(cost.parse(text.replace("enabled=1", "enabled=0")))

    def test_load_cell(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(cost.CostError, "block"):
                cost.load_cell(d)
            for w in cost.COST_WORKLOADS:
                os.makedirs(os.path.join(d, w))
                with open(os.path.join(d, w, cost.COST_FILE), "w") as f:
                    f.write(fx("cpuidle_cost.txt"))
            self.assertEqual(set(cost.load_cell(d)), set(cost.COST_WORKLOADS))


if __name__ == "__main__":
    unittest.main()


class StockFloorTest(unittest.TestCase):
    """The floor subtracted from sched's stamp: the stock kernel's span, or
    nothing when the stock kernel's interrupt path has none (7.3)."""

    def pooled(self, irq_ns, irqs):
        return {"irq_ns": irq_ns, "irqs": irqs}

    def test_span_of_the_stock_kernel(self):
        from idlebench.report.tables import stock_floor
        costs = {"menu": {"dev2": self.pooled(10.0, 500)}, "teo": {"dev2": self.pooled(14.0, 480)}}
        self.assertEqual(stock_floor(costs, "dev2"), 12.0)

    def test_no_span_in_the_stock_kernel(self):
        from idlebench.report.tables import stock_floor
        costs = {"menu": {"dev2": self.pooled(None, 0)}, "teo": {"dev2": self.pooled(None, 0)}}
        self.assertEqual(stock_floor(costs, "dev2"), 0.0)

    def test_control_not_measured(self):
        from idlebench.report.tables import stock_floor
        self.assertIsNone(stock_floor({"menu": {}}, "dev2"))
