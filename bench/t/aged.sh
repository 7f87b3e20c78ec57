#!/usr/bin/env bash
# The aged databases of --aged-pages (wal_stall_aged, its copies) on a
# --pgdata cluster, hardened like the harness's own database, and the
# restore.sql a killed run leaves.  A cluster made here, wal_stall
# preloaded, whose socket directory its owner named
# "s;touch pwned;'a b'", with a role regress_nobody (LOGIN only) and a
# superuser regress_holder:
#
#   1. A build that would bring age(datfrozenxid) past half of
#      autovacuum_freeze_max_age (4,096 CLOG pages: 134M xids against
#      200M) is refused with the figures and --yes named; nothing built,
#      postgresql.auto.conf as before.  With --yes it goes ahead with a
#      note of the figures (stopped with Ctrl-C, nothing left).
#   2. During a run, regress_nobody can connect neither to the run's copy
#      nor to the template; in the copy it has no CONNECT, TEMP or CREATE
#      on public; the template is closed to connections, the copy open.
#   3. regress_holder connected to the template while it is built: the
#      harness refuses, naming the role, and leaves no aged database.
#   4. The harness SIGKILLed during the build: the command restore.sql's
#      first lines print, run by root's shell as pasted, runs psql over
#      that socket directory (nothing of its name runs as a command), and
#      leaves no aged database, nor wal_stall_bench, and
#      postgresql.auto.conf as before.
#   5. A socket directory whose name holds a carriage return (which ends
#      a psql comment): refused with one message before any change.
#
# The test runs in a mount namespace of its own with a fresh /tmp, so
# that the work directory a SIGKILLed harness leaves there goes with it.
# WSB_BENCH names another harness binary to test instead of the tree's
# (an older build, to see these tests fail on it).  Port 5623.  Run as
# root; prints TAP lines and "N passed, N failed".
#
#   PG_CONFIG=/path/to/pg_config bench/t/aged.sh
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG, PGBIN; BENCH; ok, is, bail, as_postgres
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../test/lib.sh"

require_root
BENCH=${WSB_BENCH:-$BENCH}
require_bench

# Into a mount namespace with a private /tmp; the work directory (with a
# copy of the harness) is not under /tmp, so that it stays visible.
if [ -z "${WSB_AGED_INSIDE:-}" ]; then
	command -v unshare >/dev/null || bail "no unshare (util-linux)"
	exec env WSB_AGED_INSIDE=1 unshare --mount --propagation private bash "$0" "$@"
fi
work=$(mktemp -d /var/tmp/wsb_aged.XXXXXX) || bail "no work directory"
chmod 755 "$work"
cp "$BENCH" "$work/wal_stall_bench" || bail "could not copy $BENCH"
BENCH=$work/wal_stall_bench
# another harness's slow disk under /tmp would stay busy through this
# namespace's copy of its mount
findmnt -rn -o TARGET | grep '^/tmp/' | sort -r | while read -r m; do umount -l "$m"; done
mount -t tmpfs -o mode=1777 wsb_aged_tmp /tmp || bail "could not mount a private /tmp"
cd / || bail "cannot change to /"

port=5623
pgdata=$work/pg/data
sock="$work/pg/s;touch pwned;'a b'"
holder=""
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	as_postgres "$PGBIN/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/pg" "$sock" "$work/cwd"
chown postgres "$work/pg" "$sock"
as_postgres "$PGBIN/initdb" -D "$pgdata" -A trust -N >"$work/initdb.log" 2>&1 || bail "initdb failed"
# one element, double-quoted; each ' doubled inside the literal
cat >>"$pgdata/postgresql.conf" <<EOF
port = $port
listen_addresses = ''
unix_socket_directories = '"${sock//\'/\'\'}"'
shared_preload_libraries = 'wal_stall'
EOF
as_postgres "$PGBIN/pg_ctl" -D "$pgdata" -l "$work/pg/server.log" -w start >/dev/null ||
	bail "the --pgdata cluster did not start"

psql_as() {	# psql_as ROLE DB SQL: one statement's rows, unaligned
	as_postgres "$PGBIN/psql" -X -At -h "$sock" -p "$port" -U "$1" -d "$2" -c "$3"
}
psql_as postgres postgres "CREATE ROLE regress_nobody LOGIN" >/dev/null &&
	psql_as postgres postgres "CREATE ROLE regress_holder LOGIN SUPERUSER" >/dev/null ||
	bail "could not create the roles"
