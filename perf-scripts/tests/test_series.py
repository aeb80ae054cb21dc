"""Unit tests of idlebench/series: the series id of each kind from a
synthetic series directory (groups, comments, order), checked against
scripts/lib.sh's series_patches, and a console's boot line."""
import hashlib
import os
import shutil
import subprocess
import tempfile
import unittest

import common  # noqa: F401 (perf-scripts/ on the path)
from idlebench import series

LIB = os.path.join(series.TOP, "scripts", "lib.sh")
SERIES = """\
# Patch order for git am.  A "# ---- both" line starts ...
a-before-any-group.patch

# ---- both: fixes
b-fix.patch
# ---- patched: the proposal
c-one.patch
   \t
d-two.patch
# a comment inside a group
# ---- both: test infrastructure
e-infra.patch
# ---- patched: test infrastructure of the proposal
f-stats.patch"""


def make(d, text=SERIES):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "series"), "w") as f:
        f.write(text)
    for name in "abcdef":
        p = {"a": "a-before-any-group", "b": "b-fix", "c": "c-one", "d": "d-two",
             "e": "e-infra", "f": "f-stats"}[name] + ".patch"
        with open(os.path.join(d, p), "wb") as f:
            f.write(f"patch {name}\n".encode())
    return d


def digest(d, names):
    h = hashlib.sha256()
    for n in names:
        with open(os.path.join(d, n), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def shell(kind, d):
    """(the patches, the id) as the shell computes them with lib.sh."""
    script = ('set -f; . "$1"; for p in $(series_patches "$2" "$3/series"); do echo "$p"; done; '
              'for p in $(series_patches "$2" "$3/series"); do cat "$3/$p"; done | '
              'sha256sum | cut -c1-12')
    # from scripts/, where lib.sh finds the repository (TOP)
    out = subprocess.run(["sh", "-c", script, "sh", LIB, kind, d], cwd=os.path.dirname(LIB),
                         capture_output=True, text=True, check=True).stdout.split()
    return out[:-1], out[-1]


class SeriesIdTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.d = make(os.path.join(self.tmp, "series"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_groups(self):
        stock = ["a-before-any-group.patch", "b-fix.patch", "e-infra.patch"]
        every = ["a-before-any-group.patch", "b-fix.patch", "c-one.patch", "d-two.patch",
                 "e-infra.patch", "f-stats.patch"]
        self.assertEqual(series.patches("stock", os.path.join(self.d, "series")), stock)
        self.assertEqual(series.patches("patched", os.path.join(self.d, "series")), every)
        self.assertEqual(series.series_id("stock", self.d), digest(self.d, stock))
        self.assertEqual(series.series_id("patched", self.d), digest(self.d, every))
        self.assertEqual(series.ids(self.d), {"stock": digest(self.d, stock),
                                              "patched": digest(self.d, every)})
        with self.assertRaises(ValueError):
            series.patches("debug", os.path.join(self.d, "series"))

    def test_order_and_contents(self):
        before = series.ids(self.d)
        # two patches swapped: both ids change (each kernel carries both)
        make(self.d, SERIES.replace("b-fix.patch", "X").replace("a-before-any-group.patch",
                                                                "b-fix.patch")
             .replace("X", "a-before-any-group.patch"))
        swapped = series.ids(self.d)
        self.assertNotEqual(swapped["stock"], before["stock"])
        self.assertNotEqual(swapped["patched"], before["patched"])
        make(self.d)
        self.assertEqual(series.ids(self.d), before)
        # a patch only the patched kernel carries: the stock id stays
        with open(os.path.join(self.d, "f-stats.patch"), "ab") as f:
            f.write(b"more\n")
        after = series.ids(self.d)
        self.assertEqual(after["stock"], before["stock"])
        self.assertNotEqual(after["patched"], before["patched"])
        # the cover letter, README and files the series file does not list
        # are not hashed
        with open(os.path.join(self.d, "README.md"), "w") as f:
            f.write("x\n")
        self.assertEqual(series.ids(self.d), after)

    def test_missing_patch(self):
        os.unlink(os.path.join(self.d, "d-two.patch"))
        self.assertEqual(series.series_id("stock", self.d),
                         digest(self.d, ["a-before-any-group.patch", "b-fix.patch",
                                         "e-infra.patch"]))
        with self.assertRaisesRegex(series.SeriesError, "d-two.patch"):
            series.series_id("patched", self.d)
        got = series.ids(self.d)
        self.assertIsNone(got["patched"])
        self.assertIn("d-two.patch", got["error"])
        # no series file at all
        got = series.ids(os.path.join(self.tmp, "none"))
        self.assertIsNone(got["stock"])
        self.assertIn("none/series: No such file", got["error"])

    @unittest.skipUnless(shutil.which("sh") and shutil.which("sha256sum") and
                         os.path.exists(LIB), "no sh, sha256sum or scripts/lib.sh")
    def test_as_the_shell(self):
        # the same patches and ids as lib.sh's series_patches and the
        # kernel build's cat | sha256sum, on the synthetic series and on
        # the checkout's
        for d in (self.d, series.SERIES):
            if not os.path.exists(os.path.join(d, "series")):
                continue
            for kind in series.KINDS:
                names, sid = shell(kind, d)
                self.assertEqual(series.patches(kind, os.path.join(d, "series")), names,
                                 (d, kind))
                self.assertEqual(series.series_id(kind, d), sid, (d, kind))
        # and as the kernel build names the checkout's (lib.sh series_id,
        # which build-kernel.sh puts in the version line)
        with open(LIB) as f:
            if "series_id()" not in f.read():
                return
        for kind in series.KINDS:
            sid = subprocess.run(["sh", "-c", '. ./lib.sh; series_id "$1"', "sh", kind],
                                 cwd=os.path.dirname(LIB), capture_output=True, text=True,
                                 check=True).stdout.strip()
            self.assertEqual(series.series_id(kind), sid, kind)


class BootIdTest(unittest.TestCase):
    def test_boot_line(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "console.log")
            for text, want in [
                    ("BdsDxe: loading\n[    0.000000] Linux version 6.12.118 "
                     "(idle@series-0123456789ab) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP\n",
                     "0123456789ab"),
                    ("[    0.000000] Linux version 6.12.118+ (someone@series-abcdefabcdef) "
                     "(gcc ...\n[    1.0] Linux version x (idle@series-111111111111)\n",
                     "abcdefabcdef"),
                    ("[    0.000000] Linux version 6.12.118+ (idle@guest) (gcc ...\n", ""),
                    # not 12 hex digits: no id
                    ("Linux version 6.12.118 (idle@series-0123456789) (gcc\n", ""),
                    ("BdsDxe: failed to load Boot0001\n", None)]:
                with open(p, "w") as f:
                    f.write(text)
                self.assertEqual(series.boot_id(p), want, text)
            self.assertIsNone(series.boot_id(os.path.join(d, "none")))


if __name__ == "__main__":
    unittest.main()
