"""Run directories: each bench run writes build/bench/DATE[-quick] and
moves build/bench/latest to it (cells.new_run), a run is found by path or
name (cells.find_run), --resume boots only what a run lacks, with the
arguments it was started with (bench.py), and report.py reads any run
and refuses a directory without a finished cell with one line."""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

from common import HERE
import bench
from idlebench import cells, launch, workloads
from test_report import write_cell

REPORT = os.path.join(os.path.dirname(HERE), "report.py")
# 2026-12-06 07:30:00 UTC
START = 1796542200


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


class RunDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "bench")

    def tearDown(self):
        self.tmp.cleanup()

    def test_named_by_date_latest_follows(self):
        a = cells.new_run(self.root, False, START)
        self.assertEqual(os.path.basename(a), "2026.12.06-07.30.00")
        b = cells.new_run(self.root, True, START + 61)
        self.assertEqual(os.path.basename(b), "2026.12.06-07.31.01-quick")
        # latest is a link, relative, to the newest
        self.assertEqual(os.readlink(os.path.join(self.root, "latest")),
                         "2026.12.06-07.31.01-quick")
        # found by name, by path, through the link (the run, not the link)
        self.assertEqual(cells.find_run("latest", self.root), b)
        self.assertEqual(cells.find_run("2026.12.06-07.30.00", self.root), a)
        self.assertEqual(cells.find_run(a, self.root), a)
        self.assertEqual(cells.find_run(os.path.join(self.root, "latest"), self.root), b)

    def test_control_no_such_run(self):
        # no run yet: latest is missing; a second run in the same second
        with self.assertRaisesRegex(cells.RunError, "no run directory .*latest"):
            cells.find_run("latest", self.root)
        cells.new_run(self.root, False, START)
        with self.assertRaisesRegex(cells.RunError, "exists already"):
            cells.new_run(self.root, False, START)
        with self.assertRaisesRegex(cells.RunError, "no run directory"):
            cells.find_run("2026.12.06-07.30.01", self.root)


class ReportRunTest(unittest.TestCase):
    """report.py --run: a run's cells are read, a directory without any
    is refused with one line (and no report is written)."""

    def report(self, run, out):
        return subprocess.run([sys.executable, REPORT, "--run", run, "--out", out,
                               "--noise", "/nonexistent"],
                              capture_output=True, text=True)

    def test_no_cells_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out", "results.md")
            r = self.report(d, out)
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertRegex(r.stderr, r"^report: error: .* has no finished cell")
            self.assertFalse(os.path.exists(out))
            r = self.report(os.path.join(d, "nosuch"), out)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertRegex(r.stderr, r"^report: error: no run directory ")

    def test_control_a_run_with_a_cell(self):
        # the same call on a directory with one finished cell reports it
        with tempfile.TemporaryDirectory() as d:
            meta = {"cell": "menu-2cpu-icount-r1", "config": "menu", "vcpus": 2, "repeat": 1,
                    "seed": 1, "mode": "icount", "shift": 0, "workloads": {"rtc": 1},
                    "console": "x"}
            run = {"miss_rate": 0.1, "power_mw": 10.0, "ct_p99_us": 50, "irqs": {"8:rtc0": 10},
                   "states": {"C1": {"usage": 5, "time": 100, "above": 1, "below": 0}}}
            write_cell(d, meta["cell"], meta, {"info": {"kernel": "6.12"}, "runs": {"rtc": run}})
            out = os.path.join(d, "out", "results.md")
            r = self.report(d, out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                text = f.read()
            self.assertIn(f"from the runs under `{os.path.relpath(d, workloads.TOP)}/cells/`",
                          text)
            self.assertIn("## rtc, 2 vCPU", text)


class ResumeTest(unittest.TestCase):
    """bench.py makes a new run directory; --resume boots, in it, only the
    cells it lacks, as the run was asked for; boots and the guest image
    are stand-ins."""

    ARGS = ["--configs", "menu", "--vcpus", "2", "--repeats", "2", "--workloads", "idle,timer",
            "--timing", "icount", "--no-cost", "--no-report"]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.kernels = os.path.join(t, "kernels")
        os.makedirs(self.kernels)
        write(os.path.join(self.kernels, "stock.bzImage"), "kernel")
        self.initrd = os.path.join(t, "initramfs.cpio")
        write(self.initrd, "image")
        self.saved = cells.RUNS, bench.build_inputs, bench.run_all
        cells.RUNS = os.path.join(t, "bench")
        bench.build_inputs = lambda run: (self.initrd, "/udpgen", "/disk.img")
        self.booted = []
        bench.run_all = self.boot

    def tearDown(self):
        cells.RUNS, bench.build_inputs, bench.run_all = self.saved
        self.tmp.cleanup()

    def boot(self, todo, setup, cells_dir, jobs):
        """Stands for run_all: every cell but r2 finishes whole."""
        self.booted.append([c.name for c in todo])
        for c in todo:
            if c.repeat == 2 and len(self.booted) == 1:
                continue
            meta = {"cell": c.name, "config": c.config, "vcpus": c.vcpus, "repeat": c.repeat,
                    "seed": c.seed, "mode": c.mode, "workloads": dict(c.works),
                    "kernel_sha256": cells.file_id(os.path.join(self.kernels, "stock.bzImage")),
                    "image_sha256": cells.file_id(self.initrd),
                    "cmdline": launch.kernel_cmdline(c, setup)}
            work = os.path.join(cells_dir, c.name + ".run")
            os.makedirs(work)
            cells.finish(work, os.path.join(cells_dir, c.name), meta, "PASS",
                         {"runs": {w: {} for w, _ in c.works}, "failed": {}})
        return 1.0

    def main(self, argv):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            bench.main(argv)
        return out.getvalue()

    def test_new_run_then_resume(self):
        out = self.main(self.ARGS + ["--kernels", self.kernels])
        runs = [x for x in os.listdir(cells.RUNS) if x != "latest"]
        self.assertEqual(len(runs), 1)
        self.assertRegex(runs[0], r"^\d{4}\.\d\d\.\d\d-\d\d\.\d\d\.\d\d$")
        run = os.path.join(cells.RUNS, runs[0])
        self.assertEqual(cells.find_run("latest"), run)
        self.assertIn(f"run directory {os.path.relpath(run, workloads.TOP)}", out)
        self.assertEqual(self.booted, [["menu-2cpu-icount-r1", "menu-2cpu-icount-r2"]])
        # the resumed run: its own arguments, only what it lacks, no new directory
        self.main(["--resume", "--jobs", "1", "--no-report"])
        self.assertEqual(self.booted[1], ["menu-2cpu-icount-r2"])
        self.assertEqual(sorted(os.listdir(cells.RUNS)), sorted(runs + ["latest"]))
        self.assertEqual(sorted(os.listdir(os.path.join(run, "cells"))),
                         ["menu-2cpu-icount-r1", "menu-2cpu-icount-r2"])
        # whole now: nothing left to boot
        self.main(["--resume", runs[0], "--no-report"])
        self.assertEqual(self.booted[2], [])

    def test_control_resume_refuses_another_matrix(self):
        self.main(self.ARGS + ["--kernels", self.kernels])
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit):
            self.main(["--resume", "--repeats", "3"])
        self.assertEqual(err.getvalue().count("\n"), 1)
        self.assertIn("--repeats does not go with it", err.getvalue())
        # a directory that is no run
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit):
            self.main(["--resume", self.kernels])
        self.assertIn("has no run.json", err.getvalue())
        self.assertEqual(len(self.booted), 1)


if __name__ == "__main__":
    unittest.main()
