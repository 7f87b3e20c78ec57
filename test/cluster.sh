# Shell helpers for wal_stall's bench and test scripts: a throw-away
# PostgreSQL cluster run as the postgres user.  Source this file.  The
# programs come from PGBIN, else from PG_CONFIG's --bindir (test/lib.sh:
# PG_CONFIG's default, and as_postgres).
#
#   cluster_scratch NAME PORT    a scratch DIR (set as $dir), initdb'd,
#                                stopped and removed when the script exits
#   cluster_init DIR PORT        initdb in DIR/data, socket and server log
#                                in DIR/pg; more initdb options from
#                                INITDB_OPTS (e.g. -k, --no-data-checksums)
#   cluster_conf DIR 'line'...   append settings to postgresql.conf; to
#                                change one later, ALTER SYSTEM
#
# DIR stays root's: what root writes or runs there (results, a helper
# program) no other account can change.  DIR/data and DIR/pg are
# postgres's, who writes there; root writes in them only as postgres
# (cluster_conf, cluster_write), never through a name postgres could point
# elsewhere.
#   cluster_start DIR / cluster_stop DIR / cluster_restart DIR
#   cluster_psql DIR ARGS...     psql -X on that cluster, database postgres
#   cluster_collector_pid DIR    pid of the wal_stall collector, or nothing
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).

# test/lib.sh sets PGBIN from PG_CONFIG: a PGBIN given stays.
cluster_pgbin=${PGBIN:-}
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PGBIN=${cluster_pgbin:-$PGBIN}

cluster_init() {
	local dir=$1 port=$2
	mkdir -p "$dir"
	# postgres may pass through, nobody else look in; the socket's directory
	# is postgres's alone: the cluster trusts every local connection
	chmod 711 "$dir"
	mkdir -m 700 "$dir/data" "$dir/pg"
	chown postgres "$dir/data" "$dir/pg"
	as_postgres "$PGBIN/initdb" -D "$dir/data" -A trust ${INITDB_OPTS:-} >/dev/null
	cluster_conf "$dir" "port = $port" "listen_addresses = ''" "unix_socket_directories = '$dir/pg'"
	echo "$port" >"$dir/port"
}

# Write standard input to FILE in a directory of postgres's, as postgres
# (-a: append).
cluster_write() {
	as_postgres tee "$@" >/dev/null
}

cluster_conf() {
	local dir=$1
	shift
	printf '%s\n' "$@" | cluster_write -a "$dir/data/postgresql.conf"
}

cluster_start() {
	as_postgres "$PGBIN/pg_ctl" -D "$1/data" -l "$1/pg/log" -w start >/dev/null ||
		{ tail -20 "$1/pg/log" >&2; return 1; }
}

cluster_stop() {
	as_postgres "$PGBIN/pg_ctl" -D "$1/data" -m fast -w stop >/dev/null 2>&1 || true
}

cluster_restart() {
	cluster_stop "$1"
	cluster_start "$1"
}

cluster_psql() {
	local dir=$1
	shift
	as_postgres "$PGBIN/psql" -X -h "$dir/pg" -p "$(cat "$dir/port")" -d postgres "$@"
}

cluster_pgbench() {
	local dir=$1
	shift
	as_postgres "$PGBIN/pgbench" -h "$dir/pg" -p "$(cat "$dir/port")" "$@" postgres
}

cluster_collector_pid() {
	cluster_psql "$1" -At -c 'SELECT collector_pid FROM wal_stall_status()' 2>/dev/null
}

# On-CPU time of a process in nanoseconds, from /proc/PID/schedstat.
proc_cpu_ns() {
	awk '{print $1}' "/proc/$1/schedstat"
}

# Start the cluster inside a blkio cgroup (v1) that throttles writes on the
# disk holding DIR to IOPS per second, emulating a slow WAL disk: the
# postmaster and every process it forks inherit the cgroup.
cluster_start_throttled() {
	local dir=$1 iops=$2 cg dev
	cg=/sys/fs/cgroup/blkio/wal_stall_$(basename "$dir")
	dev=$(lsblk -no MAJ:MIN "$(findmnt -no SOURCE --target "$dir")" | head -1 | tr -d ' ')
	# recorded first, so that cluster_stop_throttled removes it even when
	# the start fails
	echo "$cg" >"$dir/cgroup"
	mkdir -p "$cg"
	echo "$dev $iops" >"$cg/blkio.throttle.write_iops_device"
	sh -c "echo \$\$ > '$cg/cgroup.procs'; exec runuser -u postgres -- \
		'$PGBIN/pg_ctl' -D '$dir/data' -l '$dir/pg/log' -w start" >/dev/null
}

# Stop a cluster started throttled and remove its cgroup.
cluster_stop_throttled() {
	cluster_stop "$1"
	if [ -f "$1/cgroup" ]; then
		# the last processes leave the cgroup a moment after pg_ctl returns
		for _ in $(seq 1 50); do
			rmdir "$(cat "$1/cgroup")" 2>/dev/null && break
			sleep 0.1
		done
		rm -f "$1/cgroup"
	fi
}

# Make a scratch directory /tmp/wal_stall_NAME.XXXXXX, set $dir to it, and
# initdb a cluster there on PORT; on exit the cluster (throttled or not) is
# stopped and the directory removed.
cluster_scratch() {
	dir=$(mktemp -d "/tmp/wal_stall_$1.XXXXXX")
	trap 'cluster_stop_throttled "$dir"; rm -rf "$dir"' EXIT
	cluster_init "$dir" "$2"
}
