#!/usr/bin/env bash
# What the adaptive interval and the bursts do to the figures of a class of
# short episodes, against counting every one at 1 ms.  Two loads (-l):
#   insert  (the default) a 32kB WAL ring (or the -w WAL_BUFFERS given)
#           under bulk inserts (CLIENTS clients, each inserting 20 rows of
#           1.9 kB a transaction, under the TOAST threshold) with
#           synchronous_commit = off: the clients' WAL-path waits are
#           wrap-arounds of about a millisecond (class wal_buffer_full);
#   tpcb    pgbench's tpcb-like (scale 20, a 16MB ring unless -w) with
#           synchronous_commit = on: commit waits (class wal_flush), which
#           the bursts count under many clients.
# Runs the same load with the adaptive interval off
# (wal_stall.max_sample_interval = sample_interval: every episode counted
# at 1 ms) and on (its default), alternating, and prints per run the
# class's episodes, episodes and time per 1,000 transactions, the episodes'
# standard error (episodes_stderr: 0 when every one was counted), p50, p95
# and the resolution they were measured at, the collector's ticks a second
# and its CPU share of one core (/proc/PID/schedstat) over the run.  With
# -i IOPS the
# cluster's writes are throttled to IOPS per second (a blkio cgroup, as
# bench/wrap_around_check.sh does): the wrap-arounds then last as long as
# the writes that free the ring.
#
#   bench/period_fidelity.sh [-l insert|tpcb] [-s SECONDS] [-r ROUNDS] [-c CLIENTS]
#                            [-i IOPS] [-w WAL_BUFFERS] [-p PORT]
# Defaults: insert, 15 s, 2 rounds, 4 clients, not throttled, port 5483.
# Run as root.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../test/cluster.sh"

seconds=15
rounds=2
clients=4
iops=0
ring=
port=5483
load=insert
usage() {
	echo "period_fidelity.sh: $1" >&2
	echo "usage: bench/period_fidelity.sh [-l insert|tpcb] [-s SECONDS] [-r ROUNDS] [-c CLIENTS] [-i IOPS] [-w WAL_BUFFERS] [-p PORT]" >&2
	exit 2
}
positive() { [[ $1 =~ ^[1-9][0-9]*$ ]] || usage "$2 must be a positive integer, not \"$1\""; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage "$1 needs a value"
	case $1 in
		-s) positive "$2" -s; seconds=$2 ;;
		-r) positive "$2" -r; rounds=$2 ;;
		-c) positive "$2" -c; clients=$2 ;;
		-i) positive "$2" -i; iops=$2 ;;
		-w) [[ $2 =~ ^[1-9][0-9]*(kB|MB)$ ]] || usage "-w takes a size like 32kB or 16MB, not \"$2\""; ring=$2 ;;
		-p) positive "$2" -p; port=$2 ;;
		-l) [[ $2 =~ ^(insert|tpcb)$ ]] || usage "-l takes insert or tpcb, not \"$2\""; load=$2 ;;
		*) usage "unknown option $1" ;;
	esac
	shift 2
done

if [ "$load" = tpcb ]; then
	cls=wal_flush
	sync=on
	ring=${ring:-16MB}
else
	cls=wal_buffer_full
	sync=off
	ring=${ring:-32kB}
fi

cluster_scratch period "$port"
trap 'exit 130' INT
trap 'exit 143' TERM HUP
cluster_conf "$dir" "shared_preload_libraries = 'wal_stall'" "shared_buffers = 256MB" \
	"wal_buffers = $ring" "synchronous_commit = $sync" "max_wal_size = 4GB" \
	"checkpoint_timeout = 30min"
if [ "$iops" -gt 0 ]; then
	cluster_start_throttled "$dir" "$iops"
else
	cluster_start "$dir"
fi
cluster_psql "$dir" -q -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION wal_stall' \
	-c 'CREATE TABLE wide (n int, pad text)'
echo "INSERT INTO wide SELECT g, repeat('x', 1900) FROM generate_series(1, 20) g;" >"$dir/insert.sql"
chmod a+r "$dir/insert.sql"
[ "$load" = insert ] || cluster_pgbench "$dir" -i -q -s 20 >/dev/null 2>&1

pid=$(cluster_collector_pid "$dir")
[ -n "$pid" ] || { echo "period_fidelity.sh: the wal_stall collector is not running" >&2; exit 1; }
echo "$load load, class $cls, wal_buffers $ring, $clients clients, ${seconds} s a run, writes $([ "$iops" -gt 0 ] && echo "throttled to $iops IOPS" || echo "not throttled")"
printf '%-6s %-10s %7s %9s %9s %7s %10s %8s %8s %13s %8s %6s %6s\n' round adaptive tps episodes \
	ep/1000tx stderr ms/1000tx p50_ms p95_ms resolution_ms ticks/s cpu_% load1
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then modes="off on"; else modes="on off"; fi
	for mode in $modes; do
		if [ "$mode" = off ]; then value="'1ms'"; else value=DEFAULT; fi
		cluster_psql "$dir" -q -c "ALTER SYSTEM SET wal_stall.max_sample_interval = $value" \
			-c 'SELECT pg_reload_conf()' >/dev/null
		sleep 1
		cluster_psql "$dir" -q -c 'SELECT wal_stall_reset()' >/dev/null
		k0=$(cluster_psql "$dir" -At -c 'SELECT ticks FROM wal_stall_status()')
		cluster_psql "$dir" -q -c 'TRUNCATE wide'
		c0=$(proc_cpu_ns "$pid")
		t0=$(date +%s.%N)
		if [ "$load" = tpcb ]; then
			cluster_pgbench "$dir" -n -c "$clients" -j 2 -T "$seconds" >"$dir/out" 2>&1
		else
			cluster_pgbench "$dir" -n -f "$dir/insert.sql" -c "$clients" -j 2 -T "$seconds" >"$dir/out" 2>&1
		fi
		t1=$(date +%s.%N)
		c1=$(proc_cpu_ns "$pid")
		k1=$(cluster_psql "$dir" -At -c 'SELECT ticks FROM wal_stall_status()')
		tps=$(awk '/^tps/ {printf "%.0f", $3; exit}' "$dir/out")
		tx=$(awk '/^number of transactions actually processed/ {split($NF, a, "/"); print a[1]; exit}' "$dir/out")
		IFS='|' read -r episodes stderr total p50 p95 res <<<"$(cluster_psql "$dir" -At -c "
			SELECT episodes, round(coalesce(episodes_stderr, 0)::numeric, 0), total_ms,
			       round(p50_ms::numeric, 3), round(p95_ms::numeric, 3),
			       round(resolution_ms::numeric, 3)
			FROM wal_stall_summary WHERE class = '$cls'")"
		printf '%-6s %-10s %7s %9s %9.1f %7s %10.1f %8s %8s %13s %8.0f %6.3f %6s\n' "$r" "$mode" "$tps" "$episodes" \
			"$(awk -v e="$episodes" -v n="$tx" 'BEGIN {print (n > 0) ? e / n * 1000 : 0}')" "$stderr" \
			"$(awk -v t="$total" -v n="$tx" 'BEGIN {print (n > 0) ? t / n * 1000 : 0}')" \
			"${p50:--}" "${p95:--}" "$res" \
			"$(awk -v a="$k0" -v b="$k1" -v s="$seconds" 'BEGIN {print (b - a) / s}')" \
			"$(awk -v a="$c0" -v b="$c1" -v s="$t0" -v e="$t1" 'BEGIN {print (b - a) / 1e9 / (e - s) * 100}')" \
			"$(awk '{print $1}' /proc/loadavg)"
	done
done
