#!/bin/sh
# build-deb.sh stock|patched: an installable Debian package of one kernel
# (make bindeb-pkg), Debian's own config of the pinned version
# (debian_config) + guest-image/configs/deb.config.
#   patched = build/linux's branch "work", release VERSION-idlepredict
#   stock   = build/linux's tag "stock" (the "both" groups), VERSION-idlestock,
#             without the options its tree does not define
# The source is a snapshot, a detached worktree build/deb/src-KIND at the
# commit the run starts from, so that edits to build/linux meanwhile do
# not reach a build in flight; objects go to build/deb/KIND (O=), the
# packages to build/deb/ (linux-image, linux-headers, linux-libc-dev),
# the build time to build/deb/KIND.build-seconds.  Nothing is redone while
# the commit and the fragment are unchanged.
set -eu
. "$(dirname "$0")/lib.sh"

kind=${1:-}
case "$kind" in
stock) ref=stock suffix=-idlestock ;;
patched) ref=work suffix=-idlepredict ;;
*) die "usage: build-deb.sh stock|patched" ;;
esac
DEB=$BUILD/deb
src=$DEB/src-$kind out=$DEB/$kind
frag=$TOP/guest-image/configs/deb.config
release=$(cfg LINUX_UPSTREAM_VERSION)$suffix
pkgver=$release-1
image=$DEB/linux-image-${release}_${pkgver}_amd64.deb
[ -d "$BUILD/linux/.git" ] || die "build/linux is missing: run 'make tree' first"
commit=$(git -C "$BUILD/linux" rev-parse -q --verify "$ref^{commit}") ||
	die "build/linux has no '$ref': run 'make tree' first"
mkdir -p "$DEB"
need_pkgs dpkg-dev debhelper rsync kmod cpio libelf-dev libssl-dev bc flex bison ccache

debian_config "$DEB/debian.config"
stamp=$commit-$(cat "$frag" "$DEB/debian.config" | sha256sum | cut -c1-16)
if [ -f "$image" ] && [ "$(cat "$DEB/$kind.stamp" 2>/dev/null)" = "$stamp" ]; then
	say "$kind: up to date ($(basename "$image"))"
	exit 0
fi

kbuild_lock
t0=$(date +%s)
if [ ! -e "$src/.git" ]; then
	rm -rf "$src"
	git -C "$BUILD/linux" worktree prune
	git -C "$BUILD/linux" worktree add -q --detach "$src" "$commit" ||
		die "$kind: cannot snapshot $ref into $src"
elif [ "$(git -C "$src" rev-parse HEAD)" != "$commit" ]; then
	git -C "$src" checkout -q --detach "$commit" ||
		die "$kind: cannot move the snapshot $src to $ref ($commit)"
fi
say "$kind: source $ref = $(git -C "$src" log -1 --format='%h %s' "$commit")"

export CCACHE_BASEDIR="$BUILD" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros
export KBUILD_BUILD_TIMESTAMP='2026-01-01' KBUILD_BUILD_USER=idle KBUILD_BUILD_HOST=deb
kmake() {
	make -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" \
		LOCALVERSION="$suffix" KDEB_PKGVERSION="$pkgver" "$@"
}
mkdir -p "$out"
log=$out/config.log

# Configure: Debian's config, the fragment (stock: only the options its
# tree defines), olddefconfig, then every asked line must be in .config.
t=$(date +%s)
find "$src" -name 'Kconfig*' -exec sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' {} + |
	sort -u >"$out/kconfig-symbols"
grep '^CONFIG_' "$frag" | while IFS= read -r line; do
	if grep -qx "${line%%=*}" "$out/kconfig-symbols"; then echo "$line"; fi
done >"$out/deb.config"
dropped=$(grep '^CONFIG_' "$frag" | grep -vxF -f "$out/deb.config" | sed 's/=.*//' | tr '\n' ' ')
[ "$kind" = stock ] || [ -z "$dropped" ] ||
	die "$kind: the tree does not define $dropped(fragment $frag)"
[ -z "$dropped" ] || say "$kind: not in this tree, left out: $dropped"
cp "$DEB/debian.config" "$out/.config"
(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
	"$out/.config" "$out/deb.config") >"$log" 2>&1 ||
	die "$kind: merge_config failed (log: $log)"
kmake olddefconfig >>"$log" 2>&1 || die "$kind: olddefconfig failed (log: $log)"
while IFS= read -r line; do
	case "$line" in
	*=n) ! grep -q "^${line%=n}=" "$out/.config" ;;
	*) grep -qxF "$line" "$out/.config" ;;
	esac || die "$kind: $line is not set after olddefconfig (see $out/.config)"
done <"$out/deb.config"
say "$kind: configured in $(($(date +%s) - t))s (Debian's config + $(wc -l <"$out/deb.config") options of deb.config)"

# Build: the packages land in $out/.., which is build/deb.
t=$(date +%s)
rm -f "$DEB"/linux-*_"${pkgver}"_*.deb
say "$kind: make bindeb-pkg $release (log: $out/build.log)"
kmake -j"$(nproc)" bindeb-pkg >"$out/build.log" 2>&1 ||
	{ tail -20 "$out/build.log" >&2; die "$kind: bindeb-pkg failed (log: $out/build.log)"; }
secs=$(($(date +%s) - t))
[ -f "$image" ] || die "$kind: bindeb-pkg did not write $image (log: $out/build.log)"
echo "$secs" >"$DEB/$kind.build-seconds"
echo "$stamp" >"$DEB/$kind.stamp"
say "$kind: built in ${secs}s ($(($(date +%s) - t0))s in all): $(cd "$DEB" && ls linux-*_"${pkgver}"_*.deb | tr '\n' ' ')"
