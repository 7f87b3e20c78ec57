#!/usr/bin/env bash
# Run every wal_stall test suite: pg_regress, pgTAP (pg_prove) and Perl TAP.
# As root on Debian 12: installs what it needs, runs the suites as the
# postgres user in a scratch copy of the tree, and ends with one line
# "N passed, N failed" summing all suites.  Exits non-zero if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/setup.sh" || exit 1

export PATH=/usr/lib/postgresql/15/bin:$PATH
PGCONFIG=/usr/lib/postgresql/15/bin/pg_config
work=$(mktemp -d /tmp/wal_stall_test.XXXXXX)
cp -a "$top/." "$work/"
rm -rf "$work/.git"
chown -R postgres:postgres "$work"
as_pg() { runuser -u postgres -- "$@"; }

passed=0
failed=0
logs="$work/test-logs"
mkdir -p "$logs"; chown postgres "$logs"

# Count "ok N" / "not ok N" lines of TAP output; a script that died without
# reporting (non-zero exit but no "not ok") counts as one failure.
count_tap() {
	local file=$1 status=$2 ok notok
	ok=$(grep -cE '^\s*ok [0-9]+' "$file")
	notok=$(grep -cE '^\s*not ok [0-9]+' "$file")
	if [ "$status" -ne 0 ] && [ "$notok" -eq 0 ]; then
		notok=1
	fi
	passed=$((passed + ok))
	failed=$((failed + notok))
	echo "  $ok passed, $notok failed"
}

echo "== pg_regress"
as_pg make -C "$work" -s PG_CONFIG=$PGCONFIG installcheck TAP_TESTS= >"$logs/regress.log" 2>&1
status=$?
grep -E '^(ok|not ok|test) |\.\.\. (ok|FAILED)' "$logs/regress.log" | sed 's/^/  /'
ok=$(grep -cE '(^ok [0-9]+|\.\.\. ok)' "$logs/regress.log")
notok=$(grep -cE '(^not ok [0-9]+|\.\.\. FAILED)' "$logs/regress.log")
if [ "$status" -ne 0 ] && [ "$notok" -eq 0 ]; then
	notok=1
	tail -20 "$logs/regress.log"
fi
[ -f "$work/regression.diffs" ] && head -100 "$work/regression.diffs"
passed=$((passed + ok)); failed=$((failed + notok))
echo "  $ok passed, $notok failed"

echo "== pgTAP"
as_pg bash "$work/test/pgtap/run.sh" >"$logs/pgtap.log" 2>&1
status=$?
grep -E '^(not ok|ok) |^#|^test/' "$logs/pgtap.log" | grep -vE '^ok ' | sed 's/^/  /' | head -40
count_tap "$logs/pgtap.log" $status

echo "== unit: the collector's cadence (test/unit)"
cc -O2 -Wall -Wextra -Werror -o "$work/test/unit/test_cadence" "$work/test/unit/test_cadence.c" &&
	"$work/test/unit/test_cadence" >"$logs/unit.log" 2>&1
count_tap "$logs/unit.log" $?

echo "== unit: the bench harness (bench/test_unit)"
make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" test_unit >"$logs/bench_unit.log" 2>&1 &&
	"$work/bench/test_unit" >>"$logs/bench_unit.log" 2>&1
status=$?
grep -E '^not ok' "$logs/bench_unit.log" | sed 's/^/  /'
count_tap "$logs/bench_unit.log" $status

echo "== Perl TAP"
as_pg make -C "$work" -s PG_CONFIG=$PGCONFIG installcheck REGRESS= PROVE_FLAGS=-v >"$logs/tap.log" 2>&1
status=$?
grep -E '^(t/|not ok|Result)' "$logs/tap.log" | sed 's/^/  /'
count_tap "$logs/tap.log" $status
if [ "$status" -ne 0 ]; then
	for f in "$work"/tmp_check/log/regress_log_*; do
		[ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }
	done
fi

echo "== bench end to end (bench/t/e2e.sh, as root)"
make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" wal_stall_bench >"$logs/e2e.log" 2>&1 &&
	PG_CONFIG=$PGCONFIG bash "$work/bench/t/e2e.sh" >>"$logs/e2e.log" 2>&1
status=$?
grep -E '^(not ok|ok) ' "$logs/e2e.log" | grep -v '^ok' | sed 's/^/  /'
count_tap "$logs/e2e.log" $status

if [ "$failed" -eq 0 ]; then
	rm -rf "$work"
else
	echo "logs kept in $work"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
