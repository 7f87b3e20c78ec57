#!/usr/bin/env bash
# End-to-end tests of wal_stall_bench's verdict by rounds, on temporary
# clusters only: an A/A comparison (two spellings of one value) never reads
# faster or slower beyond the margin; synchronous_commit off against on, on
# a WAL disk slowed to 100 IOPS, reads "faster by >= 5%" in 6 rounds (the
# fewest the sign-flip gate lets a direction be said in at 5%); --judge on a
# results directory gives its verdicts again, to the digit; --resume of an
# interrupted experiment adds rounds and keeps the old ones; --judge on a
# plain CSV (the 2012 pgsql-hackers figures).  Run as root, after building
# bench/wal_stall_bench.  Prints TAP lines and "N passed, N failed".
#
#   bench/t/verdicts.sh       PG_CONFIG=/path/to/pg_config bench/t/verdicts.sh
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG; BENCH; ok, bail
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../test/lib.sh"

require_root
require_bench

work_dir wsb_verdicts
# 5.'s harness runs in the background beside 4.: stopped (it undoes what it
# set up on SIGTERM) before its directory is removed
sync_bench=
stop_sync_bench() {
	[ -n "$sync_bench" ] && kill -TERM "$sync_bench" 2>/dev/null && wait "$sync_bench"
	rm -rf "$work"
}
trap stop_sync_bench EXIT

# the tps row of verdicts.csv for a configuration: its verdict words
tps_verdict() {	# tps_verdict DIR CONFIGURATION
	python3 - "$1/verdicts.csv" "$2" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["configuration"] == sys.argv[2] and r["metric"] == "tps"]
assert len(rows) == 1, rows
print(rows[0]["verdict"])
PY
}

# ---------- 1. A/A: two spellings of the same ring ----------
# Margin 20%: runs of 5 s on an unthrottled disk climb run after run here
# (1053, 1205, 1468, 1507 tps), so the configuration that runs second in
# every round (one plan in four) gains ~10% a round; that crossed a 5%
# margin once in a clean-clone run.  Beyond 20% an A/A pair can read only
# through a harness that mixes up its configurations.
aa=$work/aa
"$BENCH" --pg-config "$PG_CONFIG" --set wal_buffers=16MB,16384kB --runs 3 --duration 5 \
	--clients 2 --scale 1 --margin 20 --quiet --out "$aa" >"$work/aa.out" 2>"$work/aa.err"
rc=$?
ok "A/A: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/aa.err"
v=$(tps_verdict "$aa" wal_buffers=16384kB 2>/dev/null)
echo "# A/A verdict: $v"
# A bare "faster" or "slower" is a 95% interval that misses 1: an A/A
# reads one by chance about one time in twenty-five (docs/verdict.md, the
# simulation), so what must never happen is a change beyond the margin.
ok "A/A: 16384kB against 16MB reads no change beyond the margin ($v)" \
	eval '[ -n "$v" ] && ! [[ "$v" =~ ^(faster|slower)\ by ]]'
ok "A/A: the plan line names the rounds, the seed and the margin" \
	grep -qE '^plan: 2 configurations .* 3 rounds .* balanced order from seed [0-9]+, margin \+-20%' "$work/aa.out"
# (a bound under 0.1 is printed with %.2g: 5e-05 is a number too)
ok "A/A: the terminal table has ratio [interval] and the margin" \
	grep -qE '^wal_buffers=16384kB +[0-9.e+-]+ \[[0-9.e+-]+, [0-9.e+-]+\] ' "$work/aa.out"
ok "A/A: one verdict: no \"within noise\", no Welch table, on the terminal or in the report" \
	eval '! grep -qi "within noise\|welch" "$work/aa.out" "$aa/report.html" && grep -q "^wal_buffers=16MB: .*, median " "$work/aa.out"'
ok "A/A: pgbench runs with the round's --random-seed (the report's command)" \
	grep -q -- '--random-seed=ROUND' "$aa/report.html"
ok "A/A: results.csv has round, position and the seed; each round runs both once" python3 - "$aa/results.csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, len(rows)
per = collections.defaultdict(list)
for r in rows:
    per[r["round"]].append(r["configuration"])
    assert r["seed"].isdigit() and r["margin_pct"] == "20", r
