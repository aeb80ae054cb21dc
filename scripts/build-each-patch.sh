#!/bin/sh
# build-each-patch.sh: check that every prefix of the series builds.
# Walks base..work in the worktree build/linux-each, one commit at a
# time, rebuilding incrementally (and through ccache) with all config
# fragments; symbols a commit does not have yet are simply absent.
# Usage: scripts/build-each-patch.sh
set -eu
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
EACH=$BUILD/linux-each
[ -d "$TREE/.git" ] || die "build/linux is missing: run 'make tree'"
kbuild_lock
if [ ! -e "$EACH/.git" ]; then
	rm -rf "$EACH"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$EACH" base
fi
out=$EACH/.out-each
mkdir -p "$out"
export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
export KBUILD_BUILD_TIMESTAMP='2026-01-01' KBUILD_BUILD_USER=idle KBUILD_BUILD_HOST=guest
frags=
for f in tree-$LINUX.config base.config stock.config patched.config; do
	frags="$frags $TOP/guest-image/configs/$f"
done
for c in $(git -C "$TREE" rev-list --reverse base..work); do
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$EACH" checkout -q --detach "$c"
	log=$out/build-$(git -C "$TREE" rev-parse --short "$c").log
	{
		make -s -C "$EACH" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" tinyconfig &&
		# shellcheck disable=SC2086
		(cd "$out" && "$EACH/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags) &&
		make -s -C "$EACH" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" olddefconfig &&
		make -s -C "$EACH" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" bzImage
	} >"$log" 2>&1 || die "'$subject' does not build on its own (log: $log)"
	warn=$(grep -c 'warning:' "$log" || true)
	say "builds: $subject ($warn warnings, log: $log)"
done
