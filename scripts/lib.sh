# Shared shell functions for the host-side scripts.  Source it; it sets
# TOP (the repository) and BUILD (where everything generated goes) and
# reads the pinned versions from config.mk.
# shellcheck shell=sh

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}

# config.mk is make syntax "NAME := value"; read it without make.
cfg() {
	sed -n "s/^$1[[:space:]]*:=[[:space:]]*//p" "$TOP/config.mk"
}

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

say() {
	printf '%s: %s\n' "${0##*/}" "$*"
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

# Packages the host needs to build kernels, the image and run guests.
HOST_PKGS="build-essential bc flex bison libelf-dev libssl-dev cpio xz-utils
ccache qemu-system-x86 ovmf busybox-static rt-tests linux-perf python3
gnuplot-nox sparse valgrind git"

# One kernel build at a time on this 2-core machine: every script that
# runs make in a kernel tree takes this lock first (held until it exits).
kbuild_lock() {
	mkdir -p "$BUILD"
	exec 9>"$BUILD/.kbuild.lock"
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
		kind == "patched" || g != "patched" { print }' "${2:-$TOP/series/series}"
}

# series_id KIND: the identity of the series a KIND kernel is built from,
# the first 12 hex digits of the sha256 of its patch files in git am order
# (build-kernel.sh puts it in the kernel's version line, and the bench's
# report reads it back from each boot).
series_id() {
	[ -f "$TOP/series/series" ] || die "series/series is missing"
	for p in $(series_patches "$1"); do
		cat "$TOP/series/$p"
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
