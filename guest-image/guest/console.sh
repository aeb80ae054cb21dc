#!/bin/sh
# console.sh: an interactive busybox shell on the serial console (`make
# shell`, run-qemu.sh -S -r console).  The guest powers off when it exits.
exec </dev/console >/dev/console 2>&1
cat <<'HELP'
console: the emulated idle states are in /sys/devices/system/cpu/cpu*/cpuidle,
  the driver's counters in /sys/kernel/debug/cpuidle_emu/, the predictor's in
  /sys/kernel/debug/sched_idle/ (patched kernel), the interrupt generator in
  /sys/kernel/debug/hpet_irqgen/, events in /sys/kernel/tracing/events/;
  tools: perf, cyclictest, hackbench, benchtool, /scripts/*.sh.
  'exit' powers the guest off.
HELP
setsid cttyhack sh -l
