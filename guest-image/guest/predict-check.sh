#!/bin/sh
# predict-check.sh RESULTS [MODE]: the interrupt predictor's bookkeeping,
# seen from a running patched guest.
# MODE=off: no cpuidle driver is registered, and nothing reads stamps:
# none may be taken (irq_predict/sources says stamping=off).
# MODE=on (default), with the HPET interrupt generator (boot with
# hpet=disable, QEMU -global hpet.timers=8) on 2 vCPUs or more:
#  - stamping: the idle path takes IRQ stamps (irq_predict/sources says
#    stamping=on), and a 1 ms generator source shows up in the table of
#    its CPU;
#  - a moved interrupt is not chased across CPUs, and expires: CPU 1 goes
#    offline, which moves the source to CPU 0 (the generator's IRQs
#    refuse /proc/irq/N/smp_affinity: IRQF_NOBALANCING), and comes back;
#    CPU 0's table then lists it, and after the 1 s of silence that drops
#    any source, CPU 1's no longer does;
#  - freeing an interrupt interrupts no one: 40 set-ups and clears of
#    the generator (a request_irq and a free_irq each) move no other
#    CPU's function call interrupt count (CAL) by 20 or more.
set -eu
out=$1 mode=${2:-on}
gen=/sys/kernel/debug/hpet_irqgen
src=/sys/kernel/debug/irq_predict/sources
fail() { echo "FAIL: $*"; exit 1; }
[ -r "$src" ] || fail "no $src"
if [ "$mode" = off ]; then
	sleep 1
	head -1 "$src"
	drv=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
	[ "$drv" = none ] || fail "a cpuidle driver is registered: $drv"
	grep -q '^stamping=off' "$src" || fail "interrupts are stamped, and nothing reads them"
	echo "predict-check: ok"
	exit 0
fi
[ "$(nproc)" -ge 2 ] || fail "needs 2 vCPUs or more"
[ -w "$gen/sources" ] || fail "no $gen (boot with hpet=disable and hpet.timers=8)"
grep -q '^stamping=on' "$src" || fail "the idle path takes no stamps: $(head -1 "$src")"
bad=0
no() { echo "FAIL: $*"; bad=1; }
ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

echo clear >"$gen/control"
echo "cpu=1 proc=periodic period_us=1000 jitter_us=0 seed=1" >"$gen/sources"
echo start >"$gen/control"
sleep 1
irq=$(sed -n 's/.*irq=\([0-9]*\).*/\1/p' "$gen/stats" | head -1)
[ -n "$irq" ] || fail "no IRQ in $gen/stats: $(cat "$gen/stats")"
cat "$src" >"$out/sources-before"
grep -q "^cpu=1 irq=$irq " "$src" || fail "IRQ $irq not in CPU 1's table"
on=/sys/devices/system/cpu/cpu1/online
t0=$(ms)
echo 0 >"$on" || fail "cannot take CPU 1 offline"
echo 1 >"$on" || fail "cannot bring CPU 1 back"
sleep 0.3
cat "$src" >"$out/sources-moved"
grep -q "^cpu=0 irq=$irq " "$out/sources-moved" ||
	no "IRQ $irq is not in CPU 0's table after it moved there"
sleep 1.2
cat "$src" >"$out/sources-after"
t1=$(ms)
echo stop >"$gen/control"
echo "move: CPU 1 offline and back, table read $((t1 - t0)) ms later"
if grep -q "^cpu=1 irq=$irq " "$out/sources-after"; then
	no "CPU 1 still lists IRQ $irq, silent there for over a second since it moved to CPU 0"
else
	echo "move: IRQ $irq expired from CPU 1's table"
fi

cal() { awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) printf "%s ", $i }' /proc/interrupts; }
before=$(cal)
i=0
while [ "$i" -lt 40 ]; do
	echo clear >"$gen/control"
	echo "cpu=1 proc=periodic period_us=1000 jitter_us=0 seed=1" >"$gen/sources"
	i=$((i + 1))
done
echo clear >"$gen/control"
after=$(cal)
echo "CAL before: $before"
echo "CAL after:  $after"
# this script runs on some CPU; every other CPU must stay undisturbed
set -- $after
worst=0
for b in $before; do
	d=$(($1 - b))
	[ "$d" -gt "$worst" ] && worst=$d
	shift
done
if [ "$worst" -lt 20 ]; then
	echo "free: at most $worst function call IPIs per CPU over 40 frees"
else
	no "40 frees sent up to $worst function call IPIs to one CPU"
fi
[ "$bad" = 0 ] || exit 1
echo "predict-check: ok"
