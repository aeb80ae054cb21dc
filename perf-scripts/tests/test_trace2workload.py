"""perf-scripts/trace2workload.py and what carries its lists to the guest:
a small synthetic recording (perf script and tracefs text) becomes the
sources and intervals it must; a malformed trace stops with one line;
workloads.py refuses lists the generator would; launch.py's initramfs
archive holds the lists under the digest the guest checks, and bench.sh's
argument check fails the boot on a missing or different list.  Each check
has a control that the same check fails."""
import contextlib
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from common import HERE
import bench
from idlebench import arrivals, launch, plan, workloads
from idlebench.cells import Cell

TOP = os.path.dirname(os.path.dirname(HERE))
T2W = os.path.join(TOP, "perf-scripts", "trace2workload.py")
BENCH_SH = os.path.join(TOP, "guest-image", "guest", "bench.sh")

# perf script --ns: the recording starts at 100.000000000 (its first event);
# irq 30 on CPU 1 is the busiest, irq 31 shares its line with a second
# handler (one arrival each, counted once), irq 4 has a single arrival
PERF = """\
         swapper     0 [000]   100.000000000:       power:cpu_idle: state=2 cpu_id=0
         swapper     0 [001]   100.000200400: irq:irq_handler_entry: irq=30 name=eth0
         swapper     0 [000]   100.000300000: irq:irq_handler_entry: irq=31 name=ahci
         swapper     0 [000]   100.000300100: irq:irq_handler_entry: irq=31 name=ehci
         swapper     0 [001]   100.001200600: irq:irq_handler_entry: irq=30 name=eth0
         swapper     0 [001]   100.001201000: irq:irq_handler_entry: irq=30 name=eth0
         swapper     0 [000]   100.002000000: irq:irq_handler_entry: irq=4 name=ttyS0
         swapper     0 [000]   100.002500000: irq:irq_handler_entry: irq=31 name=ahci
         swapper     0 [000]   100.002500050: irq:irq_handler_entry: irq=31 name=ehci
         swapper     0 [001]   100.003700000: irq:irq_handler_entry: irq=30 name=eth0
         swapper     0 [001]   100.004000000:       power:cpu_idle: state=4294967295 cpu_id=1
"""
# the same recording as tracefs prints it (microseconds, flags column)
TRACEFS = "# tracer: nop\n#\n" + "".join(
    re.sub(r"^\s*swapper\s+0 \[(\d+)\]\s+(\d+\.\d{6})\d{3}:\s+\w+:(\w+):",
           r"          <idle>-0       [\1] d.h1.   \2: \3:", line) + "\n"
    for line in PERF.splitlines())
# eth0 (CPU 1 -> guest CPU 1): 100.000200400 -> 200 us, 1200.6 -> 1201,
# 1201.0 -> 1201 (moved to 1202), 3700; ahci (CPU 0): 300, 2500
WANT_LISTS = {"s0": "200,1001,1,2498", "s1": "300,2200"}
# tracefs cuts to microseconds: 1200.6 -> 1200, so nothing is moved
WANT_TRACEFS = {"s0": "200,1000,1,2499", "s1": "300,2200"}


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def run(*args):
    return subprocess.run([sys.executable, T2W, *args], capture_output=True, text=True)


class ConvertTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def trace(self, text, name="trace.txt"):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def convert(self, text, *opts):
        out = os.path.join(self.tmp, "w.toml")
        r = run(self.trace(text), "-o", out, *opts)
        self.assertEqual(r.returncode, 0, r.stderr)
        w = workloads.load(out)["replay"]
        return w, workloads.read_lists(w.lists), r.stderr

    def test_sources_and_intervals(self):
        w, lists, err = self.convert(PERF, "--max-sources", "2")
        self.assertEqual(lists, WANT_LISTS)
        self.assertEqual(w.gen, ("cpu=1 proc=list once=1 intervals_us=@s0",
                                 "cpu=0 proc=list once=1 intervals_us=@s1"))
        self.assertEqual((w.timing, w.seconds), ("icount", 1))
        self.assertIn("dropped irq 4 (ttyS0) on CPU 0: 1 arrivals", err)
        self.assertIn("irq 31 (ahci) on CPU 0: shared with ehci", err)
        self.assertIn("irq 30 (eth0) on CPU 1: 1 arrivals within 1 us", err)
        # control: one arrival moved by 3 us gives other intervals
        _, moved, _ = self.convert(PERF.replace("100.003700000", "100.003703000"),
                                   "--max-sources", "2")
        self.assertNotEqual(moved, WANT_LISTS)

    def test_tracefs_text_gives_the_same_lists(self):
        _, lists, _ = self.convert(TRACEFS, "--max-sources", "2")
        self.assertEqual(lists, WANT_TRACEFS)
        # control: the check sees a difference when there is one
        _, other, _ = self.convert(TRACEFS.replace("100.002500:", "100.002600:"),
                                   "--max-sources", "2")
        self.assertNotEqual(other, WANT_TRACEFS)

    def test_cpu_mapping(self):
        w, _, _ = self.convert(PERF, "--max-sources", "3", "--cpus", "1")
        self.assertEqual([g.split()[0] for g in w.gen], ["cpu=0"] * 3)
        w, _, _ = self.convert(PERF, "--max-sources", "3", "--map", "1:0,0:1")
        self.assertEqual([g.split()[0] for g in w.gen], ["cpu=0", "cpu=1", "cpu=1"])
        self.assertIn("--map 1:2: the guest has CPUs 0 to 1",
                      run(self.trace(PERF), "-o", "x.toml", "--map", "1:2").stderr)

    def test_malformed_trace_is_one_line(self):
        bad = PERF.replace("irq=4 name=ttyS0", "irq=x name=ttyS0")
        out = os.path.join(self.tmp, "w.toml")
        r = run(self.trace(bad), "-o", out)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertRegex(r.stderr, r"^trace2workload: error: \S+trace.txt:7: irq_handler_entry "
                         r"without irq= and name=")
        self.assertFalse(os.path.exists(out))
        for text, msg in (("garbage\n", r"trace.txt:1: not an event line"),
                          (PERF.replace("irq:irq_handler_entry", "irq:softirq_entry"),
                           r"no irq_handler_entry event"),
                          (PERF.replace("100.003700000", "100.000000001"),
                           r"trace.txt:10: irq 30 \(eth0\) on CPU 1 goes back in time")):
            r = run(self.trace(text), "-o", out)
            self.assertEqual((r.returncode, r.stderr.count("\n")), (2, 1), r.stderr)
            self.assertRegex(r.stderr, msg)
        r = run(os.path.join(self.tmp, "none.txt"), "-o", out)
        self.assertRegex(r.stderr, r"none.txt: cannot read")
        # control: the good trace in the same place converts
        self.assertEqual(run(self.trace(PERF), "-o", out).returncode, 0)

    def test_generator_limits_cut_a_list(self):
        n = workloads.GEN_LIST_MAX + 3
        long = "".join(f"  x 0 [000] {200 + i / 1000:.9f}: irq:irq_handler_entry: irq=9 name=a\n"
                       for i in range(n))
        gap = PERF.replace("100.003700000", "111.000000000")
        iv, _, cut = arrivals.list_us(arrivals.parse(long).sources[0].times_ns, 200 * 10**9)
        self.assertEqual((len(iv), iv[0], iv[-1]), (workloads.GEN_LIST_MAX, 1, 1000))
        self.assertIn(f"the generator takes {workloads.GEN_LIST_MAX} intervals", cut)
        _, lists, err = self.convert(gap, "--max-sources", "2")
        self.assertEqual(lists["s0"], "200,1001,1")
        self.assertIn("a gap of 11.0 s, above the generator's 10 s", err)
        # control: within the limits nothing is cut
        self.assertIsNone(arrivals.list_us([10**6, 2 * 10**6], 0)[2])


class ListsFileTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, lists, gen='"cpu=0 proc=list once=1 intervals_us=@s0"'):
        with open(os.path.join(self.tmp, "w.lists"), "w") as f:
            f.write(lists)
        p = os.path.join(self.tmp, "w.toml")
        with open(p, "w") as f:
            f.write(f'[w]\ntiming = "icount"\nseconds = 1\nlists = "w.lists"\ngen = [{gen}]\n')
        return p

    def test_bad_lists_are_refused(self):
        for lists, gen, msg in (
                ("s0 intervals_us=5,0\n", None, r"w.lists:1: intervals_us must be whole"),
                ("s0 intervals_us=10000001\n", None, "from 1 to 10000000"),
                ("s0 intervals_us=" + ",".join(["1"] * 65537) + "\n", None,
                 "65537 intervals, hpet_irqgen takes at most 65536"),
                ("s0 intervals_us=5\ns0 intervals_us=6\n", None, "list s0 given twice"),
                ("S0 intervals_us=5\n", None, "want NAME"),
                ("s1 intervals_us=5\n", None, "has no list s0"),
                ("s0 intervals_us=5\n", '"cpu=0 proc=periodic period_us=9 once=1"',
                 "only for proc=list"),
                ("s0 intervals_us=5\n", '"cpu=0 proc=list intervals_us=@S0"',
                 "a list is named intervals_us=@NAME")):
            with self.assertRaisesRegex(workloads.WorkloadError, msg):
                workloads.load(self.write(lists, gen) if gen else self.write(lists))
        # control: a good file loads, with its list
        w = workloads.load(self.write("s0 irq=3 intervals_us=5,7\n"))["w"]
        self.assertEqual((w.list_refs(), workloads.read_lists(w.lists)), (["s0"], {"s0": "5,7"}))

    def test_archive_and_digest(self):
        w = workloads.load(self.write("s0 intervals_us=5,7\ns1 intervals_us=9\n",
                                      '"cpu=0 proc=list intervals_us=@s1", '
                                      '"cpu=1 proc=list once=1 intervals_us=@s0"'))["w"]
        table = dict(workloads.table(), w=w)
        cell = Cell("sched", 2, 1, "icount", [("w", 1)])
        words = launch.guest_words(cell, table)
        digest = hashlib.sha256(b"5,79").hexdigest()[:16]   # s0 then s1, as cat w/* reads
        self.assertIn(f"w.lists={digest}", words)
        self.assertIn("w.gen=cpu=0,proc=list,intervals_us=@s1,seed=64", words)
        base = os.path.join(self.tmp, "base.cpio")
        with open(base, "wb") as f:
            f.write(b"070701" + b"0" * 101)   # not 4-byte aligned: the archive must pad
        s = launch.Setup(table, "/k", base, "/d", "/u")
        initrd = launch.cell_initrd(cell, s, os.path.join(self.tmp, "cell.initrd"))
        data = read(initrd, "rb")
        self.assertEqual(data[:107], read(base, "rb"))
        got = unpack(data[108:])
        # the lists, and the file of the boot's words the command line names
        path = re.search(r"guest\.args=@/(\S+)", launch.kernel_cmdline(cell, s)).group(1)
        self.assertEqual(path, launch.words_file(cell, table)[0])
        self.assertEqual(got, {"bench-lists": None, "bench-lists/w": None,
                               "bench-lists/w/s0": b"5,7", "bench-lists/w/s1": b"9",
                               "bench-words": None,
                               path: "".join(w + "\n" for w in words).encode()})
        # control: another list gives another digest; no list, no archive
        other = dict(table, w=workloads.load(self.write("s0 intervals_us=5,8\ns1 intervals_us=9\n",
                     '"cpu=0 proc=list intervals_us=@s1", '
                     '"cpu=1 proc=list once=1 intervals_us=@s0"'))["w"])
        self.assertNotIn(f"w.lists={digest}", launch.guest_words(cell, other))
        # no list: the archive holds the words alone
        plain = Cell("sched", 2, 1, "icount", [("dev", 1)])
        got = unpack(read(launch.cell_initrd(plain, s, os.path.join(self.tmp, "x")), "rb")[108:])
        self.assertEqual(list(got), ["bench-words", launch.words_file(plain, table)[0]])


def unpack(data):
    """{name: data, or None for a directory} of a newc cpio archive."""
    out, pos = {}, 0
    while True:
        assert data[pos:pos + 6] == b"070701", pos
        f = [int(data[pos + 6 + 8 * i:pos + 14 + 8 * i], 16) for i in range(13)]
        name_end = pos + 110 + f[11]
        name = data[pos + 110:name_end - 1].decode()
        pos = name_end + (-name_end % 4)
        if name == "TRAILER!!!":
            return out
        out[name] = None if f[1] & 0o40000 else data[pos:pos + f[6]]
        pos += f[6] + (-f[6] % 4)


# bench.sh's argument check alone (from "# Validate everything" to the
# check that a workload was given), with its lists directory in a
# temporary one; fail() prints the boot's FAIL line and exits 1
CHECK = r"""set -eu
lists=$1
shift
perf=1 phase=0 works='' nics=''
cmds=$lists/../cmds
fail() { echo "guest: FAIL $*"; exit 1; }
num() { case "$2" in '' | *[!0-9]*) fail "$1: '$2' is not a number" ;; esac; }
"""


