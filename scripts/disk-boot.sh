#!/bin/sh
# disk-boot.sh: boot a kernel package the way a machine boots it.  A
# Debian 12 disk (GPT: an ESP with GRUB at the removable path
# EFI/BOOT/BOOTX64.EFI, an ext4 root made by mmdebstrap with build/deb's
# linux-image installed by dpkg, initrd by initramfs-tools, linux-perf)
# is booted by OVMF under QEMU TCG, no -kernel: firmware -> ESP -> GRUB ->
# kernel and initrd from the disk, the disk on a virtio or an NVMe
# controller (the package's drivers for both are modules: the root is
# mounted from the initrd).  disk-check.service runs
# guest-image/disk-check.sh and powers off; the console is judged here.
# Usage:
#   scripts/disk-boot.sh [--kernel patched|stock] [--bus virtio|nvme]
#       build (or reuse) build/disk-boot[-stock]/disk.img, boot a copy
#       from that bus (default virtio), judge its console.log; a pass is
#       followed by the judge's control: an edited copy of the log (the
#       other kernel's governor) must fail
#   scripts/disk-boot.sh --judge LOG [patched|stock [virtio|nvme]]
#       judge a console log again (PASS, or one FAIL line)
#   scripts/disk-boot.sh --preflight
#       what must hold before make disk-boot builds the packages (root,
#       for mmdebstrap --mode=root): nothing, or one line and status 1
set -eu
. "$(dirname "$0")/lib.sh"

release() { # KIND: the package's kernel release (scripts/build-deb.sh)
	case "$1" in
	patched) echo "$(cfg LINUX_UPSTREAM_VERSION)-idlepredict" ;;
	stock) echo "$(cfg LINUX_UPSTREAM_VERSION)-idlestock" ;;
	*) die "kernel '$1': patched or stock" ;;
	esac
}

# judge LOG KIND BUS: PASS when every expected line of a KIND kernel booted
# from a BUS disk is there, the deepest idle state of CPU 0 was entered,
# and no splat.  Prints one line; status 0 on PASS.
judge() {
	log=$1 jkind=$2 bus=$3
	[ -f "$log" ] || { echo "FAIL: no console log $log"; return 1; }
	rel=$(release "$jkind")
	case "$bus" in
	virtio) rootdrv=virtio_blk ;;
	nvme) rootdrv=nvme ;;
	*) echo "FAIL: bus '$bus': virtio or nvme"; return 1 ;;
	esac
	txt=$(mktemp)
	tr -d '\r' <"$log" >"$txt"
	re_rel=$(printf '%s' "$rel" | sed 's/\./\\./g')
	splat=$(grep -Em1 'Kernel panic|Oops|BUG:|Call Trace:|WARNING: CPU' "$txt" || true)
	if [ -n "$splat" ]; then
		rm -f "$txt"
		echo "FAIL: console splat '$splat' ($log)"
		return 1
	fi
	{
		cat <<-EOF
		disk-boot: GRUB from the ESP boots $re_rel
		^\[ *[0-9.]+\] Linux version $re_rel 
		Command line: BOOT_IMAGE=/boot/vmlinuz-$re_rel 
		: disk-check: kernel $re_rel$
		: disk-check: root [a-z0-9]+ disk [a-z0-9]+ driver $rootdrv module live in-initrd=yes$
		: disk-check: initrd loaded$
		: disk-check: current_driver cpuidle_emu$
		: disk-check: record\.sh exit status 0$
		: disk-check: done$
		reboot: Power down
		EOF
		if [ "$jkind" = patched ]; then
			cat <<-EOF
			: disk-check: current_governor sched_idle$
			: disk-check: stamping=on$
			: disk-check: predicted sources [1-9][0-9]*$
			: disk-check: source cpu=[0-9]+ irq=[0-9]+ intervals=[1-9]
			: record\.sh: [1-9][0-9]* idle events, governor sched_idle, driver cpuidle_emu
			EOF
		else
			cat <<-EOF
			: disk-check: current_governor menu$
			: disk-check: no /sys/kernel/debug/irq_predict/sources$
			: record\.sh: [1-9][0-9]* idle events, governor menu, driver cpuidle_emu
			EOF
		fi
	} | while IFS= read -r re; do
		grep -Eq -- "$re" "$txt" || { echo "FAIL: the console lacks /$re/ ($log)"; break; }
	done >"$txt.miss"
	if [ -s "$txt.miss" ]; then
		cat "$txt.miss"
		rm -f "$txt" "$txt.miss"
		return 1
	fi
	# "disk-check: cpu0 state stateN NAME usage=U above=A below=B", in order
	states=$(sed -n 's/.*: disk-check: cpu0 state state[0-9]* \([^ ]*\) usage=\([0-9]*\) .*/\1=\2/p' "$txt" | tr '\n' ' ' | sed 's/ $//')
	rm -f "$txt" "$txt.miss"
	if [ "$(echo "$states" | wc -w)" -lt 2 ]; then
		echo "FAIL: fewer than 2 idle states on CPU 0 ($states) ($log)"
		return 1
	fi
	if [ "$(echo "$states" | awk '{ sub(/.*=/, "", $NF); print $NF }')" -eq 0 ]; then
		echo "FAIL: the deepest idle state was never entered on CPU 0 ($states) ($log)"
		return 1
	fi
	echo "PASS (cpu0: $states)"
}

