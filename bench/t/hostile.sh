#!/usr/bin/env bash
# The cluster's owner as an adversary.  wal_stall_bench runs as root; the
# postgres account (which a database superuser reaches through COPY ...
# PROGRAM) must not be able to turn a run into root's writes elsewhere.
# While the harness runs, a loop as postgres plants symbolic links at every
# name root wrote in the work directory, at the slow disk's image and
# mount point and in OUT (some to
# a root-owned canary file, some to new names beside it), and swaps the
# slow disk's image for a link as soon as it exists.  Two whole runs: a
# temporary cluster with --slow-wal (where this machine allows it) and
# --script, and a --pgdata cluster whose postgresql.auto.conf holds a
# primary_conninfo password; the first also with --in-memory (the work
# directory in /dev/shm), and once with links planted in the temporary
# cluster's own data directory too (the run fails there, as the owner's
# writes go nowhere else).  Afterwards the canary is unchanged and still
# root's, nothing new is beside it, and the loop did see each run's work
# directory.  Also: an --out owned by postgres, or writable by others, is
# refused with one message; report.html and restore.sql are not readable
# by nobody (restore.sql looked at while it exists); the password is in no
# file of OUT, and the report shows primary_conninfo as (hidden); with
# --group, OUT is 2750 and its files 0640 in that group.  A preset "quick"
# that nobody plants in root's working directory is not what --preset
# quick reads; a preset or a script nobody owns, one in nobody's directory
# and one others may write are refused with one message.
#
# The test runs in a mount namespace of its own with a fresh /tmp, so that
# the loop sees only this test's harness (never another's work directory).
# HOSTILE_BENCH names another harness binary to run instead of the tree's
# (an older one, to see the test fail on it).  Run as root; prints TAP
# lines, "N passed, N failed" and the plan.
#
#   PG_CONFIG=/path/to/pg_config bench/t/hostile.sh
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG, PGBIN; BENCH; ok, is, skip, bail, as_postgres
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../test/lib.sh"

require_root
BENCH=${HOSTILE_BENCH:-$BENCH}
require_bench
id nobody >/dev/null 2>&1 || bail "no user nobody"

# Into a mount namespace with a private /tmp and /dev/shm; the work directory (with a
# copy of the harness) is not under /tmp, so that it stays visible.
if [ -z "${WSB_HOSTILE_INSIDE:-}" ]; then
	command -v unshare >/dev/null || bail "no unshare (util-linux)"
	exec env WSB_HOSTILE_INSIDE=1 unshare --mount --propagation private bash "$0" "$@"
