#!/usr/bin/env bash
# End-to-end test of --aged-pages, the CLOG experiment, on temporary
# clusters: a small aged table (xmins over 20 CLOG pages, never read) is
# built once and copied fresh for every run; a short run at 16 CLOG
# buffers misses (pages read again after they were evicted) and one at 64,
# above the span, reads each page at most once; wal_stall_clog's misses are
# pg_stat_slru's in every run; the report has the CLOG table, the chart and
# the tipping-point sentence.  On 13-16 the CLOG's size follows
# shared_buffers (64MB: 16 buffers, 256MB: 64), from 17 transaction_buffers
# sets it; --judge of the run's directory prints the same section again,
# and with --out writes it in its report.
# Then Ctrl-C during the build leaves nothing behind, and a flag
# without its partner is refused.  Run as root, after building
# bench/wal_stall_bench.  Prints TAP lines and "N passed, N failed".
#
#   bench/t/clog.sh       PG_CONFIG=/path/to/pg_config bench/t/clog.sh
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG; BENCH; ok, bail
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../test/lib.sh"

require_root
require_bench

work_dir wsb_clog
pages=20

if [ "$PG_MAJOR" -ge 17 ]; then
	sweep=transaction_buffers=16,64
else
	sweep=shared_buffers=64MB,256MB
fi

# ---------- 1. a miss at 16 buffers, none at 64 ----------
out=$work/sweep
"$BENCH" --pg-config "$PG_CONFIG" --aged-pages $pages --aged-rows-per-page 128 \
	--set "$sweep" --set synchronous_commit=off --runs 1 --duration 5 --clients 2 --scale 1 \
	--out "$out" >"$work/sweep.out" 2>"$work/sweep.err"
rc=$?
ok "sweep: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/sweep.err"
line=$(grep -E '^aged table: ' "$work/sweep.out")
echo "# $line"
# "aged table: 2560 rows, xmin A to B: P CLOG pages (20 asked for), built in S s"
span=$(sed -nE 's/^aged table: ([0-9]+) rows, xmin ([0-9]+) to ([0-9]+): ([0-9]+) CLOG pages .*/\1 \2 \3 \4/p' \
	"$work/sweep.out")
read -r rows first last covered <<<"${span:-0 0 0 0}"
ok "the aged table has $pages x 128 rows (got $rows)" [ "$rows" = $((pages * 128)) ]
ok "its xmins cover at least $pages CLOG pages of 32,768 xids (got $covered)" \
	[ "$covered" -ge $pages ]
ok "its xmin range spans those pages ($first to $last)" \
	[ $((last / 32768 - first / 32768 + 1)) -ge "$covered" ]
ok "clog.csv: two runs, 16 and 64 CLOG buffers; the 16-buffer run read pages it had evicted, the 64-buffer run each page at most once; wal_stall's reads are pg_stat_slru's" \
	python3 - "$out/clog.csv" "$covered" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
covered = int(sys.argv[2])
assert len(rows) == 2, rows
by = {int(r["clog_buffers"]): r for r in rows}
assert sorted(by) == [16, 64], sorted(by)
for r in rows:
    assert r["ok"] == "true", r
    assert r["slru_reads"] == r["wal_stall_reads"], r
    assert r["slru_hits"] == r["wal_stall_hits"], r
small, large = int(by[16]["slru_reads"]), int(by[64]["slru_reads"])
print("# reads at 16 buffers: %d, at 64: %d, over %d pages" % (small, large, covered))
# 16 buffers cannot hold the span: more reads than pages means re-reads
assert small > covered + 2, (small, covered)
# 64 buffers hold it and the run's own pages: each read once at most
assert large <= covered + 2, (large, covered)
PY
ok "the terminal has the CLOG table and a tipping-point sentence" \
	eval "grep -q '^CLOG by buffer count' '$work/sweep.out' && grep -qE '^(The tipping point|No count in the sweep|No tipping point)' '$work/sweep.out'"
# the section --judge prints again from clog.csv: the one the run printed
section() { sed -n '/^CLOG by buffer count/,/^\(The tipping point\|No count in the sweep\|No tipping point\)/p' "$1"; }
"$BENCH" --judge "$out" >"$work/judge.out" 2>"$work/judge.err"
ok "--judge of the run's directory prints the CLOG section the run printed, from clog.csv" \
	eval "[ -n \"\$(section '$work/sweep.out')\" ] && diff <(section '$work/sweep.out') <(section '$work/judge.out') >&2"
ok "report.html has the CLOG section, the aged table's span and the chart" \
	eval "grep -q 'The CLOG by buffer count' '$out/report.html' && grep -q 'The aged table: ' '$out/report.html' && [ -s '$out/plots/clog.svg' ]"
# and --judge --out's report the run's table and sentence, from clog.csv
table() { sed -n '/^<h2>The CLOG by buffer count/,/^<p><strong>/p' "$1" | grep -v '^<p>The aged table: '; }
"$BENCH" --judge "$out" --out "$work/judged" >"$work/judged.out" 2>"$work/judged.err"
ok "--judge --out's report has the CLOG table and sentence of the run's report, and the chart" \
	eval "[ -n \"\$(table '$out/report.html')\" ] && diff <(table '$out/report.html') <(table '$work/judged/report.html') >&2 && [ -s '$work/judged/plots/clog.svg' ]"
ok "pgbench ran the aged workload on the run's copy" \
	grep -qE 'aged_rows=2560 wal_stall_aged_run' "$out/report.html"
workdir=$(sed -nE 's/^wal_stall_bench: initdb in (.*)$/\1/p' "$work/sweep.err")
ok "the temporary cluster is gone (${workdir:-not named})" eval '[ -n "$workdir" ] && [ ! -e "$workdir" ]'

# ---------- 2. Ctrl-C while the aged table is being built ----------
"$BENCH" --pg-config "$PG_CONFIG" --aged-pages 400 --set "$sweep" --runs 1 --duration 5 \
	--clients 2 --scale 1 --out "$work/int" >"$work/int.out" 2>"$work/int.err" &
pid=$!
for _ in $(seq 1 600); do
	grep -q 'aged table: .* a row every' "$work/int.err" && break
	sleep 0.1
done
sleep 2
kill -INT $pid
wait $pid
rc=$?
ok "Ctrl-C during the build: exit status 130 (got $rc)" [ "$rc" = 130 ]
workdir=$(sed -nE 's/^wal_stall_bench: initdb in (.*)$/\1/p' "$work/int.err")
ok "Ctrl-C during the build: the temporary cluster is gone (${workdir:-not named})" \
	eval '[ -n "$workdir" ] && [ ! -e "$workdir" ]'

# ---------- 3. refused before anything starts ----------
"$BENCH" --aged-rows-per-page 64 --set "$sweep" >"$work/r.out" 2>"$work/r.err"
rc=$?
ok "--aged-rows-per-page without --aged-pages: exit status 2 (got $rc)" [ "$rc" = 2 ]
ok "  and it says so" grep -qF -- '--aged-rows-per-page needs --aged-pages' "$work/r.err"
"$BENCH" --aged-pages 0 --set "$sweep" >"$work/r.out" 2>"$work/r.err"
rc=$?
ok "--aged-pages 0: exit status 2 (got $rc)" [ "$rc" = 2 ]

tap_plan
tap_summary
[ "$failed" = 0 ]
