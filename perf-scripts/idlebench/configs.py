"""The table of configurations: which kernel, which boot arguments, what
the guest must report to prove the configuration took effect, and where
in the matrix it runs.  Every other module takes a configuration's facts
from CONFIGS."""
import os
import re
from dataclasses import dataclass

SHARED_LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "shared", "lib.sh")


def guest_vcpus(path=SHARED_LIB):
    """The vCPU counts a guest boots with: shared/lib.sh's GUEST_VCPUS
    line, the one place they are written (guest-image/run-qemu.sh -c takes
    only those)."""
    with open(path) as f:
        m = re.search(r'^GUEST_VCPUS="([0-9 ]+)"$', f.read(), re.M)
    if not m:
        raise RuntimeError(f"{path} has no GUEST_VCPUS=\"N ...\" line")
    return tuple(int(n) for n in m.group(1).split())


VCPUS = guest_vcpus()


@dataclass(frozen=True)
class Config:
    name: str
    kernel: str                 # image under the kernels directory
    args: str = ""              # kernel command line words
    governor: str = None        # current_governor the guest must report
    expect: str = None          # a console line that proves the configuration
    guest_sets: tuple = ()      # bench.sh set.KEY=VALUE words
    vcpus: tuple = VCPUS        # the vCPU counts it runs on, --vcpus picking among them
    default: bool = True        # in a run without --configs
    quick: bool = False         # in --quick
    quick_cost: bool = False    # in --quick's cost stage
    reported: bool = True       # a column of the report's tables


CONFIGS = {c.name: c for c in (
    Config("menu", "stock.bzImage", "cpuidle.governor=menu", governor="menu",
           quick=True, quick_cost=True),
    Config("teo", "stock.bzImage", "cpuidle.governor=teo", governor="teo", quick=True),
    # the patched path shows as the cpuidle governor "sched_idle"
    Config("sched", "patched.bzImage", governor="sched_idle",
           expect="interrupt rule adaptive, learning", quick=True, quick_cost=True),
    # the same without learning from past idle periods (sched_idle_learn=0,
    # a test-infrastructure knob of the series): run on request
    # (--configs), on 2 vCPUs only
    Config("sched-nolearn", "patched.bzImage", "sched_idle_learn=0", governor="sched_idle",
           expect="interrupt rule adaptive, not learning", vcpus=(2,),
           default=False),
    # the 2016 RFC's rule as the predictor (sched_idle_rule=), which did
    # not learn either; on every vCPU count, like the others
    Config("sched-rfc", "patched.bzImage", "sched_idle_rule=rfc sched_idle_learn=0",
           governor="sched_idle", expect="interrupt rule rfc, not learning"),
    # teo fed by the predictor (teo_irq_predict=1, a test-infrastructure
    # knob of the series): teo's sleep length cut to the next predicted
    # interrupt, on the patched kernel, so that a gain can be told apart
    # as the prediction's or the rule's.  On 2 vCPUs, on request
    # (--configs): in the default matrix it would take the full run past
    # its budget (tests/test_plan.py)
    Config("teo-irq", "patched.bzImage", "cpuidle.governor=teo teo_irq_predict=1",
           governor="teo", expect="teo: the sleep length is cut to the predicted interrupt",
           vcpus=(2,), default=False),
    # The debug build of the patched kernel (lockdep, KASAN, UBSAN, ...):
    # scripts/test-robust.sh runs every workload on it once, for splats,
    # not numbers.  no5lvl: 4-level paging, because with QEMU's LA57 an
    # interrupt during identify_cpu() gets a false KASAN wild-memory-access
    # (upstream bug, fixed after 6.12).  Its built-in rcutorture starts at
    # boot: without the boost test (it failed once under TCG, "rtbf: 1")
    # and the forward-progress flood, as in scripts/test-robust.sh.
    # set.perf=0: perf sched record switches tracepoints on at run time,
    # patching kernel text under the other vCPUs (guest-image/README.md,
    # "Known limits").
    Config("sched-debug", "patched-debug.bzImage",
           "no5lvl rcutorture.test_boost=0 rcutorture.fwd_progress=0",
           governor="sched_idle", expect="interrupt rule adaptive, learning",
           guest_sets=("set.perf=0",), default=False, reported=False),
)}
DEFAULT_CONFIGS = [n for n, c in CONFIGS.items() if c.default]
REPORTED_CONFIGS = [n for n, c in CONFIGS.items() if c.reported]
