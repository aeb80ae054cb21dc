#!/bin/sh
# build-each-patch.sh: check that every prefix of the series builds.
# Walks base..work in the worktree build/linux-each, one commit at a
# time, rebuilding incrementally (and through ccache) with all config
# fragments; symbols a commit does not have yet are simply absent.
# Each prefix compiles the directories holding a C file, Makefile or
# Kconfig that the series touches (kernel/irq/, kernel/sched/, ...): a
# prefix that does not compile fails (its warnings are counted and
# printed; the W=1 and sparse pass is check-touched.sh's).  The link of the whole
# kernel is build-kernel.sh's, on the last prefix (make test); EACH_FULL=1
# links a bzImage at every prefix (make test-robust).
# Usage: [EACH_FULL=1] scripts/build-each-patch.sh
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
# the directories with a .c, Makefile or Kconfig the series touches
# (headers and documentation are compiled through them)
dirs=$(git -C "$TREE" diff --name-only base work -- '*.c' '*Makefile' '*Kconfig*' |
	xargs -n1 dirname | sort -u | sed 's|$|/|')
if [ "${EACH_FULL:-0}" = 1 ]; then
	targets=bzImage
else
	# shellcheck disable=SC2086
	targets=$(echo $dirs)
fi
for c in $(git -C "$TREE" rev-list --reverse base..work); do
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$EACH" checkout -q --detach "$c"
	log=$out/build-$(git -C "$TREE" rev-parse --short "$c").log
	{
		make -s -C "$EACH" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" tinyconfig &&
		# shellcheck disable=SC2086
		(cd "$out" && "$EACH/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags) &&
		make -s -C "$EACH" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" olddefconfig &&
		# shellcheck disable=SC2086
		make -s -C "$EACH" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -j"$(nproc)" $targets
	} >"$log" 2>&1 || die "'$subject' does not build on its own (log: $log)"
	warn=$(grep -c 'warning:' "$log" || true)
	say "builds: $subject ($warn warnings, log: $log)"
done
