"""Unit tests of the two tables (workloads.toml, configs.py) and of what
launch.py makes of a cell: guest words, kernel command line, devices."""
import os
import tempfile
import unittest

import common  # noqa: F401 (sets the path)
from idlebench import launch, workloads
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
                          "devmix", "ipi", "net", "mixed"])
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

    def test_guest_words(self):
        # one function makes them all, from the cell: its windows, not the table's
        def words(works, mode="icount"):
            return launch.guest_words(Cell("menu", 2, 1, mode, works), TABLE)
        self.assertEqual(words([("dev2", 1)]), [
            "set.seed=1", "dev2=1", "dev2.ct=10100",
            "dev2.gen=cpu=0,proc=periodic,period_us=1000,jitter_us=50",
            "dev2.gen=cpu=0,proc=periodic,period_us=1500,jitter_us=75"])
        self.assertEqual(words([("net2", 2)], "real")[-1], "net2.udp=5001,5002")
        self.assertEqual(words([("mixed", 1)], "real"),
                         ["set.seed=1", "nic=52-54-00-00-be-01,10.0.2.15/24",
                          "nic=52-54-00-00-be-02,10.0.3.15/24",
                          "mixed=1", "mixed.ct=1000", "mixed.pipeper=1000", "mixed.udp=5001"])
        self.assertIn("devmix.pipeper=1300", words([("devmix", 2)]))
        self.assertEqual(words([("timer", 7)])[1], "timer=7")
        self.assertNotIn("devmixpipe", TABLE)

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


class LaunchTest(unittest.TestCase):
    def test_icount_cell(self):
        c = Cell("sched-debug", 2, 1, "icount", [("timer", 1), ("block", 2)], seed=9)
        line = launch.kernel_cmdline(c, setup())
        self.assertIn("guest.args=set.perf=0:set.seed=9:timer=1:timer.ct=1100:block=2:"
                      "block.ct=10100:block.blk=3000", line)
        self.assertIn(CONFIGS["sched-debug"].args, line)
        self.assertNotIn("tsc=reliable", line)
        dev = launch.qemu_devices(c, setup())
        self.assertEqual(dev, ["-H", "8", "-D", "/d.img"])
        cmd = launch.run_qemu_cmd(c, setup(), "/w")
        self.assertEqual(cmd[cmd.index("-e") + 1], "interrupt rule adaptive, learning, no prewake")
        self.assertEqual(cmd[cmd.index("-I") + 1], "0")

    def test_real_cell_with_traffic(self):
        c = Cell("menu", 2, 1, "real", [("net", 1)])
        line = launch.kernel_cmdline(c, setup())
        self.assertIn("nic=52-54-00-00-be-01,10.0.2.15/24", line)
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
        self.assertIn("dev2=2", line)
        many = [(w, 1) for w in TABLE if TABLE[w].timing == "icount"] * 4
        with self.assertRaisesRegex(launch.LaunchError, "over the kernel's 2048"):
            launch.kernel_cmdline(Cell("menu", 2, 1, "icount", many), setup())


if __name__ == "__main__":
    unittest.main()