fi
work=$(mktemp -d /var/tmp/wsb_hostile.XXXXXX) || bail "no work directory"
chmod 755 "$work"
# the harness may be under /tmp (scripts/test.sh's copy), which goes now
cp "$BENCH" "$work/wal_stall_bench" || bail "could not copy $BENCH"
# and the presets beside it, where it looks for them
cp -r "$here/presets" "$work/presets" || bail "could not copy $here/presets"
BENCH=$work/wal_stall_bench
# The namespace began with a copy of every mount there was, another
# harness's slow disk under /tmp among them: a copy that would keep that
# file system, and so its loop device, busy after its owner unmounts it.
# Dropped here, in this namespace only (private: nothing propagates out).
findmnt -rn -o TARGET | grep '^/tmp/' | sort -r | while read -r m; do umount -l "$m"; done
mount -t tmpfs -o mode=1777 wsb_hostile_tmp /tmp || bail "could not mount a private /tmp"
# and /dev/shm, where --in-memory works
mount -t tmpfs -o mode=1777 wsb_hostile_shm /dev/shm || bail "could not mount a private /dev/shm"
# the current directory may have been under /tmp (a clone there), which
# this namespace no longer shows: the harness's children (pg_ctl, psql)
# would each say they cannot change to it
cd / || bail "cannot change to /"
port=5600
pgdata=$work/pg/data
planter=""
cleanup() {
	touch "$work/stop"
	[ -n "$planter" ] && wait "$planter" 2>/dev/null
	as_postgres "$PGBIN/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# The canary: root's, 0600, in a directory only root may enter.
mkdir -m 700 "$work/canary"
head -c 64 /dev/urandom | base64 >"$work/canary/canary"
chmod 600 "$work/canary/canary"
canary_sum=$(sha256sum <"$work/canary/canary")

# What root wrote by name in the work directory and OUT (669fe1e), and
# what is written (as its owner) in the temporary cluster's data directory.
work_names="script.sql initdb.log pgbench_init.log pg_ctl.out control.out server.log
	validate.bt trace_1.out trace_1.err trace_2.out trace_2.err run_1.out run_1.err
	run_2.out run_2.err slow_disk.img slow_disk"
out_names="plan.txt results.csv timeline.csv advice.csv verdicts.csv report.html restore.sql
	server.log pgbench_run_1.txt pgbench_run_2.txt validate.bt trace_run_1.txt plots"
data_names="wal_stall_bench.conf postgresql.conf"

# The loop, as postgres: links to the canary at names ending .sql .conf
# .img .bt, to new names beside it at the others; the image replaced once
# it exists.  With a third argument "data" also in the temporary
# cluster's data directory (WORKDIR/owner/data), its postgresql.conf
# replaced once it exists: the owner's own directory, where the harness
# writes only as the owner, so the run fails there and the canary stays.
# Each work directory seen, in /tmp or in /dev/shm (--in-memory), is
# logged (the proof that the loop ran beside the harness).
cat >"$work/plant.sh" <<'SH'
#!/bin/bash
work=$1 out=$2 data=${3:-} canary=$work/canary/canary
plant() {	# plant DIR NAME
	case $2 in
	*.sql|*.conf|*.img|*.bt|slow_disk) ln -s "$canary" "$1/$2" ;;
	*) ln -s "$work/canary/new_$2" "$1/$2" ;;
	esac
} 2>/dev/null
while [ ! -e "$work/stop" ]; do
	for d in /tmp/wal_stall_bench.* /dev/shm/wal_stall_bench.*; do
		[ -d "$d" ] || continue
		grep -qxF "$d" "$work/seen" 2>/dev/null || echo "$d" >>"$work/seen"
		for n in $WORK_NAMES; do plant "$d" "$n"; done
		[ -f "$d/slow_disk.img" ] && [ ! -L "$d/slow_disk.img" ] &&
			ln -sfn "$canary" "$d/slow_disk.img" 2>/dev/null
		[ -n "$data" ] && [ -d "$d/owner/data" ] || continue
		for n in $DATA_NAMES; do plant "$d/owner/data" "$n"; done
		[ -f "$d/owner/data/postgresql.conf" ] && [ ! -L "$d/owner/data/postgresql.conf" ] &&
			ln -sfn "$canary" "$d/owner/data/postgresql.conf" 2>/dev/null
	done
	for n in $OUT_NAMES; do plant "$out" "$n"; done
	# root's environment, in a process of postgres's (pg_ctl, the server)
	grep -lsF WSB_HOSTILE_SECRET= /proc/[0-9]*/environ >>"$work/envleak"
	sleep 0.01
done
SH
chmod 755 "$work/plant.sh"
touch "$work/seen" "$work/envleak"
chown postgres "$work/seen" "$work/envleak"

start_planter() {	# start_planter OUT [data]
	rm -f "$work/stop"
	: >"$work/seen"
	WORK_NAMES=$work_names DATA_NAMES=$data_names OUT_NAMES=$out_names \
		runuser -u postgres -- "$work/plant.sh" "$work" "$1" "${2:-}" &
	planter=$!
}
stop_planter() {
	touch "$work/stop"
	wait "$planter" 2>/dev/null
	planter=""
}

# The harness with ARGS beside the loop (PLANT "data": in the cluster's
# data directory too), into OUT: its status in rc, its output in
# TAG.out and TAG.err.
planted_run() {	# planted_run OUT TAG PLANT ARGS...
	local out=$1 tag=$2 plant=$3
	shift 3
	start_planter "$out" "$plant"
	WSB_HOSTILE_SECRET=hunter2 "$BENCH" "${common[@]}" "$@" --out "$out" \
		>"$work/$tag.out" 2>"$work/$tag.err"
	rc=$?
	stop_planter
}

# "WHAT: exit status 0", TAG.err shown when not.
exited_zero() {	# exited_zero WHAT TAG
	is "$rc" 0 "$1: exit status 0"
	[ "$rc" = 0 ] || sed 's/^/# /' "$work/$2.err"
}

