#!/usr/bin/env bash
# The extension's messages follow PostgreSQL's error message style guide
# (https://www.postgresql.org/docs/current/error-style-guide.html), checked
# by grep on the C sources and headers at the top of the tree and
# test/test_functions.c (or the files given):
#   - a primary message (errmsg, errmsg_internal, errmsg_plural, elog) starts
#     in lower case, ends without a period, and has no "wal_stall:" prefix:
#     where a message must name the extension, it does so in its sentence
#     ("wal_stall collector is not running");
#   - a detail or hint (errdetail, errdetail_log, errdetail_plural, errhint)
#     is a sentence: capital first letter (or an identifier such as
#     wal_stall, or a conversion such as %d), final period;
#   - a LOG or DEBUG message carries no errcode(...): nothing reads its
#     SQLSTATE (errcode_for_file_access(), as core's LOG messages have it,
#     is allowed).
# Only string literals are checked: a message built at run time ("%s") is
# the caller's to keep in style.  --self-test runs the checks on a file of
# bad examples and expects each check to find its own.  Prints TAP.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
lit='"([^"\\]|\\.)*"'
n=0
failed=0

# check NAME FILES...: ok when the check's grep finds nothing
check() {
	local name=$1 found
	shift
	found=$("$@")
	n=$((n + 1))
	if [ -z "$found" ]; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		echo "$found" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

primary() { grep -HnoE "(errmsg|errmsg_internal|errmsg_plural)\($lit|elog\([A-Z0-9]+, *$lit" "$@"; }
secondary() { grep -HnoE "(errdetail|errdetail_log|errdetail_plural|errhint)\($lit" "$@"; }

no_prefix() { primary "$@" | grep -E '\("wal_stall: |, *"wal_stall: '; }
lower_case() { primary "$@" | grep -E '\("[A-Z][a-z]|, *"[A-Z][a-z]'; }
no_period() { primary "$@" | grep -E '[^.]\.\"$'; }
sentences() { secondary "$@" | grep -vE '\("(%[a-z]|[A-Z"]|[a-z]+_[a-z_]+).*(\.|%s)"$|\("%s"$'; }
log_no_errcode() {
	grep -HPzo "ereport\((LOG|DEBUG[1-5]),\s*\(?\s*errcode\(ERRCODE_[A-Z_]+\)" "$@" |
		tr '\0' '\n' | grep -a . | head -5
}

run_checks() {
	check 'primary messages have no "wal_stall:" prefix' no_prefix "$@"
	check 'primary messages start in lower case' lower_case "$@"
	check 'primary messages end without a period' no_period "$@"
	check 'details and hints are sentences: capital, final period' sentences "$@"
	check 'LOG and DEBUG messages carry no errcode(ERRCODE_...)' log_no_errcode "$@"
}

if [ "${1:-}" = --self-test ]; then
	bad=$(mktemp "${TMPDIR:-/tmp}/message_style.XXXXXX.c")
	trap 'rm -f "$bad"' EXIT
	cat >"$bad" <<'BAD'
	elog(ERROR, "wal_stall: prefixed");
	ereport(ERROR, (errmsg("Capitalized message")));
	ereport(ERROR, (errmsg("ends with a period.")));
	ereport(ERROR, (errmsg("fine"), errdetail("not a sentence")));
	ereport(ERROR, (errmsg("fine"), errhint("Without a period")));
	ereport(LOG,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("a LOG with a code")));
BAD
	out=$(run_checks "$bad")
	echo "1..2"
	if [ "$(echo "$out" | grep -c '^not ok ')" -eq 5 ]; then
		echo "ok 1 - each of the 5 checks finds its bad example"
	else
		echo "not ok 1 - not every check found its bad example"
		echo "$out" | sed 's/^/#   /'
		exit 1
	fi
	if [ "$(echo "$out" | grep -c '^#   .*errhint("Without a period"')" -eq 1 ] &&
		[ "$(echo "$out" | grep -c '^#   .*errdetail("not a sentence"')" -eq 1 ]; then
		echo "ok 2 - details and hints: the missing capital and the missing period are each found"
	else
		echo "not ok 2 - a detail or hint out of style was not found"
		echo "$out" | sed 's/^/#   /'
		exit 1
	fi
	exit 0
fi

if [ $# -eq 0 ]; then
	set -- "$here"/*.c "$here"/*.h "$here"/test/test_functions.c
fi
run_checks "$@"
echo "1..$n"
[ "$failed" -eq 0 ]
