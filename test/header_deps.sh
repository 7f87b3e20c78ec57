#!/usr/bin/env bash
# The top Makefile's header dependencies are what the compiler sees: for
# every object of the extension, the headers of ours its .c includes,
# directly or through another (cc -MM), are the headers the Makefile makes
# it depend on (make -p), no more and no fewer.  PGXS tracks no header
# dependencies, so a missing one leaves a stale object after a header
# changes.  PG_CONFIG names the PostgreSQL (default: pg_config).  Prints TAP.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}
server=$("$PG_CONFIG" --includedir-server) || exit 1
cd "$top" || exit 1

# the headers of ours among a list of prerequisites, sorted, one line
ours() { tr ' \\' '\n\n' | grep -E '^[a-z_]+\.h$' | sort -u | tr '\n' ' '; }

rules=$(make -s -pq PG_CONFIG="$PG_CONFIG" WS_TEST_FUNCTIONS=1 2>/dev/null | grep -E '^[a-z_/]+\.o: ')
n=0
failed=0
for c in *.c test/test_functions.c; do
	o=${c%.c}.o
	n=$((n + 1))
	seen=$(cc -MM -MG -I. -Itest -isystem "$server" "$c" | sed 's/^[^:]*://' | ours)
	listed=$(echo "$rules" | grep -E "^${o//\//\\/}: " | head -1 | sed 's/^[^:]*://' | ours)
	if [ "$seen" = "$listed" ]; then
		echo "ok $n - $o depends on the headers $c includes: ${seen:-none}"
	else
		echo "not ok $n - $o: $c includes ${seen:-none}; the Makefile lists ${listed:-none}"
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
