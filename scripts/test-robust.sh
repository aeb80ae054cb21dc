#!/bin/sh
# test-robust.sh: the patched kernel with lock, atomic-sleep, preempt,
# KASAN, UBSAN, RCU and kmemleak debugging (guest-image/configs/
# debug.config) and rcutorture built in, booted on 2 and 4 vCPUs under
# the robust.sh churn.  Any splat fails the run (run-qemu.sh's console
# scan).  Same output convention as test.sh.  Not part of `make test`:
# the debug kernel alone takes longer to build than CI's budget allows
# next to the rest.  Usage: scripts/test-robust.sh [SECONDS]
set -eu
. "$(dirname "$0")/lib.sh"
secs=${1:-30}
T=$BUILD/test-robust
rm -rf "$T"
mkdir -p "$T"
passed=0 failed=0
run() {
	name=$1
	shift
	if "$@" >"$T/$name.log" 2>&1; then
		passed=$((passed + 1)); echo "PASS $name"
	else
		failed=$((failed + 1)); echo "FAIL $name: $(tail -1 "$T/$name.log")"
	fi
}
run tree "$TOP/scripts/tree.sh"
run build-debug "$TOP/scripts/build-kernel.sh" patched debug.config
run image "$TOP/guest-image/mkinitramfs.sh" "$BUILD/initramfs.cpio"
disk=$T/disk.img
truncate -s 16M "$disk"
blk="-drive file=$disk,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0"
torture="rcutorture.stat_interval=5 rcutorture.onoff_interval=0 rcutorture.fqs_duration=0"
for c in 2 4; do
	run "debug-torture-${c}cpu" "$TOP/guest-image/run-qemu.sh" \
		-k "$BUILD/kernels/patched-debug.bzImage" -i "$BUILD/initramfs.cpio" \
		-o "$T/debug-torture-${c}cpu" -c "$c" -m 2048 -t 900 -q 300 -d cpuidle_emu \
		-r torture -x "$blk" -a "$torture guest.args=$secs"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
