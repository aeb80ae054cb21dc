#!/bin/sh
# bench.sh RESULTS [set.KEY=VALUE | nic=MAC,ADDR | NAME=SECONDS | NAME.CMD=VALUE ...]
#
# Guest side of the idle-governor bench (busybox sh).  Runs each workload
# NAME for a window of SECONDS, its commands together, and writes
# RESULTS/NAME/:
#   before.* / after.*   /proc/interrupts, per-state cpuidle sysfs counters
#                        of every CPU (.states), cpuidle_emu stats (.emu),
#                        sched_idle stats when the kernel has them (.sched_idle),
#                        the cpuidle_cost probe (.cost; restarted at before)
#   cyclictest.json      cyclictest --laptop (never forbids idle states)
#   perf.data            perf sched record (the host runs perf sched
#                        latency/timehist on it)
#   trace.txt            tracefs: the events enabled on the command line
#   irqgen.sources/.stats  the HPET generator's sources and per-source
#                        arrivals, late re-arms and lateness histogram
#   workload.log, udprecv.log, window (start/end uptime)
# and RESULTS/bench-info (model, state table, options) once per boot.
#
# The host (perf-scripts/idlebench/launch.py) turns each workload of
# perf-scripts/workloads.toml into NAME=SECONDS and one NAME.CMD=VALUE
# per command:
#   ct=US          cyclictest period (always runs: the latency probe)
#   rtc=HZ         /dev/rtc0 periodic interrupt (benchtool rtc)
#   blk=US         one O_DIRECT read per period from the virtio-blk disk
#   pipe=LOOPS     perf bench sched pipe, LOOPS round trips per second
#                  of window, as fast as they go (a burst of ~70 ms under
#                  -icount at the window's start, then nothing)
#   pipeper=US     one pipe round trip every US between CPU 0 and the last
#                  CPU for the whole window (benchtool pipe)
#   gen=SPEC       an HPET generator source (debugfs hpet_irqgen, series
#                  patch 3; boot with hpet=disable), SPEC its line with ','
#                  for ' ', cpu=last for the last CPU; seed= is added here
#   udp=PORT[,PORT]  receive host UDP traffic: the host starts udpgen when
#                  this script prints "bench-sync: start NAME SECONDS"
# nic=MAC,ADDR (MAC with '-') gives the NIC with that MAC the address.
# Options: set.perf=0|1 (perf sched record, default 1), set.seed=N
# (default 1): the window opens (N * 7919) mod 10000 us after the set-up,
# and every generator source's seed derives from it.
set -eu
out=${1:?usage: bench.sh RESULTS [set.KEY=VALUE | nic=MAC,ADDR | NAME=SECONDS | NAME.CMD=VALUE ...]}
shift
perf=1 seed=1
ncpu=$(nproc)
tr=/sys/kernel/tracing
emu=/sys/kernel/debug/cpuidle_emu
sidle=/sys/kernel/debug/sched_idle
gen=/sys/kernel/debug/hpet_irqgen
cost=/sys/kernel/debug/cpuidle_cost
cmds=/tmp/bench-cmds
nics=

log() { echo "bench: $*"; echo "bench: $*" >/dev/console; }
fail() { echo "bench: FAIL $*"; echo "guest: FAIL $*" >/dev/console; exit 1; }
num() { case "$2" in '' | *[!0-9]*) fail "$1: '$2' is not a number" ;; esac; }

# Validate everything before running anything.
works=
mkdir -p "$cmds"
for a in "$@"; do
	case "$a" in
	set.perf=* | set.seed=*)
		k=${a%%=*} v=${a#*=}
		num "$k" "$v"
		eval "${k#set.}=\$v"
		;;
	nic=*,*) nics="$nics ${a#nic=}" ;;
	*.*=*)
		n=${a%%.*} kv=${a#*.}
		c=${kv%%=*} v=${kv#*=}
		case " $works " in *" $n="*) ;; *) fail "'$a': workload $n is not given before it" ;; esac
		case "$c" in
		ct | rtc | blk | pipe | pipeper) num "$n.$c" "$v" ;;
		gen) case "$v" in *[!a-z0-9_=,]*) fail "$n.gen: bad source '$v'" ;; esac ;;
		udp) case "$v" in '' | *[!0-9,]*) fail "$n.udp: bad ports '$v'" ;; esac ;;
		*) fail "$n: unknown command '$c' (valid: ct rtc blk pipe pipeper gen udp)" ;;
		esac
		echo "$c $v" >>"$cmds/$n"
		;;
	*=*)
		n=${a%%=*} s=${a#*=}
		case "$n" in '' | *[!a-z0-9_]*) fail "bad workload name '$n'" ;; esac
		num "workload $n: seconds" "$s"
		works="$works $n=$s"
		: >"$cmds/$n"
		;;
	*) fail "bad argument '$a' (want NAME=SECONDS, NAME.CMD=VALUE, nic=MAC,ADDR or set.KEY=VALUE)" ;;
	esac
