#!/bin/sh
# config-check.sh: every fragment of guest-image/configs resolves for every
# kernel it is used with, by a Kconfig pass alone (no build): the base
# config, the fragments merged with merge_config.sh -m, olddefconfig, then
# every line asked must be in the .config as asked (CONFIG_X=n: CONFIG_X
# not set).  The uses, from the scripts that configure each kernel:
#   stock          build-kernel.sh stock: tinyconfig + tree-6.12 base stock, build/linux-stock
#   patched        build-kernel.sh patched: tinyconfig + tree-6.12 base stock patched, build/linux
#   patched-debug  test-robust.sh (build-kernel.sh patched debug.config)
#   deb-stock      build-deb.sh stock: Debian's config + deb, only the
#                  options the tree defines, the stock tree
#   deb-patched    build-deb.sh patched: Debian's config + deb, build/linux
#                  The two deb uses are also diffed against Debian's config
#                  (debian_config): every option of it whose value changed
#                  must be named on a line of the fragment, but for the
#                  values Kconfig reads from the host's toolchain
#                  (compiler version text, pahole, rustc, bindgen; the
#                  compiler is the same gcc-12, its name not)
#   arm64          arm64.sh: ARCH=arm64 tinyconfig + arm64, on build/linux
#                  (arm64.sh builds the proposal alone; the fragment asks
#                  only for the proposal's options and Kconfig's own)
#   stock-7.3, patched-7.3  the same as stock and patched on the 7.3 tree
#                  (build/7.3/), with tree-7.3; left out when that tree
#                  was never made
# A fragment that no use names fails too.  The uses run side by side, each
# in its scratch object directory build/config-check/NAME; the base configs
# are kept while the trees' Kconfig files and the compiler are the same.
#   config-check.sh              every use
#   config-check.sh -x FRAG      only "patched", with FRAG merged last (the
#                                control: an option that does not exist or
#                                cannot be set must fail it)
#   config-check.sh -d FRAG      only "deb-patched", with FRAG in place of
#                                deb.config (the control: a change of
#                                Debian's config that FRAG does not name)
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
# shellcheck source=../lib.sh
. "$TOP/scripts/lib.sh"
die() { echo "FAIL: $*"; exit 1; }
C=$TOP/guest-image/configs
O=$BUILD/config-check
# NAME TREE ARCH BASE FRAGMENT...
uses="stock linux-stock x86 tinyconfig tree-6.12 base stock
patched linux x86 tinyconfig tree-6.12 base stock patched
patched-debug linux x86 tinyconfig tree-6.12 base stock patched debug
deb-stock linux-stock x86 debian deb
deb-patched linux x86 debian deb
arm64 linux arm64 tinyconfig arm64
stock-7.3 7.3/linux-stock x86 tinyconfig tree-7.3 base stock
patched-7.3 7.3/linux x86 tinyconfig tree-7.3 base stock patched"
# the 7.3 uses only where that tree was made (make tree LINUX=7.3)
[ -d "$BUILD/7.3/linux" ] || uses=$(echo "$uses" | grep -v ' 7\.3/')
extra="" debfrag=""
case "${1:-}" in
-x)
	extra=${2:?usage: config-check.sh [-x FRAGMENT | -d FRAGMENT]}
	[ -f "$extra" ] || die "no fragment $extra"
	uses=$(echo "$uses" | grep '^patched ')
	;;
-d)
	debfrag=${2:?usage: config-check.sh [-x FRAGMENT | -d FRAGMENT]}
	[ -f "$debfrag" ] || die "no fragment $debfrag"
	uses=$(echo "$uses" | grep '^deb-patched ')
	;;
esac
mkdir -p "$O"
for t in linux linux-stock; do
	[ -d "$BUILD/$t" ] || die "$BUILD/$t is missing: run 'make tree' first"
done

# base TREE ARCH TARGET: the tree's TARGET config (tinyconfig, defconfig)
# in $O/base-TREE-ARCH-TARGET.config, made again only when the key changed
base() {
	kept=$O/base-$(echo "$1" | tr / -)-$2-$3
	if [ "$3" = debian ]; then
		# a file, not a Kconfig target: olddefconfig runs on it per use
		debian_config "$kept.config"
		return 0
	fi
	key=$({ find "$BUILD/$1" \( -name 'Kconfig*' -o -path '*/configs/*' \) -type f | LC_ALL=C sort | xargs cat
		gcc --version; } | sha256sum | cut -c1-16)
	[ ! -f "$kept.config" ] || [ "$(cat "$kept.key" 2>/dev/null)" != "$key" ] || return 0
	# one object directory per target: the targets of a tree run side by side
	mkdir -p "$kept.obj"
	make -s -C "$BUILD/$1" O="$kept.obj" ARCH="$2" "$3" >"$kept.log" 2>&1 ||
		die "$1 $2 $3 failed (log: $kept.log)"
	cp "$kept.obj/.config" "$kept.config"
	echo "$key" >"$kept.key"
}

