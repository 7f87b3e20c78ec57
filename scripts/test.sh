#!/usr/bin/env bash
# Run every wal_stall test suite: pg_regress, pgTAP (pg_prove) and Perl TAP,
# against one PostgreSQL or against every supported major version.
#
#   scripts/test.sh                 15, 17, 18 and 19 (what .ci/run runs)
#   scripts/test.sh --matrix        those and 13 (WS_MATRIX names others)
#   scripts/test.sh --quick         15 and 19 only: the machine's own and the newest
#   scripts/test.sh --pg 17         one major version
#   PG_CONFIG=/path/to/pg_config scripts/test.sh    that installation only
#
# WS_TEST_SERVER_SUITES_ONLY=1 runs pg_regress and pgTAP alone (what
# test/interrupt.sh interrupts).  Ctrl-C or SIGTERM ends every suite and
# removes what the run made (interrupted()).
#
# As root on Debian 12: installs what it needs (scripts/setup.sh) and runs
# the suites as the postgres user in a scratch copy of the tree.  15 is the
# machine's own package.  17, 18 and 19 are Debian's binary packages in a
# root file system of the suite that has them (scripts/pg_root.sh: trixie
# for 17, sid and experimental for 18 and 19, in /var/cache/wal_stall,
# reused on the next run): this script runs itself inside it, as root, with
# the tree bind-mounted, and adds its counts to the summary; on the matrix
# run the roots are made and their suites run in the background beside
# 15's (roots_beside), and the tests that assert rates, periods or shares
# of time wait for them and run alone.  13 is built
# from Debian's source package (scripts/build_pg.sh); a version whose
# packages cannot be had is reported as skipped, not failed.  The unit
# suites, the bench end-to-end tests, the version roots' trust test
# (test/root_trust.sh), the Prometheus test, the version
# check, the markdown link check and the Debian package test run once, on
# 15.  Prints the per-suite counts for each version and ends with one line
# "N passed, N failed" summing every version and suite.  Exits non-zero if
# any failed.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '5,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

mode=matrix
versions=${WS_MATRIX:-15 17 18 19}
if [ -n "${PG_CONFIG:-}" ]; then
	mode=pg_config
fi
while [ $# -gt 0 ]; do
	case $1 in
		--matrix) mode=matrix; versions=${WS_MATRIX:-13 15 17 18 19}; shift ;;
		--quick) mode=matrix; versions="15 19"; shift ;;
		--pg) [ $# -ge 2 ] || usage; mode=one; versions=$2; shift 2 ;;
		--pg=*) mode=one; versions=${1#--pg=}; shift ;;
		-h|--help) usage ;;
		*) echo "test.sh: unknown argument $1" >&2; usage ;;
	esac
done

# Inside a root of scripts/pg_root.sh (WS_TEST_IN_ROOT names its major)
# the root's own packages are the PostgreSQL under test.
setup_start=$SECONDS
if [ -z "${WS_TEST_IN_ROOT:-}" ]; then
	bash "$top/scripts/setup.sh" || exit 1
fi
setup_secs=$((SECONDS - setup_start))
exec 3>&1	# the terminal, for messages from inside redirected suites

# What an interrupted run must undo (interrupted()): the process groups of
# the suites running, each in a group of its own (limit(), the roots' job),
# and the scratch files and directories made.  Kept in files, so that the
# subshells of pipelines and of the roots' job add to them too.
run_state=$(mktemp -d /tmp/wal_stall_run.XXXXXX) || exit 1
trap 'rm -rf "$run_state"' EXIT
trap 'interrupted SIGINT 130' INT
trap 'interrupted SIGTERM 143' TERM
scratch() { echo "$1" >>"$run_state/scratch"; }
# "PID", a timeout(1) of limit(), which passes a signal on to its group;
# "-PID", a process group of another kind
group() { echo "$1" >>"$run_state/groups"; }

