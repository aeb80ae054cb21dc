#!/bin/sh
# bench.sh RESULTS [set.KEY=VALUE ...] NAME=SECONDS ...
#
# Guest side of the idle-governor bench (busybox sh).  For each workload
# NAME run for SECONDS it writes RESULTS/NAME/:
#   before.* / after.*   /proc/interrupts, per-state cpuidle sysfs counters
#                        of every CPU (.states), cpuidle_emu stats (.emu),
#                        sched_idle stats when the kernel has them (.sched_idle)
#   cyclictest.json      cyclictest --laptop (never forbids idle states)
#   perf.data            perf sched record (bench.py runs perf sched
#                        latency/timehist on it on the host)
#   trace.txt            tracefs: power:cpu_idle, irq:irq_handler_entry
#                        (+ sched_idle:sched_idle_select, irq_predict:*)
#   workload.log         the workload's own output; window: start/end times
# and RESULTS/bench-info (model, state table, options) once per boot.
#
# Workloads: idle timer rtc block net net2 netburst netpoisson ipi mixed
# dev dev2 devburst devpoisson devonoff devmix.
# The dev* workloads are device interrupts at exact guest times from the
# HPET interrupt generator (debugfs hpet_irqgen, series patch 3; boot
# with hpet=disable and QEMU's -global hpet.timers=8), each source pinned
# to its CPU (gen_sources); devmix adds cyclictest at timer_us and the
# ipi pipe; RESULTS/NAME/irqgen.stats holds
# each source's arrivals, late re-arms and handler lateness histogram.
# The net* workloads and mixed need host-driven UDP (perf-scripts/bench.py
# starts perf-scripts/udpgen when the guest prints "bench-sync: start"
# on the console).  Options (set.KEY=VALUE, before the workloads):
#   probe_us (10000) cyclictest period when it is only the latency probe
#   timer_us (1000)  cyclictest period of the timer workload
#   rtc_hz (512)     RTC periodic rate; blk_period_us (3000); perf (1)
#   ipi_loops (2000) perf bench sched pipe round trips per second
#   port1 (5001) port2 (5002): UDP ports of the net workloads
#   seed (1)         varies a repeat: the window opens (seed * 7919) mod
#                    10000 us after the set-up, and every generator
#                    source's seed derives from it
set -eu
out=${1:?usage: bench.sh RESULTS [set.KEY=VALUE ...] NAME=SECONDS ...}
shift
valid="idle timer rtc block net net2 netburst netpoisson ipi mixed dev dev2 devburst devpoisson devonoff devmix"
probe_us=10000 timer_us=1000 rtc_hz=512 blk_period_us=3000 perf=1 ipi_loops=2000
port1=5001 port2=5002 seed=1
ncpu=$(nproc)
tr=/sys/kernel/tracing
emu=/sys/kernel/debug/cpuidle_emu
sidle=/sys/kernel/debug/sched_idle

log() { echo "bench: $*"; echo "bench: $*" >/dev/console; }
fail() { echo "bench: FAIL $*"; echo "guest: FAIL $*" >/dev/console; exit 1; }

# Validate everything before running anything.
works=
for a in "$@"; do
	case "$a" in
	set.*=*)
		kv=${a#set.}
		k=${kv%%=*} v=${kv#*=}
		case "$k" in
		probe_us | timer_us | rtc_hz | blk_period_us | perf | ipi_loops | port1 | port2 | seed)
			case "$v" in '' | *[!0-9]*) fail "option '$k': '$v' is not a number" ;; esac
			eval "$k=\$v" ;;
		*) fail "unknown option '$k' (valid: probe_us timer_us rtc_hz blk_period_us perf ipi_loops port1 port2 seed)" ;;
		esac
		;;
	*=*)
		n=${a%%=*} s=${a#*=}
		case " $valid " in *" $n "*) ;; *) fail "unknown workload '$n' (valid: $valid)" ;; esac
		case "$s" in '' | *[!0-9]*) fail "workload '$n': seconds '$s' is not a number" ;; esac
		works="$works $n=$s"
		;;
	*) fail "bad argument '$a' (want NAME=SECONDS or set.KEY=VALUE; workloads: $valid)" ;;
	esac
done
[ -n "$works" ] || fail "no workload given (valid: $valid)"

rd() { # rd FILE: print the first line of FILE without a fork
	read -r v <"$1" || true
	echo "$v"
}

snap() { # snap DIR PREFIX
	cat /proc/interrupts >"$1/$2.interrupts"
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -d "$c/cpuidle" ] || continue
		for s in "$c"/cpuidle/state*; do
			echo "cpu=${c##*/cpu} state=${s##*/state} name=$(rd "$s/name") usage=$(rd "$s/usage") time=$(rd "$s/time") above=$(rd "$s/above") below=$(rd "$s/below") rejected=$(rd "$s/rejected")"
		done
	done >"$1/$2.states"
	[ -r "$emu/stats" ] && cat "$emu/stats" >"$1/$2.emu"
	[ -r "$sidle/stats" ] && cat "$sidle/stats" >"$1/$2.sched_idle"
	cat /proc/uptime >"$1/$2.uptime"
}

