#!/bin/sh
# mkinitramfs.sh OUT.cpio: build the guest initramfs without root rights.
# Holds static busybox, cyclictest and hackbench (rt-tests), Debian's perf
# with the libraries it links, guest-image/init, the scripts of
# guest-image/guest/ and perf-scripts/record.sh (as /scripts; record.sh is
# the recorder a user runs on a machine, packed as it is, so that the
# guest records with the same script), and the guest tools of
# guest-image/tools/ (as /bin; each TOOL.c is built here, static, with the
# headers of shared/ that the host's tools include too, into
# build/guest-tools/TOOL when missing or older than its source or a
# header: the one rule that builds them).  The archive is described as a
# gen_init_cpio list, so /dev/console and file owners need no privileges.
set -eu
. "$(dirname "$0")/../shared/lib.sh"

out=${1:?usage: mkinitramfs.sh OUT.cpio}
gen=$BUILD/gen_init_cpio
list=$out.list
[ -f "$BUILD/linux/usr/gen_init_cpio.c" ] || die "$BD/linux is missing: run 'make tree'"
[ -x "$gen" ] && [ "$gen" -nt "$BUILD/linux/usr/gen_init_cpio.c" ] ||
	gcc -O2 -o "$gen" "$BUILD/linux/usr/gen_init_cpio.c"

mkdir -p "$BUILD/guest-tools"
for src in "$TOP"/guest-image/tools/*.c; do
	t=$BUILD/guest-tools/$(basename "$src" .c)
	[ -x "$t" ] && [ "$t" -nt "$src" ] &&
		[ -z "$(find "$TOP"/guest-image/tools "$TOP"/shared -name '*.h' -newer "$t")" ] &&
		continue
	gcc -O2 -Wall -Wextra -Werror -static -I "$TOP/shared" -o "$t" "$src" ||
		die "building $t from $src failed"
done

start=$(date +%s)
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /lib /lib64 /lib/x86_64-linux-gnu \
		/dev /proc /sys /tmp /results /scripts /etc /root /run /var /mnt; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /init $TOP/guest-image/init 0755 0 0"
	echo "file /bin/busybox /bin/busybox 0755 0 0"
	for a in $(/bin/busybox --list-full); do
		[ "$a" = bin/busybox ] || echo "slink /$a /bin/busybox 0777 0 0"
	done
	# perf: Debian's /usr/bin/perf is the real binary (the wrapper is
	# diverted); the guest has no perf_<version> lookup to do.
	for b in /usr/bin/perf /usr/bin/cyclictest /usr/bin/hackbench; do
		[ -x "$b" ] || die "$b is missing (packages: linux-perf rt-tests)"
		echo "file $b $b 0755 0 0"
	done
	ldd /usr/bin/perf /usr/bin/cyclictest /usr/bin/hackbench |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/lib64\// { print $1 }' |
		sort -u | while read -r lib; do
			real=$(readlink -f "$lib")
			echo "file $lib $real 0755 0 0"
		done
	for s in "$TOP"/guest-image/guest/*.sh "$TOP"/perf-scripts/record.sh; do
		[ -f "$s" ] && echo "file /scripts/${s##*/} $s 0755 0 0"
	done
	for src in "$TOP"/guest-image/tools/*.c; do
		t=$BUILD/guest-tools/$(basename "$src" .c)
		echo "file /bin/${t##*/} $t 0755 0 0"
	done
	echo "file /etc/passwd $TOP/guest-image/passwd 0644 0 0"
} >"$list"
# one timestamp for every entry: the same inputs give the same image, so
# the bench can tell from its hash which cells ran with this guest
"$gen" -t 0 "$list" >"$out.tmp" || die "gen_init_cpio failed on $list"
mv "$out.tmp" "$out"
secs=$(($(date +%s) - start))
say "initramfs $(du -h "$out" | cut -f1) in ${secs}s -> $out"
echo "$secs $(stat -c %s "$out")" >"$out.stats"