# The servers whose data directories lie under $1, stopped (immediate
# shutdown, as a crashed test's would be): a server started by pg_ctl is
# in a session of its own, which no signal to the suites' groups reaches.
# Prints the pid of each.
stop_servers_under() {
	local pidfile pid
	find "$1" -xdev -name postmaster.pid 2>/dev/null >"$run_state/pidfiles"
	while IFS= read -r pidfile; do
		pid=$(head -1 "$pidfile" 2>/dev/null)
		[[ $pid =~ ^[0-9]+$ ]] || continue
		# the postmaster works in its data directory: not another's pid
		[ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$(dirname "$pidfile")" ] || continue
		kill -QUIT "$pid" 2>/dev/null && echo "$pid"
	done <"$run_state/pidfiles"
}

# Wait up to $1 half-seconds while "kill -0 $2" finds a process ("-G" a
# group), for each word of the rest.
wait_gone() {
	local tries=$1 how=$2 id alive
	shift 2
	for _ in $(seq 1 "$tries"); do
		alive=no
		for id in "$@"; do
			kill -0 -- "$how$id" 2>/dev/null && alive=yes
		done
		[ "$alive" = no ] && return 0
		sleep 0.5
	done
	return 1
}

# SIGINT (Ctrl-C) or SIGTERM: end every suite (SIGTERM to its timeout(1),
# which passes it on to the suite's group and sends SIGKILL 30 s later;
# each suite script's own trap undoes its clusters, mounts and cgroups),
# stop the servers left in the scratch directories, remove them, and exit
# 128 + the signal's number.
interrupted() {
	local g path groups=() paths=() servers=()
	trap '' INT TERM
	echo "=== $1: ending the suites and removing what this run made" >&3
	touch "$run_state/groups" "$run_state/scratch"
	mapfile -t groups <"$run_state/groups"
	mapfile -t paths <"$run_state/scratch"
	for g in "${groups[@]}"; do
		kill -TERM -- "$g" 2>/dev/null
	done
	wait_gone 80 - "${groups[@]#-}"
	for path in "${paths[@]}"; do
		stop_servers_under "$path" >>"$run_state/servers"
	done
	touch "$run_state/servers"
	mapfile -t servers <"$run_state/servers"
	wait_gone 40 "" "${servers[@]}"
	for path in "${paths[@]}"; do
		rm -rf --one-file-system "$path"
	done
	exit "$2"
}

# No suite may hang the run: each gets a wall-clock limit (seconds) far above
# its usual time, and a suite that reaches it is killed with its process
# group and counts as failed ("timed out" in the output).
# Each limited suite also prints how long it took, so that the test
# command's hour can be seen where it goes.
limit() {
	local secs=$1 rc t0=$SECONDS pid
	shift
	# timeout(1) puts the suite in a process group of its own, which the
	# terminal's Ctrl-C does not reach; waited for in the background, so
	# that the trap runs at once and ends it (interrupted())
	timeout -k 30 "$secs" "$@" &
	pid=$!
	group "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo "  timed out after $secs s" >&3
	echo "  ($((SECONDS - t0)) s)" >&3
	return "$rc"
}

# "== NAME" before a suite: the part before it ends there, and its time
# is recorded under its name (end_part ends the last one).
part_name=""
part_start=0
part() {
	end_part
	part_name=$1
	part_start=$SECONDS
	echo "== $*"
}
end_part() {
	[ -n "$part_name" ] && record_time "$((SECONDS - part_start))" "$part_name"
	part_name=""
}

# Where the time goes: "SECONDS<tab>MAJOR<tab>WHAT" lines, printed at the
# end, the slowest first.  A run inside a root prints its own as
# "part-time" lines, which the run outside adds to its list.
part_times=""
[ "${setup_secs:-0}" -gt 0 ] && part_times="$setup_secs	-	setup: packages, the build (scripts/setup.sh)
"
record_time() {
	part_times="$part_times$1	${current_major:--}	$2
"
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
	ok=$(grep -aE '^\s*ok [0-9]+' "$file" | grep -acviE '# skip')
	skipped=$(grep -aE '^\s*ok [0-9]+' "$file" | grep -aciE '# skip')
	notok=$(grep -acE '^\s*not ok [0-9]+' "$file")
	died=$(grep -acE 'Parse errors: (No plan found|Bad plan)' "$file")
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

# The Perl TAP tests of the tree $1 (logs in $2) as postgres: $3 "alone"
# runs the tests whose assertions are rates, periods or shares of time,
# which another test's load beside them could move (test/t/testrules.yml's
# first list), one at a time; "beside" the others, two at a time; "all"
# every test, in the rules' order.  In the roots the load-sensitive tests
# whose code no major changes skip (test/t/WalStallTest.pm,
# on_one_major_only): 15 runs them.  Each test's output is printed whole
# when it ends, so count_tap counts the same lines as in a run one at a
# time.
perl_tap() {
	local work=$1 logs=$2 which=$3 alone tests="" t status
	alone=$(sed -n '/^  - seq:/,/^  - par:/s|^ *- \(test/t/[^*]*\.pl\)$|\1|p' "$work/test/t/testrules.yml")
	case $which in
		alone)
			part "Perl TAP: the load-sensitive tests, one at a time"
			tests=$(echo "$alone" | tr "\n" " ")
			;;
		beside)
			part "Perl TAP: the other tests, two at a time"
			for t in "$work"/test/t/*.pl; do
				t=${t#"$work"/}
				echo "$alone" | grep -qxF "$t" || tests="$tests $t"
			done
			;;
		all)
			part "Perl TAP"
			tests=test/t/*.pl
			;;
	esac
	limit 1800 runuser -u postgres -- env WS_TEST_OTHER_MAJOR="${WS_TEST_IN_ROOT:+1}" \
		make -C "$work" -s PG_CONFIG="$PGCONFIG" installcheck REGRESS= PROVE_TESTS="$tests" \
		PROVE_FLAGS="-v -j2" >"$logs/tap_$which.log" 2>&1
	status=$?
	grep -aE '^(t/|not ok|Result)' "$logs/tap_$which.log" | sed 's/^/  /'
	count_tap "$logs/tap_$which.log" $status
	if [ "$status" -ne 0 ]; then
		for f in "$work"/tmp_check/log/regress_log_*; do
			[ -f "$f" ] && { echo "--- $f"; runuser -u postgres -- tail -30 "$f"; }
		done
	fi
}

# Every suite against the installation of pg_config $1.
run_suites() {
	local PGCONFIG=$1 major work logs status ok notok
	major=$("$PGCONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
	current_major=$major
	v_passed=0
	v_failed=0
	echo "=== PostgreSQL $("$PGCONFIG" --version | sed 's/^PostgreSQL //') ($PGCONFIG)"
	export PATH=$("$PGCONFIG" --bindir):$saved_path
	work=$(mktemp -d /tmp/wal_stall_test.XXXXXX)
	scratch "$work"
	cp -a "$top/." "$work/"
	rm -rf "$work/.git"
	make -C "$work" -s clean >/dev/null 2>&1 || true
	# Root builds in it before it is handed to postgres, and writes every
	# log in a directory of its own, never in the tree postgres owns.
	logs=$(mktemp -d /tmp/wal_stall_logs.XXXXXX)
	scratch "$logs"

	# WS_TEST_FUNCTIONS=1: with the functions only the tests call
	# (test/test_functions.c), which no package or default build has.
	part "build and install (-Werror, with the test functions)"
	# The tree's own SQL files only: make install adds, it removes nothing,
	# and a script of another build left there (a newer version's) would
	# show in pg_extension_update_paths and be installable.
	rm -f "$("$PGCONFIG" --sharedir)"/extension/wal_stall--*.sql
	if make -C "$work" -s PG_CONFIG="$PGCONFIG" COPT=-Werror WS_TEST_FUNCTIONS=1 >"$logs/build.log" 2>&1 &&
		make -C "$work" -s PG_CONFIG="$PGCONFIG" WS_TEST_FUNCTIONS=1 install >>"$logs/build.log" 2>&1; then
		echo "  built and installed (a step, not a test: only its failure counts)"
	else
		tail -30 "$logs/build.log" | sed 's/^/  /'
		count 0 1
	fi
	chown -R postgres:postgres "$work"

	part "pg_regress"
	limit 900 runuser -u postgres -- make -C "$work" -s PG_CONFIG="$PGCONFIG" installcheck TAP_TESTS= >"$logs/regress.log" 2>&1
	status=$?
	grep -aE '^(ok|not ok|test) |\.\.\. (ok|FAILED)' "$logs/regress.log" | sed 's/^/  /'
	ok=$(grep -acE '(^ok [0-9]+|\.\.\. ok)' "$logs/regress.log")
	notok=$(grep -acE '(^not ok [0-9]+|\.\.\. FAILED)' "$logs/regress.log")
	if [ "$status" -ne 0 ] && [ "$notok" -eq 0 ]; then
		notok=1
		tail -20 "$logs/regress.log"
	fi
	[ -f "$work/regression.diffs" ] && runuser -u postgres -- head -100 "$work/regression.diffs"
	count "$ok" "$notok"

	part "pgTAP"
	limit 900 runuser -u postgres -- env PG_CONFIG="$PGCONFIG" bash "$work/test/pgtap/run.sh" >"$logs/pgtap.log" 2>&1
	status=$?
	grep -aE '^(not ok|ok) |^#|^test/' "$logs/pgtap.log" | grep -avE '^ok ' | sed 's/^/  /' | head -40
	count_tap "$logs/pgtap.log" $status

	if [ -n "${WS_TEST_SERVER_SUITES_ONLY:-}" ]; then
		:	# test/interrupt.sh's run: never the suites that run it
	elif [ "$major" = 15 ]; then
		run_as_root_suites suites_once "$PGCONFIG"
	elif [ -n "${WS_TEST_IN_ROOT:-}" ]; then
		run_as_root_suites suites_in_root "$PGCONFIG"
	fi

	if [ -n "${WS_TEST_SERVER_SUITES_ONLY:-}" ]; then
		:
	elif [ -n "${WS_TEST_IN_ROOT:-}" ]; then
		perl_tap "$work" "$logs" all
	else
		perl_tap "$work" "$logs" beside
		roots_join
		perl_tap "$work" "$logs" alone
	fi

	end_part
	if [ "$v_failed" -eq 0 ]; then
		rm -rf "$work" "$logs"
	elif [ -n "${WS_TEST_IN_ROOT:-}" ]; then
		# the root's /tmp is the run's own, kept until the next run
		# (scripts/pg_root.sh): the path as the machine sees it
		echo "logs kept in ${WS_TEST_ROOT_TMP:-}${work#/tmp} until the next run in this root"
		echo "the suites' output kept in ${WS_TEST_ROOT_TMP:-}${logs#/tmp} until the next run in this root"
	else
		echo "logs kept in $work"
		echo "the suites' output kept in $logs"
	fi
	echo "PostgreSQL $major: $v_passed passed, $v_failed failed"
	summary="$summary$(printf '%-4s %6d passed, %3d failed' "$major" "$v_passed" "$v_failed")"
}

# A copy of the tree for the suites root runs, that no other account can
# change: copied from the tree itself (not from the work tree, which the
# postgres account owns by now), owned by root, writable by no one else,
# readable by all (some suites run the harness as postgres); checked before
# use.  Prints its path.
root_only_copy() {
	local dir
	dir=$(mktemp -d /tmp/wal_stall_root_suites.XXXXXX) || return 1
	scratch "$dir"
	if ! { cp -a "$top/." "$dir/" && rm -rf "$dir/.git" && chown -R root:root "$dir" &&
		chmod -R go-w "$dir" && chmod 755 "$dir"; }; then
		rm -rf "$dir"
		return 1
	fi
	make -C "$dir" -s clean >/dev/null 2>&1 || true
	if ! only_root_can_change "$dir"; then
		rm -rf "$dir"
		return 1
	fi
	echo "$dir"
}

# Whether every file and directory under $1 (itself included) is owned by
# root and writable by neither group nor others, with no symbolic link
# (whose target could be anyone's).  Names the first one that is not.
only_root_can_change() {
	local bad
	bad=$(find "$1" \( -type l -o ! -user root -o -perm /022 \) -print -quit)
	[ -z "$bad" ] && return 0
	echo "  $bad: $(stat -c '%U %A' "$bad"), which root must not run from" >&3
	return 1
}

# Run suites as root: $1, a function called with PG_CONFIG ($2), a copy of
# the tree only root can change and a directory for its logs in it.  Not
# from the work tree of the suites run as postgres, which that account
# owns, and no log in it: root must neither run a file postgres could
# write nor create one by name in a directory postgres can change.  The
# copy is removed if all passed, else kept with the logs.
run_as_root_suites() {
	local suites=$1 PGCONFIG=$2 work failed_before=$v_failed

	part "the suites run as root run from a copy only root can change"
	if ! work=$(root_only_copy); then
		echo "  could not make one: the suites run as root are not run"
		count 0 1
		return
	fi
	mkdir "$work/test-logs"
	"$suites" "$PGCONFIG" "$work" "$work/test-logs"
	if [ "$v_failed" -eq "$failed_before" ]; then
		rm -rf "$work"
	elif [ -n "${WS_TEST_IN_ROOT:-}" ]; then
		echo "logs of the suites run as root kept in ${WS_TEST_ROOT_TMP:-}${work#/tmp}/test-logs until the next run in this root"
	else
		echo "logs of the suites run as root kept in $work/test-logs"
	fi
}

# One of bench/t/'s suites, as root: bench/t/$1.sh with a wall-clock limit
# of $2 seconds, after building the harness it runs; $3 says what it tests.
bench_suite() {
	local name=$1 secs=$2 what=$3 status
	part "bench $what (bench/t/$name.sh, as root)"
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" wal_stall_bench >"$logs/$name.log" 2>&1 &&
		PG_CONFIG=$PGCONFIG limit "$secs" bash "$work/bench/t/$name.sh" >>"$logs/$name.log" 2>&1
	status=$?
	grep -aE '^not ok ' "$logs/$name.log" | sed 's/^/  /'
	count_tap "$logs/$name.log" $status
}

# Suites that do not depend on the server version: run once, on 15.
suites_once() {
	local PGCONFIG=$1 work=$2 logs=$3 status

	part "unit: the collector's cadence and the advice's rules (test/unit)"
	cc -O2 -Wall -Wextra -Werror -o "$work/test/unit/test_cadence" "$work/test/unit/test_cadence.c" -lm &&
		"$work/test/unit/test_cadence" >"$logs/unit.log" 2>&1
	status=$?
	cc -O2 -Wall -Wextra -Werror -o "$work/test/unit/test_advice" "$work/test/unit/test_advice.c" \
		"$work/advice.c" -lm &&
		"$work/test/unit/test_advice" >>"$logs/unit.log" 2>&1
	[ $? -eq 0 ] || status=1
	bash "$work/test/unit/mutate_cadence.sh" "$work/test/unit/mutants" >>"$logs/unit.log" 2>&1 ||
		status=1
	grep -aE '^not ok' "$logs/unit.log" | sed 's/^/  /'
	count_tap "$logs/unit.log" $status

	part "unit: the bench harness (bench/t/unit, its module graph, its golden output)"
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" test_unit >"$logs/bench_unit.log" 2>&1 &&
		"$work/bench/test_unit" >>"$logs/bench_unit.log" 2>&1
	status=$?
	# no cycle between bench's files, docs/harness_internals.md's list of who uses
	# whom true, each header's file names true (bench/module_graph.sh)
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" graph >>"$logs/bench_unit.log" 2>&1 ||
		status=1
	# the output on fixed inputs byte for byte: --judge, --help, refusals
	# (bench/t/golden.sh against bench/t/golden/expected)
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" golden >>"$logs/bench_unit.log" 2>&1 ||
		status=1
	grep -aE '^not ok' "$logs/bench_unit.log" | sed 's/^/  /'
	count_tap "$logs/bench_unit.log" $status

	list_quote_suite "$PGCONFIG" "$work" "$logs"
	bench_suite e2e 1800 "end to end"
	bench_suite cgroup_v2 900 "cgroup v2, a stand-in cgroup root"
	bench_suite hostile 900 "hostile owner, a private /tmp and /dev/shm"
	bench_suite files 900 "files read back"
	bench_suite restore 900 "restores and restarts on Debian clusters"
	bench_suite verdicts 1800 "verdicts end to end"
	bench_suite clog 900 "the CLOG experiment: an aged table, misses by buffer count"
	bench_suite aged 600 "the aged databases on a --pgdata cluster: privileges, xid age, restore.sql"

	part "the version roots trust no other account and outlive a SIGKILL (test/root_trust.sh, as root)"
	limit 300 bash "$work/test/root_trust.sh" >"$logs/root_trust.log" 2>&1
	status=$?
	grep -aE '^not ok |^#   |^Bail out' "$logs/root_trust.log" | sed 's/^/  /'
	count_tap "$logs/root_trust.log" $status

	part "this script, interrupted, ends its suites and leaves nothing (test/interrupt.sh, as root)"
	PG_CONFIG=$PGCONFIG limit 600 bash "$work/test/interrupt.sh" >"$logs/interrupt.log" 2>&1
	status=$?
	grep -aE '^not ok |^#   |^Bail out' "$logs/interrupt.log" | sed 's/^/  /'
	count_tap "$logs/interrupt.log" $status

	part "Prometheus (test/exporter.sh, as root)"
	PG_CONFIG=$PGCONFIG limit 900 bash "$work/test/exporter.sh" >"$logs/exporter.log" 2>&1
	status=$?
	grep -aE '^not ok ' "$logs/exporter.log" | sed 's/^/  /'
	count_tap "$logs/exporter.log" $status

	part "versions agree (test/check_versions.sh, and its --self-test)"
	bash "$work/test/check_versions.sh" "$work/bench/wal_stall_bench" >"$logs/versions.log" 2>&1
	status=$?
	bash "$work/test/check_versions.sh" --self-test >>"$logs/versions.log" 2>&1 || status=1
	grep -aE '^not ok |^#  ' "$logs/versions.log" | sed 's/^/  /'
	count_tap "$logs/versions.log" $status

	part "the extension's messages in PostgreSQL's style (test/message_style.sh, and its --self-test)"
	bash "$work/test/message_style.sh" >"$logs/message_style.log" 2>&1
	status=$?
	bash "$work/test/message_style.sh" --self-test >>"$logs/message_style.log" 2>&1 || status=1
	grep -aE '^not ok |^#   ' "$logs/message_style.log" | sed 's/^/  /'
	count_tap "$logs/message_style.log" $status

	part "the top Makefile's header dependencies are the compiler's (test/header_deps.sh)"
	PG_CONFIG=$PGCONFIG bash "$work/test/header_deps.sh" >"$logs/header_deps.log" 2>&1
	status=$?
	grep -aE '^not ok ' "$logs/header_deps.log" | sed 's/^/  /'
	count_tap "$logs/header_deps.log" $status

	part "the extension builds without the harness; the harness under a plain prefix (test/build_alone.sh)"
	PG_CONFIG=$PGCONFIG limit 600 bash "$work/test/build_alone.sh" >"$logs/build_alone.log" 2>&1
	status=$?
	grep -aE '^not ok ' "$logs/build_alone.log" | sed 's/^/  /'
	count_tap "$logs/build_alone.log" $status

	part "make dist: the PGXN archive builds, installs and passes installcheck (test/dist.sh)"
	WS_DIST_TREE=$top PG_CONFIG=$PGCONFIG limit 600 bash "$work/test/dist.sh" >"$logs/dist.log" 2>&1
	status=$?
	grep -aE '^not ok |^# |^Bail out' "$logs/dist.log" | sed 's/^/  /'
	count_tap "$logs/dist.log" $status

	part "markdown links resolve (scripts/check_links.py)"
	python3 "$work/scripts/check_links.py" >"$logs/links.log" 2>&1
	status=$?
	grep -aE '^not ok |^#   ' "$logs/links.log" | sed 's/^/  /'
	count_tap "$logs/links.log" $status

	part "the docs' package names, presets and run order match the tree (scripts/check_docs.py, and its --self-test)"
	python3 "$work/scripts/check_docs.py" >"$logs/docs.log" 2>&1
	status=$?
	python3 "$work/scripts/check_docs.py" --self-test >>"$logs/docs.log" 2>&1 || status=1
	grep -aE '^not ok |^#   ' "$logs/docs.log" | sed 's/^/  /'
	count_tap "$logs/docs.log" $status

	package_suite "$PGCONFIG" "$work" "$logs"
}

# The suites run as root for each major in its root: the harness's list of
# list-quoted settings against this major's server, and its packages.
suites_in_root() {
	local PGCONFIG=$1 work=$2 logs=$3
	list_quote_suite "$PGCONFIG" "$work" "$logs"
	if [ "$(major_of "$PGCONFIG")" != 18 ]; then
		package_suite "$PGCONFIG" "$work" "$logs"
	else
		# 18's package is built in 19's run, in the same root (build_deb.sh
		# builds every installed major); installing and purging it again
		# would add minutes to the test command
		part "Debian packages: skipped on 18 (built beside 19's in the same root and checked there; installed and tested on 15, 17 and 19)"
	fi
}

# The settings the server quotes as list elements, all in the harness's
# list (bench/t/list_quote.sh), for every major.
list_quote_suite() {
	local PGCONFIG=$1 work=$2 logs=$3 status
	part "list-quoted settings: the server's against the harness's (bench/t/list_quote.sh, as root)"
	make -C "$work/bench" -s PG_CONFIG=$PGCONFIG CFLAGS="-O2 -g -Werror" list_quote_settings >"$logs/list_quote.log" 2>&1 &&
		PG_CONFIG=$PGCONFIG limit 300 bash "$work/bench/t/list_quote.sh" >>"$logs/list_quote.log" 2>&1
	status=$?
	grep -aE '^not ok |^#   |^Bail out' "$logs/list_quote.log" | sed 's/^/  /'
	count_tap "$logs/list_quote.log" $status
}

major_of() { "$1" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'; }

# The Debian packages of this major: on Debian 12 for 15, and inside a root
# of scripts/pg_root.sh for its majors (test_package.sh, as suites_once).
package_suite() {
	local PGCONFIG=$1 work=$2 logs=$3 status

	part "Debian packages: built, installed, used, purged (test/package.sh, as root)"
	PG_CONFIG=$PGCONFIG limit 1200 bash "$work/test/package.sh" >"$logs/package.log" 2>&1
	status=$?
	grep -aE '^not ok |^#   |^Bail out' "$logs/package.log" | sed 's/^/  /'
	count_tap "$logs/package.log" $status
}

# Every suite of major $1 inside its root file system (scripts/pg_root.sh):
# first the root's own test (its mounts and processes undone after a run,
# a failure, SIGINT and SIGTERM), then this script inside it on the root's
# PostgreSQL, whose "PostgreSQL N: N passed, N failed" line is added here.
run_in_root() {
	local ver=$1 log rc got p f
	v_passed=0
	v_failed=0
	log=$(mktemp /tmp/wal_stall_root.XXXXXX)
	scratch "$log"
	part "the root's mounts and processes, undone after every kind of end (test/root_mounts.sh)"
	limit 600 bash "$top/test/root_mounts.sh" "$ver" >"$log" 2>&1
	rc=$?
	grep -aE '^not ok |^#   |^Bail out' "$log" | sed 's/^/  /'
	count_tap "$log" $rc
	end_part
	local mounts_passed=$v_passed mounts_failed=$v_failed

	limit 5400 bash "$top/scripts/pg_root.sh" --run "$ver" "$top" \
		env WS_TEST_IN_ROOT="$ver" WS_TEST_ROOT_TMP="$(dirname "$root_path")/run-${root_path##*/root-}/tmp" \
		PG_CONFIG="/usr/lib/postgresql/$ver/bin/pg_config" \
		bash /wal_stall/scripts/test.sh 2>&1 | tee "$log" | grep -av --line-buffered '^part-time	'
	rc=${PIPESTATUS[0]}
	got=$(grep -aE "^PostgreSQL $ver: [0-9]+ passed, [0-9]+ failed\$" "$log" | tail -1)
	part_times="$part_times$(grep -a '^part-time	' "$log" | cut -f2-)