# restore.sql, while it exists: its mode, whether nobody can read it, and
# a copy (root's) to look for the password in.
watch_journal() {	# watch_journal OUT: in the background
	while [ ! -e "$work/stop" ]; do
		if [ -f "$1/restore.sql" ] && [ ! -e "$work/journal.mode" ]; then
			stat -c %a "$1/restore.sql" >"$work/journal.mode"
			if runuser -u nobody -- cat "$1/restore.sql" >/dev/null 2>&1; then
				echo readable >"$work/journal.nobody"
			else
				echo refused >"$work/journal.nobody"
			fi
			cp "$1/restore.sql" "$work/journal.copy"
		fi
		sleep 0.01
	done
}

canary_intact() {	# canary_intact WHAT
	local owner extra
	owner=$(stat -c '%U %a' "$work/canary/canary")
	extra=$(find "$work/canary" -mindepth 1 ! -name canary)
	is "$(sha256sum <"$work/canary/canary")" "$canary_sum" "$1: the canary's contents are unchanged"
	is "$owner" "root 600" "$1: the canary is still root's, mode 600"
	is "$extra" "" "$1: no new file beside the canary"
}

loop_ran() {	# loop_ran WHAT: the loop saw a work directory while the run went on
	ok "$1: the postgres loop saw the harness's work directory" test -s "$work/seen"
	sed 's/^/# saw /' "$work/seen"
}

nothing_left() {
	local l
	l=$({
		ls -d /tmp/wal_stall_bench.* /dev/shm/wal_stall_bench.* 2>/dev/null
		[ -s "$work/seen" ] && losetup -a 2>/dev/null | grep -F -f "$work/seen"
		[ -s "$work/seen" ] && findmnt -rn -o TARGET 2>/dev/null | grep -F -f "$work/seen"
	})
	[ -z "$l" ] || { echo "# left behind: $l"; return 1; }
}

printf '\\set aid random(1, 100000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n' \
	>"$work/script.sql"
common=(--pg-config "$PG_CONFIG" --set wal_buffers=32kB,1MB --runs 1 --duration 2
	--clients 2 --scale 1 --quiet)

# ---------- 1. a temporary cluster, --slow-wal where possible, --script ----------
slow=()
if [ -e /dev/loop-control ] && command -v losetup >/dev/null &&
	{ [ -e /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device ] ||
		grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; }; then
	slow=(--slow-wal 200)
else
	echo "# no loop device or io cgroup here: the temporary cluster runs without --slow-wal"
