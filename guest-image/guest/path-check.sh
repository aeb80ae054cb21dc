#!/bin/sh
# path-check.sh RESULTS MODE: which code picks idle states.  Traces
# menu_select, teo_select and sched_idle_select_state with the function
# tracer during a 2 s cyclictest run.  MODE=sched: the scheduler's path
# ran, its counters moved, and no governor was called.  MODE=governor:
# the governor ran and the scheduler's path did not.
set -eu
out=$1 mode=${2:?mode: sched or governor}
tr=/sys/kernel/tracing
stats=/sys/kernel/debug/sched_idle/stats
avail=$(grep -o -w -E 'menu_select|teo_select|sched_idle_select_state' \
	"$tr/available_filter_functions" | sort -u | tr '\n' ' ')
echo "traceable: $avail"
[ -n "$avail" ] || { echo "FAIL: none of the functions is traceable"; exit 1; }
echo "$avail" >"$tr/set_ftrace_filter"
echo function >"$tr/current_tracer"
echo 1 >"$tr/tracing_on"
[ -f "$stats" ] && cat "$stats" >"$out/sched-idle-before"
cyclictest --laptop -q -t 1 -i 1000 -D 2 >/dev/null 2>&1 || true
echo 0 >"$tr/tracing_on"
[ -f "$stats" ] && cat "$stats" >"$out/sched-idle-after"
cat "$tr/trace" >"$out/trace"
echo nop >"$tr/current_tracer"
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
	[ $((menu + teo)) -gt 0 ] && [ "$ours" = 0 ]
	;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
echo "path-check: ok"
