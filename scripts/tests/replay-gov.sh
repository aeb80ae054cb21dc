#!/bin/sh
# replay-gov.sh [-f] [OUTDIR]: the cpuidle governors compiled from the tree
# into idle-loop/replay choose what the stock kernel chose.
#
# For menu and teo: a trace of the stock kernel running that governor,
# recorded by perf-scripts/record.sh in the guest (guest-image/guest/
# record-check.sh: 2 vCPUs, -icount, bench.sh's timer and dev2 workloads),
# is replayed with the recorded state table (--states); the governor's
# choice must equal the state the kernel entered (power:cpu_idle) for at
# least MIN_MATCH percent (default 95) of the idle entries compared, and
# at least MIN_ENTRIES (default 1000) must be compared.  The same boot
# also has the timer events on in ftrace (trace_event=; no_hash_pointers,
# or %p prints one placeholder for every timer in a guest without
# entropy), so bench.sh's own per-window traces (ftrace text, trace clock
# local) are replayed too and reported, not asserted.
#   -f  replay the traces committed in idle-loop/tests/gov-traces/GOV/
#       (record.sh's states and trace.txt, xz; made by this script with
#       SAVE=1; seconds; what `make test` runs) instead of booting the
#       stock kernel (two -icount boots, about 5 minutes; needs
#       build/kernels/stock.bzImage; INITRD=FILE uses that image).
# LINUX=7.3: the 7.3 tree's stock kernel, governors and traces
# (idle-loop/tests/gov-traces-7.3/).
# Why 95% (MIN_MATCH): each governor of each tree agrees with its kernel
# on 98-99.9% of the entries of the committed traces and of traces
# recorded afresh by this script, the thinnest being 7.3's menu (about
# 2% missed, most where its workloads change), and a committed and a
# fresh trace of one governor differ by under half a point.  The rest is
# kernel state no event shows, such as the nohz code keeping the tick for
# RCU callbacks or irq_work (the sleep length is then the next event,
# tick included, which a governor that keeps the tick itself does not
# reveal), docs/design.md.  At 95% the thinnest trace's misses can grow
# 2.5-fold before it fails, so a fresh trace does not fail by chance,
# while a change of the replay, the shims or the tree's governors that
# costs more than a few points is a regression to look at.
# The replay gives 7.3's menu what it reads: tick_nohz_get_sleep_length()
# counts from ts->idle_entrytime (the end of the idle loop's last
# interrupt, not the entry), its *delta_next is the clock event device's
# next event, which the hrtick (HRTIMER_MODE_LAZY_REARM) leaves behind
# when it is cancelled (menu keeps a state past it out when it keeps the
# tick), and ts->got_idle_tick is set by every tick in the idle task
# (idle-loop/README.md, "The governors").
# The control (busted): the same governor on the same trace given a wrong
# input, the recorded table with every target residency doubled (as a
# misread table would give it); its agreement must come under
# CONTROL_MAX percent (default 80).  Doubled residencies leave 56-70% of
# the entries agreeing on every trace above, of both governors and both
# trees, committed and fresh: CONTROL_MAX lies 15 points under the floor
# and 10 over the highest control, so a control over it means the check
# no longer separates a wrong replay from a right one, not noise.  The
# other governor's choices on the trace are printed, not judged: how far
# apart the two governors are depends on the workload (menu on teo's
# 6.12 traces agrees on 91-93%), too close to the floor to be a control.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
fixtures=0
[ "${1:-}" = -f ] && { fixtures=1; shift; }
# the tree (LINUX, as the Makefile's): its kernels, its governors, its
# traces
case ${LINUX:-6.12} in
6.12) b=$top/build fx=$top/idle-loop/tests/gov-traces ;;
7.3) b=$top/build/7.3 fx=$top/idle-loop/tests/gov-traces-7.3 ;;
*) echo "FAIL: LINUX=$LINUX: the trees are 6.12 and 7.3"; exit 1 ;;
esac
o=${1:-$b/test/replay-gov}
min=${MIN_MATCH:-95}
min_n=${MIN_ENTRIES:-1000}
ctl_max=${CONTROL_MAX:-80}
[ "$ctl_max" -lt "$min" ] || { echo "FAIL: CONTROL_MAX $ctl_max is not under MIN_MATCH $min"; exit 1; }
make -s -C "$top/idle-loop" >/dev/null || { echo "FAIL: building idle-loop/replay"; exit 1; }
replay=$b/idle-loop/replay
mkdir -p "$o"
ev=power:cpu_idle,irq:irq_handler_entry,timer:hrtimer_start,timer:hrtimer_cancel,timer:hrtimer_expire_entry
ev=$ev,timer:timer_start,timer:timer_cancel,timer:timer_expire_entry