assert sorted(per) == ["1", "2", "3"], per
for k, v in per.items():
    assert sorted(v) == ["wal_buffers=16384kB", "wal_buffers=16MB"], v
assert sorted(r["position"] for r in rows) == ["1", "1", "1", "2", "2", "2"]
PY
ok "A/A: verdicts.csv has a row per metric with ratio, interval, verdict, rounds, method" python3 - "$aa/verdicts.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 13, len(rows)  # tps, p99, longest stall, 4 shares, all, 4 episodes, implied
t = [r for r in rows if r["metric"] == "tps"][0]
assert float(t["low"]) <= float(t["ratio"]) <= float(t["high"]), t
assert t["rounds"] == "3" and "paired t" in t["method"], t
assert any(r["metric"] == "wal_flush_share" and r["ratio"] for r in rows)
PY
ok "A/A: the report has the verdict by rounds and the forest plots" python3 - "$aa/report.html" <<'PY'
import sys
html = open(sys.argv[1]).read()
start = html.index("<h2>Verdict by rounds</h2>")
sec = html[start:html.index("<h2>", start + 1)]
assert "data:image/svg+xml;base64," in sec, "forest plot"
assert "&plusmn;20%" in sec and "balanced order drawn from the seed" in sec
PY

# ---------- 2. --judge DIR gives the same verdicts ----------
"$BENCH" --judge "$aa" --out "$work/aaj" >"$work/aaj.out" 2>"$work/aaj.err"
rc=$?
ok "--judge DIR: exit status 0, no server (got $rc)" [ "$rc" = 0 ]
ok "--judge DIR: verdicts.csv identical to the run's own" cmp -s "$aa/verdicts.csv" "$work/aaj/verdicts.csv"
# the table up to the blank line before the answer: the run's answer may
# quote the WAL rate it measured, which --judge has no figures for
sed -n '/^verdict by rounds/,/^$/p' "$work/aa.out" >"$work/aa.table"
sed -n '/^verdict by rounds/,/^$/p' "$work/aaj.out" >"$work/aaj.table"
ok "--judge DIR: the same terminal table" cmp -s "$work/aa.table" "$work/aaj.table"
ok "--judge DIR: the answer opens with the run's conditions" \
	[ "$(grep -A1 '^$' "$work/aa.out" | tail -1 | cut -c1-40)" = "$(grep -A1 '^$' "$work/aaj.out" | tail -1 | cut -c1-40)" ]

# ---------- 3. --judge FILE.csv: the 2012 figures ----------
cat >"$work/2012.csv" <<'CSV'
configuration,round,tps
wal_buffers=16MB,1,13069
wal_buffers=32MB,1,14916
wal_buffers=16MB,2,14370
wal_buffers=32MB,2,14746
wal_buffers=16MB,3,13787
wal_buffers=32MB,3,15110
CSV
"$BENCH" --judge "$work/2012.csv" >"$work/2012.out" 2>&1
ok "--judge FILE.csv: the 2012 data read 1.087 [0.951, 1.242], too few rounds for a verdict" \
	grep -q '1.087 \[0.951, 1.242\] *too few rounds for a verdict at 5%: needs 5 (6 for faster or slower)' "$work/2012.out"
"$BENCH" --judge "$work/2012.csv" --margin 20 >"$work/2012m.out" 2>&1
ok "--judge FILE.csv --margin 20: a margin does not make 3 rounds carry a word" \
	eval 'grep -q "^margin +-20%, 3 complete rounds" "$work/2012m.out" &&
		grep -q "too few rounds for a verdict at 5%: needs 5 (6 for faster or slower)" "$work/2012m.out"'

# ---------- 5. (started) synchronous_commit off against on, on a slow WAL disk ----------
# Run beside 4., whose checks read the files and not the figures: off
# against on at 100 IOPS is a difference of several times, far from the 5%
# its verdict needs, under a second harness's load too.  6 rounds, the
# fewest at which the sign-flip gate lets a direction be said at 5%; 3 s
# runs: at 100 IOPS each holds hundreds of the commits whose flushes it
# compares.
slow_wal=no
if [ -e /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device ] && [ -e /dev/loop-control ] &&
	command -v losetup >/dev/null; then
	slow_wal=yes
	sc=$work/sync
	"$BENCH" --pg-config "$PG_CONFIG" --set synchronous_commit=on,off --slow-wal 100 --runs 6 \
		--duration 3 --quiet --out "$sc" >"$work/sc.out" 2>"$work/sc.err" &
	sync_bench=$!
