#!/bin/sh
# smoke.sh RESULTS: the boot smoke run.  Records the cpuidle state table
# and per-state counters, idles a moment, and fails when an idle driver is
# registered but no state beyond polling was ever entered.
set -eu
out=$1
sleep 1
idle=/sys/devices/system/cpu/cpu0/cpuidle
cat /proc/interrupts >"$out/interrupts"
if [ -d "$idle" ]; then
	for s in "$idle"/state*; do
		echo "$(cat "$s/name") usage=$(cat "$s/usage") time=$(cat "$s/time") above=$(cat "$s/above") below=$(cat "$s/below")"
	done | tee "$out/cpuidle-states"
	deep=$(for s in "$idle"/state*; do
		[ "$(cat "$s/name")" = POLL ] || cat "$s/usage"
	done | awk '{ n += $1 } END { print n + 0 }')
	[ "$deep" -gt 0 ] || { echo "smoke: no halting state entered"; exit 1; }
fi
echo "smoke: ok"
