#!/usr/bin/env bash
# A Debian root file system holding PostgreSQL majors from Debian's binary
# packages, for the majors Debian 12 does not ship (scripts/test.sh --pg).
#
#   scripts/pg_root.sh MAJOR                 build or reuse the root; prints its path
#   scripts/pg_root.sh --run MAJOR DIR CMD...
#                                            run CMD as root inside it, the tree
#                                            DIR bind-mounted (read-only) at /wal_stall
#   scripts/pg_root.sh --mounts MAJOR        list what is mounted under the root
#
# 17 comes from trixie (root-trixie); 18 from sid and 19 from experimental
# share one root (root-sid).  Each root is $WS_PG_CACHE/root-SUITE (default
# /var/cache/wal_stall); it is finished when its stamp file exists,
# /var/cache/wal_stall/root-SUITE/.stamp, one line per major it holds:
# "MAJOR VERSION HOW DEBIAN_VERSION" (e.g. "17 17.12 apt 17.12-0+deb13u1"),
# HOW being "apt" (installed with postgresql-common) or "extracted"
# (dpkg-deb -x, when the suite's postgresql-common does not install).  A finished root is reused; one build of a root at a time (flock),
# and one run in a root at a time, since runs share its mount points.
# Each major's pg_config is /usr/lib/postgresql/MAJOR/bin/pg_config inside.
#
# The Debian mirror is the one this machine's own apt sources name for its
# release (WS_DEBIAN_MIRROR overrides).  A run mounts /proc, /dev, /dev/pts
# and a /dev/shm of its own in the root and unmounts them when it ends, also
# on failure, SIGINT and SIGTERM; processes left running in the root are
# ended first.  Needs root.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail

cache=${WS_PG_CACHE:-/var/cache/wal_stall}
me=pg_root.sh

die() { echo "$me: $*" >&2; exit 1; }
log() { echo "$me: $*" >&2; }
usage() { sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# The suite holding major $1, and the extra suite its packages come from.
suite_of() {
	case $1 in
		17) echo trixie ;;
		18|19) echo sid ;;
		*) die "no Debian suite here has PostgreSQL $1 as binary packages (17, 18 and 19 only)" ;;
	esac
}
# The majors a root of suite $1 holds, and where each one's packages come
# from: sid for 18, experimental for 19 (19.0 as soon as it is there).
majors_of() {
	case $1 in
		trixie) echo 17 ;;
		sid) echo 18 19 ;;
	esac
}
release_of() {
	case $1 in
		19) echo experimental ;;
		*) suite_of "$1" ;;
	esac
}

# The Debian archive this machine's apt sources use for its own release:
# a one-line "deb URI SUITE ..." or a deb822 paragraph whose Suites names it.
debian_mirror() {
	local codename uri
	if [ -n "${WS_DEBIAN_MIRROR:-}" ]; then
		echo "$WS_DEBIAN_MIRROR"
		return
	fi
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release: set WS_DEBIAN_MIRROR"
	uri=$(
		{
			[ -f /etc/apt/sources.list ] && cat /etc/apt/sources.list
			for f in /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && cat "$f"; done
		} | awk -v s="$codename" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
				if ($(i + 1) == s) { print $i; exit }
			}'
	)
	if [ -z "$uri" ]; then
		uri=$(
			for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && { cat "$f"; echo; }; done |
				awk -v s="$codename" '
				function flush() {
					if (deb && suite && u != "") { print u; found = 1; exit }
					deb = 0; suite = 0; u = ""
				}
				/^[ \t]*$/ { flush(); next }
				/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				/^URIs:/ { u = $2 }
				/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) suite = 1 }
				END { if (!found) flush() }'
		)
	fi
	[ -n "$uri" ] || die "no Debian mirror for \"$codename\" in /etc/apt/sources.list(.d): set WS_DEBIAN_MIRROR"
	echo "$uri"
}

# --- mounts and processes of one run ---------------------------------------

root=""
mounted=()	# mount points under $root, in the order they were mounted
child=""