fi

# ---------- 4. --resume: interrupted after a round, continued ----------
rs=$work/resume
"$BENCH" --pg-config "$PG_CONFIG" --set wal_buffers=1MB,4MB --runs 3 --duration 2 \
	--clients 2 --scale 1 --quiet --seed 5 --out "$rs" >"$work/rs1.out" 2>"$work/rs1.err" &
bench=$!
for _ in $(seq 1 900); do	# until round 1 is in results.csv
	[ -s "$rs/results.csv" ] && [ "$(wc -l <"$rs/results.csv")" -ge 3 ] && break
	sleep 0.2
done
kill -TERM "$bench"
wait "$bench"
rc=$?
ok "--resume: the first invocation was interrupted (exit status $rc)" [ "$rc" = 130 ]
cp "$rs/results.csv" "$work/rs_before.csv" 2>/dev/null
before=$(($(wc -l <"$work/rs_before.csv") - 1))
ok "--resume: the interrupted experiment kept its finished round ($before rows)" [ "$before" = 2 ]
"$BENCH" --pg-config "$PG_CONFIG" --set wal_buffers=1MB,2MB --runs 3 --duration 2 \
	--clients 2 --scale 1 --quiet --resume "$rs" >"$work/rs_bad.out" 2>"$work/rs_bad.err"
rc=$?
ok "--resume with another plan is refused (exit status $rc)" \
	eval '[ "$rc" = 1 ] && grep -q "the plan differs" "$work/rs_bad.err"'
"$BENCH" --pg-config "$PG_CONFIG" --set wal_buffers=1MB,4MB --runs 3 --duration 2 \
	--clients 2 --scale 1 --quiet --resume "$rs" >"$work/rs2.out" 2>"$work/rs2.err"
rc=$?
ok "--resume: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/rs2.err"
ok "--resume: the old rows are kept as they were" \
	eval '[ "$(head -n 3 "$rs/results.csv")" = "$(cat "$work/rs_before.csv")" ]'
ok "--resume: rounds 2 and 3 added, seed kept, run numbers continue" python3 - "$rs/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, len(rows)
assert [r["round"] for r in rows] == ["1", "1", "2", "2", "3", "3"], [r["round"] for r in rows]
assert {r["seed"] for r in rows} == {"5"}
assert [r["order"] for r in rows] == ["1", "2", "3", "4", "5", "6"]
PY
ok "--resume: the verdict is judged on 3 complete rounds" grep -q 'margin +-5%, 3 complete rounds, seed 5' "$work/rs2.out"

# ---------- 5. synchronous_commit off against on, on a slow WAL disk ----------
if [ "$slow_wal" = yes ]; then
	wait "$sync_bench"
	rc=$?
	sync_bench=
	ok "synchronous_commit on/off, --slow-wal 100: exit status 0 (got $rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/# /' "$work/sc.err"
	v=$(tps_verdict "$sc" synchronous_commit=off 2>/dev/null)
	echo "# synchronous_commit=off: $v"
	ok "synchronous_commit=off reads \"faster by >= 5%\" in 6 rounds ($v)" [ "$v" = "faster by >= 5%" ]
	ok "synchronous_commit=off: a limit line under the decided verdict" \
		grep -qE '^    limit: WAL flushes: the clients. flush waits fell from [0-9.]+% of client time with synchronous_commit=on to [0-9.]+% with synchronous_commit=off$' "$work/sc.out"
	ok "synchronous_commit=off: the answer, last before the results' path, says to set it" \
		eval 'grep -B1 "^results in" "$work/sc.out" | grep -q "^On this WAL disk (throttled to 100 write IOPS), set synchronous_commit=off: "'
	ok "synchronous_commit=off: the answer names its risk and what p99 latency did" \
		eval 'grep -B1 "^results in" "$work/sc.out" | grep -q "; p99 latency fell [0-9.]*% (.*Its risk: a crash can lose the transactions of the last moments"'
	ok "synchronous_commit=off: its latency verdicts say p99 and the longest stall fell" python3 - "$sc/verdicts.csv" <<'PY'
