#!/bin/sh
# disk-boot.sh: boot the kernel packages the way a Debian machine boots
# them.  One Debian 12 disk (GPT: an ESP, an ext4 root made by mmdebstrap
# with Debian's own kernel, linux-image-amd64, and GRUB) is set up once by
# a first boot of Debian's kernel, as the README tells a user to:
# grub-install, scripts/grub-default.sh keep, dpkg -i of both packages
# (initrds by initramfs-tools, update-grub by the kernel hooks).  Each check
# then boots a copy through OVMF under QEMU TCG, no -kernel, the disk on a
# virtio or an NVMe controller (the packages' drivers for both are
# modules: the root is mounted from the initrd): GRUB's default must still
# be Debian's kernel, which asks for the package's kernel once
# (grub-default.sh once) and powers off; at the next power-on the
# package's kernel runs guest-image/disk-check.sh and powers off; the
# consoles are judged here.
# Usage:
#   scripts/disk-boot.sh [--kernel patched|stock] [--bus virtio|nvme]
#       set up (or reuse) build/disk-boot/disk.img, boot a copy from that
#       bus (default virtio), judge its console.log; a pass is followed
#       by the judge's controls: edited copies of the log (the other
#       kernel's governor; a package's kernel as GRUB's default) must fail
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
	re_rel=$(printf '%s' "$rel" | sed 's/[.+]/\\&/g')
	splat=$(grep -Em1 'Kernel panic|Oops|BUG:|Call Trace:|WARNING: CPU' "$txt" || true)
	if [ -n "$splat" ]; then
		rm -f "$txt"
		echo "FAIL: console splat '$splat' ($log)"
		return 1
	fi
	first=$(sed -n 's/.*Loading Linux \([^ ]*\) \.\.\..*/\1/p' "$txt" | head -n 1)
	case "$first" in
	*-amd64) ;;
	*)
		rm -f "$txt"
		echo "FAIL: GRUB's default boot loaded '${first:-no kernel}', not Debian's own kernel ($log)"
		return 1 ;;
	esac
	{
		cat <<-EOF
		: disk-check: default kernel [0-9.]+-[0-9]+-amd64 package linux-image-[0-9.]+-[0-9]+-amd64$
		: disk-check: next boot $re_rel$
		Loading Linux $re_rel \.\.\.
		^\[ *[0-9.]+\] Linux version $re_rel 
		Command line: BOOT_IMAGE=/boot/vmlinuz-$re_rel 
		: disk-check: kernel $re_rel$
		: disk-check: root [a-z0-9]+ disk [a-z0-9]+ driver $rootdrv module live in-initrd=yes$
		: disk-check: initrd loaded$
		: disk-check: current_driver cpuidle_emu$
		: disk-check: record\.sh exit status 0$
		: disk-check: saved default gnulinux-advanced-[^>]*>gnulinux-[0-9.]+-[0-9]+-amd64-advanced-
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
debs=
for k in patched stock; do
	r=$(release "$k")
	d=$BUILD/deb/linux-image-${r}_${r}-1_amd64.deb
	[ -f "$d" ] || die "$d is missing: run 'make deb' first (the disk holds both packages)"
	debs="$debs $d"
done
dir=$BUILD/disk-boot
mkdir -p "$dir"
need_pkgs mmdebstrap gdisk mtools dosfstools e2fsprogs qemu-system-x86 ovmf
code=/usr/share/OVMF/OVMF_CODE_4M.fd
vars=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -f "$code" ] && [ -f "$vars" ] || die "OVMF is missing (package ovmf)"
deadline=${DISK_BOOT_DEADLINE:-1800}

# The kernels' command line (every kernel of the disk, Debian's too): the
# emulated idle states (QEMU TCG has no idle driver; they register only
# when asked, and no other driver did); real-time TCG needs tsc=reliable
# (perf-scripts/idlebench/launch.py, REAL_ARGS).
args="console=ttyS0,115200 panic=-1 tsc=reliable cpuidle.off=0 cpuidle_emu.enable=1 cpuidle_emu.table=skx"

