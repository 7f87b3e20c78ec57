#!/usr/bin/env bash
# wal_stall_bench's output on fixed inputs, byte for byte: what it prints
# and writes on the paths that need no server (--judge on a CSV and on a
# results directory, --help, refused flags and presets), compared with the
# files in bench/t/golden/expected/.  A change that moves code and means
# to change nothing shows here as no change at all; one that means to
# change the output regenerates the expected files and shows the change in
# its diff:
#
#   bench/t/golden.sh            compare (TAP lines, "N passed, N failed")
#   bench/t/golden.sh --update   write bench/t/golden/expected/ anew
#
# And the full report the unit tests write from crafted runs (test_unit.c's
# test_report, kept with WSB_TEST_KEEP_REPORT): report.html, advice.csv,
# the charts' data and gnuplot scripts.
#
# BENCH and TEST_UNIT override the binaries (default bench/wal_stall_bench,
# bench/test_unit).  Needs gnuplot (the charts), base64 and perl.
#
# What is masked, and why:
# - report.html's forest plots are SVGs from gnuplot, whose bytes follow
#   gnuplot's version: each data: URI is checked to decode to the SVG in
#   plots/ it names, then its payload is replaced by the file's name.  The
#   SVGs themselves are not compared; forest.dat and the gnuplot scripts,
#   which the harness writes, are.
# - --help names the presets directory fixed at build time (the prefix):
#   it reads PRESETS_DIR_DEFAULT here.
# - the full report's two charts are pasted inline as SVG, gnuplot's bytes
#   too: each <svg>...</svg> is replaced by a note; the .dat and .gp files
#   beside them are compared.
# The expected report.html files are kept as NAME.report.html.txt: data to
# compare, not source.
# Every case runs in a copy of bench/t/golden/ with relative paths, so no
# temporary directory's name reaches the output, and with WSB_PRESETS_DIR
# pointing at its presets/ (one preset, so the list of presets is fixed).
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-$here/../wal_stall_bench}
test_unit=${TEST_UNIT:-$here/../test_unit}
inputs=$here/golden
expected=$inputs/expected
update=false
[ "${1:-}" = --update ] && update=true

passed=0 failed=0
ok() {
	local what=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
		echo "ok $((passed + failed)) - golden: $what"
	else
		failed=$((failed + 1))
		echo "not ok $((passed + failed)) - golden: $what"
	fi
}

for need in gnuplot base64 perl; do
	if ! command -v "$need" >/dev/null; then
		echo "not ok 1 - golden: $need is not installed"
		exit 1
	fi
