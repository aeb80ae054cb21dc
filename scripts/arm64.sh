#!/bin/sh
# arm64.sh (make arm64): the proposal (the patches of series/series before
# the first "# ---- patched" group, and that group) on arm64: applied with
# git am to tag base in the worktree build/arm64/linux, configured from
# tinyconfig + guest-image/configs/arm64.config, built with W=1, booted in
# qemu-system-aarch64 -M virt under AAVMF (TCG only) to run its KUnit
# suites, and judged.  Each check then gets its control.
#   arm64.sh            everything above, then the controls
#   arm64.sh --judge LOG    only the KUnit judge, on a console log
#   arm64.sh --control      only the controls, on the kept outputs
# Checks: every option of the fragment as asked in .config; no W=1 warning
# on a line the proposal adds; every KUnit suite the proposal adds ran
# and passed, nothing failed, and at least as many tests ran as it adds
# KUNIT_CASE lines.  Writes build/arm64/: linux/ (worktree), out/
# (objects), series/ (the patches used), config.log, build.log,
# console.log, kunit.log.
set -eu
. "$(dirname "$0")/lib.sh"
A=$BUILD/arm64
WT=$A/linux
OUT=$A/out
FRAG=$TOP/guest-image/configs/arm64.config
BOOT_TIMEOUT=600
mkdir -p "$A"
t0=$(date +%s) times=
phase() { # NAME: the time since the last phase, for the summary
	t1=$(date +%s)
	times="$times $1 $((t1 - t0))s,"
	t0=$t1
}

# The patches are read from P, a copy of series/ taken when the tree is
# made, so that the tree, the build and the judge see the same series.
P=$A/series
[ -f "$P/series" ] || P=$TOP/series
proposal_patches() { # the fix before the proposal, then the proposal
	awk '/^# ---- patched/ { n++; next } /^# ---- / { if (n) exit; next }
		/^#/ || /^[[:space:]]*$/ { next } n <= 1 { print }' "$P/series"
}

# check_config FRAG CONFIG: every line of FRAG as asked in CONFIG
check_config() {
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) ! grep -q "^${line%=n}=" "$2" || { echo "FAIL: Kconfig set $line otherwise (see $2)"; return 1; } ;;
		CONFIG_*) grep -qxF "$line" "$2" || { echo "FAIL: Kconfig dropped or changed $line (see $2)"; return 1; } ;;
		esac
	done <"$1"
}

# check_warnings LOG: no warning (gcc's or kernel-doc's) on a line the
# proposal adds; those on the upstream lines of the files it touches are
# listed, not judged (kernel-doc has one in timings.c, which IRQ_PREDICT
# compiles: its IRQ_TIMINGS is otherwise never built)
check_warnings() {
	old=
	for f in $(git -C "$WT" diff --name-only base HEAD); do
		added=$(git -C "$WT" diff -U0 base HEAD -- "$f" |
			sed -n 's/^@@ -[0-9,]* +\([0-9]*\),*\([0-9]*\) @@.*/\1 \2/p' |
			awk '{ n = ($2 == "") ? 1 : $2; for (i = 0; i < n; i++) printf " %d ", $1 + i }')
		for w in $(grep -E "(^|/)$f:[0-9]+:([0-9]+:)? warning" "$1" |
			grep -E -o "(^|/)$f:[0-9]+" | sed 's/.*://'); do
			case "$added" in
			*" $w "*) echo "FAIL: W=1 warning on a line the proposal adds: $f:$w (log: $1)"
				return 1 ;;
			*) old="$old $f:$w" ;;
			esac
		done
	done
	echo "W=1: no warning on the lines the proposal adds${old:+ (upstream lines of the files it touches:$old)}"
}

# judge CONSOLE PARSED: the proposal's suites all passed in CONSOLE's KTAP,
# parsed by the tree's kunit.py into PARSED
judge() {
	[ -s "$1" ] || { echo "FAIL: no console log $1"; return 1; }
	files=
	for p in $(proposal_patches); do
		files="$files $P/$p"
	done
	# shellcheck disable=SC2086
	series_kunit $files
	suites=$kunit_suites cases=$kunit_cases
	[ -n "$suites" ] || { echo "FAIL: the proposal adds no KUnit suite"; return 1; }
	kunit=$WT/tools/testing/kunit/kunit.py
	[ -f "$kunit" ] || kunit=$BUILD/linux/tools/testing/kunit/kunit.py
	python3 "$kunit" parse <"$1" >"$2" 2>&1 || true
	bad=
	grep -q 'Testing complete' "$2" || bad="$bad; kunit.py found no complete KTAP"
	! grep -q -E 'FAILED|CRASHED|ERROR' "$2" || bad="$bad; a test failed, crashed or the KTAP has errors"
	for s in $suites; do
		grep -q -E "\[PASSED\] $s( |\$)" "$2" || bad="$bad; suite $s did not pass"
	done
	ran=$(sed -n 's/.*Testing complete\. Ran \([0-9]*\) tests.*/\1/p' "$2" | tail -1)
	[ "${ran:-0}" -ge "$cases" ] || bad="$bad; ran ${ran:-0} tests, the proposal adds $cases"
	[ -z "$bad" ] || { echo "FAIL: kunit arm64:${bad#;} (log: $2)"; return 1; }
	echo "kunit arm64: suites $suites passed, $ran tests (the proposal adds $cases cases)"
}

