#!/bin/sh
# test.sh: everything `make test` runs, each check counted.  Prints
# "PASS name" or "FAIL name: reason" per check and ends with the line
# "N passed, N failed"; exits non-zero on any failure.
#   host:   harness fault tests, replay tests, parser and report tests,
#           every quoted figure has a generated source
#   series: checkpatch --strict on each patch, every prefix of the series
#           compiles (the directories it touches; make test-robust links each)
#   guests: both kernels boot on 1 and 2 vCPUs (4 for the patched one),
#           the series' KUnit suites pass (KTAP parsed), each emulated
#           state is entered, the patched path runs and no governor
#           does, skipping the sleep length changes no choice, menu
#           and teo replay this run's stock traces, a
#           from-boot trace of the predictor replays exactly, two
#           -icount boots with the same seed are identical.
#   7.3:    the 7.3 tree's series (style, the proposal alone), both its
#           kernels, their suites and paths in a guest, 7.3's governors
#           replayed against a fresh trace of its stock kernel.
# Each check has a negative control (control below: it must fail); the
# ones that need a boot of their own are in scripts/test-controls.sh,
# run below as the check test-controls.
# Logs: build/test/.  Usage: scripts/test.sh [--no-guests]
set -eu
. "$(dirname "$0")/lib.sh"

T=$BUILD/test
rm -rf "$T"
mkdir -p "$T"
. "$TOP/scripts/testlib.sh"

# Set-up failures stop everything: nothing below could run.
check deps "$TOP/scripts/deps.sh" || { finish; }
check tree "$TOP/scripts/tree.sh" || { finish; }
[ "$failed" -eq 0 ] || finish

# Host-side tests.
check harness-missing-package sh "$TOP/scripts/tests/missing-pkg.sh"
check harness-wrong-pin sh "$TOP/scripts/tests/wrong-pin.sh"
check harness-broken-patch sh "$TOP/scripts/tests/broken-patch.sh"
check harness-disk-full sh "$TOP/scripts/tests/disk-full.sh"
check replay make -C "$TOP/idle-loop" test
# the replay suite against a replay whose rule is wrong on purpose
check replay-control make -C "$TOP/idle-loop" control
# the README's replay-only path in a fresh clone of HEAD (no make tree:
# scripts/replay-src.sh's files); the control leaves one of them out
check replay-fresh-clone sh "$TOP/scripts/tests/replay-fresh-clone.sh" "$T/replay-fresh-clone"
control control-replay-fresh-clone-file-left-out 'failed in a fresh clone: .*No such file' \
	sh "$TOP/scripts/tests/replay-fresh-clone.sh" --control "$T/replay-fresh-clone-control"
# menu and teo compiled into the replay choose as the recorded stock kernel
# did (>= 95% of entries; committed record.sh traces, seconds; the control:
# each given its table with doubled target residencies, under 80%)
check replay-governors sh "$TOP/scripts/tests/replay-gov.sh" -f "$T/replay-gov"
# this machine recorded by perf-scripts/record.sh (5 s) and replayed: no
# CPU's next timer left at "now" in more than 25% of its idle periods; the
# control: a committed recording with one timer that expires only at its end
check record-replay sh "$TOP/scripts/tests/record-replay.sh" "$T/record-replay"
control control-record-replay-late-timer 'next timer at now in more than 25%' \
	sh "$TOP/scripts/tests/record-replay.sh" --control "$T/record-replay-control"
# not root: make disk-boot's preflight and record.sh stop at once with one
# line naming root; the control runs them as root, where the preflight passes
check nonroot sh "$TOP/scripts/tests/nonroot.sh" "$T/nonroot"
control control-nonroot-as-root 'did not stop for a user who is not root' \
	sh "$TOP/scripts/tests/nonroot.sh" --control "$T/nonroot-control"
