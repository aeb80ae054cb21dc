# lib.sh: what the host-side shell scripts of every folder share, those
# of scripts/ (through scripts/lib.sh) and guest-image/'s launcher and
# image builder.  Source it; it sets TOP (the repository), LINUX (the
# tree: 6.12, the default, or 7.3), BUILD (where everything generated for
# that tree goes: build/, or build/7.3/), SERIES_DIR (the tree's patch
# series: series/, or series-7.3/), RESULTS (the tree's bench report:
# docs/results.md, or docs/results-7.3.md), SD and BD (the two as
# messages name them) and GUEST_VCPUS, and defines die and say.
# shellcheck shell=sh

# (a script one level deeper, scripts/tests/, sets TOP before sourcing)
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
LINUX=${LINUX:-6.12}
case $LINUX in
6.12)
	BUILD=${BUILD:-$TOP/build}
	SERIES_DIR=${SERIES_DIR:-$TOP/series}
	RESULTS=docs/results.md ;;
7.3)
	BUILD=${BUILD:-$TOP/build/7.3}
	SERIES_DIR=${SERIES_DIR:-$TOP/series-7.3}
	RESULTS=docs/results-7.3.md ;;
*)
	printf '%s: error: LINUX=%s: the trees are 6.12 and 7.3\n' "${0##*/}" "$LINUX" >&2
	exit 1 ;;
esac
export LINUX
SD=${SERIES_DIR#"$TOP"/} BD=${BUILD#"$TOP"/}

# the vCPU counts a guest boots with, written here only:
# guest-image/run-qemu.sh -c takes only these, make test boots the
# patched kernel on each, and the bench's configurations and --vcpus
# read them from this line (perf-scripts/idlebench/configs.py)
GUEST_VCPUS="1 2 4"

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

say() {
	printf '%s: %s\n' "${0##*/}" "$*"
}
