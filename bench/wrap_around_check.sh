#!/usr/bin/env bash
# Check the wal_buffer_full rule on a run where every client WAL-path wait
# is a wrap-around: synchronous_commit = off (no commit flushes) and a data
# set smaller than shared_buffers (no WAL-before-data evictions).  Runs the
# same pgbench load with a 16MB and a 32kB ring, with writes to the disk
# throttled to IOPS per second (0 = unthrottled), and prints per ring the
# episodes per stall class beside pg_stat_wal.wal_buffers_full (core's WAL
# write and sync counts are the summary's exact_count: pg_stat_io from 18).
#
#   bench/wrap_around_check.sh [IOPS] [SECONDS] [CLIENTS]
# Defaults: 300 IOPS, 30 s, 4 clients.  Run as root.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../test/cluster.sh"

iops=${1:-300}
seconds=${2:-30}
clients=${3:-4}
cluster_scratch wrap 5483
cluster_conf "$dir" "shared_preload_libraries = 'wal_stall'" "shared_buffers = 256MB" \
	"synchronous_commit = off" "track_wal_io_timing = on" "max_wal_size = 4GB" \
	"checkpoint_timeout = 30min"
cluster_start "$dir"
cluster_pgbench "$dir" -i -q -s 10 >/dev/null 2>&1
cluster_psql "$dir" -q -c 'CREATE EXTENSION wal_stall'

for ring in ${RINGS:-16MB 32kB}; do
	# wal_buffers takes effect at the next start; the cluster runs here
	cluster_psql "$dir" -q -c "ALTER SYSTEM SET wal_buffers = '$ring'"
	cluster_stop_throttled "$dir"	# throttled or not
	if [ "$iops" -gt 0 ]; then
		cluster_start_throttled "$dir" "$iops"
	else
		cluster_start "$dir"
	fi
	cluster_psql "$dir" -q -c 'SELECT pg_stat_reset_shared($$wal$$)' -c 'SELECT wal_stall_reset()' >/dev/null
	tps=$(cluster_pgbench "$dir" -c "$clients" -j 2 -T "$seconds" 2>&1 | awk '/^tps/ {print $3; exit}')
	sleep 2	# let backends publish their counters
	if [ "$iops" -gt 0 ]; then disk="writes throttled to $iops IOPS"; else disk="disk not throttled"; fi
	echo "== wal_buffers = $ring, $disk, $clients clients, tps $tps"
	cluster_psql "$dir" -c "
		SELECT class, episodes, round(total_ms::numeric, 1) AS total_ms,
		       round(p99_ms::numeric, 2) AS p99_ms, round(max_ms::numeric, 1) AS max_ms,
		       exact_count, round(exact_total_ms::numeric, 1) AS exact_total_ms
		FROM wal_stall_summary" \
		-c "SELECT round(100.0 * sum(episodes) FILTER (WHERE class = 'wal_buffer_full')
		            / nullif(sum(episodes) FILTER (WHERE class IN
		                ('wal_buffer_full', 'wal_flush')), 0), 1)
		           AS wrap_around_share_of_write_path_episodes_pct
		    FROM wal_stall_summary" \
		-c 'SELECT wal_buffers_full, wal_fpi, wal_bytes FROM pg_stat_wal'
done
