#!/bin/sh
# robust.sh RESULTS [SECONDS [s2idle]]: the idle path under churn.
# While a mixed load runs (cyclictest, disk reads, a small hackbench: one
# group of 5 senders and 5 receivers, so that a debug kernel under TCG is
# not swamped), at the same time: CPU 1 goes offline and online,
# interrupt affinities move between CPUs, the virtio-blk driver is
# unbound and rebound (its interrupts are freed and requested again).
# Then, each with a check that can fail and a control window showing it
# can: a PM QoS limit of 0 lets no halting state be entered (control:
# without it, halting states are); a state disabled in sysfs is never
# entered (control: with only the deeper states disabled, it is); with
# "s2idle", suspend-to-idle wakes on an RTC alarm (not by default: under
# QEMU TCG the guest never came back from it, on the governor path as on
# ours; see guest-image/README.md).
# robust.sh --judge-churn HOTPLUG NCPU BLK HOTPLUGS MOVES BINDS: the churn's
# verdict alone on its counts (BLK empty: no virtio-blk disk).
set -eu
log() { echo "robust: $*"; }
# churn_judge HOTPLUG NCPU BLK HOTPLUGS MOVES BINDS: every churn that could
# run ran at least once
churn_judge() {
	[ "$1" = 0 ] || [ "$2" -eq 1 ] || [ "$4" -gt 0 ] || { log "FAIL: no hotplug cycle"; fail=1; }
	[ "$2" -eq 1 ] || [ "$5" -gt 0 ] || { log "FAIL: no affinity move"; fail=1; }
	[ -z "$3" ] || [ "$6" -gt 0 ] || { log "FAIL: no unbind/bind cycle"; fail=1; }
}
if [ "${1:-}" = --judge-churn ]; then
	shift
	fail=0
	churn_judge "$@"
	[ "$fail" = 1 ] || log "churn: ok"
	exit "$fail"
fi
out=$1 secs=${2:-10} s2idle=${3:-}
# ROBUST_HOTPLUG=0: leave CPU hotplug to someone else (torture.sh hands it
# to rcutorture, which hotplugs in step with its own load).
hotplug=${ROBUST_HOTPLUG:-1}
cpu=/sys/devices/system/cpu
ncpu=$(nproc)
fail=0

# --- churn ------------------------------------------------------------
blk=$(ls /sys/bus/virtio/drivers/virtio_blk 2>/dev/null | grep '^virtio' | head -1 || true)
end=$(($(date +%s) + secs))
cyclictest --laptop -q -t "$ncpu" -i 700 -D "$secs" >/dev/null 2>&1 &
(while [ "$(date +%s)" -lt "$end" ]; do hackbench -g 1 -f 5 -l 50 >/dev/null 2>&1 || true; sleep 0.2; done) &
if [ -n "$blk" ]; then
	(while [ "$(date +%s)" -lt "$end" ]; do
		dev=$(ls /sys/bus/virtio/drivers/virtio_blk/"$blk"/block 2>/dev/null | head -1)
		[ -n "$dev" ] && dd if="/dev/$dev" of=/dev/null bs=4k count=64 iflag=direct 2>/dev/null
		sleep 0.05
	done) &
fi
n_hp=0 n_aff=0 n_bind=0
while [ "$(date +%s)" -lt "$end" ]; do
	if [ "$hotplug" = 1 ] && [ "$ncpu" -gt 1 ]; then
		echo 0 >"$cpu/cpu1/online" && echo 1 >"$cpu/cpu1/online" && n_hp=$((n_hp + 1))
	fi
	for irq in $(awk -F: '/virtio|PCI-MSI/ { gsub(/ /, "", $1); print $1 }' /proc/interrupts); do
		[ -w "/proc/irq/$irq/smp_affinity" ] || continue
		mask=$(( (1 << (n_aff % ncpu)) ))
		printf '%x' "$mask" >"/proc/irq/$irq/smp_affinity" 2>/dev/null && n_aff=$((n_aff + 1))
	done
	if [ -n "$blk" ]; then
		echo "$blk" >/sys/bus/virtio/drivers/virtio_blk/unbind
		echo "$blk" >/sys/bus/virtio/drivers/virtio_blk/bind
		n_bind=$((n_bind + 1))
	fi
	sleep 0.3
done
wait
log "churn: $n_hp hotplug cycles, $n_aff affinity moves, $n_bind unbind/bind cycles in ${secs}s"
churn_judge "$hotplug" "$ncpu" "$blk" "$n_hp" "$n_aff" "$n_bind"

# Per-CPU counts, because CPU hotplug may run meanwhile (rcutorture's, in
# torture.sh): cpuidle_emu, like haltpoll, unregisters a CPU's device when
# it goes offline and registers a fresh one (counters and disable flags
# at 0) when it comes back.
# snap STATE FILE: "cpuN usage disable" of each CPU with a device now.
snap() {
	for c in "$cpu"/cpu[0-9]*; do
		[ -r "$c/cpuidle/state$1/usage" ] || continue
		echo "${c##*/} $(cat "$c/cpuidle/state$1/usage") $(cat "$c/cpuidle/state$1/disable")"
	done >"$2"
}
# entered BEFORE AFTER [1]: " cpuN:+K" per CPU (K entries in between), or
# " cpuN:skip" for a CPU whose device was registered again in between
# (its counter went back, or with 1: its disable flag was cleared).
entered() {
	awk -v dis="${3:-0}" 'NR == FNR { u[$1] = $2; next }
		$1 in u { if ($2 < u[$1] || (dis && $3 != 1)) printf " %s:skip", $1
			else printf " %s:+%d", $1, $2 - u[$1] }' "$1" "$2"
}
# judge WHAT COUNTS: fail on any entry, or when no CPU could be checked.
judge() {
	case "$2" in
	*:+[1-9]*) log "FAIL: $1 entered:$2"; fail=1 ;;
	*:+0*) ;;
	*) log "FAIL: $1: no CPU kept its device through the check:$2"; fail=1 ;;
	esac
}
t=/tmp/robust.$$