# Mount with mount(8)'s arguments $1..., the mount point last; remember it.
# Every mount is private: a bind of /dev would otherwise stay a peer of the
# machine's /dev, and what is mounted or unmounted under it would be there too.
mount_in_root() {
	local target=${!#}
	mount "$@"
	mounted+=("$target")
	mount --make-private "$target"
}

# Processes whose root directory is $root (left by the command or its
# clusters): ended with SIGTERM, then SIGKILL.
end_root_processes() {
	local sig pids p r
	for sig in TERM KILL; do
		pids=""
		for p in /proc/[0-9]*; do
			r=$(readlink "$p/root" 2>/dev/null) || continue
			[ "$r" = "$root" ] && pids="$pids ${p#/proc/}"
		done
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086
		kill -s "$sig" $pids 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			sleep 0.5
			local alive=""
			for p in $pids; do [ -d "/proc/$p" ] && alive="$alive $p"; done
			pids=$alive
			[ -n "$pids" ] || return 0
		done
	done
}

# Undo the run: end the command and what it left, unmount in reverse order.
cleanup_run() {
	local status=$? i
	trap - EXIT INT TERM
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	[ -n "$root" ] && end_root_processes
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2>/dev/null ||
			{ sleep 1; umount "${mounted[i]}"; } ||
			{ log "could not unmount ${mounted[i]}"; status=1; }
	done
	mounted=()
	exit "$status"
}

# /proc, /dev, /dev/pts and a private /dev/shm (PostgreSQL's dynamic shared
# memory) in the root; the trap that undoes them is set before the first.
mount_for_run() {
	trap cleanup_run EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# the root itself first, so that nothing mounted in it propagates out
	mount_in_root --bind "$root" "$root"
	mount_in_root -t proc proc "$root/proc"
	mount_in_root --bind /dev "$root/dev"
	mount_in_root --bind /dev/pts "$root/dev/pts"
	mount_in_root -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
}

# Run $@ in the root (chroot, its own session so one signal reaches all of it).
in_root() {
	setsid chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@" &
	child=$!
	local rc=0
	wait "$child" || rc=$?
	child=""
	return "$rc"
}

# --- building a root ---------------------------------------------------------

# Inside the root: sources for its suite (and experimental for sid), apt
# settings, no service started and no cluster created by the packages.
configure_root() {
	local suite=$1 mirror=$2
	{
		echo "deb $mirror $suite main"
		[ "$suite" = sid ] && echo "deb $mirror experimental main"
		echo "deb-src $mirror $suite main"
		[ "$suite" = sid ] && echo "deb-src $mirror experimental main"
	} >"$root/etc/apt/sources.list"
	# The archive here may be a snapshot whose Release files have expired;
	# their signatures are still checked.
	cat >"$root/etc/apt/apt.conf.d/90wal_stall" <<'EOF'
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
Acquire::Languages "none";
EOF
	printf '#!/bin/sh\n# wal_stall root: packages start no service here\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	mkdir -p "$root/etc/postgresql-common"
	echo "create_main_cluster = false" >"$root/etc/postgresql-common/createcluster.conf"
}

# Install PostgreSQL $1 with apt; failing that, extract its packages.
# Appends "MAJOR VERSION HOW" to $stamp_lines.
install_major() {
	local major=$1 rel log
	rel=$(release_of "$major")
	log="$root/var/log/wal_stall-$major.log"
	log "installing PostgreSQL $major from $rel"
	if in_root apt-get install -y -q -t "$rel" "postgresql-$major" "postgresql-server-dev-$major" \
		"postgresql-client-$major" >"$log" 2>&1; then
		how=apt
	else
		log "PostgreSQL $major does not install with apt from $rel (postgresql-common's dependencies, see $log):"
		grep -E '^(E:| [a-z0-9.+-]+ : Depends)' "$log" | head -5 | sed 's/^/  /' >&2
		extract_major "$major" "$rel"
		how=extracted
	fi
	pgtap_for "$major" "$rel"
	stamp_lines="$stamp_lines$(in_root "/usr/lib/postgresql/$major/bin/pg_config" --version |
		sed -E "s/^PostgreSQL ([^ ]+) \(Debian ([^)]+)\).*/$major \1 $how \2/")
"
}

