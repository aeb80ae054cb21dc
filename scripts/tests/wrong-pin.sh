#!/bin/sh
# wrong-pin.sh: a config.mk pinning a linux-source version other than the
# installed one makes tree.sh stop with one line naming both versions,
# and touches no tree.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts"
cp "$top"/scripts/*.sh "$tmp/scripts/"
cp -R "$top/shared" "$tmp/"
sed 's/^LINUX_DEB_VERSION.*/LINUX_DEB_VERSION := 6.12.1-9~test/' "$top/config.mk" >"$tmp/config.mk"
if BUILD=$tmp/build sh "$tmp/scripts/tree.sh" >"$tmp/out" 2>&1; then
	echo "FAIL: tree.sh accepted a wrong pin"; cat "$tmp/out"; exit 1
fi
cat "$tmp/out"
grep -q '6.12.1-9~test' "$tmp/out" || { echo "FAIL: the error does not name the pinned version"; exit 1; }
[ "$(wc -l <"$tmp/out")" -eq 1 ] || { echo "FAIL: more than one line of error"; exit 1; }
[ ! -d "$tmp/build/linux" ] || { echo "FAIL: a tree was created"; exit 1; }
echo "ok: wrong pin refused"
