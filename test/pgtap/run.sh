#!/usr/bin/env bash
# Start a throw-away cluster with wal_stall preloaded, run every pgTAP file
# in this folder with pg_prove, stop the cluster.  Run as the postgres user
# (or root), with PG_CONFIG naming the installation (default: pg_config on
# the PATH); pgTAP must be installed there.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}
PGBIN=$("$PG_CONFIG" --bindir) || exit 1
export PATH=$PGBIN:$PATH
# shellcheck source=../cluster.sh
. "$here/../cluster.sh"

# the exit trap (stop, remove) is set before initdb
cluster_scratch pgtap $((20000 + RANDOM % 10000))
cluster_conf "$dir" "shared_preload_libraries = 'wal_stall'"
cluster_start "$dir" || exit 1
cluster_psql "$dir" -q -c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION wal_stall' || exit 1
pg_prove -v -h "$dir/pg" -p "$(cat "$dir/port")" -d postgres "$here"/*.sql
