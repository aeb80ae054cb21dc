#!/bin/sh
# test-controls.sh: the boot-level negative controls of make test's guest
# checks (rcutorture's busted model).  Each boots a configuration in
# which the check must fail, and counts as passed only when the guest's
# check failed with the line that check exists to print; a control whose
# check passes fails the run.  make test runs the controls that need no
# boot (each judge rerun on files that must fail it); these need a boot
# each, so they run here.  Prints "PASS/FAIL name" per control and ends
# with "N passed, N failed".  Logs: build/test-controls/.
# Needs build/kernels/{stock,patched}.bzImage and build/initramfs.cpio
# (make kernels image).
set -eu
. "$(dirname "$0")/lib.sh"
T=$BUILD/test-controls
rm -rf "$T"
mkdir -p "$T"
SUITE="make test-controls"
. "$TOP/scripts/testlib.sh"

K=$BUILD/kernels
I=$BUILD/initramfs.cpio
for f in "$K/stock.bzImage" "$K/patched.bzImage" "$I"; do
	[ -f "$f" ] || { echo "test-controls.sh: error: no $f (make kernels image)" >&2; exit 1; }
done
ft="ftrace=function ftrace_filter=menu_select,teo_select,sched_idle_choose"

# path-check judged as the patched path on the stock kernel
busted stock-path-as-sched 'FAIL: path-check sched' -k "$K/stock.bzImage" -c 2 -d cpuidle_emu \
	-r path-check -a "$ft cpuidle.governor=menu guest.args=sched"
# path-check judged as the governor path on the patched kernel's own path
busted patched-path-as-governor 'FAIL: path-check governor' -k "$K/patched.bzImage" -c 2 \
	-d cpuidle_emu -r path-check -a "$ft guest.args=governor"
# every emulated state left disabled in its own round
busted patched-emu-states-disabled 'never entered' -k "$K/patched.bzImage" -c 2 -d cpuidle_emu \
	-r emu-states -a "guest.args=busted"
# the cost probe expected on in a boot that leaves it off
busted patched-cost-off-as-on 'does not read as expected with the probe on' \
	-k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r cost-check -a "guest.args=on"
# the sleep length skipped at every entry with the tick running
busted patched-shortcut-busted 'choices differ' -k "$K/patched.bzImage" -c 2 -d cpuidle_emu \
	-r shortcut-check -x "-global hpet.timers=8" -a "hpet=disable sched_idle_shortcut_check=busted"
# KUnit with every suite but the stock ones filtered out: the series'
# suites must be missed
name=patched-kunit-filtered
if "$TOP/guest-image/run-qemu.sh" -i "$I" -o "$T/$name" -t 300 -q 120 -k "$K/patched.bzImage" \
	-c 1 -d cpuidle_emu -a "kunit.filter_glob=cpuidle_emu" >"$T/$name.log" 2>&1; then
	control "$name-check" 'suite [a-z_]* did not pass' \
		sh "$TOP/scripts/tests/kunit-check.sh" patched "$T/$name/console.log"
else
	fail "$name" "the boot failed: $(cat "$T/$name/verdict" 2>/dev/null || tail -1 "$T/$name.log")"
fi
finish
