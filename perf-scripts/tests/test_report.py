"""Unit tests of idlebench/report: the cost section, the noise table, a
matrix with 4 vCPUs and sched-rfc, a workload of a user's file, the
kernels' series ids against the checkout's."""
import os
import shutil
import tempfile
import unittest

import test_series
from common import fx
from idlebench import cells, cost, report, series, workloads
from idlebench.report import tables


class ReportCostTest(unittest.TestCase):
    def test_section(self):
        k = cost.summarize(cost.parse(fx("cpuidle_cost.txt")))
        menu = {w: [k] for w in cost.COST_WORKLOADS}
        half = {w: [dict(k, per_entry_ns=k["per_entry_ns"] / 2, irq_ns=80)]
                for w in cost.COST_WORKLOADS}
        L, verdict = tables.cost_section({"menu": menu, "teo": menu, "sched": half})
        self.assertIn("met", verdict)
        self.assertIn("ranges apart", verdict)
        self.assertIn("on the all-in figure, met", verdict)
        self.assertTrue(any("block +30, dev2 +30" in x for x in L))
        one_worse = dict(half, dev2=[dict(k, per_entry_ns=1e9)])
        L, verdict = tables.cost_section({"teo": menu, "sched": one_worse})
        self.assertIn("MISSED", verdict)
        # the bar is teo's: menu's boots alone give no verdict
        L, verdict = tables.cost_section({"menu": menu, "sched": half})
        self.assertIsNone(verdict)
        L, verdict = tables.cost_section({})
        self.assertIsNone(verdict)

    def test_all_in_can_fail(self):
        # select + reflect below teo's, but the stamps of five interrupts
        # per two idle entries, 60 instructions each above the stock
        # kernel's empty span, take it above: the per-entry verdict would
        # be met, the all-in one is missed
        k = cost.summarize(cost.parse(fx("cpuidle_cost.txt")))
        x = k["per_entry_ns"]
        teo = {w: [k] for w in cost.COST_WORKLOADS}
        ours = {w: [dict(k, per_entry_ns=0.98 * x, irq_ns=110, irqs=2500)]
                for w in cost.COST_WORKLOADS}
        self.assertLess(ours["block"][0]["per_entry_ns"], x)
        L, verdict = tables.cost_section({"menu": teo, "teo": teo, "sched": ours})
        allin = 0.98 * x + 60 * 2500 / 1000
        self.assertIn(f"block {allin:.0f} vs {x:.0f} ns ({allin / x:.2f}x", verdict)
        self.assertIn(f"select + reflect alone {0.98 * x:.0f} vs {x:.0f}, 0.98x", verdict)
        self.assertIn("on the all-in figure, MISSED", verdict)
        self.assertTrue(any("block +60, dev2 +60" in ln for ln in L))
        row = [ln for ln in L if ln.startswith("| block | sched |")][0]
        cols = [c.strip() for c in row.split("|")[1:-1]]
        # per idle entry and its vs teo, then the all-in and its vs teo
        self.assertEqual(cols[6], f"{0.98 * x:.0f}")
        self.assertEqual(cols[8], "0.98")
        self.assertEqual(cols[11], f"{allin:.0f}")
        self.assertEqual(cols[12], f"{allin / x:.2f}")
        # the stock kernel has no stamp: its all-in is its per idle entry
        row = [ln for ln in L if ln.startswith("| block | teo |")][0]
        cols = [c.strip() for c in row.split("|")[1:-1]]
        self.assertEqual(cols[11], cols[6])
        self.assertEqual(cols[12], "1.00")
        # control: the same stamps at the stock kernel's span add nothing
        # and the verdict is met again
        ours = {w: [dict(k, per_entry_ns=0.98 * x, irq_ns=50, irqs=2500)]
                for w in cost.COST_WORKLOADS}
        L, verdict = tables.cost_section({"menu": teo, "teo": teo, "sched": ours})
        self.assertIn("on the all-in figure, met", verdict)
        # without menu, teo's span alone is the floor
        ours = {w: [dict(k, per_entry_ns=0.98 * x, irq_ns=110, irqs=2500)]
                for w in cost.COST_WORKLOADS}
        L, verdict = tables.cost_section({"teo": teo, "sched": ours})
        self.assertIn(f"block {allin:.0f} vs", verdict)

    def test_all_in_of_every_patched_configuration(self):
        # sched-rfc has the stamp too: its all-in figure carries it
        k = cost.summarize(cost.parse(fx("cpuidle_cost.txt")))
        x = k["per_entry_ns"]
        stock = {w: [k] for w in cost.COST_WORKLOADS}
        rfc = {w: [dict(k, irq_ns=70)] for w in cost.COST_WORKLOADS}
        L, _ = tables.cost_section({"menu": stock, "teo": stock, "sched-rfc": rfc})
        row = [ln for ln in L if ln.startswith("| dev2 | sched-rfc |")][0]
        cols = [c.strip() for c in row.split("|")[1:-1]]
        self.assertEqual(cols[11], f"{x + 20 * 400 / 1000:.0f}")
        # no stock boots: nothing to subtract the stamp from, no figure
        L, verdict = tables.cost_section({"sched": rfc})
        row = [ln for ln in L if ln.startswith("| dev2 | sched |")][0]
        self.assertEqual([c.strip() for c in row.split("|")[1:-1]][11], "n/a")
        self.assertIsNone(verdict)

    def test_boots_pooled(self):
        # three seeds: the mean decides, the ranges say whether it is clear
        k = cost.summarize(cost.parse(fx("cpuidle_cost.txt")))
        x = k["per_entry_ns"]
        menu = {w: [dict(k, per_entry_ns=x * f) for f in (1.0, 1.1, 1.2)]
                for w in cost.COST_WORKLOADS}
        ours = {w: [dict(k, per_entry_ns=x * f) for f in (0.9, 1.0, 1.05)]
                for w in cost.COST_WORKLOADS}
        L, verdict = tables.cost_section({"teo": menu, "sched": ours})
        self.assertIn("met", verdict)
        self.assertIn("ranges overlap, 3 boots each", verdict)
        self.assertIn("(0.89x", verdict)
        self.assertTrue(any(f"| 3 |" in ln and f"({x * 0.9:.0f}-{x * 1.05:.0f})" in ln
                            for ln in L))
        # above teo's and apart: the ranges say so too (they read
        # "overlap" before, whichever side was above)
        dear = {w: [dict(k, per_entry_ns=x * f) for f in (1.3, 1.4, 1.5)]
                for w in cost.COST_WORKLOADS}
        L, verdict = tables.cost_section({"teo": menu, "sched": dear})
        self.assertIn("MISSED", verdict)
        self.assertIn("ranges apart, 3 boots each", verdict)


