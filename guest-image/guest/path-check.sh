#!/bin/sh
# path-check.sh RESULTS MODE: which code picks idle states.  Counts the
# calls of menu_select, teo_select and sched_idle_select_state in the
# function tracer during a 2 s cyclictest run.  MODE=sched: the scheduler's path
# ran, its counters moved, and no governor was called.  MODE=governor:
# the governor ran and the scheduler's path did not.
set -eu
out=$1 mode=${2:?mode: sched or governor}
tr=/sys/kernel/tracing
stats=/sys/kernel/debug/sched_idle/stats
# The function tracer and its filter are set on the command line
# (ftrace=function ftrace_filter=...): patching function entries at run
# time, while other vCPUs run the idle loop, has crashed multi-threaded
# TCG guests (a stale int3 after the patch completed).
[ "$(cat "$tr/current_tracer")" = function ] ||
	{ echo "FAIL: boot with ftrace=function ftrace_filter=menu_select,teo_select,sched_idle_select_state"; exit 1; }
echo "traced: $(tr '\n' ' ' <"$tr/set_ftrace_filter")"
echo 0 >"$tr/tracing_on"
echo >"$tr/trace"
[ -f "$stats" ] && cat "$stats" >"$out/sched-idle-before"
echo 1 >"$tr/tracing_on"
cyclictest --laptop -q -t 1 -i 1000 -D 2 >/dev/null 2>&1 || true
echo 0 >"$tr/tracing_on"
[ -f "$stats" ] && cat "$stats" >"$out/sched-idle-after"
cat "$tr/trace" >"$out/trace"
n() { grep -c " $1 <-\| $1()" "$out/trace" || true; }
menu=$(n menu_select) teo=$(n teo_select) ours=$(n sched_idle_select_state)
echo "calls: menu_select=$menu teo_select=$teo sched_idle_select_state=$ours"
case "$mode" in
sched)
	[ -f "$stats" ] || { echo "FAIL: $stats missing"; exit 1; }
	e0=$(awk -F'entries=' '{ split($2, a, " "); n += a[1] } END { print n + 0 }' "$out/sched-idle-before")
	e1=$(awk -F'entries=' '{ split($2, a, " "); n += a[1] } END { print n + 0 }' "$out/sched-idle-after")
	echo "sched_idle entries: $e0 -> $e1"
	[ "$ours" -gt 0 ] && [ "$menu" = 0 ] && [ "$teo" = 0 ] && [ "$e1" -gt "$e0" ]
	;;
governor)
	# and nothing stamps interrupts for a path that is off
	src=/sys/kernel/debug/irq_predict/sources
	[ ! -r "$src" ] || { head -1 "$src"; grep -q '^stamping=off' "$src"; }
	[ $((menu + teo)) -gt 0 ] && [ "$ours" = 0 ]
	;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
echo "path-check: ok"
