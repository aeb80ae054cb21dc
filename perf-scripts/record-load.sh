#!/bin/sh
# record-load.sh NAME SECONDS COMMAND: one entry of the corpus of real
# recordings (perf-scripts/recordings/): run COMMAND (sh -c, its own
# process group) on this machine, record the machine with
# perf-scripts/record.sh for SECONDS while it runs, stop COMMAND's
# process group, and write perf-scripts/recordings/NAME/ (RECORDINGS=DIR
# for another folder):
#   how            one line: the command, the machine, the kernel, what
#                  else ran (no date)
#   states         record.sh's idle-state table (its date line dropped)
#   trace.txt.xz   record.sh's trace, xz-compressed (its first lines only
#                  when the whole would exceed the corpus' size: the how
#                  line says how many seconds it kept)
#   workload.toml  perf-scripts/trace2workload.py's workload rec_NAME,
#   workload.lists its lists (the bench's workload table reads them)
#   convert.log    what trace2workload.py dropped, merged or cut
# As root, on a machine with perf and a cpuidle driver.  WARM=SECONDS
# (default 1): how long COMMAND runs before the recording starts.
# idlebench/recordings.py checks an entry (perf-scripts/tests/test_recordings.py).
set -eu
die() { echo "record-load.sh: $*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: record-load.sh NAME SECONDS COMMAND"
name=$1 secs=$2 cmd=$3
case "$name" in
'' | [!a-z]* | *[!a-z0-9_]*) die "NAME is a-z, 0-9 and '_', starting with a letter" ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${RECORDINGS:-$top/perf-scripts/recordings}/$name
warm=${WARM:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# what else runs here, outside COMMAND's process group (another user's
# kernel build, say), for the how line
others() {
	ps -eo pgid=,comm=,args= | awk -v g="$1" '$1 != g && /make.*bzImage/ { k = 1 }
		$1 != g && $2 ~ /^(cc1|cc1plus)$/ { c++ }
		$1 != g && $2 ~ /^qemu-system/ { q = 1 }
		END { if (k) printf "a kernel build (make bzImage); "
			else if (c) printf "other compiles (cc1); "
			if (q) printf "a QEMU guest; " }'
}

# setsid: COMMAND leads a process group of its own, stopped as a whole
setsid sh -c "$cmd" >"$tmp/load.log" 2>&1 &
pid=$!
spid=
trap 'kill -TERM "-$pid" $spid 2>/dev/null || true; rm -rf "$tmp"' EXIT
sleep "$warm"
kill -0 "$pid" 2>/dev/null || die "COMMAND ended within ${warm}s: $(tail -1 "$tmp/load.log")"
# sampled every 2 s for as long as the recording runs
(while :; do others "$pid"; echo; sleep 2; done) >"$tmp/others" 2>/dev/null &
spid=$!
st=0
sh "$top/perf-scripts/record.sh" "$secs" "$tmp/rec" || st=$?
kill "$spid" 2>/dev/null || true
also=$(cat "$tmp/others")
alive=yes
kill -0 "$pid" 2>/dev/null || alive=no
kill -TERM "-$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ "$st" = 0 ] || die "record.sh failed"
[ "$alive" = yes ] || die "COMMAND ended before the recording did: $(tail -1 "$tmp/load.log")"

mkdir -p "$dir"
sed '1s/, recorded .*//' "$tmp/rec/states" >"$dir/states"
# xz, its first lines only when the whole would not fit the corpus' size
kept=$(cd "$top/perf-scripts" && python3 -m idlebench.recordings --keep "$tmp/rec/trace.txt" "$dir/trace.txt.tmp") ||
	die "cannot compress the trace"
mv "$dir/trace.txt.tmp" "$dir/trace.txt.xz"
rel=${dir#"$top"/}
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/^MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo)
virt=$(systemd-detect-virt --vm 2>/dev/null || echo unknown)
drv=$(sed -n 's/^driver //p' "$dir/states")
gov=$(sed -n 's/^governor //p' "$dir/states")
disks=$(ls /sys/block | grep -v '^loop' | tr '\n' ' ')
also=$(printf '%s' "$also" | tr ';' '\n' | sed 's/^ *//' | sort -u | grep . | paste -sd, - || true)
printf '%s\n' "command: $cmd; recorded: perf-scripts/record.sh $secs while it ran (started ${warm}s before), kept $kept; machine: $(nproc) CPUs ($model), $mem, virtualization $virt, disks ${disks% }, cpuidle driver $drv, governor $gov; kernel: $(uname -sr); also running: ${also:-nothing else (no kernel build, no other compile)}" >"$dir/how"
(cd "$top" && python3 perf-scripts/trace2workload.py "$rel/trace.txt.xz" \
	-o "$rel/workload.toml" --name "rec_$name") 2>"$dir/convert.log" ||
	die "trace2workload.py: $(tail -1 "$dir/convert.log")"
cat "$dir/convert.log"
echo "record-load.sh: $rel: $(du -sh "$dir" | cut -f1)"
