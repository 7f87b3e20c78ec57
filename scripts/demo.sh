#!/usr/bin/env bash
# The README's first quick-start command: install what is needed, build
# wal_stall and its harness, and run the harness's "quick" preset: 32kB
# against 16MB of wal_buffers, pg_wal alone on a slowed loop device, 2 runs
# of 10 s each, interleaved, on a temporary cluster.  Prints the verdict
# table and the path of the report.  As root on Debian 12 (about 2 minutes).
#
#   scripts/demo.sh [HARNESS FLAGS...]   (e.g. --preset wal_buffers_small)
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/setup.sh"
pgconfig=/usr/lib/postgresql/15/bin/pg_config
out="$top/bench-results/$(date -u +%Y%m%d-%H%M%S)"
if [ $# -eq 0 ]; then
	set -- --preset quick
fi
"$top/bench/wal_stall_bench" --pg-config "$pgconfig" --out "$out" "$@"
echo
echo "report: $out/report.html"
