#!/bin/sh
# run-qemu.sh: boot one guest under OVMF (UEFI) in QEMU and judge the run.
#
# Usage: run-qemu.sh -k BZIMAGE -i INITRD -o OUTDIR [-c CPUS] [-m MB]
#          [-a "KERNEL ARGS"] [-r RUN] [-d DRIVER] [-g GOVERNOR]
#          [-t DEADLINE_S] [-q QUIET_S] [-I SHIFT] [-e LINE]... [-S]
#          [-H COMPARATORS] [-D DISK]... [-N PORT:ADDR:MAC]... [-T single|multi]
#          [-x "QEMU ARGS"]
#   -c CPUS      vCPUs, one of shared/lib.sh's GUEST_VCPUS (default 2)
#   -r RUN       guest script to run (/scripts/RUN.sh), default smoke
#   -d/-g        current_driver / current_governor the guest must see
#                (-d cpuidle_emu also asks for it: cpuidle_emu.enable=1)
#   -e LINE      a line the console must show (repeatable; judge.sh)
#   -S           interactive: the console on this terminal (quit: Ctrl-A x),
#                no deadline, no verdict (`make shell`)
#   -I SHIFT     virtual time: -icount shift=SHIFT,sleep=off and -rtc
#                clock=vm on single-threaded TCG, the RTC started at a
#                fixed date, and the guest's sources of randomness removed
#                (-cpu max,-rdrand,-rdseed and nokaslr), so that two boots of the same kernel, command
#                line and workload run the same instructions at the same
#                guest times (scripts/tests/determinism.sh checks it; I/O
#                completed by host threads, such as virtio-blk reads,
#                still lands at host-dependent guest times); default:
#                real time (-T: single-threaded TCG unless asked)
#   -T THREADS   real time only: `single` (the default) runs every vCPU
#                on one TCG thread; `multi` one thread per vCPU, faster,
#                but QEMU 7.2's multi-threaded TCG can run a stale
#                translation of kernel text patched at run time
#                (guest-image/README.md, "Known limits")
#   -t/-q        kill QEMU after DEADLINE_S in all, or after QUIET_S
#                without console output
#   -H N         N HPET comparators (QEMU's default is 3; the interrupt
#                generator hpet_irqgen wants more)
#   -D DISK      a read-only virtio-blk disk (repeatable: vda, vdb, ...)
#   -N PORT:ADDR:MAC  a virtio-net NIC with MAC on a user-net back end for
#                ADDR's /24, UDP to 127.0.0.1:PORT forwarded to ADDR:PORT
#                (repeatable)
#   -x ARGS      anything else for QEMU, word-split
# Writes OUTDIR/console.log, OUTDIR/results/ (what the guest sent back),
# OUTDIR/qemu.cmd, OUTDIR/launch.info (what judge.sh needs besides the
# console and the results) and OUTDIR/verdict ("PASS" or "FAIL: reason",
# by guest-image/judge.sh, which can be rerun on OUTDIR), and prints the
# verdict line.  Exit status 0 only on PASS.
# Disk space: OUTDIR's file system must have RUNQEMU_MIN_FREE_KB (default
# 32768) free at the start; if it fills during the run, the partial
# results are removed, console.log is kept as far as it got, and the
# verdict says the file system is full.  Nothing outside OUTDIR is touched.
set -eu
. "$(dirname "$0")/../shared/lib.sh"

kernel= initrd= out= cpus=2 mem=1024 append= run=smoke driver= governor=
deadline=300 quiet=120 shift= threads=single extra= expect= serial= hpet= disks= nics=
nl='
'
while getopts k:i:o:c:m:a:r:d:g:t:q:I:x:e:SH:D:N:T: opt; do
	case "$opt" in
	k) kernel=$OPTARG ;; i) initrd=$OPTARG ;; o) out=$OPTARG ;;
	c) cpus=$OPTARG ;; m) mem=$OPTARG ;; a) append=$OPTARG ;;
	r) run=$OPTARG ;; d) driver=$OPTARG ;; g) governor=$OPTARG ;;
	t) deadline=$OPTARG ;; q) quiet=$OPTARG ;; I) shift=$OPTARG ;;
	x) extra=$OPTARG ;; T) threads=$OPTARG ;;
	S) serial=mon:stdio ;;
	H) hpet=$OPTARG ;;
	D) disks="$disks$OPTARG$nl" ;;
	N) nics="$nics$OPTARG$nl" ;;
	e) expect="${expect}expect=$OPTARG
" ;;
	*) die "bad option; see the usage at the top of $0" ;;
	esac
done
[ -f "$kernel" ] || die "kernel '$kernel' not found"
[ -f "$initrd" ] || die "initramfs '$initrd' not found"
[ -n "$out" ] || die "-o OUTDIR is required"
ok=
for n in $GUEST_VCPUS; do [ "$cpus" != "$n" ] || ok=1; done
[ -n "$ok" ] || die "-c takes a vCPU count of $GUEST_VCPUS, not '$cpus'"
case "$threads" in single | multi) ;; *) die "-T takes single or multi, not '$threads'" ;; esac
case "$hpet" in '' | [3-9] | [12][0-9] | 3[0-2]) ;; *) die "-H takes 3 to 32 comparators, not '$hpet'" ;; esac
ifs=$IFS IFS=$nl
for d in $disks; do [ -f "$d" ] || die "disk '$d' not found"; done
for x in $nics; do
	case "$x" in [0-9]*:[0-9]*.[0-9]*:??:??:??:??:??:??) ;; *) die "-N takes PORT:ADDR:MAC, not '$x'" ;; esac
done
IFS=$ifs

