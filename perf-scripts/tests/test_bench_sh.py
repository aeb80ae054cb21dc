"""guest-image/guest/bench.sh's recorder start-up, run on the host under
busybox sh with stand-ins for perf: the window waits for perf's ack, and
a perf that never records, or exits, fails its workload with one line
and its log within the bound; then the workload's subshell ends what it
started.  (The functions are taken from bench.sh itself.)"""
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

from common import HERE

BENCH_SH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "guest-image", "guest",
                        "bench.sh")
BUSYBOX = shutil.which("busybox")

# stand-ins: PERF_MODE ack (answers enable), mute (never does), dies
PERF = r"""#!/bin/sh
for a in "$@"; do
	case "$a" in --control=fifo:*) f=${a#--control=fifo:} ;; esac
done
case "$PERF_MODE" in
dies) echo "perf: unknown option" >&2; exit 129 ;;
mute) echo $$ >"$STUB_PIDS"; exec sleep 60 ;;
esac
read -r cmd <"${f%,*}"
[ "$cmd" = enable ] && printf 'ack\n' >"${f#*,}"
exec sleep 60
"""
# cyclictest that exits before measuring
CYCLICTEST = "#!/bin/sh\necho 'cyclictest: mlockall failed' >&2\nexit 1\n"

HARNESS = r"""set -eu
RWAIT=2
ncpu=1
tr=/nonexistent gen=/nonexistent
name=w d=$1
. "$2"
log() { echo "bench: $*"; }
inwork=
set +e
(
	set -e
	inwork=1
	secs=1 pids='' ppid='' ctpid='' ct_period=10000
	trap reap EXIT
	perf_start
	echo "perf recording"
	ct_start
	echo "window opens"
	trap - EXIT
	kill "$ppid" "$ctpid"
)
echo "status $?"
"""


def functions(text):
    """bench.sh's helpers and its recorder functions, as one script."""
    out = []
    for start, end in ((r"^log\(\) ", r"^num\(\) "), (r"^now\(\) ", r"^snap\(\) "),
                       (r"^# perf sched record, its events", r"^# run_one NAME")):
        m = re.search(f"({start}.*?)(?={end})", text, re.S | re.M)
        if not m:
            raise AssertionError(f"bench.sh has no {start!r} .. {end!r} block")
        out.append(m.group(1))
    return "\n".join(out)


@unittest.skipUnless(BUSYBOX, "busybox is not installed")
class RecorderStartTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.bin = os.path.join(t, "bin")
        os.makedirs(self.bin)
        self.stub("perf", PERF)
        self.d = os.path.join(t, "w")
        os.makedirs(self.d)
        with open(BENCH_SH) as f:
            self.funcs = os.path.join(t, "funcs.sh")
            with open(self.funcs, "w") as g:
                g.write(functions(f.read()))
        self.harness = os.path.join(t, "harness.sh")
        with open(self.harness, "w") as f:
            f.write(HARNESS)

    def tearDown(self):
        self.tmp.cleanup()

    def stub(self, name, text):
        p = os.path.join(self.bin, name)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, 0o755)

    def run_harness(self, mode):
        self.pids = os.path.join(self.tmp.name, "pids")
        env = dict(os.environ, PERF_MODE=mode, STUB_PIDS=self.pids,
                   PATH=self.bin + ":" + os.environ["PATH"])
        t0 = time.time()
        r = subprocess.run([BUSYBOX, "sh", self.harness, self.d, self.funcs], env=env,
                           capture_output=True, text=True, timeout=60)
        return r.stdout + r.stderr, time.time() - t0

    def failed(self):
        with open(os.path.join(self.d, "failed")) as f:
            return f.read().splitlines()

    def test_perf_that_never_records_fails_its_workload_in_time(self):
        out, took = self.run_harness("mute")
        self.assertIn("status 1", out)
        self.assertNotIn("window opens", out)
        self.assertEqual(self.failed(), [
            "perf sched record not recording after 2s (no ack to enable)",
            "log=w/perf-record.log"])
        self.assertLess(took, 10)
        # the subshell ended the stand-in it started
        with open(self.pids) as f:
            with self.assertRaises(ProcessLookupError):
                os.kill(int(f.read()), 0)

    def test_perf_that_exits_fails_its_workload_at_once(self):
        out, took = self.run_harness("dies")
        self.assertIn("status 1", out)
        self.assertEqual(self.failed(), [
            "perf sched record exited before recording: perf: unknown option",
            "log=w/perf-record.log"])
        self.assertLess(took, 5)

    def test_cyclictest_that_exits_fails_its_workload(self):
        self.stub("cyclictest", CYCLICTEST)
        out, _ = self.run_harness("ack")
        self.assertIn("perf recording", out)
        self.assertIn("status 1", out)
        self.assertEqual(self.failed(), [
            "cyclictest exited before measuring: cyclictest: mlockall failed",
            "log=w/cyclictest.log"])
        with open(os.path.join(self.d, "recorders")) as f:
            self.assertRegex(f.read(), r"^perf_ms=\d+\n$")

    # cyclictest locks its memory (mlockall): root only
    @unittest.skipUnless(shutil.which("cyclictest") and os.geteuid() == 0,
                         "needs cyclictest, as root")
    def test_control_the_window_opens_once_both_record(self):
        out, _ = self.run_harness("ack")
        self.assertIn("window opens", out)
        self.assertIn("status 0", out)
        self.assertFalse(os.path.exists(os.path.join(self.d, "failed")))
        with open(os.path.join(self.d, "recorders")) as f:
            self.assertRegex(f.read(), r"^perf_ms=\d+\ncyclictest_ms=\d+\n$")


if __name__ == "__main__":
    unittest.main()
