#!/usr/bin/env bash
# The cause of each WAL wait, end to end, on a throttled WAL disk: the
# per-second history must split the clients' WAL write-path time as the
# summary does, and as PostgreSQL's own functions say it was spent.
#
#  1. a 16MB ring, synchronous_commit = off, pg_wal alone at 100 IOPS and
#     4 MB/s: every client wait on the WAL path is a wrap-around, yet the
#     ring is not full at many of its ticks (waiters stay queued on
#     WALWrite behind the WAL writer's next long write); the history's
#     wal_flush share of the WAL-path time must stay below 5%, and each
#     class of the history must sum to the summary's.
#  2. a mixed load on the same disk: commits that flush
#     (synchronous_commit = on) beside bulk inserts that do not, through a
#     16MB ring, four commits to a bulk insert at random, so that both
#     sides are large: a bulk insert of 200,000 rows takes about 13 s
#     here, a commit behind it about 2 s, and with one commit to one bulk
#     insert some runs made only a few commits (a flush side of 0.4 s in
#     one); with --validate each side of the
#     history must come within 10% of the time PostgreSQL spent waiting on
#     it, traced with bpftrace: the insert side's waits (the clients'
#     WALWrite, WALBufMapping and WALInsert lock waits outside XLogFlush,
#     and their own wrap-around writes), the flush side's XLogFlush calls.
#     The insert side is judged by its waits, not by the whole
#     XLogInsertRecord calls of 50 us or more: the bulk load's calls also
#     hold on-CPU time, and time runnable but off CPU, that no sampler of
#     wait events sees and that grows with whatever else runs on the
#     machine (5-7% of the calls' time alone here, 12% beside another
#     session's demo).  Skipped, with the reason, where bpftrace or the
#     server's probes are missing.
#
# Run as root, after building bench/wal_stall_bench, with PG_CONFIG set;
# run by bench/t/e2e.sh.  Skips (and says why) where this machine has no
# cgroup v1 blkio or loop devices.  Prints TAP lines and "N passed, N failed".
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# PG_CONFIG, PGBIN; BENCH; ok, skip, bail
# shellcheck source=SCRIPTDIR/../../test/lib.sh
. "$here/../test/lib.sh"

require_root
require_bench

work_dir wsb_split

# The clients' WAL-path time of a run, per class, from the history rows
# (timeline.csv) and from the summary (results.csv): "class history summary"
# lines, then "share FLUSH_SHARE TOTAL_MS".
split_of() {
	python3 - "$1" <<'PY'
import csv, sys
d = sys.argv[1]
classes = ("wal_buffer_full", "wal_flush", "wal_insert")
rows = list(csv.DictReader(open(d + "/timeline.csv")))
hist = {c: sum(float(r[c + "_ms"] or 0) for r in rows) for c in classes}
res = list(csv.DictReader(open(d + "/results.csv")))[0]
for c in classes:
    print(c, "%.1f" % hist[c], res[c + "_total_ms"])
total = sum(hist.values())
print("share", "%.4f" % (hist["wal_flush"] / total if total > 0 else 1), "%.1f" % total)
PY
}

if ! { [ -e /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device ] && [ -e /dev/loop-control ] &&
	command -v losetup >/dev/null; }; then
	skip "a large ring on a throttled WAL disk: no cgroup v1 blkio or loop devices here"
	tap_summary
	exit 0
fi

# ---------- 1. 16MB ring, synchronous_commit = off ----------
"$BENCH" --pg-config "$PG_CONFIG" --slow-wal 100 --slow-wal-mbps 4 --set wal_buffers=16MB \
	--set synchronous_commit=off --runs 1 --duration 20 --clients 4 --scale 10 --quiet \
	--out "$work/large" >"$work/large.out" 2>"$work/large.err"
rc=$?
ok "16MB ring, sync commit off: exit status 0 (got $rc)" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$work/large.err"
split_of "$work/large" >"$work/large.split" 2>&1
sed 's/^/# /' "$work/large.split"
read -r _ share total < <(grep '^share' "$work/large.split")
ok "16MB ring: the clients lost more than 5 s on the WAL path (${total:-?} ms)" \
	python3 -c "import sys; sys.exit(not float('${total:-0}') > 5000)"