# the guest scripts' judges on files that must fail them
G=$TOP/guest-image/guest
: >"$T/empty"
control control-cost-empty 'no enabled line' sh "$G/cost-check.sh" --judge "$T/empty" off
control control-emu-states-empty 'FAIL: no counts' sh "$G/emu-states.sh" --judge "$T/empty"
control control-path-no-trace 'FAIL: no trace' sh "$G/path-check.sh" --judge "$T" sched
# robust's churn judge: each churn that could run ran (counts as the churn
# line prints them); the control: no affinity move on 2 CPUs
check robust-churn-judge sh "$G/robust.sh" --judge-churn 1 2 virtio0 1 1 1
control control-robust-no-affinity-move 'FAIL: no affinity move' \
	sh "$G/robust.sh" --judge-churn 1 2 virtio0 1 0 1
# smoke's judge: a registered driver and no cpuidle directory fails
control control-smoke-no-states 'no cpuidle state' sh "$G/smoke.sh" --judge "$T/empty" cpuidle_emu
# emu-states' judge with the table's shape (states, CPUs): a complete
# made-up counts file of 4 states on 2 CPUs passes, with a round cut fails
awk 'BEGIN { for (k = 1; k < 4; k++) for (s = 0; s < 4; s++) for (c = 0; c < 2; c++)
	print k, s, c, 10, (s == k ? 20 : 10) }' >"$T/emu-states-made"
check emu-states-shape sh "$G/emu-states.sh" --judge "$T/emu-states-made" 4 2
grep -v '^2 ' "$T/emu-states-made" >"$T/emu-states-made-cut"
control control-emu-states-round-cut 'round 2 missing' \
	sh "$G/emu-states.sh" --judge "$T/emu-states-made-cut" 4 2
# disk-boot's judge (make disk-boot, not in make test: it needs both
# packages): a made-up console of GRUB's default boot (Debian's kernel)
# and then the stock package's, from NVMe, passes; the controls, its root
# driver built in (no initrd needed), its deepest idle state never
# entered, and a package's kernel as GRUB's default, fail
r=6.12.118-idlestock d=6.1.0-28-amd64 sub=gnulinux-advanced-0f
printf '%s\n' "Loading Linux $d ..." \
	"[    9.0] disk-check[1]: disk-check: default kernel $d package linux-image-$d" \
	"[    9.0] disk-check[1]: disk-check: next boot $r" "[   10.0] reboot: Power down" \
	"Loading Linux $r ..." \
	"[    0.000000] Linux version $r (idle@deb)" \
	"[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-$r root=UUID=0 ro" \
	"[   10.0] disk-check[1]: disk-check: kernel $r" \
	"[   10.0] disk-check[1]: disk-check: root nvme0n1p2 disk nvme0n1 driver nvme module live in-initrd=yes" \
	"[   10.0] disk-check[1]: disk-check: initrd loaded" \
	"[   10.0] disk-check[1]: disk-check: current_driver cpuidle_emu" \
	"[   10.0] disk-check[1]: disk-check: current_governor menu" \
	"[   10.0] disk-check[1]: disk-check: no /sys/kernel/debug/irq_predict/sources" \
	"[   13.0] disk-check[1]: record.sh: 120 idle events, governor menu, driver cpuidle_emu" \
	"[   13.0] disk-check[1]: disk-check: record.sh exit status 0" \
	"[   13.0] disk-check[1]: disk-check: cpu0 state state0 POLL usage=4 above=0 below=2" \
	"[   13.0] disk-check[1]: disk-check: cpu0 state state1 C1 usage=40 above=1 below=3" \
	"[   13.0] disk-check[1]: disk-check: cpu0 state state2 C6 usage=90 above=5 below=0" \
	"[   13.0] disk-check[1]: disk-check: saved default $sub>gnulinux-$d-advanced-0f" \
	"[   13.0] disk-check[1]: disk-check: done" "[   14.0] reboot: Power down" >"$T/disk-made.log"
check disk-judge sh "$TOP/scripts/disk-boot.sh" --judge "$T/disk-made.log" stock nvme
sed 's/driver nvme module live/driver nvme builtin/' "$T/disk-made.log" >"$T/disk-builtin.log"
control control-disk-judge-builtin 'lacks /.*driver nvme module live in-initrd=yes' \
	sh "$TOP/scripts/disk-boot.sh" --judge "$T/disk-builtin.log" stock nvme
