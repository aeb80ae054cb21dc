#!/bin/sh
# judge.sh OUTDIR [REASON]: the verdict of a finished guest run, from what
# the run left in OUTDIR; can be rerun on any run directory (run-qemu.sh
# calls it last; with REASON, the run failed for a reason only the launcher
# saw, such as a full disk, and the verdict is "FAIL: REASON").  Writes OUTDIR/verdict ("PASS" or "FAIL: reason"), prints
# "NAME: VERDICT (console log)" and exits 0 only on PASS.
#
# Reads OUTDIR/console.log, OUTDIR/results/ (what the guest sent back:
# exit-status, the guest script's status) and OUTDIR/launch.info, which
# run-qemu.sh writes: run=NAME (the guest script), qemu_status=N,
# hung=REASON (when the launcher killed QEMU) and one expect=LINE per
# console line the run must show (run-qemu.sh -e: proof that a boot
# argument took effect).  A run fails, first reason wins, when it hung,
# printed nothing, printed a splat (the pattern below), sent no results,
# its guest script failed, or an expected line is missing.
set -eu
out=${1:?usage: judge.sh OUTDIR [REASON]}
[ -d "$out" ] || { echo "judge.sh: error: no run directory $out" >&2; exit 2; }
log=$out/console.log
info=$out/launch.info
SPLAT='WARNING:|BUG:|Oops|Call Trace|Kernel panic|possible recursive locking|circular locking|inconsistent lock state|KASAN|UBSAN|kmemleak: [0-9]+ new suspected|detected stall|soft lockup|blocked for more than'

field() { sed -n "s/^$1=//p" "$info" 2>/dev/null; }
verdict() {
	# best effort: the line on stdout is the verdict even if the file fails
	{ echo "$1" >"$out/verdict"; } 2>/dev/null || rm -f "$out/verdict"
	printf '%s: %s (%s)\n' "$(basename "$out")" "$1" "$log"
	case "$1" in PASS*) exit 0 ;; *) exit 1 ;; esac
}

[ $# -lt 2 ] || verdict "FAIL: $2"
run=$(field run)
hung=$(field hung)
qstatus=$(field qemu_status)
[ -z "$hung" ] || verdict "FAIL: hung, $hung"
[ -s "$log" ] || verdict "FAIL: no console output (qemu status ${qstatus:-?}, log $out/qemu.log)"
bad=$(grep -a -n -E "$SPLAT" "$log" | head -1 || true)
[ -z "$bad" ] || verdict "FAIL: console: $(echo "$bad" | cut -c1-160)"
[ -n "$(ls -A "$out/results" 2>/dev/null)" ] ||
	verdict "FAIL: no results came back from the guest (qemu status ${qstatus:-?})"
[ -f "$out/results/exit-status" ] || verdict "FAIL: results without an exit status"
status=$(cat "$out/results/exit-status")
[ "$status" = 0 ] || verdict "FAIL: guest script '$run' exited $status: $(grep -a '^guest: FAIL' "$log" | head -1 | cut -c1-120)"
missing=
while IFS= read -r want; do
	[ -z "$want" ] || grep -a -q -F -e "$want" "$log" || { missing=$want; break; }
done <<EOF
$(field expect)
EOF
[ -z "$missing" ] || verdict "FAIL: console lacks '$missing' (wrong kernel or boot argument)"
verdict PASS
