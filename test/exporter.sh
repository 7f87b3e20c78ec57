#!/usr/bin/env bash
# End-to-end test of wal_stall's Prometheus files: a temporary cluster with a
# 32kB WAL ring, Debian's postgres_exporter reading exporter/queries.yaml as
# a role that is only in pg_monitor, and a Prometheus scraping it every
# second with exporter/rules.yaml loaded; all on 127.0.0.1, on free ports,
# in one temporary directory, stopped and removed at the end.  Run as root.
# Prints TAP lines.
#
#   test/exporter.sh          PG_CONFIG=/path/to/pg_config test/exporter.sh
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# PG_CONFIG, PGBIN; ok, bail, tap_plan
# shellcheck source=SCRIPTDIR/../test/lib.sh
. "$top/test/lib.sh"
EXPORTER=/usr/bin/prometheus-postgres-exporter
PROMETHEUS=/usr/bin/prometheus
PROMTOOL=/usr/bin/promtool
# shellcheck source=cluster.sh
source "$top/test/cluster.sh"

require_root
for b in "$EXPORTER" "$PROMETHEUS" "$PROMTOOL" "$PGBIN/pgbench"; do
	[ -x "$b" ] || bail "$b missing (scripts/setup.sh installs it)"
done

# A port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The processes this script starts, stopped by pid at exit with the cluster.
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	cluster_stop "$dir"
	cluster_stop "$dir/nl"
	rm -rf "$dir"
}
pg_port=$(free_port)
cluster_scratch exporter "$pg_port"	# sets $dir and a trap, replaced here
trap cleanup EXIT
cluster_conf "$dir" "shared_preload_libraries = 'wal_stall'" "wal_buffers = 32kB" \
	"synchronous_commit = off" "track_wal_io_timing = on" "max_wal_size = 256MB" \
	"autovacuum = off"	# nothing may write WAL once pgbench has stopped
cluster_start "$dir" || bail "cluster did not start"
sql() { cluster_psql "$dir" -At -v ON_ERROR_STOP=1 "$@"; }
sql -q -c "CREATE EXTENSION wal_stall" \
	-c "CREATE ROLE wal_stall_exporter LOGIN IN ROLE pg_monitor" \
	-c "CREATE ROLE regress_no_monitor LOGIN" >/dev/null ||
	bail "could not create the extension and roles"

# ---------- the files themselves ----------
echo "# the files themselves (at ${SECONDS}s)"
# to_log FILE COMMAND...: run it with its output in FILE, shown if it fails
to_log() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || { sed 's/^/# /' "$log"; return 1; }
}
ok "promtool check rules exporter/rules.yaml" \
	to_log "$dir/promtool_rules.log" "$PROMTOOL" check rules "$top/exporter/rules.yaml"

# Every query of queries.yaml, one file per namespace, for psql.
python3 - "$top/exporter/queries.yaml" "$dir/q" <<'PY' || bail "queries.yaml does not parse"
import os, sys, yaml
queries = yaml.safe_load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
for name, spec in queries.items():
    assert set(spec) <= {"query", "metrics", "master", "cache_seconds", "runonserver"}, name
    with open(os.path.join(sys.argv[2], name + ".sql"), "w") as f:
        f.write(spec["query"])
