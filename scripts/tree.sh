#!/bin/sh
# tree.sh: build/linux = the pinned Debian linux-source tree as a git repo
# (commit tagged "base"), with series/ applied by git am on branch "work";
# the commit after the last test-infrastructure patch is tagged "stock" and
# checked out in build/linux-stock.  Idempotent: nothing is redone while
# series/ is unchanged.  Usage: scripts/tree.sh
set -eu
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
STOCK=$BUILD/linux-stock
SERIES=$TOP/series/series
tarball=$(cfg LINUX_TARBALL)
pkg=$(cfg LINUX_DEB_PACKAGE)
want=$(cfg LINUX_DEB_VERSION)
upstream=$(cfg LINUX_UPSTREAM_VERSION)

mkdir -p "$BUILD"
have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
[ "$have" = "$want" ] ||
	die "config.mk pins $pkg $want but ${have:-none} is installed (run scripts/deps.sh or: apt-get install $pkg=$want)"
[ -f "$tarball" ] || die "$tarball is missing although $pkg $have is installed"

series_hash() {
	cat "$SERIES" "$TOP"/series/*.patch 2>/dev/null | sha256sum | cut -c1-16
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
	die "build/linux holds Linux $v, config.mk pins $upstream: remove build/linux and rerun"

want_hash=$(series_hash)
stamp=$TREE/.git/series-applied
if [ "$(cat "$stamp" 2>/dev/null)" != "$want_hash" ]; then
	[ -z "$(git -C "$TREE" status --porcelain -uno)" ] ||
		die "build/linux has uncommitted changes; commit them and run 'make series', or discard them"
	say "applying series/ to build/linux"
	git_tree am --abort >/dev/null 2>&1 || true
	git_tree checkout -q -B work base
	git_tree tag -d stock >/dev/null 2>&1 || true
	stock_at=base
	if [ -f "$SERIES" ]; then
		while IFS= read -r line; do
			case "$line" in
			"# ---- stock"*) stock_at=$(git -C "$TREE" rev-parse HEAD) ;;
			"#"* | "") ;;
			*)
				[ -f "$TOP/series/$line" ] || die "series lists $line, which is not in series/"
				git_tree am -q --keep-cr "$TOP/series/$line" >"$BUILD/git-am.log" 2>&1 || {
					git_tree am --abort >/dev/null 2>&1 || true
					die "series/$line does not apply to Linux $upstream ($want); log: $BUILD/git-am.log"
				}
				;;
			esac
		done <"$SERIES"
	fi
	git_tree tag -f stock "$stock_at" >/dev/null
	echo "$want_hash" >"$stamp"
fi

git -C "$TREE" rev-parse -q --verify stock >/dev/null || git_tree tag stock base
if [ ! -e "$STOCK/.git" ]; then
	rm -rf "$STOCK"
	git_tree worktree prune
	git_tree worktree add -q --detach "$STOCK" stock
fi
if [ "$(git -C "$STOCK" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse stock)" ]; then
	git -C "$STOCK" checkout -q --detach stock
fi
say "tree ready: $(git -C "$TREE" rev-list --count base..work) patches, stock = base+$(git -C "$TREE" rev-list --count base..stock)"
