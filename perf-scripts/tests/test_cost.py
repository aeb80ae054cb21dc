"""Unit tests of idlebench/cost.py (function_graph parsing)."""
import unittest

from common import fx
from idlebench import cost


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
        self.assertIn("sched_idle_choose", cost.funcs_for("sched-rfc"))
        self.assertEqual(cost.funcs_for("sched-nolearn"), cost.funcs_for("sched"))
        self.assertEqual(s["select_calls_per_entry"], 2.0)
        self.assertEqual(s["select_median_per_entry"], 2345 + 500)

    def test_empty(self):
        s = cost.summarize(cost.parse_trace(""), "teo")
        self.assertIsNone(s["select_ns_per_entry"])
        self.assertEqual(s["funcs"]["teo_select"]["n"], 0)


if __name__ == "__main__":
    unittest.main()
