#!/usr/bin/env bash
# Check that every place naming wal_stall's version agrees: wal_stall.control
# (default_version), its install script (sql/wal_stall.sql, the only one,
# which the Makefile installs as wal_stall--VERSION.sql), the Debian package's version
# (debian/changelog, upstream part), the harness (WSB_VERSION in bench/wsb.h,
# and "wal_stall_bench --version" when a built binary is given), the man
# page's header, CHANGELOG.md's newest release, below its "Unreleased"
# section, and PGXN's META.json (the Meta spec 1.0.0: its version and the
# extension's, the install script it names, its abstract, maintainer and
# license, and the PostgreSQL range, which is the one debian/pgversions and
# compat.h's header name).  Prints TAP lines and "N passed, N failed".
#
#   test/check_versions.sh [PATH/TO/wal_stall_bench]
#   test/check_versions.sh --self-test
#
# --self-test runs the check on copies of those files: unchanged, where it
# must pass, then each changed in turn to disagree, where one of its tests
# must fail.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail

# The files the check reads, copied to a scratch tree.
checked_files="wal_stall.control Makefile debian/changelog debian/control debian/copyright
	debian/pgversions bench/wsb.h bench/wal_stall_bench.1 CHANGELOG.md META.json compat.h"

# self_test: the check passes on an unchanged copy of the files, and every
# disagreement below makes one of its tests fail.  Each case is the file to
# edit and a sed script, applied to a copy of its own.  The cases run three
# at a time: each is a few dozen short processes, whose starts, not the
# cores, take the time on a loaded machine; their lines print in order.
self_test() {
	local n=1 failed=0 file edit i
	scratch=$(mktemp -d /tmp/wal_stall_versions.XXXXXX)
	trap 'rm -rf "$scratch"' EXIT
	copy_checked_files() {	# copy_checked_files DIR
		mkdir -p "$1/test" "$1/debian" "$1/bench" "$1/sql"
		cp "$0" "$1/test/check_versions.sh"
		for f in $checked_files sql/wal_stall.sql; do
			cp "$top/$f" "$1/$f"
		done
	}
	unchanged_case() {	# writes case 1's TAP lines to $scratch/1/result
		copy_checked_files "$scratch/1"
		if bash "$scratch/1/test/check_versions.sh" >"$scratch/1/out" 2>&1; then
			echo "ok 1 - an unchanged copy of the files passes the check"
		else
			echo "not ok 1 - an unchanged copy of the files passes the check"
			grep -E '^not ok|^#   ' "$scratch/1/out" | sed 's/^/#   /'
		fi >"$scratch/1/result"
	}
	edit_case() {	# edit_case N FILE EDIT: writes its TAP line to $scratch/N/result
		local tree=$scratch/$1
		copy_checked_files "$tree"
		sed -i -E "$3" "$tree/$2"
		if cmp -s "$top/$2" "$tree/$2"; then
			echo "not ok $1 - $2: the edit \"$3\" changed nothing"
		elif bash "$tree/test/check_versions.sh" >"$tree/out" 2>&1 ||
			! grep -q '^not ok ' "$tree/out"; then
			echo "not ok $1 - $2, edited with \"$3\", does not fail a test of the check"
		else
			echo "ok $1 - $2, edited with \"$3\", fails the check"
		fi >"$tree/result"
	}
	unchanged_case &
	while IFS='|' read -r file edit; do
		[ -n "$file" ] || continue
		n=$((n + 1))
		[ "$(jobs -pr | wc -l)" -ge 3 ] && wait -n
		edit_case "$n" "$file" "$edit" &
	done <<'CASES'
META.json|s/"version": "([0-9]+)\.([0-9]+)\.0",/"version": "\1.\2.1",/
META.json|0,/"version": "[0-9.]+"/s//"version": "9.9.9"/
META.json|s/"file": "sql\/wal_stall\.sql"/"file": "wal_stall--0.9.sql"/
Makefile|s/^DATA_built = .*/DATA_built = $(EXTENSION)--1.0.sql/
META.json|0,/"abstract": "/s//"abstract": "another /
META.json|s/"maintainer": "[^"]*"/"maintainer": "someone <someone@example.org>"/
META.json|s/"license": "[^"]*"/"license": "mit"/
META.json|s/"PostgreSQL": ">= ([0-9]+)\.0\.0, </"PostgreSQL": ">= 1\1.0.0, </
META.json|s/< ([0-9]+)\.0\.0"/< 1\1.0.0"/
META.json|s/"version": "1\.0\.0",/"version": "2.0.0",/
META.json|s/^\{/[/
debian/pgversions|s/^([0-9]+)\+/1\1+/
compat.h|1,5s/\(([0-9]+)-([0-9]+)\)/(\1-1\2)/
wal_stall.control|s/^default_version = '([0-9]+)\.([0-9]+)'/default_version = '\1.1\2'/
debian/changelog|1s/\(([0-9.]+)-/(\1.1-/
bench/wsb.h|s/^(#define WSB_VERSION[[:space:]]+")/\10./
CHANGELOG.md|s/^## Unreleased/## Not yet/
CASES
	wait
	for i in $(seq 1 "$n"); do
		if [ -s "$scratch/$i/result" ]; then
			cat "$scratch/$i/result"
			grep -q '^not ok ' "$scratch/$i/result" && failed=$((failed + 1))
		else
			echo "not ok $i - case $i of the self-test ended without a result"
			failed=$((failed + 1))
		fi
	done
	echo "$((n - failed)) passed, $failed failed"
	[ "$failed" -eq 0 ]
}

top=$(cd "$(dirname "$0")/.." && pwd)
bench=${1:-}
if [ "$bench" = --self-test ]; then
	self_test
	exit
fi

n=0 failed=0
is() {	# is GOT WANT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $n - $3"
	else
		echo "not ok $n - $3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
		failed=$((failed + 1))
	fi
}

control=$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" "$top/wal_stall.control")
echo "# wal_stall.control default_version: $control"
[ -n "$control" ] || { echo "Bail out! no default_version in wal_stall.control"; exit 1; }

is "$(test -f "$top/sql/wal_stall.sql" && echo yes)" yes "the install script sql/wal_stall.sql exists"
is "$(grep -cxF 'DATA_built = $(EXTENSION)--$(EXTVERSION).sql' "$top/Makefile")" 1 \
	"the Makefile installs sql/wal_stall.sql as wal_stall--VERSION.sql"
is "$(grep -cE "^EXTVERSION = .*default_version.*\\$\\(EXTENSION\\)\\.control" "$top/Makefile")" 1 \
	"the Makefile's VERSION is wal_stall.control's default_version"
deb=$(sed -nE '1s/^wal-stall \(([^)]*)\).*/\1/p' "$top/debian/changelog")
is "${deb%-*}" "$control" "debian/changelog's package version ($deb) is $control-N"
is "$(sed -nE 's/^#define WSB_VERSION[[:space:]]+"([^"]*)".*/\1/p' "$top/bench/wsb.h")" "$control" \
	"bench/wsb.h WSB_VERSION"
is "$(sed -nE 's/^\.TH WAL_STALL_BENCH 1 [^ ]+ "wal_stall ([^"]*)".*/\1/p' "$top/bench/wal_stall_bench.1")" "$control" \
	"the man page's header"
# CHANGELOG.md: "## Unreleased" first, then the newest release.
headings=$(grep -E '^## ' "$top/CHANGELOG.md" | head -2 | tr '\n' '|')
is "$headings" "## Unreleased|## $control|" "CHANGELOG.md: Unreleased, then $control"

# META.json, PGXN's Meta spec 1.0.0, whose versions are three-part SemVer:
# 1.1 is 1.1.0 there.
# META.json is read once, by one python3 (whose start takes most of a
# second on a loaded machine, and the self-test runs this check 18 times):
# the value at each path the tests below ask for, or "(missing)".
meta_paths=("meta-spec version" name abstract version maintainer license provides
	"provides wal_stall version" "provides wal_stall file" "provides wal_stall abstract"
	"prereqs runtime requires PostgreSQL")
declare -A meta_values
while IFS= read -r -d '' path && IFS= read -r -d '' value; do
	meta_values[$path]=$value
done < <(python3 - "$top/META.json" "${meta_paths[@]}" <<'PY'
import json, sys
def value(path):
    try:
        with open(sys.argv[1]) as f:
            node = json.load(f)
    except (OSError, ValueError) as e:
        return "(unreadable: %s)" % e
    for key in path.split(" "):
        if not isinstance(node, dict) or key not in node:
            return "(missing)"
        node = node[key]
    return node if isinstance(node, str) else json.dumps(node)
for path in sys.argv[2:]:
    sys.stdout.write("%s\0%s\0" % (path, value(path)))
PY
)
meta() {	# meta KEY...: the value at that path in META.json, or "(missing)"
	local path="$*"
	if [ -n "${meta_values[$path]+set}" ]; then
		echo "${meta_values[$path]}"
	else
		echo "(not read: python3 failed)"
	fi
}
semver=$control.0
is "$(meta meta-spec version)" 1.0.0 "META.json follows the PGXN Meta spec 1.0.0"
for key in name abstract version maintainer license provides; do
	is "$(meta "$key" | grep -cvx '(missing)')" 1 "META.json has \"$key\""
done
is "$(meta name)" wal_stall "META.json's name"
is "$(meta version)" "$semver" "META.json's version"
is "$(meta provides wal_stall version)" "$semver" "META.json's version of the extension"
is "$(meta provides wal_stall file)" sql/wal_stall.sql "META.json names the install script"
is "$(meta abstract)" "$(sed -nE "s/^comment *= *'([^']*)'.*/\1/p" "$top/wal_stall.control")" \
	"META.json's abstract is wal_stall.control's comment"
is "$(meta provides wal_stall abstract)" "$(meta abstract)" "META.json: the extension's abstract is the distribution's"
is "$(meta maintainer)" "$(sed -nE 's/^Maintainer: *//p' "$top/debian/control")" \
	"META.json's maintainer is debian/control's"
# PGXN spells the license "postgresql", Debian's copyright file "PostgreSQL".
is "$(meta license)" "$(sed -nE '0,/^License: */s/^License: *//p' "$top/debian/copyright" | tr 'A-Z' 'a-z')" \
	"META.json's license is debian/copyright's"
# The PostgreSQL range: from the oldest major debian/pgversions and
# compat.h's header name to the newest one compat.h's header names.
oldest=$(sed -nE 's/^([0-9]+)\+$/\1/p' "$top/debian/pgversions")
range=$(sed -nE '1,5s/.*depends on \(([0-9]+)-([0-9]+)\)\..*/\1 \2/p' "$top/compat.h")
is "${range% *}" "$oldest" "compat.h's header and debian/pgversions ($oldest+) name the same oldest major"
is "$(meta prereqs runtime requires PostgreSQL)" ">= $oldest.0.0, < $((${range#* } + 1)).0.0" \
	"META.json's PostgreSQL range is compat.h's (${range/ /-})"
if [ -n "$bench" ]; then
	is "$("$bench" --version 2>&1)" "wal_stall_bench (wal_stall) $control" "$bench --version"
fi

echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