def write_cell(bench, name, meta, parsed, verdict="PASS"):
    """A finished cell, written as the bench writes one."""
    work = os.path.join(bench, "cells", name + ".run")
    os.makedirs(work)
    cells.finish(work, os.path.join(bench, "cells", name), meta, verdict, parsed)


class NoiseSectionTest(unittest.TestCase):
    def test_cv_per_mode(self):
        with tempfile.TemporaryDirectory() as d:
            for i, (mode, x) in enumerate([("icount", 0.10), ("icount", 0.10),
                                           ("real", 0.10), ("real", 0.30)]):
                write_cell(d, f"c{i}", {"mode": mode}, {"runs": {"rtc": {"miss_rate": x}}})
            L = tables.noise_section(d)
        row = [x for x in L if x.startswith("| rtc | miss_rate")][0]
        self.assertIn("| 10.0%, 0% (2) |", row)
        self.assertIn("20.0%, 71% (2)", row)
        self.assertIn("no noise run", tables.noise_section("/nonexistent")[1])


class ReportMatrixTest(unittest.TestCase):
    """4 vCPUs and sched-rfc show up as their own tables/columns."""

    def test_4cpu_and_sched_rfc(self):
        with tempfile.TemporaryDirectory() as d:
            for cfg in ("menu", "teo", "sched", "sched-rfc"):
                for v in (2, 4):
                    for r in (1, 2):
                        name = f"{cfg}-{v}cpu-icount-r{r}"
                        meta = {"cell": name, "config": cfg, "vcpus": v,
                                "repeat": r, "seed": r, "mode": "icount", "shift": 0,
                                "workloads": {"rtc": 1}, "console": "x"}
                        run = {"miss_rate": 0.1 * r, "power_mw": 10.0 + r, "ct_p99_us": 50,
                               "states": {"C1": {"usage": 5, "time": 100, "above": 1,
                                                 "below": 0}},
                               "irqs": {"rtc0": 10}}
                        write_cell(d, name, meta, {"info": {"kernel": "6.12"},
                                                   "runs": {"rtc": run}})
            # a cell judged again (guest-image/judge.sh) counts as judged
            with open(os.path.join(d, "cells", "teo-4cpu-icount-r2", "verdict"), "w") as f:
                f.write("FAIL: console lacks 'x'\n")
            out = os.path.join(d, "results.md")
            report.build(d, out, "/nonexistent", workloads.table())
            with open(out) as f:
                text = f.read()
        self.assertIn("## rtc, 4 vCPU", text)
        self.assertIn("| metric | menu | teo | sched | sched-nolearn | sched-rfc |", text)
        self.assertIn("sched/sched-rfc", text)
        self.assertIn("selection cost per idle entry, all-in: no verdict", text)
        self.assertIn("- teo-4cpu-icount-r2: FAIL: console lacks 'x' (log: `x`)", text)
        # no run has a trace: the section says nothing was checked
        self.assertIn("## Oracle violations", text)
        self.assertIn("- no run could be checked", text)
        self.assertNotIn("physical limit", text)



