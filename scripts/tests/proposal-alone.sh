#!/bin/sh
# proposal-alone.sh: the proposal, the first "patched" group of
# series/series, applies to the pinned tree with only the patches before
# it, and its added lines name nothing that exists to measure it (the
# emulated states, the interrupt generator, the cost probe, trace events,
# the RFC rule and the knobs of the test kernels).  That every prefix
# builds is series-builds' check (scripts/build-each-patch.sh).
#   proposal-alone.sh            judge series/
#   proposal-alone.sh --judge PATCH...   only the names, on these patches
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/lib.sh"
WORDS='cpuidle_cost|cpuidle_emu|CPUIDLE_EMU|CPUIDLE_COST|hpet_irqgen|trace_sched_idle|trace_irq_predict|CREATE_TRACE_POINTS|IRQ_PREDICT_RFC|irq_predict_rule|sched_idle_rule|\bsched_idle_learn\b|debugfs'

judge() { # PATCH...: the lines they add name no test infrastructure
	bad=
	for p in "$@"; do
		hits=$(grep -E '^\+' "$p" | grep -Eo "$WORDS" | sort -u | tr '\n' ' ')
		[ -z "$hits" ] || bad="$bad $(basename "$p"): $hits;"
	done
	[ -z "$bad" ] || { echo "FAIL: the proposal names test infrastructure:$bad"; exit 1; }
}

if [ "${1:-}" = --judge ]; then
	shift
	judge "$@"
	echo "proposal-alone: $# patches name no test infrastructure"
	exit 0
fi

S=$SERIES_DIR/series
before=$(awk '/^# ---- patched/ { exit } /^#/ || /^[[:space:]]*$/ { next } { print }' "$S")
proposal=$(awk '/^# ---- patched/ { n++; next } /^# ---- / { if (n) exit; next }
	/^#/ || /^[[:space:]]*$/ { next } n == 1 { print }' "$S")
[ -n "$proposal" ] || { echo "FAIL: $SD/series has no '# ---- patched' group"; exit 1; }
set --
for p in $proposal; do set -- "$@" "$SERIES_DIR/$p"; done
judge "$@"

wt=$BUILD/proposal-alone
git -C "$BUILD/linux" worktree remove --force "$wt" >/dev/null 2>&1 || rm -rf "$wt"
git -C "$BUILD/linux" worktree prune
git -C "$BUILD/linux" worktree add -q --detach "$wt" base
trap 'git -C "$BUILD/linux" worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
for p in $before $proposal; do
	git -C "$wt" -c user.name=idle-series -c user.email=idle@localhost am -q "$SERIES_DIR/$p" \
		>"$BUILD/proposal-alone.log" 2>&1 ||
		{ echo "FAIL: $p does not apply to the pinned tree with only the patches before it (log: $BUILD/proposal-alone.log)"; exit 1; }
done
echo "proposal-alone: $(echo $proposal | wc -w) patches apply after $(echo $before | wc -w) on the pinned tree and name no test infrastructure"
