# Shared shell functions for the host-side scripts of scripts/.  Source
# it; it sources shared/lib.sh (TOP, LINUX, BUILD, SERIES_DIR, RESULTS,
# SD, BD, GUEST_VCPUS, die, say) and reads the pinned versions from
# config.mk.
# shellcheck shell=sh

# (a script one level deeper, scripts/tests/, sets TOP before sourcing)
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TOP/shared/lib.sh"

# config.mk is make syntax "NAME := value"; read it without make.  A
# LINUX_* name is the tree's: LINUX_7.3_* for 7.3.
cfg() {
	case $LINUX,$1 in
	6.12,*) set -- "$1" ;;
	*,LINUX_*) set -- "LINUX_${LINUX}_${1#LINUX_}" ;;
	esac
	sed -n "s/^$1[[:space:]]*:=[[:space:]]*//p" "$TOP/config.mk"
}

# need_pkgs PKG... : install missing Debian packages, or tell how.
need_pkgs() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages; run: apt-get install -y$missing"
	fi
	say "installing:$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing >"$BUILD/apt.log" 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive apt-get update -q \
			>>"$BUILD/apt.log" 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $missing >>"$BUILD/apt.log" 2>&1; } ||
		die "apt-get install$missing failed (log: $BUILD/apt.log)"
}

# deb_download DIR PKG VERSION [SUITE]: download the Debian package PKG
# at VERSION into DIR with apt-get and a sources file and apt state of
# DIR's own (nothing installed, the machine's apt untouched; no root);
# from SUITE, or without one from bookworm and its updates (6.12's pin
# is a bookworm point or security update).  Prints the .deb's path; dies
# with the log DIR/apt.log on any failure.
deb_download() {
	dd_dir=$1 dd_pkg=$2 dd_want=$3 dd_suite=${4:-}
	command -v apt-get >/dev/null || die "no apt-get to download $dd_pkg $dd_want"
	dd_key=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$dd_key" ] || die "no $dd_key (package debian-archive-keyring) to check $dd_pkg $dd_want"
	rm -rf "$dd_dir/apt" "$dd_dir"/*.deb
	mkdir -p "$dd_dir/apt/lists/partial" "$dd_dir/apt/cache/archives/partial"
	if [ -z "$dd_suite" ]; then
		printf 'deb [signed-by=%s] http://deb.debian.org/debian bookworm bookworm-updates main\ndeb [signed-by=%s] http://deb.debian.org/debian-security bookworm-security main\n' \
			"$dd_key" "$dd_key"
	else
		printf 'deb [signed-by=%s] http://deb.debian.org/debian %s main\n' "$dd_key" "$dd_suite"
	fi >"$dd_dir/sources.list"
	set -- -o Dir::Etc::SourceList="$dd_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$dd_dir/apt/lists" -o Dir::Cache="$dd_dir/apt/cache" \
		-o Debug::NoLocking=1
	apt-get -q "$@" update >"$dd_dir/apt.log" 2>&1 ||
		die "apt-get update${dd_suite:+ for $dd_suite} failed (log: $dd_dir/apt.log)"
	(cd "$dd_dir" && apt-get -q "$@" download "$dd_pkg=$dd_want") >>"$dd_dir/apt.log" 2>&1 ||
		die "$dd_pkg $dd_want cannot be downloaded${dd_suite:+ from $dd_suite} (log: $dd_dir/apt.log)"
	dd_deb=$(ls "$dd_dir"/*.deb)
	dd_got=$(dpkg-deb -f "$dd_deb" Version)
	[ "$dd_got" = "$dd_want" ] || die "$dd_deb is version $dd_got, config.mk pins $dd_want"
	echo "$dd_deb"
}

# debian_config OUT: Debian's own kernel config of the 6.12 pin
# (config.mk: the file LINUX_DEB_CONFIG of the package
# LINUX_DEB_CONFIG_PACKAGE at LINUX_DEB_VERSION), uncompressed into OUT.
# Read from the installed package when it is that version, else from the
# package downloaded (deb_download; no root) and kept in
# build/debian-config.
debian_config() {
	dc_linux=$LINUX
	LINUX=6.12
	dc_pkg=$(cfg LINUX_DEB_CONFIG_PACKAGE) dc_file=$(cfg LINUX_DEB_CONFIG)
	dc_want=$(cfg LINUX_DEB_VERSION)
	LINUX=$dc_linux
	dc_dir=$TOP/build/debian-config
	dc_have=$(dpkg-query -W -f='${Status} ${Version}' "$dc_pkg" 2>/dev/null || true)
	if [ "$dc_have" = "install ok installed $dc_want" ]; then
		dc_src=/$dc_file
	else
		dc_src=$dc_dir/$dc_want/$dc_file
		if [ ! -f "$dc_src" ]; then
			dc_deb=$(deb_download "$dc_dir" "$dc_pkg" "$dc_want")
			rm -rf "${dc_dir:?}/${dc_want:?}"
			dpkg-deb -x "$dc_deb" "$dc_dir/$dc_want" ||
				die "cannot unpack $dc_deb"
		fi
	fi
	[ -f "$dc_src" ] || die "$dc_pkg $dc_want has no $dc_file"
	xz -dc "$dc_src" >"$1" || die "cannot read $dc_src"
}

# Packages the host needs to build kernels, the image and run guests.
HOST_PKGS="build-essential bc flex bison libelf-dev libssl-dev cpio xz-utils
ccache qemu-system-x86 ovmf busybox-static rt-tests linux-perf python3
gnuplot-nox sparse valgrind git"

# One kernel build at a time on this 2-core machine: every script that
# runs make in a kernel tree, of either tree, takes this lock first (held
# until it exits).
kbuild_lock() {
	mkdir -p "$TOP/build"
	exec 9>"$TOP/build/.kbuild.lock"
	if ! flock -n 9; then
		echo "${0##*/}: waiting for another kernel build to finish" >&2
		flock 9
	fi
}