# preflight: the causes that would stop this script after make deb's
# two kernel builds, said before them
preflight() {
	[ "$(id -u)" -eq 0 ] ||
		die "needs root (mmdebstrap --mode=root builds the disk's root file system): run make disk-boot as root; nothing was built"
}

usage="usage: disk-boot.sh [--kernel patched|stock] [--bus virtio|nvme] | --judge LOG [patched|stock [virtio|nvme]] | --preflight"
kind=patched bus=virtio
case "${1:-}" in
--preflight) preflight; exit ;;
--judge)
	[ -n "${2:-}" ] || die "$usage"
	judge "$2" "${3:-patched}" "${4:-virtio}"
	exit ;;
esac
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kind=${2:-} ;;
	--bus) bus=${2:-} ;;
	*) die "$usage" ;;
	esac
	shift 2 || die "$usage"
done
case "$bus" in
virtio) qdev="-device virtio-blk-pci,drive=d0" ;;
nvme) qdev="-device nvme,serial=idle-root,drive=d0" ;;
*) die "bus '$bus': virtio or nvme" ;;
esac
preflight
rel=$(release "$kind")
deb=$BUILD/deb/linux-image-${rel}_${rel}-1_amd64.deb
[ -f "$deb" ] || die "$deb is missing: run 'make deb' first"
dir=$BUILD/disk-boot
[ "$kind" = patched ] || dir=$BUILD/disk-boot-$kind
mkdir -p "$dir"
need_pkgs mmdebstrap gdisk mtools dosfstools e2fsprogs qemu-system-x86 ovmf
code=/usr/share/OVMF/OVMF_CODE_4M.fd
vars=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -f "$code" ] && [ -f "$vars" ] || die "OVMF is missing (package ovmf)"

# The kernel's command line: the emulated idle states (QEMU TCG has no idle
# driver; they register only when asked, and no other driver did) and,
# on the patched kernel, sched_idle as the default governor; real-time TCG
# needs tsc=reliable (perf-scripts/idlebench/launch.py, REAL_ARGS).
args="console=ttyS0,115200 panic=-1 tsc=reliable cpuidle.off=0 cpuidle_emu.enable=1 cpuidle_emu.table=skx"

# ---- image: rebuilt when the package or the guest's files change
stamp=$(cat "$deb" "$TOP/scripts/disk-boot.sh" "$TOP/guest-image/disk-check.sh" "$TOP/perf-scripts/record.sh" |
	sha256sum | cut -c1-16)
