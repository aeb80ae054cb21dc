#!/bin/sh
# torture.sh RESULTS [SECONDS]: the debug kernel under rcutorture (built
# in, started at boot; parameters on the kernel command line, see
# scripts/test-robust.sh) while robust.sh churns CPUs, interrupts and
# idle states.  Then one kmemleak scan.  Fails on any rcutorture error
# mark ("!!!"), on no rcutorture statistics, and on kmemleak reports.
#
# rcutorture's own verdict ("End of test: SUCCESS") is printed by its
# cleanup, which a built-in rcutorture runs only from its shutdown timer
# (rcutorture.shutdown_secs) right before it powers the machine off.  So
# this script asks /init (file /tmp/await-poweroff) to send the results
# and then wait for that power-off instead of forcing its own; the host
# (scripts/test-robust.sh) reads the verdict in the console log.
set -eu
out=$1 secs=${2:-30}
# Steps also go to the console (timestamped, next to rcutorture's lines).
log() { echo "torture: $*"; echo "torture: $*" >/dev/kmsg 2>/dev/null || true; }
up() { cut -d. -f1 /proc/uptime; }
# Every 10 s on the console: online CPUs, load, the tasks running or in D
# state with their wait channel: what a slow or stuck phase is doing.
(while sleep 10; do
	t=
	for d in /proc/[0-9]*; do
		read -r st <"$d/stat" 2>/dev/null || continue
		case "$st" in *") R "* | *") D "*)
			t="$t ${st%%)*}):$(echo "$st" | cut -d')' -f2 | cut -c2)/$(cat "$d/wchan" 2>/dev/null)" ;;
		esac
	done
	echo "torture-mon: online $(cat /sys/devices/system/cpu/online) load $(cut -d' ' -f1-4 /proc/loadavg) tasks$t" >/dev/kmsg
done) &
mon=$!
trap 'kill "$mon" 2>/dev/null || true' EXIT
p=/sys/module/rcutorture/parameters
shutdown=$(cat "$p/shutdown_secs" 2>/dev/null || echo 0)
[ "$shutdown" -gt 0 ] || { log "FAIL rcutorture.shutdown_secs is not set"; exit 1; }
# rcutorture's lines start with its torture_type: "rcu-torture:", and
# "busted-torture:" in test-robust.sh's control.
tt=$(cat "$p/torture_type" 2>/dev/null || echo rcu)
# rcutorture counts shutdown_secs from its start (a boot timestamp; read
# before the churn fills the ring buffer).
t0=$(dmesg | sed -n "s/^\[ *\([0-9]*\)\..*$tt-torture:--- Start of test.*/\1/p" | head -1)
[ -n "$t0" ] || { log "FAIL no $tt-torture start line in dmesg"; exit 1; }
off=$((t0 + shutdown))
log "rcutorture ($tt) started at ${t0}s, powers off at ${off}s, now $(up)s"
# From here on, whichever way this script ends, /init waits for
# rcutorture's power-off, whose cleanup prints the verdict.
# shellcheck disable=SC2317 # run by the EXIT trap
await_poweroff() {
	kill "$mon" 2>/dev/null || true
	w=$((off - $(up) + 60))
	[ "$w" -gt 0 ] || w=1
	echo "$w" >/tmp/await-poweroff
}
trap await_poweroff EXIT
# CPU hotplug is rcutorture's (onoff_interval, see test-robust.sh): the
# churn's own offline/online loop, next to rcutorture's readers, stalled
# for minutes in __flush_work on every run (runnable tasks not getting a
# CPU under TCG with the debug options), on the governor path too.
ROBUST_HOTPLUG=0 sh /scripts/robust.sh "$out" "$secs" || exit 1

