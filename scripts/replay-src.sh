#!/bin/sh
# replay-src.sh: only the kernel files idle-loop/ compiles (its Makefile's
# KSRCS, GSRCS and KHDRS), from the pinned Debian package with the
# series' patches applied to just those files, into DIR (default
# $BUILD/replay-src/linux): what `make -C idle-loop` uses when there is no
# tree from `make tree`.  Needs no root and installs nothing: the pinned
# tarball is read from /usr/src when that version is installed, from
# $BUILD/src when tree.sh downloaded it (7.3), and otherwise downloaded
# with apt-get into $BUILD/replay-src (a sources file and apt state of its
# own).  Idempotent: nothing is redone while the pin and the series are
# unchanged.  Usage: scripts/replay-src.sh [DIR]
# REPLAY_SRC_DROP=PATH leaves PATH out (make test's control).
set -eu
. "$(dirname "$0")/lib.sh"

# the paths idle-loop/Makefile compiles, relative to the tree
FILES="kernel/irq/predict.c kernel/sched/idle_select.c kernel/sched/idle_select.h
drivers/cpuidle/cpuidle-emu-model.c drivers/cpuidle/cpuidle-emu.h
drivers/cpuidle/governors/menu.c drivers/cpuidle/governors/teo.c
drivers/cpuidle/governors/gov.h include/linux/irq_predict.h"

R=$BUILD/replay-src
DIR=${1:-$R/linux}
pkg=$(cfg LINUX_DEB_PACKAGE)
want=$(cfg LINUX_DEB_VERSION)
tarball=$(cfg LINUX_TARBALL)
suite=$(cfg LINUX_DEB_SUITE)

stamp_of() {
	{ echo "$want ${REPLAY_SRC_DROP:-}"; for p in $(series_patches patched); do
		cat "$SERIES_DIR/$p"; done; } | sha256sum | cut -c1-16
}
[ -f "$SERIES_DIR/series" ] || die "$SD/series is missing"
stamp=$(stamp_of)
if [ "$(cat "$DIR/.replay-src" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi

# the pinned tarball: installed, downloaded by tree.sh, or downloaded here
have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
if [ -z "$suite" ] && [ "$have" = "$want" ] && [ -f "$tarball" ]; then
	:
elif [ -n "$suite" ] && [ "$(cat "$BUILD/src/version" 2>/dev/null)" = "$want" ] &&
	[ -f "$BUILD/src/root/$tarball" ]; then
	tarball=$BUILD/src/root/$tarball
else
	tarball=$R/root/${tarball#/}
	if [ ! -f "$tarball" ] || [ "$(cat "$R/version" 2>/dev/null)" != "$want" ]; then
		command -v apt-get >/dev/null ||
			die "no apt-get: download $pkg $want (a Debian package) by hand and unpack ${tarball#"$R/root/"} from it into $R/root/, or run: make -C idle-loop KSRC=PATCHED-TREE"
		rm -rf "$R/root"
		mkdir -p "$R/root"
		say "downloading $pkg $want (about 150 MB, its kernel tarball kept in $BD/replay-src/root for the next series change)"
		deb=$(deb_download "$R" "$pkg" "$want" "$suite")
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$R/root" --wildcards "*${tarball#"$R/root"}" ||
			die "cannot unpack $deb"
		rm -f "$deb"
		[ -f "$tarball" ] || die "$deb has no ${tarball#"$R/root/"}"
		echo "$want" >"$R/version"
	fi
fi

# extract the files that exist before the series, then apply every patch
# of the patched kernel to those paths alone (git apply --include), in a
# directory git cannot mistake for a part of this repository
tmp=$DIR.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
pats= incl=
for f in $FILES; do
	[ "$f" = "${REPLAY_SRC_DROP:-}" ] && continue
	pats="$pats */$f"
	incl="$incl --include=$f"
done
say "extracting $(echo "$pats" | wc -w | tr -d ' ') files from $tarball"
# a path the series creates is not in the tarball: tar lists it as
# missing, which is expected here; what is missing after the patches is not
set -f
# shellcheck disable=SC2086
tar -xJf "$tarball" -C "$tmp" --strip-components=1 --touch --wildcards $pats 2>"$tmp.tar.log" || true
set +f
for p in $(series_patches patched); do
	[ -f "$SERIES_DIR/$p" ] || die "$SD/series lists $p, which is not in $SD/"
	# shellcheck disable=SC2086
	(cd "$tmp" && GIT_CEILING_DIRECTORIES=$(dirname "$tmp") git apply $incl "$SERIES_DIR/$p") ||
		die "$SD/$p does not apply to the replay's files of $pkg $want"
done
for f in $FILES; do
	[ "$f" = "${REPLAY_SRC_DROP:-}" ] && continue
	[ -f "$tmp/$f" ] || die "$f is neither in $pkg $want nor made by $SD"
done
rm -f "$tmp.tar.log"
echo "$stamp" >"$tmp/.replay-src"
rm -rf "$DIR"
mv "$tmp" "$DIR"
say "replay sources ready: $DIR ($pkg $want + $SD)"
