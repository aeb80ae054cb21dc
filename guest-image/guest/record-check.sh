#!/bin/sh
# record-check.sh RESULTS [SECONDS [WORD ...]]: perf-scripts/record.sh
# as a user would run it, in the guest: it records SECONDS (default 4)
# while bench.sh runs its WORDs (`perf-scripts/bench.py --guest-words
# timer,dev2` prints them; default: a 1 s window of cyclictest at 1 ms;
# generator sources need hpet=disable and QEMU's -global hpet.timers=8),
# and returns what it wrote, RESULTS/states and RESULTS/trace.txt.gz, with
# bench.sh's own per-window ftrace traces in RESULTS/bench/, for
# idle-loop/replay on the host (scripts/tests/replay-gov.sh).
set -eu
out=$1 secs=${2:-4}
shift
[ $# -gt 0 ] && shift
works=${*:-timer=1 timer.ct=1000}
mkdir -p "$out/bench"
sh /scripts/record.sh "$secs" /tmp/rec >"$out/record.out" 2>&1 &
rp=$!
# perf switches its events on before the first window opens
sleep 1
# shellcheck disable=SC2086
sh /scripts/bench.sh "$out/bench" set.perf=0 $works >"$out/bench.log" 2>&1 ||
	{ echo "FAIL: bench.sh: $(tail -1 "$out/bench.log")"; exit 1; }
# bench.sh goes on past a workload that failed, and marks it
for f in "$out"/bench/*/failed; do
	[ ! -e "$f" ] || { echo "FAIL: bench.sh: $(basename "$(dirname "$f")"): $(head -1 "$f")"; exit 1; }
done
wait "$rp" || { echo "FAIL: $(tail -1 "$out/record.out")"; exit 1; }
cat "$out/record.out"
cp /tmp/rec/states "$out/states"
gzip -c /tmp/rec/trace.txt >"$out/trace.txt.gz"
echo "record-check: ok"