# dpkg-deb -x the server, client, server-dev and libpq-dev packages of
# major $1 from release $2 into the root, after installing their own library
# dependencies (everything but postgresql-common's packages) with apt.
extract_major() {
	local major=$1 rel=$2 debs deps d
	debs="postgresql-$major postgresql-client-$major postgresql-server-dev-$major libpq-dev"
	rm -rf "$root/var/cache/wal_stall-debs"
	mkdir -p "$root/var/cache/wal_stall-debs"
	# shellcheck disable=SC2086
	in_root sh -c "cd /var/cache/wal_stall-debs && apt-get download -q -t $rel $debs" >/dev/null ||
		die "could not download PostgreSQL $major's packages from $rel"
	deps=$(for d in "$root"/var/cache/wal_stall-debs/*.deb; do dpkg-deb -f "$d" Depends; done |
		tr ',' '\n' | sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/^ +//; s/ +$//' |
		grep -vE '^(postgresql-|libpq-dev$|$)' | sort -u | tr '\n' ' ')
	log "installing their libraries: $deps"
	# shellcheck disable=SC2086
	in_root apt-get install -y -q -t "$rel" $deps >>"$root/var/log/wal_stall-$major.log" 2>&1 ||
		die "the libraries PostgreSQL $major needs do not install from $rel either (see $root/var/log/wal_stall-$major.log): the archive is mid-transition, try again later"
	for d in "$root"/var/cache/wal_stall-debs/*.deb; do
		dpkg-deb -x "$d" "$root"
	done
	rm -rf "$root/var/cache/wal_stall-debs"
	# postgresql-common would have made the postgres account
	in_root sh -c 'id postgres >/dev/null 2>&1 ||
		useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash postgres'
	mkdir -p "$root/var/lib/postgresql" "$root/var/run/postgresql"
	in_root chown postgres:postgres /var/lib/postgresql /var/run/postgresql
}

# pgTAP for major $1: the suite's package if it has one, else built from
# Debian's pgtap source package inside the root.
pgtap_for() {
	local major=$1 rel=$2
	local log=$root/var/log/wal_stall-$major.log
	if in_root apt-cache show "postgresql-$major-pgtap" >/dev/null 2>&1 &&
		in_root apt-get install -y -q -t "$rel" --no-install-recommends "postgresql-$major-pgtap" >>"$log" 2>&1; then
		return 0
	fi
	log "no postgresql-$major-pgtap package installs from $rel: building pgTAP from source"
	in_root sh -ec "
		mkdir -p /usr/src/pgtap && cd /usr/src/pgtap
		# the upstream tarball is enough: the archive here may lack the .dsc
		ls pgtap_*.orig.tar.* >/dev/null 2>&1 || apt-get source -q --download-only pgtap || true
		ls pgtap_*.orig.tar.* >/dev/null 2>&1 || { echo \"no pgtap source tarball in the archive\"; exit 1; }
		rm -rf build-$major && mkdir build-$major
		tar -xf \$(ls pgtap_*.orig.tar.* | sort -V | tail -1) -C build-$major --strip-components=1
		make -s -C build-$major PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config
		make -s -C build-$major PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config install" >>"$log" 2>&1 ||
		die "could not build pgTAP for PostgreSQL $major (see $log)"
}

# The build tools, the Perl test modules and the libraries the bench links
# with (r-mathlib: its t distribution), in every root.  A root made before a
# package was added here gets it at its next use (add_root_tools).
ROOT_TOOLS="make gcc libc6-dev perl libipc-run-perl libtap-parser-sourcehandler-pgtap-perl
procps dpkg-dev r-mathlib"

# The packages of ROOT_TOOLS the root lacks.
root_tools_missing() {
	local p
	for p in $ROOT_TOOLS; do
		chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || printf ' %s' "$p"
	done
}

# Install what root_tools_missing names into a finished root; run in a
# subshell (the mounts it makes are undone when it ends), under the lock.
add_root_tools() {
	local missing log=$root/var/log/wal_stall-tools.log
	missing=$(root_tools_missing)
	[ -n "$missing" ] || return 0
	log "adding to $root:$missing"
	mount_for_run
	# shellcheck disable=SC2086
	in_root apt-get install -y -q $missing >>"$log" 2>&1 ||
		{ in_root apt-get update -q >>"$log" 2>&1 && in_root apt-get install -y -q $missing >>"$log" 2>&1; } ||
		{ grep -E '^E:' "$log" | tail -3 >&2; die "could not add$missing to $root (see $log)"; }
}

build_root() {
	local suite=$1 mirror tmp
	mirror=$(debian_mirror)
	# the host's own package, as every other tool the tests need (setup.sh)
	if ! command -v debootstrap >/dev/null; then
		log "installing debootstrap"
		apt-get install -y -q debootstrap >/dev/null 2>&1 ||
			{ apt-get update -q >/dev/null 2>&1 && apt-get install -y -q debootstrap >/dev/null 2>&1; } ||
			die "debootstrap is not installed and apt-get could not install it"
	fi
	if [ ! -f "$root/.debootstrapped" ]; then
		log "debootstrap --variant=minbase $suite from $mirror into $root"
		rm -rf "$root"
		tmp=$cache/debootstrap-$suite.log
		debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$tmp" 2>&1 ||
			{ tail -5 "$tmp" >&2; die "debootstrap of $suite failed (log: $tmp)"; }
		touch "$root/.debootstrapped"
	fi
	configure_root "$suite" "$mirror"
	mount_for_run
	in_root apt-get update -q >"$root/var/log/wal_stall-apt-update.log" 2>&1 ||
		{ tail -5 "$root/var/log/wal_stall-apt-update.log" >&2; die "apt-get update failed in the $suite root"; }
	log "installing the build tools and the Perl test modules"
	# shellcheck disable=SC2086
	in_root apt-get install -y -q $ROOT_TOOLS >"$root/var/log/wal_stall-tools.log" 2>&1 ||
		{ grep -E '^E:' "$root/var/log/wal_stall-tools.log" >&2; die "the build tools do not install in the $suite root"; }
	stamp_lines=""
	for major in $(majors_of "$suite"); do
		install_major "$major"
	done
	printf '%s' "$stamp_lines" >"$root/.stamp.new"
	mv "$root/.stamp.new" "$root/.stamp"
	log "done: $root holds $(awk '{printf "%s%s (%s)", sep, $2, $3; sep=", "}' "$root/.stamp")"
}

# --- main --------------------------------------------------------------------

[ $# -ge 1 ] || usage
action=build
case $1 in
	--run) action=run; shift; [ $# -ge 3 ] || usage ;;
	--mounts) action=mounts; shift; [ $# -eq 1 ] || usage ;;
	-h|--help) usage ;;
esac
major=$1
shift
case $major in *[!0-9]*|"") die "not a PostgreSQL major version: \"$major\"" ;; esac
suite=$(suite_of "$major")
root=$cache/root-$suite

if [ "$action" = mounts ]; then
	awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, mount, chroot)"

mkdir -p "$cache"
exec 9>"$cache/.root-$suite.lock"
if [ ! -f "$root/.stamp" ]; then
	flock 9
	if [ ! -f "$root/.stamp" ]; then
		(build_root "$suite")
	fi
fi
if [ -n "$(root_tools_missing)" ]; then
	flock 9
	(add_root_tools)
fi
flock -u 9
grep -q "^$major " "$root/.stamp" ||
	die "the $suite root has no PostgreSQL $major (its stamp $root/.stamp: $(tr '\n' ' ' <"$root/.stamp"))"

if [ "$action" = build ]; then
	echo "$root"
	exit 0
fi

# --run MAJOR DIR CMD...: one run in a root at a time.
tree=$(cd "$1" && pwd) || die "no directory \"$1\""
shift
if ! flock -n 9; then
	log "waiting for another run in $root to end"
	flock 9
fi
mount_for_run
mkdir -p "$root/wal_stall"
mount_in_root --bind "$tree" "$root/wal_stall"
mount -o remount,bind,ro "$root/wal_stall"
in_root "$@"
