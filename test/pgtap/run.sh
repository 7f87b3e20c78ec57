#!/usr/bin/env bash
# Start a throw-away cluster with wal_stall preloaded, run every pgTAP file
# in this folder with pg_prove, stop the cluster.  Run as the postgres user.
set -uo pipefail
export PATH=/usr/lib/postgresql/15/bin:$PATH
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/wal_stall_pgtap.XXXXXX)
port=$((20000 + RANDOM % 10000))

initdb -D "$dir/data" -A trust >/dev/null
cat >>"$dir/data/postgresql.conf" <<CONF
shared_preload_libraries = 'wal_stall'
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
CONF
pg_ctl -D "$dir/data" -l "$dir/log" -w start >/dev/null || { cat "$dir/log"; exit 1; }
trap 'pg_ctl -D "$dir/data" -m fast stop >/dev/null; rm -rf "$dir"' EXIT

psql -X -q -h "$dir" -p "$port" -d postgres -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION wal_stall'
pg_prove -v -h "$dir" -p "$port" -d postgres "$here"/*.sql
