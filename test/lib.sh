# test/lib.sh: what wal_stall's shell test scripts share.  Source it by a
# path relative to the script, so that a copy of the tree (scripts/test.sh,
# scripts/build_deb.sh) finds it too:
#
#   . "$(dirname "$0")/../../test/lib.sh"     (from bench/t/)
#   . "$(dirname "$0")/../test/lib.sh"        (from scripts/, exporter/)
#
# The PostgreSQL under test, never named by a version here but through
# PG_CONFIG: as given, else the pg_config on the PATH, else Debian 12's
# PostgreSQL 15.  Set from it: PGBIN (its --bindir) and PG_MAJOR (its major
# version, e.g. 15).
#
# TAP: "ok N - DESCRIPTION" / "not ok N - DESCRIPTION" lines numbered from 1.
#   ok DESCRIPTION COMMAND...    the command's exit status decides
#   is GOT WANT DESCRIPTION      the two strings are equal (else both shown)
#   skip REASON                  "ok N # skip REASON": counts as neither
#   bail MESSAGE                 "Bail out! MESSAGE", exit 1
#   require_root [MESSAGE]       bail unless run as root
#   require_bench                bail unless $BENCH, the tree's
#                                bench/wal_stall_bench, is built
#   tap_fold FILE STATUS PREFIX  another TAP script's output (FILE) and
#                                exit status counted as this script's: each
#                                "ok"/"not ok" line renumbered, PREFIX
#                                before its description, its "#" lines
#                                kept; a non-zero STATUS with no "not ok"
#                                line is one failure more
#   tap_summary                  the closing "N passed, N failed" line
#   tap_plan                     the closing "1..N" line (a trailing plan)
# The counts are in n (lines printed), passed and failed.
#
#   as_postgres COMMAND...       run it as the postgres user
#   work_dir NAME                make /tmp/NAME.XXXXXX (mode 755) as $work,
#                                removed at exit (a script with more to clean
#                                sets its own EXIT trap after this)
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
# shellcheck shell=bash disable=SC2034  # the variables are for the scripts

PG_CONFIG=${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}
PGBIN=$("$PG_CONFIG" --bindir)
PG_MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

# the tree this file is in
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/wal_stall_bench

n=0 passed=0 failed=0

ok() {	# ok DESCRIPTION COMMAND...: the command's status decides
	local what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
		passed=$((passed + 1))
	else
		echo "not ok $n - $what"
		failed=$((failed + 1))
	fi
}

is() {	# is GOT WANT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $n - $3"
		passed=$((passed + 1))
	else
		echo "not ok $n - $3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
		failed=$((failed + 1))
	fi
}

skip() { n=$((n + 1)); echo "ok $n # skip $1"; }

bail() { echo "Bail out! $*"; exit 1; }

require_root() { [ "$(id -u)" = 0 ] || bail "${1:-run as root}"; }

require_bench() { [ -x "$BENCH" ] || bail "build $BENCH first"; }

tap_fold() {	# tap_fold FILE STATUS PREFIX
	local line failed_there=0
	while IFS= read -r line; do
		case $line in
			"ok "*"# skip"*) skip "$3${line#ok * # skip }" ;;
			"ok "*) ok "$3${line#ok * - }" true ;;
			"not ok "*) failed_there=1; ok "$3${line#not ok * - }" false ;;
			"#"*) echo "$line" ;;
		esac
	done <"$1"
	[ "$2" -eq 0 ] || [ "$failed_there" = 1 ] || ok "$3$(basename "$1") ended with status $2" false
}

tap_summary() { echo "$passed passed, $failed failed"; }

tap_plan() { echo "1..$n"; }

# Run as postgres: initdb and the server refuse root.  Already postgres
# (test/pgtap/run.sh may run so), the command runs as it is.
as_postgres() {
	if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

work_dir() {
	work=$(mktemp -d "/tmp/$1.XXXXXX")
	chmod 755 "$work"	# the postgres user works in it too
	trap 'rm -rf "$work"' EXIT
}
