#!/bin/sh
# no-skips.sh DIR: python3 -m unittest discover -s DIR, failing when a
# test fails or is skipped: a skipped test is not a pass (each skip and its
# reason is printed).
set -eu
dir=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
python3 -m unittest discover -s "$dir" -v >"$log" 2>&1 || rc=$?
cat "$log"
skipped=$(grep -c ' \.\.\. skipped' "$log" || true)
[ "$rc" -eq 0 ] || { echo "FAIL: unittest exit status $rc"; exit 1; }
if [ "$skipped" -ne 0 ]; then
	grep ' \.\.\. skipped' "$log"
	echo "FAIL: $skipped tests skipped, not run"
	exit 1
fi
echo "unittest: every test ran, none skipped"
