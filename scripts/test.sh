#!/bin/sh
# test.sh: everything `make test` runs, each check counted.  Prints
# "PASS name" or "FAIL name: reason" per check and ends with the line
# "N passed, N failed"; exits non-zero on any failure.
#   host:   harness fault tests, replay tests, parser tests
#   series: checkpatch --strict on each patch, each patch builds alone
#   guests: both kernels boot on 1 and 2 vCPUs (4 for the patched one),
#           KUnit suites pass (KTAP parsed), each emulated state is
#           entered, the patched path runs and menu_select never does,
#           a from-boot trace of the predictor replays exactly, two
#           -icount boots with the same seed are identical.
# Logs: build/test/.  Usage: scripts/test.sh [--no-guests]
set -eu
. "$(dirname "$0")/lib.sh"

T=$BUILD/test
rm -rf "$T"
mkdir -p "$T"
passed=0 failed=0
start=$(date +%s)

pass() { passed=$((passed + 1)); printf 'PASS %s\n' "$1"; }
fail() { failed=$((failed + 1)); printf 'FAIL %s: %s\n' "$1" "$2"; }
# check NAME CMD...: run CMD with its output in build/test/NAME.log
check() {
	name=$1
	shift
	if "$@" >"$T/$name.log" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(grep -a -E 'error|FAIL|fail' "$T/$name.log" | tail -1 | cut -c1-150) (log: $T/$name.log)"
	fi
}
finish() {
	echo "make test took $(($(date +%s) - start))s"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

# Set-up failures stop everything: nothing below could run.
check deps "$TOP/scripts/deps.sh" || { finish; }
check tree "$TOP/scripts/tree.sh" || { finish; }
[ "$failed" -eq 0 ] || finish

# Host-side tests.
check harness-missing-package sh "$TOP/scripts/tests/missing-pkg.sh"
check harness-wrong-pin sh "$TOP/scripts/tests/wrong-pin.sh"
check harness-broken-patch sh "$TOP/scripts/tests/broken-patch.sh"
check harness-disk-full sh "$TOP/scripts/tests/disk-full.sh"
[ -f "$TOP/idle-loop/Makefile" ] && check replay make -C "$TOP/idle-loop" test
# menu and teo compiled into the replay choose as the recorded stock kernel
# did (>= 95% of entries; committed record.sh traces, seconds)
check replay-governors sh "$TOP/scripts/tests/replay-gov.sh" -f "$T/replay-gov"
[ -d "$TOP/perf-scripts/tests" ] &&
	check perf-scripts python3 -m unittest discover -s "$TOP/perf-scripts/tests"

# The series: style, then every prefix of it builds.
cp=$BUILD/linux/scripts/checkpatch.pl
for p in "$TOP"/series/0*.patch; do
	case "$p" in *0000-cover-letter*) continue ;; esac
	check "checkpatch-$(basename "$p" | cut -c1-4)" \
		perl "$cp" --no-tree --strict --quiet "$p"
done
[ "${SKIP_SERIES_BUILDS:-0}" = 1 ] || check series-builds "$TOP/scripts/build-each-patch.sh"

check build-stock "$TOP/scripts/build-kernel.sh" stock
check build-patched "$TOP/scripts/build-kernel.sh" patched
check touched-w1-sparse "$TOP/scripts/check-touched.sh"
check image "$TOP/guest-image/mkinitramfs.sh" "$BUILD/initramfs.cpio"
[ "${1:-}" = --no-guests ] && finish

check harness-guest-faults sh "$TOP/scripts/tests/guest-faults.sh"

K=$BUILD/kernels
ft="ftrace=function ftrace_filter=menu_select,teo_select,sched_idle_select_state"
I=$BUILD/initramfs.cpio
boot() {
	name=$1
	shift
	if "$TOP/guest-image/run-qemu.sh" -i "$I" -o "$T/$name" -t 300 -q 120 "$@" >"$T/$name.log" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(cat "$T/$name/verdict" 2>/dev/null || tail -1 "$T/$name.log")"
	fi
}
# kunit NAME: the KTAP of a boot's console, parsed by the tree's kunit.py
kunit() {
	log=$T/$1/console.log
	if [ -f "$log" ] && python3 "$BUILD/linux/tools/testing/kunit/kunit.py" parse \
		<"$log" >"$T/$1-kunit.log" 2>&1 &&
		grep -q 'Testing complete' "$T/$1-kunit.log" &&
		! grep -q -E 'FAILED|CRASHED' "$T/$1-kunit.log"; then
		pass "$1-kunit ($(grep -o 'Ran [0-9]* tests' "$T/$1-kunit.log" | head -1))"
	else
		fail "$1-kunit" "see $T/$1-kunit.log"
	fi
}

boot stock-menu-1cpu -k "$K/stock.bzImage" -c 1 -d cpuidle_emu -g menu -a "cpuidle.governor=menu"
kunit stock-menu-1cpu
boot stock-teo-2cpu -k "$K/stock.bzImage" -c 2 -d cpuidle_emu -g teo -a "cpuidle.governor=teo"
boot stock-menu-states -k "$K/stock.bzImage" -c 2 -d cpuidle_emu -g menu -a "cpuidle.governor=menu" -r emu-states
boot stock-menu-ftrace -k "$K/stock.bzImage" -c 2 -d cpuidle_emu -g menu -r path-check -a "$ft cpuidle.governor=menu guest.args=governor"
for c in 1 2 4; do
	boot "patched-${c}cpu" -k "$K/patched.bzImage" -c "$c" -d cpuidle_emu -g sched_idle -r path-check -a "$ft guest.args=sched"
done
kunit patched-2cpu
boot patched-states -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r emu-states
# the predictor's tables: a moved IRQ is forgotten, a freed one sends no IPI
boot patched-predict -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r predict-check \
	-x "-global hpet.timers=8" -a "hpet=disable"
# no cpuidle driver: nothing reads interrupt stamps, so none are taken
boot patched-nodriver -k "$K/patched.bzImage" -c 2 -r predict-check -a "cpuidle_emu.enable=0 guest.args=off"
# the selection cost probe (patch 4): counts when on, nothing when off
boot patched-cost-on -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r cost-check -a "cpuidle_cost.enable=1 guest.args=on"
boot stock-cost-off -k "$K/stock.bzImage" -c 2 -d cpuidle_emu -g menu -r cost-check -a "cpuidle.governor=menu guest.args=off"
# with sched_idle_prewake=1 an hrtimer's task does not wait for the
# deepest state's exit (patch 16), and by default it does; in virtual
# time, free of host jitter
boot patched-prewake-on -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -I 0 -r prewake-check -a "sched_idle_prewake=1 guest.args=on"
boot patched-prewake-off -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -I 0 -r prewake-check -a "guest.args=off"
# a from-boot trace of the predictor replays exactly (idle-loop/, patch 10)
check replay-exact sh "$TOP/scripts/tests/replay-exact.sh" "$T/replay-exact"
# two -icount boots of one bench cell and seed are identical; another seed is not
check determinism sh "$TOP/scripts/tests/determinism.sh" "$T/determinism"
disk=$T/disk.img
truncate -s 16M "$disk"
blk="-drive file=$disk,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0"
boot patched-robust-2cpu -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r robust -x "$blk" -a "guest.args=10"
boot patched-robust-4cpu -k "$K/patched.bzImage" -c 4 -d cpuidle_emu -r robust -x "$blk" -a "guest.args=10"
boot patched-governor-ab -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -g menu -r path-check -a "$ft sched_idle=governor cpuidle.governor=menu guest.args=governor"
finish
