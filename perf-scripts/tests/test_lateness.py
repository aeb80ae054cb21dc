import unittest

import common  # noqa: F401 (sets the path)
from idlebench import lateness

SEL = ("          <idle>-0       [001] d....     {t:.6f}: sched_idle_select: cpu=1 "
       "timer_ns={timer} delta_tick_ns={timer} irq_ns={irq} irq=0 "
       "latency_req_ns=2000000000000 state={st} stop_tick=1")
IDLE = "          <idle>-0       [001] d....     {t:.6f}: cpu_idle: state={st} cpu_id=1"


def trace(rows):
    out = ["# tracer: nop"]
    for t, timer, irq, st, dur in rows:
        out.append(SEL.format(t=t, timer=timer, irq=irq, st=st))
        out.append(IDLE.format(t=t + 1e-6, st=st))
        out.append(IDLE.format(t=t + 1e-6 + dur, st=4294967295))
    return "\n".join(out) + "\n"


class Lateness(unittest.TestCase):
    def test_timer_won_late(self):
        # 500 us timer, woke after 600 us: 100 us late; an irq-won entry,
        # a polling entry and an overdue timer are not counted as late
        r = lateness.analyze(trace([(1.0, 500000, -1, 3, 600e-6),
                                    (1.1, 800000, 100000, 2, 100e-6),
                                    (1.2, 500000, -1, 0, 50e-6),
                                    (1.3, 0, -1, 0, 50e-6)]))
        self.assertEqual(r["selects"], 4)
        self.assertEqual(r["overdue"], 1)
        self.assertEqual(len(r["late_us"]), 1)
        self.assertAlmostEqual(r["late_us"][0], 100, delta=1)
        self.assertIn("25% of 4 idle entries", lateness.describe(r))

    def test_empty_and_garbage(self):
        r = lateness.analyze("garbage\n[001] nothing\n")
        self.assertEqual(r["selects"], 0)
        self.assertEqual(lateness.describe(r), "no sched_idle_select events")


if __name__ == "__main__":
    unittest.main()