if [ -f "$dir/disk.img" ] && [ "$(cat "$dir/disk.stamp" 2>/dev/null)" = "$stamp" ]; then
	say "$kind: image up to date ($dir/disk.img)"
else
	t=$(date +%s)
	rm -rf "$dir/rootfs" "$dir/disk.img" "$dir/disk.stamp" "$dir/BOOTX64.EFI"
	mirror=
	for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
		if grep -qs '^[^#]*bookworm' "$f"; then mirror=$f; break; fi
	done
	# initramfs-tools puts the root's fsck in the initrd only when it knows
	# the root's file system type: it probes "/" (the chroot's) otherwise
	uuid=$(cat /proc/sys/kernel/random/uuid)
	say "$kind: mmdebstrap bookworm with $(basename "$deb") (log: $dir/mmdebstrap.log)"
	# shellcheck disable=SC2086
	mmdebstrap --mode=root --variant=minbase \
		--include=systemd-sysv,udev,initramfs-tools,zstd,e2fsprogs,kmod,linux-perf,busybox,grub-efi-amd64-bin \
		--customize-hook="echo 'UUID=$uuid / ext4 errors=remount-ro 0 1' >\"\$1/etc/fstab\"" \
		--customize-hook='echo FSTYPE=ext4 >"$1/etc/initramfs-tools/conf.d/fstype"' \
		--customize-hook="copy-in $deb /tmp" \
		--customize-hook="chroot \"\$1\" dpkg -i /tmp/$(basename "$deb")" \
		--customize-hook='chroot "$1" grub-mkimage -O x86_64-efi -p /EFI/BOOT -o /tmp/BOOTX64.EFI part_gpt fat ext2 normal linux configfile search search_fs_uuid echo test gzio all_video efi_gop' \
		--customize-hook="copy-out /tmp/BOOTX64.EFI $dir" \
		bookworm "$dir/rootfs" $mirror >"$dir/mmdebstrap.log" 2>&1 ||
		die "$kind: mmdebstrap failed (log: $dir/mmdebstrap.log)"
	[ -f "$dir/rootfs/boot/vmlinuz-$rel" ] && [ -f "$dir/rootfs/boot/initrd.img-$rel" ] ||
		die "$kind: no /boot/vmlinuz-$rel and initrd.img-$rel in the image (log: $dir/mmdebstrap.log)"
	say "$kind: root file system in $(($(date +%s) - t))s"

	t=$(date +%s)
	r=$dir/rootfs
	echo idle-disk >"$r/etc/hostname"
	install -m 755 "$TOP/guest-image/disk-check.sh" "$r/usr/local/sbin/disk-check"
	install -m 755 "$TOP/perf-scripts/record.sh" "$r/usr/local/sbin/record.sh"
	cat >"$r/etc/systemd/system/disk-check.service" <<-EOF
	[Unit]
	Description=Disk-boot check of the idle prediction kernel (scripts/disk-boot.sh)
	After=local-fs.target
	SuccessAction=poweroff
	FailureAction=poweroff

	[Service]
	Type=oneshot
	ExecStart=/usr/local/sbin/disk-check
	StandardOutput=journal+console
	StandardError=journal+console
	TimeoutStartSec=600

	[Install]
	WantedBy=multi-user.target
	EOF
	mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/disk-check.service \
		"$r/etc/systemd/system/multi-user.target.wants/disk-check.service"

	root_mb=$(($(du -sm "$r" | cut -f1) * 5 / 4 + 256))
	esp_mb=64
	mkfs.ext4 -q -F -L idle-root -U "$uuid" -d "$r" "$dir/root.img" "${root_mb}M" \
		>"$dir/mkfs.log" 2>&1 || die "$kind: mkfs.ext4 failed (log: $dir/mkfs.log)"
	cat >"$dir/grub.cfg" <<-EOF
	set timeout=0
	echo "disk-boot: GRUB from the ESP boots $rel"
	search --no-floppy --fs-uuid --set=root $uuid
	linux /boot/vmlinuz-$rel root=UUID=$uuid ro $args
	initrd /boot/initrd.img-$rel
	boot
	EOF
	rm -f "$dir/esp.img"
	{
		mkfs.vfat -F 32 -n ESP -C "$dir/esp.img" $((esp_mb * 1024)) &&
			mmd -i "$dir/esp.img" ::/EFI ::/EFI/BOOT &&
			mcopy -i "$dir/esp.img" "$dir/BOOTX64.EFI" "$dir/grub.cfg" ::/EFI/BOOT/
	} >>"$dir/mkfs.log" 2>&1 || die "$kind: the ESP failed (log: $dir/mkfs.log)"
	truncate -s $((1 + esp_mb + root_mb + 1))M "$dir/disk.tmp"
	{
		sgdisk -o -n "1:2048:+${esp_mb}M" -t 1:ef00 -c 1:ESP \
			-n "2:$((2048 + esp_mb * 2048)):+${root_mb}M" -t 2:8304 -c 2:root "$dir/disk.tmp" &&
			dd if="$dir/esp.img" of="$dir/disk.tmp" bs=1M seek=1 conv=notrunc status=none &&
			dd if="$dir/root.img" of="$dir/disk.tmp" bs=1M seek=$((1 + esp_mb)) conv=notrunc,sparse status=none
	} >>"$dir/mkfs.log" 2>&1 || die "$kind: assembling the disk failed (log: $dir/mkfs.log)"
	mv "$dir/disk.tmp" "$dir/disk.img"
	rm -rf "$r" "$dir/root.img" "$dir/esp.img"
	echo "$stamp" >"$dir/disk.stamp"
	say "$kind: disk image in $(($(date +%s) - t))s: $dir/disk.img ($((1 + esp_mb + root_mb + 1)) MiB, ESP ${esp_mb} MiB)"
