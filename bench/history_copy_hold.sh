#!/usr/bin/env bash
# How long a reader holds wal_stall's lock (which the collector needs at
# every tick) while it copies the history ring.  A scratch cluster with a
# ring of a day (wal_stall.history_seconds = 86400), filled by the tests'
# function; then wal_stall_history() (the whole ring),
# wal_stall_history(since) for the newest 3600 rows, and wal_stall_advice()
# run REPEAT times each in one session.  Prints per call kind the holds and
# rows of a copy, the longest hold and its median and 90th percentile over
# the calls, and the
# time of all of a copy's holds: what one hold of the whole copy would
# last.  Needs the library built with the tests' functions
# (make WS_TEST_FUNCTIONS=1, as scripts/test.sh installs it).
#
#   bench/history_copy_hold.sh [REPEAT]
# Default: 20.  Run as root.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../test/cluster.sh"

repeat=${1:-20}
case $repeat in
'' | *[!0-9]*)
	echo "history_copy_hold.sh: REPEAT must be a whole number, not \"$repeat\"" >&2
	exit 2
	;;
esac
cluster_scratch history_hold 5491
cluster_conf "$dir" "shared_preload_libraries = 'wal_stall'" "wal_stall.history_seconds = 86400"
cluster_start "$dir"
cluster_psql "$dir" -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION wal_stall;
CREATE FUNCTION fill_history(int) RETURNS void
AS '$libdir/wal_stall', 'wal_stall_fill_history_for_tests' LANGUAGE C STRICT;
CREATE FUNCTION history_copy(OUT holds int, OUT rows int, OUT max_rows_per_hold int,
	OUT max_hold_ms float8, OUT total_hold_ms float8)
AS '$libdir/wal_stall', 'wal_stall_history_copy_for_tests' LANGUAGE C;
CREATE FUNCTION measure(label text, q text, n int)
RETURNS TABLE (what text, holds int, rows int, max_hold_ms float8, total_hold_ms float8)
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. n LOOP
		EXECUTE q;
		RETURN QUERY SELECT label, c.holds, c.rows, c.max_hold_ms, c.total_hold_ms
			FROM history_copy() AS c;
	END LOOP;
END
$$;
SQL
for _ in $(seq 1 100); do
	[ "$(cluster_psql "$dir" -At -c 'SELECT count(*) >= 1 FROM wal_stall_history')" = t ] && break
	sleep 0.2
done
cluster_psql "$dir" -q -v ON_ERROR_STOP=1 -c 'SELECT fill_history(86400)' >/dev/null
echo "== $(cluster_psql "$dir" -At -c 'SELECT version()' | cut -d, -f1), $(nproc) cores, $repeat calls each"
cluster_psql "$dir" -v ON_ERROR_STOP=1 -c "
	WITH since AS (SELECT sample_time FROM wal_stall_history ORDER BY sample_time DESC
	               OFFSET 3600 LIMIT 1),
	calls AS (
		SELECT * FROM measure('history', 'SELECT count(*) FROM wal_stall_history()', $repeat)
		UNION ALL
		SELECT * FROM measure('history(since)',
			format('SELECT count(*) FROM wal_stall_history(%L)', (SELECT sample_time FROM since)), $repeat)
		UNION ALL
		SELECT * FROM measure('advice', 'SELECT count(*) FROM wal_stall_advice()', $repeat))
	SELECT what, max(rows) AS rows, max(holds) AS holds,
	       round(max(max_hold_ms)::numeric, 3) AS longest_hold_ms,
	       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY max_hold_ms)::numeric, 3) AS median_longest_hold_ms,
	       round(percentile_cont(0.9) WITHIN GROUP (ORDER BY max_hold_ms)::numeric, 3) AS p90_longest_hold_ms,
	       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY total_hold_ms)::numeric, 3) AS median_all_holds_ms
	FROM calls GROUP BY what ORDER BY what"
