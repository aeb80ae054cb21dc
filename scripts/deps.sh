#!/bin/sh
# deps.sh: install the host packages every make target needs, and the
# pinned linux-source package of the 6.12 tree.  Usage: scripts/deps.sh
set -eu
. "$(dirname "$0")/lib.sh"
mkdir -p "$BUILD"
# shellcheck disable=SC2086
need_pkgs $HOST_PKGS

# a tree pinned to another suite (7.3) is downloaded by tree.sh, never
# installed
[ -z "$(cfg LINUX_DEB_SUITE)" ] || exit 0
pkg=$(cfg LINUX_DEB_PACKAGE)
want=$(cfg LINUX_DEB_VERSION)
have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
if [ "$have" != "$want" ]; then
	[ "$(id -u)" -eq 0 ] ||
		die "$pkg is '${have:-not installed}', need $want; run: apt-get install -y $pkg=$want"
	say "installing $pkg=$want (installed: ${have:-none})"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --allow-downgrades \
		"$pkg=$want" >"$BUILD/apt.log" 2>&1 ||
		die "cannot install $pkg=$want (log: $BUILD/apt.log)"
fi
