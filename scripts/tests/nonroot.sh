#!/bin/sh
# nonroot.sh: what a user who is not root meets first.  As the user nobody
# (runuser, so make test's root runs it), `scripts/disk-boot.sh
# --preflight` (make disk-boot runs it before make deb's two kernel
# builds) and `perf-scripts/record.sh 1` must each stop within seconds
# with one line that names root as the cause.
#   nonroot.sh DIR            the check (DIR: record.sh's output)
#   nonroot.sh --control DIR  the same run as root (this user): disk-boot's
#       preflight passes, so the check must fail
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
as="runuser -u nobody --"
if [ "${1:-}" = --control ]; then
	as=
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--control] DIR" >&2; exit 2; }
D=$1
rm -rf "$D"
mkdir -p "$D"
chmod 777 "$D"
# one: NAME CMD...: CMD must fail in under 10 s with one line naming root
one() {
	name=$1
	shift
	t=$(date +%s)
	# shellcheck disable=SC2086
	if (cd "$D" && timeout 60 $as "$@") >"$D/$name.out" 2>&1; then
		echo "FAIL: $name did not stop for a user who is not root ($D/$name.out)"
		return 1
	fi
	lines=$(grep -c . "$D/$name.out" || true)
	secs=$(($(date +%s) - t))
	if [ "$lines" -ne 1 ] || ! grep -q 'root' "$D/$name.out" || [ "$secs" -ge 10 ]; then
		echo "FAIL: $name: $lines lines in ${secs}s, want one naming root: $(head -c 200 "$D/$name.out")"
		return 1
	fi
	echo "$name: $(cat "$D/$name.out")"
}
one disk-boot-preflight sh "$TOP/scripts/disk-boot.sh" --preflight
one record sh "$TOP/perf-scripts/record.sh" 1 "$D/rec"
