#!/bin/sh
# bench.sh RESULTS [set.KEY=VALUE | nic=MAC,ADDR | NAME=SECONDS | NAME.CMD=VALUE ...]
# bench.sh RESULTS @FILE
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
#   recorders            how long perf and cyclictest took to start (ms)
#   failed               only when the workload failed: the reason, then
#                        log=FILE (relative to RESULTS) that shows it
# and RESULTS/bench-info (model, state table, options) once per boot.
# A workload that fails (a command that exits badly, a recorder that does
# not start) fails alone: what it started is ended, and the next workload
# runs; the script exits 0.  Bad arguments, or a guest without what they
# ask for before any workload runs, fail the whole boot (exit 1).
#
# The window opens only once its recorders record: perf sched record
# starts with its events off and the window waits for the ack of its
# "enable" (--control fifo), then for every cyclictest thread to sleep in
# its measuring loop; each gets RWAIT seconds before the workload fails.
#
# The host (perf-scripts/idlebench/launch.py) turns each workload of
# perf-scripts/workloads.toml into NAME=SECONDS and one NAME.CMD=VALUE
# per command:
#   ct=US          cyclictest period (always runs: the latency probe)
#   rtc=HZ         /dev/rtc0 periodic interrupt (benchtool rtc)
#   blk=US         one O_DIRECT read per period from the virtio-blk disk
#   pipe=LOOPS     perf bench sched pipe, LOOPS round trips in all (the
#                  host's: the table's per second of window, times the
#                  window), as fast as they go (a burst of ~70 ms under
#                  -icount at the window's start, then nothing)
#   pipeper=US     one pipe round trip every US between CPU 0 and the last
#                  CPU for the whole window (benchtool pipe)
#   gen=SPEC       an HPET generator source (debugfs hpet_irqgen, series
#                  hpet-irqgen; boot with hpet=disable), SPEC its line with ','
#                  for ' ', cpu=last for the last CPU, its seed= the host's;
#                  intervals_us=@LIST is the list in /bench-lists/NAME/LIST
#   lists=DIGEST   the lists of NAME's gen sources are in /bench-lists/NAME/
#                  (an archive the host appends to the initramfs), their
#                  contents' sha256 starting with DIGEST (cat NAME/* |
#                  sha256sum); missing or different lists fail the boot,
#                  and so does a list the generator refuses
#   udp=PORT[,PORT]  receive host UDP traffic: the host starts udpgen when
#                  this script prints "bench-sync: start NAME" (the host
#                  holds NAME's window; it refuses a NAME it did not give)
#   udpsecs=S      the receiver listens S seconds, as long as the host
#                  sends (the window and a margin, the host's sum)
# nic=MAC,ADDR (MAC with '-') gives the NIC with that MAC the address.
# Options: set.perf=0|1 (perf sched record, default 1), set.phase=US
# (default 0): each window opens US microseconds after its recorders
# record (the host's, from the boot's seed: where it starts against the
# tick).
# @FILE, alone: the words are FILE's, one a line.  The bench passes them
# so (perf-scripts/idlebench/launch.py words_file): a boot's words can
# outgrow the kernel's command line, and the host puts them in the
# archive it appends to the initramfs, /bench-words/DIGEST, the command
# line carrying guest.args=@/bench-words/DIGEST.
set -eu
out=${1:?usage: bench.sh RESULTS [set.KEY=VALUE | nic=MAC,ADDR | NAME=SECONDS | NAME.CMD=VALUE ... | @FILE]}
shift
perf=1 phase=0
ncpu=$(nproc)
tr=/sys/kernel/tracing
emu=/sys/kernel/debug/cpuidle_emu
sidle=/sys/kernel/debug/sched_idle
gen=/sys/kernel/debug/hpet_irqgen
cost=/sys/kernel/debug/cpuidle_cost
lists=/bench-lists
cmds=/tmp/bench-cmds
nics=

# RWAIT: seconds a recorder gets to start recording before its workload
# fails (perf's start-up took over 2 s on a host running another guest)
RWAIT=30
inwork=

log() { echo "bench: $*"; echo "bench: $*" >/dev/console; }
# fail MSG: outside a workload the boot fails; inside one (run_one's
# subshell, inwork=1) that workload does, with run.log as its log
fail() { wfail run.log "$*"; }
# wfail LOG MSG: LOG is a file of the workload's directory (or run.log)
wfail() {
	if [ -z "$inwork" ]; then
		echo "bench: FAIL $2"
		echo "guest: FAIL $2" >/dev/console
		exit 1
	fi
	why=$(printf '%s' "${2#"$name: "}" | tr '\n' ' ')
	case "$1" in run.log) l=run.log ;; *) l=$name/$1 ;; esac
	printf '%s\nlog=%s\n' "$why" "$l" >"$d/failed"
	log "$name: workload FAILED: $why (log $l)"
	exit 1
}
num() { case "$2" in '' | *[!0-9]*) fail "$1: '$2' is not a number" ;; esac; }

