#!/bin/sh
# emu-states.sh RESULTS: each emulated idle state is entered when it is
# the only halting state enabled and the CPU idles under a 2 ms periodic
# cyclictest; a state disabled in sysfs is never entered meanwhile.
set -eu
out=$1
cpu=/sys/devices/system/cpu
usage() { cat "$cpu/cpu$1/cpuidle/state$2/usage"; }
states=$(ls -d "$cpu"/cpu0/cpuidle/state* | sed 's/.*state//' | sort -n)
cpus=$(ls -d "$cpu"/cpu[0-9]* | sed 's/.*cpu//')
set_disable() { # STATE VALUE on every CPU
	for c in $cpus; do echo "$2" >"$cpu/cpu$c/cpuidle/state$1/disable"; done
}
bad=0
for k in $states; do
	[ "$k" = 0 ] && continue
	for s in $states; do
		[ "$s" = 0 ] && continue
		if [ "$s" = "$k" ]; then set_disable "$s" 0; else set_disable "$s" 1; fi
	done
	before=
	for c in $cpus; do for s in $states; do before="$before $(usage "$c" "$s")"; done; done
	cyclictest --laptop -q -t 1 -i 2000 -D 1 >/dev/null 2>&1 || true
	after=
	for c in $cpus; do for s in $states; do after="$after $(usage "$c" "$s")"; done; done
	name=$(cat "$cpu/cpu0/cpuidle/state$k/name")
	# Compare per CPU and state: only state k (and POLL) may move.
	echo "$before" "|" "$after" | awk -v k="$k" -v n="$(echo $states | wc -w)" -v name="$name" '
		{ m = (NF - 1) / 2; entered = 0; bad = 0
		  for (i = 1; i <= m; i++) {
			s = (i - 1) % n; d = $(i + m + 1) - $i
			if (s == k) entered += d
			else if (s != 0 && d != 0) { bad = 1; print "state" s " entered while disabled: +" d }
		  }
		  print name ": entered " entered " times while the only halting state"
		  exit (entered > 0 && !bad) ? 0 : 1 }' | tee -a "$out/emu-states" || bad=1
done
for s in $states; do set_disable "$s" 0; done
[ "$bad" = 0 ] && echo "emu-states: ok"
exit "$bad"
