#!/usr/bin/env bash
# The cgroup side of wal_stall_bench --slow-wal, against a stand-in cgroup
# root: WSB_CGROUP_ROOT names a plain directory that the harness takes for
# /sys/fs/cgroup.  This machine boots with cgroup v1 only, while Debian 12
# and current Ubuntu boot with the unified hierarchy (v2, io.max): here the
# v2 path is driven through a directory holding cgroup.controllers (with
# "io"), cgroup.subtree_control and cgroup.procs, and the v1 path through
# one holding blkio/blkio.throttle.write_iops_device.  The loop device,
# mount, cluster and runs are real; only the cgroup files are plain files,
# so the writes are NOT throttled in this test (the v1 throttle itself is
# exercised by bench/t/e2e.sh).  What it checks: the child cgroup made
# under the root, +io enabled in the root's subtree_control when it was
# not (and disabled again at the end), io.max holding the loop device's
# MAJ:MIN and wiops=100, the process that starts the postmaster entering
# the child's cgroup.procs, the child removed at the end, also after a
# SIGINT, the same with --in-memory (the loop device's file in /dev/shm),
# one message naming both controllers when neither is there, and a failed
# write to a cgroup file saying what it was for.
#
# The process that writes its pid into cgroup.procs is the one that runs
# pg_ctl start (the postmaster and its children inherit the cgroup from
# it, bench/proc.c); a stand-in file cannot follow forks, so pg_ctl is
# wrapped (through a pg_config that points at a bin directory of links)
# by a script that logs its own pid and the postmaster pid it started.
#
# Run as root, after building bench/wal_stall_bench.  Prints TAP lines and
# "N passed, N failed".  The harness's clusters are its temporary ones.
#
#   PG_CONFIG=/path/to/pg_config bench/t/cgroup_v2.sh
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG, PGBIN; BENCH; ok, bail
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../test/lib.sh"

require_root
require_bench
[ -e /dev/loop-control ] && command -v losetup >/dev/null || bail "no loop devices here"

