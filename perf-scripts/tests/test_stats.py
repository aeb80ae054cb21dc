"""Unit tests of idlebench/stats.py against values from textbooks/scipy."""
import unittest

import common  # noqa: F401 (sets the path)
from idlebench import stats


class StatsTest(unittest.TestCase):
    def test_basic(self):
        xs = [2, 4, 4, 4, 5, 5, 7, 9]
        self.assertAlmostEqual(stats.mean(xs), 5.0)
        self.assertAlmostEqual(stats.stdev(xs), 2.138089935299395)
        self.assertAlmostEqual(stats.cv(xs), 2.138089935299395 / 5)
        self.assertEqual(stats.stdev([3]), 0.0)
        self.assertIsNone(stats.cv([0, 0]))
        with self.assertRaises(ValueError):
            stats.mean([])

    def test_t_quantiles(self):
        # t tables, 0.975 quantile
        for df, q in ((1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (30, 2.042)):
            self.assertAlmostEqual(stats.t_quantile(0.975, df), q, places=3)

    def test_ci95(self):
        xs = [1.0, 2.0, 3.0, 4.0, 5.0]
        self.assertAlmostEqual(stats.ci95(xs), 2.776445 * 1.5811388 / 5 ** 0.5, places=5)
        self.assertIsNone(stats.ci95([1.0]))

    def test_welch(self):
        # scipy.stats.ttest_ind(a, b, equal_var=False)
        t, df, p = stats.welch([1, 2, 3, 4, 5], [3, 4, 5, 6, 7])
        self.assertAlmostEqual(t, -2.0)
        self.assertAlmostEqual(df, 8.0)
        self.assertAlmostEqual(p, 0.08051623795726, places=8)
        # by hand: means 11.5 and 6, variances of the means 5/12 and 12.5
        t, df, p = stats.welch([10, 11, 12, 13], [1, 2, 3, 20, 4])
        self.assertAlmostEqual(t, 5.5 / (5 / 12 + 12.5) ** 0.5)
        self.assertAlmostEqual(df, (5 / 12 + 12.5) ** 2 / ((5 / 12) ** 2 / 3 + 12.5 ** 2 / 4))
        # the p-value and the quantile are inverse of each other
        self.assertAlmostEqual(stats.t_sf2(stats.t_quantile(0.975, df), df), 0.05, places=9)
        self.assertTrue(0.05 < p < 0.5)
        self.assertIsNone(stats.welch([1], [1, 2]))
        self.assertEqual(stats.welch([1, 1], [1, 1])[2], 1.0)
        self.assertEqual(stats.welch([1, 1], [2, 2])[2], 0.0)

    def test_summary(self):
        s = stats.summary([1.0, None, 3.0])
        self.assertEqual(s["n"], 2)
        self.assertAlmostEqual(s["mean"], 2.0)
        self.assertIsNone(stats.summary([None]))


if __name__ == "__main__":
    unittest.main()
