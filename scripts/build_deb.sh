#!/usr/bin/env bash
# Build wal_stall's Debian packages (debian/): postgresql-NN-wal-stall for
# every PostgreSQL major that debian/pgversions allows and whose
# postgresql-server-dev-NN is installed (on Debian 12: 15; in the roots of
# scripts/pg_root.sh: 17 in trixie's, 18 and 19 in sid's), and
# wal-stall-bench; then run lintian on them.
#
#   scripts/build_deb.sh [--lintian-later] [OUTDIR]
#   scripts/build_deb.sh --lintian-only OUTDIR
#
# --lintian-later leaves lintian out and puts the .changes and .buildinfo
# files beside the .debs in OUTDIR; "--lintian-only OUTDIR" then runs it
# on them, with the same verdict, while the caller does something else
# (test/package.sh runs it beside its install).  OUTDIR must then be
# readable by nobody, whom lintian runs as when root calls.
#
# Installs the build dependencies first (as root; skipped when present),
# builds with "dpkg-buildpackage -us -uc -b" in a scratch copy of the tree
# (the tree itself is left as it is, and may be read-only), copies the .deb
# files and lintian's output (lintian.txt) to OUTDIR (default: a new
# /tmp/wal_stall_deb.XXXXXX) and prints their paths, one per line, the
# directory last.  Exits non-zero if the build fails, lintian reports an
# error, no package of an installed major was built, one lacks the
# documentation (the README, docs/, the Prometheus examples), or a packaged
# library defines a function only the tests call (test/test_functions.c).
#
# The majors: PG_SUPPORTED_VERSIONS (postgresql-common's own setting) as
# given, else "installed", since a suite's list of supported majors need
# not name the one installed from another (19 from experimental in sid).
# debian/control, committed for Debian 12's 15, is regenerated from
# debian/control.in in the scratch copy for them (PG_UPDATECONTROL).
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
lintian_mode=now
case ${1:-} in
	--lintian-later) lintian_mode=later; shift ;;
	--lintian-only) lintian_mode=only; shift ;;
	-*) echo "build_deb.sh: unknown option $1" >&2; exit 2 ;;
esac
out=${1:-}

# run_lintian CHANGES: lintian on a .changes file and the files it lists,
# its output in $out/lintian.txt; fails on an error, or if lintian failed.
# As root, run as nobody: lintian warns when run as root.
run_lintian() {
	local as_user=() lstatus=0
	[ "$(id -u)" -eq 0 ] && as_user=(runuser -u nobody --)
	"${as_user[@]}" lintian --info --display-info --pedantic "$1" >"$out/lintian.txt" 2>&1 || lstatus=$?
	if grep -q '^E: ' "$out/lintian.txt"; then
		grep '^E: ' "$out/lintian.txt" >&2
		echo "build_deb.sh: lintian reports errors (all of its output: $out/lintian.txt)" >&2
		return 1
	elif [ "$lstatus" -ne 0 ]; then
		tail -5 "$out/lintian.txt" >&2
		echo "build_deb.sh: lintian failed (exit $lstatus)" >&2
		return 1
	fi
}

if [ "$lintian_mode" = only ]; then
	[ -n "$out" ] || { echo "build_deb.sh: --lintian-only needs the OUTDIR of a --lintian-later build" >&2; exit 2; }
	changes=$(compgen -G "$out/wal-stall_*.changes" | head -1) || true
	[ -n "$changes" ] || { echo "build_deb.sh: no wal-stall_*.changes in $out (build with --lintian-later)" >&2; exit 1; }
	run_lintian "$changes"
	exit
fi

