"""A boot keeps what it measured: one workload's missing or unparsable
output fails that workload only (parse.parse_cell), the rerun of such a
cell boots only what it lacks (cells.missing, bench.to_run) and merges
into it (cells.merge), and the report lists the failed workloads."""
import json
import os
import shutil
import tempfile
import unittest

from common import FIX
import bench
from idlebench import cells, launch, parse, report, workloads
from idlebench.cells import Cell

TABLE = workloads.table()
WORKS = [("idle", 1), ("timer", 1), ("rtc", 1), ("dev", 1)]
FILES = (("cyclictest.json", "cyclictest.json"), ("timehist.txt", "sched-timehist.txt"),
         ("states.before", "before.states"), ("states.after", "after.states"),
         ("emu.before", "before.emu"), ("emu.after", "after.emu"),
         ("interrupts.before", "before.interrupts"), ("interrupts.after", "after.interrupts"),
         ("trace.txt", "trace.txt"))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def results_dir(res, names):
    """A results directory as bench.sh writes it, every workload whole."""
    os.makedirs(res, exist_ok=True)
    write(os.path.join(res, "bench-info"),
          "kernel=6.12\ncpus=2\nworkloads= " + " ".join(f"{w}=1" for w in names) + "\n")
    shutil.copy(os.path.join(FIX, "emu-model"), os.path.join(res, "emu-model"))
    for w in names:
        d = os.path.join(res, w)
        os.makedirs(d)
        for src, dst in FILES:
            shutil.copy(os.path.join(FIX, src), os.path.join(d, dst))
        write(os.path.join(d, "window"), "start 10.00\nend 11.00\n")


def break_some(res):
    """timer: bench.sh marked it failed; rtc: perf's timehist kept no row
    (a recorder that started after the window); dev: no output at all."""
    write(os.path.join(res, "timer", "failed"),
          "perf sched record not recording after 30s (no ack to enable)\n"
          "log=timer/perf-record.log\n")
    write(os.path.join(res, "rtc", "sched-timehist.txt"), "Samples do not have callchains.\n")
    shutil.rmtree(os.path.join(res, "dev"))


class CellParseTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.res = os.path.join(self.tmp.name, "results")
        results_dir(self.res, [w for w, _ in WORKS])

    def tearDown(self):
        self.tmp.cleanup()

    def assertMarked(self, parsed, name, reason, log):
        """name is failed (not parsed) with a reason matching reason and log."""
        self.assertNotIn(name, parsed["runs"])
        self.assertIn(name, parsed["failed"])
        self.assertRegex(parsed["failed"][name]["reason"], reason)
        self.assertEqual(parsed["failed"][name]["log"], log)

    def test_one_workload_fails_the_others_are_kept(self):
        break_some(self.res)
        p = parse.parse_cell(self.res, [w for w, _ in WORKS])
        self.assertEqual(sorted(p["runs"]), ["idle"])
        self.assertEqual(p["runs"]["idle"]["idle_entries"], 190)
        self.assertMarked(p, "timer", "^perf sched record not recording after 30s",
                          "timer/perf-record.log")
        self.assertMarked(p, "rtc", "^parse: rtc/sched-timehist.txt: no perf sched timehist rows$",
                          "rtc/sched-timehist.txt")
        self.assertMarked(p, "dev", "^no output", "run.log")
        # one line each, and no path of the directory the boot ran in
        for f in p["failed"].values():
            self.assertNotIn("\n", f["reason"])
            self.assertNotIn(self.res, f["reason"])

    def test_names_default_to_bench_info(self):
        os.unlink(os.path.join(self.res, "idle", "cyclictest.json"))
        p = parse.parse_cell(self.res)
        self.assertEqual(sorted(p["runs"]), ["dev", "rtc", "timer"])
        self.assertMarked(p, "idle", "^parse: idle/cyclictest.json: cannot read", "idle")

    def test_control_a_whole_cell_marks_nothing(self):
        # the negative control: on a whole cell the check finds no mark,
        # and the mark check itself fails there, so it can fail at all
        p = parse.parse_cell(self.res, [w for w, _ in WORKS])
        self.assertEqual(sorted(p["runs"]), sorted(w for w, _ in WORKS))
        self.assertEqual(p["failed"], {})
        with self.assertRaises(AssertionError):
            self.assertMarked(p, "rtc", ".", "rtc/sched-timehist.txt")

    def test_a_boot_without_bench_info_still_fails_whole(self):
        os.unlink(os.path.join(self.res, "bench-info"))
        with self.assertRaisesRegex(parse.ParseError, "bench-info: cannot read"):
            parse.parse_cell(self.res)


