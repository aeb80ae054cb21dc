#!/bin/sh
# cost-check.sh RESULTS on|off: the cpuidle_cost probe (test infrastructure of the series).
# on (booted with cpuidle_cost.enable=1): after a restart and one second
# of a 2 ms cyclictest, selections are counted, the shortest one costs
# more than the cheapest empty bracket, and the empty bracket was timed
# 1000 times.  off: the file reads enabled=0 and nothing is counted.
# cost-check.sh --judge FILE on|off: the verdict alone, from a copy of
# the file (the host reruns it, and on an empty file as a control).
set -eu

# judge FILE WANT: the verdict from a copy of the probe's file.  Every
# field the verdict reads must be present: a file without them is not a
# probe that counted nothing.
judge() {
	awk -v want="$2" '
		/^enabled=[01]$/ { en = substr($0, 9) + 0; have["enabled"] = 1 }
		/^[a-z]+ count=/ {
			have[$1] = 1
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1 "_" kv[1]] = kv[2] + 0 }
		}
		END {
			split("enabled select empty", need, " ")
			for (i = 1; i <= 3; i++)
				if (!(need[i] in have)) { printf "cost-check: no %s line\n", need[i]; exit 1 }
			if (want == "off")
				ok = en == 0 && v["select_count"] == 0 && v["empty_count"] == 0
			else if (want == "on")
				ok = en == 1 && v["select_count"] > 100 && v["empty_count"] == 1000 &&
				     v["select_min_ns"] > v["empty_min_ns"]
			else { printf "cost-check: want on or off, not %s\n", want; exit 2 }
			exit !ok
		}' "$1" || {
		echo "cost-check: the probe's file does not read as expected with the probe $2"
		return 1
	}
	echo "cost-check: ok ($2)"
}

if [ "${1:-}" = --judge ]; then
	judge "${2:?usage: cost-check.sh --judge FILE on|off}" "${3:?on or off}"
	exit $?
fi

out=$1
want=${2:-on}
f=/sys/kernel/debug/cpuidle_cost
[ -r "$f" ] || { echo "cost-check: no $f"; exit 1; }
echo 0 >"$f"
cyclictest --laptop -q -t 1 -i 2000 -D 1 >/dev/null 2>&1 || true
cat "$f" >"$out/cpuidle_cost"
cat "$out/cpuidle_cost"
judge "$out/cpuidle_cost" "$want"
