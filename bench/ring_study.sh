#!/usr/bin/env bash
#
# ring_study.sh [OUT]
#
# Where does the WAL ring decide tps?  On each seed's disk (--wal-disk
# nate_boley, power7) and each load below, one harness experiment of a
# small ring (64kB) against a large one (16MB), 2 rounds of 20 s runs with
# --validate (every other run traced with bpftrace), and one table line per
# ring: tps, the clients' wrap-around share of their time (wal_buffer_full)
# and their commit-flush share (wal_flush), the WAL written, and the
# tracer's count of WAL pages the clients wrote themselves because the
# ring was full (traced_client_dirty_writes) with the time those writes
# took.  The figures are the medians of the ring's runs.
#
# Loads (pgbench tpcb-like, scale 10, a CHECKPOINT before every run, so
# every run begins with full-page images):
#   seed     8 clients, synchronous_commit off, wal_writer_delay 20ms
#   few      2 clients, synchronous_commit off, wal_writer_delay 20ms
#   commits  8 clients, synchronous_commit on
#   newseg   as seed, with wal_recycle off: every segment switch creates
#            the next segment (zero-filled and fsynced while WALWriteLock
#            is held, a journal commit on the file system), as a run on a
#            young cluster does before checkpoints leave segments to recycle
#
# Each experiment's directory stays under OUT (default
# bench-results/ring_study-DATE); OUT/study.txt is the table.  Run as root,
# nothing else running: about 5 minutes an experiment, 6 experiments.
# PROFILES and LOADS (space-separated names) choose fewer.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-bench-results/ring_study-$(date +%Y%m%d-%H%M%S)}
profiles=${PROFILES:-nate_boley power7}
loads=${LOADS:-seed few commits}
bench=$here/wal_stall_bench
[ -x "$bench" ] || { echo "$0: build the harness first (make -C bench)" >&2; exit 2; }
mkdir -p "$out"

load_args() {
	case $1 in
		seed) echo "--clients 8 --jobs 2 --set synchronous_commit=off --set wal_writer_delay=20ms" ;;
		few) echo "--clients 2 --jobs 2 --set synchronous_commit=off --set wal_writer_delay=20ms" ;;
		commits) echo "--clients 8 --jobs 2 --set synchronous_commit=on" ;;
		newseg) echo "--clients 8 --jobs 2 --set synchronous_commit=off --set wal_writer_delay=20ms --set wal_recycle=off" ;;
		*) echo "$0: unknown load \"$1\"" >&2; exit 2 ;;
	esac
}

# one line per ring of an experiment's results.csv: the medians of its runs
summarize() {
	python3 - "$1" "$2" "$3" <<'EOF'
import csv, statistics, sys
path, profile, load = sys.argv[1:4]
rows = [r for r in csv.DictReader(open(path)) if r.get("ok") == "true"]
def num(r, k):
    try:
        return float(r[k])
    except (KeyError, ValueError):
        return None
def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else float("nan")
for ring in sorted({r["wal_buffers"] for r in rows}, key=lambda s: (len(s), s)):
    rs = [r for r in rows if r["wal_buffers"] == ring]
    def share(col):
        return med([num(r, col) / (num(r, "seconds") * num(r, "clients") * 1000)
                    for r in rs if num(r, col) is not None])
    traced = [r for r in rs if r.get("traced") == "true"]
    print(f"{profile:<10} {load:<8} {ring:>5} {med([num(r, 'tps_window') for r in rs]):8.1f} "
          f"{100 * share('wal_buffer_full_total_ms'):9.2f}% {100 * share('wal_flush_total_ms'):9.2f}% "
          f"{med([num(r, 'wal_buffers_full') for r in rs]):10.0f} "
          f"{med([num(r, 'traced_client_dirty_writes') for r in traced]):10.0f} "
          f"{med([num(r, 'traced_dirty_write_ms') for r in traced]):10.0f} "
          f"{med([num(r, 'sampled_traced_ratio') for r in traced]):7.3f}")
EOF
}

{
	echo "# ring_study.sh at $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# medians of each ring's runs (2 of 20 s; the traced columns: its traced run)"
	printf '%-10s %-8s %5s %8s %10s %10s %10s %10s %10s %7s\n' profile load ring tps \
		wrap-share flush-share bufs_full client_wr wr_ms ratio
} >"$out/study.txt"
for profile in $profiles; do
	for load in $loads; do
		dir=$out/$profile-$load
		# shellcheck disable=SC2046 # the load's flags, split on purpose
		if ! "$bench" --wal-disk "$profile" --set wal_buffers=16MB,64kB $(load_args "$load") \
			--runs 2 --duration 20 --scale 10 --validate --quiet --out "$dir" \
			>"$out/$profile-$load.out" 2>&1; then
			echo "$profile $load: the harness failed (see $out/$profile-$load.out)" | tee -a "$out/study.txt"
			continue
		fi
		summarize "$dir/results.csv" "$profile" "$load" | tee -a "$out/study.txt"
		grep '^wal disk:' "$out/$profile-$load.out" | sed 's/^/#   /' >>"$out/study.txt" || true
	done
done
echo "the table: $out/study.txt"
