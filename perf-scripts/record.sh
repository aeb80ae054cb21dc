#!/bin/sh
# record.sh SECONDS [OUTDIR]: record this machine's idle periods for
# idle-loop/replay, on any Linux machine with perf and a stock kernel (no
# kernel to build, nothing loaded).  Run as root while the workload of
# interest runs.  Writes OUTDIR (default ./idle-record):
#   states      the idle-state table of cpu0 from
#               /sys/devices/system/cpu/cpu0/cpuidle/ (name, exit latency,
#               target residency, disabled), the governor, the driver and
#               HZ (from /boot/config-$(uname -r) or /proc/config.gz, or
#               $HZ if set) for `replay --states`
#   trace.txt   `perf script --ns` of power:cpu_idle, irq:irq_handler_entry
#               and the hrtimer and timer-wheel events (start, cancel,
#               expire_entry) of all CPUs, on CLOCK_MONOTONIC (the clock of
#               hrtimer expiries)
# then replay it:
#   build/idle-loop/replay --states OUTDIR/states OUTDIR/trace.txt
# Works under busybox sh (the guest uses it too).
set -eu
secs=${1:-}
out=${2:-idle-record}
die() { echo "record.sh: $*" >&2; exit 1; }
case "$secs" in
'' | *[!0-9]*) die "usage: record.sh SECONDS [OUTDIR] (SECONDS a whole number)" ;;
esac
[ "$secs" -gt 0 ] || die "SECONDS must be at least 1"
command -v perf >/dev/null 2>&1 || die "perf is missing (Debian: linux-perf)"
sys=/sys/devices/system/cpu
[ -r "$sys/cpu0/cpuidle/state0/name" ] ||
	die "$sys/cpu0/cpuidle has no idle states: no cpuidle driver, nothing to replay"
# perf reads each tracepoint from tracefs, which only root may read on
# most systems: say so now, not with perf's usage text after the fact
tp=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	if [ -r "$d/events/power/cpu_idle/id" ]; then tp=$d; break; fi
done
[ -n "$tp" ] || [ "$(id -u)" -eq 0 ] ||
	die "no permission to read the tracepoint power:cpu_idle (/sys/kernel/tracing/events/power/cpu_idle/id): run as root"
mkdir -p "$out" || die "cannot create $out"

# HZ: TICK_NSEC of the governors; the kernel's config says it
hz=${HZ:-}
if [ -z "$hz" ] && [ -r "/boot/config-$(uname -r)" ]; then
	hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)")
fi
if [ -z "$hz" ] && [ -r /proc/config.gz ]; then
	hz=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
fi

gov=$(cat "$sys/cpuidle/current_governor" 2>/dev/null ||
	cat "$sys/cpuidle/current_governor_ro" 2>/dev/null || echo unknown)
drv=$(cat "$sys/cpuidle/current_driver" 2>/dev/null || echo unknown)
{
	echo "# idle states of cpu0, $(uname -sr), recorded $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	if [ -n "$hz" ]; then echo "hz $hz"; else echo "# HZ unknown: replay assumes 250 (set HZ=)"; fi
	echo "governor $gov"
	echo "driver $drv"
	echo "# state NAME EXIT_LATENCY_US TARGET_RESIDENCY_US DISABLE"
	n=0
	while [ -d "$sys/cpu0/cpuidle/state$n" ]; do
		d=$sys/cpu0/cpuidle/state$n
		name=$(tr -c 'A-Za-z0-9_.\n-' '_' <"$d/name")
		echo "state $name $(cat "$d/latency") $(cat "$d/residency") $(cat "$d/disable")"
		n=$((n + 1))
	done
} >"$out/states.tmp"
mv "$out/states.tmp" "$out/states"

# events the replay reads; -k CLOCK_MONOTONIC puts the trace on the
# hrtimers' clock
perf record -a -k CLOCK_MONOTONIC -o "$out/perf.data" \
	-e power:cpu_idle -e irq:irq_handler_entry \
	-e timer:hrtimer_start -e timer:hrtimer_cancel -e timer:hrtimer_expire_entry \
	-e timer:timer_start -e timer:timer_cancel -e timer:timer_expire_entry \
	-- sleep "$secs" >"$out/record.log" 2>&1 ||
	die "perf record failed: $(grep -m1 -iE 'permission|paranoid|not found|no such' "$out/record.log" ||
		tail -1 "$out/record.log")"
perf script --ns -i "$out/perf.data" >"$out/trace.tmp" 2>"$out/script.log" ||
	die "perf script failed: $(tail -1 "$out/script.log")"
mv "$out/trace.tmp" "$out/trace.txt"
echo "record.sh: $(grep -c 'power:cpu_idle' "$out/trace.txt") idle events, governor $gov, driver $drv -> $out/trace.txt, $out/states"
