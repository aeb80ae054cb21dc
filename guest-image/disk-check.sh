#!/bin/sh
# disk-check.sh: run once at boot by disk-check.service in the Debian disk
# of scripts/disk-boot.sh (installed as /usr/local/sbin/disk-check); the
# unit powers the machine off when it ends.  Prints, through the journal
# to the console (whole lines, "[time] disk-check[pid]: ..."), what
# the host's judge (scripts/disk-boot.sh --judge) looks for: the running
# kernel; the root disk, its driver, whether that driver is a loaded
# module and in the initrd (a root whose driver is a module was mounted
# from the initrd); the idle driver and governor; whether interrupts are
# stamped and predicted (debugfs irq_predict/sources); 3 s of this
# machine's idle periods recorded with perf-scripts/record.sh; then each
# idle state's counters on CPU 0.
set -u
say() { echo "disk-check: $*"; }
idle=/sys/devices/system/cpu/cpuidle
dbg=/sys/kernel/debug

say "kernel $(uname -r)"
# the root's partition, its disk, and the driver bound to the disk's
# device (virtio_blk) or to its controller's (nvme)
part=$(basename "$(findmnt -n -o SOURCE /)")
disk=$(basename "$(dirname "$(readlink -f "/sys/class/block/$part")")")
dev=/sys/block/$disk/device
[ -e "$dev/driver" ] || dev=$dev/device
drv=$(basename "$(readlink -f "$dev/driver")")
module=builtin
[ ! -f "/sys/module/$drv/initstate" ] || module="module $(cat "/sys/module/$drv/initstate")"
initrd=no
lsinitramfs "/boot/initrd.img-$(uname -r)" 2>/dev/null | grep -q "/$drv\.ko" && initrd=yes
say "root $part disk $disk driver $drv $module in-initrd=$initrd"
dmesg | grep -q 'Freeing initrd memory' && say "initrd loaded"

say "current_driver $(cat "$idle/current_driver" 2>/dev/null || echo none)"
say "current_governor $(cat "$idle/current_governor" 2>/dev/null || echo none)"
mountpoint -q "$dbg" || mount -t debugfs debugfs "$dbg"
src=$dbg/irq_predict/sources
if [ -r "$src" ]; then
	say "$(sed -n 1p "$src")"
	say "predicted sources $(grep -c 'intervals=[1-9]' "$src")"
	grep 'intervals=[1-9]' "$src" | head -n 4 | sed 's/^/disk-check: source /'
else
	say "no $src"
fi
/usr/local/sbin/record.sh 3 /var/tmp/idle-record
say "record.sh exit status $?"
for s in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
	[ -d "$s" ] || continue
	say "cpu0 state $(basename "$s") $(cat "$s/name") usage=$(cat "$s/usage") above=$(cat "$s/above") below=$(cat "$s/below")"
done
say "done"