code=/usr/share/OVMF/OVMF_CODE_4M.fd
vars=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -f "$code" ] && [ -f "$vars" ] || die "OVMF is missing (package ovmf)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (package qemu-system-x86)"

rm -rf "$out"
mkdir -p "$out/results" || die "cannot create $out"
# free KB on OUTDIR's file system
free_kb() { df -Pk "$out" 2>/dev/null | awk 'NR == 2 { print $4 }'; }
min_free=${RUNQEMU_MIN_FREE_KB:-32768}
kb=$(free_kb)
[ "${kb:-0}" -ge "$min_free" ] ||
	{ rm -rf "$out"; die "$out: only ${kb:-?} KB free on its file system, a run needs $min_free KB"; }
cp "$vars" "$out/ovmf-vars.fd" 2>/dev/null ||
	{ rm -rf "$out"; die "$out: cannot copy the OVMF variables (file system full?)"; }

# the emulated idle states register only when asked (before the caller's
# arguments, which may turn them off again)
emu=
[ "$driver" != cpuidle_emu ] || emu=cpuidle_emu.enable=1
cmdline="console=ttyS0,115200 panic=-1 guest.run=$run${emu:+ $emu} $append"
[ -n "$driver" ] && cmdline="$cmdline guest.driver=$driver"
[ -n "$governor" ] && cmdline="$cmdline guest.governor=$governor"
cpu=max vser=virtio-serial-pci,id=vser0
if [ -n "$shift" ]; then
	# a fixed date: the guest's wall clock starts from the RTC, and a date
	# that differs between boots (perf's header prints it) changes how
	# many instructions run, and so every later guest time
	timing="-accel tcg,thread=single -icount shift=$shift,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm"
	# RDRAND/RDSEED seed the guest's RNG (and so KASLR, hash seeds, the
	# stack canaries' layout) from the host: two boots would differ from
	# the first instruction that reads them.
	cpu=max,-rdrand,-rdseed
	cmdline="$cmdline nokaslr"
	# virtio notifications handled in the vCPU thread, at the guest's
	# write, rather than by QEMU's main loop at a host-dependent moment:
	# the console port's control messages at boot otherwise moved every
	# later guest time by some ns
	vser=$vser,ioeventfd=off
else
	timing="-accel tcg,thread=$threads"
fi

# shellcheck disable=SC2086
set -- qemu-system-x86_64 -machine q35 $timing -cpu "$cpu" -smp "$cpus" -m "$mem" \
	-nodefaults -display none -no-reboot -monitor none \
	-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code" \
	-drive "if=pflash,format=raw,unit=1,file=$out/ovmf-vars.fd" \
	-serial "${serial:-file:$out/console.log}" \
	-device "$vser" \
	-chardev "file,id=results,path=$out/results.tar" \
	-device virtserialport,bus=vser0.0,chardev=results,name=results \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" $extra
[ -z "$hpet" ] || set -- "$@" -global "hpet.timers=$hpet"
n=0 IFS=$nl
for d in $disks; do
	set -- "$@" -drive "if=none,id=bd$n,format=raw,file=$d,readonly=on" -device "virtio-blk-pci,drive=bd$n"
	n=$((n + 1))
done
n=0
for x in $nics; do
	port=${x%%:*} rest=${x#*:}
	addr=${rest%%:*} mac=${rest#*:}
	set -- "$@" -netdev "user,id=n$n,net=${addr%.*}.0/24,hostfwd=udp:127.0.0.1:$port-$addr:$port" \
		-device "virtio-net-pci,netdev=n$n,mac=$mac"
	n=$((n + 1))
done
IFS=$ifs
printf '%s\n' "$*" >"$out/qemu.cmd"
[ -z "$serial" ] || exec "$@"

"$@" >"$out/qemu.log" 2>&1 &
qpid=$!
start=$(date +%s) last_size=-1 last_change=$start killed=
while kill -0 "$qpid" 2>/dev/null; do
	sleep 1
	now=$(date +%s)
	size=$(stat -c %s "$out/console.log" 2>/dev/null || echo 0)
	if [ "$size" != "$last_size" ]; then
		last_size=$size last_change=$now
	fi
	if [ $((now - start)) -ge "$deadline" ]; then
		killed="deadline of ${deadline}s passed"
	elif [ $((now - last_change)) -ge "$quiet" ]; then
		killed="no console output for ${quiet}s"
	fi
	if [ -n "$killed" ]; then
		kill "$qpid" 2>/dev/null || true
		sleep 2
		kill -9 "$qpid" 2>/dev/null || true
		break
	fi
done
qstatus=0
wait "$qpid" 2>/dev/null || qstatus=$?
{ echo "$(($(date +%s) - start))" >"$out/wall-seconds"; } 2>/dev/null || rm -f "$out/wall-seconds"

# A file system that filled up cut the console and the results short:
# drop the partial results (they would read as the guest's), keep the log.
kb=$(free_kb)
if [ "${kb:-0}" -lt 64 ]; then
	rm -rf "$out/results.tar" "$out/results" "$out/ovmf-vars.fd" "$out/wall-seconds"
	exec "$(dirname "$0")/judge.sh" "$out" "$out: file system full during the run (${kb:-?} KB left); results dropped, console.log kept as far as it got"
fi

if [ -s "$out/results.tar" ] && ! tar -xf "$out/results.tar" -C "$out/results" 2>"$out/untar.log"; then
	rm -rf "$out/results" && mkdir -p "$out/results"
fi
printf 'run=%s\nqemu_status=%s\nhung=%s\n%s' "$run" "$qstatus" "$killed" "$expect" >"$out/launch.info"
exec "$(dirname "$0")/judge.sh" "$out"