sed 's/C6 usage=90/C6 usage=0/' "$T/disk-made.log" >"$T/disk-no-c6.log"
control control-disk-judge-deepest 'deepest idle state was never entered' \
	sh "$TOP/scripts/disk-boot.sh" --judge "$T/disk-no-c6.log" stock nvme
sed "s/Loading Linux $d /Loading Linux $r /" "$T/disk-made.log" >"$T/disk-default-moved.log"
control control-disk-judge-default-moved "GRUB's default boot loaded '$r'" \
	sh "$TOP/scripts/disk-boot.sh" --judge "$T/disk-default-moved.log" stock nvme

# every figure quoted in the cover letter, a changelog, docs/ or a README
# is in a generated table in its context (workload, metric, vCPUs); the
# self-test holds wrong figures of each kind, and each control adds to the
# real texts a sentence built from a generated cell with its figure
# changed (x, %, mW, ns), moved to another workload or to another metric
check figures-self-test python3 "$TOP/scripts/tests/figures.py" --self-test
check figures python3 "$TOP/scripts/tests/figures.py"
for k in x % mW ns workload metric; do
	control "control-figures-$(echo "$k" | tr % p)" 'control\):.* has no generated source' \
		python3 "$TOP/scripts/tests/figures.py" --control "$k"
done
# a skipped test fails the check (it ran nothing); the control: a test
# directory whose one test skips
check perf-scripts sh "$TOP/scripts/tests/no-skips.sh" "$TOP/perf-scripts/tests"
mkdir -p "$T/skip-tests"
printf 'import unittest\n\n\nclass T(unittest.TestCase):\n    @unittest.skip("control")\n    def test_skipped(self):\n        pass\n' \
	>"$T/skip-tests/test_skip.py"
control control-perf-scripts-skipped 'tests skipped, not run' sh "$TOP/scripts/tests/no-skips.sh" "$T/skip-tests"
# the bench's oracle checks (a violation fails bench.py and report.py) on a
# committed bench run (its trace and the driver's counters); the controls:
# the fit rule, the oracle before it was the energy minimum, must be
# caught above the kernel's own states, and the model without its entry
# energies must be caught by the driver's own counters
check oracle python3 "$TOP/scripts/tests/oracle-check.py"
control control-oracle-fit 'oracle above the kernel.s own state' \
	python3 "$TOP/scripts/tests/oracle-check.py" --control
control control-oracle-model 'the model charges the driver.s counters' \
	python3 "$TOP/scripts/tests/oracle-check.py" --control model

# The series: style, then every prefix of it compiles (build-each-patch.sh).
cp=$BUILD/linux/scripts/checkpatch.pl
for p in "$TOP"/series/0*.patch; do
	case "$p" in *0000-cover-letter*) continue ;; esac
	check "checkpatch-$(basename "$p" | cut -c1-4)" \
		perl "$cp" --no-tree --strict --quiet "$p"
done
# the control: a copy of the first patch with trailing whitespace on its
# first added line (series/ is never touched)
p=$(ls "$TOP"/series/0*.patch | grep -v 0000-cover-letter | head -1)
awk '!done && /^\+[^+]/ { print $0 " "; done = 1; next } { print }' "$p" >"$T/checkpatch-control.patch"
control control-checkpatch-style 'ERROR: trailing whitespace' \
	perl "$cp" --no-tree --strict --quiet "$T/checkpatch-control.patch"
[ "${SKIP_SERIES_BUILDS:-0}" = 1 ] || check series-builds "$TOP/scripts/build-each-patch.sh"
# the proposal applies to the pinned tree without the test infrastructure
# and names none of it; the control: the patch of the test kernels' knobs
check proposal-alone sh "$TOP/scripts/tests/proposal-alone.sh"
control control-proposal-alone-probes 'names test infrastructure' \
	sh "$TOP/scripts/tests/proposal-alone.sh" --judge "$(grep -l 'IRQ_PREDICT_RFC' "$TOP"/series/0*.patch | tail -1)"

