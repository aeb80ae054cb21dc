"""The series a kernel was built from, and whether it is the checkout's.

A kernel's series id is the first 12 hex digits of the sha256 of the
concatenated bytes of the patch files it carries, in series/series order:
the stock kernel the patches of the "both" groups, the patched kernel
every patch listed (scripts/lib.sh, series_patches).  The kernel is built
with KBUILD_BUILD_HOST=series-ID, so its boot line reads

    Linux version 6.12.118 (idle@series-0123456789ab) (gcc ...

ids() computes the checkout's ids from series/, boot_id() reads a
console's, kernels() gathers them per kernel image over a run's cells."""
import glob
import hashlib
import os
import re

from . import linuxtree
from .configs import CONFIGS
from .workloads import TOP

# the tree's series: series/ (6.12) or series-7.3/ (LINUX=7.3)
SERIES = os.path.join(TOP, "series" if linuxtree.LINUX == "6.12" else "series-" + linuxtree.LINUX)
# as the report names it
NAME = os.path.basename(SERIES) + "/"
KINDS = ("stock", "patched")
# the series each kernel image of the configuration table is built from
# (the debug kernel is the patched tree with debug options)
IMAGE_KIND = {"stock.bzImage": "stock", "patched.bzImage": "patched",
              "patched-debug.bzImage": "patched"}
BOOT_LINE = "Linux version "
BOOT_ID = re.compile(r"@series-([0-9a-f]{12})\)")
# awk's [[:space:]] and the shell's default IFS
_SPACE = " \t\n\v\f\r"
_IFS = re.compile(r"[ \t\n]+")


class SeriesError(Exception):
    """series/ cannot give an id (no series file, a listed patch missing)."""


def patches(kind, series_file):
    """The patch names of kind in git am order, as scripts/lib.sh's
    `for p in $(series_patches KIND FILE)` gives them: a "# ---- both"
    line starts a group both kernels carry, a "# ---- patched" line one
    only the patched kernel carries (lines before any group count as
    both), other "#" lines and blank lines are skipped, and a line's
    words are split as the shell splits them."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: not one of {', '.join(KINDS)}")
    try:
        with open(series_file, "rb") as f:
            text = f.read().decode("utf-8", "surrogateescape")
    except OSError as e:
        raise SeriesError(f"{series_file}: {e.strerror}") from None
    group, out = "", []
    for line in text.split("\n"):
        if line.startswith("# ---- both"):
            group = "both"
        elif line.startswith("# ---- patched"):
            group = "patched"
        elif line.startswith("#") or not line.strip(_SPACE):
            continue
        elif kind == "patched" or group != "patched":
            out.extend(w for w in _IFS.split(line) if w)
    return out


def series_id(kind, series_dir=SERIES):
    """The series id of kind built from series_dir (its series file and
    the patches it lists); SeriesError when a listed patch is missing."""
    h = hashlib.sha256()
    for p in patches(kind, os.path.join(series_dir, "series")):
        try:
            with open(os.path.join(series_dir, p), "rb") as f:
                h.update(f.read())
        except OSError as e:
            raise SeriesError(f"{os.path.join(series_dir, p)}: {e.strerror}") from None
    return h.hexdigest()[:12]


def ids(series_dir=SERIES):
    """{kind: id} of series_dir, or {kind: None, "error": why} when it
    cannot be read."""
    try:
        return {k: series_id(k, series_dir) for k in KINDS}
    except SeriesError as e:
        return dict({k: None for k in KINDS}, error=str(e))


def boot_id(path):
    """A console log's series id: the id of its first boot line; "" when
    that line has none (a kernel built without it); None when the log has
    no boot line (a boot that never reached the kernel) or is missing."""
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if BOOT_LINE in line:
                    m = BOOT_ID.search(line)
                    return m.group(1) if m else ""
    except OSError:
        pass
    return None


def consoles(d):
    """The console logs of a cell directory: its boot's, then its reruns'."""
    def n(log):
        x = os.path.basename(os.path.dirname(log)).rsplit("-", 1)[1]
        return int(x) if x.isdigit() else 0
    reruns = glob.glob(os.path.join(d, "rerun-*", "console.log"))
    return [os.path.join(d, "console.log")] + sorted(reruns, key=n)


def kernels(cell_list, checkout):
    """Per kernel image the cells of cell_list ran ([(directory, meta)],
    each meta naming its configuration), what series it was built from:
    {image: {"configs": [names], "sha256": {bzImage sha256s}, "ids":
    {id: boots} ("" for boot lines without one), "kind": stock, patched
    or None, "checkout": the checkout's id of that kind or None, "state":
    one of "checkout", "other", "unknown", "disagree"}}.  checkout is
    ids()'s answer.  A boot whose console has no boot line is no evidence
    and is not counted."""
    out = {}
    for d, meta in cell_list:
        c = CONFIGS.get(meta.get("config"))
        if c is None:
            continue
        k = out.setdefault(c.kernel, {"configs": [], "sha256": set(), "ids": {}})
        if c.name not in k["configs"]:
            k["configs"].append(c.name)
        if meta.get("kernel_sha256"):
            k["sha256"].add(meta["kernel_sha256"])
        for log in consoles(d):
            i = boot_id(log)
            if i is not None:
                k["ids"][i] = k["ids"].get(i, 0) + 1
    for image, k in out.items():
        k["configs"].sort(key=list(CONFIGS).index)
        k["kind"] = IMAGE_KIND.get(image)
        k["checkout"] = checkout.get(k["kind"]) if k["kind"] else None
        seen = set(k["ids"])
        if len(seen) > 1:
            k["state"] = "disagree"
        elif not seen or seen == {""}:
            k["state"] = "unknown"
        elif k["checkout"] and seen == {k["checkout"]}:
            k["state"] = "checkout"
        else:
            k["state"] = "other"
    return out


def ordered(ks):
    """The (image, k) of kernels() in the configuration table's order."""
    return sorted(ks.items(), key=lambda x: list(CONFIGS).index(x[1]["configs"][0]))


def describe(image, k, checkout):
    """One line of what series image k was built from, as the report says
    it: its id and whether it is the checkout's series/."""
    if k["state"] == "disagree":
        got = ", ".join(f"{i or 'none'} ({n} boot{'s' if n > 1 else ''})"
                        for i, n in sorted(k["ids"].items(), key=lambda x: (-x[1], x[0])))
        return f"series ids disagree between its cells: {got}; NOT one series"
    if k["state"] == "unknown":
        return ("series unknown (built without a series id)" if k["ids"]
                else "series unknown (no boot line in its consoles)")
    i = next(iter(k["ids"]))
    if k["state"] == "checkout":
        return f"series {i}, the checkout's {NAME}"
    if k["checkout"]:
        return f"series {i}, NOT the checkout's {NAME} (its id: {k['checkout']})"
    why = checkout.get("error") or f"no series kind known for {image}"
    return f"series {i}, NOT known to be the checkout's {NAME} ({why})"


def warning(ks, checkout):
    """The headline's first line when a kernel is not the checkout's
    series/ or its series is unknown (ks: kernels(), checkout: ids()),
    else None."""
    bad = [(image, k) for image, k in ordered(ks) if k["state"] != "checkout"]
    if not bad:
        return None
    what = "; ".join(f"{image} ({', '.join(k['configs'])}): {describe(image, k, checkout)}"
                     for image, k in bad)
    return (f"**Not the checkout's {NAME}**: these figures are not those of the series "
            f"in {NAME} ({what}; the header's \"Kernels\" says which).\n")