{
	echo "kernel=$(uname -r)"
	echo "cpus=$ncpu"
	echo "driver=$(rd /sys/devices/system/cpu/cpuidle/current_driver)"
	echo "governor=$(rd /sys/devices/system/cpu/cpuidle/current_governor)"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "options=probe_us=$probe_us timer_us=$timer_us rtc_hz=$rtc_hz blk_period_us=$blk_period_us perf=$perf ipi_loops=$ipi_loops port1=$port1 port2=$port2 seed=$seed"
	echo "workloads=$works"
	[ -d "$sidle" ] && echo "sched_idle=yes" || echo "sched_idle=no"
	for s in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
		echo "state${s##*/state}=name=$(rd "$s/name") latency_us=$(rd "$s/latency") residency_us=$(rd "$s/residency")"
	done
} >"$out/bench-info"
[ -r "$emu/model" ] && cat "$emu/model" >"$out/emu-model"

# The NICs, by the MACs bench.py gives them: 52:54:00:00:be:01 gets
# 10.0.2.15/24, 52:54:00:00:be:02 gets 10.0.3.15/24.
net_up() {
	ip link set lo up
	for i in /sys/class/net/*; do
		mac=$(rd "$i/address")
		case "$mac" in
		52:54:00:00:be:01) addr=10.0.2.15/24 ;;
		52:54:00:00:be:02) addr=10.0.3.15/24 ;;
		*) continue ;;
		esac
		ip link set "${i##*/}" up
		ip addr add "$addr" dev "${i##*/}" 2>/dev/null || true
		n=0
		while [ "$(rd "$i/operstate")" != up ]; do
			n=$((n + 1))
			[ $n -lt 100 ] || fail "NIC ${i##*/} ($mac) never came up"
			sleep 0.1
		done
		log "NIC ${i##*/} $mac $addr up"
	done
	ip addr >"$out/ip-addr" 2>&1
}
case "$works" in *net* | *mixed*) net_up ;; esac

blkdev=
for b in /sys/block/vd*; do
	[ -e "$b" ] && blkdev=/dev/${b##*/} && break
done

gen=/sys/kernel/debug/hpet_irqgen
# gen_sources NAME: the generator's sources of a dev* workload, one line
# each; seeds derive from the repeat's seed.  CPU $last is the last CPU
# (CPU 0 on one vCPU).  The jitter is 5% of the period.
gen_sources() {
	sd=$((seed * 64)) last=$((ncpu - 1))
	case "$1" in
	dev) echo "cpu=0 proc=periodic period_us=1000 jitter_us=50 seed=$sd" ;;
	dev2) # the RFC's own example: two periodic sources on one CPU
		echo "cpu=0 proc=periodic period_us=1000 jitter_us=50 seed=$sd"
		echo "cpu=0 proc=periodic period_us=1500 jitter_us=75 seed=$((sd + 1))"
		;;
	devburst) echo "cpu=0 proc=burst period_us=5000 n=8 gap_us=50 seed=$sd" ;;
	devpoisson) echo "cpu=0 proc=poisson mean_us=1000 seed=$sd" ;;
	devonoff) echo "cpu=0 proc=onoff period_us=500 on_us=20000 off_us=30000 seed=$sd" ;;
	devmix)
		echo "cpu=0 proc=periodic period_us=1000 jitter_us=50 seed=$sd"
		echo "cpu=0 proc=periodic period_us=1500 jitter_us=75 seed=$((sd + 1))"
		echo "cpu=$last proc=poisson mean_us=1000 seed=$((sd + 2))"
		;;
	esac
}
gen_setup() { # gen_setup NAME DIR
	[ -w "$gen/sources" ] || fail "$1: no $gen (kernel without the generator, or booted without hpet=disable)"
	echo clear >"$gen/control"
	gen_sources "$1" >/tmp/irqgen.want
	while IFS= read -r src; do
		echo "$src" >"$gen/sources" || fail "$1: the generator refused '$src'"
	done </tmp/irqgen.want
	cat "$gen/sources" >"$2/irqgen.sources"
}
# stop, keep the sources (and their IRQs, for the after snapshot's
# /proc/interrupts) until the next gen_setup clears them
gen_stop() { # gen_stop DIR
	echo stop >"$gen/control"
	cat "$gen/stats" >"$1/irqgen.stats"
}

