#!/usr/bin/env bash
# scripts/test.sh stops at a Ctrl-C or a SIGTERM and leaves nothing behind.
# Its run (pg_regress and pgTAP only: WS_TEST_SERVER_SUITES_ONLY) is started
# in a session of its own, as from a terminal, and once pg_regress's
# temporary server is up the signal goes to its process group, as a
# terminal's Ctrl-C does (SIGINT), or to the script alone (SIGTERM).  Then:
#
#  - the run ends within 60 s, with status 130 (143), saying why;
#  - the temporary server has stopped, and so has a server pg_ctl started
#    (in a session of its own, as a Perl TAP test's) in the run's work
#    tree; no process of the run's session is left (the suite's own process
#    group included, which the terminal's signal does not reach);
#  - the run's scratch directories (/tmp/wal_stall_test.*, wal_stall_logs.*,
#    wal_stall_run.*) are gone, and pgTAP never began.
#
#   PG_CONFIG=... test/interrupt.sh      (as root; TAP output; about a minute)
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
require_root "scripts/test.sh runs as root"

state=$(mktemp -d /tmp/wal_stall_interrupt.XXXXXX) || bail "no scratch directory"
session=""
servers=""
# a run this script could not stop: its whole session, at once; and the
# servers it started, if the run did not stop them
cleanup() {
	local entry pid
	end_session
	for entry in $servers; do
		pid=${entry%%=*}
		# that server still, not a process that took its pid since
		tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "-D ${entry#*=} " &&
			kill -QUIT "$pid"
	done
	rm -rf "$state"
}
trap cleanup EXIT

scratch_dirs() {
	find /tmp -maxdepth 1 \( -name 'wal_stall_test.*' -o -name 'wal_stall_logs.*' \
		-o -name 'wal_stall_run.*' -o -name 'wal_stall_pgtap.*' \) 2>/dev/null | sort
}

# A run that did not end as it should: its whole session killed, so that
# the next case starts alone.
end_session() {
	[ -n "$session" ] && pkill -KILL -s "$session" 2>/dev/null
	session=""
	rm -f "$state/sid"
}

# The processes of session $1 (not the dead ones init has yet to reap).
in_session() {
	ps -e -o sid=,pid=,stat= | awk -v s="$1" '$1 == s && $3 !~ /^Z/ { print $2 }'
}

# Run scripts/test.sh, send signal $1 ("group": to its process group) when
# pg_regress's server is up, and check what is left.
interrupt_at_regress() {
	local sig=$1 to=$2 status=$3 before new work="" pidfile="" server="" rc i left beside
	before=$(scratch_dirs)
	: >"$state/out"
	# job control on for the "&": a job started without it ignores SIGINT
	set -m
	setsid -w bash -c 'echo $$ >"$1"; exec bash "$2"' _ "$state/sid" "$top/scripts/test.sh" \
		>"$state/out" 2>&1 </dev/null &
	local runner=$!
	set +m
	for i in $(seq 1 600); do
		[ -s "$state/sid" ] && session=$(cat "$state/sid")
		new=$(comm -13 <(echo "$before") <(scratch_dirs))
		work=$(echo "$new" | grep '/wal_stall_test\.' | head -1)
		[ -n "$work" ] && pidfile=$(find "$work" -name postmaster.pid 2>/dev/null | head -1)
		[ -n "$pidfile" ] && server=$(head -1 "$pidfile" 2>/dev/null)
		[[ $server =~ ^[0-9]+$ ]] && kill -0 "$server" 2>/dev/null && break
		kill -0 "$runner" 2>/dev/null || break
		sleep 0.5
	done
	if ! [[ $server =~ ^[0-9]+$ ]] || [ -z "$session" ]; then
		ok "$sig: pg_regress's server came up in 300 s" false
		sed 's/^/# /' "$state/out" | tail -20
		end_session
		return
	fi
	# a server as a Perl TAP test starts one: by pg_ctl, in a session of
	# its own, its data directory in the run's work tree
	as_postgres "$PGBIN/initdb" -D "$work/beside" -A trust >/dev/null 2>&1 &&
		as_postgres "$PGBIN/pg_ctl" -D "$work/beside" -w -l "$work/beside/log" \
			-o "-c listen_addresses='' -k $work/beside -p 5433" start >/dev/null 2>&1
	beside=$(head -1 "$work/beside/postmaster.pid" 2>/dev/null)
	servers="$servers ${beside:-0}=$work/beside"
	ok "$sig: a server started by pg_ctl in the run's work tree is up" kill -0 "${beside:-0}"
	if [ "$to" = group ]; then
		kill "-$sig" -- "-$session"
	else
		kill "-$sig" "$session"
	fi
	for i in $(seq 1 120); do
		kill -0 "$runner" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$runner" 2>/dev/null; then
		ok "$sig: the run ended within 60 s" false
		end_session
		return
	fi
	wait "$runner"
	rc=$?
	is "$rc" "$status" "$sig: the run ended within 60 s, with status $status"
	ok "$sig: it says why" grep -q "^=== $sig: ending the suites and removing what this run made" "$state/out"
	ok "$sig: pg_regress's server ($server) has stopped" bash -c "! kill -0 $server 2>/dev/null"
	ok "$sig: the server pg_ctl started (${beside:-none}) has stopped" bash -c "! kill -0 ${beside:-0} 2>/dev/null"
	left=$(in_session "$session" | tr '\n' ' ')
	is "$left" "" "$sig: no process of the run's session is left"
	[ -z "$left" ] || ps -o pid,pgid,sid,stat,etime,cmd -s "$session" | sed 's/^/# /'
	is "$(comm -13 <(echo "$before") <(scratch_dirs) | tr '\n' ' ')" "" \
		"$sig: its scratch directories are gone, and pgTAP's never made"
	ok "$sig: pgTAP never began" bash -c "! grep -q '^== pgTAP' '$state/out'"
	end_session
}

export WS_TEST_SERVER_SUITES_ONLY=1
interrupt_at_regress SIGINT group 130
interrupt_at_regress SIGTERM script 143
tap_summary
tap_plan