import csv, sys
rows = {r["metric"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert rows["latency_p99"]["verdict"].startswith("fell"), rows["latency_p99"]
assert float(rows["latency_p99"]["high"]) < 1, rows["latency_p99"]
assert rows["longest_stall"]["verdict"].startswith("fell"), rows["longest_stall"]
PY
	ok "synchronous_commit=off: wal_flush share of client time \"fewer\"" python3 - "$sc/verdicts.csv" <<'PY'
import csv, sys
rows = {r["metric"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert rows["wal_flush_share"]["verdict"] == "fewer", rows["wal_flush_share"]
assert float(rows["tps_implied_by_stalls"]["ratio"]) > 1, rows["tps_implied_by_stalls"]
PY
else
	echo "# skipped synchronous_commit on a slow WAL disk: no blkio throttling or loop devices here"
fi

# ---------- 6. --budget: looks from round 3, error spent and recorded, --judge agrees ----------
bd=$work/budget
# (margin 20%, as in 1)
"$BENCH" --pg-config "$PG_CONFIG" --set wal_buffers=16MB,16384kB --budget 75s --duration 3 \
	--clients 2 --scale 1 --margin 20 --quiet --out "$bd" >"$work/bd.out" 2>"$work/bd.err"
rc=$?
ok "--budget: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/bd.err"
ok "--budget: the looks are announced with their spending plan (O'Brien-Fleming)" \
	grep -qE "^budget 75 s: judged after every round from the third, at most 2 looks; O'Brien-Fleming spending \(Lan-DeMets\) of 0.05 over 4 rounds: alpha 0.024 at round 3, 0.04[0-9] at round 4$" "$work/bd.out"
ok "--budget: it stopped and said why" grep -qE '^budget: (every configuration decided|looks spent|another round)' "$work/bd.out"
# (a bare faster or slower, as in 1: by chance now and then; never beyond
# the margin)
ok "--budget: at least 3 rounds, and the A/A pair reads no change beyond the margin" python3 - "$bd" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
assert max(int(r["round"]) for r in rows) >= 3, len(rows)
assert {r["budget_looks"] for r in rows} == {"2"}
v = [r for r in csv.DictReader(open(sys.argv[1] + "/verdicts.csv")) if r["metric"] == "tps"][0]
assert not v["verdict"].startswith(("faster by", "slower by")), v
assert "O'Brien-Fleming spending" in v["method"], v["method"]
# plan.txt records the looks made and the error they spent
plan = dict(l.split(" = ", 1) for l in open(sys.argv[1] + "/plan.txt").read().splitlines() if " = " in l)
looks = max(int(r["round"]) for r in rows) - 2
assert plan["spending_looks"] == "2" and plan["looks"] == str(looks), plan
assert plan["alpha_spent"] == ("0.0236251" if looks == 1 else "0.05"), plan
PY
"$BENCH" --judge "$bd" --out "$work/bdj" >/dev/null 2>&1
ok "--budget: --judge on it gives the same verdicts.csv" cmp -s "$bd/verdicts.csv" "$work/bdj/verdicts.csv"

# ---------- 7. usage ----------
"$BENCH" --judge "$work/2012.csv" --resume "$aa" >/dev/null 2>"$work/u1.err"
rc=$?
ok "--judge with --resume is a usage error (exit status $rc)" eval '[ "$rc" = 2 ] && grep -q "exclude each other" "$work/u1.err"'
"$BENCH" --margin 0 >/dev/null 2>"$work/u2.err"
rc=$?
ok "--margin 0 is a usage error (exit status $rc)" eval '[ "$rc" = 2 ] && grep -q "percentage above 0" "$work/u2.err"'
"$BENCH" --budget 10x >/dev/null 2>"$work/u3.err"
rc=$?
ok "--budget 10x is a usage error (exit status $rc)" eval '[ "$rc" = 2 ] && grep -q "not a duration" "$work/u3.err"'

tap_summary
[ "$failed" = 0 ]
