#!/bin/sh
# check-touched.sh: the C files the series touches, rebuilt in the
# patched kernel's object tree with W=1 and sparse (C=2); fails on any
# warning that names one of them.  Usage: scripts/check-touched.sh
set -eu
. "$(dirname "$0")/lib.sh"
TREE=$BUILD/linux
out=$TREE/.out-patched
[ -f "$out/.config" ] || die "build the patched kernel first (scripts/build-kernel.sh patched)"
files=$(git -C "$TREE" diff --name-only base work -- '*.c' | grep -v '_test\.c$\|-test\.c$' || true)
[ -n "$files" ] || die "the series touches no C file"
objs=
for f in $files; do
	case "$f" in
	# included by build_policy.c, not objects of their own
	kernel/sched/idle.c | kernel/sched/deadline.c) objs="$objs kernel/sched/build_policy.o" ;;
	*) objs="$objs ${f%.c}.o" ;;
	esac
done
# shellcheck disable=SC2086
objs=" $(printf '%s\n' $objs | sort -u | tr '\n' ' ')"
log=$out/check-touched.log
# shellcheck disable=SC2086
make -s -C "$TREE" O="$out" CC="ccache gcc" W=1 C=2 $objs >"$log" 2>&1 ||
	die "W=1 C=2 build of$objs failed (log: $log)"
# Only warnings on lines the series added count: upstream's own (sparse
# has a few about timings.c's per-CPU pointers) are not new.
bad=
for f in $files; do
	added=$(git -C "$TREE" diff -U0 base work -- "$f" |
		sed -n 's/^@@ -[0-9,]* +\([0-9]*\),*\([0-9]*\) @@.*/\1 \2/p' |
		awk '{ n = ($2 == "") ? 1 : $2; for (i = 0; i < n; i++) printf " %d ", $1 + i }')
	for w in $(grep -E -o "(^|/)$f:[0-9]+:[0-9]+: (warning|error)" "$log" |
		sed 's/.*:\([0-9]*\):[0-9]*: .*/\1/'); do
		case "$added" in *" $w "*) bad="$bad $f:$w" ;; esac
	done
done
[ -z "$bad" ] || die "new W=1 or sparse warnings at$bad (log: $log)"
say "W=1 and sparse clean:$objs"