# deb_diff DEBIAN FINAL FRAGMENT...: the options of DEBIAN (set, or "is
# not set") whose value in FINAL differs, not named on a CONFIG_ line of a
# FRAGMENT and not read from the toolchain, as "CONFIG_X=old->new"
deb_diff() {
	awk '
	FNR == 1 { k++ }
	k > 2 {
		if (match($0, /^CONFIG_[A-Za-z0-9_]+/)) named[substr($0, RSTART, RLENGTH)] = 1
		next
	}
	/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s); v = substr($0, length(s) + 2) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { s = $2; v = "n" }
	!/^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set$/ { next }
	k == 1 { deb[s] = v }
	k == 2 { fin[s] = v }
	END {
		for (s in deb) {
			v = (s in fin) ? fin[s] : "n"
			if (v == deb[s] || s in named) continue
			if (s ~ /^CONFIG_(CC_VERSION_TEXT|PAHOLE_[A-Z0-9_]+|RUSTC_[A-Z0-9_]+|BINDGEN_[A-Z0-9_]+)$/) continue
			print s "=" deb[s] "->" v
		}
	}' "$@" | sort
}

# resolve NAME TREE ARCH TARGET FRAGMENT...: one use, judged
resolve() {
	name=$1 src=$BUILD/$2 arch=$3 base=$O/base-$(echo "$2" | tr / -)-$3-$4.config
	shift 4
	out=$O/$name
	mkdir -p "$out"
	if [ "$name" = deb-stock ]; then
		# as build-deb.sh: the stock tree leaves out what it does not define
		find "$src" -name 'Kconfig*' -exec sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]*\).*/CONFIG_\2/p' {} + |
			sort -u >"$out/symbols"
		grep '^CONFIG_' "$1" | while IFS= read -r line; do
			if grep -qx "${line%%=*}" "$out/symbols"; then echo "$line"; fi
		done >"$out/deb-stock.fragment"
		set -- "$out/deb-stock.fragment"
	fi
	{
		cp "$base" "$out/.config" &&
		(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$@") &&
		make -s -C "$src" O="$out" ARCH="$arch" olddefconfig
	} >"$out/kconfig.log" 2>&1 || { echo "FAIL $name: Kconfig pass failed (log: $out/kconfig.log)"; return 0; }
	wrong=
	for f in "$@"; do
		fn=$(basename "$f")
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=n) ! grep -q "^${line%=n}=" "$out/.config" ;;
			CONFIG_*) grep -qxF "$line" "$out/.config" ;;
			*) true ;;
			esac || wrong="$wrong $line ($fn: $(grep -m1 "^${line%%=*}=\|^# ${line%%=*} is not set" \
				"$out/.config" || echo absent))"
		done <"$f"
	done
	case $name in deb-*) unnamed=$(deb_diff "$base" "$out/.config" "$@") ;; *) unnamed= ;; esac
	if [ -n "$wrong" ]; then
		echo "FAIL $name: dropped or changed:$wrong (see $out/.config)"
	elif [ -n "$unnamed" ]; then
		echo "FAIL $name: Debian's config changed where the fragment does not say:" \
			"$(echo "$unnamed" | tr '\n' ' ')(see $out/.config)"
	else
		echo "ok $name: $(cat "$@" | grep -c '^CONFIG_') options as asked"
	fi
}

bad=0
[ -n "$extra$debfrag" ] || for f in "$C"/*.config; do
	n=$(basename "$f" .config)
	echo "$uses" | grep -q " $n\( \|$\)" || { echo "FAIL $n.config: no kernel uses it in config-check.sh"; bad=1; }
done
# the base configs first (side by side), then the uses
echo "$uses" | cut -d' ' -f2-4 | sort -u | {
	while read -r tree arch target; do
		base "$tree" "$arch" "$target" >"$O/base-$(echo "$tree" | tr / -)-$arch-$target.result" &
	done
	wait
}
cat "$O"/base-*.result
! grep -q FAIL "$O"/base-*.result || exit 1
echo "$uses" | {
	while read -r name tree arch target frags; do
		set --
		for f in $frags; do
			if [ -n "$debfrag" ] && [ "$f" = deb ]; then set -- "$@" "$debfrag"
			else set -- "$@" "$C/$f.config"; fi
		done
		[ -z "$extra" ] || set -- "$@" "$extra"
		resolve "$name" "$tree" "$arch" "$target" "$@" >"$O/$name.result" &
	done
	wait
}
for name in $(echo "$uses" | cut -d' ' -f1); do
	cat "$O/$name.result" 2>/dev/null || echo "FAIL $name: no result"
	grep -q '^ok ' "$O/$name.result" || bad=1
done
[ "$bad" = 0 ] || exit 1
echo "config-check: every fragment resolves for every kernel it is used with"
