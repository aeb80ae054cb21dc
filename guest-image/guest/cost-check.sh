#!/bin/sh
# cost-check.sh RESULTS on|off: the cpuidle_cost probe (series patch 4).
# on (booted with cpuidle_cost.enable=1): after a restart and one second
# of a 2 ms cyclictest, selections are counted, the shortest one costs
# more than the cheapest empty bracket, and the empty bracket was timed
# 1000 times.  off: the file reads enabled=0 and nothing is counted.
set -eu
out=$1
want=${2:-on}
f=/sys/kernel/debug/cpuidle_cost
[ -r "$f" ] || { echo "cost-check: no $f"; exit 1; }
echo 0 >"$f"
cyclictest --laptop -q -t 1 -i 2000 -D 1 >/dev/null 2>&1 || true
cat "$f" >"$out/cpuidle_cost"
cat "$out/cpuidle_cost"
if awk -v want="$want" '
	/^enabled=/ { en = substr($0, 9) + 0 }
	/^[a-z]+ count=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1 "_" kv[1]] = kv[2] + 0 }
	}
	END {
		if (want == "off")
			ok = en == 0 && v["select_count"] == 0 && v["empty_count"] == 0
		else
			ok = en == 1 && v["select_count"] > 100 && v["empty_count"] == 1000 &&
			     v["select_min_ns"] > v["empty_min_ns"]
		exit !ok
	}' "$out/cpuidle_cost"; then
	echo "cost-check: ok ($want)"
else
	echo "cost-check: the probe's file does not read as expected with the probe $want"
	exit 1
fi
