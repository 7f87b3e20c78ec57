#!/usr/bin/env bash
# The settings whose list elements the server quotes (GUC_LIST_QUOTE) are
# all in wal_stall_bench's list, on the PostgreSQL under test (scripts/test.sh
# runs it on every major).
#
# The harness restores a list setting one literal per element
# (autoconf.c, wsb_list_quote_settings, printed by the probe
# bench/list_quote_settings): a list-quoted setting it did not know would
# come back as one element holding the whole list, and a server whose
# unix_socket_directories came back that way would not start.  pg_settings
# does not expose the flag, so the server is asked: ALTER SYSTEM SET name =
# 'a b', 'c' writes the element "a b" as a quoted identifier in
# postgresql.auto.conf only for a list-quoted setting; one that takes a
# single value refuses the list.  Needs root (the cluster runs as
# postgres).  Prints TAP.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../test/cluster.sh
. "$here/../../test/cluster.sh"
require_root
probe=$here/../list_quote_settings
[ -x "$probe" ] || bail "build $probe first (make -C bench list_quote_settings)"

ours=$("$probe" | sort)
ok "the harness's list has at least 6 names ($(echo "$ours" | wc -l))" test "$(echo "$ours" | wc -l)" -ge 6

cluster_scratch list_quote $((20000 + RANDOM % 10000))
cluster_start "$dir" || bail "the cluster did not start"
strings=$(cluster_psql "$dir" -At -c "SELECT name FROM pg_catalog.pg_settings
	WHERE vartype = 'string' AND context <> 'internal' ORDER BY 1")
ok "the server has string settings to ask about ($(echo "$strings" | wc -l))" test "$(echo "$strings" | wc -l)" -gt 20
# one statement each (ALTER SYSTEM cannot run in a transaction block): the
# settings that take one value refuse the list, as they should
for s in $strings; do echo "ALTER SYSTEM SET $s = 'a b', 'c';"; done |
	cluster_psql "$dir" -q >/dev/null 2>&1
quoted=$(sed -nE "s/^([a-z_]+) = '\"a b\", c'\$/\1/p" "$dir/data/postgresql.auto.conf" | sort)
ok "the probe finds search_path and unix_socket_directories quoted: $(echo $quoted)" \
	sh -c "echo '$quoted' | grep -qx search_path && echo '$quoted' | grep -qx unix_socket_directories"
missing=$(comm -23 <(echo "$quoted") <(echo "$ours") | tr '\n' ' ')
is "$missing" "" "every list-quoted setting of PostgreSQL $PG_MAJOR is in the harness's list"
tap_plan
[ "$failed" -eq 0 ]
