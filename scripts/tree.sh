#!/bin/sh
# tree.sh: build/linux = the pinned Debian linux-source tree as a git repo
# (commit tagged "base"), with every patch of series/ applied by git am on
# branch "work"; the stock kernel, base with the patches of the "both"
# groups only, is applied the same way in the worktree build/linux-stock,
# whose head is tagged "stock".  Idempotent: nothing is redone while
# series/ is unchanged.  Usage: scripts/tree.sh
set -eu
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
STOCK=$BUILD/linux-stock
SERIES=$SERIES_DIR/series
tarball=$(cfg LINUX_TARBALL)
pkg=$(cfg LINUX_DEB_PACKAGE)
want=$(cfg LINUX_DEB_VERSION)
upstream=$(cfg LINUX_UPSTREAM_VERSION)

suite=$(cfg LINUX_DEB_SUITE)

mkdir -p "$BUILD"
if [ -z "$suite" ]; then
	# the installed package (scripts/deps.sh installs it)
	have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
	[ "$have" = "$want" ] ||
		die "config.mk pins $pkg $want but ${have:-none} is installed (run scripts/deps.sh or: apt-get install $pkg=$want)"
	[ -f "$tarball" ] || die "$tarball is missing although $pkg $have is installed"
else
	# downloaded from its suite and unpacked in $BUILD/src; nothing is
	# installed, and apt's state for it stays there too
	src=$BUILD/src
	tarball=$src/root/$tarball
	if [ ! -f "$tarball" ] || [ "$(cat "$src/version" 2>/dev/null)" != "$want" ]; then
		rm -rf "$src"
		mkdir -p "$src/root"
		say "downloading $pkg $want from $suite"
		deb=$(deb_download "$src" "$pkg" "$want" "$suite")
		dpkg-deb -x "$deb" "$src/root" || die "cannot unpack $deb"
		[ -f "$tarball" ] || die "$deb has no ${tarball#"$src/root/"}"
		echo "$want" >"$src/version"
	fi
fi

series_hash() {
	cat "$SERIES" "$SERIES_DIR"/*.patch 2>/dev/null | sha256sum | cut -c1-16
}

git_tree() {
	git -C "$TREE" -c user.name=idle-series -c user.email=idle@localhost \
		-c commit.gpgsign=false "$@"
}

if [ ! -d "$TREE/.git" ] || ! git -C "$TREE" rev-parse -q --verify base >/dev/null; then
	say "extracting $tarball ($want)"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$tarball" -C "$TREE.tmp" --strip-components=1
	v=$(make -s -C "$TREE.tmp" kernelversion 2>/dev/null)
	[ "$v" = "$upstream" ] ||
		die "$tarball holds Linux $v, config.mk expects $upstream for $pkg $want"
	mv "$TREE.tmp" "$TREE"
	git_tree init -q -b work
	git_tree add -A -f .
	git_tree commit -q -m "Linux $upstream from Debian $pkg $want"
	git_tree tag base
fi

v=$(make -s -C "$TREE" kernelversion 2>/dev/null)
[ "$v" = "$upstream" ] ||
	die "$BD/linux holds Linux $v, config.mk pins $upstream: remove $BD/linux and rerun"

apply_all() { # DIR KIND: git am the patches of KIND in worktree DIR
	for p in $(series_patches "$2" "$SERIES"); do
		[ -f "$SERIES_DIR/$p" ] || die "series lists $p, which is not in ${SERIES_DIR#"$TOP"/}/"
		git -C "$1" -c user.name=idle-series -c user.email=idle@localhost \
			-c commit.gpgsign=false am -q --keep-cr --committer-date-is-author-date \
			"$SERIES_DIR/$p" >"$BUILD/git-am.log" 2>&1 || {
			git -C "$1" am --abort >/dev/null 2>&1 || true
			die "$SD/$p does not apply to Linux $upstream ($want) for the $2 kernel; log: $BUILD/git-am.log"
		}
	done
}

[ -f "$SERIES" ] || die "${SERIES_DIR#"$TOP"/}/series is missing"
want_hash=$(series_hash)
stamp=$TREE/.git/series-applied
if [ "$(cat "$stamp" 2>/dev/null)" != "$want_hash" ]; then
	[ -z "$(git -C "$TREE" status --porcelain -uno)" ] ||
		die "$BD/linux has uncommitted changes; commit them and run 'make series', or discard them"
	say "applying $SD to $BD/linux"
	git_tree am --abort >/dev/null 2>&1 || true
	git_tree checkout -q -B work base
	apply_all "$TREE" patched
	echo "$want_hash" >"$stamp"
fi

# The stock kernel: base and the "both" groups, in their own worktree.
stock_hash=$(for p in $(series_patches stock "$SERIES"); do cat "$SERIES_DIR/$p"; done | sha256sum | cut -c1-16)
stock_stamp=$TREE/.git/stock-applied
if [ ! -e "$STOCK/.git" ]; then
	rm -rf "$STOCK"
	git_tree worktree prune
	git_tree worktree add -q --detach "$STOCK" base
	rm -f "$stock_stamp"
fi
if [ "$(cat "$stock_stamp" 2>/dev/null)" != "$stock_hash" ] ||
	! git -C "$TREE" rev-parse -q --verify stock >/dev/null; then
	say "applying the \"both\" groups of $SD to $BD/linux-stock"
	git -C "$STOCK" am --abort >/dev/null 2>&1 || true
	git -C "$STOCK" checkout -q --detach base
	apply_all "$STOCK" stock
	git_tree tag -f stock "$(git -C "$STOCK" rev-parse HEAD)" >/dev/null
	echo "$stock_hash" >"$stock_stamp"
fi
if [ "$(git -C "$STOCK" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse stock)" ]; then
	git -C "$STOCK" checkout -q --detach stock
fi
say "tree ready: $(git -C "$TREE" rev-list --count base..work) patches, stock = base+$(git -C "$TREE" rev-list --count base..stock) (the \"both\" groups)"
