"""The kernel tree a bench works on, as the Makefile's LINUX names it.

6.12 (the default) is Debian 12's kernel line, 7.3 today's (config.mk pins
both).  Each tree has its own kernels, runs and report; the guest image
and the host tools are the same for both, under build/.
"""
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TREES = {"6.12": ("build", "results.md"), "7.3": (os.path.join("build", "7.3"), "results-7.3.md")}

LINUX = os.environ.get("LINUX") or "6.12"
if LINUX not in TREES:
    raise SystemExit("LINUX=%s: the trees are %s" % (LINUX, " and ".join(sorted(TREES))))
SHARED = os.path.join(TOP, "build")           # the image, udpgen
BUILD = os.path.join(TOP, TREES[LINUX][0])    # kernels, runs
RESULTS = os.path.join(TOP, "docs", TREES[LINUX][1])
