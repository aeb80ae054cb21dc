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


def describe():
    """The tree's pin as config.mk states it: "Debian linux-source-7.3
    7.3.4-1~bpo13+1" (the 7.3 names carry a LINUX_7.3_ prefix there)."""
    pre = "LINUX_" if LINUX == "6.12" else f"LINUX_{LINUX}_"
    pins = {}
    with open(os.path.join(TOP, "config.mk")) as f:
        for line in f:
            k, sep, v = line.partition(":=")
            if sep:
                pins[k.strip()] = v.strip()
    return "Debian %s %s" % (pins.get(pre + "DEB_PACKAGE", "?"), pins.get(pre + "DEB_VERSION", "?"))
