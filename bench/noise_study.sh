#!/usr/bin/env bash
# The noise an A/A comparison shows: the same configuration twice per
# round (one value spelled two ways, so the harness takes them for two
# configurations), judged by rounds as any experiment.  From results.csv:
# the standard deviation of the per-round log ratio, ln(tps_B / tps_A),
# for pgbench's end-inclusive tps and for the window tps (tps_window, where
# the harness writes it), and the run-over-run trend: the least-squares
# slope of ln tps against the run's place in the run order, in % a run.
# Prints one table row per study.
#
#   bench/noise_study.sh [--bench PATH] [--rounds N] [--out DIR] [--only quick|small]
#                        [--quick-set GUC=A,B]
#
#   quick   bench/presets/quick.conf (pg_wal at 100 IOPS and 4 MB/s, 4
#           clients, 10 s runs) with wal_buffers 16MB spelled 16MB and
#           16384kB (--quick-set another pair), without its budget
#   small   wal_buffers_small.conf (15 s runs) with wal_buffers 32kB spelled
#           32kB and 32768B
#
# The runs are timing-sensitive: hold the bench lock around it, e.g.
#   flock /work/bench.lock bench/noise_study.sh --only quick --rounds 4
# and note the load average it prints beside the figures.  Needs root (the
# slowed loop device), as the presets do.  --bench: another harness binary
# (an older build, to compare); its results.csv may lack tps_window.
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/wal_stall_bench
rounds=4
out=
only=
quick_set=wal_buffers=16MB,16384kB
pg_config=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
while [ $# -gt 0 ]; do
	case $1 in
	--bench) bench=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--quick-set) quick_set=$2; shift 2 ;;
	*) echo "noise_study.sh: unknown argument \"$1\"" >&2; exit 2 ;;
	esac
done
case $rounds in
'' | *[!0-9]* | 0 | 1) echo "noise_study.sh: --rounds needs a whole number of at least 2" >&2; exit 2 ;;
esac
[ -x "$bench" ] || { echo "noise_study.sh: no harness at \"$bench\"" >&2; exit 1; }
[ -n "$out" ] || out=$(mktemp -d /tmp/wsb_noise.XXXXXX)
mkdir -p "$out"

# the spread and the trend of one results.csv
summarize() {	# summarize NAME CSV LOAD
	python3 - "$@" <<'PY'
import csv, math, sys, statistics as st
name, path, load = sys.argv[1:4]
rows = [r for r in csv.DictReader(open(path)) if r.get("ok", "true") == "true"]
def spread(col):
    by = {}
    for r in rows:
        v = r.get(col) or ""
        if v in ("", "NaN") or float(v) <= 0:
            return None
        by.setdefault(r["round"], {})[r["baseline"] == "true"] = float(v)
    d = [math.log(p[False] / p[True]) for p in by.values() if len(p) == 2]
    return (st.stdev(d), len(d)) if len(d) >= 2 else None
def trend(col):
    pts = [(int(r["order"]), math.log(float(r[col]))) for r in rows
           if (r.get(col) or "") not in ("", "NaN") and float(r[col]) > 0]
    if len(pts) < 3:
        return None
    mx = st.mean(p[0] for p in pts); my = st.mean(p[1] for p in pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return 100 * (math.exp(sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx) - 1)
def fmt(x, f):
    return "-" if x is None else f(x)
t, w = spread("tps"), spread("tps_window")
print("%-6s rounds %-3s sd ln ratio: tps %-7s tps_window %-7s trend: tps %-8s tps_window %-8s load %s" % (
    name, (t or w or (0, 0))[1],
    fmt(t, lambda s: "%.3f" % s[0]), fmt(w, lambda s: "%.3f" % s[0]),
    fmt(trend("tps"), lambda x: "%+.1f%%" % x), fmt(trend("tps_window"), lambda x: "%+.1f%%" % x), load))
PY
}

# A/A preset NAME from PRESET: its settings and flags, its --set replaced
# by SET, without its budget (the rounds are fixed)
aa_preset() {	# aa_preset NAME PRESET SET
	grep -vE '^(set|budget|runs|description) *=' "$here/presets/$2.conf" >"$out/$1.conf"
	echo "set = $3" >>"$out/$1.conf"
}

study() {	# study NAME
	local name=$1 load
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	"$bench" --pg-config "$pg_config" --preset "$out/$name.conf" --runs "$rounds" --quiet \
		--out "$out/$name" >"$out/$name.out" 2>"$out/$name.err" || {
		echo "noise_study.sh: the $name study failed; see $out/$name.err" >&2
		return 1
	}
	load="$load -> $(cut -d' ' -f1-3 /proc/loadavg)"
	summarize "$name" "$out/$name/results.csv" "$load"
}

if [ -z "$only" ] || [ "$only" = quick ]; then
	aa_preset quick quick "$quick_set"
	study quick
fi
if [ -z "$only" ] || [ "$only" = small ]; then
	aa_preset small wal_buffers_small wal_buffers=32kB,32768B
	study small
fi
echo "results in $out"
