#!/bin/sh
# replay-exact.sh [OUTDIR]: exact replay of a trace recorded by the
# patched kernel.  Boots it on 2 vCPUs under -icount (virtual time: a
# loaded host cannot starve the workload) with the predictor's events on from boot
# (guest-image/guest/replay-check.sh: 3 s of periodic reads from two
# virtio-blk disks, pipe round trips at random intervals in the last, no lost
# event), then
# replays the trace with idle-loop's replay --from-boot --check-exact.
# Passes only when every record is warm, every prediction and every
# state matches, there are at least MIN_RECORDS (default 2000) of them,
# and at least MIN_INTERCEPTED (default 2) states were made shallower
# by what the idle loop learned (sched_idle_learn), so that learning's
# choices are among those checked (the disks' reads complete on host
# threads, so the count varies from boot to boot; learning steps in only
# while early wakeups are most of the history).  Needs the patched
# kernel; builds its own image (INITRD=FILE uses that one instead).
# GUEST_ARGS adds kernel arguments (e.g. sched_idle_rule=rfc).
# The control: the same trace without one interrupt stamp must fail.
# replay-exact.sh --judge TRACE OUTDIR: the verdict and its control on a
# trace already recorded (no boot).
# KUnit is off (kunit.enable=0): its irq_predict_feed suite drains this
# CPU's ring into tables of its own, and the tracepoints it fires (lost
# stamps) name the CPU, not the table: replayed on the CPU's table, they
# resynchronise sources the kernel's table kept (seen once the unexplained
# wakeups gave CPU 1 a source while the suite ran).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
min=${MIN_RECORDS:-2000}
minic=${MIN_INTERCEPTED:-2}
replay=$top/build/idle-loop/replay
# judge TRACE OUT: the exact replay of TRACE (output in OUT.txt, OUT.err)
# matches every record, prediction and state, and holds enough of them
judge() {
	st=0
	"$replay" --from-boot --check-exact --rules adaptive "$1" >"$2.txt" 2>"$2.err" || st=$?
	line=$(grep '^exact replay' "$2.txt" || true)
	echo "${line:-no exact replay line}"
	grep '^first mismatch' "$2.txt" || true
	[ "$st" = 0 ] || { echo "FAIL: replay exited $st: $(head -1 "$2.err")"; exit 1; }
	# "exact replay (from boot): records R, warm W, predictions matched P/W (..%), states matched S/N (..%)"
	# shellcheck disable=SC2046
	set -- $(echo "$line" | tr ',/()' '    ')
	rec='' warm='' pm='' sm='' sn='' ic=''
	while [ $# -gt 0 ]; do
		case "$1" in
		records) rec=$2 ;;
		warm) warm=$2 ;;
		predictions) pm=$3 ;;
		states) sm=$3 sn=$4 ;;
		intercepted) ic=$2 ;;
		esac
		shift
	done
	[ -n "$rec" ] && [ -n "$warm" ] && [ -n "$pm" ] && [ -n "$sm" ] && [ -n "$ic" ] ||
		{ echo "FAIL: cannot read the replay summary"; exit 1; }
	[ "$rec" -ge "$min" ] || { echo "FAIL: only $rec records (want >= $min)"; exit 1; }
	[ "$warm" = "$rec" ] || { echo "FAIL: $warm of $rec records warm from boot"; exit 1; }
	[ "$pm" = "$warm" ] || { echo "FAIL: $pm of $warm predictions match"; exit 1; }
	[ "$sm" = "$sn" ] || { echo "FAIL: $sm of $sn states match"; exit 1; }
	[ "$sn" -ge "$min" ] || { echo "FAIL: only $sn states checked (want >= $min)"; exit 1; }
	# the pipe's IPIs must have made the idle loop choose from what it learned
	[ "$ic" -ge "$minic" ] || { echo "FAIL: only $ic choices made shallower by learning (want >= $minic)"; exit 1; }
}

# verdict TRACE DIR: judge TRACE, then its control, outputs in DIR
verdict() {
	judge "$1" "$2/replay"
	# the control: the same trace without one interrupt stamp from its middle
	# (one input the kernel's predictor had and the replay now lacks) must
	# fail the judge, or the comparison could not see a missing input
	n=$(grep -c 'irq_predict_stamp:' "$1" || true)
	awk -v k=$((n / 2)) '/irq_predict_stamp:/ && ++i == k { next } { print }' "$1" >"$2/trace-cut.txt"
	if (judge "$2/trace-cut.txt" "$2/replay-cut") >"$2/control.txt" 2>&1; then
		echo "FAIL: control: the trace without stamp $((n / 2)) of $n still replays exactly"
		exit 1
	fi
	echo "control: without stamp $((n / 2)) of $n: $(grep -m1 '^FAIL' "$2/control.txt")"
	echo "replay-exact: ok"
}

if [ "${1:-}" = --judge ]; then
	[ -s "${2:-}" ] || { echo "usage: replay-exact.sh --judge TRACE OUTDIR"; exit 2; }
	mkdir -p "${3:?usage: replay-exact.sh --judge TRACE OUTDIR}"
	verdict "$2" "$3"
	exit 0
fi

k=${KERNEL:-$top/build/kernels/patched.bzImage}
i=${INITRD:-}
o=${1:-$top/build/test/replay-exact}
[ -f "$k" ] || { echo "FAIL: build the patched kernel first"; exit 1; }
make -s -C "$top/idle-loop" >/dev/null || { echo "FAIL: building idle-loop/replay"; exit 1; }
mkdir -p "$o"
# the guest needs benchtool (mkinitramfs.sh builds the guest tools), so
# the image is built here unless INITRD names one
if [ -z "$i" ]; then
	i=$o/initramfs.cpio
	"$top/guest-image/mkinitramfs.sh" "$i" >"$o/mkinitramfs.log" 2>&1 ||
		{ echo "FAIL: guest-image/mkinitramfs.sh: $(tail -1 "$o/mkinitramfs.log")"; exit 1; }
fi
# two disks: two periodic interrupt sources (3 ms and 4.7 ms reads)
x=''
for n in 0 1; do
	rm -f "$o/disk$n.img"
	truncate -s 16M "$o/disk$n.img"
	x="$x -drive file=$o/disk$n.img,if=none,id=d$n,format=raw -device virtio-blk-pci,drive=d$n"
done
ev=irq_predict:irq_predict_stamp,irq_predict:irq_predict_next,irq_predict:irq_predict_lost,irq_predict:irq_predict_reset
ev=$ev,sched_idle:sched_idle_select,power:cpu_idle
"$top/guest-image/run-qemu.sh" -k "$k" -i "$i" -o "$o/guest" -c 2 -d cpuidle_emu -I 0 \
	-t 600 -q 300 -r replay-check \
	-x "$x" \
	-a "hpet=disable kunit.enable=0 trace_event=$ev trace_buf_size=16M ${GUEST_ARGS:-} guest.args=3" ||
	{ echo "FAIL: guest: $(cat "$o/guest/verdict" 2>/dev/null || echo no verdict)" \
		"$(grep -h '^FAIL' "$o/guest/results/run.log" 2>/dev/null | head -1)"; exit 1; }
grep -E '^(cpu[0-9]|blk[0-9]|pipe|trace):' "$o/guest/results/run.log" || true
gz=$o/guest/results/trace.txt.gz
[ -s "$gz" ] || { echo "FAIL: no trace came back"; exit 1; }
gzip -dc "$gz" >"$o/trace.txt"
verdict "$o/trace.txt" "$o"
