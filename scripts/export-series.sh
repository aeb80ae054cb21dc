#!/bin/sh
# export-series.sh: write the commits of build/linux (base..work) back to
# series/ as patches, with the series file (git am order; the stock line
# after the commit tagged "stock") and the cover letter (series/cover.txt
# plus shortlog and diffstat).  Output is stable: an unchanged commit
# gives a byte-identical patch.  Usage: scripts/export-series.sh
set -eu
. "$(dirname "$0")/lib.sh"

TREE=$BUILD/linux
[ -d "$TREE/.git" ] || die "build/linux is missing: run 'make tree'"
[ -z "$(git -C "$TREE" status --porcelain -uno)" ] ||
	die "build/linux has uncommitted changes: commit them first"
git -C "$TREE" rev-parse -q --verify stock >/dev/null || die "build/linux has no 'stock' tag"
if ! git -C "$TREE" merge-base --is-ancestor stock work; then
	# A rebase rewrote the stock commit: follow it by its subject.
	subject=$(git -C "$TREE" log -1 --format=%s stock)
	moved=$(git -C "$TREE" log --format='%H %s' base..work | grep -F " $subject" | tail -1 | cut -d' ' -f1)
	[ -n "$moved" ] || die "the 'stock' tag ('$subject') is not on branch work: retag it (git -C build/linux tag -f stock COMMIT)"
	git -C "$TREE" tag -f stock "$moved" >/dev/null
	say "moved the stock tag to $(git -C "$TREE" rev-parse --short "$moved") ($subject)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$TREE" -c diff.suppressBlankEmpty=true format-patch -q --zero-commit --no-signature --no-numbered \
	--subject-prefix=PATCH -o "$tmp" base..work
nstock=$(git -C "$TREE" rev-list --count base..stock)
{
	echo "# Patch order for git am.  Patches above the stock line are test"
	echo "# infrastructure that both kernels carry."
	i=0
	[ "$nstock" -eq 0 ] && echo "# ---- stock kernel: everything above ----"
	for p in "$tmp"/*.patch; do
		basename "$p"
		i=$((i + 1))
		[ "$i" -eq "$nstock" ] && echo "# ---- stock kernel: everything above ----"
	done
} >"$tmp/series"

{
	echo "Subject: [PATCH 0/$(git -C "$TREE" rev-list --count base..work)] sched/idle: pick idle states from predicted interrupts"
	echo
	cat "$TOP/series/cover.txt" 2>/dev/null || true
	echo
	# The measured headline, as make bench last wrote it: never typed in.
	if [ -f "$TOP/docs/results.md" ]; then
		grep -m1 '^- Date:' "$TOP/docs/results.md" | sed 's/^- /Benchmark (docs\/results.md) /'
		sed -n '/^## Headline/,/^## /{/^## /d;p}' "$TOP/docs/results.md"
	fi
	git -C "$TREE" shortlog base..work
	git -C "$TREE" diff --stat base work
} >"$tmp/0000-cover-letter.patch"

rm -f "$TOP"/series/*.patch
cp "$tmp"/*.patch "$tmp/series" "$TOP/series/"
# The tree now is what series/ describes: tree.sh need not reapply it.
cat "$TOP/series/series" "$TOP"/series/*.patch | sha256sum | cut -c1-16 >"$TREE/.git/series-applied"
say "exported $(ls "$tmp"/0*.patch | grep -vc 0000-cover) patches ($nstock in stock) to series/"
