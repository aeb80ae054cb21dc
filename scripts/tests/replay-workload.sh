#!/bin/sh
# replay-workload.sh [OUTDIR]: a recording's device interrupts, replayed
# in the guest by the HPET generator, arrive when they were recorded.
#
# 1. record: the patched kernel (2 vCPUs, -icount) runs perf-scripts/
#    record.sh (guest-image/guest/record-check.sh) for REC_S seconds while
#    bench.sh runs generator sources of known, seeded processes (two
#    Poisson, one jittered periodic: no two intervals alike, so that a
#    list off by one shows); record.sh's trace.txt is the recording, as
#    on a real machine (perf script --ns, every device IRQ of the guest);
# 2. convert: perf-scripts/trace2workload.py makes it a workload file and
#    its lists (the busiest 5 (IRQ, CPU) sources, once=1);
# 3. replay: bench.py --workload-file, closed loop under -icount, the
#    sched configuration on 2 vCPUs, one repeat: a boot whose window
#    plays the lists, traced (irq_handler_entry) as every bench cell is;
# 4. judge: scripts/tests/replay-compare.py matches each source's
#    replayed arrivals to the recorded ones and compares intervals and
#    arrival times (its header states the tolerance and why), with the
#    generator's own count of arrivals (irqgen.stats) against the
#    recording's; then the control: the same replay against the recorded
#    arrivals shifted by one must fail.
# Prints both tables and "replay-workload: PASS" or FAIL lines; exit 0
# only on PASS.  Needs build/kernels/patched.bzImage and
# build/initramfs.cpio (`make replay-workload-check` makes both); two
# -icount boots (run-qemu.sh writes each one's wall time, wall-seconds,
# into its run directory).  TRACE=FILE skips the recording and
# converts FILE instead (record.sh's trace.txt or a bench trace.txt).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
o=${1:-$top/build/test/replay-workload}
kernel=$top/build/kernels/patched.bzImage
img=$top/build/initramfs.cpio
REC_S=${REC_S:-6}
fail() { echo "replay-workload: FAIL: $*"; exit 1; }
[ -f "$kernel" ] || fail "no $kernel (make kernels)"
[ -f "$img" ] || fail "no $img (make image)"
rm -rf "$o"
mkdir -p "$o"
start=$(date +%s)

trace=${TRACE:-}
if [ -z "$trace" ]; then
	# each source with a seed of its own, as the bench gives them
	words="rec=3:rec.ct=10100:rec.gen=cpu=0,proc=poisson,mean_us=1000,seed=64"
	words="$words:rec.gen=cpu=1,proc=poisson,mean_us=700,seed=65"
	words="$words:rec.gen=cpu=0,proc=periodic,period_us=1900,jitter_us=300,seed=66"
	"$top/guest-image/run-qemu.sh" -k "$kernel" -i "$img" -o "$o/record" -c 2 -d cpuidle_emu \
		-I 0 -t 900 -q 300 -r record-check -x "-global hpet.timers=8" \
		-a "hpet=disable guest.args=$REC_S:$words" >"$o/record.log" 2>&1 ||
		fail "recording boot: $(cat "$o/record/verdict" 2>/dev/null || tail -1 "$o/record.log")" \
			"$(grep -h '^FAIL' "$o/record/results/run.log" 2>/dev/null | head -1)"
	trace=$o/record/results/trace.txt.gz
	echo "replay-workload: recorded $trace ($(($(date +%s) - start)) s)"
fi

python3 "$top/perf-scripts/trace2workload.py" "$trace" -o "$o/replay.toml" --cpus 2 \
	2>"$o/convert.log" || fail "trace2workload.py: $(tail -1 "$o/convert.log")"
sed 's/^/  /' "$o/convert.log"

t=$(date +%s)
python3 "$top/perf-scripts/bench.py" --workload-file "$o/replay.toml" --configs sched --vcpus 2 \
	--repeats 1 --timing icount --no-cost --no-report --out "$o/bench" >"$o/bench.log" 2>&1 ||
	fail "bench.py: $(tail -1 "$o/bench.log")"
cell=$o/bench/cells/sched-2cpu-icount-r1
res=$cell/results/replay
[ -f "$cell/verdict" ] || fail "bench.py left no cell $cell ($(tail -1 "$o/bench.log"))"
case "$(cat "$cell/verdict")" in PASS*) ;; *) fail "replay boot: $(cat "$cell/verdict")" ;; esac
[ ! -f "$res/failed" ] || fail "replay workload failed: $(head -1 "$res/failed")"
[ -s "$res/trace.txt" ] || fail "the replay left no $res/trace.txt"
echo "replay-workload: replayed in $cell ($(($(date +%s) - t)) s)"

st=0
python3 "$top/scripts/tests/replay-compare.py" --stats "$res/irqgen.stats" "$o/replay.toml" \
	"$trace" "$res/trace.txt" >"$o/compare.txt" 2>&1 || st=$?
cat "$o/compare.txt"
[ "$st" = 0 ] || fail "the replay does not match the recording (exit $st; $o/compare.txt)"
st=0
python3 "$top/scripts/tests/replay-compare.py" --control "$o/replay.toml" \
	"$trace" "$res/trace.txt" >"$o/control.txt" 2>&1 || st=$?
cat "$o/control.txt"
[ "$st" = 1 ] || fail "control: a list off by one arrival passes the tolerance (exit $st; $o/control.txt)"
echo "replay-workload: PASS in $(($(date +%s) - start)) s"