ok "16MB ring: the history's wal_flush share of the WAL-path time is below 5% (${share:-?})" \
	python3 -c "import sys; sys.exit(not float('${share:-1}') < 0.05)"
# the same samples in the same classes: only the episodes still open when
# the summary was read may differ, and none is open after the run
ok "16MB ring: each class of the history sums to the summary's within 1% of the WAL-path time" \
	python3 - "$work/large.split" <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1])]
total = float([l for l in lines if l[0] == "share"][0][2])
bad = [l for l in lines if l[0] != "share" and abs(float(l[1]) - float(l[2])) > 0.01 * total]
for l in bad:
    print("# %s: history %s ms, summary %s ms" % tuple(l))
sys.exit(1 if bad or total <= 0 else 0)
PY

# ---------- 2. commits that flush beside bulk inserts, traced ----------
if ! command -v bpftrace >/dev/null; then
	skip "the traced split of a mixed load: bpftrace is not on PATH"
# (the list in a file first: grep -q would end the pipe early, and pipefail
# would then count bpftrace's SIGPIPE as no probes)
elif ! { bpftrace -l "usdt:$PGBIN/postgres:postgresql:*" >"$work/probes" 2>/dev/null;
	grep -q lwlock__wait__start "$work/probes"; }; then
	skip "the traced split of a mixed load: $PGBIN/postgres has no USDT probes (--validate needs them)"
else
	cat >"$work/commit.sql" <<'SQL'
\set aid random(1, 100000 * :scale)
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
SQL
	cat >"$work/bulk.sql" <<'SQL'
BEGIN;
SET LOCAL synchronous_commit = off;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime)
SELECT 1, 1, g, 0, now() FROM generate_series(1, 200000) g;
COMMIT;
SQL
	chmod 644 "$work/commit.sql" "$work/bulk.sql"
	"$BENCH" --pg-config "$PG_CONFIG" --slow-wal 100 --slow-wal-mbps 4 --set wal_buffers=16MB \
		--set synchronous_commit=on --script "$work/commit.sql" \
		--pgbench-args "-f $work/commit.sql@3 -f $work/bulk.sql@1" \
		--runs 1 --duration 20 --clients 4 --scale 10 --validate --quiet \
		--out "$work/mixed" >"$work/mixed.out" 2>"$work/mixed.err"
	rc=$?
	ok "mixed load, traced: exit status 0 (got $rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/# /' "$work/mixed.err"
	python3 - "$work/mixed/results.csv" >"$work/mixed.split" 2>&1 <<'PY'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[0]
if r["traced"] != "true" or r["validate_error"] or r["traced_insert_side_ms"] == "":
    print("# the run was not traced: ok %s, traced %s, validate_error %r, error %r"
          % (r["ok"], r["traced"], r["validate_error"], r.get("error", "")))
# the insert side's waits: lock waits outside the flush functions and
# wrap-around writes, both of client backends
waits = {"insert": float(r["traced_lock_wait_ms"] or 0) + float(r["traced_dirty_write_ms"] or 0),
         "flush": float(r["traced_flush_side_ms"] or 0)}
for side in ("insert", "flush"):
    print(side, "%.3f" % waits[side], r["history_%s_side_ms" % side] or 0,
          r["summary_%s_side_ms" % side] or 0, r["traced_%s_side_ms" % side] or 0)
PY
	sed -e '/^#/!s/^/# side traced_waits_ms history_ms summary_ms traced_calls_ms: /' "$work/mixed.split"
	for side in insert flush; do
		read -r _ traced history _ < <(grep "^$side " "$work/mixed.split")
		ok "mixed load: the clients' $side side is large (${traced:-?} ms traced)" \
			python3 -c "import sys; sys.exit(not float('${traced:-0}') > 2000)"
		ok "mixed load: the history's $side side (${history:-?} ms) is within 10% of the traced waits on it (${traced:-?} ms)" \
			python3 -c "import sys; t = float('${traced:-0}'); sys.exit(not (t > 0 and abs(float('${history:-0}') - t) <= 0.10 * t))"
	done
fi

tap_summary
[ "$failed" = 0 ]
