"""Unit tests of the two tables (workloads.toml, configs.py) and of what
launch.py makes of a cell: guest words, kernel command line, devices, the
host traffic that the guest's sync line starts."""
import contextlib
import dataclasses
import io
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from common import boot_words
import bench
from idlebench import configs, launch, plan, workloads
from idlebench.cells import Cell
from idlebench.configs import CONFIGS

TABLE = workloads.table()


def setup(table=TABLE):
    return launch.Setup(table, "/k", "/i.cpio", "/d.img", "/udpgen")


def user_file(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    f.write(text)
    f.close()
    return f.name


class TableTest(unittest.TestCase):
    def test_builtin(self):
        self.assertEqual([w for w, x in TABLE.items() if x.default],
                         ["idle", "timer", "dev", "dev2", "devburst", "devpoisson", "devonoff",
                          "devstorage", "devmix", "ipi", "net", "mixed"])
        self.assertTrue(TABLE["dev2"].device and TABLE["rtc"].device and TABLE["mixed"].device)
        self.assertFalse(TABLE["timer"].device or TABLE["ipi"].device)
        self.assertEqual(TABLE["ipi"].timing, "icount")
        self.assertEqual(TABLE["net2"].traffic.udpgen_args([5001, 5002]),
                         ["-m", "two", "-p", "5001", "-P", "1000", "-q", "5002", "-Q", "2700"])
        self.assertEqual(TABLE["netpoisson"].traffic.udpgen_args([5001, 5002]),
                         ["-m", "poisson", "-p", "5001", "-P", "1000", "-s", "7"])
        self.assertEqual(TABLE["ipi"].mode("icount"), "icount")
        self.assertEqual(TABLE["mixed"].mode("icount"), "real")
        self.assertEqual(TABLE["ipi"].mode("mixed"), "icount")
        self.assertEqual(TABLE["ipi"].mode("real"), "real")
        self.assertEqual(CONFIGS["sched-rfc"].vcpus, (1, 2, 4))
        # the counts are shared/lib.sh's, read from its one line
        self.assertEqual(configs.VCPUS, (1, 2, 4))
        self.assertEqual(CONFIGS["sched-rfc"].vcpus, configs.VCPUS)
        with tempfile.NamedTemporaryFile("w", suffix=".sh") as f:
            f.write('GUEST_VCPUS="1 3"\n')
            f.flush()
            self.assertEqual(configs.guest_vcpus(f.name), (1, 3))
            # control: a file without the line is refused
            f.seek(0)
            f.truncate()
            f.write('VCPUS="1 3"\n')
            f.flush()
            with self.assertRaisesRegex(RuntimeError, "no GUEST_VCPUS="):
                configs.guest_vcpus(f.name)

    def test_the_launcher_takes_the_same_counts(self):
        # run-qemu.sh's -c check, which stops before any boot: each count
        # of configs.VCPUS gets past it (to the bad -T after it), and the
        # control, a count not among them, is refused by it
        def refusal(n):
            with tempfile.TemporaryDirectory() as d:
                f = os.path.join(d, "f")
                open(f, "w").close()
                r = subprocess.run(["sh", launch.RUN_QEMU, "-k", f, "-i", f, "-o",
                                    os.path.join(d, "out"), "-c", str(n), "-T", "none"],
                                   capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0)
            return r.stderr.strip()
        for n in configs.VCPUS:
            self.assertEqual(refusal(n), "run-qemu.sh: error: -T takes single or multi, "
                             "not 'none'", n)
        self.assertEqual(refusal(3), "run-qemu.sh: error: -c takes a vCPU count of "
                         f"{' '.join(map(str, configs.VCPUS))}, not '3'")

    def test_guest_words(self):
        # one function makes them all, from the cell: its windows, not the table's
        def words(works, mode="icount"):
            return launch.guest_words(Cell("menu", 2, 1, mode, works), TABLE)
        # each generator source's seed, from the cell's: the host's
        self.assertEqual(words([("dev2", 1)]), [
            "set.phase=7919", "dev2=1", "dev2.ct=10100",
            "dev2.gen=cpu=0,proc=periodic,period_us=1000,jitter_us=50,seed=64",
            "dev2.gen=cpu=0,proc=periodic,period_us=1500,jitter_us=75,seed=65"])
        seeded = launch.guest_words(Cell("menu", 2, 3, "icount", [("dev", 1), ("dev2", 1)]),
                                    TABLE)
        self.assertEqual([w.rsplit(",", 1)[1] for w in seeded if ".gen=" in w],
                         ["seed=192", "seed=192", "seed=193"])
        # the traffic's duration: the window and its margin, the host's
        self.assertEqual(words([("net2", 2)], "real")[-2:],
                         ["net2.udp=5001,5002", "net2.udpsecs=5"])
        self.assertEqual(words([("mixed", 1)], "real"),
                         ["set.phase=7919", "nic=52-54-00-00-be-01,10.0.2.15/24",
                          "nic=52-54-00-00-be-02,10.0.3.15/24",
                          "mixed=1", "mixed.ct=1000", "mixed.pipeper=1000", "mixed.udp=5001",
                          "mixed.udpsecs=4"])
        self.assertIn("devmix.pipeper=1300", words([("devmix", 2)]))
        self.assertEqual(words([("timer", 7)])[1], "timer=7")
        self.assertNotIn("devmixpipe", TABLE)
        # the windows' phase, from the cell's seed: the host's; another
        # seed, another phase
        self.assertEqual([w for w in seeded if w.startswith("set.")],
                         [f"set.phase={launch.window_phase_us(3)}"])
        self.assertEqual(launch.window_phase_us(3), 3757)
        self.assertNotEqual(launch.window_phase_us(3), launch.window_phase_us(4))
        # the pipe's round trips in all: the table's per second times the
        # cell's window, not the table's
        p = user_file('[pp]\ntiming = "icount"\nseconds = 5\npipe_loops = 300\n')
        try:
            t = workloads.table(p)
        finally:
            os.unlink(p)
        self.assertIn("pp.pipe=600", launch.guest_words(Cell("menu", 2, 1, "icount",
                                                              [("pp", 2)]), t))

    def test_user_file(self):
        p = user_file('[twodev]\ntiming = "icount"\nseconds = 3\n'
                      'gen = ["cpu=0 proc=periodic period_us=700", "cpu=last proc=poisson mean_us=2000"]\n')
        try:
            t = workloads.table(p)
        finally:
            os.unlink(p)
        self.assertIn("twodev", t)
        self.assertIn("dev2", t)  # the built-in ones stay
        self.assertEqual(t["twodev"].seconds, 3)
        self.assertTrue(t["twodev"].device)

    def test_bad_files(self):
        for text, msg in (
                ('[x]\ntiming = "icount"\n', "seconds is missing"),
                ('[x]\ntiming = "sometimes"\nseconds = 1\n', "timing must be"),
                ('[x]\ntiming = "icount"\nseconds = 1\ncolour = 3\n', "unknown key colour"),
                ('[x]\ntiming = "icount"\nseconds = 0\n', "seconds must be a positive"),
                ('[x]\ntiming = "icount"\nseconds = 1\ntraffic = { mode = "periodic", '
                 'period_us = 1000 }\n', "no meaning under -icount"),
                ('[x]\ntiming = "icount"\nseconds = 1\ngen = ["cpu=0 seed=3"]\n', "no seed="),
                ('[X]\ntiming = "icount"\nseconds = 1\n', "lower-case"),
                ('x = 1\n', "not a table"),
                ('[x\n', "not TOML")):
            p = user_file(text)
            try:
                with self.assertRaisesRegex(workloads.WorkloadError, msg):
                    workloads.load(p)
            finally:
                os.unlink(p)
        with self.assertRaisesRegex(workloads.WorkloadError, "cannot read"):
            workloads.load("/nonexistent.toml")


class GenListsTest(unittest.TestCase):
    """perf-scripts/workloads.lists is what gen-lists.py writes, and its
    storage list has the shape the script's docstring says."""
    SCRIPT = os.path.join(workloads.TOP, "perf-scripts", "gen-lists.py")

    def run_check(self, path):
        return subprocess.run(["python3", self.SCRIPT, "--check", "-o", path],
                              capture_output=True, text=True)

    def test_the_file_is_the_scripts(self):
        r = self.run_check(os.path.join(workloads.TOP, "perf-scripts", "workloads.lists"))
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_control_an_edited_file(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "workloads.lists")
            shutil.copy(os.path.join(workloads.TOP, "perf-scripts", "workloads.lists"), p)
            with open(p, "a") as f:
                f.write("# edited\n")
            r = self.run_check(p)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is not what gen-lists.py writes", r.stderr)

    def test_storage_shape(self):
        iv = [int(x) for x in workloads.read_lists(TABLE["devstorage"].lists)["storage"].split(",")]
        short = [x for x in iv if x <= 90]
        # a burst's gaps (40-90 us, or less where two bursts overlap) and
        # the waits between requests (exponential, mean 1.2 ms)
        self.assertGreater(len(short), len(iv) // 3)
        self.assertAlmostEqual(sum(iv) / 1e6, 20, delta=0.1)
        self.assertGreater(len(iv) / 20, 1000 / 1.2 * 1.5)


class LaunchTest(unittest.TestCase):
    def test_icount_cell(self):
        c = Cell("sched-debug", 2, 1, "icount", [("timer", 1), ("block", 2)], seed=9)
        line = launch.kernel_cmdline(c, setup())
        self.assertEqual(boot_words(c, setup()), "set.perf=0:set.phase=1271:timer=1:"
                         "timer.ct=1100:block=2:block.ct=10100:block.blk=3000")
        self.assertIn(CONFIGS["sched-debug"].args, line)
        self.assertNotIn("tsc=reliable", line)
        dev = launch.qemu_devices(c, setup())
        self.assertEqual(dev, ["-H", "8", "-D", "/d.img"])
        cmd = launch.run_qemu_cmd(c, setup(), "/w")
        self.assertEqual(cmd[cmd.index("-e") + 1], "interrupt rule adaptive, learning")
        self.assertEqual(cmd[cmd.index("-I") + 1], "0")

    def test_real_cell_with_traffic(self):
        c = Cell("menu", 2, 1, "real", [("net", 1)])
        line = launch.kernel_cmdline(c, setup())
        self.assertIn("nic=52-54-00-00-be-01,10.0.2.15/24", boot_words(c, setup()))
        self.assertTrue(line.endswith("tsc=reliable"))
        self.assertEqual(launch.qemu_devices(c, setup()), [
            "-H", "8", "-N", "5001:10.0.2.15:52:54:00:00:be:01",
            "-N", "5002:10.0.3.15:52:54:00:00:be:02"])
        cmd = launch.run_qemu_cmd(c, setup(), "/w")
        self.assertEqual(cmd[cmd.index("-g") + 1], "menu")
        self.assertNotIn("-I", cmd)

    def test_cost_cell_and_limit(self):
        c = Cell("menu", 2, 1, "cost", [("block", 2), ("dev2", 2)])
        line = launch.kernel_cmdline(c, setup())
        self.assertIn("cpuidle_cost.enable=1", line)
        self.assertNotIn("trace_event=", line)
        self.assertIn("dev2=2", boot_words(c, setup()))
        # the words of a boot of every -icount workload, four times, come
        # in their file: the line is as long as one of a single workload's
        many = [(w, 1) for w in TABLE if TABLE[w].timing == "icount"] * 4
        big = Cell("menu", 2, 1, "icount", many)
        self.assertGreater(len(boot_words(big, setup())), launch.CMDLINE_MAX)
        self.assertEqual(len(launch.kernel_cmdline(big, setup())),
                         len(launch.kernel_cmdline(Cell("menu", 2, 1, "icount", [("idle", 1)]),
                                                   setup())))
        # control: boot options that outgrow the line are refused, one line
        saved = CONFIGS["menu"]
        CONFIGS["menu"] = dataclasses.replace(saved, args=saved.args + " x" * 800)
        try:
            with self.assertRaisesRegex(launch.LaunchError, r"^cell menu-2cpu-icount-r1: the "
                                        r"kernel command line would be \d+ bytes, over the "
                                        r"kernel's 2048: configuration menu's boot options"):
                launch.kernel_cmdline(big, setup())
        finally:
            CONFIGS["menu"] = saved


def recordings_argv(makefile=os.path.join(workloads.TOP, "Makefile")):
    """bench.py's arguments of `make bench-recordings` (its recipe in the
    Makefile), $(RECORDED) the corpus's workloads, without --out and
    $(BENCH_ARGS)."""
    with open(makefile) as f:
        m = re.search(r"^bench-recordings:[^\n]*\n\t@python3 perf-scripts/bench\.py "
                      r"((?:[^\n]*\\\n)*[^\n]*)", f.read(), re.M)
    if not m:
        raise AssertionError(f"{makefile} has no bench-recordings recipe running bench.py")
    argv = m.group(1).replace("\\\n", " ").split()
    argv = argv[:argv.index("--out")]
    return [",".join(workloads.corpus()) if a == "$(RECORDED)" else a for a in argv]


class RecordingsBootTest(unittest.TestCase):
    """make bench-recordings: the five real recordings of
    perf-scripts/recordings/ in one boot per cell.  Their words alone
    outgrow the kernel's command line (x86 COMMAND_LINE_SIZE, 2,048
    bytes); each boot's line fits, it names the file of the boot's
    archive that carries every word, and the plan's dry run passes.  The
    control: boot options that do not fit stop the dry run with one line,
    before it prints its plan."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.kernels = os.path.join(self.tmp, "kernels")
        os.makedirs(self.kernels)
        for img in ("stock.bzImage", "patched.bzImage"):
            with open(os.path.join(self.kernels, img), "w") as f:
                f.write("kernel")
        self.argv = recordings_argv() + ["--kernels", self.kernels]

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def dry_run(self):
        """bench.py --dry-run of make bench-recordings: (exit status,
        stdout, stderr)."""
        out, err, code = io.StringIO(), io.StringIO(), 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                bench.main(self.argv + ["--dry-run"])
            except SystemExit as e:
                code = e.code
        return code, out.getvalue(), err.getvalue()

    def test_the_recordings_boot_together(self):
        names = list(workloads.corpus())
        self.assertEqual(len(names), 5)
        planned = plan.plan(bench.request(bench.arguments(self.argv), TABLE), TABLE)
        # one boot per cell: menu, teo and sched, 5 seeds each
        self.assertEqual(len(planned), 15)
        s = setup()
        for c in planned:
            self.assertEqual([w for w, _ in c.boot_works], names, c.name)
            words = ":".join(launch.guest_words(c, TABLE))
            line = launch.kernel_cmdline(c, s)
            self.assertLessEqual(len(line) + 150, launch.CMDLINE_MAX, c.name)
            self.assertEqual(boot_words(c, s), words, c.name)
            # the data is the case: the words on the line would not fit
            inline = line.replace(f"guest.args=@/{launch.words_file(c, TABLE)[0]}",
                                  f"guest.args={words}")
            self.assertGreater(len(inline) + 150, launch.CMDLINE_MAX, c.name)
        code, out, err = self.dry_run()
        self.assertEqual((code, err), (0, ""))
        self.assertIn("15 cells, 0 already done, 15 to run", out)

    def test_control_boot_options_that_do_not_fit(self):
        saved = CONFIGS["teo"]
        CONFIGS["teo"] = dataclasses.replace(saved, args=saved.args + " x" * 800)
        try:
            code, out, err = self.dry_run()
        finally:
            CONFIGS["teo"] = saved
        self.assertEqual(code, 2)
        self.assertRegex(err, r"^bench: error: cell teo-2cpu-icount-r1: the kernel command line "
                         r"would be \d+ bytes, over the kernel's 2048: configuration teo's boot "
                         r"options \(idlebench/configs.py args\) are too long\n$")
        self.assertNotIn("cells,", out)


# udpgen's stand-in: its arguments, one line
UDPGEN = "#!/bin/sh\necho \"$@\"\n"
BENCH_SH = os.path.join(workloads.TOP, "guest-image", "guest", "bench.sh")


class TrafficSyncTest(unittest.TestCase):
    """The guest's sync line carries the workload's name only: udpgen gets
    the window from the cell the host launched, and a name that is no
    workload with traffic of that boot is refused with one line."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.udpgen = os.path.join(t, "udpgen")
        with open(self.udpgen, "w") as f:
            f.write(UDPGEN)
        os.chmod(self.udpgen, 0o755)
        self.console = os.path.join(t, "console.log")
        self.cell = Cell("menu", 2, 1, "real", [("timer", 1), ("net", 5), ("net2", 2)])
        self.s = launch.Setup(TABLE, "/k", "/i.cpio", "/d.img", self.udpgen)
        self.fmt = os.path.join(t, "udpgen-{}.log")

    def tearDown(self):
        self.tmp.cleanup()

    def feed(self, text):
        th = launch.TrafficThread(self.console, self.cell, self.s, self.fmt)
        procs = []
        th.feed(text, procs)
        for p in procs:
            p.wait()
        return th, len(procs)

    def sent(self, name):
        with open(self.fmt.format(name)) as f:
            return f.read().split()

    def test_the_guest_line_starts_the_cells_window(self):
        # bench.sh's own line, as the console shows it
        with open(BENCH_SH) as f:
            line = [x.strip() for x in f if "bench-sync: start" in x and "echo" in x]
        self.assertEqual(line, ['echo "bench-sync: start $name" >/dev/kmsg'])
        th, n = self.feed("[   12.5] bench-sync: start net\r\n[   14.0] bench-sync: start net2\n"
                          "[   14.1] bench-sync: start net\n")
        self.assertIsNone(th.error)
        self.assertEqual(n, 2)
        # udpgen sends as long as the guest's receiver listens: the
        # udpsecs word the boot carries
        words = launch.guest_words(self.cell, TABLE)
        got = self.sent("net")
        self.assertEqual(got[got.index("-d") + 1], "8")   # the cell's 5 s, and the margin
        self.assertIn("net.udpsecs=8", words)
        self.assertEqual(got[:6], ["-m", "periodic", "-p", "5001", "-P", "1000"])
        got = self.sent("net2")
        self.assertEqual(got[got.index("-d") + 1], "5")
        self.assertIn("net2.udpsecs=5", words)

    def test_control_a_name_the_host_did_not_give(self):
        # mixed: a workload with traffic, but not of this boot; timer: of
        # this boot, without traffic; nothing starts, one line says why
        for name in ("mixed", "timer"):
            th, n = self.feed(f"bench-sync: start {name}\n")
            self.assertEqual(n, 0)
            self.assertFalse(os.path.exists(self.fmt.format(name)))
            self.assertEqual(th.error, f"FAIL: bench-sync names '{name}', not a workload with "
                             "traffic of menu-2cpu-real-r1 (net,net2)")
        # a rerun boot of timer alone has no traffic workload at all
        self.cell = dataclasses.replace(self.cell, only=("timer",))
        th, n = self.feed("bench-sync: start net\n")
        self.assertEqual(n, 0)
        self.assertRegex(th.error, r"^FAIL: bench-sync names 'net', .* \(none\)$")

    def test_the_thread_follows_the_console(self):
        th = launch.TrafficThread(self.console, self.cell, self.s, self.fmt)
        th.start()
        try:
            with open(self.console, "w") as f:
                f.write("bench-sync: start net2\nbench-sync: start nope\n")
            for _ in range(50):
                if th.error and os.path.exists(self.fmt.format("net2")):
                    break
                time.sleep(0.1)
        finally:
            th.stop.set()
            th.join()
        self.assertIn("'nope'", th.error)
        self.assertIn("-d", self.sent("net2"))


# run-qemu.sh's stand-in: the guest's sync line on the console, then PASS
RUN_QEMU = r"""#!/bin/sh
while [ $# -gt 0 ]; do
	case "$1" in -o) o=$2; shift ;; esac
	shift
done
mkdir -p "$o"
echo "[    9.9] bench-sync: start $SYNC_NAME" >>"$o/console.log"
sleep 0.6
echo PASS >"$o/verdict"
"""


class TrafficVerdictTest(unittest.TestCase):
    """launch.run: the refused sync line is the cell's verdict."""
    setUp, tearDown = TrafficSyncTest.setUp, TrafficSyncTest.tearDown

    def boot(self, name):
        t = self.tmp.name
        stub = os.path.join(t, "run-qemu.sh")
        with open(stub, "w") as f:
            f.write(RUN_QEMU)
        os.chmod(stub, 0o755)
        for f in ("stock.bzImage", "i.cpio"):
            with open(os.path.join(t, f), "w") as fh:
                fh.write(f)
        s = launch.Setup(TABLE, t, os.path.join(t, "i.cpio"), "/d.img", self.udpgen)
        cells_dir = os.path.join(t, "cells")
        os.makedirs(cells_dir)
        saved, launch.RUN_QEMU = launch.RUN_QEMU, stub
        os.environ["SYNC_NAME"] = name
        try:
            return launch.run(Cell("menu", 2, 1, "real", [("net", 1)]), s, cells_dir)
        finally:
            launch.RUN_QEMU = saved
            del os.environ["SYNC_NAME"]

    def test_refused_sync_fails_the_cell(self):
        m = self.boot("net2")
        self.assertEqual(m["verdict"], "FAIL: bench-sync names 'net2', not a workload with "
                         "traffic of menu-2cpu-real-r1 (net)")
        with open(os.path.join(self.tmp.name, "cells", "menu-2cpu-real-r1", "verdict")) as f:
            self.assertEqual(f.read(), m["verdict"] + "\n")

    def test_control_the_cells_own_name(self):
        # the same boot syncing on its own workload: udpgen runs (its log
        # is moved into the cell's results only when they exist), no refusal
        m = self.boot("net")
        self.assertNotIn("bench-sync", m["verdict"])
        self.assertTrue(os.path.exists(os.path.join(self.tmp.name, "cells",
                                                    "menu-2cpu-real-r1.udpgen-net.log")))


if __name__ == "__main__":
    unittest.main()