trace_on() {
	[ -d "$tr/events/power/cpu_idle" ] || return 0
	echo 0 >"$tr/tracing_on"
	echo >"$tr/trace"
	echo 16384 >"$tr/buffer_size_kb"
	# power:cpu_idle, irq:irq_handler_entry and sched_idle:sched_idle_select
	# are enabled on the command line (trace_event=, see bench.py).
	echo 1 >"$tr/tracing_on"
}
trace_off() { # trace_off DIR
	[ -d "$tr/events/power/cpu_idle" ] || return 0
	echo 0 >"$tr/tracing_on"
	cat "$tr/trace" >"$1/trace.txt"
	cat "$tr/per_cpu/cpu0/stats" >"$1/trace-stats" 2>/dev/null || true
	for c in "$tr"/per_cpu/cpu*; do
		echo "${c##*/} $(grep -E '^(overrun|dropped events):' "$c/stats" | tr '\n' ' ')"
	done >"$1/trace-overruns"
	echo >"$tr/trace"
}

# run_one NAME SECONDS DIR
run_one() {
	name=$1 secs=$2 d=$3
	ct_period=$probe_us
	[ "$name" = timer ] && ct_period=$timer_us
	[ "$name" = mixed ] && ct_period=$timer_us
	[ "$name" = devmix ] && ct_period=$timer_us
	host=
	case "$name" in
	rtc) [ -c /dev/rtc0 ] || fail "rtc: no /dev/rtc0" ;;
	dev*) gen_setup "$name" "$d" ;;
	block) [ -n "$blkdev" ] || fail "block: no virtio-blk disk (bench.py attaches one)" ;;
	net | netburst | netpoisson | mixed) host=1 ;;
	net2) host=1 ;;
	esac
	rport=$port1
	[ "$name" = net2 ] && rport=$port1,$port2
	# host-driven traffic: receiver first, then tell the host, let the
	# stream settle, then open the window
	rpid=
	if [ -n "$host" ]; then
		benchtool udprecv "$rport" $((secs + 3)) >"$d/udprecv.log" 2>&1 &
		rpid=$!
		sleep 0.3
		echo "bench-sync: start $name $secs" >/dev/kmsg
		sleep 1
	fi
	log "$name: snapshot"; snap "$d" before
	log "$name: trace on"; trace_on
	ppid=
	if [ "$perf" = 1 ]; then
		perf sched record -o /tmp/perf.data -- sleep $((secs + 5)) >"$d/perf-record.log" 2>&1 &
		ppid=$!
		sleep 0.5
	fi
	# the repeat's phase: where the window starts against the tick, the
	# cyclictest probe and the generator's timeline
	usleep $(((seed * 7919) % 10000))
	echo "start $(cut -d' ' -f1 /proc/uptime)" >"$d/window"
	wpid=
	case "$name" in
	dev*) echo start >"$gen/control" ;;
	rtc) benchtool rtc "$rtc_hz" "$secs" >"$d/workload.log" 2>&1 & wpid=$! ;;
	block) benchtool blk "$blkdev" "$blk_period_us" "$secs" >"$d/workload.log" 2>&1 & wpid=$! ;;
	ipi | mixed | devmix)
		# a bounded number of cross-CPU pipe round trips (ipi_loops
		# per second), under timeout: a saturating ping-pong would
		# leave no idle time and flood perf sched
		timeout -s INT "$secs" perf bench sched pipe -l $((secs * ipi_loops)) >"$d/workload.log" 2>&1 &
		wpid=$!
		;;
	esac
	# with -t N -a each thread is pinned to its CPU
	cyclictest --laptop -q -t "$ncpu" -a -i "$ct_period" -D "$secs" -h 100000 \
		--json="$d/cyclictest.json" >/dev/null 2>"$d/cyclictest.log" || fail "$name: cyclictest failed"
	if [ -n "$wpid" ]; then
		wst=0
		wait "$wpid" || wst=$?
		# timeout ends perf bench with SIGINT: 124 or 130 is expected
		case "$name:$wst" in
		ipi:124 | ipi:130 | mixed:124 | mixed:130 | devmix:124 | devmix:130 | *:0) ;;
		*) fail "$name: workload exited $wst: $(tail -1 "$d/workload.log")" ;;
		esac
	fi
	case "$name" in dev*) gen_stop "$d" ;; esac
	log "$name: window end"; echo "end $(cut -d' ' -f1 /proc/uptime)" >>"$d/window"
	snap "$d" after
	trace_off "$d"
	if [ -n "$ppid" ]; then
		# perf stops at the end of the window (SIGINT writes the data)
		kill -INT "$ppid" 2>/dev/null || true
		wait "$ppid" || true
		# perf sched latency/timehist run on the host (bench.py): in
		# the guest they cost more emulated time than the window
		mv /tmp/perf.data "$d/perf.data"
	fi
	[ -z "$rpid" ] || wait "$rpid" || fail "$name: UDP receiver failed: $(cat "$d/udprecv.log")"
}

for w in $works; do
	name=${w%%=*} secs=${w#*=}
	d=$out/$name
	mkdir -p "$d"
	t0=$(cut -d' ' -f1 /proc/uptime)
	log "$name for ${secs}s"
	run_one "$name" "$secs" "$d"
	log "$name done (uptime $t0 -> $(cut -d' ' -f1 /proc/uptime))"
	echo "bench-sync: done $name" >/dev/kmsg
done
log "all done"