done
[ -n "$works" ] || fail "no workload given"

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
	# the selection cost probe (on in the cost cells): restarted with the window
	if [ -w "$cost" ]; then
		[ "$2" = before ] && echo 0 >"$cost"
		cat "$cost" >"$1/$2.cost"
	fi
	cat /proc/uptime >"$1/$2.uptime"
}

{
	echo "kernel=$(uname -r)"
	echo "cpus=$ncpu"
	echo "driver=$(rd /sys/devices/system/cpu/cpuidle/current_driver)"
	echo "governor=$(rd /sys/devices/system/cpu/cpuidle/current_governor)"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "options=perf=$perf seed=$seed"
	echo "workloads=$works"
	[ -d "$sidle" ] && echo "sched_idle=yes" || echo "sched_idle=no"
	for s in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
		echo "state${s##*/state}=name=$(rd "$s/name") latency_us=$(rd "$s/latency") residency_us=$(rd "$s/residency")"
	done
} >"$out/bench-info"
[ -r "$emu/model" ] && cat "$emu/model" >"$out/emu-model"

# nic_up MAC ADDR: the NIC with MAC (given with '-') gets ADDR
nic_up() {
	mac=$(echo "$1" | tr - :)
	for i in /sys/class/net/*; do
		[ "$(rd "$i/address")" = "$mac" ] || continue
		ip link set "${i##*/}" up
		ip addr add "$2" dev "${i##*/}" 2>/dev/null || true
		n=0
		while [ "$(rd "$i/operstate")" != up ]; do
			n=$((n + 1))
			[ $n -lt 100 ] || fail "NIC ${i##*/} ($mac) never came up"
			sleep 0.1
		done
		log "NIC ${i##*/} $mac $2 up"
		return 0
	done
	fail "no NIC with MAC $mac"
}
if [ -n "$nics" ]; then
	ip link set lo up
	for n in $nics; do nic_up "${n%%,*}" "${n#*,}"; done
	ip addr >"$out/ip-addr" 2>&1
fi

blkdev=
for b in /sys/block/vd*; do
	[ -e "$b" ] && blkdev=/dev/${b##*/} && break
done

trace_prepare() { # empty and size the buffer, outside the window
	[ -d "$tr/events/power/cpu_idle" ] || return 0
	echo 0 >"$tr/tracing_on"
	echo >"$tr/trace"
	echo 16384 >"$tr/buffer_size_kb"
}
trace_on() {
	# the events are enabled on the command line (trace_event=, see
	# perf-scripts/idlebench/launch.py)
	[ -d "$tr/events/power/cpu_idle" ] || return 0
	echo 1 >"$tr/tracing_on"
}
trace_freeze() { # the window's end: the trace keeps what it holds
	[ -d "$tr/events/power/cpu_idle" ] || return 0
	echo 0 >"$tr/tracing_on"
}
trace_off() { # trace_off DIR
	[ -d "$tr/events/power/cpu_idle" ] || return 0
	trace_freeze
	cat "$tr/trace" >"$1/trace.txt"
	cat "$tr/per_cpu/cpu0/stats" >"$1/trace-stats" 2>/dev/null || true
	for c in "$tr"/per_cpu/cpu*; do
		echo "${c##*/} $(grep -E '^(overrun|dropped events):' "$c/stats" | tr '\n' ' ')"
	done >"$1/trace-overruns"
	echo >"$tr/trace"
}

# One function per command, called in each phase of a window (stdin is
# the workload's command list: background processes read /dev/null):
#   setup (before the snapshot), start (when the window opens), stop (at
#   its end, before the snapshot).  Background processes go to $pids as
#   "PID:CMD" and are waited for after cyclictest.
# Globals of the window: $name $secs $d $ct_period $pids $rpid.
cmd_ct() { [ "$1" != setup ] || ct_period=$2; }
cmd_rtc() {
	case "$1" in
	setup) [ -c /dev/rtc0 ] || fail "$name: no /dev/rtc0" ;;
	start) benchtool rtc "$2" "$secs" </dev/null >>"$d/workload.log" 2>&1 & pids="$pids $!:rtc" ;;
	esac
}
cmd_blk() {
	case "$1" in
	setup) [ -n "$blkdev" ] || fail "$name: no virtio-blk disk (the host attaches one)" ;;
	start) benchtool blk "$blkdev" "$2" "$secs" </dev/null >>"$d/workload.log" 2>&1 & pids="$pids $!:blk" ;;
	esac
}
cmd_pipe() {
	# a bounded number of cross-CPU pipe round trips, under timeout: a
	# saturating ping-pong would leave no idle time and flood perf sched
	[ "$1" != start ] && return 0
	timeout -s INT "$secs" perf bench sched pipe -l $((secs * $2)) </dev/null >>"$d/workload.log" 2>&1 &
	pids="$pids $!:pipe"
}
# one pipe round trip per period between CPU 0 and the last CPU, paced
# on an absolute timeline for the whole window (benchtool pipe)
cmd_pipeper() {
	[ "$1" != start ] && return 0
	benchtool pipe "$2" "$secs" 0 $((ncpu - 1)) </dev/null >>"$d/workload.log" 2>&1 &
	pids="$pids $!:pipeper"
}
# the sources are kept (and their IRQs, for the after snapshot's
# /proc/interrupts) until the next workload's set-up clears them
cmd_gen() {
	case "$1" in
	setup)
		[ -w "$gen/sources" ] || fail "$name: no $gen (kernel without the generator, or booted without hpet=disable)"
		[ -s /tmp/irqgen.want ] || echo clear >"$gen/control"
		src=$(echo "$2" | tr , ' ' | sed "s/cpu=last/cpu=$((ncpu - 1))/")
		echo "$src seed=$((seed * 64 + gen_n))" >>/tmp/irqgen.want
		echo "$src seed=$((seed * 64 + gen_n))" >"$gen/sources" || fail "$name: the generator refused '$src'"
		gen_n=$((gen_n + 1))
		cat "$gen/sources" >"$d/irqgen.sources"
		;;
	start) [ "$gen_n" = 0 ] || { echo start >"$gen/control"; gen_n=0; } ;;
	stop) [ ! -s /tmp/irqgen.want ] || { echo stop >"$gen/control"; cat "$gen/stats" >"$d/irqgen.stats"; rm /tmp/irqgen.want; } ;;
	esac
}
# host-driven traffic: receiver first, then tell the host, let the
# stream settle, then the window opens
cmd_udp() {
	[ "$1" != setup ] && return 0
	benchtool udprecv "$2" $((secs + 3)) </dev/null >"$d/udprecv.log" 2>&1 &
	rpid=$!
	sleep 0.3
	echo "bench-sync: start $name $secs" >/dev/kmsg
	sleep 1
}
each() { # each PHASE: every command of the window's workload
	while read -r c v; do
		"cmd_$c" "$1" "$v"
	done <"$cmds/$name"
}

