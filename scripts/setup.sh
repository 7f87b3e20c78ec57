#!/usr/bin/env bash
# Install what wal_stall needs on Debian 12 (as root), then build and install
# the extension.  Safe to run again: packages already there are skipped.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail

# Debian 12's PostgreSQL, on purpose: the one its archive has.  Other versions
# come from scripts/build_pg.sh and are named by PG_CONFIG where they are used.
PG_MAJOR=15
pgbin=/usr/lib/postgresql/$PG_MAJOR/bin
PACKAGES="postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libpq-dev postgresql-$PG_MAJOR-pgtap
libtap-parser-sourcehandler-pgtap-perl libipc-run-perl make gcc gnuplot-nox
e2fsprogs util-linux prometheus-postgres-exporter prometheus bpftrace python3"
# Without what their packages recommend: R's standalone math library (the
# bench's t distribution) without the R system, and Chromium (the tests open
# the harness's report.html in it, headless) without the desktop packages
# its libraries recommend
PACKAGES_NO_RECOMMENDS="r-mathlib chromium"

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: run as root (it installs packages with apt-get)" >&2
	exit 1
fi

# the packages of $@ that are not installed
missing_of() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || printf ' %s' "$p"
	done
}
# shellcheck disable=SC2086
missing=$(missing_of $PACKAGES)
# shellcheck disable=SC2086
missing_lean=$(missing_of $PACKAGES_NO_RECOMMENDS)
# apt's and debconf's own lines go to a log, printed only when apt fails
apt_quietly() {
	local log rc=0
	log=$(mktemp /tmp/wal_stall_setup.XXXXXX)
	apt-get "$@" >"$log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { echo "setup.sh: apt-get $* failed:" >&2; tail -20 "$log" >&2; }
	rm -f "$log"
	return "$rc"
}
if [ -n "$missing$missing_lean" ]; then
	echo "setup.sh: installing$missing$missing_lean"
	export DEBIAN_FRONTEND=noninteractive
	apt_quietly update -q
	# shellcheck disable=SC2086
	[ -z "$missing" ] || apt_quietly install -y -q $missing
	# shellcheck disable=SC2086
	[ -z "$missing_lean" ] || apt_quietly install -y -q --no-install-recommends $missing_lean
fi

# Debian's default cluster (15/main) is left as it is, running or not:
# wal_stall's scripts start temporary clusters of their own.
top=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$pgbin:$PATH
# COPT=-Werror: the project's own builds fail on any warning; a user's need not.
make -C "$top" -s PG_CONFIG="$pgbin/pg_config" COPT=-Werror >/dev/null
make -C "$top" -s PG_CONFIG="$pgbin/pg_config" install >/dev/null
make -C "$top/bench" -s PG_CONFIG="$pgbin/pg_config" CFLAGS="-O2 -g -Werror" >/dev/null
echo "setup.sh: wal_stall and bench/wal_stall_bench built, wal_stall installed for PostgreSQL $PG_MAJOR"