aged_dbs() { psql_as postgres postgres "SELECT string_agg(datname, ' ' ORDER BY datname) FROM pg_database WHERE datname LIKE 'wal_stall%'"; }
db_exists() { [ "$(psql_as postgres postgres "SELECT count(*) FROM pg_database WHERE datname = '$1'")" = 1 ]; }
bench_pg() {	# bench_pg NAME ARGS...: a CLOG run on the cluster, OUT $work/NAME
	local name=$1
	shift
	"$BENCH" --pg-config "$PG_CONFIG" --pgdata "$pgdata" --set synchronous_commit=off,on --runs 1 \
		--clients 1 --scale 1 --aged-rows-per-page 128 --out "$work/$name" "$@" \
		>"$work/$name.out" 2>"$work/$name.err"
}
show_err() { sed 's/^/# /' "$work/$1.err" | tail -8; }
poll() {	# poll COMMAND...: true once it is (60 s at most)
	for _ in $(seq 1 600); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
cp "$pgdata/postgresql.auto.conf" "$work/auto.before"

# ---------- 1. the build's transaction IDs against autovacuum_freeze_max_age ----------
# 4,096 pages x 32,768: 134,217,728 xids, past half of the default 200M;
# an old harness would start burning them (stopped after 60 s)
timeout 60 "$BENCH" --pg-config "$PG_CONFIG" --pgdata "$pgdata" --set synchronous_commit=off,on \
	--runs 1 --duration 2 --clients 1 --scale 1 --aged-pages 4096 --aged-rows-per-page 128 \
	--out "$work/age" >"$work/age.out" 2>"$work/age.err"
rc=$?
is "$rc" 1 "xid age: exit status 1"
ok "xid age: the refusal gives the figures and names --yes" \
	grep -qE "would take 134217728 transaction IDs and bring the oldest age\(datfrozenxid\) of the cluster at \"$pgdata\" from [0-9]+ to about [0-9]+, past 50% of autovacuum_freeze_max_age \(200000000\).*pass --yes" "$work/age.err"
[ "$rc" = 1 ] || show_err age
is "$(aged_dbs)" "" "xid age: nothing built, no database of the harness's left"
ok "xid age: postgresql.auto.conf as before" cmp -s "$work/auto.before" "$pgdata/postgresql.auto.conf"
# with --yes it goes ahead, saying so; stopped with Ctrl-C once the build began
"$BENCH" --pg-config "$PG_CONFIG" --pgdata "$pgdata" --set synchronous_commit=off,on --yes \
	--runs 1 --duration 2 --clients 1 --scale 1 --aged-pages 4096 --aged-rows-per-page 128 \
	--out "$work/ageyes" >"$work/ageyes.out" 2>"$work/ageyes.err" &
bench=$!
ok "xid age, --yes: the build goes ahead with a note of the figures" \
	poll grep -qE "the aged table takes 134217728 transaction IDs: the oldest age\(datfrozenxid\) goes from [0-9]+ to about [0-9]+, past 50% of autovacuum_freeze_max_age \(200000000\); going on \(--yes\)" "$work/ageyes.err"
poll db_exists wal_stall_aged
kill -INT "$bench"
wait "$bench"
is "$?" 130 "xid age, --yes: Ctrl-C during the build, exit status 130"
is "$(aged_dbs)" "" "xid age, --yes: no database of the harness's left"

# ---------- 2. no way in for a role without privileges ----------
# the run's pgbench on the run's copy: the copy exists, the template is built
pgbench_on_copy() { pgrep -af "pgbench " | grep -- "-p $port " | grep -q wal_stall_aged_run; }
bench_pg priv --aged-pages 4 --duration 5 &
bench=$!
if poll pgbench_on_copy; then
	psql_as regress_nobody wal_stall_aged_run "SELECT 1" >"$work/nobody_run.out" 2>&1
	nobody_run=$?
	psql_as regress_nobody wal_stall_aged "SELECT 1" >"$work/nobody_template.out" 2>&1
	nobody_template=$?
	privileges=$(psql_as postgres wal_stall_aged_run "SELECT has_database_privilege('regress_nobody', current_database(), 'CONNECT'), has_database_privilege('regress_nobody', current_database(), 'TEMP'), has_schema_privilege('regress_nobody', 'public', 'CREATE')" 2>&1)
	allowconn=$(psql_as postgres postgres "SELECT string_agg(datname || '=' || datallowconn, ' ' ORDER BY datname) FROM pg_database WHERE datname LIKE 'wal_stall_aged%'" 2>&1)
else
	nobody_run=0 nobody_template=0 privileges="no run seen" allowconn="no run seen"
fi
wait "$bench"
rc=$?
is "$rc" 0 "privileges: the run's exit status 0"
[ "$rc" = 0 ] || show_err priv
ok "privileges: regress_nobody cannot connect to the run's copy" \
	eval '[ "$nobody_run" != 0 ] && grep -q "permission denied for database \"wal_stall_aged_run\"" "$work/nobody_run.out"'
ok "privileges: regress_nobody cannot connect to the template" \
	eval '[ "$nobody_template" != 0 ] && grep -q "database \"wal_stall_aged\" is not currently accepting connections" "$work/nobody_template.out"'
is "$privileges" "f|f|f" "privileges: in the copy, no CONNECT, TEMP or CREATE on public for regress_nobody"
is "$allowconn" "wal_stall_aged=false wal_stall_aged_run=true" \
	"privileges: the template closed to connections, the copy open"
is "$(aged_dbs)" "" "privileges: no database of the harness's left"

# ---------- 3. a superuser holding a session in the template ----------
bench_pg hold --aged-pages 20 --duration 2 &
bench=$!
if poll psql_as regress_holder wal_stall_aged "SELECT 1" >/dev/null 2>&1; then
	psql_as regress_holder wal_stall_aged "SELECT pg_sleep(600)" >/dev/null 2>&1 &
	holder=$!
fi
held() { [ "$(psql_as postgres postgres "SELECT count(*) FROM pg_stat_activity WHERE usename = 'regress_holder' AND datname = 'wal_stall_aged'")" = 1 ]; }
ok "holder: regress_holder holds a session in the template while it is built" poll held
wait "$bench"
rc=$?
is "$rc" 1 "holder: exit status 1"
ok "holder: the refusal names the role and its pid" \
	grep -qE 'database "wal_stall_aged" is in use by role "regress_holder" \(pid [0-9]+\): a run.s copy of it needs it to itself' "$work/hold.err"
[ "$rc" = 1 ] || show_err hold
is "$(aged_dbs)" "" "holder: no database of the harness's left"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=""

# ---------- 4. SIGKILL during the build, then restore.sql's command ----------
bench_pg kill --aged-pages 20 --duration 2 &
bench=$!
ok "SIGKILL: the build started (wal_stall_aged exists)" poll db_exists wal_stall_aged
kill -KILL "$bench"
wait "$bench" 2>/dev/null
ok "SIGKILL: the harness left restore.sql" test -s "$work/kill/restore.sql"
cmd=$(sed -n 's/^--   //p' "$work/kill/restore.sql" | head -1)
echo "# $cmd"
# as pasted into root's shell
(cd "$work/cwd" && eval "$cmd") >"$work/restore.out" 2>&1
rc=$?
is "$rc" 0 "SIGKILL: restore.sql's command exits 0"
ok "SIGKILL: nothing of the socket directory's name ran as a command" test ! -e "$work/cwd/pwned"
ok "SIGKILL: restore.sql ran without an error" eval '! grep -q ERROR "$work/restore.out"'
[ "$rc" = 0 ] || sed 's/^/# /' "$work/restore.out" | tail -5
is "$(aged_dbs)" "" "SIGKILL: restore.sql left no aged database, nor wal_stall_bench"
ok "SIGKILL: postgresql.auto.conf as before" cmp -s "$work/auto.before" "$pgdata/postgresql.auto.conf"

# ---------- 5. a carriage return in the socket directory's name ----------
crsock=$work/pg/cr$'\r'x
mkdir "$crsock" && chown postgres "$crsock"
psql_as postgres postgres "ALTER SYSTEM SET unix_socket_directories = E'$crsock'" >/dev/null
as_postgres "$PGBIN/pg_ctl" -D "$pgdata" -l "$work/pg/server.log" -w restart >/dev/null ||
	bail "the restart with a carriage return in unix_socket_directories failed"
cp "$pgdata/postgresql.auto.conf" "$work/auto.cr"
"$BENCH" --pg-config "$PG_CONFIG" --pgdata "$pgdata" --set synchronous_commit=off,on --runs 1 \
	--duration 1 --clients 1 --scale 1 --quiet --out "$work/cr" >"$work/cr.out" 2>"$work/cr.err"
rc=$?
is "$rc" 1 "carriage return: exit status 1"
ok "carriage return: one message on stderr" [ "$(wc -l <"$work/cr.err")" = 1 ]
ok "carriage return: it says why" \
	grep -q "cannot use the cluster at \"$pgdata\": the name of its socket directory holds a control character, which restore.sql could not print safely" "$work/cr.err"
[ "$rc" = 1 ] || show_err cr
ok "carriage return: postgresql.auto.conf as before" cmp -s "$work/auto.cr" "$pgdata/postgresql.auto.conf"
is "$(as_postgres "$PGBIN/psql" -X -At -h "$crsock" -p "$port" -d postgres -c "SELECT string_agg(datname, ' ') FROM pg_database WHERE datname LIKE 'wal_stall%'")" "" \
	"carriage return: no database of the harness's made"

tap_summary
[ "$failed" = 0 ]