# qemu NAME BUS IMG [ARGS...]: boot IMG from BUS under OVMF, console in
# $dir/console-NAME.log, within the deadline; prints QEMU's status.
# -cx16: with CMPXCHG16B, QEMU 7.2's TCG left a register's bits in EFLAGS
# after SLUB's per-CPU cmpxchg in Debian's 6.12.95 kernel (a double fault
# in kmem_cache_alloc in 4 of 4 boots of this disk, none in 3 without
# it); without it SLUB takes its locked path.
qemu() {
	name=$1 qbus=$2 img=$3
	shift 3
	case "$qbus" in
	virtio) qdev="-device virtio-blk-pci,drive=d0" ;;
	nvme) qdev="-device nvme,serial=idle-root,drive=d0" ;;
	*) die "bus '$qbus': virtio or nvme" ;;
	esac
	cp "$vars" "$dir/ovmf-vars-$name.fd"
	rm -f "$dir/console-$name.log"
	qs=0
	# shellcheck disable=SC2086
	timeout -k 10 "$deadline" qemu-system-x86_64 -machine q35 -accel tcg,thread=single \
		-cpu max,-cx16 -smp 2 -m 2048 -nodefaults -display none -no-reboot -monitor none \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code" \
		-drive "if=pflash,format=raw,unit=1,file=$dir/ovmf-vars-$name.fd" \
		-drive "if=none,id=d0,format=raw,file=$img" $qdev "$@" \
		-serial "file:$dir/console-$name.log" >"$dir/qemu-$name.log" 2>&1 || qs=$?
	rm -f "$dir/ovmf-vars-$name.fd"
	echo "$qs"
}

# ---- the disk: rebuilt when a package or the guest's files change
stamp=$(cat $debs "$TOP/scripts/disk-boot.sh" "$TOP/scripts/grub-default.sh" \
	"$TOP/guest-image/disk-check.sh" "$TOP/perf-scripts/record.sh" | sha256sum | cut -c1-16)
