#!/bin/sh
# missing-pkg.sh: a host package that cannot be installed stops need_pkgs
# (scripts/lib.sh, used by every make target) with one error line naming
# the package and the apt log, and the log is kept.  As root it really
# asks apt-get (about 5 s); otherwise it must say what to install.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/build"
pkg=idle-prediction-no-such-package
if TOP=$top BUILD=$tmp/build sh -c ". '$top/scripts/lib.sh'; need_pkgs $pkg" >"$tmp/out" 2>&1; then
	echo "FAIL: need_pkgs accepted $pkg"; exit 1
fi
cat "$tmp/out"
err=$(grep -c 'error:' "$tmp/out" || true)
[ "$err" -eq 1 ] || { echo "FAIL: $err error lines, want 1"; exit 1; }
grep 'error:' "$tmp/out" | grep -q "$pkg" || { echo "FAIL: the error does not name $pkg"; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
	grep -q "log: $tmp/build/apt.log" "$tmp/out" || { echo "FAIL: the error does not name the log"; exit 1; }
	grep -q "$pkg" "$tmp/build/apt.log" || { echo "FAIL: apt.log not kept or empty"; exit 1; }
fi
echo "ok: missing package refused"
