#!/bin/sh
# shortcut-check.sh RESULTS: skipping the sleep length never changes the
# idle loop's choice.  Boot the patched kernel with
# sched_idle_shortcut_check=1 (or =busted, the control), hpet=disable and
# QEMU -global hpet.timers=8.  For 2 s a 700 us generator source on CPU 1
# (interrupts predicted before the next event) runs beside a cyclictest
# at 3 ms on each CPU (timers before the tick, and the tick before
# them); then debugfs sched_idle/stats must show, summed over the CPUs,
# at least 200 entries checked, at least 100 of them where the next
# timer was not the sleep length, and none whose choice differed.
# shortcut-check.sh --judge FILE: the verdict alone, on a copy of stats.
set -eu

judge() {
	awk '
		/^cpu=/ {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] }
			have = have || $0 ~ /checked=/
		}
		END {
			if (!have) { print "FAIL: no checked= field in sched_idle/stats"; exit 1 }
			printf "shortcut-check: checked=%d shortcut=%d mismatched=%d\n",
				v["checked"], v["shortcut"], v["mismatched"]
			if (v["checked"] < 200) { print "FAIL: fewer than 200 entries checked"; exit 1 }
			if (v["shortcut"] < 100) { print "FAIL: fewer than 100 entries took the shortcut"; exit 1 }
			if (v["mismatched"]) { print "FAIL: choices differ without the sleep length"; exit 1 }
		}' "$1"
}

if [ "${1:-}" = --judge ]; then
	judge "${2:?usage: shortcut-check.sh --judge FILE}"
	exit $?
fi

out=$1
gen=/sys/kernel/debug/hpet_irqgen
stats=/sys/kernel/debug/sched_idle/stats
[ -r "$stats" ] || { echo "FAIL: no $stats"; exit 1; }
[ -w "$gen/sources" ] || { echo "FAIL: no $gen (boot with hpet=disable and hpet.timers=8)"; exit 1; }
grep -q 'sched_idle_shortcut_check=' /proc/cmdline ||
	{ echo "FAIL: booted without sched_idle_shortcut_check="; exit 1; }
echo clear >"$gen/control"
echo "cpu=1 proc=periodic period_us=700 jitter_us=50 seed=1" >"$gen/sources"
echo start >"$gen/control"
cyclictest -q -t 2 -a 0,1 -i 3000 -D 2 >/dev/null 2>&1 || true
echo stop >"$gen/control"
cat "$stats" >"$out/sched_idle_stats"
cat "$out/sched_idle_stats"
judge "$out/sched_idle_stats"
