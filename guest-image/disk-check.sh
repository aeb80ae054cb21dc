#!/bin/sh
# disk-check.sh: run at every boot by disk-check.service in the Debian disk
# of scripts/disk-boot.sh (installed as /usr/local/sbin/disk-check); it
# ends each boot itself (it powers off).  Prints, through the
# journal to the console (whole lines, "[time] disk-check[pid]: ..."),
# what the host's judge (scripts/disk-boot.sh --judge) looks for.
#  - Booted with idle.setup=1 (once, by the disk's bootstrap GRUB, on
#    Debian's own kernel): what a user does on their machine, as the
#    README says: grub-install, grub-default.sh keep, dpkg -i of both
#    packages; then the saved default.
#  - On any other kernel than the one QEMU names in fw_cfg
#    (opt/idle-disk/boot): the default boot; it names the kernel GRUB
#    chose and its package, asks for the named kernel once
#    (grub-default.sh once) and powers off (the host powers it on again).
#  - On the named kernel: the running kernel; the root disk, its driver,
#    whether that driver is a loaded module and in the initrd (a root
#    whose driver is a module was mounted from the initrd); the idle
#    driver and governor; whether interrupts are stamped and predicted
#    (debugfs irq_predict/sources); 3 s of this machine's idle periods
#    recorded with perf-scripts/record.sh; each idle state's counters on
#    CPU 0; then the next boot's default.
set -u
say() { echo "disk-check: $*"; }
idle=/sys/devices/system/cpu/cpuidle
dbg=/sys/kernel/debug
end() { systemctl "$1" --no-block; exit 0; }
# saved: GRUB's saved default, as its environment block holds it
saved() { grub-editenv list | sed -n 's/^saved_entry=//p'; }

if grep -qw idle.setup=1 /proc/cmdline; then
	say "setup: kernel $(uname -r)"
	mountpoint -q /boot/efi || mount /boot/efi
	grub-install --target=x86_64-efi --efi-directory=/boot/efi --removable --no-nvram \
		>/var/tmp/grub-install.log 2>&1 || { say "setup: grub-install failed: $(tail -n 1 /var/tmp/grub-install.log)"; end poweroff; }
	rm -f /boot/efi/EFI/BOOT/grub.cfg
	/usr/local/sbin/grub-default.sh keep || { say "setup: grub-default.sh keep failed"; end poweroff; }
	for d in /var/cache/idle-debs/*.deb; do
		dpkg -i "$d" >/var/tmp/dpkg.log 2>&1 || { say "setup: dpkg -i $(basename "$d") failed: $(tail -n 1 /var/tmp/dpkg.log)"; end poweroff; }
		say "setup: installed $(basename "$d")"
	done
	say "setup: saved default $(saved)"
	say "setup: done"
	end poweroff
fi

modprobe qemu_fw_cfg 2>/dev/null
want=$(cat /sys/firmware/qemu_fw_cfg/by_name/opt/idle-disk/boot/raw 2>/dev/null || echo none)
if [ "$(uname -r)" != "$want" ]; then
	say "default kernel $(uname -r) package $(dpkg -S "/boot/vmlinuz-$(uname -r)" 2>/dev/null | cut -d: -f1)"
	if [ -e /var/lib/disk-check-default-booted ]; then
		say "the boot after grub-reboot is the default again"
		end poweroff
	fi
	touch /var/lib/disk-check-default-booted
	/usr/local/sbin/grub-default.sh once "$want" && say "next boot $want"
	end poweroff
fi

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
say "saved default $(saved)"
say "done"
end poweroff
