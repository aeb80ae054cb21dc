#!/bin/sh
# loads.sh [NAME ...]: record the corpus' loads on this machine again, each
# with perf-scripts/record-load.sh into perf-scripts/recordings/NAME/
# (default: every load below).  As root; waits until no kernel build and
# no QEMU guest runs, at most WAIT seconds (default 1800; another user's
# build would be in every recording), and records a load again, up to
# TRIES times (default 3), when its how line says that something else ran.
# The compile builds Lua from its repository at a fixed commit, cloned into
# /tmp/lua-src when missing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
rl=$top/perf-scripts/record-load.sh
die() { echo "loads.sh: $*" >&2; exit 1; }
lua=/tmp/lua-src
lua_commit=53b41d0c

load() {
	case "$1" in
	quiet) "$rl" quiet 120 'exec sleep 100000' ;;
	fsync_db) "$rl" fsync_db 12 'cd /var/tmp && rm -f corpus.db corpus.db-journal && sqlite3 corpus.db "create table t(x)" && yes "insert into t values(randomblob(100));" | sqlite3 corpus.db'
		rm -f /var/tmp/corpus.db /var/tmp/corpus.db-journal ;;
	cold_read) "$rl" cold_read 12 'while :; do sync; echo 3 >/proc/sys/vm/drop_caches; find /usr/lib /usr/share -type f -size -1M -print0 | xargs -0 cat >/dev/null 2>&1; done' ;;
	download) "$rl" download 12 'mkdir -p /tmp/corpus-dl && cd /tmp/corpus-dl && while :; do apt-get download -q -o Acquire::http::Dl-Limit=2000 gcc-12 cpp-12 libllvm14 >/dev/null 2>&1; rm -f ./*.deb; done'
		rm -rf /tmp/corpus-dl ;;
	compile)
		if [ ! -f "$lua/makefile" ]; then
			git clone -q https://github.com/lua/lua "$lua" && git -C "$lua" checkout -q "$lua_commit" ||
				die "cannot clone Lua into $lua"
		fi
		"$rl" compile 20 "cd $lua && sync && echo 3 >/proc/sys/vm/drop_caches && while :; do make clean >/dev/null; make -j2 >/dev/null 2>&1; done" ;;
	*) die "unknown load $1 (quiet fsync_db cold_read download compile)" ;;
	esac
}

[ "$(id -u)" = 0 ] || die "run as root (perf, drop_caches)"
names=${*:-quiet fsync_db cold_read download compile}
tries=${TRIES:-3}
wait=${WAIT:-1800}
for n in $names; do
	try=1
	while :; do
		waited=0
		while pgrep -f 'make.*bzImage|^qemu-system' >/dev/null && [ "$waited" -lt "$wait" ]; do
			echo "loads.sh: a kernel build or a guest runs; waiting" >&2
			sleep 20
			waited=$((waited + 20))
		done
		load "$n"
		# record again when something else ran meanwhile (its how line)
		grep -q 'also running: nothing else' "$top/perf-scripts/recordings/$n/how" && break
		[ "$try" -lt "$tries" ] || break
		echo "loads.sh: $n: $(sed 's/.*also running: //' "$top/perf-scripts/recordings/$n/how") ran too; again" >&2
		try=$((try + 1))
	done
done