PY
chmod -R a+rX "$dir/q"
pg_monitor_ok=true no_monitor_denied=true
for f in "$dir"/q/*.sql; do
	sql -U wal_stall_exporter -f "$f" >/dev/null 2>"$dir/q.err" ||
		{ pg_monitor_ok=false; echo "# $(basename "$f"): $(cat "$dir/q.err")"; }
	case $(basename "$f") in
	wal_stall_clients.sql) ;;	# pg_stat_activity is readable by anyone
	*) sql -U regress_no_monitor -f "$f" >/dev/null 2>&1 && {
		no_monitor_denied=false; echo "# $(basename "$f") ran without pg_monitor"; } ;;
	esac
done
ok "every query of queries.yaml runs as a role that is only in pg_monitor" $pg_monitor_ok
ok "and is refused to a role outside pg_monitor" $no_monitor_denied

# ---------- the exporter ----------
echo "# the exporter (at ${SECONDS}s)"
exp_port=$(free_port)
DATA_SOURCE_NAME="host=$dir/pg port=$pg_port user=wal_stall_exporter dbname=postgres sslmode=disable" \
	"$EXPORTER" --extend.query-path="$top/exporter/queries.yaml" \
	--web.listen-address="127.0.0.1:$exp_port" >"$dir/exporter.log" 2>&1 &
pids+=($!)
scrape() { curl -sf "http://127.0.0.1:$exp_port/metrics"; }
up=false
for _ in $(seq 1 50); do
	scrape 2>/dev/null | grep -q '^wal_stall_collector_running{.*} 1$' && { up=true; break; }
	sleep 0.2
done
ok "the exporter serves wal_stall_collector_running 1" $up
# The last_second series need a history row that closed in the last 10 s:
# none exists until the collector's first second has ended, so the scrape
# is polled (10 s at most) until the list is complete.
missing_metrics() {
	missing=""
	for m in wal_stall_episodes_total wal_stall_samples_total wal_stall_seconds_total \
		wal_stall_max_seconds wal_stall_exact_count_total wal_stall_exact_io_seconds_total \
		wal_stall_episode_seconds_bucket wal_stall_episode_seconds_sum wal_stall_episode_seconds_count \
		wal_stall_last_second_ring_fill_max_ratio wal_stall_last_second_stall_seconds \
		wal_stall_clients_busy wal_stall_clog_hits_total wal_stall_clog_reads_total \
		wal_stall_clog_lock_seconds_total wal_stall_collector_ticks_total \
		wal_stall_collector_overruns_total wal_stall_collector_unobserved_seconds_total \
		wal_stall_collector_mean_tick_seconds; do
		grep -q "^$m{" "$dir/metrics.txt" || missing="$missing $m"
	done
}
for _ in $(seq 1 50); do
	scrape >"$dir/metrics.txt"
	missing_metrics
	[ -z "$missing" ] && break
	sleep 0.2
done
[ -z "$missing" ] || echo "# missing:$missing"
ok "the scrape holds every metric of the list" test -z "$missing"
ok "the counters are typed counter" \
	grep -q '^# TYPE wal_stall_episodes_total counter$' "$dir/metrics.txt"
grep -E '^(# (HELP|TYPE) )?wal_stall_' "$dir/metrics.txt" >"$dir/wal_stall_metrics.txt"
ok "promtool check metrics finds nothing to say about the wal_stall metrics" \
	"$PROMTOOL" check metrics <"$dir/wal_stall_metrics.txt"

# ---------- Prometheus ----------
echo "# Prometheus (at ${SECONDS}s)"
prom_port=$(free_port)
mkdir -p "$dir/prometheus"
cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $top/exporter/rules.yaml
scrape_configs:
  - job_name: postgres
    static_configs:
      - targets: ['127.0.0.1:$exp_port']
YML
ok "promtool check config (with rules.yaml)" \
	to_log "$dir/promtool_config.log" "$PROMTOOL" check config "$dir/prometheus.yml"
"$PROMETHEUS" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/prometheus" \
	--web.listen-address="127.0.0.1:$prom_port" >"$dir/prometheus.log" 2>&1 &
pids+=($!)

# promql QUERY [TIME]: the value of an instant query's single result (at
# TIME, Unix seconds, if given), or nothing.
promql() {
	curl -sf -G "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"} |
		python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
if len(r) == 1:
    print(r[0]["value"][1])
elif r:
    sys.exit("several results")'
}
up=false
for _ in $(seq 1 100); do
	[ "$(promql 'wal_stall_collector_running' 2>/dev/null)" = 1 ] && { up=true; break; }
	sleep 0.2
done
ok "Prometheus scrapes the exporter" $up

# ---------- under load ----------
echo "# under load (at ${SECONDS}s)"
# pgbench -i wraps the ring too: reset after it, so that only the run counts.
# The checkpoint makes the run's first change to every page write a full
# page image to WAL, 8kB through a 32kB ring: wrap-arounds for sure.
cluster_pgbench "$dir" -i -q -s 5 >/dev/null 2>&1
sql -c "CHECKPOINT" -c "SELECT wal_stall_reset()" >/dev/null
sleep 2
t0=$(date +%s)
cluster_pgbench "$dir" -c 4 -j 2 -T 8 >"$dir/pgbench.log" 2>&1
t1=$(date +%s)
echo "# wal_buffer_full episodes during the run: $(sql -c "SELECT episodes FROM wal_stall_summary WHERE class = 'wal_buffer_full'")"
# Asked afterwards, at the run's end (time=), so that a loaded machine
# answering slowly cannot miss the run: the highest 5 s rate among the
# windows that lie inside the run, and the whole run's rate and share of
# client time.
sleep 2
run=$((t1 - t0))
q='rate(wal_stall_seconds_total{class="wal_buffer_full"}[5s])'
best=$(promql "max_over_time(${q}[$((run - 5))s:1s])" "$t1")
echo "# max_over_time(${q}[$((run - 5))s:1s]) at the end of pgbench = $best"
whole=$(promql "rate(wal_stall_seconds_total{class=\"wal_buffer_full\"}[${run}s])" "$t1")
share=$(promql "sum without (kind) (rate(wal_stall_seconds_total{class=\"wal_buffer_full\"}[${run}s])) / ignoring (class) avg_over_time(wal_stall_clients_busy[${run}s])" "$t1")
busy=$(promql "avg_over_time(wal_stall_clients_busy[${run}s])" "$t1")
echo "# over the whole run (${run}s): stall seconds per second $whole, clients busy $busy, share $share"
ok "rate() of the wrap-around stall seconds is positive during pgbench" \
	python3 -c "import sys; sys.exit(not float('${best:-0}') > 0)"
grep -E '^tps' "$dir/pgbench.log" | sed 's/^/# /'

# ---------- idle: the scraped totals are the view's ----------
echo "# idle: the scraped totals are the view's (at ${SECONDS}s)"
# Stall classes count client backends only: once pgbench's have exited
# nothing can add to them, so after three one-second scrapes the newest
# sample must be exactly what the view says (float8 text round-trips).  The
# io classes may still move (WAL writer, checkpointer) and are not compared.
sleep 3
view() {
	sql -U wal_stall_exporter -c "SELECT class, episodes, total_ms / 1000, exact_count FROM wal_stall_summary
		WHERE kind = 'stall' ORDER BY class COLLATE \"C\""
}
before=$(view)
scraped=""
for c in $(echo "$before" | cut -d'|' -f1); do
	scraped+="$c|$(promql "wal_stall_episodes_total{class=\"$c\"}")|$(promql "wal_stall_seconds_total{class=\"$c\"}")|$(promql "wal_stall_exact_count_total{class=\"$c\"}")"$'\n'
done
after=$(view)
scraped=${scraped%$'\n'}
echo "# view:    $(echo "$before" | tr '\n' ' ')"
echo "# scraped: $(echo "$scraped" | tr '\n' ' ')"
ok "the view did not move while Prometheus was read" test "$before" = "$after"
ok "scraped episodes, seconds and exact counts of every stall class equal the view's" \
	python3 - "$before" "$scraped" <<'PY'
import sys
def rows(text):
    return [[c for c in line.split("|")] for line in text.splitlines()]
v, s = rows(sys.argv[1]), rows(sys.argv[2])
same = len(v) == 4 and len(v) == len(s)
for a, b in zip(v, s):
    same &= a[0] == b[0] and int(a[1]) == float(b[1]) and float(a[2]) == float(b[2]) \
        and (a[3] == b[3] == "" or float(a[3]) == float(b[3]))
same &= float(v[[r[0] for r in v].index("wal_buffer_full")][1]) > 0
sys.exit(not same)
PY
ok "the histogram's _count equals wal_stall_episodes_total for wal_buffer_full" test \
	"$(promql 'wal_stall_episode_seconds_count{class="wal_buffer_full"}')" = \
	"$(promql 'wal_stall_episodes_total{class="wal_buffer_full"}')"
p99=$(promql 'wal_stall_class:episode_seconds:p99_5m{class="wal_buffer_full"}')
echo "# recording rule wal_stall_class:episode_seconds:p99_5m{class=\"wal_buffer_full\"} = $p99"
ok "the recording rules evaluate (p99 of wrap-around stalls is a number)" \
	python3 -c "import math, sys; sys.exit(not float('${p99:-nan}') > 0)"

# ---------- a reset is a counter reset ----------
# The window covers this reset and not the one before the pgbench run, at
# least the run's 8 s earlier: over a minute, a fast machine would count both.
echo "# a reset is a counter reset (at ${SECONDS}s)"
sql -c "SELECT wal_stall_reset()" >/dev/null
sleep 3
resets=$(promql 'resets(wal_stall_episodes_total{class="wal_buffer_full"}[5s])')
echo "# after wal_stall_reset(): resets(wal_stall_episodes_total{class=\"wal_buffer_full\"}[5s]) = $resets"
ok "wal_stall_reset() shows to Prometheus as one counter reset" test "$resets" = 1
ok "and rate() over it stays non-negative" python3 -c \
	"import sys; sys.exit(not float('$(promql 'rate(wal_stall_episodes_total{class="wal_buffer_full"}[1m])')') >= 0)"

# ---------- the exporter's log ----------
echo "# the exporter's log (at ${SECONDS}s)"
if grep -iE 'error|level=warn' "$dir/exporter.log" >"$dir/exporter_errors.log"; then
	sed 's/^/# /' "$dir/exporter_errors.log" | head -20
fi
ok "the exporter logged no query error" test ! -s "$dir/exporter_errors.log"
ok "Prometheus logged no rule evaluation error" \
	bash -c "! grep -iE 'level=(error|warn)' '$dir/prometheus.log' | grep -v 'does not exist' | sed 's/^/# /' | grep ."

# ---------- wal_stall not loaded ----------
# A second cluster with the extension created but wal_stall not in
# shared_preload_libraries, where each of wal_stall's functions raises an
# error: the queries must not call them, and say wal_stall_collector_running 0.
echo "# wal_stall not loaded (at ${SECONDS}s)"
nl_port=$(free_port)
cluster_init "$dir/nl" "$nl_port"
cluster_conf "$dir/nl" "shared_preload_libraries = 'pg_stat_statements'" "autovacuum = off"
nl_up=false
cluster_start "$dir/nl" && nl_up=true
ok "a cluster without wal_stall preloaded starts" $nl_up
nl_sql() { cluster_psql "$dir/nl" -At -v ON_ERROR_STOP=1 "$@"; }
nl_sql -q -c "CREATE EXTENSION wal_stall" -c "CREATE ROLE wal_stall_exporter LOGIN IN ROLE pg_monitor" >/dev/null
nl_queries_ok=true
for f in "$dir"/q/*.sql; do
	nl_sql -U wal_stall_exporter -f "$f" >/dev/null 2>"$dir/nl_q.err" ||
		{ nl_queries_ok=false; echo "# $(basename "$f"): $(cat "$dir/nl_q.err")"; }
done
ok "not loaded: every query of queries.yaml runs without error as a pg_monitor role" $nl_queries_ok
# The test of shared_preload_libraries, taken from the collector's query,
# on the spellings the setting accepts.
python3 - "$top/exporter/queries.yaml" >"$dir/nl_loaded.sql" <<'PY'
import re, sys, yaml
q = yaml.safe_load(open(sys.argv[1]))["wal_stall_collector"]["query"]
m = re.search(r"WHERE (EXISTS \(.*?'wal_stall'\))", q, re.S)
expr = m.group(1).replace("current_setting('shared_preload_libraries')", "v.setting")
print("SELECT string_agg(v.setting || '=' || (%s)::text, ' | ' ORDER BY v.n) FROM (VALUES "
      "(1, 'wal_stall'), (2, 'pg_stat_statements, wal_stall'), (3, '\"wal_stall\" , auto_explain'), "
      "(4, '$libdir/wal_stall'), (5, 'wal_stall.so'), (6, ''), (7, 'wal_stall_x'), (8, 'pg_wal_stall'), "
      "(9, 'auto_explain')) AS v(n, setting)" % expr)
PY
spellings=$(nl_sql -f "$dir/nl_loaded.sql" 2>&1)
echo "# $spellings"
ok "not loaded: the queries' test of shared_preload_libraries finds wal_stall in each spelling, and only there" \
	test "$spellings" = 'wal_stall=true | pg_stat_statements, wal_stall=true | "wal_stall" , auto_explain=true | $libdir/wal_stall=true | wal_stall.so=true | =false | wal_stall_x=false | pg_wal_stall=false | auto_explain=false'
nl_exp_port=$(free_port)
DATA_SOURCE_NAME="host=$dir/nl/pg port=$nl_port user=wal_stall_exporter dbname=postgres sslmode=disable" \
	"$EXPORTER" --extend.query-path="$top/exporter/queries.yaml" \
	--web.listen-address="127.0.0.1:$nl_exp_port" >"$dir/nl_exporter.log" 2>&1 &
pids+=($!)
nl_running=false
for _ in $(seq 1 50); do
	curl -sf "http://127.0.0.1:$nl_exp_port/metrics" >"$dir/nl_metrics.txt" 2>/dev/null &&
		grep -q '^wal_stall_collector_running{.*} 0$' "$dir/nl_metrics.txt" && { nl_running=true; break; }
	sleep 0.2
done
grep -E '^wal_stall_' "$dir/nl_metrics.txt" | sed 's/{[^}]*}//' | sort | sed 's/^/# /'
ok "not loaded: the exporter serves wal_stall_collector_running 0" $nl_running
ok "not loaded: the other wal_stall metrics are wal_stall_clients_busy and the collector's, NaN" python3 - "$dir/nl_metrics.txt" <<'PY'
import math, re, sys
got = {}
for line in open(sys.argv[1]):
    m = re.match(r"^(wal_stall_\w+)\{[^}]*\} (\S+)$", line)
    if m:
        got[m.group(1)] = float(m.group(2))
assert got.pop("wal_stall_collector_running") == 0, got
assert "wal_stall_clients_busy" in got, got
got.pop("wal_stall_clients_busy")
assert got and all(k.startswith("wal_stall_collector_") and math.isnan(v) for k, v in got.items()), got
PY
if grep -iE 'error|level=warn' "$dir/nl_exporter.log" >"$dir/nl_exporter_errors.log"; then
	sed 's/^/# /' "$dir/nl_exporter_errors.log" | cut -c1-200 | head -10
fi
ok "not loaded: the exporter logged no query error" test ! -s "$dir/nl_exporter_errors.log"

# ---------- nothing left ----------
echo "# nothing left (at ${SECONDS}s)"
cleanup
trap - EXIT
left=$(pgrep -af "$dir" || true)
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null && left+=" pid $p"
done
ok "no process left running" test -z "$left"
[ -z "$left" ] || echo "# left: $left"

tap_plan
[ "$failed" -eq 0 ]
