"""The corpus of real recordings (perf-scripts/recordings/, idlebench/
recordings.py): every entry parses, lasts long enough, holds enough device
interrupts on some CPU, stays small, and its workload is the replay of its
trace, in the bench's workload table; there are enough entries.  The
controls: the same check fails on an entry trimmed in time, emptied,
thinned of interrupts, padded beyond the size, with a list cut, or
without its how line.  Also the report headline's row "real recordings"
(with controls: a generated workload not counted, no row without
recordings) and docs/recordings.md being what idle-loop/corpus_table.py
writes today."""
import contextlib
import io
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from common import HERE  # noqa: F401  (perf-scripts/ on the path)
from idlebench import arrivals, recordings, workloads
from idlebench.report import tables


def entries():
    return recordings.entries()


class CorpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.checked = {}
        for path in entries():
            try:
                cls.checked[path] = recordings.check(path)
            except recordings.CorpusError as e:
                cls.checked[path] = e

    def test_entries(self):
        self.assertGreaterEqual(len(self.checked), recordings.MIN_ENTRIES,
                                f"{workloads.RECORDINGS}: fewer entries than the corpus asks")
        for path, e in self.checked.items():
            with self.subTest(entry=os.path.basename(path)):
                self.assertIsInstance(e, recordings.Entry, str(e))
                self.assertGreaterEqual(e.seconds, recordings.MIN_SECONDS)
                self.assertGreaterEqual(max(e.cpu_irqs.values()), recordings.MIN_CPU_IRQS)

    def test_in_the_table(self):
        """Each entry is a workload of the bench's table, marked a recording
        with its how line, not in the default matrix; no built-in one is."""
        table = workloads.table()
        for e in self.checked.values():
            if not isinstance(e, recordings.Entry):
                continue        # test_entries says why
            w = table.get(e.workload)
            self.assertIsNotNone(w, f"{e.workload} is not in workloads.table()")
            self.assertEqual(w.recording, e.how)
            self.assertTrue(w.device)
            self.assertFalse(w.default)
        for name, w in workloads.load(workloads.BUILTIN).items():
            self.assertEqual(table[name].recording, "", name)

    def test_command_line(self):
        """python3 -m idlebench.recordings: 0 on the corpus, 1 on a spoiled entry."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(recordings.main(entries()[:1]), 0)
            self.assertEqual(recordings.main([os.path.join(workloads.RECORDINGS, "none")]), 1)
        self.assertIn("FAIL", out.getvalue())


class ControlTest(unittest.TestCase):
    """The check on a copy of one entry, spoiled in one way each: it must fail."""

    def setUp(self):
        es = entries()
        if not es:
            self.fail(f"no entry under {workloads.RECORDINGS} to spoil")
        self.tmp = tempfile.mkdtemp()
        # the smallest trace: quickest to spoil and check again
        self.src = min(es, key=lambda d: os.path.getsize(os.path.join(d, "trace.txt.xz")))
        self.dir = os.path.join(self.tmp, os.path.basename(self.src))
        shutil.copytree(self.src, self.dir)
        recordings.check(self.dir)      # the copy itself passes

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def trace(self):
        with lzma.open(os.path.join(self.dir, "trace.txt.xz"), "rt") as f:
            return f.read().splitlines(keepends=True)

    def write_trace(self, lines):
        with lzma.open(os.path.join(self.dir, "trace.txt.xz"), "wt") as f:
            f.writelines(lines)

    def fails(self, pattern):
        with self.assertRaisesRegex(recordings.CorpusError, pattern):
            recordings.check(self.dir)

    def test_trimmed(self):
        """The trace cut to the first part of MIN_SECONDS: too short."""
        lines = self.trace()
        rec = arrivals.parse("".join(lines))
        cut = rec.start_ns + recordings.MIN_SECONDS * 10**9 // 2
        keep = [x for x in lines
                if (m := arrivals._LINE.search(x)) is None
                or int(m.group(2)) * 10**9 + int(m.group(3).ljust(9, "0")) < cut]
        self.write_trace(keep)
        self.fails("lasts")

    def test_empty(self):
        self.write_trace([])
        self.fails("no irq_handler_entry")

    def test_thinned(self):
        """Every device interrupt but a few dropped, the span kept: too few."""
        lines, seen, out = self.trace(), 0, []
        for x in lines:
            if "irq_handler_entry" in x:
                seen += 1
                if seen >= recordings.MIN_CPU_IRQS // 2:
                    continue
            out.append(x)
        self.write_trace(out)
        self.fails("device interrupts on a CPU")

    def test_too_big(self):
        with open(os.path.join(self.dir, "padding"), "wb") as f:
            f.write(b"\0" * (recordings.MAX_ENTRY_BYTES + 1))
        self.fails("bytes")

    def test_list_cut(self):
        """A list one interval short: not the replay of the trace."""
        p = os.path.join(self.dir, "workload.lists")
        with open(p) as f:
            lines = f.read().splitlines()
        n = next(i for i, x in enumerate(lines) if not x.startswith("#"))   # s0, the busiest
        lines[n] = lines[n][:lines[n].rindex(",")]
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.fails("not what trace2workload.py makes")

    def test_no_how(self):
        os.remove(os.path.join(self.dir, "how"))
        self.fails("missing how")

    def test_how_not_one_line(self):
        with open(os.path.join(self.dir, "how"), "w") as f:
            f.write("recorded here\n")
        self.fails("one line")


class KeepTest(unittest.TestCase):
    """recordings.keep(): the whole trace when it fits, else its first
    lines within the budget, the seconds kept told; the control: a budget
    below the whole trace's size cuts it."""

    def test_keep(self):
        es = entries()
        if not es:
            self.skipTest("no entry")
        small = min(es, key=lambda d: os.path.getsize(os.path.join(d, "trace.txt.xz")))
        with lzma.open(os.path.join(small, "trace.txt.xz"), "rt") as f:
            text = f.read()
        whole = len(lzma.compress(text.encode(), preset=9))
        data, secs, cut = recordings.keep(text, whole)
        self.assertFalse(cut)
        self.assertEqual(lzma.decompress(data).decode(), text)
        data, secs2, cut = recordings.keep(text, whole // 2)
        self.assertTrue(cut)
        self.assertLessEqual(len(data), whole // 2)
        self.assertLess(secs2, secs)
        self.assertTrue(text.startswith(lzma.decompress(data).decode()))


class HeadlineTest(unittest.TestCase):
    """The headline's row "real recordings": the geometric mean of sched's
    ratio to the better governor over the recordings, none without them."""

    @staticmethod
    def runs(ratios):
        """{(w, 2): {config: [metrics]}}: sched's miss_rate and power_mw at
        ratio r of menu's (teo worse), per workload."""
        out = {}
        for w, r in ratios.items():
            gov = {"miss_rate": 0.2, "power_mw": 100.0, "model_power_mw": 100.0,
                   "oracle_power_mw": 90.0}
            out[(w, 2)] = {
                "menu": [dict(gov)] * 2,
                "teo": [{k: v * 2 for k, v in gov.items()}] * 2,
                "sched": [{**{k: v * r for k, v in gov.items()},
                           "oracle_power_mw": 90.0}] * 2}
        return out

    def row(self, lines):
        return [x for x in lines if x.startswith("| **real recordings**")]

    def test_row(self):
        runs = self.runs({"rec_a": 0.5, "rec_b": 2.0, "dev": 0.1})
        rec = {"rec_a", "rec_b"}.__contains__
        lines = tables.headline(runs, ["rec_a", "rec_b", "dev"], lambda w: True,
                                recording=rec)
        row = self.row(lines)
        self.assertEqual(len(row), 1, lines)
        cells = [c.strip() for c in row[0].strip("|").split("|")]
        self.assertIn("(2, geometric mean)", cells[0])
        # misprediction: sqrt(0.5 * 2.0) = 1.00, above the 0.7 target
        self.assertEqual(cells[1], "1.00 MISS")
        self.assertEqual(cells[2], "1.00 ok")
        # control: the generated workload alone would pass; it is not counted
        alone = self.row(tables.headline(runs, ["dev", "rec_a"], lambda w: True,
                                         recording=rec))
        self.assertEqual([c.strip() for c in alone[0].strip("|").split("|")][1], "0.50 ok")

    def test_no_row(self):
        """Control: without recordings (or without recording()), no row."""
        runs = self.runs({"rec_a": 0.5, "dev": 0.1})
        self.assertEqual(self.row(tables.headline(runs, ["rec_a", "dev"], lambda w: True)), [])
        self.assertEqual(self.row(tables.headline(runs, ["dev"], lambda w: True,
                                                  recording=lambda w: False)), [])


TABLE = os.path.join(workloads.TOP, "idle-loop", "corpus_table.py")
REPLAY = os.path.join(workloads.TOP, "build", "idle-loop", "replay")
DOC = os.path.join(workloads.TOP, "docs", "recordings.md")


class TableTest(unittest.TestCase):
    """docs/recordings.md is what idle-loop/corpus_table.py writes today
    (no figure typed by hand); the control: a copy with one figure changed
    differs."""

    def test_current(self):
        if not os.access(REPLAY, os.X_OK):
            self.skipTest(f"no {REPLAY} (make -C idle-loop)")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "recordings.md")
            p = subprocess.run([sys.executable, TABLE, "--out", out],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                made = f.read()
        with open(DOC) as f:
            doc = f.read()
        self.assertEqual(doc, made, "docs/recordings.md is not what idle-loop/corpus_table.py "
                         "writes: make recordings-table")
        changed = doc.replace("| adaptive | ", "| adaptive | 1", 1)
        self.assertNotEqual(changed, made)


if __name__ == "__main__":
    unittest.main()
