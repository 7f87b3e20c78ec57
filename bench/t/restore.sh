#!/usr/bin/env bash
# Restores and restarts of wal_stall_bench on Debian clusters whose
# configuration is not the default, each run as root, as the docs say:
#
#   1. PostgreSQL's list-quoted settings (GUC_LIST_QUOTE), found by asking
#      the server (ALTER SYSTEM SET name = 'a b', 'c' quotes "a b" only for
#      them; each RESET afterwards), are all in bench/autoconf.c's list.
#   2. A DBA's ALTER SYSTEM during a run, of a setting the harness does not
#      touch and of one it changed: both kept, the second named.
#   3. postgresql.auto.conf with shared_preload_libraries = '' (an empty
#      list ALTER SYSTEM cannot write back): refused before anything
#      changes, with one message; the cluster as before.
#   4. A cluster whose postgresql.auto.conf sets wal_buffers and then a
#      two-directory unix_socket_directories: pg_ctlcluster exits 1 on
#      every restart although the server comes up; the harness checks the
#      server, says so, measures both runs, and leaves the cluster running
#      with postgresql.auto.conf and pg_settings as before, byte for byte.
#      The run's restore.sql, run again afterwards, changes nothing.
#      Last: with two directories pg_ctlcluster waits 30 s before each of
#      those exits, so 2. and 3. run on one.
#
# Skipped, with the reason, where pg_createcluster is missing or PG_CONFIG
# is not Debian's PostgreSQL.  Port 5621.  WSB_BENCH names another
# harness binary to test instead of the tree's (an older build, to see
# these tests fail on it).  Prints TAP lines and "N passed, N failed".
#
#   PG_CONFIG=/path/to/pg_config bench/t/restore.sh
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG, PGBIN, PG_MAJOR; BENCH; ok, is, skip, bail
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../test/lib.sh"

require_root
BENCH=${WSB_BENCH:-$BENCH}
require_bench

major=$PG_MAJOR
if ! command -v pg_createcluster >/dev/null; then
	skip "no pg_createcluster (postgresql-common is not installed)"
	tap_summary
	exit 0
fi
if [ "$PGBIN" != "/usr/lib/postgresql/$major/bin" ]; then
	skip "$PG_CONFIG is not Debian's PostgreSQL $major: pg_createcluster cannot make its clusters"
	tap_summary
	exit 0
fi

