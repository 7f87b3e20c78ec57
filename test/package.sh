#!/usr/bin/env bash
# Install wal_stall's Debian packages the way a user would, use them, and
# purge them.  Run as root on Debian 12, or inside a root file system of
# scripts/pg_root.sh for the majors it holds (17, 18, 19).  Prints TAP lines
# and ends with "N passed, N failed".
#
#   test/package.sh          PG_CONFIG=/path/to/pg_config test/package.sh
#
#   scripts/pg_root.sh --run 19 . env PG_CONFIG=/usr/lib/postgresql/19/bin/pg_config \
#       bash /wal_stall/test/package.sh
#
# Builds the .debs in a scratch copy (scripts/build_deb.sh), while
# pg_createcluster makes a cluster on a free port; installs
# postgresql-NN-wal-stall and wal-stall-bench with apt-get while lintian
# checks them; preloads wal_stall with ALTER SYSTEM, restarts the cluster
# with pg_ctlcluster, creates the extension, runs pgbench and reads every
# view; runs the installed wal_stall_bench (--help, --version, its man page,
# and, during pgbench's minute, a 2-configuration run of 3 s on its own
# temporary cluster); then drops the cluster, purges both packages and
# checks that none of the paths dpkg -L listed is left.  What runs beside
# something else only reads what the other writes, or has its own cluster.
#
# The packages install into the system's PostgreSQL (its lib and extension
# directories), over the files a "make install" may have put there: those
# are saved before the install and put back after the purge (also when the
# test fails), so the machine's PostgreSQL is left as it was.  Refuses to
# start if either package is installed already.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG, PGBIN, PG_MAJOR; ok, is, bail, tap_summary
# shellcheck source=SCRIPTDIR/../test/lib.sh
. "$top/test/lib.sh"
major=$PG_MAJOR
ext_pkg=postgresql-$major-wal-stall
bench_pkg=wal-stall-bench
cluster=wsbpkg

# to_log LOG COMMAND...: run it with its output in LOG, shown if it fails
to_log() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || { tail -20 "$log" | sed 's/^/# /'; return 1; }
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

require_root "run as root (apt-get, pg_createcluster)"
for p in "$ext_pkg" "$bench_pkg"; do
	installed "$p" && bail "$p is installed already; this test installs and purges it"
done
pg_lsclusters -h | awk '{print $1 "/" $2}' | grep -qx "$major/$cluster" &&
	bail "a cluster $major/$cluster exists already"

