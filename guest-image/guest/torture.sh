#!/bin/sh
# torture.sh RESULTS [SECONDS]: the debug kernel under rcutorture (built
# in, started at boot with rcutorture.stat_interval) while robust.sh
# churns CPUs, interrupts and idle states.  Fails on any rcutorture
# error mark ("!!!"), on no rcutorture statistics, on a failed IRQ
# timings self-test, and on kmemleak reports.
set -eu
out=$1 secs=${2:-30}
sh /scripts/robust.sh "$out" "$secs" || exit 1
dmesg >"$out/dmesg"
n=$(grep -c 'rcu-torture:.*ver:' "$out/dmesg" || true)
echo "torture: $n rcutorture statistics lines"
[ "$n" -gt 0 ] || { echo "torture: FAIL no rcutorture statistics"; exit 1; }
if grep -q 'rcu-torture.*!!!' "$out/dmesg"; then
	echo "torture: FAIL rcutorture reported errors"; grep 'rcu-torture.*!!!' "$out/dmesg" | head -3
	exit 1
fi
if grep -q 'irq_timings.*[Ff]ail' "$out/dmesg"; then
	echo "torture: FAIL IRQ timings self-test"; exit 1
fi
grep -q 'irq_timings: .*tests' "$out/dmesg" && grep 'irq_timings' "$out/dmesg" | tail -2
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$out/kmemleak"
	leaks=$(grep -c '^unreferenced object' "$out/kmemleak" || true)
	echo "torture: kmemleak: $leaks unreferenced objects"
	[ "$leaks" -eq 0 ] || { head -20 "$out/kmemleak"; exit 1; }
fi
echo "torture: ok"
