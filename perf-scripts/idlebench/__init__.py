"""idlebench: the idle-governor bench (perf-scripts/README.md).

workloads, configs   the two tables everything else reads
plan                 the cells of a run and its wall-time estimate
cells                a cell's directory: layout, atomic writes, resume, load
launch               boot one cell (guest-image/run-qemu.sh) and parse it
trace, energy        the one trace reader; the driver's energy model, oracle
parse, cost, lateness  raw results -> numbers
stats                mean, CI, Welch
series               the series id each kernel was built from, the checkout's
report               docs/results.md: tables, plots, prose
"""
