"""What every test module needs: perf-scripts/ on the path (for idlebench)
and the fixtures of fixtures/."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
sys.path.insert(0, os.path.dirname(HERE))


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
