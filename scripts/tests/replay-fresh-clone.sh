#!/bin/sh
# replay-fresh-clone.sh: the README's replay-only path, as written, in a
# fresh clone of this repository's HEAD (no build/, no make tree):
# `make -C idle-loop`, then `build/idle-loop/replay --states STATES TRACE`
# on the committed record.sh recording of idle-loop/tests/gov-traces/menu.
# The build must take its kernel files from scripts/replay-src.sh, and the
# replay must print its kernel row and say that the table has no power
# model.
#   replay-fresh-clone.sh DIR            the check (DIR: the clone's parent)
#   replay-fresh-clone.sh --control DIR  the same with one file the replay
#       compiles left out of the extraction: must fail
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
drop=
if [ "${1:-}" = --control ]; then
	drop=kernel/sched/idle_select.h
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--control] DIR" >&2; exit 2; }
D=$1
rm -rf "$D"
mkdir -p "$D"
git clone -q "$TOP" "$D/clone"
C=$D/clone
[ ! -e "$C/build" ] || { echo "FAIL: the clone has a build/"; exit 1; }
if ! (cd "$C" && env -u KSRC LINUX=6.12 REPLAY_SRC_DROP="$drop" make -C idle-loop) >"$D/make.log" 2>&1; then
	echo "FAIL: make -C idle-loop failed in a fresh clone: $(grep -a -E 'error:|No rule' "$D/make.log" | head -1)"
	exit 1
fi
[ -f "$C/build/replay-src/linux/.replay-src" ] ||
	{ echo "FAIL: the clone's replay was not built from scripts/replay-src.sh's files"; exit 1; }
g=$C/idle-loop/tests/gov-traces/menu
xz -dc "$g/trace.txt.xz" >"$D/trace.txt"
if ! (cd "$C" && build/idle-loop/replay --states "$g/states" "$D/trace.txt") >"$D/replay.out" 2>&1; then
	echo "FAIL: the replay failed in a fresh clone: $(tail -1 "$D/replay.out")"
	exit 1
fi
grep -q '^kernel ' "$D/replay.out" || { echo "FAIL: no kernel row in $D/replay.out"; exit 1; }
grep -q '^energy_mJ, oracle_mJ, ratio: - (the table .* has no power model' "$D/replay.out" ||
	{ echo "FAIL: the replay does not say that its table has no power model"; exit 1; }
echo "fresh clone: make -C idle-loop and the --states replay ran ($(grep -c . "$D/replay.out") lines)"
