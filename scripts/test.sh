#!/usr/bin/env bash
# Run every wal_stall test suite: pg_regress, pgTAP (pg_prove) and Perl TAP,
# against one PostgreSQL or against every supported major version.
#
#   scripts/test.sh                 every version of WS_MATRIX (what .ci/run runs)
#   scripts/test.sh --pg 13         one major version
#   PG_CONFIG=/path/to/pg_config scripts/test.sh    that installation only
#
# As root on Debian 12: installs what it needs (scripts/setup.sh), builds
# each version Debian ships only as source into a cache directory
# (scripts/build_pg.sh, /var/cache/wal_stall, reused on the next run), and
# runs the suites as the postgres user in a scratch copy of the tree.  The
# matrix is WS_MATRIX (default "13 15 17 18 19"); a version whose sources
# cannot be downloaded is reported as skipped, not failed.  The unit suites,
# the bench end-to-end tests, the Prometheus test, the version check, the
# markdown link check and the Debian package test run once, on 15.
# Prints the per-suite counts for each version and ends with one line
# "N passed, N failed" summing every version and suite.  Exits non-zero if
# any failed.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

mode=matrix
versions=${WS_MATRIX:-13 15 17 18 19}
if [ -n "${PG_CONFIG:-}" ]; then
	mode=pg_config
fi
while [ $# -gt 0 ]; do
	case $1 in
		--matrix) mode=matrix; shift ;;	# the default; kept for scripts that say it
		--pg) [ $# -ge 2 ] || usage; mode=one; versions=$2; shift 2 ;;
		--pg=*) mode=one; versions=${1#--pg=}; shift ;;
		-h|--help) usage ;;
		*) echo "test.sh: unknown argument $1" >&2; usage ;;
	esac
done

bash "$top/scripts/setup.sh" || exit 1
exec 3>&1	# the terminal, for messages from inside redirected suites

# No suite may hang the run: each gets a wall-clock limit (seconds) far above
# its usual time, and a suite that reaches it is killed with its process
# group and counts as failed ("timed out" in the output).
limit() {
	local secs=$1 rc
	shift
	timeout -k 30 "$secs" "$@"
	rc=$?
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo "  timed out after $secs s" >&3
	return "$rc"
}

passed=0
failed=0
summary=""
t_start=$(date +%s)

# Count "ok N" / "not ok N" lines of TAP output ("ok N # skip" ones apart:
# they are reported, not counted as passed).  A script that died
# before its plan ended is one more failure each: prove says "No plan found"
# or "Bad plan" for it; and a run that exited non-zero with neither counts
# as one failure.
count_tap() {
	local file=$1 status=$2 ok notok died skipped
	ok=$(grep -E '^\s*ok [0-9]+' "$file" | grep -cviE '# skip')
	skipped=$(grep -E '^\s*ok [0-9]+' "$file" | grep -ciE '# skip')
	notok=$(grep -cE '^\s*not ok [0-9]+' "$file")
	died=$(grep -cE 'Parse errors: (No plan found|Bad plan)' "$file")
	notok=$((notok + died))
	if [ "$status" -ne 0 ] && [ "$notok" -eq 0 ]; then
		notok=1
	fi
	count "$ok" "$notok" "$skipped"
}
# Add $1 passed and $2 failed to the totals; $3 skipped are only reported.
count() {
	passed=$((passed + $1))
	failed=$((failed + $2))
	v_passed=$((v_passed + $1))
	v_failed=$((v_failed + $2))
	if [ "${3:-0}" -gt 0 ]; then
		echo "  $1 passed, $2 failed ($3 skipped: not on this version)"
	else
		echo "  $1 passed, $2 failed"
	fi
}

# The pg_config of major version $1: Debian's package if installed, else a
# build from Debian's source package (exit 2 there: sources not available).
pg_config_of() {
	local ver=$1
	if [ -x "/usr/lib/postgresql/$ver/bin/pg_config" ]; then
		echo "/usr/lib/postgresql/$ver/bin/pg_config"
		return 0
	fi
	bash "$top/scripts/build_pg.sh" "$ver" | tail -1
	return "${PIPESTATUS[0]}"
}

