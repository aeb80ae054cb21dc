#!/bin/sh
# disk-check.sh: run once at boot by disk-check.service in the Debian disk
# of scripts/disk-boot.sh (installed as /usr/local/sbin/disk-check); the
# unit powers the machine off when it ends.  Prints, through the journal
# to the console (whole lines, "[time] disk-check[pid]: ..."), what
# the host's judge (scripts/disk-boot.sh --judge) looks for: the running
# kernel, the idle driver and governor, whether interrupts are stamped
# and predicted (debugfs irq_predict/sources), then records 3 s of this
# machine's idle periods with perf-scripts/record.sh.
set -u
say() { echo "disk-check: $*"; }
idle=/sys/devices/system/cpu/cpuidle
dbg=/sys/kernel/debug

say "kernel $(uname -r)"
say "current_driver $(cat "$idle/current_driver" 2>/dev/null || echo none)"
say "current_governor $(cat "$idle/current_governor" 2>/dev/null || echo none)"
mountpoint -q "$dbg" || mount -t debugfs debugfs "$dbg"
src=$dbg/irq_predict/sources
if [ -r "$src" ]; then
	say "$(sed -n 1p "$src")"
	say "predicted sources $(grep -c 'intervals=[1-9]' "$src")"
	grep 'intervals=[1-9]' "$src" | head -n 4 | sed 's/^/disk-check: source /'
else
	say "no $src"
fi
/usr/local/sbin/record.sh 3 /var/tmp/idle-record
say "record.sh exit status $?"
for s in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
	[ -d "$s" ] || continue
	say "cpu0 $(cat "$s/name") usage=$(cat "$s/usage") above=$(cat "$s/above") below=$(cat "$s/below")"
done
say "done"