class HeadlineTest(unittest.TestCase):
    def test_significance_mark(self):
        # sched against the better of menu and teo: a clear loss is marked,
        # a ratio within the repeats' spread is not
        def runs(ours):
            return {("dev", 2): {
                "menu": [{"power_mw": x} for x in (100, 101, 99, 100, 100)],
                "teo": [{"power_mw": x} for x in (120, 121, 119, 120, 120)],
                "sched": [{"power_mw": x} for x in ours]}}
        L = tables.headline(runs((110, 111, 109, 110, 110)), ["dev"], lambda w: True)
        row = [x for x in L if x.startswith("| dev |")][0]
        self.assertIn("| 1.10* MISS |", row)
        L = tables.headline(runs((60, 160, 80, 140, 110)), ["dev"], lambda w: True)
        row = [x for x in L if x.startswith("| dev |")][0]
        self.assertIn("| 1.10 MISS |", row)
        L = tables.headline(runs((90, 91, 89, 90, 90)), ["dev"], lambda w: True)
        row = [x for x in L if x.startswith("| dev |")][0]
        self.assertIn("| 0.90* ok |", row)


class TickTest(unittest.TestCase):
    """Tick stops and restarts per second: the patched configurations from
    their sched_idle counters, n/a for menu and teo."""

    @staticmethod
    def run_(stops=None, restarts=None, win=2.0):
        si = {"entries": 100, "err_early": 3, "err_good": 90, "err_late": 7}
        if stops is not None:
            si.update(tick_stops=stops, tick_restarts=restarts)
        return {"sched_idle": si, "window_s": win, "states": {}, "irqs": {}}

    def test_line(self):
        g = {"menu": [{"window_s": 2.0, "states": {}, "irqs": {}}],
             "teo": [{"window_s": 2.0, "states": {}, "irqs": {}}],
             # one run parsed with its rates, one only with its deltas
             "sched": [dict(self.run_(100, 10), tick_stops_per_s=50.0,
                            tick_restarts_per_s=5.0), self.run_(300, 30)],
             "sched-rfc": [self.run_(40, 0, win=4.0)]}
        line = tables.tick_line(g)
        self.assertIn("menu n/a; teo n/a; sched 100 stops/s, 10 restarts/s; "
                      "sched-rfc 10 stops/s, 0 restarts/s.", line)
        # beside err_early, err_good, err_late, after them
        L = tables.workload_tables(g, "dev", 2, [], {})
        si = [i for i, x in enumerate(L) if x.startswith("\nsched idle path")][0]
        self.assertIn("err_early 3, err_good 90, err_late 7, tick_stops 200, "
                      "tick_restarts 20", L[si])
        self.assertEqual(L[si + 1], "\n" + line)

    def test_older_kernel(self):
        # a patched kernel without the counters: said, not 0; the keys of
        # the run that has them still listed with that run's values
        g = {"sched": [self.run_(), self.run_(100, 10)], "sched-rfc": [self.run_()]}
        line = tables.tick_line(g)
        self.assertIn("sched 50 stops/s (over 1 of 2 runs), 5 restarts/s (over 1 of 2 runs)",
                      line)
        self.assertIn("sched-rfc not counted", line)
        L = tables.workload_tables(g, "dev", 2, [], {})
        self.assertTrue(any("err_late 7, tick_stops 100, tick_restarts 10" in x for x in L))
        # control: no run has them, no line at all
        g = {"menu": [{"states": {}, "irqs": {}}], "sched": [self.run_()]}
        self.assertIsNone(tables.tick_line(g))
        self.assertFalse(any("stops/s" in x for x in tables.workload_tables(g, "dev", 2, [], {})))

    def test_report(self):
        with tempfile.TemporaryDirectory() as d:
            for cfg in ("menu", "teo", "sched"):
                name = f"{cfg}-2cpu-icount-r1"
                meta = {"cell": name, "config": cfg, "vcpus": 2, "repeat": 1, "seed": 1,
                        "mode": "icount", "shift": 0, "workloads": {"dev2": 2},
                        "console": "x"}
                run = {"miss_rate": 0.1, "window_s": 2.0, "power_mw": 10.0, "ct_p99_us": 50,
                       "states": {"C1": {"usage": 5, "time": 100, "above": 1, "below": 0}},
                       "irqs": {"rtc0": 10}}
                if cfg == "sched":
                    run = dict(self.run_(64, 8), **run)
                write_cell(d, name, meta, {"info": {"kernel": "6.12"}, "runs": {"dev2": run}})
            out = os.path.join(d, "results.md")
            report.build(d, out, "/nonexistent", workloads.table())
            with open(out) as f:
                text = f.read()
        self.assertIn("Tick stops and restarts: ", text)
        self.assertIn("never restarts a stopped tick", text)
        self.assertIn("menu n/a; teo n/a; sched 32 stops/s, 4 restarts/s.", text)


