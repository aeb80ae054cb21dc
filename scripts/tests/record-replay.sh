#!/bin/sh
# record-replay.sh: this machine recorded by perf-scripts/record.sh and
# replayed by idle-loop's replay, which must not leave a CPU's next timer
# (the hrtimers it reconstructs from the trace) at "now" for more than 25%
# of that CPU's idle periods: a lost hrtimer expiry once did so for the
# rest of a recording (99.9% of its periods), and every rule then read 0%
# too deep.  A real machine does go idle with a timer already due (seen
# here: 2.8% of one CPU's 180 periods in 5 s), hence the margin.
#   record-replay.sh DIR              record SECONDS (default 5) into DIR,
#                                     replay it, judge it
#   record-replay.sh --judge TRACE STATES   replay and judge a recording
#   record-replay.sh --control DIR    the committed record.sh trace of
#       idle-loop/tests/gov-traces/menu with one hrtimer of CPU 0 that
#       expires only at the trace's end: must fail the judge
# Needs root and perf (make deps); a machine without a cpuidle driver has
# no idle periods to replay: said so, and not judged.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
# REPLAY: a replay binary of your own (default: idle-loop's, made here)
R=${REPLAY:-$BUILD/idle-loop/replay}
SECONDS_REC=${SECONDS_REC:-5}

# judge TRACE STATES: replay, then the share of each CPU's idle periods
# whose next timer was "now" (the dump's timer column, rule "timer")
judge() {
	d=$(mktemp)
	"$R" --states "$2" --rules timer --dump "$d" "$1" >"$d.out" 2>"$d.err" ||
		{ echo "FAIL: replay of $1 failed: $(tail -1 "$d.err")"; rm -f "$d" "$d.out" "$d.err"; return 1; }
	cat "$d.err"
	r=0
	awk '$1 == "timer" { n[$2]++; if ($6 == 0) z[$2]++; all++ }
		END {
			if (all < 20) { printf "FAIL: only %d idle periods replayed\n", all; exit 1 }
			bad = 0
			for (c in n) {
				p = 100 * z[c] / n[c]
				printf "cpu %s: %d of %d idle periods with the next timer at now (%.2f%%)\n", c, z[c], n[c], p
				if (p > 25) bad = 1
			}
			if (bad) { print "FAIL: a CPU has its next timer at now in more than 25% of its idle periods"; exit 1 }
		}' "$d" || r=1
	rm -f "$d" "$d.out" "$d.err"
	return "$r"
}

[ -n "${REPLAY:-}" ] || make -s -C "$TOP/idle-loop" >/dev/null
case "${1:-}" in
--judge)
	judge "${2:?usage: record-replay.sh --judge TRACE STATES}" "${3:?usage: record-replay.sh --judge TRACE STATES}"
	;;
--control)
	out=${2:?usage: record-replay.sh --control DIR}
	mkdir -p "$out"
	g=$TOP/idle-loop/tests/gov-traces/menu
	# after CPU 0's first hrtimer_start, a copy of it (another timer, due
	# at once); after the trace's last expiry on CPU 0, that timer's expiry
	xz -dc "$g/trace.txt.xz" >"$out/menu.txt"
	awk '
		function ns(s) { sub(/:$/, "", s); split(s, a, "."); return a[1] a[2] }
		NR == FNR { if (/\[000\].*timer:hrtimer_expire_entry:/) last = FNR; next }
		{ print }
		/\[000\].*timer:hrtimer_start:/ && !done {
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t = ns($i)
			l = $0; sub(/hrtimer=0x[0-9a-f]*/, "hrtimer=0xdeadbeef00", l)
			sub(/ expires=[0-9]*/, " expires=" t, l); sub(/softexpires=[0-9]*/, "softexpires=" t, l)
			print l; done = 1
		}
		FNR == last { sub(/hrtimer=0x[0-9a-f]*/, "hrtimer=0xdeadbeef00"); print }
	' "$out/menu.txt" "$out/menu.txt" >"$out/late-timer.txt"
	judge "$out/late-timer.txt" "$g/states"
	;;
-*) echo "usage: record-replay.sh DIR | --judge TRACE STATES | --control DIR" >&2; exit 2 ;;
*)
	out=${1:?usage: record-replay.sh DIR}
	if ! [ -r /sys/devices/system/cpu/cpu0/cpuidle/state0/name ]; then
		echo "record-replay: not judged: no cpuidle driver on this machine, no idle periods to record"
		exit 0
	fi
	rm -rf "$out"
	sh "$TOP/perf-scripts/record.sh" "$SECONDS_REC" "$out"
	judge "$out/trace.txt" "$out/states"
	echo "record-replay: $(sed -n 's/^driver //p' "$out/states") on $(uname -r): no CPU's next timer at now for more than 25% of its idle periods"
	;;
esac