record() { # record GOV: boot the stock kernel with GOV, record in the guest
	k=$b/kernels/stock.bzImage
	[ -f "$k" ] || { echo "FAIL: build the stock kernel first"; exit 1; }
	"$top/guest-image/run-qemu.sh" -k "$k" -i "$img" -o "$o/$1/guest" -c 2 -d cpuidle_emu \
		-g "$1" -I 0 -t 900 -q 300 -r record-check -x "-global hpet.timers=8" \
		-a "hpet=disable no_hash_pointers trace_event=$ev cpuidle.governor=$1 guest.args=4:$words" >/dev/null ||
		{ echo "FAIL: $1 guest: $(cat "$o/$1/guest/verdict" 2>/dev/null || echo no verdict)" \
			"$(grep -h '^FAIL' "$o/$1/guest/results/run.log" 2>/dev/null | head -1)"; exit 1; }
	for w in timer dev2; do
		f=$o/$1/guest/results/bench/$w/trace.txt
		[ -s "$f" ] || continue
		"$replay" "$f" >"$o/$1/ftrace-$w.txt" 2>&1 || true
		echo "ftrace $w: $(grep "^governor $1:" "$o/$1/ftrace-$w.txt" || head -1 "$o/$1/ftrace-$w.txt")"
	done
	cp "$o/$1/guest/results/states" "$o/$1/states"
	gzip -dc "$o/$1/guest/results/trace.txt.gz" >"$o/$1/trace.txt"
	if [ "${SAVE:-0}" = 1 ]; then
		mkdir -p "$fx/$1"
		cp "$o/$1/states" "$fx/$1/"
		xz -9 -c "$o/$1/trace.txt" >"$fx/$1/trace.txt.xz"
	fi
}

if [ "$fixtures" = 0 ]; then
	# the bench's timer and dev2 workloads, as bench.sh words
	words=$(python3 "$top/perf-scripts/bench.py" --guest-words timer,dev2) ||
		{ echo "FAIL: bench.py --guest-words timer,dev2"; exit 1; }
	img=${INITRD:-}
	if [ -z "$img" ]; then
		img=$o/initramfs.cpio
		"$top/guest-image/mkinitramfs.sh" "$img" >"$o/mkinitramfs.log" 2>&1 ||
			{ echo "FAIL: guest-image/mkinitramfs.sh: $(tail -1 "$o/mkinitramfs.log")"; exit 1; }
	fi
fi

# judge GOV ROWGOV FILE: ROWGOV's replayed choices on GOV's trace match
# the states the kernel entered for at least min% of min_n or more
# entries; prints the governor line and a reason on failure
judge() {
	line=$(grep "^governor $2:" "$3" || true)
	[ -n "$line" ] || { echo "no governor $2 line in the replay of $1's trace"; return 1; }
	echo "$line"
	m=$(echo "$line" | awk '{ print $3 }') n=$(echo "$line" | awk '{ print $5 }')
	if [ "$n" -lt "$min_n" ]; then
		echo "only $n entries compared (want >= $min_n)"
		return 1
	fi
	if [ $((m * 100)) -lt $((n * min)) ]; then
		echo "$m of $n states match ($(awk -v m="$m" -v n="$n" 'BEGIN { printf "%.2f", 100 * m / n }')%), under $min%"
		return 1
	fi
}

st=0
for g in menu teo; do
	mkdir -p "$o/$g"
	if [ "$fixtures" = 1 ]; then
		[ -f "$fx/$g/trace.txt.xz" ] || { echo "FAIL: no $fx/$g/trace.txt.xz"; exit 1; }
		cp "$fx/$g/states" "$o/$g/"
		xz -dc "$fx/$g/trace.txt.xz" >"$o/$g/trace.txt"
	else
		record "$g"
	fi
	grep -q "^governor $g\$" "$o/$g/states" ||
		{ echo "FAIL: $g: the recorded table names another governor"; exit 1; }
	"$replay" --states "$o/$g/states" "$o/$g/trace.txt" >"$o/$g/replay.txt" 2>"$o/$g/replay.err" ||
		{ echo "FAIL: $g: replay: $(head -1 "$o/$g/replay.err")"; exit 1; }
	if judge "$g" "$g" "$o/$g/replay.txt" >"$o/$g/judge.txt"; then
		cat "$o/$g/judge.txt"
	else
		sed "\$s/^/FAIL: $g: /" "$o/$g/judge.txt"
		st=1
	fi
	# the other governor's choices on this trace, for the record
	other=$([ "$g" = menu ] && echo teo || echo menu)
	echo "$other on $g's trace (not judged): $(grep "^governor $other:" "$o/$g/replay.txt" |
		sed 's/^governor [a-z]*: //; s/, the first.*//')"
	# the control: the same governor given every target residency
	# doubled must agree under ctl_max%, far under the floor
	awk '$1 == "state" { $4 *= 2 } { print }' "$o/$g/states" >"$o/$g/states-busted"
	"$replay" --rules "$g" --states "$o/$g/states-busted" "$o/$g/trace.txt" \
		>"$o/$g/control.txt" 2>"$o/$g/control.err" ||
		{ echo "FAIL: control: $g: replay: $(head -1 "$o/$g/control.err")"; exit 1; }
	if (min=$ctl_max; judge "$g" "$g" "$o/$g/control.txt") >"$o/$g/control-judge.txt" ||
		! grep -q "under $ctl_max%" "$o/$g/control-judge.txt"; then
		echo "FAIL: control: $g given doubled residencies is not under $ctl_max%:" \
			"$(tail -1 "$o/$g/control-judge.txt")"
		st=1
	else
		echo "control: $g given doubled residencies fails as it must:" \
			"$(tail -1 "$o/$g/control-judge.txt")"
	fi
done
[ "$st" = 0 ] || exit 1
echo "replay-gov: ok"