"
	rm -f "$log"
	if [ -z "$got" ]; then
		echo "  the run in the root ended (status $rc) before its counts"
		count 0 1
	else
		p=$(echo "$got" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
		f=$(echo "$got" | sed -E 's/.* ([0-9]+) failed$/\1/')
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		passed=$((passed + p))
		failed=$((failed + f))
		v_passed=$((mounts_passed + p))
		v_failed=$((mounts_failed + f))
	fi
	echo "PostgreSQL $ver (in its root): $v_passed passed, $v_failed failed"
	summary="$summary$(printf '%-4s %6d passed, %3d failed' "$ver" "$v_passed" "$v_failed")"
}

# A major's line in the summary gets the wall time of its suites.
summary_time() {
	summary="$summary$(printf '  (%d s)' "$1")
"
}

# The roots' suites beside 15's: on the matrix run, one background job
# makes each root of the majors 17, 18 and 19 that is not made yet (mostly
# downloads and dpkg, about 10 minutes for both on a fresh machine) and
# runs that major's suites in it, while the host runs 15's.  The machine's
# two cores are mostly idle in 15's end-to-end suites (runs on a throttled
# disk, servers starting and stopping).  The tests that assert rates,
# periods or shares of time wait for the job (roots_join) and run alone.
# The job's output goes to a file the join prints whole, its counts and
# times to a file of shell assignments it reads.  It runs at nice 10: 15's
# suites are the longer part (1,895 s beside the roots against their 1,162 s,
# the roots already made).
roots_beside() {
	local v
	local majors=""
	for v in $versions; do
		case $v in 17 | 18 | 19) majors="$majors $v" ;; esac
	done
	[ -n "$majors" ] || return 0
	beside_dir=$(mktemp -d /tmp/wal_stall_beside.XXXXXX) || return 0
	scratch "$beside_dir"
	beside_majors=$majors
	echo "=== PostgreSQL$beside_majors: in their roots, beside 15's suites (their output is printed when they end)"
	# a process group of its own (job control on for the "&" alone), which
	# interrupted() ends with all it started
	set -m
	(
		set +m
		exec >"$beside_dir/out" 2>&1 3>&1
		# 15's suites are the longer part: the roots yield the CPU to them
		renice -n 10 -p "$BASHPID" >/dev/null
		passed=0
		failed=0
		summary=""
		part_times=""
		for v in $beside_majors; do
			current_major=$v
			test_in_root "$v"
		done
		end_part
		b_passed=$passed b_failed=$failed b_summary=$summary b_times=$part_times
		declare -p b_passed b_failed b_summary b_times >"$beside_dir/counts"
	) &
	beside_pid=$!
	set +m
	group "-$beside_pid"
}

