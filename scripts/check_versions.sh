#!/usr/bin/env bash
# Check that every place naming wal_stall's version agrees: wal_stall.control
# (default_version), its install script, the Debian package's version
# (debian/changelog, upstream part), the harness (WSB_VERSION in bench/wsb.h,
# and "wal_stall_bench --version" when a built binary is given), the man
# page's header, and CHANGELOG.md's newest release, below its "Unreleased"
# section.  Prints TAP lines and "N passed, N failed".
#
#   scripts/check_versions.sh [PATH/TO/wal_stall_bench]
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
bench=${1:-}

n=0 failed=0
is() {	# is GOT WANT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $n - $3"
	else
		echo "not ok $n - $3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
		failed=$((failed + 1))
	fi
}

control=$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" "$top/wal_stall.control")
echo "# wal_stall.control default_version: $control"
[ -n "$control" ] || { echo "Bail out! no default_version in wal_stall.control"; exit 1; }

is "$(test -f "$top/wal_stall--$control.sql" && echo yes)" yes "wal_stall--$control.sql exists"
is "$(grep -c "wal_stall--$control.sql" "$top/Makefile")" 1 "the Makefile installs wal_stall--$control.sql"
deb=$(sed -nE '1s/^wal-stall \(([^)]*)\).*/\1/p' "$top/debian/changelog")
is "${deb%-*}" "$control" "debian/changelog's package version ($deb) is $control-N"
is "$(sed -nE 's/^#define WSB_VERSION[[:space:]]+"([^"]*)".*/\1/p' "$top/bench/wsb.h")" "$control" \
	"bench/wsb.h WSB_VERSION"
is "$(sed -nE 's/^\.TH WAL_STALL_BENCH 1 [^ ]+ "wal_stall ([^"]*)".*/\1/p' "$top/bench/wal_stall_bench.1")" "$control" \
	"the man page's header"
# CHANGELOG.md: "## Unreleased" first, then the newest release.
headings=$(grep -E '^## ' "$top/CHANGELOG.md" | head -2 | tr '\n' '|')
is "$headings" "## Unreleased|## $control|" "CHANGELOG.md: Unreleased, then $control"
if [ -n "$bench" ]; then
	is "$("$bench" --version 2>&1)" "wal_stall_bench (wal_stall) $control" "$bench --version"
fi

echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
