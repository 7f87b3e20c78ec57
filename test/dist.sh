#!/usr/bin/env bash
# "make dist" makes the PGXN archive, and the archive is the extension:
# unpacked in a scratch directory it has META.json at its top, builds,
# installs and passes its pg_regress suite (make installcheck, as the
# postgres user), with nothing from the tree it came from.
#
#   WS_DIST_TREE=/path/to/clone test/dist.sh
#
# WS_DIST_TREE is a git checkout of wal_stall (default: the tree this
# script is in), whose HEAD is archived; PG_CONFIG names the PostgreSQL.
# Needs root (make install) and the postgres account.  Prints TAP.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
require_root
src=${WS_DIST_TREE:-$(cd "$(dirname "$0")/.." && pwd)}
git -C "$src" rev-parse --verify -q HEAD >/dev/null || bail "$src is not a git checkout: nothing to archive"
work_dir wal_stall_dist

version=$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" "$src/wal_stall.control")
zip=$work/wal_stall-$version.zip
ok "make dist writes wal_stall-$version.zip" make -C "$src" -s PG_CONFIG="$PG_CONFIG" dist DISTDIR="$work"
ok "the archive unpacks" python3 -m zipfile -e "$zip" "$work/unpack"
dir=$work/unpack/wal_stall-$version
is "$(ls "$work/unpack")" "wal_stall-$version" "one top directory, wal_stall-$version"
is "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$dir/META.json" 2>&1)" \
	"$version.0" "META.json at its top names version $version.0"
# the build scripts/test.sh installs (with the test functions), so that the
# suites after this one find the library they expect
ok "it builds from the unpacked archive" \
	make -C "$dir" -s PG_CONFIG="$PG_CONFIG" COPT=-Werror WS_TEST_FUNCTIONS=1
ok "and installs" make -C "$dir" -s PG_CONFIG="$PG_CONFIG" WS_TEST_FUNCTIONS=1 install
chown -R postgres:postgres "$dir"
if as_postgres make -C "$dir" -s PG_CONFIG="$PG_CONFIG" installcheck TAP_TESTS= >"$work/regress.log" 2>&1; then
	ok "make installcheck passes in the unpacked archive" true
else
	tail -20 "$work/regress.log" | sed 's/^/# /'
	as_postgres head -40 "$dir/regression.diffs" 2>/dev/null | sed 's/^/# /'
	ok "make installcheck passes in the unpacked archive" false
fi
tap_plan
[ "$failed" -eq 0 ]
