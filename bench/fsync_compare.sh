#!/bin/sh
#
# fsync_compare.sh DIR [SECONDS]
#
# Runs pg_test_fsync and wal_stall_test_fsync() alternately on the same
# directory, two rounds each, and prints one line per test: the mean ops/s
# of each tool over its rounds, their ratio (wal_stall / pg_test_fsync),
# and how far apart each tool's own rounds were ((max - min) / mean), which
# says how much of the ratio is just the disk's noise.
#
# DIR must be writable by this script's user (pg_test_fsync) and by the
# server (wal_stall_test_fsync); run it as the server's OS user.  The
# server is reached through the usual PG* environment variables and must
# have the wal_stall extension installed in that database.  SECONDS (per
# test, default 2) must be a whole number: pg_test_fsync takes no fraction.
# PG_TEST_FSYNC overrides the pg_test_fsync binary (default: from pg_config).
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
#
set -eu

usage() {
	echo "usage: $0 DIR [SECONDS]" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
dir=$1
seconds=${2:-2}
rounds=2
case $seconds in
	'' | *[!0-9]* | 0) echo "$0: SECONDS must be a whole number of at least 1" >&2; exit 2 ;;
esac
[ -d "$dir" ] || { echo "$0: \"$dir\" is not a directory" >&2; exit 2; }
pg_test_fsync=${PG_TEST_FSYNC:-$(pg_config --bindir)/pg_test_fsync}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# pg_test_fsync's report as "test|method|ops_per_sec" lines ("" when n/a).
parse_pg_test_fsync() {
	awk '
	/^Compare file sync methods using one/  { test = "one " $(NF-1) " write"; next }
	/^Compare file sync methods using two/  { test = "two " $(NF-1) " writes"; next }
	/^Compare open_sync with different/     { test = "open_sync sizes"; next }
	/^Test if fsync on non-write/           { test = "non-write descriptor"; next }
	/^Non-sync.ed/                          { test = "non-synced writes"; next }
	test != "" && (/ops\/sec/ || /n\/a/) {
		line = $0
		ops = ""
		if (match(line, /[0-9.]+ ops\/sec/))
		{
			ops = substr(line, RSTART, RLENGTH - 8)
			line = substr(line, 1, RSTART - 1)
		}
		sub(/n\/a\*?/, "", line)
		gsub(/[ \t]+/, " ", line)
		sub(/^ /, "", line)
		sub(/ $/, "", line)
		print test "|" line "|" ops
	}'
}

run_pg_test_fsync() {
	"$pg_test_fsync" -f "$dir/pg_test_fsync.$$.out" -s "$seconds" \
		| parse_pg_test_fsync > "$work/pg_test_fsync.$1"
}

run_wal_stall() {
	psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 -v dir="$dir" -v secs="$seconds" \
		> "$work/wal_stall.$1" <<'SQL'
SELECT test, method, coalesce(ops_per_sec::text, '')
FROM wal_stall_test_fsync(:'secs'::float8, :'dir');
SQL
}

for round in $(seq 1 $rounds); do
	echo "round $round: pg_test_fsync ($seconds s per test)" >&2
	run_pg_test_fsync "$round"
	echo "round $round: wal_stall_test_fsync ($seconds s per test)" >&2
	run_wal_stall "$round"
done

# Join on test and method, in wal_stall's row order; means over the rounds.
cat "$work"/pg_test_fsync.* | sed 's/^/P|/' > "$work/all"
cat "$work"/wal_stall.* | sed 's/^/W|/' >> "$work/all"
awk -F'|' '
	{
		key = $2 "|" $3
		if ($1 == "W" && !(key in seen)) { seen[key] = 1; order[++n] = key }
		if ($4 == "") next
		sum[$1, key] += $4
		if (!cnt[$1, key]++ || $4 < lo[$1, key]) lo[$1, key] = $4
		if ($4 > hi[$1, key]) hi[$1, key] = $4
	}
	function mean(tool, key) {
		return cnt[tool, key] ? sum[tool, key] / cnt[tool, key] : ""
	}
	function spread(tool, key) {
		if (!cnt[tool, key]) return ""
		return sprintf("%.0f%%", 100 * (hi[tool, key] - lo[tool, key]) / mean(tool, key))
	}
	END {
		printf "%-20s  %-25s  %14s  %14s  %6s  %9s  %9s\n", "test", "method",
			"pg_test_fsync", "wal_stall", "ratio", "pg spread", "ws spread"
		for (i = 1; i <= n; i++)
		{
			split(order[i], part, "|")
			p = mean("P", order[i]); w = mean("W", order[i])
			printf "%-20s  %-25s  %14s  %14s  %6s  %9s  %9s\n", part[1], part[2],
				p == "" ? "n/a" : sprintf("%.1f", p),
				w == "" ? "n/a" : sprintf("%.1f", w),
				(p == "" || w == "") ? "" : sprintf("%.2f", w / p),
				spread("P", order[i]), spread("W", order[i])
		}
	}' "$work/all"