# The 7.3 tree (LINUX=7.3: series-7.3/, build/7.3/), checks named 7.3-*:
# fetched and patched, its series' style by 7.3's checkpatch, its proposal
# alone, both kernels and every prefix compiled (below; make test-robust
# LINUX=7.3 links every prefix).
export LINUX=7.3
tree73=0
if check 7.3-tree "$TOP/scripts/tree.sh"; then
	tree73=1
	for p in "$TOP"/series-7.3/0*.patch; do
		case "$p" in *0000-cover-letter*) continue ;; esac
		check "7.3-checkpatch-$(basename "$p" | cut -c1-4)" \
			perl "$TOP/build/7.3/linux/scripts/checkpatch.pl" --no-tree --strict --quiet "$p"
	done
	check 7.3-proposal-alone sh "$TOP/scripts/tests/proposal-alone.sh"
	# 7.3's menu and teo replayed on the traces committed from its stock
	# kernel (idle-loop/tests/gov-traces-7.3; the fresh ones are a boot below)
	check 7.3-replay-governors sh "$TOP/scripts/tests/replay-gov.sh" -f "$T/7.3-replay-gov"
fi
export LINUX=6.12

# every fragment of guest-image/configs resolves for every kernel it is
# used with, on both trees (a Kconfig pass, no build); the control: a
# fragment asking for an option no tree defines and one that x86 cannot set
check config-fragments sh "$TOP/scripts/tests/config-check.sh"
printf 'CONFIG_NO_SUCH_IDLE_OPTION=y\nCONFIG_KASAN_SW_TAGS=y\n' >"$T/config-bad.config"
control control-config-fragments 'dropped or changed: CONFIG_NO_SUCH_IDLE_OPTION=y .*CONFIG_KASAN_SW_TAGS=y' \
	sh "$TOP/scripts/tests/config-check.sh" -x "$T/config-bad.config"
# the packages' config is Debian's but for what deb.config names: the
# control leaves out the line for one consequence of dropping debug info
sed '/^CONFIG_DEBUG_INFO_BTF=n$/d' "$TOP/guest-image/configs/deb.config" >"$T/deb-unstated.config"
control control-deb-config "does not say: CONFIG_DEBUG_INFO_BTF=y->n" \
	sh "$TOP/scripts/tests/config-check.sh" -d "$T/deb-unstated.config"

check build-stock "$TOP/scripts/build-kernel.sh" stock
check build-patched "$TOP/scripts/build-kernel.sh" patched
check touched-w1-sparse "$TOP/scripts/check-touched.sh"
check image "$TOP/guest-image/mkinitramfs.sh" "$BUILD/initramfs.cpio"
if [ "$tree73" = 1 ]; then
	export LINUX=7.3
	check 7.3-build-stock "$TOP/scripts/build-kernel.sh" stock
	check 7.3-build-patched "$TOP/scripts/build-kernel.sh" patched
	[ "${SKIP_SERIES_BUILDS:-0}" = 1 ] || check 7.3-series-builds "$TOP/scripts/build-each-patch.sh"
	export LINUX=6.12
fi
[ "${1:-}" = --no-guests ] && finish

check harness-guest-faults sh "$TOP/scripts/tests/guest-faults.sh"

K=$BUILD/kernels
ft="ftrace=function ftrace_filter=menu_select,teo_select,sched_idle_choose"
I=$BUILD/initramfs.cpio
# kunit NAME KERNEL: the series' suites in a boot's KTAP, parsed by the
# tree's kunit.py; the control: the same log with one suite cut out
kunit() {
	check "$1-kunit" sh "$TOP/scripts/tests/kunit-check.sh" "$2" "$T/$1/console.log"
	last=$(sed -n 's/^suites: .* \([a-z_0-9]*\)$/\1/p' "$T/$1-kunit.log")
	last=${last:-none}
	: >"$T/$1-kunit-cut.log"
	[ ! -f "$T/$1/console.log" ] || awk -v s="$last" '$0 ~ "# Subtest: " s "\r?$" { skip = 1 }
		!skip { print } skip && $0 ~ "ok [0-9]+ " s "\r?$" { skip = 0 }' \
		"$T/$1/console.log" >"$T/$1-kunit-cut.log"
	control "control-$1-kunit-cut" "suite $last did not pass" \
		sh "$TOP/scripts/tests/kunit-check.sh" "$2" "$T/$1-kunit-cut.log"
}

