#!/bin/sh
# replay-check.sh RESULTS [SECONDS]: a trace of the interrupt predictor
# from boot, for an exact replay on the host (idle-loop/replay
# --from-boot --check-exact).  Boot the patched kernel with
#   trace_event=irq_predict:irq_predict_stamp,irq_predict:irq_predict_lost,
#   irq_predict:irq_predict_reset,
#   irq_predict:irq_predict_next,sched_idle:sched_idle_select,power:cpu_idle
#   trace_buf_size=16M
# and one or two virtio-blk disks: the events are on from boot, so every
# stamp the predictor ever took is in the buffer.  Runs SECONDS (default
# 3) of periodic O_DIRECT reads (benchtool blk, 3 ms on vda, 4.7 ms on
# vdb; the RTC is no device interrupt here: 6.12 emulates its periodic
# mode with an hrtimer) and, in the last second, pipe round trips from
# CPU 0 to the last CPU at random intervals of 50-750 us (benchtool pipe
# 400 1 0 LAST 350: IPI wakeups that no period predicts, most of them
# before the deepest state's target residency, so that the idle loop
# learns from them: back-to-back wakeups would be predicted by patch
# 12's wakeup source, and learning steps in only while early wakeups
# are most of the history), stops tracing, fails on
# any lost event (per-CPU overrun, dropped events), and returns the
# trace as RESULTS/trace.txt.gz.
set -eu
out=$1 secs=${2:-3}
tr=/sys/kernel/tracing
for e in irq_predict/irq_predict_stamp irq_predict/irq_predict_lost irq_predict/irq_predict_reset \
	irq_predict/irq_predict_next sched_idle/sched_idle_select power/cpu_idle; do
	[ "$(cat "$tr/events/$e/enable" 2>/dev/null)" = 1 ] ||
		{ echo "FAIL: event $e is not enabled (boot with trace_event=...)"; exit 1; }
done
# one O_DIRECT reader per virtio-blk disk, each its own MSI-X source
pids='' n=0
for d in /dev/vda /dev/vdb; do
	[ -b "$d" ] || continue
	n=$((n + 1))
	p=$((n == 1 ? 3000 : 4700))
	benchtool blk "$d" "$p" "$secs" >"$out/blk$n.log" 2>&1 &
	pids="$pids $!"
done
[ "$n" -gt 0 ] || { echo "FAIL: no virtio-blk disk"; exit 1; }
sleep $((secs - 1))
last=$(($(nproc) - 1))
benchtool pipe 400 1 0 "$last" 350 </dev/null >"$out/pipe.log" 2>&1 ||
	{ echo "FAIL: benchtool pipe: $(cat "$out/pipe.log")"; exit 1; }
for p in $pids; do
	wait "$p" || { echo "FAIL: benchtool blk: $(cat "$out"/blk*.log)"; exit 1; }
done
sleep 0.2
echo 0 >"$tr/tracing_on"
for f in "$out"/blk*.log "$out/pipe.log"; do
	echo "$(basename "$f" .log): $(cat "$f")"
done
lost=0
for s in "$tr"/per_cpu/cpu*/stats; do
	cpu=$(basename "$(dirname "$s")")
	echo "$cpu: $(tr '\n' ' ' <"$s")"
	for k in 'overrun' 'commit overrun' 'dropped events'; do
		v=$(grep "^$k:" "$s" | awk -F': ' '{ print $2 }')
		[ "${v:-0}" = 0 ] || { echo "FAIL: $cpu lost events ($k: $v)"; lost=1; }
	done
done
[ "$lost" = 0 ] || exit 1
gzip -c "$tr/trace" >"$out/trace.txt.gz"
echo "trace: $(zcat "$out/trace.txt.gz" | grep -c irq_predict_next) questions"
echo "replay-check: ok"
