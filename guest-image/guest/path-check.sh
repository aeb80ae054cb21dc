#!/bin/sh
# path-check.sh RESULTS MODE: which code picks idle states.  Counts the
# calls of menu_select, teo_select and sched_idle_choose in the
# function tracer during a 2 s cyclictest run, then judges them.
#   MODE=sched:    sched_idle_choose ran, the sched_idle counters
#                  moved, and neither governor was called.
#   MODE=governor: a governor ran, sched_idle_choose did not, and
#                  the interrupt predictor stamps nothing.
# path-check.sh --judge RESULTS MODE: the verdict alone, from the files a
# run left in RESULTS (trace, sched-idle-before/after, irq-predict); the
# host reruns it on finished runs, and on the other mode as a control.
set -eu

# count FUNC: calls of FUNC in the function tracer's output
count() {
	grep -c -e " $1 <-" -e " $1()" "$out/trace" || true
}
# entries FILE: the sched_idle counters' idle entries summed over CPUs
entries() {
	[ -f "$1" ] || { echo -1; return; }
	awk -F'entries=' 'NF > 1 { split($2, a, " "); n += a[1]; seen = 1 }
		END { print seen ? n : -1 }' "$1"
}
# Every condition is tested on its own: a list joined with && under set -e
# stops the script only through its last member.
judge() {
	[ -f "$out/trace" ] || { echo "FAIL: no trace in $out"; return 1; }
	menu=$(count menu_select) teo=$(count teo_select)
	ours=$(count sched_idle_choose)
	echo "calls: menu_select=$menu teo_select=$teo sched_idle_choose=$ours"
	bad=
	case "$mode" in
	sched)
		e0=$(entries "$out/sched-idle-before") e1=$(entries "$out/sched-idle-after")
		echo "sched_idle entries: $e0 -> $e1"
		[ "$ours" -gt 0 ] || bad="$bad; sched_idle_choose never ran"
		[ "$menu" -eq 0 ] || bad="$bad; menu_select ran $menu times"
		[ "$teo" -eq 0 ] || bad="$bad; teo_select ran $teo times"
		[ "$e0" -ge 0 ] && [ "$e1" -gt "$e0" ] ||
			bad="$bad; the sched_idle entry counters did not move ($e0 -> $e1)"
		;;
	governor)
		[ $((menu + teo)) -gt 0 ] || bad="$bad; neither menu_select nor teo_select ran"
		[ "$ours" -eq 0 ] || bad="$bad; sched_idle_choose ran $ours times"
		# a kernel without the predictor has no file; one with it must
		# say that nothing stamps interrupts for a path that is off
		if [ -f "$out/irq-predict" ]; then
			head -1 "$out/irq-predict"
			grep -q '^stamping=off' "$out/irq-predict" ||
				bad="$bad; interrupts are stamped ($(head -1 "$out/irq-predict"))"
		fi
		;;
	*)
		echo "FAIL: unknown mode '$mode' (sched or governor)"
		return 2
		;;
	esac
	if [ -n "$bad" ]; then
		echo "FAIL: path-check $mode:${bad#;}"
		return 1
	fi
	echo "path-check: ok ($mode)"
}

if [ "${1:-}" = --judge ]; then
	out=${2:?usage: path-check.sh --judge RESULTS MODE}
	mode=${3:?mode: sched or governor}
	judge
	exit $?
fi

out=$1 mode=${2:?mode: sched or governor}
tr=/sys/kernel/tracing
stats=/sys/kernel/debug/sched_idle/stats
src=/sys/kernel/debug/irq_predict/sources
# The function tracer and its filter are set on the command line
# (ftrace=function ftrace_filter=...): see guest-image/README.md on
# patching kernel text at run time under multi-threaded TCG.
[ "$(cat "$tr/current_tracer")" = function ] ||
	{ echo "FAIL: boot with ftrace=function ftrace_filter=menu_select,teo_select,sched_idle_choose"; exit 1; }
echo "traced: $(tr '\n' ' ' <"$tr/set_ftrace_filter")"
echo 0 >"$tr/tracing_on"
echo >"$tr/trace"
[ ! -f "$stats" ] || cat "$stats" >"$out/sched-idle-before"
echo 1 >"$tr/tracing_on"
cyclictest --laptop -q -t 1 -i 1000 -D 2 >/dev/null 2>&1 || true
echo 0 >"$tr/tracing_on"
[ ! -f "$stats" ] || cat "$stats" >"$out/sched-idle-after"
[ ! -r "$src" ] || cat "$src" >"$out/irq-predict"
cat "$tr/trace" >"$out/trace"
judge
