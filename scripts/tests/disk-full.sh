#!/bin/sh
# disk-full.sh: results written to a file system that fills up.  The
# output directory is a small tmpfs holding earlier results; a stand-in
# qemu-system-x86_64 (first in PATH) plays a guest whose console output
# fills the disk.  run-qemu.sh must fail with one readable line, keep
# the console log, leave no partial results, and leave the earlier
# results byte-identical.  A second run on the full disk must be refused
# up front.  Then bench.py's atomic_write on the full disk: an error,
# no .tmp left, the earlier file intact.  Needs root (mount) and OVMF.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
mnt=$tmp/out
cleanup() {
	umount "$mnt" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$mnt" "$tmp/bin"
mount -t tmpfs -o size=4m tmpfs "$mnt"

# Earlier results: a finished run and a bench cell.
mkdir -p "$mnt/earlier/results" "$mnt/cells/menu-1cpu-r1"
head -c 300000 /dev/urandom | base64 >"$mnt/earlier/console.log"
echo PASS >"$mnt/earlier/verdict"
echo 0 >"$mnt/earlier/results/exit-status"
printf '{"verdict": "PASS"}\n' >"$mnt/cells/menu-1cpu-r1/meta.json"
(cd "$mnt" && find . -type f | sort | xargs sha256sum) >"$tmp/before"

# The stand-in QEMU: console lines until the disk is full, then a results
# tar (which no longer fits), exit 0 like a guest that powered off.
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
serial= res=
for a in "$@"; do
	case "$a" in
	file:*) serial=${a#file:} ;;
	file,id=results,path=*) res=${a#file,id=results,path=} ;;
	esac
done
i=0
while [ $i -lt 200000 ]; do
	echo "[ $i.000000] guest: a line of console output that fills the disk" || break
	i=$((i + 1))
done >>"$serial" 2>/dev/null
head -c 100000 /dev/zero >"$res" 2>/dev/null
exit 0
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
: >"$tmp/kernel"
: >"$tmp/initrd"

bad=0
no() { echo "FAIL: $*"; bad=1; }

# 1. The disk fills during the run.
if RUNQEMU_MIN_FREE_KB=1024 PATH=$tmp/bin:$PATH "$top/guest-image/run-qemu.sh" \
	-k "$tmp/kernel" -i "$tmp/initrd" -o "$mnt/new" -c 1 -t 60 -q 30 >"$tmp/out1" 2>&1; then
	no "run-qemu.sh passed on a full disk"
fi
cat "$tmp/out1"
[ "$(wc -l <"$tmp/out1")" -eq 1 ] || no "not one line of output"
grep -q 'file system full' "$tmp/out1" || no "the line does not say the file system is full"
[ -s "$mnt/new/console.log" ] || no "console.log not kept"
[ ! -e "$mnt/new/results.tar" ] && [ ! -e "$mnt/new/results" ] || no "partial results left behind"
grep -q 'file system full' "$mnt/new/verdict" 2>/dev/null || no "no verdict file saying so"

# 2. A run on a disk that is already full is refused before QEMU starts.
if PATH=$tmp/bin:$PATH "$top/guest-image/run-qemu.sh" \
	-k "$tmp/kernel" -i "$tmp/initrd" -o "$mnt/next" -c 1 -t 60 -q 30 >"$tmp/out2" 2>&1; then
	no "run-qemu.sh started on a full disk"
fi
cat "$tmp/out2"
[ "$(wc -l <"$tmp/out2")" -eq 1 ] && grep -q 'KB free' "$tmp/out2" || no "no one-line refusal naming the free space"
[ ! -e "$mnt/next" ] || no "the refused run left $mnt/next"

# 3. bench.py's atomic_write on the full disk.
head -c 10000000 /dev/zero >"$mnt/filler" 2>/dev/null || true
if python3 - "$top/perf-scripts" "$mnt/cells/menu-1cpu-r1/meta.json" >"$tmp/out3" 2>&1 <<'EOF'; then
import sys
sys.path.insert(0, sys.argv[1])
import bench
try:
    bench.atomic_write(sys.argv[2], "x" * 100000)
except OSError as e:
    print(f"error: {e}")
    sys.exit(1)
EOF
	no "atomic_write succeeded on a full disk"
fi
cat "$tmp/out3"
grep -q 'No space left' "$tmp/out3" || no "atomic_write's error does not say why"
[ ! -e "$mnt/cells/menu-1cpu-r1/meta.json.tmp" ] || no "atomic_write left a .tmp file"
rm -f "$mnt/filler"

(cd "$mnt" && find earlier cells -type f | sort | sed 's|^|./|' | xargs sha256sum) >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || { no "earlier results changed"; diff "$tmp/before" "$tmp/after" || true; }
[ "$bad" = 0 ] && echo "ok: full disk: one error line, log kept, no partial results, earlier results intact"
exit "$bad"
