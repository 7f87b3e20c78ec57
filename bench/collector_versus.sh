# wal_stall's collector beside pg_wait_sampling's, both at a 1 ms period:
# `bench/collector_overhead.sh --versus` (sourced from there, after
# cluster.sh; $here, $seconds and $rounds are set).
#
# Two clusters, one per sampler, started side by side, so that both
# collectors run under the same conditions all along; the load runs on one
# cluster at a time.  A collector's CPU share is its own on-CPU time from
# /proc/PID/schedstat over a run's wall time, in % of one core.  wal_stall
# runs every load twice, with its adaptive period off
# (wal_stall.max_sample_interval = sample_interval) and on (the default),
# switched by a reload.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).

versus_dirs=()

# Stop the clusters and remove their directories.  A pgbench still running
# (after Ctrl-C or a kill) ends when its server stops.
versus_cleanup() {
	local d
	for d in ${versus_dirs[@]+"${versus_dirs[@]}"}; do
		cluster_stop "$d"
		rm -rf "$d"
	done
}

# A scratch cluster on PORT with the given settings, its directory in
# $vdir (remembered for the cleanup before anything is started in it).
versus_cluster() {
	local name=$1 port=$2
	shift 2
	vdir=$(mktemp -d "/tmp/wal_stall_$name.XXXXXX")
	versus_dirs+=("$vdir")
	cluster_init "$vdir" "$port"
	cluster_conf "$vdir" "max_connections = $((clients + 20))" "shared_buffers = 256MB" "$@"
	cluster_start "$vdir"
	cluster_pgbench "$vdir" -i -q -s 20 >/dev/null 2>&1
}

# pid of pg_wait_sampling's collector: a child of the cluster's postmaster.
pgws_collector_pid() {
	local postmaster
	postmaster=$(head -1 "$1/data/postmaster.pid")
	ps --ppid "$postmaster" -o pid=,args= | awk '/pg_wait_sampling collector/ {print $1; exit}'
}

# Adaptation of wal_stall's period: $2 = off (max_sample_interval =
# sample_interval) or on (its default), by ALTER SYSTEM and a reload; waits
# until the collector has the setting (it rereads it between two ticks).
versus_adaptation() {
	local value
	if [ "$2" = off ]; then value="'1ms'"; else value=DEFAULT; fi
	cluster_psql "$1" -q -c "ALTER SYSTEM SET wal_stall.max_sample_interval = $value" \
		-c 'SELECT pg_reload_conf()' >/dev/null
	sleep 1
}

# The 1-minute load average, for the conditions beside each figure.
load_average() {
	awk '{print $1}' /proc/loadavg
}

# wal_stall's tick counters: "ticks summed_tick_us".
ws_ticks() {
	cluster_psql "$1" -At -F ' ' -c 'SELECT ticks, ticks * mean_tick_us FROM wal_stall_status()'
}

# One measured stretch: the CPU share of each pid given, over the wall time
# of the command after "--".  Prints the shares, in the pids' order.
versus_shares() {
	local pids=() t0=() t1=() start end i
	while [ "$1" != -- ]; do pids+=("$1"); shift; done
	shift
	for i in "${!pids[@]}"; do t0[i]=$(proc_cpu_ns "${pids[i]}"); done
	start=$(date +%s.%N)
	"$@" >"$out" 2>&1
	end=$(date +%s.%N)
	for i in "${!pids[@]}"; do t1[i]=$(proc_cpu_ns "${pids[i]}"); done
	for i in "${!pids[@]}"; do
		awk -v a="${t0[i]}" -v b="${t1[i]}" -v s="$start" -v e="$end" \
			'BEGIN {printf "%.3f ", (b - a) / 1e9 / (e - s) * 100}'
	done
	echo
}