done
for b in "$bench" "$test_unit"; do
	[ -x "$b" ] || { echo "not ok 1 - golden: $b is not built"; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/wsb_golden.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
got=$work/got
mkdir "$got"
cp -r "$inputs"/*.csv "$inputs"/runs "$inputs"/sweep "$inputs"/sweep_bad "$inputs"/clog "$inputs"/clog_bad "$inputs"/presets "$work"/

# report.html with each forest plot's payload replaced by the name of the
# SVG it decodes to; a payload that decodes to anything else stays
mask_report() {
	local html=$1 plots=$2 out=$3 alt file sed_args=()

	for alt in 'tps ratios:forest_tps.svg' 'stall share ratios:forest_stall.svg'; do
		file=${alt#*:}
		alt="forest plot of the ${alt%%:*}"
		if grep -o "alt=\"$alt\" src=\"data:image/svg+xml;base64,[^\"]*" "$html" |
			sed 's/.*base64,//' | base64 -d 2>/dev/null | cmp -s - "$plots/$file"; then
			sed_args+=(-e "s#(alt=\"$alt\" src=\"data:image/svg\\+xml;base64,)[^\"]*#\\1(plots/$file)#")
		fi
	done
	if [ ${#sed_args[@]} -gt 0 ]; then
		sed -E "${sed_args[@]}" "$html" >"$out"
	else
		cp "$html" "$out"
	fi
	# a sweep's chart pasted whole, from "<svg" on: the name of its file
	for file in ring.svg clog.svg; do
		[ -f "$plots/$file" ] || continue
		perl -0777 -e 'my ($svg, $name) = @ARGV[0, 1]; @ARGV = ($ARGV[2]);
			open(my $s, "<", $svg) or die; local $/; my $t = <$s>; $t =~ s/^.*?(?=<svg)//s;
			$_ = <>; my $i = index($_, $t); substr($_, $i, length($t)) = "(plots/$name pasted)\n" if $i >= 0;
			print' "$plots/$file" "$file" "$out" >"$out.tmp" && mv "$out.tmp" "$out"
	done
}

# one case: the binary's stdout, stderr and exit status as got/NAME.*; with
# an OUT directory (the case's name) also what it wrote there
run_case() {
	local name=$1 outdir=$2
	shift 2
	(cd "$work" && WSB_PRESETS_DIR=presets "$bench" "$@" >"$got/$name.stdout" 2>"$got/$name.stderr"
		echo "exit status $?" >"$got/$name.status")
	[ "$outdir" = yes ] || return 0
	cp "$work/$name/verdicts.csv" "$got/$name.verdicts.csv" 2>/dev/null
	for f in forest.dat forest_tps.gp forest_stall.gp ring.dat ring.gp clog.dat clog.gp; do
		cp "$work/$name/plots/$f" "$got/$name.$f" 2>/dev/null
	done
	mask_report "$work/$name/report.html" "$work/$name/plots" "$got/$name.report.html.txt"
}

run_case help no --help
sed -i 's#else [^ ]*presets);#else PRESETS_DIR_DEFAULT);#' "$got/help.stdout"
run_case tps yes --judge tps.csv --out tps
run_case tps_baseline no --judge tps.csv --baseline wal_buffers=32MB
# a baseline the file does not have: refused, naming the ones it has
run_case tps_baseline_bad no --judge tps.csv --baseline wal_buffers=64MB
run_case limit yes --judge limit.csv --out limit
# limit.csv with no wal_flush time: wal_buffer_full holds all the stall time
run_case one_class no --judge one_class.csv
run_case budget yes --judge budget.csv --out budget
# measured here (--set synchronous_commit=on,off --slow-wal 100 --runs 6
# --duration 10 --clients 4 --scale 1): set it off, its risk named, p99 fell
run_case synchronous_commit no --judge synchronous_commit.csv
run_case results_dir yes --judge runs --out results_dir
run_case sweep_dir no --judge sweep
run_case sweep_bad_ring no --judge sweep_bad
# a CLOG sweep's section again from its clog.csv; a bad cell costs the section only
run_case clog_dir no --judge clog
run_case clog_bad no --judge clog_bad
# with --out, report.html has the section too, its chart drawn
run_case sweep_out yes --judge sweep --out sweep_out
run_case clog_out yes --judge clog --out clog_out
# a bad clog.csv costs the report its section only
run_case clog_bad_out yes --judge clog_bad --out clog_bad_out
# a link at clog.csv's name is not followed: no section, a note
mkdir "$work/clog_link"
cp "$work/clog/results.csv" "$work/clog_link/"
ln -s ../clog/clog.csv "$work/clog_link/clog.csv"
run_case clog_link no --judge clog_link
run_case judge_resume no --judge tps.csv --resume runs
run_case runs_abc no --runs abc
run_case set_name no --set 'bad name=1'
run_case preset_unknown no --preset no-such-preset
run_case preset_broken no --preset broken
run_case judge_missing no --judge no-such.csv

# the full report of the unit tests' crafted runs
kept=$(cd "$work" && WSB_TEST_KEEP_REPORT=1 "$test_unit" 2>&1 >/dev/null | sed -n 's/^report kept in //p')
if [ -n "$kept" ] && [ -d "$kept" ]; then
	perl -0pe 's#<svg.*?</svg>#<svg>(drawn by gnuplot: masked)</svg>#gs' "$kept/report.html" >"$got/unit_report.report.html.txt"
	cp "$kept/advice.csv" "$got/unit_report.advice.csv"
	for f in "$kept"/plots/*.dat "$kept"/plots/*.gp; do
		cp "$f" "$got/unit_report.${f##*/}"
	done
	rm -rf "$kept"
fi

if $update; then
	rm -rf "$expected"
	cp -r "$got" "$expected"
	echo "wrote $(ls "$expected" | wc -l) files in $expected"
	exit 0
fi

for f in "$expected"/*; do
	name=${f##*/}
	ok "$name as expected" diff -u "$f" "$got/$name"
done
# a file the harness writes now and expected/ lacks is a change too
for f in "$got"/*; do
	name=${f##*/}
	[ -e "$expected/$name" ] || ok "$name is in expected/ (bench/t/golden.sh --update)" false
done

# The tps forest plots as gnuplot drew them: each configuration in its
# colour of every other chart (the first after the baseline red, as in the
# timeline and the strip chart, wsb_config_colour), and axis labels at or
# beyond both edges of the +-margin band, whatever the intervals span.
forest_drawn() {
	python3 - "$1" "$2" <<'PY'
import re, sys
svg, margin = open(sys.argv[1]).read(), float(sys.argv[2])
strokes = {re.sub(r"\s", "", c) for c in re.findall(r"stroke='(rgb\([^)]*\))'", svg)}
assert "rgb(214,39,40)" in strokes and "rgb(31,119,180)" not in strokes, strokes
ticks = [float(t) for t in re.findall(r"<tspan[^>]*>\s*(-?[0-9.]+)</tspan>", svg)]
assert ticks and min(ticks) <= -margin and max(ticks) >= margin, ticks
PY
}
ok "the tps forest plot of 3 rounds: configuration 1 in red, the axis past both edges of +-5%" \
	forest_drawn "$work/tps/plots/forest_tps.svg" 5
ok "the tps forest plot of a +30% change: configuration 1 in red, the axis past both edges of +-5%" \
	forest_drawn "$work/limit/plots/forest_tps.svg" 5
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
