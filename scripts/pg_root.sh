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
# release (WS_DEBIAN_MIRROR overrides).  A run mounts /proc, a /dev of its
# own (a few device nodes, a new /dev/pts instance, a private /dev/shm) and
# an empty /tmp and /var/tmp of its own in the root (in $cache/run-SUITE,
# kept until the next run), and unmounts them when it ends, also on
# failure, SIGINT and SIGTERM; processes left running in the root are ended
# first.  Needs root.
#
# Only root may change anything root runs here: the cache is made 0700 and
# checked before use (owned by root, no symbolic link and no directory
# another account can write on its path); the root's postgres account gets
# the machine's postgres uid and gid (or ids no account of the machine has),
# and what it owns in the root follows.  What a killed run left (mounts under
# the root, processes in it) is undone when the next one starts; the command
# run inside never holds the lock.
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
run_tmp=""
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

# Whether process $1 runs (a zombie, whose parent was a killed run and
# which waits for the machine's init to reap it, does not).
running() {
	[ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# The processes whose root directory is $1 or under it ($1 a plain path,
# check_cache's), in one pass over /proc.
processes_in() {
	find /proc -mindepth 2 -maxdepth 2 -name root -type l \( -lname "$1" -o -lname "$1/*" \) \
		2>/dev/null | cut -d/ -f3 || true
}

# Processes whose root directory is $root or under it (left by the command
# or its clusters, or by a killed run), compared with the resolved path:
# ended with SIGTERM, then SIGKILL.
end_root_processes() {
	local sig pids p real
	real=$(realpath -e "$root" 2>/dev/null) || return 0
	for sig in TERM KILL; do
		pids=$(processes_in "$real")
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086
		kill -s "$sig" $pids 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			sleep 0.5
			local alive=""
			for p in $pids; do running "$p" && alive="$alive $p"; done
			pids=$alive
			[ -n "$pids" ] || return 0
		done
	done
}

# The mount points at $1 or under it, from /proc/self/mounts, the most
# recent first (the order they can be unmounted in).
mounts_under() {
	awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | tac
}

# Unmount everything at $root or under it, as a killed run leaves it (its
# processes ended first); die if something stays.
unmount_all_under_root() {
	local m pass
	[ -n "$(mounts_under "$root")" ] || return 0
	log "unmounting what an earlier run left under $root"
	end_root_processes
	for pass in 1 2 3; do
		for m in $(mounts_under "$root"); do
			umount "$m" 2>/dev/null || true
		done
		[ -n "$(mounts_under "$root")" ] || return 0
		sleep "$pass"
	done
	die "could not unmount what is mounted under $root: $(mounts_under "$root" | tr '\n' ' ')"
}

# Undo the run: end the command (SIGTERM, SIGKILL 10 s later) and what it
# left, unmount in reverse order.  A second signal does not cut it short:
# timeout(1), which runs this script in the test command, passes a SIGTERM
# on to it and to its group, two at once.
cleanup_run() {
	local status=$? i
	trap - EXIT
	trap '' INT TERM
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill -TERM -- "-$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || true
		for _ in $(seq 1 20); do
			kill -0 "$child" 2>/dev/null || break
			sleep 0.5
		done
		kill -KILL -- "-$child" 2>/dev/null || kill -KILL "$child" 2>/dev/null || true
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

# A device node $1 of the machine's /dev in the root's own /dev: made with
# mknod, or where that is not allowed bound from the machine's node.
dev_node() {
	local name=$1 t
	t=$(stat -c '%t %T %a' "/dev/$name") || die "no /dev/$name on this machine"
	# shellcheck disable=SC2086  # three words: major, minor (hex), mode
	set -- $t
	if ! mknod -m "$3" "$root/dev/$name" c "$((16#$1))" "$((16#$2))" 2>/dev/null; then
		: >"$root/dev/$name"
		mount_in_root --bind "/dev/$name" "$root/dev/$name"
	fi
}

# The root's /dev: a tmpfs with the nodes programs expect (not the
# machine's disks, loop devices or consoles), a new /dev/pts instance and a
# private /dev/shm (PostgreSQL's dynamic shared memory).
mount_dev() {
	local n
	mount_in_root -t tmpfs -o mode=755,nosuid,noexec,size=1m dev "$root/dev"
	for n in null zero full random urandom tty; do
		dev_node "$n"
	done
	ln -s /proc/self/fd "$root/dev/fd"
	ln -s /proc/self/fd/0 "$root/dev/stdin"
	ln -s /proc/self/fd/1 "$root/dev/stdout"
	ln -s /proc/self/fd/2 "$root/dev/stderr"
	mkdir "$root/dev/pts" "$root/dev/shm"
	mount_in_root -t devpts -o newinstance,ptmxmode=0666,mode=620,nosuid,noexec devpts "$root/dev/pts"
	ln -s pts/ptmx "$root/dev/ptmx"
	mount_in_root -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
}

# The run's /tmp and /var/tmp: $cache/run-SUITE/tmp and var-tmp, emptied
# and made again (1777) for each run, and kept after it until the next one
# (the logs a failed suite leaves there).  Sets run_tmp.
fresh_run_tmp() {
	run_tmp=$cache/run-$suite
	[ -z "$(mounts_under "$run_tmp")" ] ||
		die "cannot empty $run_tmp: $(mounts_under "$run_tmp" | head -1) is mounted under it"
	rm -rf --one-file-system "$run_tmp"
	mkdir -m 0700 "$run_tmp"
	mkdir -m 1777 "$run_tmp/tmp" "$run_tmp/var-tmp"
	chmod 1777 "$run_tmp/tmp" "$run_tmp/var-tmp"
}

# /proc, the root's /dev and private /tmp and /var/tmp in the root; the trap
# that undoes them is set before the first.
mount_for_run() {
	trap cleanup_run EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# the root itself first, so that nothing mounted in it propagates out
	mount_in_root --bind "$root" "$root"
	mount_in_root -t proc proc "$root/proc"
	mount_dev
	# what is in the root's /tmp and /var/tmp on disk (1777 since
	# debootstrap) stays hidden: a run starts with both empty, on disk as
	# before (a tmpfs would change what fsync and O_DIRECT do in the
	# suites' clusters), in the cache only root can reach
	fresh_run_tmp
	mount_in_root --bind "$run_tmp/tmp" "$root/tmp"
	mkdir -p "$root/var/tmp"
	mount_in_root --bind "$run_tmp/var-tmp" "$root/var/tmp"
}

# Run $@ in the root (chroot, its own session so one signal reaches all of it).
in_root() {
	setsid chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@" 9>&- &
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
		# a killed debootstrap leaves proc, sys or the machine's /dev
		# mounted in it: rm would delete through them
		unmount_all_under_root
		[ -z "$(mounts_under "$root")" ] ||
			die "cannot remove $root: $(mounts_under "$root" | head -1) is mounted under it"
		rm -rf --one-file-system "$root"
		tmp=$cache/debootstrap-$suite.log
		debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$tmp" 2>&1 9>&- ||
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

# --- what root trusts ---------------------------------------------------------

# Check the cache directory before root uses it: an absolute plain path
# with no symbolic link on it, every directory on it owned by root and
# writable by no one else (a world-writable one only with the sticky bit);
# the cache itself is made, or tightened, to 0700.
check_cache() {
	local p c mode parts
	case $cache in
		/*) ;;
		*) die "WS_PG_CACHE must be an absolute path: \"$cache\"" ;;
	esac
	if ! [[ $cache =~ ^[A-Za-z0-9._/+-]+$ ]] || [[ $cache =~ (^|/)\.\.?(/|$) ]]; then
		die "WS_PG_CACHE must be a plain path (letters, digits, ._+-, no . or .. component): \"$cache\""
	fi
	cache=${cache%/}
	IFS=/ read -ra parts <<<"${cache#/}"
	for c in "" "${parts[@]}"; do
		case $c in
			"") p=${p:-/} ;;
			*) p=${p%/}/$c ;;
		esac
		[ -L "$p" ] && die "cache path \"$cache\" has a symbolic link in it: \"$p\""
		if [ ! -e "$p" ]; then
			mkdir -m 0700 "$p" || die "could not create \"$p\""
		fi
		[ -d "$p" ] || die "\"$p\" on the cache path is not a directory"
		[ "$(stat -c %u "$p")" = 0 ] ||
			die "\"$p\" on the cache path is owned by $(stat -c %U "$p"), not root"
		[ "$p" = "$cache" ] && break
		mode=$(stat -c %a "$p")
		if [ $((8#$mode & 8#022)) -ne 0 ] && [ $((8#$mode & 8#1000)) -eq 0 ]; then
			die "\"$p\" on the cache path is writable by other accounts (mode $mode)"
		fi
	done
	chmod 0700 "$cache"
}

# The uid and gid the root's postgres account gets: the machine's postgres
# account's when the root has no other account with either, else the
# highest ids below 1000 that no account or group has on the machine or in
# the root.  Prints "UID GID".
postgres_ids() {
	local uid gid
	uid=$(id -u postgres 2>/dev/null) || uid=""
	gid=$(id -g postgres 2>/dev/null) || gid=""
	if [ -z "$uid" ] || [ -n "$(root_account_with passwd "$uid")" ]; then
		uid=$(free_id passwd)
	fi
	if [ -z "$gid" ] || [ -n "$(root_account_with group "$gid")" ]; then
		gid=$(free_id group)
	fi
	echo "$uid $gid"
}

# The root's accounts ($1 passwd) or groups ($1 group) other than postgres
# that have id $2.
root_account_with() {
	awk -F: -v id="$2" '$3 == id && $1 != "postgres" { print $1 }' "$root/etc/$1"
}

# An id below 1000 that neither the machine ($1 passwd or group, through
# getent) nor the root has.
free_id() {
	local id
	for ((id = 999; id >= 100; id--)); do
		getent "$1" "$id" >/dev/null && continue
		awk -F: -v id="$id" '$3 == id { f = 1 } END { exit !f }' "$root/etc/$1" && continue
		echo "$id"
		return 0
	done
	die "no free id below 1000 for the root's postgres account"
}

# Give the root's postgres account the ids of postgres_ids, and what it owns
# in the root with them; a root made before (its ids chosen inside it) is
# changed in place.
own_postgres_ids() {
	local old_uid old_gid new_uid new_gid ids
	old_uid=$(awk -F: '$1 == "postgres" { print $3 }' "$root/etc/passwd")
	old_gid=$(awk -F: '$1 == "postgres" { print $4 }' "$root/etc/passwd")
	[ -n "$old_uid" ] || return 0
	ids=$(postgres_ids)
	new_uid=${ids% *}
	new_gid=${ids#* }
	[ "$old_uid" = "$new_uid" ] && [ "$old_gid" = "$new_gid" ] && return 0
	log "the root's postgres account: uid $old_uid gid $old_gid becomes uid $new_uid gid $new_gid"
	# the files first: the ids they have now are the old ones
	find "$root" -xdev -uid "$old_uid" -exec chown -h "$new_uid" {} +
	find "$root" -xdev -gid "$old_gid" -exec chgrp -h "$new_gid" {} +
	rewrite_root_file passwd '$1 == "postgres" { $3 = u; $4 = g } { print }' "$new_uid" "$new_gid"
	rewrite_root_file group '$1 == "postgres" { $3 = g } { print }' "$new_uid" "$new_gid"
}

# Rewrite the root's /etc/$1 with awk program $2 (u and g set to $3 and
# $4), keeping its mode, through a new file renamed over it.
rewrite_root_file() {
	local f=$root/etc/$1
	[ -f "$f" ] && [ ! -L "$f" ] || die "$f is not a regular file"
	awk -F: -v OFS=: -v u="$3" -v g="$4" "$2" "$f" >"$f.wal_stall-new"
	chmod --reference="$f" "$f.wal_stall-new"
	mv "$f.wal_stall-new" "$f"
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

check_cache
root=$cache/root-$suite
[ -L "$root" ] && die "\"$root\" is a symbolic link"
exec 9>"$cache/.root-$suite.lock"
# One process at a time prepares or runs in a root: what an earlier run
# left is undone, the root built or completed, its postgres ids set.
if ! flock -n 9; then
	log "waiting for another run in $root to end"
	flock 9
fi
if [ -d "$root" ]; then
	end_root_processes
	unmount_all_under_root
fi
if [ ! -f "$root/.stamp" ]; then
	(build_root "$suite")
fi
if [ -n "$(root_tools_missing)" ]; then
	(add_root_tools)
fi
own_postgres_ids
grep -q "^$major " "$root/.stamp" ||
	die "the $suite root has no PostgreSQL $major (its stamp $root/.stamp: $(tr '\n' ' ' <"$root/.stamp"))"

if [ "$action" = build ]; then
	echo "$root"
	exit 0
fi

# --run MAJOR DIR CMD...: one run in a root at a time (the lock is kept).
tree=$(cd "$1" && pwd) || die "no directory \"$1\""
shift
mount_for_run
mkdir -p "$root/wal_stall"
mount_in_root --bind "$tree" "$root/wal_stall"
mount -o remount,bind,ro "$root/wal_stall"
in_root "$@"