# Every suite against the installation of pg_config $1.
run_suites() {
	local PGCONFIG=$1 major work logs status ok notok
	major=$("$PGCONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	v_passed=0
	v_failed=0
	echo "=== PostgreSQL $("$PGCONFIG" --version | sed 's/^PostgreSQL //') ($PGCONFIG)"
	export PATH=$("$PGCONFIG" --bindir):$saved_path
	work=$(mktemp -d /tmp/wal_stall_test.XXXXXX)
	cp -a "$top/." "$work/"
	rm -rf "$work/.git"
	make -C "$work" -s clean >/dev/null 2>&1 || true
	chown -R postgres:postgres "$work"
	logs="$work/test-logs"
	mkdir -p "$logs"; chown postgres "$logs"

	# WS_TEST_FUNCTIONS=1: with the functions only the tests call
	# (test/test_functions.c), which no package or default build has.
	echo "== build and install (-Werror, with the test functions)"
	if make -C "$work" -s PG_CONFIG="$PGCONFIG" COPT=-Werror WS_TEST_FUNCTIONS=1 >"$logs/build.log" 2>&1 &&
		make -C "$work" -s PG_CONFIG="$PGCONFIG" WS_TEST_FUNCTIONS=1 install >>"$logs/build.log" 2>&1; then
		count 1 0
	else
		tail -30 "$logs/build.log" | sed 's/^/  /'
		count 0 1
	fi
	chown -R postgres:postgres "$work"

	echo "== pg_regress"
	limit 900 runuser -u postgres -- make -C "$work" -s PG_CONFIG="$PGCONFIG" installcheck TAP_TESTS= >"$logs/regress.log" 2>&1
	status=$?
	grep -E '^(ok|not ok|test) |\.\.\. (ok|FAILED)' "$logs/regress.log" | sed 's/^/  /'
	ok=$(grep -cE '(^ok [0-9]+|\.\.\. ok)' "$logs/regress.log")
	notok=$(grep -cE '(^not ok [0-9]+|\.\.\. FAILED)' "$logs/regress.log")
	if [ "$status" -ne 0 ] && [ "$notok" -eq 0 ]; then
		notok=1
		tail -20 "$logs/regress.log"
	fi
	[ -f "$work/regression.diffs" ] && head -100 "$work/regression.diffs"
	count "$ok" "$notok"

	echo "== pgTAP"
	limit 900 runuser -u postgres -- env PG_CONFIG="$PGCONFIG" bash "$work/test/pgtap/run.sh" >"$logs/pgtap.log" 2>&1
	status=$?
	grep -E '^(not ok|ok) |^#|^test/' "$logs/pgtap.log" | grep -vE '^ok ' | sed 's/^/  /' | head -40
	count_tap "$logs/pgtap.log" $status

	if [ "$major" = 15 ]; then
		suites_once "$PGCONFIG" "$work" "$logs"
	fi

	echo "== Perl TAP"
	limit 1800 runuser -u postgres -- make -C "$work" -s PG_CONFIG="$PGCONFIG" installcheck REGRESS= PROVE_FLAGS=-v >"$logs/tap.log" 2>&1
	status=$?
	grep -E '^(t/|not ok|Result)' "$logs/tap.log" | sed 's/^/  /'
	count_tap "$logs/tap.log" $status
	if [ "$status" -ne 0 ]; then
		for f in "$work"/tmp_check/log/regress_log_*; do
			[ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }
		done
	fi

	if [ "$v_failed" -eq 0 ]; then
		rm -rf "$work"
	else
		echo "logs kept in $work"
	fi
	echo "PostgreSQL $major: $v_passed passed, $v_failed failed"
	summary="$summary$(printf '%-4s %6d passed, %3d failed' "$major" "$v_passed" "$v_failed")
"
}

# Suites that do not depend on the server version: run once, on 15.
suites_once() {
	local PGCONFIG=$1 work=$2 logs=$3 status

	echo "== unit: the collector's cadence and the advice's rules (test/unit)"
	cc -O2 -Wall -Wextra -Werror -o "$work/test/unit/test_cadence" "$work/test/unit/test_cadence.c" &&
		"$work/test/unit/test_cadence" >"$logs/unit.log" 2>&1
	status=$?
	cc -O2 -Wall -Wextra -Werror -o "$work/test/unit/test_advice" "$work/test/unit/test_advice.c" \
		"$work/advice.c" -lm &&
		"$work/test/unit/test_advice" >>"$logs/unit.log" 2>&1
	[ $? -eq 0 ] || status=1
	grep -E '^not ok' "$logs/unit.log" | sed 's/^/  /'
	count_tap "$logs/unit.log" $status

	echo "== unit: the bench harness (bench/test_unit, and its module graph)"
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" test_unit >"$logs/bench_unit.log" 2>&1 &&
		"$work/bench/test_unit" >>"$logs/bench_unit.log" 2>&1
	status=$?
	# no cycle between bench's files, bench/README.md's list of who uses
	# whom true, each header's file names true (bench/module_graph.sh)
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" graph >>"$logs/bench_unit.log" 2>&1 ||
		status=1
	grep -E '^not ok' "$logs/bench_unit.log" | sed 's/^/  /'
	count_tap "$logs/bench_unit.log" $status

	echo "== bench end to end (bench/t/e2e.sh, as root)"
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" wal_stall_bench >"$logs/e2e.log" 2>&1 &&
		PG_CONFIG=$PGCONFIG limit 1800 bash "$work/bench/t/e2e.sh" >>"$logs/e2e.log" 2>&1
	status=$?
	grep -E '^(not ok|ok) ' "$logs/e2e.log" | grep -v '^ok' | sed 's/^/  /'
	count_tap "$logs/e2e.log" $status

	echo "== bench cgroup v2 (bench/t/cgroup_v2.sh, as root, a stand-in cgroup root)"
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" wal_stall_bench >"$logs/cgroup_v2.log" 2>&1 &&
		PG_CONFIG=$PGCONFIG limit 900 bash "$work/bench/t/cgroup_v2.sh" >>"$logs/cgroup_v2.log" 2>&1
	status=$?
	grep -E '^(not ok|ok) ' "$logs/cgroup_v2.log" | grep -v '^ok' | sed 's/^/  /'
	count_tap "$logs/cgroup_v2.log" $status

	echo "== bench restores and restarts on Debian clusters (bench/t/restore.sh, as root)"
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" wal_stall_bench >"$logs/restore.log" 2>&1 &&
		PG_CONFIG=$PGCONFIG limit 900 bash "$work/bench/t/restore.sh" >>"$logs/restore.log" 2>&1
	status=$?
	grep -E '^(not ok|ok) ' "$logs/restore.log" | grep -v '^ok' | sed 's/^/  /'
	count_tap "$logs/restore.log" $status

	echo "== bench verdicts end to end (bench/t/verdicts.sh, as root)"
	PG_CONFIG=$PGCONFIG limit 1800 bash "$work/bench/t/verdicts.sh" >"$logs/verdicts.log" 2>&1
	status=$?
	grep -E '^(not ok|ok) ' "$logs/verdicts.log" | grep -v '^ok' | sed 's/^/  /'
	count_tap "$logs/verdicts.log" $status

	echo "== Prometheus (exporter/test.sh, as root)"
	PG_CONFIG=$PGCONFIG limit 900 bash "$work/exporter/test.sh" >"$logs/exporter.log" 2>&1
	status=$?
	grep -E '^not ok ' "$logs/exporter.log" | sed 's/^/  /'
	count_tap "$logs/exporter.log" $status

	echo "== versions agree (scripts/check_versions.sh)"
	bash "$work/scripts/check_versions.sh" "$work/bench/wal_stall_bench" >"$logs/versions.log" 2>&1
	status=$?
	grep -E '^not ok |^#  ' "$logs/versions.log" | sed 's/^/  /'
	count_tap "$logs/versions.log" $status

	echo "== markdown links resolve (scripts/check_links.py)"
	python3 "$work/scripts/check_links.py" >"$logs/links.log" 2>&1
	status=$?
	grep -E '^not ok |^#   ' "$logs/links.log" | sed 's/^/  /'
	count_tap "$logs/links.log" $status

	echo "== Debian packages: built, installed, used, purged (scripts/test_package.sh, as root)"
	PG_CONFIG=$PGCONFIG limit 1200 bash "$work/scripts/test_package.sh" >"$logs/package.log" 2>&1
	status=$?
	grep -E '^not ok |^#   |^Bail out' "$logs/package.log" | sed 's/^/  /'
	count_tap "$logs/package.log" $status
	# The purge took wal_stall out of this PostgreSQL's directories: the
	# suites after this one need the tree's build there again.
	if ! make -C "$work" -s PG_CONFIG="$PGCONFIG" WS_TEST_FUNCTIONS=1 install >>"$logs/package.log" 2>&1; then
		echo "  could not install the tree's build again after the package test"
		count 0 1
	fi
}

saved_path=$PATH
case $mode in
	pg_config)
		run_suites "$PG_CONFIG"
		;;
	*)
		for ver in $versions; do
			echo "=== PostgreSQL $ver: locating or building it"
			t0=$(date +%s)
			pgc=$(pg_config_of "$ver")
			rc=$?
			if [ "$rc" -eq 2 ] && [ "$mode" = matrix ]; then
				echo "=== PostgreSQL $ver: skipped (its Debian source package could not be downloaded)"
				summary="$summary$(printf '%-4s skipped: sources not downloadable' "$ver")
"
				continue
			elif [ "$rc" -ne 0 ] || [ -z "$pgc" ]; then
				echo "=== PostgreSQL $ver: could not be built"
				passed=$passed; failed=$((failed + 1))
				summary="$summary$(printf '%-4s build failed' "$ver")
"
				continue
			fi
			[ $(($(date +%s) - t0)) -gt 5 ] && echo "  (built in $(($(date +%s) - t0)) s)"
			run_suites "$pgc"
		done
		;;
esac

echo "=== summary ($(($(date +%s) - t_start)) s)"
printf '%s' "$summary"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