@unittest.skipUnless(shutil.which("busybox"), "busybox is not installed")
class GuestListCheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        text = read(BENCH_SH)
        m = re.search(r"^# Validate everything.*?^\[ -n \"\$works\" \] \|\| fail[^\n]*\n",
                      text, re.S | re.M)
        self.assertIsNotNone(m, "bench.sh has no argument check block")
        self.script = os.path.join(self.tmp, "check.sh")
        with open(self.script, "w") as f:
            f.write(CHECK + m.group(0) + 'echo "arguments ok"\n')
        self.lists = os.path.join(self.tmp, "bench-lists")
        os.makedirs(os.path.join(self.lists, "w"))
        for name, iv in (("s0", "5,7"), ("s1", "9")):
            with open(os.path.join(self.lists, "w", name), "w") as f:
                f.write(iv)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def check(self, *words):
        r = subprocess.run(["busybox", "sh", self.script, self.lists, "w=1", *words],
                           capture_output=True, text=True)
        return r.returncode, r.stdout.strip()

    def test_missing_or_changed_lists_fail_the_boot(self):
        good = hashlib.sha256(b"5,79").hexdigest()[:16]
        gen = "w.gen=cpu=0,proc=list,once=1,intervals_us=@s0"
        self.assertEqual(self.check(f"w.lists={good}", gen), (0, "arguments ok"))
        code, out = self.check(f"w.lists={good[:-1]}0" if good[-1] != "0" else
                               f"w.lists={good[:-1]}1", gen)
        self.assertEqual(code, 1)
        self.assertRegex(out, r"^guest: FAIL w.lists: the lists in \S+ are not the host's")
        self.assertEqual(self.check(f"w.lists={good}", "w.gen=cpu=0,proc=list,intervals_us=@s7"),
                         (1, f"guest: FAIL w.gen: list s7 is not in {self.lists}/w "
                             "(the host sends it with the initramfs)"))
        shutil.rmtree(os.path.join(self.lists, "w"))
        self.assertEqual(self.check(f"w.lists={good}", gen),
                         (1, f"guest: FAIL w.lists: no {self.lists}/w: the host sent no lists"))


    def test_the_words_come_in_the_hosts_file(self):
        # a boot of the five real recordings: its words, too many for the
        # command line, in the file the host appends with its lists
        cell = Cell("sched", 2, 1, "icount", [(n, w.seconds) for n, w in
                                              workloads.corpus().items()])
        table = workloads.table()
        path = re.search(r"guest\.args=@/(\S+)",
                         launch.kernel_cmdline(cell, launch.Setup(table, "", "", "", ""))).group(1)
        for p, text in launch.boot_files(cell, table).items():
            os.makedirs(os.path.dirname(os.path.join(self.tmp, p)), exist_ok=True)
            with open(os.path.join(self.tmp, p), "w") as f:
                f.write(text)
        words = os.path.join(self.tmp, path)
        r = subprocess.run(["busybox", "sh", self.script, self.lists, f"@{words}"],
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "arguments ok"))
        # each word reached the check: one command list per workload, with
        # each of its commands
        with open(os.path.join(self.tmp, "cmds", "rec_quiet")) as f:
            self.assertEqual(len(f.read().splitlines()), 6)
        # controls: a file the host did not send, and a word beside it,
        # fail the boot with one line
        r = subprocess.run(["busybox", "sh", self.script, self.lists, f"@{words}x"],
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout.strip()),
                         (1, f"guest: FAIL @{words}x: no file {words}x (the host sends it "
                             "with the initramfs)"))
        r = subprocess.run(["busybox", "sh", self.script, self.lists, f"@{words}", "w=1"],
                           capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout.strip()),
                         (1, f"guest: FAIL '@{words}' goes alone, not with 'w=1'"))

    def test_the_hosts_words_pass(self):
        # every word launch.py makes passes the guest's argument check:
        # the configurations' set. words, the phase, NICs, each command
        cell = Cell("sched-debug", 2, 3, "real", [("mixed", 1), ("devmix", 2), ("net2", 1),
                                                  ("block", 1), ("rtc", 1)])
        words = launch.guest_words(cell, workloads.table())
        self.assertIn("set.phase=3757", words)
        self.assertEqual(self.check(*words), (0, "arguments ok"))
        # control: the word the guest no longer takes (the seed: the host
        # derives the phase from it) fails the boot
        self.assertEqual(self.check("set.seed=3"),
                         (1, "guest: FAIL 'set.seed=3': workload set is not given before it"))