class SeriesTest(unittest.TestCase):
    """The header names each kernel's series id and whether it is the
    checkout's series/; the headline's first line says when one is not."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.series = test_series.make(os.path.join(self.tmp, "series"))
        self.ids = series.ids(self.series)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def report(self, ids, rerun=None):
        """The report of a run of menu, teo (stock.bzImage) and sched
        (patched.bzImage), two repeats each, whose consoles' boot lines
        carry ids {(config, repeat): id or None (a kernel built without
        one)}, the checkout's ids otherwise; rerun: {(config, repeat): id}
        of a rerun boot's console in the cell."""
        bench = os.path.join(self.tmp, "run")
        shutil.rmtree(bench, ignore_errors=True)
        for cfg in ("menu", "teo", "sched"):
            for r in (1, 2):
                name = f"{cfg}-2cpu-icount-r{r}"
                kind = "patched" if cfg == "sched" else "stock"
                sid = ids.get((cfg, r), self.ids[kind])
                host = f"series-{sid}" if sid else "guest"
                work = os.path.join(bench, "cells", name + ".run")
                os.makedirs(work)
                with open(os.path.join(work, "console.log"), "w") as f:
                    f.write(f"BdsDxe: starting\n[    0.000000] Linux version 6.12.118 "
                            f"(idle@{host}) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP\n")
                if (cfg, r) in (rerun or {}):
                    os.makedirs(os.path.join(work, "rerun-1"))
                    with open(os.path.join(work, "rerun-1", "console.log"), "w") as f:
                        f.write("[    0.000000] Linux version 6.12.118 "
                                f"(idle@series-{rerun[(cfg, r)]}) (gcc\n")
                meta = {"cell": name, "config": cfg, "vcpus": 2, "repeat": r, "seed": r,
                        "mode": "icount", "shift": 0, "workloads": {"dev2": 2},
                        "console": "x", "kernel_sha256": kind[0] * 64}
                run = {"miss_rate": 0.1, "window_s": 2.0, "power_mw": 10.0 + r,
                       "ct_p99_us": 50, "irqs": {"rtc0": 10},
                       "states": {"C1": {"usage": 5, "time": 100, "above": 1, "below": 0}}}
                cells.finish(work, os.path.join(bench, "cells", name), meta, "PASS",
                             {"info": {"kernel": "6.12.118"}, "runs": {"dev2": run}})
        out = os.path.join(self.tmp, "results.md")
        report.build(bench, out, "/nonexistent", workloads.table(), series_dir=self.series)
        with open(out) as f:
            text = f.read().splitlines()
        kernels = {x.split(" ")[3]: x for x in text if x.startswith("  - ") and
                   ".bzImage (" in x}
        h = text.index("## Headline (2 vCPUs)")
        first = [x for x in text[h + 1:] if x][0]
        return kernels, first

    def test_checkout(self):
        kernels, first = self.report({})
        self.assertEqual(kernels["stock.bzImage"],
                         "  - stock.bzImage (menu, teo): 6.12.118, bzImage sha256 ssssssssssss; "
                         f"series {self.ids['stock']}, the checkout's series/")
        self.assertTrue(kernels["patched.bzImage"].endswith(
            f"series {self.ids['patched']}, the checkout's series/"))
        self.assertTrue(first.startswith("sched's mean divided by"), first)

    def test_other_patched(self):
        kernels, first = self.report({("sched", 1): "0123456789ab", ("sched", 2): "0123456789ab"})
        self.assertTrue(kernels["stock.bzImage"].endswith("the checkout's series/"))
        self.assertTrue(kernels["patched.bzImage"].endswith(
            f"series 0123456789ab, NOT the checkout's series/ (its id: {self.ids['patched']})"))
        self.assertTrue(first.startswith("**Not the checkout's series/**"), first)
        self.assertIn("patched.bzImage (sched): series 0123456789ab, NOT", first)
        self.assertNotIn("stock.bzImage", first)

    def test_without_ids(self):
        kernels, first = self.report({(c, r): None for c in ("menu", "teo", "sched")
                                      for r in (1, 2)})
        for k in kernels.values():
            self.assertTrue(k.endswith("series unknown (built without a series id)"), k)
        self.assertTrue(first.startswith("**Not the checkout's series/**"), first)
        self.assertIn("stock.bzImage (menu, teo): series unknown (built without", first)
        self.assertIn("patched.bzImage (sched): series unknown", first)

    def test_cells_disagree(self):
        # one kernel's cells with two ids: warned, not refused (the report
        # is still written, and says which ids and how many boots)
        kernels, first = self.report({("sched", 2): "0123456789ab"})
        want = (f"series ids disagree between its cells: 0123456789ab (1 boot), "
                f"{self.ids['patched']} (1 boot); NOT one series")
        self.assertTrue(kernels["patched.bzImage"].endswith(want), kernels)
        self.assertTrue(first.startswith("**Not the checkout's series/**"), first)
        self.assertIn(want, first)
        # a rerun boot of a kept cell counts as one of its boots; one
        # without an id disagrees with one with
        kernels, first = self.report({("menu", 1): None}, rerun={("teo", 2): "0123456789ab"})
        self.assertIn(f"series ids disagree between its cells: {self.ids['stock']} (3 boots), "
                      "none (1 boot), 0123456789ab (1 boot)", kernels["stock.bzImage"])
        self.assertTrue(first.startswith("**Not the checkout's series/**"), first)

    def test_checkout_unreadable(self):
        os.unlink(os.path.join(self.series, "c-one.patch"))
        kernels, first = self.report({("sched", 1): "0123456789ab", ("sched", 2): "0123456789ab",
                                      ("menu", 1): "0123456789ab", ("menu", 2): "0123456789ab",
                                      ("teo", 1): "0123456789ab", ("teo", 2): "0123456789ab"})
        self.assertIn("NOT known to be the checkout's series/ (", kernels["stock.bzImage"])
        self.assertIn("c-one.patch", first)