fi

# ---- boot a copy (the guest writes to its root) and judge the console
t=$(date +%s)
deadline=${DISK_BOOT_DEADLINE:-1200}
log=$dir/console-$bus.log
cp --sparse=always "$dir/disk.img" "$dir/boot.img"
cp "$vars" "$dir/ovmf-vars.fd"
rm -f "$log"
say "$kind: booting through OVMF and GRUB from $bus (deadline ${deadline}s, console: $log)"
qstatus=0
# shellcheck disable=SC2086
timeout -k 10 "$deadline" qemu-system-x86_64 -machine q35 -accel tcg,thread=single \
	-cpu max -smp 2 -m 2048 -nodefaults -display none -no-reboot -monitor none \
	-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code" \
	-drive "if=pflash,format=raw,unit=1,file=$dir/ovmf-vars.fd" \
	-drive "if=none,id=d0,format=raw,file=$dir/boot.img" $qdev \
	-serial "file:$log" >"$dir/qemu-$bus.log" 2>&1 || qstatus=$?
rm -f "$dir/boot.img"
secs=$(($(date +%s) - t))
echo "$secs" >"$dir/boot-seconds-$bus"
late=
[ "$qstatus" -ne 124 ] && [ "$qstatus" -ne 137 ] || late=" (QEMU killed at the ${deadline}s deadline)"
if verdict=$(judge "$log" "$kind" "$bus"); then
	say "$kind from $bus: boot and check in ${secs}s: $verdict"
else
	die "$kind from $bus: boot and check in ${secs}s: $verdict$late"
fi

# ---- control: the judge must fail a log that shows the other governor
ctl=$dir/console-$bus-control.log
case "$kind" in
patched) sed 's/current_governor sched_idle/current_governor menu/' "$log" >"$ctl" ;;
stock) sed 's/current_governor menu/current_governor sched_idle/' "$log" >"$ctl" ;;
esac
if verdict=$(judge "$ctl" "$kind" "$bus"); then
	die "control: the judge passed $ctl, in which the governor is the other kernel's"
fi
say "control: the judge fails an edited copy (the other kernel's governor), as it must: $verdict"