# a run killed before its trap (SIGKILL, a reboot) leaves its cluster:
# drop any whose run is gone, so pg_lsclusters does not keep them
for old in $(pg_lsclusters -h | awk -v m="$major" '$1 == m && $2 ~ /^wsbrestore[0-9]+$/ { print $2 }'); do
	pid=${old#wsbrestore}
	grep -qs restore.sh "/proc/$pid/cmdline" && continue
	pg_dropcluster --stop "$major" "$old" >/dev/null 2>&1 || true
	rm -rf "/tmp/wsb_restore_sock.$pid"
done

work_dir wsb_restore
dc=wsbrestore$$
port=5621
dcdir=/var/lib/postgresql/$major/$dc
sock2=/tmp/wsb_restore_sock.$$
drop_dc() {
	pg_dropcluster --stop "$major" "$dc" >/dev/null 2>&1 || true
	rm -rf "$sock2" "$work"
}
trap drop_dc EXIT
pg_createcluster "$major" "$dc" --port "$port" >/dev/null || bail "pg_createcluster $major $dc failed"
install -d -o postgres -g postgres -m 700 "$sock2"

psql_dc() { runuser -u postgres -- "$PGBIN/psql" -X -p "$port" -d postgres -At "$@"; }
online() { pg_lsclusters -h | awk -v c="$dc" '$2 == c && $4 == "online"' | grep -q .; }
# pg_ctlcluster's own exit status is what this test is about: the server
# decides, polled until it accepts connections (60 s at most)
wait_up() {
	for _ in $(seq 1 600); do
		online && psql_dc -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}
restart_dc() { pg_ctlcluster "$major" "$dc" restart >/dev/null 2>&1; wait_up; }
state() {	# state FILE: everything that must be as before
	psql_dc -c "SELECT name, setting, pending_restart FROM pg_settings ORDER BY name" >"$1.settings"
	psql_dc -c "SELECT datname FROM pg_database ORDER BY 1" >"$1.dbs"
	cp "$dcdir/postgresql.auto.conf" "$1.auto"
	pg_lsclusters -h | awk -v c="$dc" '$2 == c { $1 = $1; print }' >"$1.ls"
}
same_state() {
	local f
	for f in settings dbs auto ls; do
		cmp -s "$1.$f" "$2.$f" || { diff -u "$1.$f" "$2.$f" | head -20 | sed 's/^/# /'; return 1; }
	done
}
# a measured run's pgbench, not pgbench -i before the runs
pgbench_running() { pgrep -af "pgbench " | grep -- "-p $port " | grep -qv -- " -i "; }
wait_for_pgbench() {
	for _ in $(seq 1 900); do
		pgbench_running && return 0
		sleep 0.1
	done
	return 1
}
bench_dc() {	# bench_dc NAME ARGS...: a short run on the cluster, OUT $work/NAME
	local name=$1
	shift
	"$BENCH" --pg-config "$PG_CONFIG" --cluster "$major/$dc" --runs 1 --duration 2 --clients 1 \
		--scale 1 --out "$work/$name" "$@" >"$work/$name.out" 2>"$work/$name.err"
}
show_err() { sed 's/^/# /' "$work/$1.err" | tail -15; }

pg_ctlcluster "$major" "$dc" start || bail "pg_ctlcluster $major $dc start failed"

# ---------- 1. the list-quoted settings: the server's, all in ours ----------
ours=$(sed -n '/^const char \*const wsb_list_quote_settings\[\] = {/,/NULL/p' "$here/autoconf.c" |
	sed -n 's/^[[:space:]]*"\([a-z_]*\)",$/\1/p' | sort)
cp "$dcdir/postgresql.auto.conf" "$work/probe.before"
psql_dc -c "SELECT name FROM pg_settings WHERE vartype = 'string' AND context <> 'internal' ORDER BY 1" \
	>"$work/strings"
# one statement a line: ALTER SYSTEM cannot run in a transaction block;
# the settings that take one value only refuse the list, as they should
sed "s/.*/ALTER SYSTEM SET & = 'a b', 'c';/" "$work/strings" | psql_dc -q >/dev/null 2>&1
# a list-quoted setting's elements are written as quoted identifiers
sed -n "s/^\([a-z_]*\) = '\"a b\", c'\$/\1/p" "$dcdir/postgresql.auto.conf" | sort >"$work/quoted"
sed "s/.*/ALTER SYSTEM RESET &;/" "$work/strings" | psql_dc -q >/dev/null 2>&1
ok "list-quoted settings: the probe finds search_path and unix_socket_directories (it works)" \
	eval 'grep -qx search_path "$work/quoted" && grep -qx unix_socket_directories "$work/quoted"'
missing=$(comm -23 "$work/quoted" <(echo "$ours"))
is "$missing" "" "list-quoted settings: every one of PostgreSQL $major's is in autoconf.c's list"
ok "list-quoted settings: postgresql.auto.conf as before after the probe" cmp -s "$work/probe.before" "$dcdir/postgresql.auto.conf"

# ---------- 2. a DBA's ALTER SYSTEM during the run ----------
# On one socket directory: pg_ctlcluster waits 30 s before it exits 1 on
# every start with two (4. below), and nothing here depends on that.
psql_dc -q -c "ALTER SYSTEM SET wal_buffers = '2MB'"
restart_dc
state "$work/s0"
bench_dc dba --set wal_buffers=4MB --duration 4 &
bench=$!
ok "DBA's ALTER SYSTEM: a run started" wait_for_pgbench
psql_dc -q -c "ALTER SYSTEM SET work_mem = '7MB'" -c "ALTER SYSTEM SET wal_buffers = '8MB'"
wait "$bench"
rc=$?
ok "DBA's ALTER SYSTEM: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || show_err dba
# what the file must hold: wal_buffers' line, in its place, as the DBA
# left it, and the DBA's new line last; nothing else changed
sed "s/^wal_buffers = '2MB'\$/wal_buffers = '8MB'/" "$work/s0.auto" >"$work/want.auto"
echo "work_mem = '7MB'" >>"$work/want.auto"
ok "DBA's ALTER SYSTEM: postgresql.auto.conf holds both of the DBA's entries and the rest as before" \
	cmp -s "$work/want.auto" "$dcdir/postgresql.auto.conf"
cmp -s "$work/want.auto" "$dcdir/postgresql.auto.conf" || diff "$work/want.auto" "$dcdir/postgresql.auto.conf" | sed 's/^/# /'
ok "DBA's ALTER SYSTEM: the end message names wal_buffers as changed under the harness" \
	grep -q "wal_buffers changed during the run by someone else: kept as they left it in postgresql.auto.conf ('8MB'), not restored to '2MB'" "$work/dba.err"
ok "DBA's ALTER SYSTEM: the message does not name work_mem, which the harness never touched" \
	eval '! grep -q "work_mem" "$work/dba.err"'
is "$(psql_dc -c "SELECT setting FROM pg_settings WHERE name = 'wal_buffers' AND NOT pending_restart")" 1024 \
	"DBA's ALTER SYSTEM: the DBA's wal_buffers is the server's (8MB, nothing pending)"
psql_dc -q -c "ALTER SYSTEM RESET work_mem" -c "ALTER SYSTEM SET wal_buffers = '2MB'"
restart_dc
state "$work/s2"
ok "DBA's ALTER SYSTEM: the DBA's changes undone by hand, as before" same_state "$work/s0" "$work/s2"

# ---------- 3. an empty shared_preload_libraries in postgresql.auto.conf ----------
# no ALTER SYSTEM writes this line: written as a DBA's editor would, stopped
pg_ctlcluster "$major" "$dc" stop >/dev/null 2>&1
echo "shared_preload_libraries = ''" >>"$dcdir/postgresql.auto.conf"
pg_ctlcluster "$major" "$dc" start >/dev/null 2>&1
wait_up
state "$work/s3"
bench_dc empty --set wal_buffers=1MB,4MB --quiet
rc=$?
ok "empty shared_preload_libraries: exit status 1 (got $rc)" [ "$rc" = 1 ]
ok "empty shared_preload_libraries: one message on stderr" [ "$(wc -l <"$work/empty.err")" = 1 ]
ok "empty shared_preload_libraries: it says why" \
	grep -q "postgresql.auto.conf sets shared_preload_libraries to the empty list (''), which the harness, changing shared_preload_libraries, could not write back" "$work/empty.err"
[ "$(wc -l <"$work/empty.err")" = 1 ] || show_err empty
ok "empty shared_preload_libraries: no restore.sql (nothing was changed)" test ! -e "$work/empty/restore.sql"
ok "empty shared_preload_libraries: running afterwards" online
state "$work/s4"
ok "empty shared_preload_libraries: postgresql.auto.conf, pg_settings, databases as before" \
	same_state "$work/s3" "$work/s4"

# the line taken out again (the server's value is the same: no restart)
psql_dc -q -c "ALTER SYSTEM RESET shared_preload_libraries"

# ---------- 4. wal_buffers, then two socket directories ----------
# wal_buffers = '2MB' is there from 2.: appended after it
psql_dc -q -c "ALTER SYSTEM SET unix_socket_directories = '/var/run/postgresql', '$sock2'"
pg_ctlcluster "$major" "$dc" restart >/dev/null 2>&1
mrc=$?
ok "two socket directories: pg_ctlcluster restart exits non-zero here (got $mrc), the server runs" \
	eval '[ "$mrc" != 0 ] && wait_up'
state "$work/s0"
bench_dc two --set wal_buffers=1MB,4MB &
bench=$!
# restore.sql as the harness wrote it, kept for after the run (the harness
# removes it once the restore is done)
wait_for_pgbench && cp "$work/two/restore.sql" "$work/two.restore.sql"
wait "$bench"
rc=$?
ok "two socket directories: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || show_err two
ok "two socket directories: the manager's exit status said beside the server's answer" \
	grep -q "pg_ctlcluster $major $dc restart exited 1 but the server accepts connections on \"/var/run/postgresql\" port $port: going on" "$work/two.err"
ok "two socket directories: no \"connection pointer is NULL\"" eval '! grep -q "connection pointer is NULL" "$work/two.err"'
ok "two socket directories: both runs measured" python3 - "$work/two/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2 and all(r["ok"] == "true" for r in rows), rows
PY
ok "two socket directories: running afterwards" online
state "$work/s1"
ok "two socket directories: postgresql.auto.conf, pg_settings (nothing pending), databases as before" \
	same_state "$work/s0" "$work/s1"
# restore.sql, run by hand on the restored cluster, must change nothing:
# each directory one literal, the entries in their old order
cmd=$(sed -n 's/^--   //p' "$work/two.restore.sql" | head -1)
ok "restore.sql: kept from the run, its first lines name the command" [ -n "$cmd" ]
eval "$cmd" >"$work/restore_sql.out" 2>&1
ok "restore.sql: runs without an error" eval '! grep -q ERROR "$work/restore_sql.out"'
state "$work/s1r"
ok "restore.sql: postgresql.auto.conf, pg_settings (nothing pending), databases as before" \
	same_state "$work/s0" "$work/s1r"

tap_summary
[ "$failed" = 0 ]