# Wait for the roots' job, print its output, and add its counts and times.
roots_join() {
	[ -n "${beside_pid:-}" ] || return 0
	local t0=$SECONDS
	end_part
	echo "=== waiting for the roots' suites (PostgreSQL$beside_majors), then their output"
	wait "$beside_pid"
	beside_pid=""
	echo "  (waited $((SECONDS - t0)) s)"
	cat "$beside_dir/out"
	if [ -f "$beside_dir/counts" ]; then
		# shellcheck disable=SC1091
		. "$beside_dir/counts"
		passed=$((passed + b_passed))
		failed=$((failed + b_failed))
		beside_summary=$b_summary
		part_times="$part_times$b_times"
	else
		echo "  the roots' suites ended before their counts"
		passed=$passed
		failed=$((failed + 1))
		beside_summary="$(printf '%-4s the roots'"'"' suites ended before their counts' "${beside_majors# }")
"
	fi
	rm -rf "$beside_dir"
}

# A root made, or a major built, since $1: when that took more than 5 s,
# say so ("$3 in N s") and record it as $2 in where the time went.
made_in() {
	local secs=$(($(date +%s) - $1))
	[ "$secs" -gt 5 ] || return 0
	echo "  ($3 in $secs s)"
	record_time "$secs" "$2"
}

