#!/usr/bin/env bash
# wal_stall demo: build and install, start a temporary cluster with wal_stall
# preloaded, run pgbench briefly with a 32kB and then a 16MB WAL ring, and
# print for each run tps, wal_stall_summary beside pg_stat_wal, and the run
# second by second from wal_stall_history.  As root on Debian 12.
#
#   scripts/demo.sh [SECONDS] [CLIENTS]      (defaults: 15 s, 8 clients)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/setup.sh"
. "$top/bench/cluster.sh"

seconds=${1:-15}
clients=${2:-8}
cluster_scratch demo 5485
cluster_conf "$dir" "shared_preload_libraries = 'wal_stall'" "shared_buffers = 256MB" \
	"synchronous_commit = off" "track_wal_io_timing = on" "max_wal_size = 2GB"
cluster_start "$dir"
echo "== pgbench -i -s 10"
cluster_pgbench "$dir" -i -q -s 10 >/dev/null 2>&1
cluster_psql "$dir" -q -c 'CREATE EXTENSION wal_stall'

for ring in 32kB 16MB; do
	sed -i '/^wal_buffers/d' "$dir/data/postgresql.conf"
	cluster_conf "$dir" "wal_buffers = $ring"
	cluster_restart "$dir"
	cluster_psql "$dir" -q -c 'CHECKPOINT' -c 'SELECT pg_stat_reset_shared($$wal$$)' \
		-c 'SELECT wal_stall_reset()' >/dev/null
	tps=$(cluster_pgbench "$dir" -c "$clients" -j 2 -T "$seconds" 2>&1 | awk '/^tps/ {print $3; exit}')
	sleep 2	# backends publish their core counters when idle, at most once a second
	echo
	echo "== wal_buffers = $ring, synchronous_commit = off, pgbench -c $clients -T $seconds: tps $tps"
	cluster_psql "$dir" -c "
		SELECT class, kind, episodes, round(total_ms::numeric, 1) AS total_ms,
		       round(p50_ms::numeric, 2) AS p50_ms, round(p99_ms::numeric, 2) AS p99_ms,
		       round(max_ms::numeric, 1) AS max_ms, exact_count,
		       round(exact_total_ms::numeric, 1) AS exact_total_ms
		FROM wal_stall_summary"
	cluster_psql "$dir" -c "SELECT wal_buffers_full, wal_write, wal_sync,
		       round(wal_write_time::numeric, 1) AS wal_write_ms,
		       round(wal_sync_time::numeric, 1) AS wal_sync_ms FROM pg_stat_wal"
	echo "-- the run second by second (wal_stall_history)"
	cluster_psql "$dir" -c "
		SELECT to_char(sample_time, 'HH24:MI:SS') AS second, xids, wal_bytes,
		       round(buffer_fill_max::numeric, 3) AS fill_max,
		       round(wal_buffer_full_ms::numeric, 1) AS wrap_ms,
		       round(wal_flush_ms::numeric, 1) AS flush_ms, wal_buffers_full,
		       round(wal_fsync_max_ms::numeric, 1) AS fsync_max_ms,
		       round(waiting_backends::numeric, 2) AS waiting
		FROM wal_stall_history WHERE xids > 0 ORDER BY sample_time"
done