# The build dependencies of debian/control, by name, and lintian.  The
# postgresql-server-dev-all of the postgresql-common already installed:
# building packages must not upgrade the PostgreSQL tooling under the
# clusters and suites already on this machine.
packages="build-essential debhelper dpkg-dev libpq-dev r-mathlib lintian"
missing=""
for p in $packages postgresql-server-dev-all; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "build_deb.sh: missing build dependencies:$missing (run as root to install them)" >&2
		exit 1
	fi
	pins=""
	for p in $missing; do
		if [ "$p" = postgresql-server-dev-all ] &&
			common=$(dpkg-query -W -f='${Version}' postgresql-common 2>/dev/null) && [ -n "$common" ]; then
			pins="$pins $p=$common"
		else
			pins="$pins $p"
		fi
	done
	echo "build_deb.sh: installing$pins" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y -q --no-install-recommends $pins >/dev/null; then
		apt-get update -q >/dev/null
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends $pins >/dev/null
	fi
fi

export PG_SUPPORTED_VERSIONS=${PG_SUPPORTED_VERSIONS:-installed}
export PG_UPDATECONTROL=yes
majors=$(cd "$top" && pg_buildext supported-versions)
[ -n "$majors" ] || {
	echo "build_deb.sh: no PostgreSQL major both installed (postgresql-server-dev-NN) and allowed by debian/pgversions" >&2
	exit 1
}
echo "build_deb.sh: building for PostgreSQL" $majors >&2

scratch=$(mktemp -d /tmp/wal_stall_debbuild.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if [ -z "$out" ]; then
	out=$(mktemp -d /tmp/wal_stall_deb.XXXXXX)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The source directory is named as Debian names it: source-upstreamversion.
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src="$scratch/wal-stall-${version%-*}"
mkdir "$src"
cp -a "$top/." "$src/"
rm -rf "$src/.git" "$src/tmp_check" "$src/results" "$src/log"
make -C "$src" -s clean >/dev/null 2>&1 || true

(
	cd "$src"
	dpkg-checkbuilddeps
	# debian/control must be what debian/control.in makes of the installed
	# versions (pg_buildext checkcontrol fails the build otherwise).
	dpkg-buildpackage -us -uc -b
) >"$scratch/build.log" 2>&1 || {
	cp "$scratch/build.log" "$out/build.log"
	tail -40 "$scratch/build.log" >&2
	echo "build_deb.sh: dpkg-buildpackage failed (its output: $out/build.log)" >&2
	exit 1
}

changes=$(ls "$scratch"/wal-stall_*.changes)
cp "$scratch"/*.deb "$scratch/build.log" "$out/"
status=0
if [ "$lintian_mode" = later ]; then
	cp "$changes" "$scratch"/wal-stall_*.buildinfo "$out/"
else
	chmod 755 "$scratch"	# for nobody
	run_lintian "$changes" || status=1
fi
# The functions only the tests call (test/test_functions.c, built in only
# by "make WS_TEST_FUNCTIONS=1") must not ship: no packaged library may
# define one.
for deb in "$scratch"/postgresql-*-wal-stall_*.deb; do
	rm -rf "$scratch/contents"
	dpkg-deb -x "$deb" "$scratch/contents"
	# every major's package has the documentation, not only the first one's
	pkg=$(dpkg-deb -f "$deb" Package)
	for doc in README.md.gz docs/reference.md.gz examples/queries.yaml; do
		if [ ! -f "$scratch/contents/usr/share/doc/$pkg/$doc" ]; then
			echo "build_deb.sh: $(basename "$deb") lacks /usr/share/doc/$pkg/$doc" >&2
			status=1
		fi
	done
	for lib in "$scratch"/contents/usr/lib/postgresql/*/lib/wal_stall.so; do
		if nm -D --defined-only "$lib" | grep -E '_for_tests$' >&2; then
			echo "build_deb.sh: $(basename "$deb") ships functions only the tests call" >&2
			status=1
		fi
	done
done
for major in $majors; do
	if ! ls "$out"/postgresql-"$major"-wal-stall_*.deb >/dev/null 2>&1; then
		echo "build_deb.sh: no postgresql-$major-wal-stall package was built" >&2
		status=1
	fi
done
ls "$out"/*.deb
echo "$out"
exit "$status"