boot stock-menu-1cpu -k "$K/stock.bzImage" -c 1 -d cpuidle_emu -g menu -a "cpuidle.governor=menu"
kunit stock-menu-1cpu stock
# the stock kernel on 2 vCPUs with menu and with teo, -icount, recording
# the bench's timer and dev2 workloads: menu and teo compiled into the
# replay from this tree choose as the kernel did (the floor and the
# control of replay-governors, on this run's own traces)
check replay-governors-boot env INITRD="$I" sh "$TOP/scripts/tests/replay-gov.sh" "$T/replay-gov-boot"
boot stock-menu-states -k "$K/stock.bzImage" -c 2 -d cpuidle_emu -g menu -a "cpuidle.governor=menu" -r emu-states
boot stock-menu-ftrace -k "$K/stock.bzImage" -c 2 -d cpuidle_emu -g menu -r path-check -a "$ft cpuidle.governor=menu guest.args=governor"
# the controls of path-check: the stock kernel's calls judged as the
# patched path's must fail, and the reverse
control control-path-sched-on-stock 'FAIL: path-check sched' \
	sh "$G/path-check.sh" --judge "$T/stock-menu-ftrace/results" sched
for c in $GUEST_VCPUS; do
	boot "patched-${c}cpu" -k "$K/patched.bzImage" -c "$c" -d cpuidle_emu -g sched_idle -r path-check -a "$ft guest.args=sched"
done
control control-path-governor-on-patched 'FAIL: path-check governor' \
	sh "$G/path-check.sh" --judge "$T/patched-2cpu/results" governor
kunit patched-2cpu patched
boot patched-states -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r emu-states
# the control of emu-states: each round's counters credited to the next
# round's state, as if the state the round needed had been left disabled
f=$T/patched-states/results/emu-states.counts
[ ! -f "$f" ] || awk 'NR == FNR { if (!($1 in seen)) { seen[$1] = 1; k[n++] = $1 } next }
	{ for (i = 0; i < n; i++) if (k[i] == $1) break; $1 = k[(i + 1) % n]; print }' \
	"$f" "$f" >"$T/emu-states-shifted"
control control-emu-states-shifted 'entered while disabled|never entered' \
	sh "$G/emu-states.sh" --judge "$T/emu-states-shifted"
# and with its first round cut, judged with the boot's shape (the states
# its counts name, its 2 vCPUs): a missing round fails
n=0
[ ! -f "$f" ] || { n=$(awk '{ print $2 }' "$f" | sort -u | wc -l); grep -v '^1 ' "$f" >"$T/emu-states-cut"; }
control control-emu-states-boot-round-cut 'round 1 missing' \
	sh "$G/emu-states.sh" --judge "$T/emu-states-cut" "$n" 2
# the predictor's tables: a moved IRQ shows up on its new CPU and expires from
# the old one's table, a freed one sends no IPI
boot patched-predict -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r predict-check \
	-x "-global hpet.timers=8" -a "hpet=disable"
# skipping the sleep length changes no choice: each entry with the tick
# running chooses again from it (the busted shortcut is a test-controls boot)
boot patched-shortcut -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r shortcut-check \
	-x "-global hpet.timers=8" -a "hpet=disable sched_idle_shortcut_check=1"
f=$T/patched-shortcut/results/sched_idle_stats
[ ! -f "$f" ] || sed '1s/mismatched=[0-9]*/mismatched=1/' "$f" >"$T/shortcut-mismatched"
control control-shortcut-mismatched 'choices differ' \
	sh "$G/shortcut-check.sh" --judge "$T/shortcut-mismatched"
