#!/bin/sh
# build-kernel.sh stock|patched [FRAGMENT]: configure and build one guest kernel.
#   stock   = build/linux-stock (base + test infrastructure), fragments
#             tree-$LINUX.config base.config stock.config
#   patched = build/linux (the whole series), fragments tree-$LINUX.config
#             base.config stock.config patched.config
#   FRAGMENT: one more file of guest-image/configs/ on top (debug.config:
#             make test-robust's patched-debug kernel)
# Output: build/kernels/NAME.bzImage and NAME.config, NAME = KIND or
# KIND-FRAGMENT without .config.  The object tree is SRC/.out-NAME, inside
# each worktree, so that both kernels compile the same relative paths and
# ccache shares every unchanged object between them.
set -eu
. "$(dirname "$0")/lib.sh"

kind=${1:-}
extra_frag=${2:-}
case "$kind" in
stock) src=$BUILD/linux-stock; frags="tree-$LINUX.config base.config stock.config" ;;
patched) src=$BUILD/linux; frags="tree-$LINUX.config base.config stock.config patched.config" ;;
*) die "usage: build-kernel.sh stock|patched [FRAGMENT]" ;;
esac
name=$kind
if [ -n "$extra_frag" ]; then
	frags="$frags $extra_frag"
	name=$kind-${extra_frag%.config}
fi
[ -d "$src" ] || die "$src is missing: run 'make tree' first"
kbuild_lock
out=$src/.out-$name
grep -qx '/.out-\*' "$src/../linux/.git/info/exclude" 2>/dev/null ||
	echo '/.out-*' >>"$BUILD/linux/.git/info/exclude"
mkdir -p "$out" "$BUILD/kernels"

paths=
for f in $frags; do
	p=$TOP/guest-image/configs/$f
	[ -f "$p" ] || die "config fragment $p is missing"
	paths="$paths $p"
done

export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
# The series the kernel is built from, in its version line:
# "Linux version ... (idle@series-<series_id>)" on the boot console.
export KBUILD_BUILD_TIMESTAMP='2026-01-01' KBUILD_BUILD_USER=idle
KBUILD_BUILD_HOST=series-$(series_id "$kind")
export KBUILD_BUILD_HOST
kmake() {
	make -s -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# Reconfigure only when a fragment or the source changed.
stamp=$(cat $paths | sha256sum | cut -c1-16)-$(git -C "$src" rev-parse HEAD)
if [ "$(cat "$out/.config-stamp" 2>/dev/null)" != "$stamp" ]; then
	say "$name: configuring from tinyconfig +$(echo " $frags")"
	kmake tinyconfig >"$out/config.log" 2>&1 || die "$name: tinyconfig failed (log: $out/config.log)"
	# shellcheck disable=SC2086
	(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" $paths) >>"$out/config.log" 2>&1 ||
		die "$name: merge_config failed (log: $out/config.log)"
	kmake olddefconfig >>"$out/config.log" 2>&1 ||
		die "$name: olddefconfig failed (log: $out/config.log)"
	dropped=
	for p in $paths; do
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=n) opt=${line%=n}
				grep -q "^$opt=" "$out/.config" && dropped="$dropped $line" ;;
			CONFIG_*) grep -qxF "$line" "$out/.config" || dropped="$dropped $line" ;;
			esac
		done <"$p"
	done
	[ -z "$dropped" ] || die "$name: Kconfig dropped or changed:$dropped (see $out/.config)"
	echo "$stamp" >"$out/.config-stamp"
fi

say "$name: building bzImage (log: $out/build.log)"
start=$(date +%s)
kmake -j"$(nproc)" bzImage >"$out/build.log" 2>&1 ||
	{ tail -20 "$out/build.log" >&2; die "$name: kernel build failed (log: $out/build.log)"; }
secs=$(($(date +%s) - start))
cp "$out/arch/x86/boot/bzImage" "$BUILD/kernels/$name.bzImage.tmp"
mv "$BUILD/kernels/$name.bzImage.tmp" "$BUILD/kernels/$name.bzImage"
cp "$out/.config" "$BUILD/kernels/$name.config"
echo "$secs" >"$BUILD/kernels/$name.build-seconds"
say "$name: built in ${secs}s -> $BD/kernels/$name.bzImage"