fi
out1=$work/out1
planted_run "$out1" t1 "" "${slow[@]}" --script "$work/script.sql"
exited_zero "temporary cluster" t1
loop_ran "temporary cluster"
canary_intact "temporary cluster"
ok "temporary cluster: report.html written" test -s "$out1/report.html"
if [ ${#slow[@]} -gt 0 ]; then
	ok "temporary cluster: pg_wal was on the slow disk" grep -q 'pg_wal alone on loop device' "$out1/report.html"
fi
ok "temporary cluster: report.html is not readable by nobody" \
	eval '! runuser -u nobody -- cat "$out1/report.html" >/dev/null 2>&1'
ok "temporary cluster: report.html is not readable by postgres" \
	eval '! runuser -u postgres -- cat "$out1/report.html" >/dev/null 2>&1'
is "$(stat -c %a "$out1" "$out1/report.html" "$out1/results.csv" "$out1/plan.txt" | tr '\n' ' ')" \
	"700 600 600 600 " "temporary cluster: OUT 700, report.html, results.csv, plan.txt 600"
ok "temporary cluster: nothing left behind" nothing_left
is "$(sort -u "$work/envleak")" "" \
	"temporary cluster: no process of postgres's had root's environment (WSB_HOSTILE_SECRET)"

# ---------- 1b. --in-memory: the work directory in /dev/shm ----------
planted_run "$work/out1m" t1m "" "${slow[@]}" --in-memory
exited_zero "--in-memory" t1m
loop_ran "--in-memory"
ok "--in-memory: the work directory the loop saw was in /dev/shm" grep -q '^/dev/shm/wal_stall_bench\.' "$work/seen"
canary_intact "--in-memory"
ok "--in-memory: nothing left behind" nothing_left

# ---------- 1c. links in the temporary cluster's data directory ----------
# the owner's directory: the harness writes there only as the owner, who
# cannot open the canary, so the run fails and the canary stays
planted_run "$work/out1d" t1d data
sed 's/^/# /' "$work/t1d.err" | head -3
ok "data directory links: the run did not succeed (status $rc)" [ "$rc" != 0 ]
# where initdb fails depends on which link it meets first: its own error,
# or its bootstrap server's
ok "data directory links: the error quotes initdb's last line, not a log the run removes" \
	eval 'grep -qE "initdb failed \(exit status [0-9]+\): [^ ]" "$work/t1d.err" && ! grep -q "see \"" "$work/t1d.err"'
loop_ran "data directory links"
canary_intact "data directory links"
ok "data directory links: nothing left behind" nothing_left

# ---------- 2. a --pgdata cluster with a primary_conninfo password ----------
secret=hostile_secret_$RANDOM$RANDOM
mkdir -p "$work/pg"
chown postgres "$work/pg"
as_postgres "$PGBIN/initdb" -D "$pgdata" -A trust -N >"$work/initdb.log" 2>&1 ||
	bail "initdb failed"
cat >>"$pgdata/postgresql.conf" <<EOF
port = $port
listen_addresses = ''
unix_socket_directories = '$work/pg'
EOF
as_postgres "$PGBIN/pg_ctl" -D "$pgdata" -l "$work/pg/server.log" -w start >/dev/null ||
	bail "the --pgdata cluster did not start"
as_postgres "$PGBIN/psql" -X -q -h "$work/pg" -p "$port" -d postgres \
	-c "ALTER SYSTEM SET primary_conninfo = 'host=replica.invalid user=rep password=$secret'" \
	-c "SELECT pg_reload_conf()" >/dev/null || bail "could not set primary_conninfo"
cp "$pgdata/postgresql.auto.conf" "$work/auto.before"
out2=$work/out2
rm -f "$work/stop"	# the watcher runs until planted_run's stop_planter
watch_journal "$out2" &
watcher=$!
planted_run "$out2" t2 "" --pgdata "$pgdata"
wait "$watcher" 2>/dev/null
exited_zero "--pgdata" t2
loop_ran "--pgdata"
canary_intact "--pgdata"
ok "--pgdata: postgresql.auto.conf as before" cmp -s "$work/auto.before" "$pgdata/postgresql.auto.conf"
is "$(cat "$work/journal.mode" 2>/dev/null)" 600 "--pgdata: restore.sql is 600 while it exists"
is "$(cat "$work/journal.nobody" 2>/dev/null)" refused "--pgdata: restore.sql is not readable by nobody"
ok "--pgdata: report.html is not readable by nobody" \
	eval '! runuser -u nobody -- cat "$out2/report.html" >/dev/null 2>&1'
ok "--pgdata: the report shows primary_conninfo as (hidden)" \
	grep -q '^primary_conninfo = (hidden)$' "$out2/report.html"
ok "--pgdata: the primary_conninfo password is in no file of OUT" \
	eval '! grep -rqF "$secret" "$out2"'
ok "--pgdata: nor in restore.sql while it existed" \
	eval 'test -f "$work/journal.copy" && ! grep -qF "$secret" "$work/journal.copy"'
ok "--pgdata: nothing left behind" nothing_left

# ---------- 3. --group: OUT and its files readable by a group ----------
out3=$work/out3
"$BENCH" "${common[@]}" --group nogroup --out "$out3" >"$work/t3.out" 2>"$work/t3.err"
rc=$?
exited_zero "--group nogroup" t3
is "$(stat -c '%a %G' "$out3" "$out3/report.html" "$out3/results.csv" "$out3/plots" | tr '\n' ' ')" \
	"2750 nogroup 640 nogroup 640 nogroup 2750 nogroup " \
	"--group nogroup: OUT and plots 2750, report.html and results.csv 640, all of group nogroup"
ok "--group nogroup: report.html not readable by postgres" \
	eval '! runuser -u postgres -- cat "$out3/report.html" >/dev/null 2>&1'

# ---------- 4. an --out another account can change is refused ----------
refused() {	# refused NAME PATTERN OUT
	local name=$1 pattern=$2 dir=$3 lines rc
	"$BENCH" "${common[@]}" --out "$dir" >"$work/r.out" 2>"$work/r.err"
	rc=$?
	lines=$(wc -l <"$work/r.err")
	is "$rc" 1 "--out $name: exit status 1"
	ok "--out $name: one message, saying \"$pattern\"" \
		eval '[ "$lines" = 1 ] && grep -q -- "$pattern" "$work/r.err"'
	[ "$lines" = 1 ] && grep -q -- "$pattern" "$work/r.err" || sed 's/^/# /' "$work/r.err"
	ok "--out $name: nothing written there" eval '[ -z "$(ls -A "$dir" 2>/dev/null)" ]'
}
mkdir "$work/pgout" && chown postgres "$work/pgout"
refused "owned by postgres" 'is owned by "postgres"' "$work/pgout"
mkdir -m 777 "$work/open" && chmod 777 "$work/open"
refused "writable by others" 'group and others may write in it' "$work/open"
mkdir "$work/pgparent" && chown postgres "$work/pgparent"
refused "inside a directory of postgres's" "above it is owned by \"postgres\"" "$work/pgparent/sub"
ok "--out inside a directory of postgres's: the directory the harness made is removed" \
	test ! -e "$work/pgparent/sub"
# a link in sticky /tmp that nobody owns, to a directory of root's: its
# owner could point it elsewhere between the check and the writes
mkdir -m 700 "$work/rootout"
runuser -u nobody -- ln -s "$work/rootout" /tmp/nobody_out
refused "through a link of nobody's" 'the link "/tmp/nobody_out" on its way is owned by "nobody"' \
	/tmp/nobody_out
runuser -u nobody -- ln -s "$work" /tmp/nobody_up
refused "below a link of nobody's" 'the link "/tmp/nobody_up" on its way is owned by "nobody"' \
	/tmp/nobody_up/rootout/sub
ok "--out below a link of nobody's: nothing made there" test ! -e "$work/rootout/sub"

# ---------- 5. presets and scripts another account can change ----------
# nobody plants a preset "quick" in /tmp, root's working directory here, and
# makes a preset and a script of its own: --preset quick reads the presets
# directory's quick.conf (the run then stops at the missing pg_config), and
# every file nobody could change is refused with one message
refused_file() {	# refused_file NAME STATUS PATTERN ARGS...
	local name=$1 want=$2 pattern=$3 lines rc
	shift 3
	(cd /tmp && env -u WSB_PRESETS_DIR "$BENCH" --pg-config /nonexistent/pg_config "$@") \
		>"$work/r.out" 2>"$work/r.err"
	rc=$?
	lines=$(wc -l <"$work/r.err")
	is "$rc" "$want" "$name: exit status $want"
	ok "$name: one message, saying \"$pattern\"" \
		eval '[ "$lines" = 1 ] && grep -qF -- "$pattern" "$work/r.err"'
	[ "$lines" = 1 ] && grep -qF -- "$pattern" "$work/r.err" || sed 's/^/# /' "$work/r.err"
}
runuser -u nobody -- sh -c 'printf "planted = yes\nconf = archive_command = true\n" >/tmp/quick &&
	printf "runs = 2\n" >/tmp/nobody.conf && printf "SELECT 1;\n" >/tmp/nobody.sql &&
	mkdir /tmp/nobodydir && chmod 755 /tmp/nobodydir'
printf 'runs = 2\n' >/tmp/nobodydir/root.conf
printf 'script = /tmp/nobody.sql\n' >/tmp/root.conf
refused_file "--preset quick beside a planted /tmp/quick" 1 \
	'--pg-config "/nonexistent/pg_config": not an executable file' --preset quick
refused_file "--preset of nobody's" 2 \
	'cannot use --preset "/tmp/nobody.conf": it is owned by "nobody"' --preset /tmp/nobody.conf
refused_file "--preset of root's in a directory of nobody's" 2 \
	'the directory "/tmp/nobodydir" above it is owned by "nobody"' --preset /tmp/nobodydir/root.conf
refused_file "a preset's script = a file of nobody's" 2 \
	'/tmp/root.conf:1: script: cannot use the file "/tmp/nobody.sql": it is owned by "nobody"' \
	--preset /tmp/root.conf
refused_file "--script of nobody's" 2 \
	'--script: cannot use the file "/tmp/nobody.sql": it is owned by "nobody"' --script /tmp/nobody.sql
printf 'SELECT 1;\n' >/var/tmp/wsb_root_script.sql
runuser -u nobody -- ln -s /var/tmp/wsb_root_script.sql /tmp/nobody_link.sql
refused_file "--script through a link of nobody's to a file of root's" 2 \
	'the link "/tmp/nobody_link.sql" on its way is owned by "nobody"' --script /tmp/nobody_link.sql
rm -f /var/tmp/wsb_root_script.sql
chown root /tmp/nobody.conf && chmod 666 /tmp/nobody.conf
refused_file "--preset others may write" 2 \
	'cannot use --preset "/tmp/nobody.conf": its group and others may write in it (mode 0666)' \
	--preset /tmp/nobody.conf

tap_summary
tap_plan
[ "$failed" = 0 ]
