#!/bin/sh
# emu-states.sh RESULTS [busted]: each emulated idle state is entered when
# it is the only halting state enabled and the CPU idles under a 2 ms
# periodic cyclictest; a state disabled in sysfs is never entered
# meanwhile.  Each round's usage counters go to RESULTS/emu-states.counts
# as "K STATE CPU BEFORE AFTER" lines (K: the state left enabled).
# busted: the control; the round's state is left disabled too, so no
# state may be entered and the check must fail.
# emu-states.sh --judge COUNTS [STATES CPUS]: the verdict alone, from a
# counts file; with STATES (states in the table, polling included) and
# CPUS, also every round 1..STATES-1 and in each round every state on every
# CPU exactly once.
set -eu

# judge COUNTS [STATES CPUS]: for every round K, state K moved on some CPU
# and no other halting state (state 0 polls and may move) moved on any CPU;
# with STATES and CPUS, no round, state or CPU missing or repeated
judge() {
	[ -s "$1" ] || { echo "FAIL: no counts in $1"; return 1; }
	awk -v nstates="${2:-0}" -v ncpus="${3:-0}" '
		NF != 5 || $0 ~ /[^0-9 ]/ { printf "FAIL: %s:%d: not K STATE CPU BEFORE AFTER\n", FILENAME, NR; bad = 1; next }
		{ k = $1; rounds[k] = 1; d = $5 - $4; seen[k, $2, $3]++
		  if ($2 == k) entered[k] += d
		  else if ($2 != 0 && d != 0) {
			printf "FAIL: round %d: state%d entered while disabled: +%d on cpu%d\n", k, $2, d, $3
			bad = 1
		  } }
		END {
			n = 0
			for (k in rounds) {
				n++
				if (entered[k] > 0) printf "state%d: entered %d times while the only halting state\n", k, entered[k]
				else { printf "FAIL: state%d never entered while the only halting state\n", k; bad = 1 }
			}
			if (!n) { print "FAIL: no rounds"; bad = 1 }
			for (k = 1; nstates && k < nstates; k++) {
				if (!(k in rounds)) { printf "FAIL: round %d missing (%d states)\n", k, nstates; bad = 1; continue }
				for (s = 0; s < nstates; s++) for (c = 0; c < ncpus; c++)
					if (seen[k, s, c] != 1) {
						printf "FAIL: round %d: state%d on cpu%d counted %d times\n", k, s, c, seen[k, s, c]
						bad = 1
					}
			}
			for (k in rounds) if (nstates && (k < 1 || k >= nstates)) {
				printf "FAIL: round %d beyond the %d states\n", k, nstates; bad = 1
			}
			exit bad
		}' "$1"
}

if [ "${1:-}" = --judge ]; then
	judge "${2:?usage: emu-states.sh --judge COUNTS [STATES CPUS]}" "${3:-}" "${4:-}"
	exit $?
fi

out=$1 busted=${2:-}
cpu=/sys/devices/system/cpu
usage() { cat "$cpu/cpu$1/cpuidle/state$2/usage"; }
states=$(ls -d "$cpu"/cpu0/cpuidle/state* | sed 's/.*state//' | sort -n)
cpus=$(ls -d "$cpu"/cpu[0-9]* | sed 's/.*cpu//')
set_disable() { # STATE VALUE on every CPU
	for c in $cpus; do echo "$2" >"$cpu/cpu$c/cpuidle/state$1/disable"; done
}
counts=$out/emu-states.counts
: >"$counts"
for k in $states; do
	[ "$k" = 0 ] && continue
	for s in $states; do
		[ "$s" = 0 ] && continue
		if [ "$s" = "$k" ] && [ "$busted" != busted ]; then
			set_disable "$s" 0
		else
			set_disable "$s" 1
		fi
	done
	for c in $cpus; do for s in $states; do eval "b_${c}_$s=$(usage "$c" "$s")"; done; done
	cyclictest --laptop -q -t 1 -i 2000 -D 1 >/dev/null 2>&1 || true
	for c in $cpus; do
		for s in $states; do
			b=
			eval "b=\$b_${c}_$s"
			echo "$k $s $c $b $(usage "$c" "$s")" >>"$counts"
		done
	done
done
for s in $states; do set_disable "$s" 0; done
judge "$counts" "$(echo $states | wc -w)" "$(echo $cpus | wc -w)"
echo "emu-states: ok"
