#!/bin/sh
# guest-faults.sh: the launcher's verdicts on guests that go wrong.  A
# guest that panics (init exits) fails with the console kept; a guest
# that hangs without output is killed at its no-output timeout; a guest
# whose idle driver is not the one asked for fails.  Needs the stock
# kernel and the image (built by make test before this runs).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
k=$top/build/kernels/stock.bzImage
i=$top/build/initramfs.cpio
o=$top/build/test/faults
[ -f "$k" ] && [ -f "$i" ] || { echo "FAIL: build the stock kernel and image first"; exit 1; }
bad=0
expect_fail() { # NAME PATTERN ARGS...
	name=$1 pattern=$2
	shift 2
	start=$(date +%s)
	if "$top/guest-image/run-qemu.sh" -k "$k" -i "$i" -o "$o/$name" "$@" >"$o-$name.out" 2>&1; then
		echo "FAIL: $name passed"; bad=1; return
	fi
	if ! grep -q "$pattern" "$o/$name/verdict"; then
		echo "FAIL: $name: verdict '$(cat "$o/$name/verdict")' lacks '$pattern'"; bad=1; return
	fi
	[ -s "$o/$name/console.log" ] || { echo "FAIL: $name: console log not kept"; bad=1; return; }
	echo "ok: $name -> $(cat "$o/$name/verdict") in $(($(date +%s) - start))s"
}
mkdir -p "$o"
expect_fail panic 'console: .*Kernel panic' -c 1 -a "rdinit=/bin/true"
expect_fail hang 'hung, no console output' -c 1 -q 15 -t 120 -a "rdinit=/bin/cat quiet"
expect_fail wrong-driver 'exited 3' -c 1 -d no_such_driver
exit "$bad"
