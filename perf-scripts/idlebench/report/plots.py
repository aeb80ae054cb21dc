"""The report's plots (gnuplot PNGs): latency CDFs, misprediction and
power bars, residency shares.  Without gnuplot there are no plots."""
import os
import shutil
import subprocess
import sys

from .. import stats
from .tables import CONFIGS, values


def gnuplot(script, png, plots):
    if not shutil.which("gnuplot"):
        return False
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if r.returncode or not os.path.exists(png):
        print(f"report: gnuplot failed for {png}: {r.stderr.strip()[:300]}", file=sys.stderr)
        return False
    plots.append(png)
    return True


def histogram(png, size, title, style, cols, data, plots):
    """A gnuplot histogram of one column per name in cols, each row of data
    'LABEL value...' (data is given once per column, as gnuplot reads it)."""
    pl = ", ".join(("'-' " if i == 0 else "'' ") + f"using {i + 2}:xtic(1) title '{c}'"
                   for i, c in enumerate(cols))
    script = (f"set terminal pngcairo size {size}\nset output '{png}'\nset title '{title}'\n"
              "set style data histograms\nset style fill solid 0.8 border -1\n"
              f"{style}plot {pl}\n" + data * len(cols))
    return png if gnuplot(script, png, plots) else None


def plot_cdf(group, w, v, pdir, plots):
    lines, datas = [], []
    for cfg in CONFIGS:
        hist = {}
        for m in group.get(cfg, []):
            for k, c in m.get("ct_hist", {}).items():
                hist[int(k)] = hist.get(int(k), 0) + c
        if not hist:
            continue
        n = sum(hist.values())
        acc, rows = 0, []
        for k in sorted(hist):
            acc += hist[k]
            rows.append(f"{k} {acc / n:.6f}")
        datas.append("\n".join(rows) + "\ne\n")
        lines.append(f"'-' using 1:2 with steps lw 2 title '{cfg}'")
    if not lines:
        return None
    png = os.path.join(pdir, f"cdf-{w}-{v}cpu.png")
    script = (f"set terminal pngcairo size 800,480\nset output '{png}'\n"
              f"set title 'cyclictest latency CDF, {w}, {v} vCPU'\nset logscale x\n"
              "set xlabel 'latency (us)'\nset ylabel 'fraction'\nset key bottom right\n"
              "set grid\nplot " + ", ".join(lines) + "\n" + "".join(datas))
    return png if gnuplot(script, png, plots) else None


def plot_bars(runs, v, works, key, title, pdir, plots, extra=None):
    rows = []
    cols = [c for c in CONFIGS if any(runs.get((w, v), {}).get(c) for w in works)]
    # extra (label, key): beside each configuration its own figure of key,
    # from the same runs (each configuration's oracle is computed on its
    # own wake times: a mean over configurations is no one's)
    keys = [(c, key) for c in cols]
    if extra and any(values(runs.get((w, v), {}), c, extra[1]) for w in works for c in cols):
        keys = [k for c in cols for k in ((c, key), (c, extra[1]))]
    cols_x = [c if k == key else f"{c} {extra[0]}" for c, k in keys]
    for w in works:
        g = runs.get((w, v), {})
        vals = []
        for c, k in keys:
            xs = values(g, c, k)
            vals.append(f"{stats.mean(xs):.6g}" if xs else "NaN")
        rows.append(f"{w} " + " ".join(vals))
    if not cols:
        return None
    data = "\n".join(rows) + "\ne\n"
    paired = len(cols_x) > len(cols)
    return histogram(os.path.join(pdir, f"{key}-{v}cpu.png"), "1100,480" if paired else "900,480",
                     f"{title}, {v} vCPU",
                     "set style histogram clustered gap 1\nset xtics rotate by -30\n"
                     "set grid ytics\nset yrange [0:*]\n" + ("set key outside right\n" if paired else ""),
                     cols_x, data, plots)


def plot_residency(runs, v, works, pdir, plots):
    names = []
    rows = []
    for w in works:
        for c in CONFIGS:
            ms = runs.get((w, v), {}).get(c)
            if not ms:
                continue
            tot = {}
            for m in ms:
                for st, s in m["states"].items():
                    tot[st] = tot.get(st, 0) + s["time"]
                    if st not in names:
                        names.append(st)
            allt = sum(tot.values()) or 1
            rows.append((f"{w}/{c}", [tot.get(n, 0) / allt for n in names]))
    if not rows:
        return None
    data = "\n".join(f"{lab} " + " ".join(f"{x:.4f}" for x in (r + [0] * (len(names) - len(r))))
                     for lab, r in rows) + "\ne\n"
    return histogram(os.path.join(pdir, f"residency-{v}cpu.png"), "1100,520",
                     f"share of idle residency per state, {v} vCPU",
                     "set style histogram rowstacked\nset boxwidth 0.8\n"
                     "set xtics rotate by -60 font ',8'\nset yrange [0:1]\nset key outside right\n",
                     names, data, plots)


def per_vcpu(runs, v, works, pdir, plots):
    """The PNGs of one vCPU count: residency, misprediction, power."""
    pngs = (plot_residency(runs, v, works, pdir, plots),
            plot_bars(runs, v, works, "miss_rate", "misprediction rate (above+below)/usage",
                      pdir, plots),
            plot_bars(runs, v, works, "power_mw",
                      "modelled power (mW), each configuration beside its own oracle",
                      pdir, plots, extra=("oracle", "oracle_power_mw")))
    return [p for p in pngs if p]
