#!/usr/bin/env bash
# Cost of the wal_stall collector, idle and under pgbench load.
#
# Reports the collector's CPU share of one core (its on-CPU time from
# /proc/PID/schedstat, exact, unlike the tick-sampled times of
# /proc/PID/stat) and its mean tick cost (wal_stall_status), beside the
# floor: what a bare loop that only sleeps and wakes at the same interval
# costs on this machine, measured at the same time.
#
# - idle: no load, with resting on (wal_stall.idle_interval, default 100 ms)
#   and off (idle_interval = sample_interval); floors at the same intervals.
# - under load, for each client count: runs without wal_stall (baseline) and
#   with it alternate on one cluster; tps with / without.
#
#   bench/collector_overhead.sh [CLIENTS...] [-s SECONDS] [-r ROUNDS] [-p PORT]
#                               [-i 'IDLE_INTERVALS'] [--idle-only]
# Defaults: clients 1 and 50, 30 s, 2 rounds, 1 ms interval, idle rows at
# wal_stall.idle_interval 100ms and 1ms (no rest).  Run as root.
#
#   bench/collector_overhead.sh --versus [CLIENTS] [-s SECONDS] [-r ROUNDS] [-p PORT]
# wal_stall beside pg_wait_sampling, both sampling every 1 ms
# (pg_wait_sampling.profile_period and history_period = 1), on two
# clusters started side by side (ports PORT and PORT + 1, default 5481,
# scale 20 each): per round both idle at once, then select-only and
# tpcb-like pgbench with CLIENTS clients (default 50) on one cluster at a
# time, wal_stall's twice, with its adaptive interval off
# (wal_stall.max_sample_interval = 1ms) and on (its default), the order
# alternating between rounds; each collector's CPU share of one core over
# the same kind of run, their ratio, wal_stall's ticks per second and mean
# tick cost over that run, and the machine's 1-minute load average.  Needs pg_wait_sampling in pg_config
# --pkglibdir.  The machine is shared by both clusters: the ratios are what
# compares, within one run.
#
# Everything the script starts (clusters, pgbench, the floor loop) is
# stopped and removed when it exits: on success, on failure and on Ctrl-C.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../test/cluster.sh"

seconds=30
rounds=2
port=5481
clients=()
idles="100ms 1ms"
idle_only=no
versus=no
usage() {
	echo "collector_overhead.sh: $1" >&2
	echo "usage: bench/collector_overhead.sh [CLIENTS...] [-s SECONDS] [-r ROUNDS] [-p PORT] [-i 'IDLE_INTERVALS'] [--idle-only]" >&2
	echo "       bench/collector_overhead.sh --versus [CLIENTS] [-s SECONDS] [-r ROUNDS] [-p PORT]" >&2
	exit 2
}
positive() { [[ $1 =~ ^[1-9][0-9]*$ ]] || usage "$2 must be a positive integer, not \"$1\""; }
while [ $# -gt 0 ]; do
	case $1 in
		-s|-r|-i|-p) [ $# -ge 2 ] || usage "$1 needs a value" ;;
	esac
	case $1 in
		-s) positive "$2" "-s"; seconds=$2; shift 2 ;;
		-r) positive "$2" "-r"; rounds=$2; shift 2 ;;
		-i) idles=$2; shift 2 ;;
		-p) positive "$2" "-p"; port=$2; shift 2 ;;
		--idle-only) idle_only=yes; shift ;;
		--versus) versus=yes; shift ;;
		-*) usage "unknown option $1" ;;
		*) positive "$1" "a client count"; clients+=("$1"); shift ;;
	esac
done
# idle intervals as wal_stall.idle_interval takes them, in whole ms here
for idle in $idles; do
	[[ $idle =~ ^[1-9][0-9]*ms$ ]] || usage "-i takes intervals like '100ms 1ms', not \"$idle\""
