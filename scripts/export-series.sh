#!/bin/sh
# export-series.sh: write the commits of build/linux (base..work) back to
# series/ as patches, with the series file (git am order, in the groups
# it had: "both" kernels or "patched" only) and the cover letter
# (series/cover.txt plus shortlog and diffstat).  Output is stable: an
# unchanged commit gives a byte-identical patch.  Usage:
# scripts/export-series.sh
set -eu
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -d "$TREE/.git" ] || die "$BD/linux is missing: run 'make tree'"
[ -z "$(git -C "$TREE" status --porcelain -uno)" ] ||
	die "$BD/linux has uncommitted changes: commit them first"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$TREE" -c diff.suppressBlankEmpty=true format-patch -q --zero-commit --no-signature --no-numbered \
	--subject-prefix=PATCH -o "$tmp" base..work
# Each patch keeps the group of series/series it was in, known by the
# name format-patch gives it less its number; a new patch joins the group
# of the patch before it.
awk '/^# ---- / { g = $0; next } /^#/ || /^[[:space:]]*$/ { next }
	{ sub(/^[0-9]+-/, ""); print $0 "\t" g }' "$SERIES_DIR/series" >"$tmp/groups"
{
	sed -n '1,/^# ---- /{/^# ---- /d;p}' "$SERIES_DIR/series"
	cur= group="# ---- both: fixes"
	for p in "$tmp"/*.patch; do
		name=$(basename "$p")
		g=$(awk -F '\t' -v n="${name#*-}" '$1 == n { print $2; exit }' "$tmp/groups")
		[ -z "$g" ] || group=$g
		[ "$group" = "$cur" ] || echo "$group"
		cur=$group
		echo "$name"
	done
} >"$tmp/series"
grep -q '^# ---- both' "$tmp/series" || die "$SD/series has no '# ---- both' group: the stock kernel would be empty"

{
	echo "Subject: [PATCH 0/$(git -C "$TREE" rev-list --count base..work)] sched/idle: pick idle states from predicted interrupts"
	echo
	cat "$SERIES_DIR/cover.txt" 2>/dev/null || true
	echo
	# The measured headline, as make bench last wrote it: never typed in.
	if [ -f "$TOP/$RESULTS" ]; then
		grep -m1 '^- Date:' "$TOP/$RESULTS" | sed "s|^- |Benchmark ($RESULTS) |"
		sed -n '/^## Headline/,/^## /{/^## /d;p}' "$TOP/$RESULTS"
	fi
	git -C "$TREE" shortlog base..work
	git -C "$TREE" diff --stat base work
} >"$tmp/0000-cover-letter.patch"

rm -f "$SERIES_DIR"/*.patch
cp "$tmp"/*.patch "$tmp/series" "$SERIES_DIR/"
# build/linux now is what series/ describes: tree.sh need not reapply it
# (it makes the stock worktree again when a patch of a "both" group
# changed).
cat "$SERIES_DIR/series" "$SERIES_DIR"/*.patch | sha256sum | cut -c1-16 >"$TREE/.git/series-applied"
say "exported $(ls "$tmp"/0*.patch | grep -vc 0000-cover) patches ($(series_patches stock | wc -l) in the stock kernel) to $SD"