if [ -f "$dir/disk.img" ] && [ "$(cat "$dir/disk.stamp" 2>/dev/null)" = "$stamp" ]; then
	say "disk up to date ($dir/disk.img)"
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
	volid=$(printf '%s' "$uuid" | cut -c1-8 | tr a-f A-F)
	espid=$(printf '%s' "$volid" | cut -c1-4)-$(printf '%s' "$volid" | cut -c5-8)
	say "mmdebstrap bookworm with Debian's kernel and GRUB (log: $dir/mmdebstrap.log)"
	# shellcheck disable=SC2086
	mmdebstrap --mode=root --variant=minbase \
		--include=systemd-sysv,udev,initramfs-tools,zstd,e2fsprogs,kmod,linux-perf,busybox,linux-image-amd64,grub-efi-amd64 \
		--customize-hook="printf '%s\\n' 'UUID=$uuid / ext4 errors=remount-ro 0 1' 'UUID=$espid /boot/efi vfat umask=0077 0 0' >\"\$1/etc/fstab\"" \
		--customize-hook='echo FSTYPE=ext4 >"$1/etc/initramfs-tools/conf.d/fstype"' \
		--customize-hook='mkdir -p "$1/boot/efi" "$1/var/cache/idle-debs"' \
		--customize-hook="copy-in $debs /var/cache/idle-debs" \
		--customize-hook='chroot "$1" grub-mkimage -O x86_64-efi -p /EFI/BOOT -o /tmp/BOOTX64.EFI part_gpt fat ext2 normal linux configfile search search_fs_uuid echo test gzio all_video efi_gop' \
		--customize-hook="copy-out /tmp/BOOTX64.EFI $dir" \
		bookworm "$dir/rootfs" $mirror >"$dir/mmdebstrap.log" 2>&1 ||
		die "mmdebstrap failed (log: $dir/mmdebstrap.log)"
	r=$dir/rootfs
	debrel=$(cd "$r/boot" && ls vmlinuz-*-amd64 2>/dev/null | sed 's/^vmlinuz-//')
	[ "$(echo "$debrel" | wc -w)" -eq 1 ] && [ -f "$r/boot/initrd.img-$debrel" ] ||
		die "not one Debian kernel with its initrd in the image: '$debrel' (log: $dir/mmdebstrap.log)"
	say "root file system in $(($(date +%s) - t))s, Debian's kernel $debrel"

	t=$(date +%s)
	echo idle-disk >"$r/etc/hostname"
	install -m 755 "$TOP/guest-image/disk-check.sh" "$r/usr/local/sbin/disk-check"
	install -m 755 "$TOP/perf-scripts/record.sh" "$r/usr/local/sbin/record.sh"
	install -m 755 "$TOP/scripts/grub-default.sh" "$r/usr/local/sbin/grub-default.sh"
	mkdir -p "$r/etc/default/grub.d"
	# what a machine's /etc/default/grub says: its command line, no menu
	# wait, GRUB's messages on the console (serial through OVMF)
	cat >"$r/etc/default/grub.d/disk-boot.cfg" <<-EOF
	GRUB_TIMEOUT=0
	GRUB_TERMINAL=console
	GRUB_CMDLINE_LINUX_DEFAULT=""
	GRUB_CMDLINE_LINUX="$args"
	EOF
	cat >"$r/etc/systemd/system/disk-check.service" <<-EOF
	[Unit]
	Description=Disk-boot check of the idle prediction kernels (scripts/disk-boot.sh)
	After=local-fs.target
	FailureAction=poweroff

	[Service]
	Type=oneshot
	ExecStart=/usr/local/sbin/disk-check
	StandardOutput=journal+console
	StandardError=journal+console
	TimeoutStartSec=1200

	[Install]
	WantedBy=multi-user.target
	EOF
	mkdir -p "$r/etc/systemd/system/multi-user.target.wants"
	ln -sf /etc/systemd/system/disk-check.service \
		"$r/etc/systemd/system/multi-user.target.wants/disk-check.service"

	# room for two more kernels, their modules and initrds
	root_mb=$(($(du -sm "$r" | cut -f1) * 3 / 2 + 1536))
	esp_mb=64
	mkfs.ext4 -q -F -L idle-root -U "$uuid" -d "$r" "$dir/root.img" "${root_mb}M" \
		>"$dir/mkfs.log" 2>&1 || die "mkfs.ext4 failed (log: $dir/mkfs.log)"
	# the bootstrap GRUB of the setup boot, replaced there by grub-install
	cat >"$dir/grub.cfg" <<-EOF
	set timeout=0
	echo "disk-boot: setup, bootstrap GRUB boots $debrel"
	search --no-floppy --fs-uuid --set=root $uuid
	linux /boot/vmlinuz-$debrel root=UUID=$uuid ro $args idle.setup=1
	initrd /boot/initrd.img-$debrel
	boot
	EOF
	rm -f "$dir/esp.img"
	{
		mkfs.vfat -F 32 -i "$volid" -n ESP -C "$dir/esp.img" $((esp_mb * 1024)) &&
			mmd -i "$dir/esp.img" ::/EFI ::/EFI/BOOT &&
			mcopy -i "$dir/esp.img" "$dir/BOOTX64.EFI" "$dir/grub.cfg" ::/EFI/BOOT/
	} >>"$dir/mkfs.log" 2>&1 || die "the ESP failed (log: $dir/mkfs.log)"
	truncate -s $((1 + esp_mb + root_mb + 1))M "$dir/disk.tmp"
	{
		sgdisk -o -n "1:2048:+${esp_mb}M" -t 1:ef00 -c 1:ESP \
			-n "2:$((2048 + esp_mb * 2048)):+${root_mb}M" -t 2:8304 -c 2:root "$dir/disk.tmp" &&
			dd if="$dir/esp.img" of="$dir/disk.tmp" bs=1M seek=1 conv=notrunc status=none &&
			dd if="$dir/root.img" of="$dir/disk.tmp" bs=1M seek=$((1 + esp_mb)) conv=notrunc,sparse status=none
	} >>"$dir/mkfs.log" 2>&1 || die "assembling the disk failed (log: $dir/mkfs.log)"
	rm -rf "$r" "$dir/root.img" "$dir/esp.img"
	say "disk in $(($(date +%s) - t))s ($((1 + esp_mb + root_mb + 1)) MiB); setup boot (console: $dir/console-setup.log)"

	t=$(date +%s)
	qs=$(qemu setup virtio "$dir/disk.tmp")
	slog=$dir/console-setup.log
	if ! tr -d '\r' <"$slog" | grep -q ': disk-check: setup: done$'; then
		why=$(tr -d '\r' <"$slog" | grep -m1 -E 'disk-check: setup: .*failed|grub-default.sh: |Kernel panic' || true)
		[ "$qs" -ne 124 ] && [ "$qs" -ne 137 ] || why="${why:+$why; }QEMU killed at the ${deadline}s deadline"
		die "the setup boot did not finish: ${why:-no 'setup: done' line} (console: $slog)"
	fi
	mv "$dir/disk.tmp" "$dir/disk.img"
	echo "$stamp" >"$dir/disk.stamp"
	say "setup boot in $(($(date +%s) - t))s: $(tr -d '\r' <"$slog" | sed -n 's/.*: disk-check: setup: saved default /saved default /p')"