# booted without cpuidle_emu.enable=1, as an installed kernel is: no
# cpuidle driver registers (the emulated states only when asked), so
# nothing reads interrupt stamps and none are taken; the control: the same
# boot asking for the emulated states must fail the check
boot patched-nodriver -k "$K/patched.bzImage" -c 2 -r predict-check -a "guest.args=off"
busted control-nodriver-asked 'a cpuidle driver is registered' \
	-k "$K/patched.bzImage" -c 2 -r predict-check -a "cpuidle_emu.enable=1 guest.args=off"
# the selection cost probe: counts when on, nothing when off
boot patched-cost-on -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r cost-check -a "cpuidle_cost.enable=1 guest.args=on"
boot stock-cost-off -k "$K/stock.bzImage" -c 2 -d cpuidle_emu -g menu -r cost-check -a "cpuidle.governor=menu guest.args=off"
control control-cost-on-read-off 'does not read as expected with the probe off' \
	sh "$G/cost-check.sh" --judge "$T/patched-cost-on/results/cpuidle_cost" off
control control-cost-off-read-on 'does not read as expected with the probe on' \
	sh "$G/cost-check.sh" --judge "$T/stock-cost-off/results/cpuidle_cost" on
# a from-boot trace of the predictor replays exactly (idle-loop/)
check replay-exact sh "$TOP/scripts/tests/replay-exact.sh" "$T/replay-exact"
# a guest's recorded interrupts, made a workload by trace2workload.py and
# replayed by the generator, arrive when they were recorded; the control:
# the same replay judged against the recording shifted by one arrival
rw=$T/replay-workload
check replay-workload sh "$TOP/scripts/tests/replay-workload.sh" "$rw"
control control-replay-workload-shifted 'FAIL' python3 "$TOP/scripts/tests/replay-compare.py" \
	--control "$rw/replay.toml" "$rw/record/results/trace.txt.gz" \
	"$rw/bench/cells/sched-2cpu-icount-r1/results/replay/trace.txt"
# two -icount boots of one bench cell and seed are identical; another seed is not
check determinism sh "$TOP/scripts/tests/determinism.sh" "$T/determinism"
disk=$T/disk.img
truncate -s 16M "$disk"
blk="-drive file=$disk,if=none,id=d0,format=raw -device virtio-blk-pci,drive=d0"
boot patched-robust-2cpu -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -r robust -x "$blk" -a "guest.args=10"
boot patched-robust-4cpu -k "$K/patched.bzImage" -c 4 -d cpuidle_emu -r robust -x "$blk" -a "guest.args=10"
boot patched-governor-ab -k "$K/patched.bzImage" -c 2 -d cpuidle_emu -g menu -r path-check -a "$ft cpuidle.governor=menu guest.args=governor"
# the boot-level controls of the guest checks above (path-check,
# emu-states, cost-check, the sleep-length shortcut, ...): each boots a
# configuration the check must fail (scripts/test-controls.sh, its own
# tally in its log)
check test-controls sh "$TOP/scripts/test-controls.sh"

# The 7.3 kernels: the stock one with 7.3's menu and its KUnit suites; the
# patched one's path (no governor runs) and suites; 7.3's menu and teo
# compiled into the replay choose as the 7.3 stock kernel did on traces
# recorded in this run (the control: each given doubled residencies).
export LINUX=7.3
K73=$TOP/build/7.3/kernels
boot 7.3-stock-menu-1cpu -k "$K73/stock.bzImage" -c 1 -d cpuidle_emu -g menu -a "cpuidle.governor=menu"
kunit 7.3-stock-menu-1cpu stock
boot 7.3-patched-2cpu -k "$K73/patched.bzImage" -c 2 -d cpuidle_emu -g sched_idle -r path-check -a "$ft guest.args=sched"
control control-7.3-path-governor-on-patched 'FAIL: path-check governor' \
	sh "$G/path-check.sh" --judge "$T/7.3-patched-2cpu/results" governor
kunit 7.3-patched-2cpu patched
check 7.3-replay-governors-boot env INITRD="$I" sh "$TOP/scripts/tests/replay-gov.sh" "$T/7.3-replay-gov-boot"
export LINUX=6.12
finish