# control NAME PATTERN CMD...: CMD must fail with a line matching PATTERN
# (scripts/testlib.sh's control): a check that cannot fail proves nothing
control() {
	name=$1 pat=$2
	shift 2
	if out=$("$@" 2>&1); then
		die "control $name passed: the check cannot fail ($out)"
	elif line=$(echo "$out" | grep -m1 -E "$pat"); then
		say "control $name fails as it must: $line"
	else
		die "control $name failed without '$pat': $(echo "$out" | tail -1)"
	fi
}

controls() {
	c=$A/control
	mkdir -p "$c"
	[ -s "$A/console.log" ] && [ -s "$A/build.log" ] && [ -f "$OUT/.config" ] ||
		die "no kept run in $A: run scripts/arm64.sh first"
	# the console with the last suite cut out
	last=$(judge "$A/console.log" "$c/kunit.log" | sed -n 's/^kunit arm64: suites \(.* \)\{0,1\}\([a-z_0-9]*\) passed,.*/\2/p')
	[ -n "$last" ] || die "the kept console log does not pass its judge (log: $c/kunit.log)"
	awk -v s="$last" '$0 ~ "# Subtest: " s "\r?$" { skip = 1 }
		!skip { print } skip && $0 ~ "ok [0-9]+ " s "\r?$" { skip = 0 }' \
		"$A/console.log" >"$c/console-cut.log"
	control kunit-cut "suite $last did not pass" judge "$c/console-cut.log" "$c/kunit-cut.log"
	# the console with the first test case's "ok" turned "not ok"
	awk '!done && / ok 1 [a-z_]/ && !/not ok/ { sub(/ ok 1 /, " not ok 1 "); done = 1 } { print }' \
		"$A/console.log" >"$c/console-notok.log"
	control kunit-not-ok 'a test failed' judge "$c/console-notok.log" "$c/kunit-notok.log"
	# the build log with a warning on the first C file the proposal adds
	f=$(git -C "$WT" diff --name-only --diff-filter=A base HEAD -- '*.c' | head -1)
	{ cat "$A/build.log"; echo "$WT/$f:1:1: warning: control [-Wcontrol]"; } >"$c/build.log"
	control w1-warning "W=1 warning on a line the proposal adds: $f:1" check_warnings "$c/build.log"
	# the .config without the fragment's last option
	opt=$(grep '^CONFIG_' "$FRAG" | tail -1)
	grep -vxF "$opt" "$OUT/.config" >"$c/config"
	control config-dropped "dropped or changed $opt" check_config "$FRAG" "$c/config"
}

case "${1:-}" in
--judge) judge "${2:?usage: arm64.sh --judge CONSOLE}" "$A/kunit-judge.log"; exit ;;
--control) controls; exit ;;
"") ;;
*) die "usage: arm64.sh [--judge CONSOLE | --control]" ;;
esac

[ -d "$BUILD/linux/.git" ] && git -C "$BUILD/linux" rev-parse -q --verify base >/dev/null ||
	die "build/linux with tag base is missing: run 'make tree' first"
need_pkgs gcc-aarch64-linux-gnu qemu-system-arm qemu-efi-aarch64 ccache flex bison bc python3
phase packages

# The tree: base + the proposal, redone only when a patch changed, in
# place so that the files no patch touches keep their times.
rm -rf "$A/series.new"
mkdir -p "$A/series.new"
cp "$TOP/series/series" "$A/series.new/"
P=$A/series.new
for p in $(proposal_patches); do
	cp "$TOP/series/$p" "$P/" 2>/dev/null || die "series/series names $p, which is missing"
done
[ -n "$(awk '/^# ---- patched/' "$P/series")" ] || die "series/series has no '# ---- patched' group"
# shellcheck disable=SC2046,SC2002
stamp=$(cd "$P" && cat $(proposal_patches) | sha256sum | cut -c1-16)
if [ -e "$WT/.git" ] && [ "$(cat "$A/tree-stamp" 2>/dev/null)" = "$stamp $(git -C "$WT" rev-parse HEAD)" ]; then
	say "tree: the proposal is applied"