class RerunTest(unittest.TestCase):
    """A kept cell lacking some workloads: the plan boots only those, the
    boot merges into the cell, the report lists what still failed."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.kernels = os.path.join(t, "kernels")
        os.makedirs(self.kernels)
        write(os.path.join(self.kernels, "stock.bzImage"), "kernel")
        self.image = os.path.join(t, "initramfs.cpio")
        write(self.image, "image")
        self.bench = os.path.join(t, "bench")
        self.cells_dir = os.path.join(self.bench, "cells")
        self.cell = Cell("menu", 2, 1, "icount", list(WORKS))
        self.setup = launch.Setup(TABLE, self.kernels, self.image, "", "")
        self.final = os.path.join(self.cells_dir, self.cell.name)
        # the first boot, finished as launch.run finishes it
        work = self.final + ".run"
        results_dir(os.path.join(work, "results"), [w for w, _ in WORKS])
        break_some(os.path.join(work, "results"))
        parsed, verdict = launch.collect(self.cell, self.final, os.path.join(work, "results"))
        self.assertIsNone(verdict)
        self.meta = {"cell": self.cell.name, "config": "menu", "vcpus": 2, "repeat": 1,
                     "seed": 1, "mode": "icount", "shift": 0, "workloads": dict(WORKS),
                     "kernel_sha256": cells.file_id(os.path.join(self.kernels, "stock.bzImage")),
                     "image_sha256": cells.file_id(self.image),
                     "cmdline": launch.kernel_cmdline(self.cell, self.setup),
                     "console": os.path.join(self.final, "console.log")}
        cells.finish(work, self.final, self.meta, "PASS", parsed)

    def tearDown(self):
        self.tmp.cleanup()

    def plan(self, cell=None):
        return bench.to_run(cell or self.cell, self.cells_dir, self.kernels, self.image,
                            self.setup)

    def rerun(self, broken=()):
        """The rerun boot of what the plan asks for, merged; broken: the
        workloads that fail again."""
        c = self.plan()
        work = self.final + ".run"
        res = os.path.join(work, "results")
        results_dir(res, list(c.only))
        for w in broken:
            os.unlink(os.path.join(res, w, "cyclictest.json"))
        parsed, verdict = launch.collect(c, self.final, res)
        boot = {"workloads": list(c.only), "wall_s": 1.0, "cmdline": "", "console": ""}
        cells.merge(work, self.final, boot, verdict or "PASS", parsed)

    def test_the_rerun_runs_only_what_is_missing(self):
        c = self.plan()
        self.assertEqual(c.name, self.cell.name)
        self.assertEqual(c.only, ("timer", "rtc", "dev"))
        self.assertEqual(c.boot_works, [("timer", 1), ("rtc", 1), ("dev", 1)])
        words = launch.guest_words(c, TABLE)
        self.assertIn("rtc=1", words)
        self.assertNotIn("idle=1", words)
        self.assertNotIn("idle=1", launch.kernel_cmdline(c, self.setup))

    def test_control_a_whole_or_changed_cell(self):
        # nothing missing: nothing to run
        self.rerun()
        self.assertIsNone(self.plan())
        # another seed (or kernel, image, command line): the whole cell
        other = Cell("menu", 2, 1, "icount", list(WORKS), seed=2)
        self.assertIs(self.plan(other), other)

    def test_merge(self):
        self.rerun(broken=["dev"])
        p = cells.read_json(os.path.join(self.final, "parsed.json"))
        self.assertEqual(sorted(p["runs"]), ["idle", "rtc", "timer"])
        self.assertEqual(sorted(p["failed"]), ["dev"])
        self.assertEqual(p["failed"]["dev"]["log"], "rerun-1/results/dev")
        # the rerun's output is in the cell's results, the failed attempt kept aside
        self.assertTrue(os.path.exists(os.path.join(self.final, "results", "rtc", "window")))
        with open(os.path.join(self.final, "results", "rtc", "sched-timehist.txt")) as f:
            self.assertIn("sch delay", f.read())
        self.assertTrue(os.path.isdir(os.path.join(self.final, "rerun-1", "replaced", "rtc")))
        meta = cells.read_json(os.path.join(self.final, "meta.json"))
        self.assertEqual(meta["reruns"][0]["workloads"], ["timer", "rtc", "dev"])
        self.assertEqual(meta["workloads"], dict(WORKS))
        # the next plan: dev alone, into rerun-2
        self.assertEqual(self.plan().only, ("dev",))
        self.rerun()
        self.assertIsNone(self.plan())
        self.assertTrue(os.path.isdir(os.path.join(self.final, "rerun-2")))
        self.assertEqual(cells.failed_workloads(self.bench), [])

    def test_a_failed_rerun_boot_keeps_the_cell(self):
        c = self.plan()
        work = self.final + ".run"
        os.makedirs(work)
        write(os.path.join(work, "console.log"), "hung\n")
        boot = {"workloads": list(c.only), "wall_s": 1.0, "cmdline": "", "console": ""}
        cells.merge(work, self.final, boot, "FAIL: hung, no output for 120 s", None)
        p = cells.read_json(os.path.join(self.final, "parsed.json"))
        self.assertEqual(sorted(p["runs"]), ["idle"])
        self.assertEqual(p["failed"]["rtc"], {"reason": "rerun boot: FAIL: hung, no output for 120 s",
                                              "log": "rerun-1/console.log"})
        self.assertEqual(self.plan().only, ("timer", "rtc", "dev"))

    def test_report_lists_failed_workloads(self):
        got = cells.failed_workloads(self.bench)
        self.assertEqual([(c, w) for c, w, _, _ in got],
                         [(self.cell.name, "dev"), (self.cell.name, "rtc"),
                          (self.cell.name, "timer")])
        out = os.path.join(self.tmp.name, "results.md")
        report.build(self.bench, out, "/nonexistent", TABLE)
        with open(out) as f:
            text = f.read()
        self.assertIn("## Failed workloads", text)
        self.assertIn(f"- {self.cell.name} timer: perf sched record not recording after 30s "
                      f"(no ack to enable) (log: `{self.final}/results/timer/perf-record.log`)",
                      text)
        self.assertIn(f"- {self.cell.name} rtc: parse: rtc/sched-timehist.txt: no perf sched "
                      f"timehist rows (log: `{self.final}/results/rtc/sched-timehist.txt`)", text)
        # the kept workload is reported
        self.assertIn("## idle, 2 vCPU", text)
        self.assertNotIn("## Failed boots", text)


if __name__ == "__main__":
    unittest.main()
