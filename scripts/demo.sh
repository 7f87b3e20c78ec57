#!/usr/bin/env bash
# The README's first quick-start command: install what is needed, build
# wal_stall and its harness, and run the quick preset: wal_buffers 32kB
# against 1MB, pg_wal alone on a slowed loop device, 6 rounds of 5 s runs,
# margin 10% (bench/presets/quick.conf), on a
# temporary cluster.  Prints the verdict tables and the path of the report.
# As root on Debian 12 (about 2 minutes with the build).
#
#   scripts/demo.sh [HARNESS FLAGS...]   (e.g. --preset wal_buffers_small
#                                        for the full 3 runs of 15 s)
#   PG_CONFIG=/path/to/pg_config scripts/demo.sh   another PostgreSQL
#                                        (default: Debian 12's 15)
#   scripts/pg_root.sh --run 18 . env WS_TEST_IN_ROOT=18 \
#     PG_CONFIG=/usr/lib/postgresql/18/bin/pg_config \
#     bash -c 'cp -a /wal_stall /tmp/ws && /tmp/ws/scripts/demo.sh --preset clog'
#                                        18 in its root (no setup.sh there)
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# the PostgreSQL that scripts/setup.sh builds and installs wal_stall for
debian_pg_config=/usr/lib/postgresql/15/bin/pg_config
pg_config=${PG_CONFIG:-$debian_pg_config}
build_for() {	# wal_stall from clean (PGXS would keep objects built for another major)
	make -C "$top" -s clean PG_CONFIG="$pg_config" >/dev/null
	make -C "$top" -s PG_CONFIG="$pg_config" >/dev/null
	make -C "$top" -s PG_CONFIG="$pg_config" install >/dev/null
}
if [ -n "${WS_TEST_IN_ROOT:-}" ]; then
	# inside a root of scripts/pg_root.sh (a copy of the tree there): its own
	# packages are the PostgreSQL, and setup.sh's are Debian 12's; the
	# harness is built against that PostgreSQL's libpq
	build_for
	make -C "$top/bench" -s clean >/dev/null
	make -C "$top/bench" -s PG_CONFIG="$pg_config" wal_stall_bench >/dev/null
else
	bash "$top/scripts/setup.sh"
	# another PostgreSQL: build for it and install wal_stall there too
	if [ "$("$pg_config" --pkglibdir)" != "$("$debian_pg_config" --pkglibdir)" ]; then
		build_for
	fi
fi
out="$top/bench-results/$(date -u +%Y%m%d-%H%M%S)"
if [ $# -eq 0 ]; then
	set -- --preset quick
fi
"$top/bench/wal_stall_bench" --pg-config "$pg_config" --out "$out" "$@"
echo
echo "report: $out/report.html"