done
[ -n "$idles" ] || usage "-i needs at least one interval"
if [ "$versus" = yes ]; then
	[ "$idle_only" = no ] || usage "--versus and --idle-only do not go together"
	[ ${#clients[@]} -le 1 ] || usage "--versus takes one client count"
	. "$here/collector_versus.sh"
	versus_main "${clients[0]:-50}"
	exit 0
fi
[ ${#clients[@]} -gt 0 ] || clients=(1 50)
[ "$idle_only" = no ] || clients=()
maxc=0
for c in ${clients[@]+"${clients[@]}"}; do [ "$c" -gt "$maxc" ] && maxc=$c; done

cluster_scratch overhead "$port"
# Ctrl-C or a kill: exit, so that the EXIT trap stops the cluster
trap 'exit 130' INT
trap 'exit 143' TERM HUP
cluster_conf "$dir" "max_connections = $((maxc + 20))" "shared_buffers = 256MB" \
	"include_if_exists = 'overhead.conf'"
cluster_start "$dir"
cluster_pgbench "$dir" -i -q -s 20 >/dev/null 2>&1
cc -O2 -o "$dir/wakeup_floor" "$here/wakeup_floor.c"

# Settings for the next start: $1 = preload (yes/no), $2 = idle_interval.
set_mode() {
	if [ "$1" = yes ]; then
		printf "shared_preload_libraries = 'wal_stall'\nwal_stall.idle_interval = '%s'\n" "$2"
	fi | cluster_write "$dir/data/overhead.conf"
	cluster_restart "$dir"
	if [ "$1" = yes ]; then
		cluster_psql "$dir" -q -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION IF NOT EXISTS wal_stall'
		sleep 1
	fi
}

# CPU share of PID over a command's run, in % of one core; prints the share.
# The command's output goes to $dir/out.
share_during() {
	local pid=$1 t0 t1 start end
	shift
	t0=$(proc_cpu_ns "$pid")
	start=$(date +%s.%N)
	"$@" >"$dir/out" 2>&1
	end=$(date +%s.%N)
	t1=$(proc_cpu_ns "$pid")
	awk -v a="$t0" -v b="$t1" -v s="$start" -v e="$end" 'BEGIN {printf "%.3f", (b - a) / 1e9 / (e - s) * 100}'
}

tick_cost() {
	cluster_psql "$dir" -At -c 'SELECT round(mean_tick_us::numeric, 2) FROM wal_stall_status()'
}

printf '%-6s %-16s %10s %12s %13s %14s\n' round load tps cpu_share_% mean_tick_us floor_share_%
for r in $(seq 1 "$rounds"); do
	for idle in $idles; do
		set_mode yes "$idle"
		pid=$(cluster_collector_pid "$dir")
		us=$(awk -v i="$idle" 'BEGIN {print int(i) * 1000}')
		"$dir/wakeup_floor" "$us" "$seconds" >"$dir/floor" &
		share=$(share_during "$pid" sleep "$seconds")
		wait
		label="idle, rest ${idle}"
		[ "$idle" = 1ms ] && label="idle, no rest"
		printf '%-6s %-16s %10s %12s %13s %14s\n' "$r" "$label" - "$share" "$(tick_cost)" \
			"$(awk '{print $1}' "$dir/floor")"
	done
	for c in ${clients[@]+"${clients[@]}"}; do
		# off first in odd rounds, on first in even ones: runs get slower as
		# the tables bloat, and a fixed order would bill that to one side
		if [ $((r % 2)) -eq 1 ]; then modes="off on"; else modes="on off"; fi
		for mode in $modes; do
			if [ "$mode" = off ]; then
				set_mode no -
				tps=$(cluster_pgbench "$dir" -c "$c" -j 2 -T "$seconds" 2>&1 | awk '/^tps/ {print $3; exit}')
				printf '%-6s %-16s %10.1f %12s %13s %14s\n' "$r" "$c clients, off" "$tps" - - -
				echo "$c $tps" >>"$dir/off"
			else
				set_mode yes 100ms
				pid=$(cluster_collector_pid "$dir")
				"$dir/wakeup_floor" 1000 "$seconds" >"$dir/floor" &
				share=$(share_during "$pid" cluster_pgbench "$dir" -c "$c" -j 2 -T "$seconds")
				wait
				tps=$(awk '/^tps/ {print $3; exit}' "$dir/out")
				printf '%-6s %-16s %10.1f %12s %13s %14s\n' "$r" "$c clients, on" "$tps" "$share" \
					"$(tick_cost)" "$(awk '{print $1}' "$dir/floor")"
				echo "$c $tps" >>"$dir/on"
			fi
		done
	done
done
for c in ${clients[@]+"${clients[@]}"}; do
	on=$(awk -v c="$c" '$1 == c {s += $2; n++} END {print s / n}' "$dir/on")
	off=$(awk -v c="$c" '$1 == c {s += $2; n++} END {print s / n}' "$dir/off")
	printf '%s clients: tps with / without wal_stall: %.3f (mean of %d rounds each)\n' \
		"$c" "$(awk -v a="$on" -v b="$off" 'BEGIN {print a / b}')" "$rounds"
done
