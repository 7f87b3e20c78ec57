#!/usr/bin/env bash
# A run in a root of scripts/pg_root.sh leaves nothing behind: after a
# command that succeeds, one that fails, one that leaves a process running,
# and one ended by SIGINT (as Ctrl-C sends it, to the whole process group)
# or by SIGTERM, nothing is mounted under the root and no process runs in
# it; the machine's own /dev/pts and /dev/shm are as they were; the tree is
# read-only inside.  TAP output.
#
#   test/root_mounts.sh MAJOR          (as root; builds the root if needed)
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
major=${1:?usage: root_mounts.sh MAJOR}
require_root "pg_root.sh mounts and chroots"

pg_root() { bash "$top/scripts/pg_root.sh" "$@"; }
root=$(pg_root "$major") || bail "no root for PostgreSQL $major"

# What is mounted under the root, and which processes have it as their
# root, read while holding the lock every run in the root holds until it
# has cleaned up: what is seen then was left behind (another user's run in
# progress waits, or is waited for).
lock=${WS_PG_CACHE:-/var/cache/wal_stall}/.$(basename "$root").lock
mounts_left() { flock "$lock" bash "$top/scripts/pg_root.sh" --mounts "$major"; }
processes_left() {
	flock "$lock" bash -c '
		for p in /proc/[0-9]*; do
			r=$(readlink "$p/root" 2>/dev/null) || continue
			[ "$r" = "$1" ] && echo "${p#/proc/}"
		done; true' _ "$root"
}
host_mounts() { awk '$2 == "/dev/pts" || $2 == "/dev/shm"' /proc/self/mounts; }

# Wait until a run's six mounts are there and its command runs (up to
# 300 s: the run may first wait for another one in the same root).
wait_for_run() {
	for _ in $(seq 1 600); do
		[ "$(pg_root --mounts "$major" | wc -l)" -ge 6 ] && pgrep -f "^sleep 317" >/dev/null &&
			return 0
		sleep 0.5
	done
	return 1
}

# After a run ended: nothing mounted, nothing running, the host unchanged.
check_clean() {
	local what=$1
	is "$(mounts_left)" "" "$what: nothing mounted under $root"
	is "$(processes_left)" "" "$what: no process left in the root"
	is "$(host_mounts)" "$host_before" "$what: the machine's /dev/pts and /dev/shm unchanged"
}

host_before=$(host_mounts)
is "$(mounts_left)" "" "nothing mounted under $root before the runs"

pg_root --run "$major" "$top" test -x "/usr/lib/postgresql/$major/bin/pg_config"
is "$?" 0 "a command that succeeds: status 0, and the root has PostgreSQL $major"
check_clean "after success"

pg_root --run "$major" "$top" sh -c 'exit 3'
is "$?" 3 "a command that fails: its status"
check_clean "after failure"

pg_root --run "$major" "$top" sh -c 'touch /wal_stall/pg_root_write_test' 2>/dev/null
status=$?
ok "the tree is read-only inside the root (status $status)" [ "$status" -ne 0 ]
ok "the tree is unchanged" [ ! -e "$top/pg_root_write_test" ]
rm -f "$top/pg_root_write_test"

pg_root --run "$major" "$top" sh -c 'sleep 300 >/dev/null 2>&1 & exit 0'
is "$?" 0 "a command that leaves a process running: status 0"
check_clean "after a process left running"

# With job control the run gets a process group of its own, as a command
# typed at a terminal does, and is not made immune to SIGINT.
set -m
for sig in INT TERM; do
	# not through the pg_root function: $! must be the script itself
	bash "$top/scripts/pg_root.sh" --run "$major" "$top" sleep 317 &
	run=$!
	ok "SIG$sig: the run started (its mounts and command are there)" wait_for_run
	if [ "$sig" = INT ]; then
		kill -INT -- "-$run"	# Ctrl-C: the whole foreground group
	else
		kill -TERM "$run"		# a supervisor: the script alone
	fi
	wait "$run"
	status=$?
	ok "SIG$sig: the run ends with a non-zero status ($status)" [ "$status" -ne 0 ]
	check_clean "after SIG$sig"
done
set +m

tap_plan
tap_summary
[ "$failed" -eq 0 ]
