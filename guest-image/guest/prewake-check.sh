#!/bin/sh
# prewake-check.sh RESULTS on|off: a task that an hrtimer wakes from the
# deepest emulated state does not wait for the state's exit latency when
# the idle loop sets the timer ahead of it (series patch 16, booted with
# sched_idle_prewake=1), and does without (the default).  Only the
# deepest state is left enabled, a 2 ms cyclictest runs for 2 s after
# the boot has settled, and its median latency (from its histogram: the
# mean is set by a few ms-long outliers) is compared with that state's
# exit latency: below with prewake on, at or above with it off (the
# wakeup path itself takes 60-70 us of guest time under TCG, so the two
# sit about that far on either side).  Meant for -icount boots, where
# the latency is the guest's own and not the host's.
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
sleep 2
cat /sys/kernel/debug/sched_idle/stats >"$out/stats.before"
cyclictest --laptop -q -t 1 -i 2000 -D 2 -h 2000 --histfile="$out/hist" \
	>"$out/cyclictest.txt" 2>&1 || true
cat /sys/kernel/debug/sched_idle/stats >"$out/stats.after"
cat "$out/cyclictest.txt" "$out/stats.after"
# histogram lines: latency in us, then the count, both zero-padded (the
# zeros go first: busybox awk reads 000054 as octal)
med=$(sed -n 's/^0*\([0-9][0-9]*\) 0*\([0-9][0-9]*\)$/\1 \2/p' "$out/hist" 2>/dev/null |
	awk '{ n[$1] = $2; total += $2 }
	END { for (l = 0; l <= 2000; l++) { c += n[l]; if (total && c * 2 >= total) { print l; exit } } }')
[ -n "$med" ] || { echo "prewake-check: no samples in cyclictest's histogram"; exit 1; }
if [ "$want" = on ] && [ "$med" -lt "$exit_us" ]; then
	echo "prewake-check: ok (on): median latency $med us, exit latency $exit_us us"
elif [ "$want" = off ] && [ "$med" -ge "$exit_us" ]; then
	echo "prewake-check: ok (off): median latency $med us, exit latency $exit_us us"
else
	echo "prewake-check: prewake $want, median latency $med us against an exit latency of $exit_us us"
	exit 1
fi