class WindowTextTest(unittest.TestCase):
    def test_windows_per_vcpus(self):
        from idlebench.report import prose
        self.assertEqual(prose.window_text({2: {1, 2}}), "2 s")
        self.assertEqual(prose.window_text({4: {2, 4}, 5: {1}}),
                         "5 s (1 vCPU), 4 s (2, 4 vCPUs)")
        self.assertEqual(prose.window_text({4: {2}, 5: {1}}), "5 s (1 vCPU), 4 s (2 vCPUs)")


if __name__ == "__main__":
    unittest.main()


class SourcesTest(unittest.TestCase):
    """A window's interrupt source outside the workloads' design fails the
    run: the i8042 probe is the control, the workloads' own sources pass."""

    def test_allowed(self):
        from idlebench.report import sources
        for s in ("LOC", "CAL", "RES", "TLB", "IWI", "16:irqgen0", "25:virtio0-input.0"):
            self.assertTrue(sources.allowed(s), s)
        for s in ("12:i8042", "8:rtc0", "0:timer", "NMI", "irqgen0", "x:irqgen0"):
            self.assertFalse(sources.allowed(s), s)
        # the RTC only where the workload asks for it
        table = workloads.table()
        self.assertTrue(sources.allowed("8:rtc0", table["rtc"]))
        self.assertFalse(sources.allowed("8:rtc0", table["idle"]))

    def build(self, irqs):
        with tempfile.TemporaryDirectory() as d:
            for cfg in ("menu", "sched"):
                for r in (1, 2):
                    name = f"{cfg}-2cpu-icount-r{r}"
                    meta = {"cell": name, "config": cfg, "vcpus": 2, "repeat": r,
                            "seed": r, "mode": "icount", "shift": 0, "workloads": {"idle": 1},
                            "console": "x"}
                    run = {"miss_rate": 0.1, "window_s": 2.0, "power_mw": 10.0,
                           "states": {"C1": {"usage": 5, "time": 100, "above": 1,
                                             "below": 0}},
                           "irqs": irqs(cfg, r)}
                    write_cell(d, name, meta, {"info": {"kernel": "6.12"},
                                               "runs": {"idle": run}})
            out = os.path.join(d, "results.md")
            bad = report.build(d, out, "/nonexistent", workloads.table())
            with open(out) as f:
                return bad, f.read()

    def test_workload_sources_pass(self):
        bad, text = self.build(lambda c, r: {"LOC": 400, "CAL": 60, "16:irqgen0": 0})
        self.assertEqual(bad, 0)
        self.assertIn("## Interrupt sources outside the design", text)
        self.assertIn("- none: every window held only the workloads' sources.", text)

    def test_probe_fails(self):
        # the control: menu's first run holds the PS/2 probe, sched's none
        bad, text = self.build(lambda c, r: dict({"LOC": 400},
                                                 **({"12:i8042": 32} if (c, r) == ("menu", 1)
                                                    else {})))
        self.assertEqual(bad, 1)
        self.assertIn("| idle | 2 | menu | 12:i8042 | 1 of 2 | 32 |", text)