versus_main() {
	local wspid pgpid r load first second target
	local ws_share pg_share k0 k1 s0 s1 ws_tps pg_tps shares
	clients=$1
	[ -f "$("$PGBIN/pg_config" --pkglibdir)/pg_wait_sampling.so" ] || {
		echo "collector_overhead.sh: pg_wait_sampling is not installed in $("$PGBIN/pg_config" --pkglibdir)" >&2
		exit 1
	}
	trap versus_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	versus_cluster versus_ws "$port" "shared_preload_libraries = 'wal_stall'"
	wsdir=$vdir
	versus_cluster versus_pgws $((port + 1)) "shared_preload_libraries = 'pg_wait_sampling'" \
		"pg_wait_sampling.profile_period = 1" "pg_wait_sampling.history_period = 1"
	pgdir=$vdir
	cluster_psql "$wsdir" -q -c 'SET client_min_messages = warning' -c 'CREATE EXTENSION wal_stall'
	out=$wsdir/out
	wspid=$(cluster_collector_pid "$wsdir")
	pgpid=$(pgws_collector_pid "$pgdir")
	[ -n "$wspid" ] && [ -n "$pgpid" ] || {
		echo "collector_overhead.sh: a collector is not running (wal_stall: '$wspid', pg_wait_sampling: '$pgpid')" >&2
		exit 1
	}
	# what the settings are, from the servers themselves
	echo "wal_stall: sample_interval $(cluster_psql "$wsdir" -At -c 'SHOW wal_stall.sample_interval'), idle_interval $(cluster_psql "$wsdir" -At -c 'SHOW wal_stall.idle_interval'), max_sample_interval $(cluster_psql "$wsdir" -At -c 'SHOW wal_stall.max_sample_interval') when adapting; pg_wait_sampling: profile_period $(cluster_psql "$pgdir" -At -c 'SHOW pg_wait_sampling.profile_period') ms, history_period $(cluster_psql "$pgdir" -At -c 'SHOW pg_wait_sampling.history_period') ms; $clients clients, ${seconds} s a run, $rounds rounds"
	sleep 2
	printf '%-6s %-16s %12s %19s %7s %11s %16s %9s %9s %6s\n' round load wal_stall_% \
		pg_wait_sampling_% ratio ws_ticks/s ws_mean_tick_us ws_tps pgws_tps load1
	: >"$wsdir/rows"
	for r in $(seq 1 "$rounds"); do
		# idle: both at once, wal_stall with its default
		versus_adaptation "$wsdir" on
		read -r k0 s0 <<<"$(ws_ticks "$wsdir")"
		read -r ws_share pg_share <<<"$(versus_shares "$wspid" "$pgpid" -- sleep "$seconds")"
		read -r k1 s1 <<<"$(ws_ticks "$wsdir")"
		versus_row "$r" idle "$ws_share" "$pg_share" "$k0" "$s0" "$k1" "$s1" - -
		for load in select-only tpcb-like; do
			local opts=(-n -c "$clients" -j 2 -T "$seconds")
			local adapt ws_off ws_on k_off s_off k_on s_on tps_off tps_on
			[ "$load" = select-only ] && opts+=(-S)
			# the order alternates between rounds: pg_wait_sampling, then
			# wal_stall off and on, or wal_stall on and off, then pg_wait_sampling
			if [ $((r % 2)) -eq 1 ]; then order="pg off on"; else order="on off pg"; fi
			for target in $order; do
				if [ "$target" = pg ]; then
					cluster_psql "$pgdir" -q -c 'VACUUM pgbench_branches, pgbench_tellers' 2>/dev/null
					shares=$(versus_shares "$pgpid" -- cluster_pgbench "$pgdir" "${opts[@]}")
					pg_share=${shares% }
					pg_tps=$(awk '/^tps/ {printf "%.0f", $3; exit}' "$out")
					continue
				fi
				adapt=$target
				versus_adaptation "$wsdir" "$adapt"
				cluster_psql "$wsdir" -q -c 'VACUUM pgbench_branches, pgbench_tellers' 2>/dev/null
				read -r k0 s0 <<<"$(ws_ticks "$wsdir")"
				shares=$(versus_shares "$wspid" -- cluster_pgbench "$wsdir" "${opts[@]}")
				read -r k1 s1 <<<"$(ws_ticks "$wsdir")"
				if [ "$adapt" = off ]; then
					ws_off=${shares% } k_off="$k0 $k1" s_off="$s0 $s1"
					tps_off=$(awk '/^tps/ {printf "%.0f", $3; exit}' "$out")
				else
					ws_on=${shares% } k_on="$k0 $k1" s_on="$s0 $s1"
					tps_on=$(awk '/^tps/ {printf "%.0f", $3; exit}' "$out")
				fi
			done
			read -r k0 k1 <<<"$k_off"; read -r s0 s1 <<<"$s_off"
			versus_row "$r" "$load,off" "$ws_off" "$pg_share" "$k0" "$s0" "$k1" "$s1" "$tps_off" "$pg_tps"
			read -r k0 k1 <<<"$k_on"; read -r s0 s1 <<<"$s_on"
			versus_row "$r" "$load,on" "$ws_on" "$pg_share" "$k0" "$s0" "$k1" "$s1" "$tps_on" "$pg_tps"
		done
	done
	echo
	echo "mean of $rounds rounds: wal_stall / pg_wait_sampling CPU share of one core, and their ratio"
	echo "(off: wal_stall.max_sample_interval = sample_interval; on: its default)"
	awk '{ws[$2] += $3; pg[$2] += $4; n[$2]++}
		END {
			split("idle select-only,off select-only,on tpcb-like,off tpcb-like,on", order, " ")
			for (i = 1; i <= 5; i++) {
				l = order[i]
				if (n[l] == 0) continue
				ratio = pg[l] > 0 ? ws[l] / pg[l] : 0
				printf "%-16s %7.3f%% / %7.3f%%  ratio %.3f\n", l, ws[l] / n[l], pg[l] / n[l], ratio
			}
		}' "$wsdir/rows"
}

# One row of the table; also kept in rows for the means.
versus_row() {
	local r=$1 load=$2 ws=$3 pg=$4 k0=$5 s0=$6 k1=$7 s1=$8 ws_tps=$9 pg_tps=${10}
	local ratio ticks tick_us
	ratio=$(awk -v a="$ws" -v b="$pg" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "-"}')
	ticks=$(awk -v a="$k0" -v b="$k1" -v s="$seconds" 'BEGIN {printf "%.0f", (b - a) / s}')
	tick_us=$(awk -v a="$k0" -v b="$k1" -v x="$s0" -v y="$s1" \
		'BEGIN {if (b > a) printf "%.2f", (y - x) / (b - a); else print "-"}')
	printf '%-6s %-16s %12s %19s %7s %11s %16s %9s %9s %6s\n' "$r" "$load" "$ws" "$pg" "$ratio" \
		"$ticks" "$tick_us" "$ws_tps" "$pg_tps" "$(load_average)"
	echo "$r $load $ws $pg" >>"$wsdir/rows"
}