work_dir wsb_cgroup
bench=""
cleanup() {
	[ -n "$bench" ] && kill -INT "$bench" 2>/dev/null && wait "$bench" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# pg_ctl wrapped: "PID ARGS" before it runs, "PID started POSTMASTER_PID"
# after a start; the wrapper's pid is the one the harness put in the cgroup.
mkdir -p "$work/bin"
for p in "$PGBIN"/*; do
	[ "$(basename "$p")" = pg_ctl ] || ln -s "$p" "$work/bin/"
done
cat >"$work/bin/pg_ctl" <<SH
#!/bin/sh
echo "\$\$ \$*" >>"$work/pg_ctl.log"
"$PGBIN/pg_ctl" "\$@"
rc=\$?
case " \$* " in
*" start "*)
	while [ \$# -gt 0 ]; do [ "\$1" = -D ] && d=\$2; shift; done
	echo "\$\$ started \$(head -1 "\$d/postmaster.pid" 2>/dev/null)" >>"$work/pg_ctl.log" ;;
esac
exit \$rc
SH
printf '#!/bin/sh\n[ "$1" = --bindir ] && { echo %s/bin; exit 0; }\nexec %s "$@"\n' "$work" "$PG_CONFIG" \
	>"$work/pg_config"
chmod 755 "$work/bin/pg_ctl" "$work/pg_config"
touch "$work/pg_ctl.log"
chmod 666 "$work/pg_ctl.log"

# A stand-in cgroup root: v2 (cgroup.controllers listing io) or v1 (blkio).
fake_root() {	# fake_root DIR v2|v1|none [SUBTREE_CONTROL]
	mkdir -p "$1"
	case $2 in
	v2)
		echo "cpuset cpu io memory hugetlb pids rdma misc" >"$1/cgroup.controllers"
		echo "${3:-}" >"$1/cgroup.subtree_control"
		: >"$1/cgroup.procs" ;;
	v1)
		mkdir -p "$1/blkio"
		: >"$1/blkio/blkio.throttle.write_iops_device"
		: >"$1/blkio/cgroup.procs" ;;
	none)
		echo "cpuset cpu memory pids" >"$1/cgroup.controllers" ;;	# unified, but no io
	esac
}

# What the harness may leave behind: nothing, checked by name.  Other
# harnesses may run on this machine at the same time, so only what belongs
# to this script's runs counts: child cgroups under its stand-in roots, and
# the work directory of the cluster its pg_ctl wrapper saw (with the loop
# device, mount and postmaster in it).
leftovers() {
	local w
	{
		ls -d "$work"/root*/wal_stall_bench.* "$work"/root*/blkio/wal_stall_bench.*
		for w in $(awk '$2 == "-D" { print $3 }' "$work/pg_ctl.log" | xargs -r -n1 dirname | sort -u); do
			ls -d "$w"
			losetup -a | grep -F "$w/"
			findmnt -rn -o TARGET | grep -F "$w/"
			pgrep -af "^$PGBIN/postgres -D $w/"
		done
	} 2>/dev/null
}
nothing_left() {
	local l
	l=$(leftovers)
	[ -z "$l" ] || { echo "# left behind: $l"; return 1; }
}
# run_bench ROOT OUT ARGS...: the harness on the stand-in root, in the background ($bench)
run_bench() {
	local root=$1 out=$2
	shift 2
	: >"$work/pg_ctl.log"
	WSB_CGROUP_ROOT=$root "$BENCH" --pg-config "$work/pg_config" --slow-wal 100 "$@" \
		--clients 2 --scale 1 --quiet --out "$work/$out" >"$work/$out.out" 2>"$work/$out.err" &
	bench=$!
}
finish_bench() {	# the harness's exit status
	local rc
	wait "$bench"
	rc=$?
	bench=""
	return "$rc"
}
child_cgroup() {	# child_cgroup DIR: the harness's cgroup under DIR, named as its work directory
	local c
	for _ in $(seq 1 1200); do
		c=$(ls -d "$1"/wal_stall_bench.* 2>/dev/null | head -1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		kill -0 "$bench" 2>/dev/null || break
		sleep 0.1
	done
	echo "$1/wal_stall_bench.none"
}
wait_for() {	# wait_for FILE: up to 120 s
	for _ in $(seq 1 1200); do
		[ -s "$1" ] && return 0
		kill -0 "$bench" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# ---------- 1. v2, io not yet enabled in the root; SIGINT mid-run ----------
root=$work/root2
fake_root "$root" v2 ""
run_bench "$root" out1 --set wal_buffers=1MB --runs 1 --duration 30
child=$(child_cgroup "$root")
ok "v2: the child cgroup $root/wal_stall_bench.XXXXXX, named as the work directory, gets io.max" \
	eval 'wait_for "$child/io.max" && [ -d "/tmp/${child##*/}" ]'
# the run under way: the harness's own pgbench (after any restart for the configuration)
running=false
for _ in $(seq 1 1200); do
	pgrep -P "$bench" -x pgbench >/dev/null && { running=true; break; }
	sleep 0.1
done
ok "v2: a run started" $running
pgdata=$(awk '$2 == "-D" { print $3 }' "$work/pg_ctl.log" | tail -1)
# the data directory is WORKDIR/owner/data, the image WORKDIR/slow_disk.img
loopdev=$(losetup -j "${pgdata%/owner/data}/slow_disk.img" 2>/dev/null | cut -d: -f1)
majmin=$(lsblk -dno MAJ:MIN "$loopdev" 2>/dev/null | tr -d ' ')
iomax=$(cat "$child/io.max" 2>/dev/null)
echo "# loop device $loopdev ($majmin), io.max: $iomax"
ok "v2: io.max is \"$majmin wiops=100\", the loop device's MAJ:MIN" \
	test -n "$majmin" -a "$iomax" = "$majmin wiops=100"
ok "v2: +io enabled in the root's cgroup.subtree_control" \
	test "$(cat "$root/cgroup.subtree_control")" = "+io"
in_cgroup=$(cat "$child/cgroup.procs" 2>/dev/null)
last_start=$(grep -E '^[0-9]+ .* start$' "$work/pg_ctl.log" | tail -1 | cut -d' ' -f1)
postmaster=$(head -1 "$pgdata/postmaster.pid" 2>/dev/null)
started=$(awk -v p="$last_start" '$1 == p && $2 == "started" { print $3 }' "$work/pg_ctl.log")
echo "# child cgroup.procs: $in_cgroup; last pg_ctl start: pid $last_start, started postmaster $started; running postmaster $postmaster"
ok "v2: the process that ran pg_ctl start wrote its pid into the child's cgroup.procs" \
	test -n "$last_start" -a "$in_cgroup" = "$last_start"
ok "v2: and the running postmaster ($postmaster) is the one it started" \
	test -n "$postmaster" -a "$started" = "$postmaster"
ok "v2: no pg_ctl stop entered the cgroup" \
	eval '! grep -E " stop$" "$work/pg_ctl.log" | cut -d" " -f1 | grep -qxF "$in_cgroup"'
kill -INT "$bench"
finish_bench
rc=$?
ok "v2 SIGINT: exit status 130 (got $rc)" [ "$rc" = 130 ]
ok "v2 SIGINT: the child cgroup removed" test ! -e "$child"
ok "v2 SIGINT: io disabled again in the root's cgroup.subtree_control (\"-io\")" \
	test "$(cat "$root/cgroup.subtree_control")" = "-io"
ok "v2 SIGINT: loop device, mount, cluster and work directory removed" nothing_left

# ---------- 2. v2, io already enabled; a clean finish ----------
root=$work/root2b
fake_root "$root" v2 "cpu io memory"
run_bench "$root" out2 --set wal_buffers=1MB --runs 1 --duration 2
child=$(child_cgroup "$root")
wait_for "$child/io.max"
iomax=$(cat "$child/io.max" 2>/dev/null)
finish_bench
rc=$?
ok "v2 clean finish: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/out2.err"
ok "v2 clean finish: io.max was written (\"$iomax\")" eval '[[ "$iomax" =~ ^7:[0-9]+\ wiops=100$ ]]'
ok "v2 clean finish: the child cgroup removed" test ! -e "$child"
ok "v2 clean finish: the root's subtree_control left as found (io was on)" \
	test "$(cat "$root/cgroup.subtree_control")" = "cpu io memory"
ok "v2 clean finish: the report names io.max" grep -q 'cgroup v2 io.max' "$work/out2/report.html"
ok "v2 clean finish: loop device, mount, cluster and work directory removed" nothing_left

# ---------- 2b. v2 and --in-memory: the loop device of a file in /dev/shm ----------
root=$work/root2m
fake_root "$root" v2 "io"
run_bench "$root" out2m --in-memory --set wal_buffers=1MB --runs 1 --duration 2
child=$(child_cgroup "$root")
wait_for "$child/io.max"
iomax=$(cat "$child/io.max" 2>/dev/null)
pgdata=$(awk '$2 == "-D" { print $3 }' "$work/pg_ctl.log" | tail -1)
loopdev=$(losetup -j "${pgdata%/owner/data}/slow_disk.img" 2>/dev/null | cut -d: -f1)
majmin=$(lsblk -dno MAJ:MIN "$loopdev" 2>/dev/null | tr -d ' ')
echo "# --in-memory: data directory $pgdata, loop device $loopdev ($majmin), io.max: $iomax"
finish_bench
rc=$?
ok "v2 --in-memory: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/out2m.err"
ok "v2 --in-memory: the cluster's data directory was in /dev/shm" eval '[[ "$pgdata" == /dev/shm/* ]]'
ok "v2 --in-memory: io.max was \"$majmin wiops=100\", the MAJ:MIN of the loop device of its file there" \
	test -n "$majmin" -a "$iomax" = "$majmin wiops=100"
ok "v2 --in-memory: the child cgroup removed" test ! -e "$child"
ok "v2 --in-memory: loop device, mount, cluster and work directory removed" nothing_left

# ---------- 3. v1 through the same variable: blkio files ----------
root=$work/root1
fake_root "$root" v1
run_bench "$root" out3 --set wal_buffers=1MB --runs 1 --duration 2
child=$(child_cgroup "$root/blkio")
wait_for "$child/blkio.throttle.write_iops_device"
iops=$(cat "$child/blkio.throttle.write_iops_device" 2>/dev/null)
finish_bench
rc=$?
ok "v1: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/out3.err"
ok "v1: blkio.throttle.write_iops_device was \"MAJ:MIN 100\" (\"$iops\")" eval '[[ "$iops" =~ ^7:[0-9]+\ 100$ ]]'
ok "v1: no io.max written" test ! -e "$root/io.max" -a ! -e "$child/io.max"
ok "v1: the child cgroup removed" test ! -e "$child"
ok "v1: the report names blkio" grep -q 'cgroup v1 blkio' "$work/out3/report.html"
ok "v1: loop device, mount, cluster and work directory removed" nothing_left

# ---------- 4. neither controller: one message naming both ----------
for kind in none empty; do
	root=$work/root_$kind
	if [ "$kind" = none ]; then fake_root "$root" none; else mkdir -p "$root"; fi
		: >"$work/pg_ctl.log"
	WSB_CGROUP_ROOT=$root "$BENCH" --pg-config "$work/pg_config" --slow-wal 100 --quiet \
		--out "$work/out_$kind" >"$work/$kind.out" 2>"$work/$kind.err"
	rc=$?
	ok "neither ($kind): exit status 1 (got $rc)" [ "$rc" = 1 ]
	ok "neither ($kind): one message on stderr" [ "$(wc -l <"$work/$kind.err")" = 1 ]
	ok "neither ($kind): it names the v2 io controller and the v1 blkio controller" \
		eval 'grep -q "cgroup v2 io controller" "$work/$kind.err" && grep -q "cgroup v1 blkio controller" "$work/$kind.err"'
	sed 's/^/# /' "$work/$kind.err"
	ok "neither ($kind): refused before anything was made (no cluster, no child cgroup)" \
		eval '[ ! -s "$work/pg_ctl.log" ] && nothing_left'
done

# ---------- 5. a cgroup file that cannot be written: the message says what for ----------
# subtree_control a directory: the write of "+io" fails (EISDIR), as root too
root=$work/root_unwritable
fake_root "$root" v2 ""
rm -f "$root/cgroup.subtree_control"
mkdir "$root/cgroup.subtree_control"
: >"$work/pg_ctl.log"
WSB_CGROUP_ROOT=$root "$BENCH" --pg-config "$work/pg_config" --slow-wal 100 --quiet \
	--out "$work/out_unwritable" >"$work/unwritable.out" 2>"$work/unwritable.err"
rc=$?
sed 's/^/# /' "$work/unwritable.err"
ok "unwritable subtree_control: exit status 1 (got $rc)" [ "$rc" = 1 ]
ok "unwritable subtree_control: the message says what failed, the write and the file" \
	grep -qF "could not enable the io controller: could not write \"+io\" to \"$root/cgroup.subtree_control\": Is a directory" \
	"$work/unwritable.err"
ok "unwritable subtree_control: nothing made (no cluster, no child cgroup)" \
	eval '[ ! -s "$work/pg_ctl.log" ] && nothing_left'

tap_summary
[ "$failed" = 0 ]