fi

# ---- boot a copy (the guest writes to its root) twice, each a power-on:
# GRUB's default, which asks for the package's kernel once and powers
# off, then that kernel; judge their consoles, one after the other
t=$(date +%s)
log=$dir/console-$kind-$bus.log
cp --sparse=always "$dir/disk.img" "$dir/boot.img"
say "$kind: booting through OVMF and GRUB from $bus: the default, then $rel once (deadline ${deadline}s each, console: $log)"
late=
for n in default package; do
	qs=$(qemu "$kind-$bus-$n" "$bus" "$dir/boot.img" -fw_cfg "name=opt/idle-disk/boot,string=$rel")
	[ "$qs" -ne 124 ] && [ "$qs" -ne 137 ] || late=" (QEMU killed at the ${deadline}s deadline)"
done
cat "$dir/console-$kind-$bus-default.log" "$dir/console-$kind-$bus-package.log" >"$log"
rm -f "$dir/boot.img"
secs=$(($(date +%s) - t))
echo "$secs" >"$dir/boot-seconds-$kind-$bus"
if verdict=$(judge "$log" "$kind" "$bus"); then
	say "$kind from $bus: boots and check in ${secs}s: $verdict"
else
	die "$kind from $bus: boots and check in ${secs}s: $verdict$late"
fi

# ---- controls: the judge must fail a log that shows the other governor,
# and one in which GRUB's default boot was a package's kernel
ctl=$dir/console-$kind-$bus-control.log
case "$kind" in
patched) sed 's/current_governor sched_idle/current_governor menu/' "$log" >"$ctl" ;;
stock) sed 's/current_governor menu/current_governor sched_idle/' "$log" >"$ctl" ;;
esac
if verdict=$(judge "$ctl" "$kind" "$bus"); then
	die "control: the judge passed $ctl, in which the governor is the other kernel's"
fi
say "control: the judge fails an edited copy (the other kernel's governor), as it must: $verdict"
debrel=$(tr -d '\r' <"$log" | sed -n 's/.*Loading Linux \([^ ]*-amd64\) \.\.\..*/\1/p' | head -n 1)
sed "s/Loading Linux $debrel /Loading Linux $(release stock) /" "$log" >"$ctl"
if verdict=$(judge "$ctl" "$kind" "$bus"); then
	die "control: the judge passed $ctl, in which GRUB's default loaded $(release stock)"
fi
say "control: the judge fails an edited copy (the stock package's kernel as the default), as it must: $verdict"
