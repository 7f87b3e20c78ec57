#!/usr/bin/env bash
# scripts/pg_root.sh trusts no other account and recovers from a SIGKILL,
# on a stand-in root (a few of the machine's programs and a postgres account
# in a directory made to look like a finished root of PostgreSQL 17), so
# that no test builds a real one:
#
#  - a file an unprivileged account planted in the root's /tmp before a run
#    (/tmp/ws/scripts/demo.sh, where the CLOG sweep's old command copied the
#    tree) is not what the run executes; after the run that account cannot
#    reach the root at all (the cache is 0700);
#  - a cache owned by another account, or reached through a symbolic link,
#    is refused with one message;
#  - the root's /dev is its own (a file made there is not in the machine's
#    /dev, no disk or loop device is in it) and its /tmp and /var/tmp are
#    empty in each run (the cache's run-trixie, 0700);
#  - the root's postgres account, whose uid was another account's of the
#    machine, gets the machine's postgres uid and gid, and its files with it;
#  - the command run inside does not hold the lock;
#  - after a SIGKILL of a run, the next run starts within 60 s and leaves
#    nothing mounted under the root and nothing running in it;
#  - a root whose debootstrap was killed with a directory of the machine
#    bind-mounted in it is rebuilt (a stand-in debootstrap is called) without
#    that directory's file being deleted.
#
#   test/root_trust.sh      (as root; TAP output; a few seconds)
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
require_root "pg_root.sh mounts and chroots"
id nobody >/dev/null 2>&1 || bail "no account nobody to play the unprivileged account"

prefix=/var/tmp/wal_stall_root_trust

# The processes whose root directory is $1 or under it.
processes_in() {
	find /proc -mindepth 2 -maxdepth 2 -name root -type l \( -lname "$1" -o -lname "$1/*" \) \
		2>/dev/null | cut -d/ -f3 || true
}

# Undo what a test directory $1 holds: processes whose root is in it,
# mounts under it (most recent first), then the directory.
undo_dir() {
	local d=$1 p m
	for p in $(processes_in "$d"); do
		kill -KILL "$p" 2>/dev/null
	done
	for _ in 1 2 3; do
		for m in $(awk -v d="$d" 'index($2, d "/") == 1 { print $2 }' /proc/self/mounts | tac); do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		done
	done
	rm -rf --one-file-system "$d"
}

