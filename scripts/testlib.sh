# Shared by the test scripts (test.sh, test-controls.sh): the tally and
# the ways a check is run.  Source it after lib.sh with T set (the logs'
# directory) and, for boot, I (the initramfs).
# shellcheck shell=sh

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
# control NAME PATTERN CMD...: a negative control (rcutorture's busted
# model).  It passes only when CMD fails and its output matches PATTERN,
# the failure the check exists to report; a control that passes means
# the check cannot fail, and fails the run.
control() {
	name=$1 pat=$2
	shift 2
	if "$@" >"$T/$name.log" 2>&1; then
		fail "$name" "the control passed: the check cannot fail (log: $T/$name.log)"
	elif line=$(grep -a -m1 -E "$pat" "$T/$name.log"); then
		pass "$name (fails as it must: $(echo "$line" | cut -c1-120))"
	else
		fail "$name" "failed without '$pat' (log: $T/$name.log)"
	fi
}
finish() {
	echo "${SUITE:-make test} took $(($(date +%s) - start))s"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}

# boot NAME ARGS...: one guest run (guest-image/run-qemu.sh ARGS) judged
# by guest-image/judge.sh; its run directory is $T/NAME
boot() {
	name=$1
	shift
	if "$TOP/guest-image/run-qemu.sh" -i "$I" -o "$T/$name" -t 300 -q 120 "$@" >"$T/$name.log" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(cat "$T/$name/verdict" 2>/dev/null || tail -1 "$T/$name.log")"
	fi
}

# busted NAME PATTERN ARGS...: boot (run-qemu.sh ARGS); the control passes
# when the boot's verdict is a failure of its guest script and the
# script's log holds PATTERN.  A hang, a splat or a boot that never ran
# the script is not the failure the check exists to report.
busted() {
	name=$1 pat=$2
	shift 2
	if "$TOP/guest-image/run-qemu.sh" -i "$I" -o "$T/$name" -t 300 -q 120 "$@" >"$T/$name.log" 2>&1; then
		fail "$name" "the control passed: the check cannot fail (log: $T/$name/results/run.log)"
		return
	fi
	v=$(cat "$T/$name/verdict" 2>/dev/null || echo "no verdict")
	case "$v" in
	"FAIL: guest script"*) ;;
	*) fail "$name" "the boot failed, but not in its check: $v"; return ;;
	esac
	if line=$(grep -a -m1 -E "$pat" "$T/$name/results/run.log" 2>/dev/null); then
		pass "$name (fails as it must: $(echo "$line" | cut -c1-120))"
	else
		fail "$name" "the check failed without '$pat' (log: $T/$name/results/run.log)"
	fi
}
