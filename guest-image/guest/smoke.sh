#!/bin/sh
# smoke.sh RESULTS: the boot smoke run.  Records the cpuidle state table
# and per-state counters, idles a moment, and fails when an idle driver is
# registered but cpu0 shows no idle state, or no state beyond polling was
# ever entered.
# smoke.sh --judge STATES DRIVER: the same verdict on a recorded
# cpuidle-states file (empty or missing: no cpuidle directory) with
# current_driver DRIVER (none: no driver, nothing to judge).
set -eu
judge() {
	[ "$2" != none ] || { echo "smoke: ok (no idle driver)"; return 0; }
	[ -s "$1" ] || { echo "smoke: FAIL: driver $2 registered and cpu0 has no cpuidle state"; return 1; }
	deep=$(awk '$1 != "POLL" { sub("usage=", "", $2); n += $2 } END { print n + 0 }' "$1")
	[ "$deep" -gt 0 ] || { echo "smoke: FAIL: no halting state entered"; return 1; }
	echo "smoke: ok"
}
if [ "${1:-}" = --judge ]; then
	judge "$2" "$3"
	exit $?
fi
out=$1
sleep 1
idle=/sys/devices/system/cpu/cpu0/cpuidle
cat /proc/interrupts >"$out/interrupts"
: >"$out/cpuidle-states"
if [ -d "$idle" ]; then
	for s in "$idle"/state*; do
		echo "$(cat "$s/name") usage=$(cat "$s/usage") time=$(cat "$s/time") above=$(cat "$s/above") below=$(cat "$s/below")"
	done | tee "$out/cpuidle-states"
fi
judge "$out/cpuidle-states" "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)"
