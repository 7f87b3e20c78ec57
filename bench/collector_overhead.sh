#!/usr/bin/env bash
# Cost of the wal_stall collector under pgbench load.
#
# Alternates runs without wal_stall (baseline) and with it, on one cluster,
# and reports: the collector's CPU share of one core (its on-CPU time from
# /proc/PID/schedstat, exact, unlike the tick-sampled times of
# /proc/PID/stat), its mean tick cost (wal_stall_status), tps with / tps
# without, and the floor: what a bare loop that only sleeps and wakes at the
# same interval costs on this machine, measured during the same run.
#
#   bench/collector_overhead.sh [CLIENTS] [SECONDS] [ROUNDS] [INTERVAL_MS]
# Defaults: 50 clients, 30 s, 2 rounds, 1 ms.  Run as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cluster.sh"

clients=${1:-50}
seconds=${2:-30}
rounds=${3:-2}
interval=${4:-1}
cluster_scratch overhead 5481
cluster_conf "$dir" "max_connections = $((clients + 20))" "shared_buffers = 256MB" \
	"wal_stall.sample_interval = $interval"
cluster_start "$dir"
cluster_pgbench "$dir" -i -q -s 20 >/dev/null 2>&1

cc -O2 -o "$dir/wakeup_floor" "$here/wakeup_floor.c"
printf '%-6s %-5s %10s %12s %14s %10s %14s\n' round mode tps cpu_share_% mean_tick_us overruns floor_share_%
for r in $(seq 1 "$rounds"); do
	for mode in off on; do
		if [ "$mode" = on ]; then
			sed -i "/^shared_preload_libraries/d" "$dir/data/postgresql.conf"
			cluster_conf "$dir" "shared_preload_libraries = 'wal_stall'"
		else
			sed -i "/^shared_preload_libraries/d" "$dir/data/postgresql.conf"
		fi
		cluster_restart "$dir"
		if [ "$mode" = on ]; then
			cluster_psql "$dir" -q -c 'CREATE EXTENSION IF NOT EXISTS wal_stall'
			sleep 1
			pid=$(cluster_collector_pid "$dir")
			cluster_psql "$dir" -q -c 'SELECT wal_stall_reset()' >/dev/null
			t0=$(proc_cpu_ns "$pid")
		fi
		start=$(date +%s.%N)
		[ "$mode" = on ] && "$dir/wakeup_floor" "$(awk -v i="$interval" 'BEGIN {print int(i * 1000)}')" \
			"$seconds" >"$dir/floor" &
		tps=$(cluster_pgbench "$dir" -c "$clients" -j 2 -T "$seconds" 2>&1 |
			awk '/^tps/ {print $3; exit}')
		wait
		end=$(date +%s.%N)
		if [ "$mode" = on ]; then
			t1=$(proc_cpu_ns "$pid")
			share=$(awk -v a="$t0" -v b="$t1" -v s="$start" -v e="$end" \
				'BEGIN {print (b - a) / 1e9 / (e - s) * 100}')
			floor=$(awk '{print $1}' "$dir/floor")
			read -r tick over < <(cluster_psql "$dir" -At -F ' ' -c \
				'SELECT round(mean_tick_us::numeric, 2), overruns FROM wal_stall_status()')
			printf '%-6s %-5s %10.1f %12.2f %14s %10s %14s\n' "$r" on "$tps" "$share" "$tick" "$over" "$floor"
			echo "$tps" >>"$dir/on"
		else
			printf '%-6s %-5s %10.1f %12s %14s %10s %14s\n' "$r" off "$tps" - - - -
			echo "$tps" >>"$dir/off"
		fi
	done
done
on=$(awk '{s += $1} END {print s / NR}' "$dir/on")
off=$(awk '{s += $1} END {print s / NR}' "$dir/off")
printf 'tps with / without wal_stall: %.3f (mean of %d rounds each)\n' \
	"$(awk -v a="$on" -v b="$off" 'BEGIN {print a / b}')" "$rounds"