# --- PM QoS 0: only polling may be entered -----------------------------
states=$(ls -d "$cpu"/cpu0/cpuidle/state* | sed 's/.*state//' | sort -n)
halting=
for s in $states; do
	[ "$(cat "$cpu/cpu0/cpuidle/state$s/latency")" -gt 0 ] && halting="$halting $s"
done
# window NAME ARGS: the usage of every state around one cyclictest run.
# (The helpers' loop variables have names of their own: no "local" in sh.)
window() {
	name=$1
	shift
	for w_s in $states; do snap "$w_s" "$t.$name.b$w_s"; done
	cyclictest --laptop -q -t 1 "$@" >/dev/null 2>&1 || true
	for w_s in $states; do snap "$w_s" "$t.$name.a$w_s"; done
}
# sum_entries NAME STATES: the "cpuN:+K" of those states, one string.
sum_entries() {
	name=$1
	shift
	for e_s in "$@"; do entered "$t.$name.b$e_s" "$t.$name.a$e_s"; done
}
# control WHAT NAME STATES ARGS: the same measurement without the
# constraint must see those states entered, or the check could not have
# failed.  A window can see nothing when the CPUs that kept their device
# were busy for that second (rcutorture's readers on 4 vCPUs did): up to
# 5 windows, the first one with entries counts.
control() {
	what=$1 c_name=$2 c_states=$3
	shift 3
	c_n=0
	while [ "$c_n" -lt 5 ]; do
		c_n=$((c_n + 1))
		window "$c_name" "$@"
		# shellcheck disable=SC2086
		c_r=$(sum_entries "$c_name" $c_states)
		case "$c_r" in *:+[1-9]*)
			log "control: $what entered:$c_r (window $c_n)"; return ;;
		esac
	done
	log "FAIL: control: $what not entered without the constraint:$c_r (the check proves nothing)"
	fail=1
}
control "a halting state (${halting# })" free "$halting" -i 1000 -D 1
exec 3>/dev/cpu_dma_latency
printf 0 >&3
# CPUs halted when the limit came are woken by it; their wakeup counts
# the state they were in: take the first count after that.
sleep 0.5
window qos -i 1000 -D 2
exec 3>&-
qos=
for s in $halting; do
	r=$(entered "$t.qos.b$s" "$t.qos.a$s")
	qos="$qos state$s:$r;"
	judge "state$s (exit latency $(cat "$cpu/cpu0/cpuidle/state$s/latency")us) under PM QoS 0" "$r"
done
log "pm-qos 0: entries per CPU:$qos"

# --- each state disabled in turn is never entered ----------------------
# setdis VALUE STATES: write the disable flag of those states on every CPU.
setdis() {
	v=$1
	shift
	for d_s in "$@"; do
		for c in "$cpu"/cpu[0-9]*/cpuidle; do echo "$v" >"$c/state$d_s/disable" 2>/dev/null || true; done
	done
}
dis=
for s in $states; do
	[ "$s" = 0 ] && continue
	# Control: every deeper state disabled, so this one is the best there
	# is for cyclictest's 2 ms sleeps: it must be entered.
	deeper=$(for d in $states; do if [ "$d" -gt "$s" ]; then echo "$d"; fi; done)
	# shellcheck disable=SC2086
	setdis 1 $deeper
	control "state$s, deeper states disabled" ctl"$s" "$s" -i 2000 -D 1
	# The check: this one disabled as well (entered() skips a CPU whose
	# flag for it was reset by hotplug meanwhile).
	setdis 1 "$s"
	window dis"$s" -i 2000 -D 1
	# shellcheck disable=SC2086
	setdis 0 "$s" $deeper
	r=$(entered "$t.dis$s.b$s" "$t.dis$s.a$s" 1)
	dis="$dis state$s:$r;"
	judge "disabled state$s" "$r"
done
rm -f "$t".*
log "disabled states: entries per CPU while disabled: $dis"

# --- suspend-to-idle, woken by the RTC ---------------------------------
if [ "$s2idle" != s2idle ]; then
	log "s2idle: not requested"
elif [ -w /sys/power/state ] && grep -q freeze /sys/power/state && [ -e /sys/class/rtc/rtc0/wakealarm ]; then
	echo 0 >/sys/class/rtc/rtc0/wakealarm
	echo +2 >/sys/class/rtc/rtc0/wakealarm
	t0=$(date +%s)
	if echo freeze >/sys/power/state; then
		log "s2idle: resumed after $(($(date +%s) - t0))s"
	else
		log "FAIL: s2idle entry failed"; fail=1
	fi
else
	log "s2idle: not available (skipped)"
fi
[ "$fail" = 0 ] && log ok
exit "$fail"