# A major's suites since $1: their time on the terminal and in its line of
# the summary.
suites_took() {
	local secs=$(($(date +%s) - $1))
	echo "  (suites in $secs s)"
	summary_time "$secs"
}

# Major $1 (17, 18 or 19) in its root: the root made or waited for, then
# every suite in it; its line in the summary.
test_in_root() {
	local ver=$1 t0
	echo "=== PostgreSQL $ver: its root file system (scripts/pg_root.sh)"
	t0=$(date +%s)
	if ! root_path=$(bash "$top/scripts/pg_root.sh" "$ver"); then
		echo "=== PostgreSQL $ver: skipped (no root with its Debian packages, see above)"
		summary="$summary$(printf '%-4s skipped: no root with its packages' "$ver")
"
		return
	fi
	made_in "$t0" "its root made (or waited for)" "root made or waited for"
	t0=$(date +%s)
	run_in_root "$ver"
	suites_took "$t0"
}

saved_path=$PATH
beside_pid=""
beside_majors=""
beside_summary=""
case $mode in
	pg_config)
		run_suites "$PG_CONFIG"
		;;
	*)
		case " $versions " in
			*" 15 "*) [ "$mode" = matrix ] && [ -z "${WS_TEST_IN_ROOT:-}" ] && roots_beside ;;
		esac
		for ver in $versions; do
			current_major=$ver
			case $ver in
				17|18|19)
					[ -n "$beside_majors" ] && continue
					test_in_root "$ver"
					continue
					;;
			esac
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
			made_in "$t0" "built from source" "built"
			t0=$(date +%s)
			run_suites "$pgc"
			suites_took "$t0"
		done
		roots_join
		summary="$summary$beside_summary"
		;;
esac
if [ "$mode" = pg_config ]; then
	summary_time "$(($(date +%s) - t_start))"
fi

# Inside a root the caller prints the summary, with this run's counts and
# times in it.
if [ -n "${WS_TEST_IN_ROOT:-}" ]; then
	printf '%s' "$part_times" | sed '/^$/d; s/^/part-time	/'
	[ "$failed" -eq 0 ]
	exit
fi
echo "=== summary ($(($(date +%s) - t_start)) s)"
printf '%s' "$summary"
echo "where the time went (seconds, major, part), slowest first:"
printf '%s' "$part_times" | sed '/^$/d' | sort -t '	' -k1,1nr | head -25 |
	awk -F '\t' '{ printf "  %5d  %-3s %s\n", $1, $2, $3 }'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