# series_patches KIND [SERIES]: the patches of KIND (stock: the "both"
# groups of series/series; patched: every patch), in git am order.
series_patches() {
	awk -v kind="$1" '
		/^# ---- both/ { g = "both"; next }
		/^# ---- patched/ { g = "patched"; next }
		/^#/ || /^[[:space:]]*$/ { next }
		kind == "patched" || g != "patched" { print }' "${2:-$SERIES_DIR/series}"
}

# series_id KIND: the identity of the series a KIND kernel is built from,
# the first 12 hex digits of the sha256 of its patch files in git am order
# (build-kernel.sh puts it in the kernel's version line, and the bench's
# report reads it back from each boot).
series_id() {
	[ -f "$SERIES_DIR/series" ] || die "$SERIES_DIR/series is missing"
	for p in $(series_patches "$1"); do
		cat "$SERIES_DIR/$p"
	done | sha256sum | cut -c1-12
}

# series_kunit PATCH...: what the patches add to KUnit.  Sets kunit_suites
# (the suite names, space-separated; a suite's name is the first .name
# after its declaration) and kunit_cases (the KUNIT_CASE lines added, net
# of those removed).  A missing patch file is an error.
series_kunit() {
	kunit_suites='' kunit_cases=0
	for f in "$@"; do
		[ -f "$f" ] || die "no patch $f"
		kunit_suites="$kunit_suites $(awk '/^\+static struct kunit_suite / { s = 1; next }
			s && /^\+[[:space:]]*\.name = "/ { split($0, q, "\""); print q[2]; s = 0 }' "$f")"
		added=$(grep -c '^+[[:space:]]*KUNIT_CASE' "$f" || true)
		removed=$(grep -c '^-[[:space:]]*KUNIT_CASE' "$f" || true)
		kunit_cases=$((kunit_cases + added - removed))
	done
	# shellcheck disable=SC2086,SC2116
	kunit_suites=$(echo $kunit_suites)
}