# run_one NAME SECONDS DIR
run_one() {
	name=$1 secs=$2 d=$3
	ct_period=10000 pids= rpid= gen_n=0
	each setup
	trace_prepare
	# the repeat's phase: where the window starts against the tick
	usleep $(((seed * 7919) % 10000))
	ppid=
	if [ "$perf" = 1 ]; then
		perf sched record -o /tmp/perf.data -- sleep $((secs + 5)) >"$d/perf-record.log" 2>&1 &
		ppid=$!
		# perf's start-up (it opens its events on every CPU) before the
		# window: its first record comes ~0.35 s after it starts
		sleep 0.5
	fi
	# The latency probe, with -t N -a one thread pinned to each CPU.  It
	# starts before the window and ends after it (SIGINT ends it as -D
	# would; -D is only a bound): its start (mlockall, threads) and its
	# exit (the main thread formats the histogram, ~0.2 s) keep one vCPU
	# busy, and under single-threaded TCG that delays the other vCPU's
	# interrupts by milliseconds (docs/design.md, device lateness tails).
	cyclictest --laptop -q -t "$ncpu" -a -i "$ct_period" -D $((secs + 30)) -h 100000 \
		--json="$d/cyclictest.json" >/dev/null 2>"$d/cyclictest.log" &
	ctpid=$!
	sleep 0.2
	# the window: from the before snapshot to the after one, with the
	# trace on between them; the generator's timeline starts with it
	snap "$d" before
	trace_on
	echo "start $(cut -d' ' -f1 /proc/uptime)" >"$d/window"
	each start
	sleep "$secs"
	echo "end $(cut -d' ' -f1 /proc/uptime)" >>"$d/window"
	trace_freeze
	each stop
	snap "$d" after
	log "$name: window end (uptime $(cut -d' ' -f1 /proc/uptime))"
	kill -INT "$ctpid" 2>/dev/null || true
	wait "$ctpid" || fail "$name: cyclictest failed: $(tail -1 "$d/cyclictest.log")"
	for p in $pids; do
		st=0
		wait "${p%%:*}" || st=$?
		# timeout ends perf bench with SIGINT: 124 or 130 is expected
		case "${p#*:}:$st" in
		pipe:124 | pipe:130 | *:0) ;;
		*) fail "$name: ${p#*:} exited $st: $(tail -1 "$d/workload.log")" ;;
		esac
	done
	trace_off "$d"
	if [ -n "$ppid" ]; then
		# perf stops at the end of the window (SIGINT writes the data)
		kill -INT "$ppid" 2>/dev/null || true
		wait "$ppid" || true
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
