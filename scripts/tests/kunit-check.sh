#!/bin/sh
# kunit-check.sh KERNEL CONSOLE: the KUnit suites that the series adds to
# KERNEL (stock: the "both" groups of series/series; patched: all of
# them) all ran and passed in a boot's CONSOLE log, and at
# least as many tests ran as the series adds KUNIT_CASE lines.  The KTAP
# is parsed by the tree's tools/testing/kunit/kunit.py.  A suite that is
# missing, a crash, a failure or too few tests fail the check.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"
kernel=${1:?usage: kunit-check.sh stock|patched CONSOLE}
log=${2:?usage: kunit-check.sh stock|patched CONSOLE}
[ -s "$log" ] || { echo "FAIL: no console log $log"; exit 1; }

# series_patches: the patches KERNEL carries, in order
files=
for p in $(series_patches "$kernel" "$SERIES_DIR/series"); do
	[ -f "$SERIES_DIR/$p" ] || { echo "FAIL: series/series names $p, which is missing"; exit 1; }
	files="$files $SERIES_DIR/$p"
done
# shellcheck disable=SC2086
series_kunit $files
suites=$kunit_suites cases=$kunit_cases
[ -n "$suites" ] || { echo "FAIL: no KUnit suite found in the $kernel series"; exit 1; }
echo "suites: $suites"

parsed=$(python3 "$BUILD/linux/tools/testing/kunit/kunit.py" parse <"$log" 2>&1) || true
echo "$parsed"
bad=
echo "$parsed" | grep -q 'Testing complete' || bad="$bad; kunit.py found no complete KTAP"
! echo "$parsed" | grep -q -E 'FAILED|CRASHED|ERROR' || bad="$bad; a test failed, crashed or the KTAP has errors"
for s in $suites; do
	echo "$parsed" | grep -q -E "\[PASSED\] $s( |\$)" || bad="$bad; suite $s did not pass"
done
ran=$(echo "$parsed" | sed -n 's/.*Testing complete\. Ran \([0-9]*\) tests.*/\1/p' | tail -1)
[ "${ran:-0}" -ge "$cases" ] || bad="$bad; ran ${ran:-0} tests, the series adds $cases"
if [ -n "$bad" ]; then
	echo "FAIL: kunit $kernel:${bad#;}"
	exit 1
fi
echo "kunit-check: $kernel: every suite passed, $ran tests (the series adds $cases cases)"