# Whether process $1 runs (a killed one may stay a zombie a while).
running() {
	[ -d "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# What an earlier run of this test left when it was killed: a directory
# whose owner (the pid in it) is gone.  A pg_root.sh it started may still
# be ending: tried again for a few seconds.
for d in "$prefix".*; do
	[ -d "$d" ] && [ ! -L "$d" ] || continue
	p=$(cat "$d/pid" 2>/dev/null)
	[ -n "$p" ] && running "$p" && continue
	for _ in 1 2 3 4 5; do
		undo_dir "$d" 2>/dev/null
		[ -e "$d" ] || break
		sleep 1
	done
	[ -e "$d" ] && bail "could not remove $d, left by a killed run of this test"
done

base=$(mktemp -d "$prefix.XXXXXX") || bail "no test directory"
echo $$ >"$base/pid"
probe=/dev/wal_stall_root_trust.$$
trap 'undo_dir "$base"; rm -f "$probe"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# others may look in (the unprivileged account must get as far as the cache)
chmod 755 "$base"

# The packages pg_root.sh wants in a finished root.
root_tools=$(sed -n '/^ROOT_TOOLS="/,/"$/p' "$top/scripts/pg_root.sh" | tr -d '"' | sed 's/^ROOT_TOOLS=//')

# A stand-in finished root of suite trixie (PostgreSQL 17) at $1: the
# machine's programs and their libraries, a dpkg database naming the
# packages pg_root.sh checks, and a postgres account with uid and gid 1
# (the machine's daemon account, as a uid chosen inside a root can be).
make_root() {
	local r=$1 b lib
	mkdir -p "$r"/usr/{bin,lib,lib64,sbin} "$r"/{etc,proc,dev/pts,dev/shm,root,var/lib/dpkg,var/lib/postgresql}
	ln -s usr/bin "$r/bin"
	ln -s usr/lib "$r/lib"
	ln -s usr/lib64 "$r/lib64"
	ln -s usr/sbin "$r/sbin"
	for b in env sh bash sleep cat id touch mkdir cp ls stat true dpkg-query mktemp; do
		cp -L "$(type -P "$b")" "$r/usr/bin/$b"
		for lib in $(ldd "$(type -P "$b")" | grep -oE '/[^ ]+\.so[^ ]*'); do
			mkdir -p "$r$(dirname "$lib")"
			[ -e "$r$lib" ] || cp -L "$lib" "$r$(dirname "$lib")/"
		done
	done
	mkdir -m 1777 "$r/tmp" "$r/var/tmp"
	chmod 1777 "$r/tmp" "$r/var/tmp"
	printf 'root:x:0:0:root:/root:/bin/bash\npostgres:x:1:1::/var/lib/postgresql:/bin/bash\nnobody:x:65534:65534::/nonexistent:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\npostgres:x:1:\nnogroup:x:65534:\n' >"$r/etc/group"
	for b in $root_tools; do
		printf 'Package: %s\nStatus: install ok installed\nArchitecture: all\nVersion: 1\nMaintainer: none\nDescription: stand-in\n\n' "$b"
	done >"$r/var/lib/dpkg/status"
	chown 1:1 "$r/var/lib/postgresql"
	touch "$r/var/lib/postgresql/owned"
	chown 1:1 "$r/var/lib/postgresql/owned"
	touch "$r/.debootstrapped"
	echo "17 17.0 apt 17.0-1" >"$r/.stamp"
}

# The machine's postgres account must exist: the root's postgres gets its ids.
pg_uid=$(id -u postgres) || bail "no postgres account on this machine"
pg_gid=$(id -g postgres)

# A stand-in debootstrap: records that it was called, and fails (no test
# builds a real root).
mkdir "$base/bin"
printf '#!/bin/sh\necho "$@" >>%s/debootstrap.called\nexit 1\n' "$base" >"$base/bin/debootstrap"
chmod 755 "$base/bin/debootstrap"

# pg_root.sh with cache $1, the stand-in debootstrap first on the PATH
pg_root() {
	local c=$1
	shift
	WS_PG_CACHE=$c WS_DEBIAN_MIRROR=http://deb.invalid/debian PATH="$base/bin:$PATH" \
		bash "$top/scripts/pg_root.sh" "$@"
}

# A stand-in tree, bind-mounted at /wal_stall in the runs.
mkdir -p "$base/tree/scripts"
printf '#!/bin/sh\necho GENUINE\n' >"$base/tree/scripts/demo.sh"
chmod 755 "$base/tree/scripts/demo.sh"

# The cache as pg_root.sh made it before (mkdir -p: 0755), the root in it.
cache=$base/cache
mkdir -m 755 "$cache"
root=$cache/root-trixie
make_root "$root"

mounts_in() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts; }

# --- an unprivileged account plants a file before a run -----------------------

runuser -u nobody -- sh -c "mkdir -p $root/tmp/ws/scripts &&
	printf '#!/bin/sh\nid -u >/planted_ran 2>/dev/null; echo PLANTED\n' >$root/tmp/ws/scripts/demo.sh &&
	chmod 755 $root/tmp/ws/scripts/demo.sh"
ok "nobody could plant /tmp/ws/scripts/demo.sh in the root as the old cache was" \
	[ -x "$root/tmp/ws/scripts/demo.sh" ]
out=$(pg_root "$cache" --run 17 "$base/tree" sh -c 'cp -a /wal_stall /tmp/ws && /tmp/ws/scripts/demo.sh' 2>/dev/null)
is "$out" GENUINE "the old documented command runs the tree's demo.sh, not the planted one"
ok "nothing planted ran as root (no /planted_ran in the root)" [ ! -e "$root/planted_ran" ]
is "$(stat -c %a "$cache")" 700 "the cache is tightened to 0700"
runuser -u nobody -- sh -c "mkdir -p $root/tmp/ws2" 2>/dev/null
ok "nobody cannot reach the root's /tmp any more" [ ! -e "$root/tmp/ws2" ]
out=$(pg_root "$cache" --run 17 "$base/tree" sh -c 'ls -A /tmp /var/tmp' 2>&1)
is "$out" "$(printf '/tmp:\n\n/var/tmp:')" "the root's /tmp and /var/tmp are empty in the next run"
is "$(stat -c '%a %U' "$cache/run-trixie" "$cache/run-trixie/tmp" | tr '\n' ' ')" "700 root 1777 root " \
	"  they are the cache's run-trixie/tmp and var-tmp, in a directory root's alone"

# --- the cache is checked ------------------------------------------------------

mkdir -m 700 "$base/nobodys"
chown nobody "$base/nobodys"
out=$(pg_root "$base/nobodys" 17 2>&1)
status=$?
ok "a cache owned by another account is refused (status $status)" [ "$status" -ne 0 ]
is "$out" "pg_root.sh: \"$base/nobodys\" on the cache path is owned by nobody, not root" \
	"  with one message naming the owner"
ok "  and nothing is made in it" [ -z "$(ls -A "$base/nobodys")" ]

ln -s cache "$base/link"
out=$(pg_root "$base/link" 17 2>&1)
status=$?
ok "a cache reached through a symbolic link is refused (status $status)" [ "$status" -ne 0 ]
is "$out" "pg_root.sh: cache path \"$base/link\" has a symbolic link in it: \"$base/link\"" \
	"  with one message naming the link"

# --- the root's /dev, its postgres account, the lock --------------------------

out=$(pg_root "$cache" --run 17 "$base/tree" sh -c "touch $probe; echo x >/dev/null && ls /dev" 2>&1)
ok "a file made in the root's /dev is not in the machine's /dev" [ ! -e "$probe" ]
is "$(echo "$out" | grep -vxE 'fd|full|null|ptmx|pts|random|shm|stderr|stdin|stdout|tty|urandom|zero|wal_stall_root_trust\.[0-9]+')" "" \
	"the root's /dev holds only the usual nodes (no disk, loop device or console)"

is "$(awk -F: '$1 == "postgres" { print $3 ":" $4 }' "$root/etc/passwd")" "$pg_uid:$pg_gid" \
	"the root's postgres account has the machine's postgres uid and gid"
is "$(awk -F: '$1 == "postgres" { print $3 }' "$root/etc/group")" "$pg_gid" "  and its group the gid"
is "$(stat -c %u:%g "$root/var/lib/postgresql" "$root/var/lib/postgresql/owned" | sort -u)" "$pg_uid:$pg_gid" \
	"  and what it owned in the root is owned by them"
is "$(find "$root" -xdev \( -uid 1 -o -gid 1 \) | head -3)" "" "  and nothing in the root is left to uid or gid 1"

pg_root "$cache" --run 17 "$base/tree" sh -c '[ ! -e /proc/self/fd/9 ]' 2>/dev/null
is "$?" 0 "the command run in the root does not hold the lock's descriptor"

# --- a run killed with SIGKILL ---------------------------------------------------

bash -c 'exec env WS_PG_CACHE="$1" WS_DEBIAN_MIRROR=http://deb.invalid/debian bash "$2" --run 17 "$3" sleep 1017' \
	_ "$cache" "$top/scripts/pg_root.sh" "$base/tree" 2>/dev/null &
run=$!
started=false
for _ in $(seq 1 200); do
	[ -n "$(processes_in "$root")" ] && [ "$(mounts_in "$root" | wc -l)" -ge 8 ] && { started=true; break; }
	sleep 0.1
done
ok "a run started (its command in the root, its mounts there)" $started
kill -KILL "$run"
wait "$run" 2>/dev/null
ok "  and its process is killed with SIGKILL, leaving its mounts" [ -n "$(mounts_in "$root")" ]
t0=$SECONDS
timeout -k 5 60 bash -c 'exec env WS_PG_CACHE="$1" WS_DEBIAN_MIRROR=http://deb.invalid/debian bash "$2" --run 17 "$3" true' \
	_ "$cache" "$top/scripts/pg_root.sh" "$base/tree" 2>/dev/null
status=$?
is "$status" 0 "the next run starts and ends within 60 s ($((SECONDS - t0)) s)"
is "$(mounts_in "$root")" "" "  after it nothing is mounted under the root"
is "$(processes_in "$root")" "" "  and nothing the killed run left runs in it"

# --- a root whose debootstrap was killed with a bind mount in it ------------

cache2=$base/cache2
mkdir -m 700 "$cache2"
root2=$cache2/root-trixie
mkdir -p "$root2"/{proc,dev,etc} "$base/outside"
echo "a file of the machine" >"$base/outside/keep"
# as a killed debootstrap leaves it: proc and the machine's /dev mounted
mount --bind "$base/outside" "$root2/dev"
mount --make-private "$root2/dev"
mount -t proc proc "$root2/proc"
out=$(pg_root "$cache2" 17 2>&1)
status=$?
ok "the rebuild goes as far as debootstrap (the stand-in's failure ends it, status $status)" \
	grep -q "trixie $root2 " "$base/debootstrap.called"
is "$(cat "$base/outside/keep" 2>/dev/null)" "a file of the machine" "the file bind-mounted into the killed root is not deleted"
is "$(mounts_in "$root2")" "" "nothing is mounted under that root any more"

tap_plan
tap_summary
[ "$failed" -eq 0 ]