# The scan blocks grace periods for as long as it runs (see
# configs/debug.config): not while the forward-progress test, which
# counts grace periods, runs.  Its first run starts fwd_progress_holdoff
# seconds after rcutorture's start; wait for its end, the next one starts
# a holdoff later.
if [ "$(cat "$p/fwd_progress" 2>/dev/null || echo 0)" -gt 0 ]; then
	while ! dmesg | grep -q 'rcu_torture_fwd_prog_cr Duration' && [ "$(up)" -lt $((off - 30)) ]; do
		sleep 2
	done
	dmesg | grep -q 'rcu_torture_fwd_prog_cr Duration' ||
		{ log "FAIL the forward-progress test did not finish before ${off}s - 30s"; exit 1; }
	log "forward-progress test done at $(up)s: $(dmesg | grep -o 'n_max_gps: [0-9]*' | head -1)"
fi

fail=0
if [ -w /sys/kernel/debug/kmemleak ]; then
	# Stall warnings off only for the scan's known long read-side
	# critical section; rcutorture's writer-stall report obeys this too.
	sup=/sys/module/rcupdate/parameters/rcu_cpu_stall_suppress
	s0=$(up)
	echo 1 >"$sup"
	echo scan >/sys/kernel/debug/kmemleak
	echo 0 >"$sup"
	cat /sys/kernel/debug/kmemleak >"$out/kmemleak"
	leaks=$(grep -c '^unreferenced object' "$out/kmemleak" || true)
	ours=$(grep -c -E 'irq_predict|sched_idle|cpuidle_emu|irq_timings|timings' "$out/kmemleak" || true)
	log "kmemleak: scan took $(($(up) - s0))s, $leaks unreferenced objects, $ours backtrace lines in the series' code"
	if [ "$leaks" -gt 0 ]; then
		head -40 "$out/kmemleak"
		log "FAIL kmemleak reported $leaks unreferenced objects (results/kmemleak)"
		fail=1
	fi
else
	log "FAIL /sys/kernel/debug/kmemleak is missing"; fail=1
fi

dmesg >"$out/dmesg"
# A lost wakeup or a starved user space shows as a gap in the monitor's
# 10 s heartbeat (it printed once in 150 s when hackbench swamped the
# debug kernel): fail on any gap over 60 s.
gap=$(sed -n 's/^\[ *\([0-9]*\)\..*torture-mon:.*/\1/p' "$out/dmesg" |
	awk 'NR > 1 && $1 - p > g { g = $1 - p } { p = $1 } END { print g + 0 }')
log "longest gap between monitor lines: ${gap}s"
[ "$gap" -le 60 ] || { log "FAIL user space stalled: no monitor line for ${gap}s"; fail=1; }
n=$(grep -c "$tt-torture:.*ver:" "$out/dmesg" || true)
log "$n rcutorture statistics lines so far"
[ "$n" -gt 0 ] || { log "FAIL no rcutorture statistics"; fail=1; }
# rcutorture's hotplug: "onoff: offOK/offTries:onOK/onTries" in its stats
oo=$(grep -o 'onoff: [0-9]*/[0-9]*:[0-9]*/[0-9]*' "$out/dmesg" | tail -1)
log "rcutorture CPU hotplug so far: ${oo:-no onoff statistics}"
if [ "$(grep -c "^processor" /proc/cpuinfo)" -gt 1 ]; then
	case "$oo" in
	"onoff: 0/"* | *":0/"* | "") log "FAIL rcutorture made no successful CPU offline and online"; fail=1 ;;
	esac
fi
if grep -q "$tt-torture.*!!!" "$out/dmesg"; then
	log "FAIL rcutorture reported errors"; grep "$tt-torture.*!!!" "$out/dmesg" | head -3
	fail=1
fi
[ "$(up)" -lt "$off" ] || { log "FAIL past rcutorture's power-off time already"; fail=1; }
# /init sends the results, then waits for rcutorture's power-off (the
# EXIT trap above).
[ "$fail" = 0 ] && log "ok (rcutorture's verdict follows at its shutdown)"
exit "$fail"