# Validate everything before running anything.
case "${1:-}" in
@*)
	f=${1#@}
	[ $# = 1 ] || fail "'$1' goes alone, not with '$2'"
	[ -s "$f" ] || fail "$1: no file $f (the host sends it with the initramfs)"
	shift
	while read -r a; do set -- "$@" "$a"; done <"$f"
	;;
esac
works=
mkdir -p "$cmds"
for a in "$@"; do
	case "$a" in
	set.perf=* | set.phase=*)
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
		ct | rtc | blk | pipe | pipeper | udpsecs) num "$n.$c" "$v" ;;
		gen)
			case "$v" in *[!a-z0-9_=,@]*) fail "$n.gen: bad source '$v'" ;; esac
			case ",$v" in *,intervals_us=@*)
				l=${v#*intervals_us=@}
				l=${l%%,*}
				[ -s "$lists/$n/$l" ] || fail "$n.gen: list $l is not in $lists/$n (the host sends it with the initramfs)"
				;;
			esac
			;;
		lists)
			case "$v" in '' | *[!0-9a-f]*) fail "$n.lists: bad digest '$v'" ;; esac
			[ -d "$lists/$n" ] || fail "$n.lists: no $lists/$n: the host sent no lists"
			have=$(cat "$lists/$n"/* | sha256sum | cut -c1-${#v})
			[ "$have" = "$v" ] || fail "$n.lists: the lists in $lists/$n are not the host's (sha256 $have, want $v)"
			;;
		udp) case "$v" in '' | *[!0-9,]*) fail "$n.udp: bad ports '$v'" ;; esac ;;
		*) fail "$n: unknown command '$c' (valid: ct rtc blk pipe pipeper gen lists udp udpsecs)" ;;
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
now() { # now: $cs, the uptime in centiseconds, without a fork
	read -r up _ </proc/uptime
	f=${up#*.}
	# without its leading 0, or the shell reads "08" as octal
	f=${f#0}
	cs=$((${up%.*} * 100 + f))
}
alive() { # alive PID: the process runs (exists and is no zombie)
	st=
	read -r _ _ st _ 2>/dev/null <"/proc/$1/stat" || return 1
	[ "$st" != Z ]
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
	echo "options=perf=$perf phase=$phase"
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
#   setup (before the recorders start), ready (they record, the window
#   is about to open), start (when the window opens), stop (at its end,
#   before the snapshot).  Background processes go to $pids as "PID:CMD"
#   and are waited for after cyclictest.
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
	timeout -s INT "$secs" perf bench sched pipe -l "$2" </dev/null >>"$d/workload.log" 2>&1 &
	pids="$pids $!:pipe"
}
# one pipe round trip per period between CPU 0 and the last CPU, paced
# on an absolute timeline for the whole window (benchtool pipe)
cmd_pipeper() {
	[ "$1" != start ] && return 0
	benchtool pipe "$2" "$secs" 0 $((ncpu - 1)) </dev/null >>"$d/workload.log" 2>&1 &
	pids="$pids $!:pipeper"
}
# gen_list SRC: a list source's line as the generator takes it, its
# intervals_us=@LIST replaced by that list (hundreds of KiB: one write of
# the shell's echo carries it whole)
gen_list() {
	line='' l=''
	for w in $1; do
		case "$w" in
		intervals_us=@*) l=${w#intervals_us=@} ;;
		*) line="$line $w" ;;
		esac
	done
	echo "$line intervals_us=$(cat "$lists/$name/$l")"
}
# the sources are kept (and their IRQs, for the after snapshot's
# /proc/interrupts) until the next workload's set-up clears them
cmd_gen() {
	case "$1" in
	setup)
		[ -w "$gen/sources" ] || fail "$name: no $gen (kernel without the generator, or booted without hpet=disable)"
		[ -s /tmp/irqgen.want ] || echo clear >"$gen/control"
		src=$(echo "$2" | tr , ' ' | sed "s/cpu=last/cpu=$((ncpu - 1))/")
		echo "$src" >>/tmp/irqgen.want
		case " $src" in
		*" intervals_us=@"*)
			# a recording's list not loaded is no replay: the boot fails
			l=${src#*intervals_us=@}
			l=${l%% *}
			err=$({ gen_list "$src" >"$gen/sources"; } 2>&1) || {
				echo "$name: the generator refused list $l of '$src' ($(wc -c <"$lists/$name/$l") bytes): ${err##*: }" >/tmp/bench-fatal
				fail "$(cat /tmp/bench-fatal)"
			}
			;;
		*) echo "$src" >"$gen/sources" || fail "$name: the generator refused '$src'" ;;
		esac
		gen_set=1
		cat "$gen/sources" >"$d/irqgen.sources"
		;;
	start) [ -z "$gen_set" ] || { echo start >"$gen/control"; gen_set=; } ;;
	stop) [ ! -s /tmp/irqgen.want ] || { echo stop >"$gen/control"; cat "$gen/stats" >"$d/irqgen.stats"; rm /tmp/irqgen.want; } ;;
	esac
}
# the lists are checked with the arguments; cmd_gen loads them
cmd_lists() { :; }
# host-driven traffic: receiver first, then tell the host, let the
# stream settle, then the window opens; only once the recorders record,
# or a slow start-up of theirs would eat the traffic's udpsecs
cmd_udpsecs() { [ "$1" != setup ] || udp_secs=$2; }
cmd_udp() {
	[ "$1" != ready ] && return 0
	[ -n "$udp_secs" ] || fail "$name.udp: no $name.udpsecs (how long the host sends)"
	benchtool udprecv "$2" "$udp_secs" </dev/null >"$d/udprecv.log" 2>&1 &
	rpid=$!
	sleep 0.3
	echo "bench-sync: start $name" >/dev/kmsg
	sleep 1
}
each() { # each PHASE: every command of the window's workload
	while read -r c v; do
		"cmd_$c" "$1" "$v"
	done <"$cmds/$name"
}

# perf sched record, its events off until the control fifo's "enable"
# is acknowledged: perf acks once every CPU's events are on, so the
# window opens on a recording perf however long its start-up took
# (opening the events on every CPU, reading every task from /proc:
# ~0.35 s on a quiet host; with another guest on the host, over 2 s, and
# a fixed 0.5 s once opened the window before perf's first record)
perf_start() {
	rm -f /tmp/perf.data /tmp/perf.ctl /tmp/perf.ack
	mkfifo /tmp/perf.ctl /tmp/perf.ack
	now
	c0=$cs
	# its workload outlasts the wait for cyclictest and the window; SIGINT
	# ends it after the window
	perf sched record -D -1 --control=fifo:/tmp/perf.ctl,/tmp/perf.ack -o /tmp/perf.data \
		-- sleep $((secs + RWAIT + 5)) </dev/null >"$d/perf-record.log" 2>&1 &
	ppid=$!
	# both ends read-write: opening a fifo so does not block, whether perf
	# has opened its end yet or never will
	exec 3<>/tmp/perf.ctl 4<>/tmp/perf.ack
	echo enable >&3
	a=
	# busybox ash's read has -t
	# shellcheck disable=SC3045
	until read -t 1 -r a <&4; do
		alive "$ppid" ||
			wfail perf-record.log "perf sched record exited before recording: $(tail -1 "$d/perf-record.log")"
		now
		[ $((cs - c0)) -lt $((RWAIT * 100)) ] ||
			wfail perf-record.log "perf sched record not recording after ${RWAIT}s (no ack to enable)"
	done
	exec 3>&- 4<&-
	[ "$a" = ack ] || wfail perf-record.log "perf sched record answered '$a' to enable"
	now
	echo "perf_ms=$(((cs - c0) * 10))" >>"$d/recorders"
}

# ct_ready: every cyclictest thread sleeps in its measuring loop, an
# absolute clock_nanosleep on CLOCK_MONOTONIC (x86-64 syscall 230, arguments
# 0x1 0x1; the main thread's usleep is relative, 0x0 0x0)
ct_ready() {
	n=0
	for t in /proc/"$ctpid"/task/*; do
		s='' a1='' a2=''
		read -r s a1 a2 _ 2>/dev/null <"$t/syscall" || continue
		[ "$s $a1 $a2" != "230 0x1 0x1" ] || n=$((n + 1))
	done
	[ "$n" -ge "$ncpu" ]
}

# The latency probe, with -t N -a one thread pinned to each CPU.  It
# starts before the window and ends after it (SIGINT ends it as -D
# would; -D is only a bound): its start (mlockall, threads) and its
# exit (the main thread formats the histogram, ~0.2 s) keep one vCPU
# busy, and under single-threaded TCG that delays the other vCPU's
# interrupts by milliseconds (docs/design.md, device lateness tails).
# The window waits until every thread measures: a fixed 0.2 s would let
# a start-up slowed by a loaded host run into the window.
ct_start() {
	now
	c0=$cs
	cyclictest --laptop -q -t "$ncpu" -a -i "$ct_period" -D $((secs + RWAIT + 30)) -h 100000 \
		--json="$d/cyclictest.json" </dev/null >/dev/null 2>"$d/cyclictest.log" &
	ctpid=$!
	until ct_ready; do
		alive "$ctpid" ||
			wfail cyclictest.log "cyclictest exited before measuring: $(tail -1 "$d/cyclictest.log")"
		now
		[ $((cs - c0)) -lt $((RWAIT * 100)) ] ||
			wfail cyclictest.log "cyclictest not measuring after ${RWAIT}s ($ncpu threads)"
		sleep 0.01
	done
	now
	echo "cyclictest_ms=$(((cs - c0) * 10))" >>"$d/recorders"
}

# reap: the EXIT trap of a workload's subshell; after a failure, ends what
# the workload started and leaves the next one a clean guest
reap() {
	for p in $ppid $ctpid $pids; do
		kill -KILL "${p%%:*}" 2>/dev/null || true
	done
	# every child; the UDP receiver ends by itself with the host's
	# traffic (udpsecs), which then cannot spill into the next window
	wait || true
	exec 3>&- 4<&-
	if [ -d "$tr/events/power/cpu_idle" ]; then
		echo 0 >"$tr/tracing_on" || true
		echo >"$tr/trace" || true
	fi
	# a started generator stops; the next generator workload clears it
	if [ -s /tmp/irqgen.want ]; then
		echo stop >"$gen/control" 2>/dev/null || true
		rm -f /tmp/irqgen.want
	fi
	rm -f /tmp/perf.data /tmp/perf.ctl /tmp/perf.ack
}

# run_one NAME SECONDS DIR, in a subshell of its own: a failure ends the
# subshell, its EXIT trap ends what it started
run_one() {
	name=$1 secs=$2 d=$3
	ct_period=10000 pids='' rpid='' gen_set='' udp_secs='' ppid='' ctpid=''
	trap reap EXIT
	: >"$d/recorders"
	each setup
	trace_prepare
	[ "$perf" != 1 ] || perf_start
	ct_start
	each ready
	# the repeat's phase: where the window starts against the tick
	usleep "$phase"
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
	wait "$ctpid" || wfail cyclictest.log "cyclictest failed: $(tail -1 "$d/cyclictest.log")"
	ctpid=
	for p in $pids; do
		st=0
		wait "${p%%:*}" || st=$?
		# timeout ends perf bench with SIGINT: 124 or 130 is expected
		case "${p#*:}:$st" in
		pipe:124 | pipe:130 | *:0) ;;
		*) wfail workload.log "${p#*:} exited $st: $(tail -1 "$d/workload.log")" ;;
		esac
	done
	pids=
	trace_off "$d"
	if [ -n "$ppid" ]; then
		# perf stops at the end of the window (SIGINT writes the data)
		kill -INT "$ppid" 2>/dev/null || true
		wait "$ppid" || true
		ppid=
		mv /tmp/perf.data "$d/perf.data"
		rm -f /tmp/perf.ctl /tmp/perf.ack
	fi
	[ -z "$rpid" ] || wait "$rpid" || wfail udprecv.log "UDP receiver failed: $(tail -1 "$d/udprecv.log")"
	trap - EXIT
}

failed=
for w in $works; do
	name=${w%%=*} secs=${w#*=}
	d=$out/$name
	mkdir -p "$d"
	t0=$(cut -d' ' -f1 /proc/uptime)
	log "$name for ${secs}s"
	# set -e holds inside the subshell only if it does not run as a
	# condition: its status is read with -e off around it
	set +e
	(
		set -e
		inwork=1
		run_one "$name" "$secs" "$d"
	)
	st=$?
	set -e
	if [ "$st" != 0 ]; then
		# a command that failed under set -e leaves no reason of its own
		[ -s "$d/failed" ] ||
			printf 'exited %s at a command that failed (see run.log)\nlog=run.log\n' "$st" >"$d/failed"
		failed="$failed $name"
	fi
	[ ! -s /tmp/bench-fatal ] || fail "$(cat /tmp/bench-fatal)"
	log "$name done (uptime $t0 -> $(cut -d' ' -f1 /proc/uptime))"
	echo "bench-sync: done $name" >/dev/kmsg
done
if [ -n "$failed" ]; then
	log "all done; workloads failed:$failed"
else
	log "all done"
fi
