#!/bin/sh
# broken-patch.sh: a series patch that does not apply makes tree.sh stop
# with one line naming the patch and a kept git-am log.  Uses a tiny
# stand-in tarball so that no kernel tree is extracted.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts" "$tmp/series" "$tmp/src/linux-source-6.12"
cp "$top"/scripts/*.sh "$tmp/scripts/"
cp -R "$top/shared" "$tmp/"
ver=$(sed -n 's/^LINUX_UPSTREAM_VERSION[[:space:]]*:=[[:space:]]*//p' "$top/config.mk")
printf 'kernelversion:\n\t@echo %s\n' "$ver" >"$tmp/src/linux-source-6.12/Makefile"
printf 'one\ntwo\n' >"$tmp/src/linux-source-6.12/file"
tar -cJf "$tmp/fake.tar.xz" -C "$tmp/src" linux-source-6.12
sed "s|^LINUX_TARBALL.*|LINUX_TARBALL := $tmp/fake.tar.xz|" "$top/config.mk" >"$tmp/config.mk"
cat >"$tmp/series/0001-broken.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Test <test@localhost>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] test: a patch whose context is not in the tree

---
 file | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/file b/file
--- a/file
+++ b/file
@@ -1,2 +1,2 @@
 zero
-two
+three
--
2.39.5
PATCH
printf '0001-broken.patch\n' >"$tmp/series/series"
if BUILD=$tmp/build sh "$tmp/scripts/tree.sh" >"$tmp/out" 2>&1; then
	echo "FAIL: tree.sh applied a broken patch"; cat "$tmp/out"; exit 1
fi
cat "$tmp/out"
grep -q 'error: series/0001-broken.patch does not apply' "$tmp/out" ||
	{ echo "FAIL: the error does not name the patch"; exit 1; }
[ -s "$tmp/build/git-am.log" ] || { echo "FAIL: no git am log kept"; exit 1; }
echo "ok: broken patch refused"
