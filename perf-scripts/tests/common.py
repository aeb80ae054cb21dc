"""What every test module needs: perf-scripts/ on the path (for idlebench)
and the fixtures of fixtures/."""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
sys.path.insert(0, os.path.dirname(HERE))

from idlebench import launch  # noqa: E402


def boot_words(cell, s):
    """What a boot of cell hands guest-image/guest/bench.sh, ':'-joined as
    guest.args= would: the words of the file of its archive
    (launch.boot_files) that its kernel command line names."""
    line = launch.kernel_cmdline(cell, s)
    m = re.search(r" guest\.args=@/(\S+)", line)
    if not m:
        raise AssertionError(f"no guest.args=@/FILE in {line!r}")
    return ":".join(launch.boot_files(cell, s.workloads)[m.group(1)].splitlines())


def fx(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


class ParserTest(unittest.TestCase):
    def assertRejects(self, error, parser, cases):
        """parser(text, src) raises error with a message matching each
        case's pattern: cases [(text, src, pattern)]."""
        for text, src, pattern in cases:
            with self.assertRaisesRegex(error, pattern):
                parser(text, src)

    def assertFields(self, got, want):
        """got[k] equals (floats: almost) want[k] for every key of want."""
        for k, v in want.items():
            self.assertAlmostEqual(got[k], v, msg=k)
