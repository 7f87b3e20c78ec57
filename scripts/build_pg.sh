#!/usr/bin/env bash
# Build one PostgreSQL major version (and pgTAP for it) from Debian's source
# packages into a cache directory, for scripts/test.sh --pg/--matrix.
#
#   scripts/build_pg.sh VERSION        e.g. 13, 17, 18, 19
#
# Installs into $WS_PG_BUILD_CACHE/pg/VERSION (default
# /var/cache/wal_stall-pg) and prints that prefix's pg_config on the last
# line.  A finished build is reused: the prefix holds a .built stamp.  Needs
# root (apt-get).  Not in scripts/pg_root.sh's cache, which is root's alone
# (0700): the suites run this prefix's programs as the postgres user.
#
# Where the sources come from: deb-src lines only, in a file of our own
# (/etc/apt/sources.list.d/wal_stall-src.sources): 13 from bullseye and
# bullseye-security, 17 from trixie, 18 from sid, 19 from experimental.  No
# binary package is installed from those suites; the build tools come from
# the machine's own release, by name.  The upstream tarball is built as it
# is (dpkg-source --skip-patches): Debian's patches move the install paths
# into /usr/lib/postgresql, which a private prefix does not want.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail

ver=${1:?usage: build_pg.sh VERSION}
cache=${WS_PG_BUILD_CACHE:-/var/cache/wal_stall-pg}
prefix=$cache/pg/$ver
src=$cache/pg-src
jobs=${WS_BUILD_JOBS:-$(nproc)}

if [ -f "$prefix/.built" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "build_pg.sh: run as root (apt-get source, build dependencies)" >&2
	exit 1
fi
# One build of a version at a time: a second caller waits, then reuses it.
mkdir -p "$cache"
exec 9>"$cache/.build-$ver.lock"
flock 9
if [ -f "$prefix/.built" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi

log() { echo "build_pg.sh[$ver]: $*" >&2; }

# Build tools from this machine's release, by name.  bison and flex: 17+
# tarballs no longer ship the generated parsers.
tools="bison flex make gcc perl libipc-run-perl zlib1g-dev libssl-dev
pkg-config dpkg-dev"
missing=""
for p in $tools; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null
fi

# deb-src lines, in our own file; the archive keyring signs them.
list=/etc/apt/sources.list.d/wal_stall-src.sources
if [ ! -f "$list" ]; then
	log "adding $list"
	cat >"$list" <<'EOF'
# wal_stall (scripts/build_pg.sh): source packages only, to build other
# PostgreSQL versions into a private prefix.  No binary packages.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bullseye sid trixie experimental
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bullseye-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	apt-get update -q >/dev/null
fi
if ! apt-cache showsrc "postgresql-$ver" 2>/dev/null | grep -q '^Package:'; then
	apt-get update -q >/dev/null
fi

# The server, unless an earlier run got that far.
build=$cache/pg-build/$ver
if [ ! -f "$prefix/.server-built" ]; then
	# Fetch and unpack: the newest version apt knows of (apt-get source picks it).
	mkdir -p "$src"
	cd "$src"
	dir=$(find . -maxdepth 1 -type d -name "postgresql-$ver-*" -printf '%f\n' | sort -V | tail -1)
	if [ -z "$dir" ] || [ ! -f "$dir/configure" ]; then
		log "fetching the postgresql-$ver source package"
		if ! apt-get source -q --download-only --only-source "postgresql-$ver" >"$src/fetch-$ver.log" 2>&1; then
			log "could not fetch postgresql-$ver:"
			grep -E '^(E|W):' "$src/fetch-$ver.log" | head -5 >&2
			exit 2
		fi
		dsc=$(ls -1 postgresql-"$ver"_*.dsc | sort -V | tail -1)
		dir=postgresql-$ver-$(basename "$dsc" .dsc | sed 's/^[^_]*_//')
		rm -rf "$dir"
		dpkg-source -q --skip-patches -x "$dsc" "$dir" >/dev/null
	fi
	log "building $dir into $prefix"

	# Out-of-tree build: the source directory stays pristine for a rebuild.
	rm -rf "$build" "$prefix"
	mkdir -p "$build"
	cd "$build"
	"$src/$dir/configure" --prefix="$prefix" --enable-tap-tests --enable-debug \
		--without-readline --without-icu --with-openssl >configure.log 2>&1 ||
		{ tail -20 configure.log >&2; exit 1; }
	make -s -j"$jobs" >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
	make -s install >>make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
	# contrib: pg_stat_statements and friends for the suites.
	make -s -j"$jobs" -C contrib >>make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
	make -s -C contrib install >>make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
	# PGXS's TAP_TESTS need the perl test modules installed with the server.
	make -s -C src/test/perl install >>make.log 2>&1 || true	"$prefix/bin/pg_config" --version >"$prefix/.server-built"
fi

# pgTAP for this version, from Debian's pgtap source package.
cd "$src"
pgtap=$(find . -maxdepth 1 -type d -name 'pgtap-*' -printf '%f\n' | sort -V | tail -1)
if [ -z "$pgtap" ]; then
	# the newest version whose upstream tarball can be downloaded (here
	# the .dsc and Debian parts of some versions are missing from the mirror;
	# apt checked the tarball against the signed Sources index)
	for v in $(apt-cache showsrc pgtap | sed -n 's/^Version: //p' | sort -rV); do
		log "fetching the pgtap $v source package"
		apt-get source -q --download-only "pgtap=$v" >"$src/fetch-pgtap.log" 2>&1 || true
		ls pgtap_"${v%-*}".orig.tar.* >/dev/null 2>&1 && break
	done
	tarball=$(ls -1 pgtap_*.orig.tar.* 2>/dev/null | sort -V | tail -1 || true)
	[ -n "$tarball" ] || { log "could not fetch pgtap"; exit 2; }
	pgtap=pgtap-$(echo "$tarball" | sed -E 's/^pgtap_(.*)\.orig\.tar\..*/\1/')
	mkdir -p "$pgtap"
	tar -xf "$tarball" -C "$pgtap" --strip-components=1
fi
rm -rf "$cache/pg-build/pgtap-$ver"
mkdir -p "$build"
cp -a "$src/$pgtap" "$cache/pg-build/pgtap-$ver"
make -s -C "$cache/pg-build/pgtap-$ver" PG_CONFIG="$prefix/bin/pg_config" >>"$build/make.log" 2>&1 &&
	make -s -C "$cache/pg-build/pgtap-$ver" PG_CONFIG="$prefix/bin/pg_config" install >>"$build/make.log" 2>&1 ||
	{ tail -30 "$build/make.log" >&2; exit 1; }

"$prefix/bin/pg_config" --version >"$prefix/.built"
log "done: $(cat "$prefix/.built")"
echo "$prefix/bin/pg_config"