else
	if [ -e "$WT/.git" ]; then
		git -C "$WT" am --abort >/dev/null 2>&1 || true
		git -C "$WT" reset -q --hard base
	else
		rm -rf "$WT"
		git -C "$BUILD/linux" worktree prune
		git -C "$BUILD/linux" worktree add -q --detach "$WT" base
	fi
	: >"$A/git-am.log"
	for p in $(proposal_patches); do
		git -C "$WT" -c user.name=idle-series -c user.email=idle@localhost am -q "$P/$p" \
			>>"$A/git-am.log" 2>&1 || die "$p does not apply to base with the patches before it (log: $A/git-am.log)"
	done
	echo "$stamp $(git -C "$WT" rev-parse HEAD)" >"$A/tree-stamp"
	say "tree: base + $(proposal_patches | wc -l) patches in $WT"
fi
rm -rf "$A/series"
mv "$P" "$A/series"
P=$A/series
phase tree

kbuild_lock
phase lock-wait
export CCACHE_SLOPPINESS=time_macros
export KBUILD_BUILD_TIMESTAMP='2026-01-01' KBUILD_BUILD_USER=idle KBUILD_BUILD_HOST=guest
kmake() {
	make -C "$WT" O="$OUT" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		CC="ccache aarch64-linux-gnu-gcc" HOSTCC="ccache gcc" "$@"
}
mkdir -p "$OUT"
cstamp=$(sha256sum <"$FRAG" | cut -c1-16)-$(git -C "$WT" rev-parse HEAD)
if [ "$(cat "$OUT/.config-stamp" 2>/dev/null)" != "$cstamp" ]; then
	say "config: tinyconfig + ${FRAG#"$TOP"/}"
	kmake tinyconfig >"$A/config.log" 2>&1 || die "tinyconfig failed (log: $A/config.log)"
	(cd "$OUT" && "$WT/scripts/kconfig/merge_config.sh" -m -O "$OUT" "$OUT/.config" "$FRAG") \
		>>"$A/config.log" 2>&1 || die "merge_config failed (log: $A/config.log)"
	kmake olddefconfig >>"$A/config.log" 2>&1 || die "olddefconfig failed (log: $A/config.log)"
	why=$(check_config "$FRAG" "$OUT/.config") || die "${why#FAIL: }"
	echo "$cstamp" >"$OUT/.config-stamp"
fi
phase config

# A W=1 warning shows only when its object is compiled: recompile every
# object that depends on a file the proposal touches (ccache replays the
# warnings of a cached object), so that a rebuild judges them again.
git -C "$WT" diff --name-only base HEAD | sed "s|^|$WT/|" >"$A/touched"
find "$OUT" -name '.*.o.cmd' -exec grep -lF -f "$A/touched" {} + 2>/dev/null |
	sed 's|/\.\([^/]*\)\.cmd$|/\1|' | xargs rm -f
say "build: W=1 Image (log: $A/build.log)"
kmake -j"$(nproc)" W=1 Image >"$A/build.log" 2>&1 ||
	die "the arm64 build failed: $(grep -m1 -E 'error|Error' "$A/build.log" | cut -c1-120) (log: $A/build.log)"
exec 9>&-
why=$(check_warnings "$A/build.log") || die "${why#FAIL: }"
say "$why"
phase build

# AAVMF: the code read-only, as QEMU's 64 MiB flash bank wants it, and a
# copy of the variables for this boot.  acpi=off: AAVMF then hands the
# kernel QEMU's device tree (with ACPI tables it passes none, and a kernel
# without CONFIG_ACPI finds no console).
code=/usr/share/AAVMF/AAVMF_CODE.fd
if [ "$(stat -c %s "$code")" -ne 67108864 ]; then
	cp "$code" "$A/code.fd"
	truncate -s 64M "$A/code.fd"
	code=$A/code.fd
fi
cp /usr/share/AAVMF/AAVMF_VARS.fd "$A/vars.fd"
truncate -s 64M "$A/vars.fd"
say "boot: KUnit in qemu-system-aarch64 -M virt, TCG (console: $A/console.log)"
rc=0
timeout --foreground "$BOOT_TIMEOUT" qemu-system-aarch64 -M virt,acpi=off -accel tcg -cpu cortex-a57 -smp 2 -m 512 \
	-nographic -no-reboot \
	-drive if=pflash,format=raw,readonly=on,file="$code" \
	-drive if=pflash,format=raw,file="$A/vars.fd" \
	-kernel "$OUT/arch/arm64/boot/Image" \
	-append "console=ttyAMA0 kunit_shutdown=poweroff panic=-1" \
	</dev/null >"$A/console.log" 2>&1 || rc=$?
[ "$rc" -ne 124 ] || die "the guest did not power off within ${BOOT_TIMEOUT}s (log: $A/console.log)"
[ "$rc" -eq 0 ] || die "qemu-system-aarch64 exited with $rc (log: $A/console.log)"
grep -q 'reboot: Power down' "$A/console.log" ||
	die "the guest stopped without powering off (log: $A/console.log)"
phase boot

why=$(judge "$A/console.log" "$A/kunit.log") || die "${why#FAIL: }"
say "$why"
phase judge
controls
phase control
say "times:${times%,}"
