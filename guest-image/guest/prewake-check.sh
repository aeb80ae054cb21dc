#!/bin/sh
# prewake-check.sh RESULTS on|off: a task that an hrtimer wakes from the
# deepest emulated state does not wait for the state's exit latency when
# the idle loop sets the timer ahead of it (series patch 16, booted with
# sched_idle_prewake=1), and does without (the default).  Only the deepest state is
# left enabled, a 2 ms cyclictest runs for 2 s, and its mean latency is
# compared with half that state's exit latency: below with prewake on,
# above with it off.  Meant for -icount boots, where the latency is the
# guest's own and not the host's.
set -eu
out=$1
want=${2:-on}
cpu=/sys/devices/system/cpu
states=$(ls -d "$cpu"/cpu0/cpuidle/state* | sed 's/.*state//' | sort -n)
deep=$(echo "$states" | tail -1)
exit_us=$(cat "$cpu/cpu0/cpuidle/state$deep/latency")
for c in $(ls -d "$cpu"/cpu[0-9]* | sed 's/.*cpu//'); do
	for s in $states; do
		[ "$s" = "$deep" ] || echo 1 >"$cpu/cpu$c/cpuidle/state$s/disable"
	done
done
cat /sys/kernel/debug/sched_idle/stats >"$out/stats.before"
cyclictest --laptop -q -t 1 -i 2000 -D 2 >"$out/cyclictest.txt" 2>&1 || true
cat /sys/kernel/debug/sched_idle/stats >"$out/stats.after"
cat "$out/cyclictest.txt" "$out/stats.after"
avg=$(sed -n 's/.*Avg: *\([0-9]*\).*/\1/p' "$out/cyclictest.txt" | head -1)
[ -n "$avg" ] || { echo "prewake-check: no Avg in cyclictest's output"; exit 1; }
half=$((exit_us / 2))
if [ "$want" = on ] && [ "$avg" -lt "$half" ]; then
	echo "prewake-check: ok (on): mean latency $avg us, exit latency $exit_us us"
elif [ "$want" = off ] && [ "$avg" -ge "$half" ]; then
	echo "prewake-check: ok (off): mean latency $avg us, exit latency $exit_us us"
else
	echo "prewake-check: prewake $want, mean latency $avg us against an exit latency of $exit_us us"
	exit 1
fi