def gen_cpus_over(cell, table):
    """The CPUs of cell's generator words (NAME.gen=cpu=N,...) that its
    guest lacks."""
    cpus = [int(m.group(1)) for w in launch.guest_words(cell, table)
            for m in [re.match(r"[a-z0-9_]+\.gen=cpu=(\d+),", w)] if m]
    return [n for n in cpus if n >= cell.vcpus]


class VcpusTest(unittest.TestCase):
    """A converted workload carries the vCPUs its sources need
    (min_vcpus), and the bench leaves it out of the counts below that,
    saying so in one line, instead of booting cells whose generator
    refuses a CPU the guest lacks; the controls: a recording mapped to
    CPU 0 runs on 1 vCPU with no line, and a min_vcpus below a gen line's
    cpu= is refused."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.trace = os.path.join(self.tmp, "trace.txt")
        with open(self.trace, "w") as f:
            f.write(PERF)
        self.kernels = os.path.join(self.tmp, "kernels")
        os.makedirs(self.kernels)
        for img in ("stock.bzImage", "patched.bzImage"):
            with open(os.path.join(self.kernels, img), "w") as f:
                f.write("kernel")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def dry(self, *opts):
        """bench.py --dry-run of the converted workload, defaults otherwise:
        its output and the measurement cells' (vCPUs, workloads)."""
        out = os.path.join(self.tmp, "w.toml")
        r = run(self.trace, "-o", out, "--max-sources", "2", *opts)
        self.assertEqual(r.returncode, 0, r.stderr)
        with contextlib.redirect_stdout(io.StringIO()) as text:
            bench.main(["--workload-file", out, "--dry-run", "--kernels", self.kernels])
        a = bench.arguments(["--workload-file", out])
        table = workloads.table(out)
        planned = plan.plan(bench.request(a, table), table)
        # no planned boot asks the generator for a CPU its guest lacks,
        # and each one's command line can be made
        s = launch.Setup(table, self.kernels, "/i.cpio", "/d.img", "/udpgen")
        for c in planned:
            self.assertEqual(gen_cpus_over(c, table), [], c.name)
            launch.kernel_cmdline(c, s)
        cells = [(c.vcpus, [w for w, _ in c.works]) for c in planned if c.mode == "icount"]
        return workloads.load(out)["replay"], text.getvalue(), cells

    def test_a_recording_on_cpu_1_skips_one_vcpu(self):
        w, out, cells = self.dry()
        self.assertEqual((w.min_vcpus, w.needs_vcpus), (2, 2))
        skips = [x for x in out.splitlines() if "too few vCPUs" in x]
        self.assertEqual(skips, ["bench: note: skipped, too few vCPUs: replay on 1 "
                                 "(it needs 2, min_vcpus or its gen lines' cpu=)"])
        self.assertTrue(cells)
        self.assertEqual({v for v, _ in cells}, {2})
        # control of the CPU check: the same workload on 1 vCPU
        table = workloads.table(os.path.join(self.tmp, "w.toml"))
        self.assertEqual(gen_cpus_over(Cell("menu", 1, 1, "icount", [("replay", 1)]), table),
                         [1])
        # control: mapped to guest CPU 0, it runs on 1 vCPU too, unannounced
        w, out, cells = self.dry("--cpus", "1")
        self.assertEqual(w.needs_vcpus, 1)
        self.assertNotIn("too few vCPUs", out)
        self.assertEqual({v for v, _ in cells}, {1, 2})

    def test_min_vcpus_below_the_sources_is_refused(self):
        path = os.path.join(self.tmp, "m.toml")

        def load(n):
            with open(path, "w") as f:
                f.write(f'[m]\ntiming = "icount"\nseconds = 1\nmin_vcpus = {n}\n'
                        'gen = ["cpu=1 proc=periodic period_us=1000"]\n')
            return workloads.load(path)["m"]
        with self.assertRaisesRegex(workloads.WorkloadError, "min_vcpus is 1, but its gen "
                                    "lines use 2 CPUs"):
            load(1)
        # control: enough, and more than the sources need is kept
        self.assertEqual(load(2).needs_vcpus, 2)
        self.assertEqual(load(4).needs_vcpus, 4)


if __name__ == "__main__":
    unittest.main()