dir=$(mktemp -d /tmp/wal_stall_pkgtest.XXXXXX)
chmod 755 "$dir"	# apt-get's _apt user reads the .debs, postgres the scripts
we_installed=0
files_saved=0
cleanup() {
	# a cluster being made is waited for (an initdb), then dropped below
	[ -n "${createcluster_pid:-}" ] && wait "$createcluster_pid" 2>/dev/null
	# lintian (runuser's child, in a process group of its own) and the
	# harness (which drops its temporary cluster on SIGTERM), if still running
	[ -n "${lintian_pid:-}" ] && kill -- "-$lintian_pid" 2>/dev/null && wait "$lintian_pid" 2>/dev/null
	[ -n "${harness_pid:-}" ] && kill "$harness_pid" 2>/dev/null && wait "$harness_pid" 2>/dev/null
	if pg_lsclusters -h 2>/dev/null | awk '{print $1 "/" $2}' | grep -qx "$major/$cluster"; then
		pg_dropcluster --stop "$major" "$cluster" >/dev/null 2>&1
	fi
	if [ "$we_installed" = 1 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "$ext_pkg" "$bench_pkg" >/dev/null 2>&1
	fi
	if [ "$files_saved" = 1 ]; then
		tar -C / -xpf "$dir/files_before.tar"
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM	# test.sh's time limit: clean up all the same
step() { echo "# $* (at ${SECONDS}s)"; }

# ---------- a cluster, made while the packages build ----------
# pg_createcluster is postgresql-common's, not the packages': its initdb
# runs beside the build.  A free port (perl: a minimal root has no python);
# a root shares the machine's network, so pg_createcluster's own choice
# could be taken.
port=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1")->sockport')
step "pg_createcluster $major $cluster --port $port, beside the build"
pg_createcluster "$major" "$cluster" --port "$port" >"$dir/createcluster.log" 2>&1 &
createcluster_pid=$!
# show_log_if STATUS LOG: STATUS as an exit status, LOG shown if it failed
show_log_if() { [ "$1" -eq 0 ] || { tail -20 "$2" | sed 's/^/# /'; return 1; }; }

# ---------- build ----------
step "building the packages"
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
upstream=${version%-*}
arch=$(dpkg --print-architecture)
ext_deb=$dir/debs/${ext_pkg}_${version}_$arch.deb
bench_deb=$dir/debs/${bench_pkg}_${version}_$arch.deb
ok "scripts/build_deb.sh builds the packages" \
	to_log "$dir/build_deb.log" bash "$top/scripts/build_deb.sh" --lintian-later "$dir/debs"
ok "$(basename "$ext_deb") built" test -s "$ext_deb"
ok "$(basename "$bench_deb") built" test -s "$bench_deb"
[ -s "$ext_deb" ] && [ -s "$bench_deb" ] || bail "no packages to install"
# lintian only reads the .debs: it runs while they are installed and used
# (a third of the build's time), and its verdict is read at the end.
setsid bash "$top/scripts/build_deb.sh" --lintian-only "$dir/debs" >"$dir/lintian.log" 2>&1 &
lintian_pid=$!

# The paths each package holds, and which of them were there before it.
listing() { dpkg-deb -c "$1" | awk '{print $6}' | sed -e 's|^\.||' -e 's|/$||' | grep -v '^$'; }
{ listing "$ext_deb"; listing "$bench_deb"; } | sort -u >"$dir/paths"
while read -r p; do [ -e "$p" ] && echo "$p"; done <"$dir/paths" >"$dir/there_before"
# The files of the packages already there (a "make install" of the tree)
# are overwritten by the install and removed by the purge: they are put
# back afterwards, so that the machine's PostgreSQL is left as it was.
while read -r p; do [ -f "$p" ] && [ ! -L "$p" ] && echo "${p#/}"; done <"$dir/there_before" >"$dir/files_before"
tar -C / -cf "$dir/files_before.tar" -T "$dir/files_before" || bail "could not save the files the packages overwrite"
files_saved=1

# ---------- install ----------
step "apt-get install ./$(basename "$ext_deb") ./$(basename "$bench_deb")"
we_installed=1
export DEBIAN_FRONTEND=noninteractive
ok "apt-get install of both .debs" \
	to_log "$dir/install.log" apt-get install -y -q "$ext_deb" "$bench_deb"
installed "$ext_pkg" && installed "$bench_pkg" || bail "the packages did not install"
dpkg -L "$ext_pkg" "$bench_pkg" | grep -vx '/\.' | sort -u >"$dir/dpkg_L"
libdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
is "$(dpkg -S "$libdir/wal_stall.so" 2>/dev/null | cut -d: -f1)" "$ext_pkg" "$libdir/wal_stall.so belongs to $ext_pkg"
ok "the control file and the install script wal_stall--$upstream.sql are in $sharedir/extension" \
	test -f "$sharedir/extension/wal_stall.control" -a -f "$sharedir/extension/wal_stall--$upstream.sql"
is "$(dpkg -L "$ext_pkg" | grep -cE '/extension/wal_stall--.*\.sql$')" 1 "$ext_pkg installs one SQL script"
# (debian/rules installs them into every major's package, not only the first)
docs_installed() {
	local f missing=""
	for f in README.md.gz docs/reference.md.gz examples/queries.yaml; do
		[ -f "/usr/share/doc/$ext_pkg/$f" ] || missing="$missing $f"
	done
	[ -z "$missing" ] && return 0
	echo "#   missing:$missing; /usr/share/doc/$ext_pkg holds: $(ls "/usr/share/doc/$ext_pkg" 2>&1 | tr '\n' ' ')"
	return 1
}
ok "the README, docs/ and the Prometheus examples are in /usr/share/doc/$ext_pkg" docs_installed
ok "the harness is /usr/bin/wal_stall_bench" test -x /usr/bin/wal_stall_bench
ok "its presets are in /usr/share/wal-stall-bench/presets" test -f /usr/share/wal-stall-bench/presets/quick.conf

# ---------- a cluster, the way a DBA makes one ----------
# made while the packages build (above), started once they are installed
wait "$createcluster_pid"
createcluster_status=$?
createcluster_pid=
ok "pg_createcluster $major $cluster --port $port" \
	show_log_if "$createcluster_status" "$dir/createcluster.log"
ok "pg_ctlcluster $major $cluster start" pg_ctlcluster "$major" "$cluster" start
sql() { runuser -u postgres -- psql -X -p "$port" -At -v ON_ERROR_STOP=1 "$@"; }
# A 32kB WAL ring and asynchronous commits: pgbench fills the ring, so the
# views have stalls to show.  compute_query_id for wal_stall_queries.
ok "ALTER SYSTEM SET shared_preload_libraries = 'wal_stall' (and a small WAL ring)" \
	sql -q -c "ALTER SYSTEM SET shared_preload_libraries = 'wal_stall'" \
	-c "ALTER SYSTEM SET wal_buffers = '32kB'" -c "ALTER SYSTEM SET synchronous_commit = off" \
	-c "ALTER SYSTEM SET compute_query_id = on" -c "ALTER SYSTEM SET track_wal_io_timing = on" \
	-c "ALTER SYSTEM SET autovacuum = off"
ok "pg_ctlcluster $major $cluster restart" pg_ctlcluster "$major" "$cluster" restart
is "$(sql -c 'SHOW shared_preload_libraries')" "wal_stall" "the restarted server preloads wal_stall"
ok "CREATE EXTENSION wal_stall" sql -q -c "CREATE EXTENSION wal_stall"
is "$(sql -c "SELECT extversion FROM pg_extension WHERE extname = 'wal_stall'")" "$upstream" \
	"the extension's version is the package's ($upstream)"
# The collector has no database connection, so it is not in
# pg_stat_activity: ps shows it, a child of this cluster's postmaster.
collector=$(sql -c "SELECT collector_pid FROM wal_stall_status()")
postmaster=$(head -1 "$(sql -c 'SHOW data_directory')/postmaster.pid")
is "$(ps -o ppid= -p "$collector" | tr -d ' ') $(ps -o args= -p "$collector" | grep -o 'wal_stall collector')" \
	"$postmaster wal_stall collector" "wal_stall_status().collector_pid is the cluster's running collector"

# ---------- pgbench ----------
step "pgbench -i -s 1, then 60 s of pgbench -c 4 (the advice needs 60 s)"
pgbench() { runuser -u postgres -- "$PGBIN/pgbench" -p "$port" "$@"; }
ok "pgbench -i -s 1" to_log "$dir/pgbench_init.log" pgbench -i -s 1 postgres
poll_for() {	# poll_for SECONDS SQL: true once it returns t, within SECONDS
	for _ in $(seq 1 $(($1 * 10))); do
		[ "$(sql -c "$2")" = t ] && return 0
		sleep 0.1
	done
	return 1
}
poll() { poll_for 5 "$1"; }

# The ring seen full.  pgbench's commits keep waking the WAL writer, so
# under 4 clients the 32kB ring fills only now and then, and on a fast disk
# its stalls may be shorter than one sample: that load guarantees neither.
# A lone bulk insert does: nothing commits while it runs, the WAL writer
# sleeps wal_writer_delay (200 ms) between rounds, so the inserter itself
# must write out the ring's oldest page for every new one (core counts each
# in pg_stat_wal.wal_buffers_full) and the ring stays full all along.
if [ "$major" -ge 14 ]; then
	core_full() { sql -c "SELECT wal_buffers_full FROM pg_stat_wal"; }
	full0=$(core_full)
	t1=$(sql -c "SELECT now()")
	step "a bulk insert of about 25MB of WAL through the 32kB ring"
	ok "INSERT of 100,000 rows in one statement" sql -q -c "CREATE TABLE wsbpkg_bulk (id int, pad text)" \
		-c "INSERT INTO wsbpkg_bulk SELECT g, repeat('x', 200) FROM generate_series(1, 100000) g"
	# its session has ended, and published its WAL counters with it
	full1=$(core_full)
	echo "# pg_stat_wal.wal_buffers_full: $full0 before the insert, $full1 after"
	ok "pg_stat_wal: core counted the inserter's writes of the full ring" test "$full1" -gt "$full0"
	# The row that carries the insert's counts closes up to a second after
	# the session published them: poll for it.
	history_saw_bulk() {
		poll_for 30 "SELECT sum(wal_buffers_full) >= $full1 - $full0 AND max(buffer_fill_max) > 0.5
			FROM wal_stall_history WHERE sample_time > '$t1'"
	}
	ok "wal_stall_history: the ring seen full during the insert, and core's count of its writes" history_saw_bulk
	sql -c "SELECT count(*), sum(wal_buffers_full), round(max(buffer_fill_max)::numeric, 2),
		round(sum(wal_buffer_full_ms)::numeric, 1) FROM wal_stall_history WHERE sample_time > '$t1'" -F ' | ' |
		sed 's/^/# history after the insert (rows | wal_buffers_full | fill_max | wal_buffer_full_ms): /'
	# The same count over every row since the collector started is the
	# summary's exact_count, core's count since then read now.
	ok "wal_stall_history: its wal_buffers_full rows add up to the summary's exact_count" poll_for 30 "
		SELECT (SELECT sum(wal_buffers_full) FROM wal_stall_history)
			= (SELECT exact_count FROM wal_stall_summary WHERE class = 'wal_buffer_full')"
else
	for _ in 1 2 3 4; do
		skip "PostgreSQL $major has no pg_stat_wal, core's count of buffer-full writes"
	done
fi

# Backends publish their WAL counters at most once a second: the last WAL
# of pgbench -i and the insert would otherwise land in the history rows
# after the start mark (+50% on a 15 s run, measured).
sleep 2
lsn0=$(sql -c "SELECT pg_current_wal_lsn()")
xid0=$(sql -c "SELECT pg_current_xact_id()::text::bigint")
t0=$(sql -c "SELECT now()")
pgbench -c 4 -j 2 -T 60 postgres >"$dir/pgbench.log" 2>&1 &
bench_pid=$!
# The installed harness's short run needs no more than its own temporary
# cluster: it runs in the minute pgbench takes, and is checked below.
step "wal_stall_bench --set wal_buffers=32kB,1MB --runs 1 --duration 3 --scale 1, beside pgbench"
(cd "$dir" && exec wal_stall_bench --pg-config "$PG_CONFIG" --set wal_buffers=32kB,1MB \
	--runs 1 --duration 3 --scale 1 --out "$dir/bench" >"$dir/bench.log" 2>&1) &
harness_pid=$!
# While pgbench runs, a client is seen in a stall.  pgbench's own waits
# are short and, with asynchronous commits, may all fall between two
# samples; so a holder commits in a loop with commit_delay = 100 ms (the
# most it allows; commit_siblings = 0 so that it always sleeps), which
# XLogFlush() sleeps holding WALWriteLock, and a flusher commits with
# synchronous_commit on in a loop, each commit waiting out the holder's
# (wal_flush).  A server-side loop looks every 0.5 ms, for at most 20 s;
# backend_type comes from the transaction's backend-status snapshot, as in
# pg_stat_activity: the loop clears it each time, or clients that
# connected after its first look would stay unnamed.
sql -q -c "CREATE TABLE wsbpkg_held (id int)" -c "CREATE TABLE wsbpkg_stop ()"
commit_loop() {	# commit_loop SETTINGS: commits until wsbpkg_stop has a row, 600 at most
	sql -q -c "$1" -c "DO \$\$
		BEGIN
			FOR i IN 1 .. 600 LOOP
				EXIT WHEN EXISTS (SELECT FROM wsbpkg_stop);
				INSERT INTO wsbpkg_held VALUES (i);
				COMMIT;
			END LOOP;
		END \$\$" >/dev/null 2>&1
}
commit_loop "SET synchronous_commit = on; SET commit_siblings = 0; SET commit_delay = 100000" &
holder_pid=$!
commit_loop "SET synchronous_commit = on" &
flusher_pid=$!
seen=$(sql -q -c "CREATE FUNCTION pg_temp.client_in_stall() RETURNS boolean LANGUAGE plpgsql AS \$\$
	BEGIN
		FOR i IN 1 .. 40000 LOOP
			IF EXISTS (SELECT FROM wal_stall_current WHERE backend_type = 'client backend'
					AND pid <> pg_backend_pid() AND class IS NOT NULL AND waiting_ms >= 0) THEN
				RETURN true;
			END IF;
			PERFORM pg_stat_clear_snapshot();
			PERFORM pg_sleep(0.0005);
		END LOOP;
		RETURN false;
	END \$\$" -c "SELECT pg_temp.client_in_stall()")
sql -q -c "INSERT INTO wsbpkg_stop DEFAULT VALUES"
wait "$holder_pid" "$flusher_pid"
is "$seen" t "wal_stall_current shows a client in a stall while pgbench runs (a flush waiting out a commit_delay)"
wait "$bench_pid"
is "$?" 0 "pgbench -c 4 -j 2 -T 60 ran"
tps=$(sed -nE 's/^tps = ([0-9.]+).*without initial.*/\1/p' "$dir/pgbench.log")
txns=$(sed -nE 's/^number of transactions actually processed: ([0-9]+).*/\1/p' "$dir/pgbench.log")
echo "# pgbench: $txns transactions, $tps tps"
sleep 2	# the last second's row, and backends' WAL counters (published once a second)
lsn_bytes=$(sql -c "SELECT pg_current_wal_lsn() - '$lsn0'::pg_lsn")
xids=$(sql -c "SELECT pg_current_xact_id()::text::bigint - $xid0")

# ---------- every view ----------
step "the views after pgbench"
sql -c "SELECT class, episodes, round(total_ms::numeric, 1) AS total_ms, round(p99_ms::numeric, 2) AS p99_ms,
	exact_count FROM wal_stall_summary ORDER BY class COLLATE \"C\"" -F ' | ' | sed 's/^/# summary: /'
is "$(sql -c "SELECT count(*) FROM wal_stall_summary")" 7 "wal_stall_summary: a row per stall class"
is "$(sql -c "SELECT episodes > 0 AND total_ms > 0 AND abs(mean_ms * episodes - total_ms) < 1e-6 * total_ms
	AND p50_ms <= p95_ms AND p95_ms <= p99_ms AND p99_ms <= max_ms AND resolution_ms > 0
	FROM wal_stall_summary WHERE class = 'wal_buffer_full'")" t \
	"wal_stall_summary: wal_buffer_full episodes, mean = total / episodes, ordered percentiles"
is "$(sql -c "SELECT exact_count > 0 FROM wal_stall_summary WHERE class = 'wal_buffer_full'")" t \
	"wal_stall_summary: core counted WAL-buffer-full writes too (exact_count)"
# Nothing runs now (autovacuum off): the views hold still, but the
# collector may close a last episode between two reads, so poll a little.
ok "wal_stall_histogram: every class's buckets hold all its episodes" poll "
	SELECT bool_and(coalesce(h.episodes, 0) = s.episodes) AND count(h.episodes) >= 1
	FROM wal_stall_summary s
	LEFT JOIN (SELECT class, sum(episodes) AS episodes FROM wal_stall_histogram GROUP BY class) h USING (class)"
sql -c "SELECT min(sample_time)::time(0), max(sample_time)::time(0), count(*), sum(xids), sum(wal_bytes),
	round(sum(wal_buffer_full_ms)::numeric), round(max(buffer_fill_max)::numeric, 2)
	FROM wal_stall_history WHERE sample_time > '$t0'" -F ' | ' |
	sed 's/^/# history (from | to | rows | xids | wal_bytes | wal_buffer_full_ms | fill_max): /'
# The history against core's figures: the WAL position's advance and the
# transaction ids handed out while pgbench ran.
is "$(sql -c "SELECT count(*) >= 55 AND sum(wal_bytes) BETWEEN 0.9 * $lsn_bytes AND 1.1 * $lsn_bytes
	FROM wal_stall_history WHERE sample_time > '$t0'")" t \
	"wal_stall_history: a row per second, summing to the WAL position's advance ($lsn_bytes bytes) within 10%"
is "$(sql -c "SELECT sum(xids) BETWEEN 0.9 * $xids AND 1.1 * $xids
	FROM wal_stall_history WHERE sample_time > '$t0'")" t \
	"wal_stall_history: its xids sum to the transaction ids handed out ($xids) within 10%"

sql -c "SELECT buffers, hits, reads, round(hit_ratio::numeric, 4), lock_episodes FROM wal_stall_clog" -F ' | ' |
	sed 's/^/# clog (buffers | hits | reads | hit_ratio | lock_episodes): /'
is "$(sql -c "SELECT buffers > 0 AND hits + reads > 0 AND hit_ratio BETWEEN 0 AND 1 FROM wal_stall_clog")" t \
	"wal_stall_clog: the CLOG cache was read (hits + reads > 0), hit ratio in [0, 1]"
sql -c "SELECT q.class, q.episodes, round(q.total_ms::numeric, 1), left(regexp_replace(a.query, '\s+', ' ', 'g'), 50)
	FROM wal_stall_queries q LEFT JOIN (SELECT DISTINCT query_id, query FROM pg_stat_activity) a ON a.query_id = q.queryid
	ORDER BY q.total_ms DESC LIMIT 5" -F ' | ' | sed 's/^/# queries: /'
ok "wal_stall_queries: each class's statements sum to the summary's total" poll "
	SELECT bool_and(abs(coalesce(q.ms, 0) - s.total_ms) <= 1e-6 * greatest(s.total_ms, 1e-3))
	FROM wal_stall_summary s
	LEFT JOIN (SELECT class, sum(total_ms) AS ms FROM wal_stall_queries GROUP BY class) q USING (class)"
is "$(sql -c "SELECT count(*) > 0 FROM wal_stall_queries WHERE queryid IS NOT NULL AND class = 'wal_buffer_full' AND episodes > 0")" t \
	"wal_stall_queries: pgbench's statements carry wal_buffer_full episodes"
sql -c "SELECT ticks, round(mean_tick_us::numeric, 1), overruns, wal_buffers_bytes, in_recovery FROM wal_stall_status()" -F ' | ' |
	sed 's/^/# status (ticks | mean_tick_us | overruns | wal_buffers_bytes | in_recovery): /'
is "$(sql -c "SELECT ticks > 1000 AND wal_buffers_bytes = 32768 AND NOT in_recovery AND sample_interval_ms > 0
	FROM wal_stall_status()")" t \
	"wal_stall_status(): the collector ticked, sees the 32kB ring, not in recovery"
sql -c "SELECT setting, current, suggested, confidence, left(evidence, 90) FROM wal_stall_advice()" -F ' | ' |
	sed 's/^/# advice: /'
is "$(sql -c "SELECT count(*) FILTER (WHERE evidence LIKE 'too little evidence%') = 0
	AND count(*) FILTER (WHERE setting = 'wal_buffers' AND suggested IS DISTINCT FROM current) = 1
	FROM wal_stall_advice()")" t \
	"wal_stall_advice(): after 60 s of load, a larger wal_buffers than the 32kB ring"

# ---------- the installed harness ----------
step "the installed wal_stall_bench"
wal_stall_bench --help >"$dir/help.txt" 2>&1
is "$?" 0 "wal_stall_bench --help exits 0"
# Every option --help lists is in the installed man page.
man_has_help_options() {
	local o missing=""
	zcat /usr/share/man/man1/wal_stall_bench.1.gz | sed 's/\\-/-/g' >"$dir/man.txt"
	for o in $(grep -oE '^  --[a-z-]+' "$dir/help.txt"); do
		grep -qE "^\.B[IR]? $o( |$)" "$dir/man.txt" || missing="$missing $o"
	done
	[ -z "$missing" ] || echo "#   not in the man page:$missing"
	[ -z "$missing" ] && grep -qE '^  --[a-z-]+' "$dir/help.txt"
}
ok "the man page documents every option of --help" man_has_help_options
is "$(wal_stall_bench --version)" "wal_stall_bench (wal_stall) $upstream" "wal_stall_bench --version is the package's"
if command -v man >/dev/null; then
	is "$(man -w wal_stall_bench 2>/dev/null)" /usr/share/man/man1/wal_stall_bench.1.gz "man wal_stall_bench finds the installed page"
else
	skip "no man here (a minimal root file system): the page's path is checked above"
fi
ok "wal_stall_bench --preset NAME reads /usr/share/wal-stall-bench/presets" \
	bash -c "wal_stall_bench --preset no_such_preset 2>&1 | grep -q '\"/usr/share/wal-stall-bench/presets/no_such_preset.conf\".*quick'"
wait "$harness_pid"
status=$?
harness_pid=
is "$status" 0 "a short harness run from the installed binary finishes"
[ "$status" -eq 0 ] || tail -20 "$dir/bench.log" | sed 's/^/# /'
tail -12 "$dir/bench.log" | sed 's/^/# bench: /'
ok "its report.html is written, with a chart" grep -q '<svg' "$dir/bench/report.html"
is "$(($(wc -l <"$dir/bench/results.csv") - 1))" 2 "its results.csv has one row per run"

# ---------- remove ----------
step "pg_dropcluster, apt-get purge"
ok "pg_dropcluster --stop $major $cluster" pg_dropcluster --stop "$major" "$cluster"
ok "the cluster's directories are gone" test ! -e "/etc/postgresql/$major/$cluster" -a ! -e "/var/lib/postgresql/$major/$cluster"
ok "apt-get purge $ext_pkg $bench_pkg" \
	to_log "$dir/purge.log" apt-get purge -y -q "$ext_pkg" "$bench_pkg"
we_installed=0
ok "dpkg knows neither package any more" \
	bash -c "! dpkg-query -W -f='\${Status}\n' '$ext_pkg' '$bench_pkg' 2>/dev/null | grep -q installed"
# Every path dpkg -L listed is gone, but for directories that were there
# before the install (/usr/bin, the PostgreSQL directories).
while read -r p; do
	[ -e "$p" ] || [ -L "$p" ] || continue
	[ -d "$p" ] && grep -qxF "$p" "$dir/there_before" && continue
	echo "$p"
done <"$dir/dpkg_L" >"$dir/left"
is "$(wc -l <"$dir/left")" 0 "nothing of the packages is left ($(wc -l <"$dir/dpkg_L") paths listed by dpkg -L)"
sed 's/^/# left: /' "$dir/left" | head -20
restore_files() { tar -C / -xpf "$dir/files_before.tar" && tar -C / -df "$dir/files_before.tar"; }
ok "the $(wc -l <"$dir/files_before") files of theirs that were there before the install are back" restore_files
files_saved=0

wait "$lintian_pid"
lintian_status=$?
lintian_pid=
is "$lintian_status" 0 "lintian reports no error on the packages"
[ "$lintian_status" -eq 0 ] || tail -20 "$dir/lintian.log" | sed 's/^/# /'
grep -E '^[EW]: ' "$dir/debs/lintian.txt" | sed 's/^/# lintian: /'

tap_summary
[ "$failed" -eq 0 ]
