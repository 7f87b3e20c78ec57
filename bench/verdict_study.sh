#!/usr/bin/env bash
# The verdict's error rates and power, measured on the harness itself:
# synthetic experiments with a known truth, laid out as results.csv lays
# out live runs (configuration, round, position, tps; budget_looks for a
# budget), each judged by "wal_stall_bench --judge FILE.csv".  The rounds
# run in the harness's design (every second round the one before
# reversed, a Williams square's rows over more than two configurations),
# drawn afresh per experiment.  Prints one line per case:
#
#   drift 8%   A/A, 2 configurations, 3 rounds, drift 8% a run, noise 2%:
#              the share read faster or slower (a false verdict)
#   drift 4%   the same, 4% a run over 5 rounds
#   edge       4 configurations each truly +10%, margin 10%, 6 rounds,
#              noise 4% a run: the share in which any reads equivalent
#   budget     --budget of 20 rounds (18 looks, the harness's spending),
#              a true +10% at 5% per-round noise: the share that ends on
#              "faster by >= 5%"; and an A/A: the share that ends on
#              "equivalent within +-5%"
#
# These are measurements, not assertions (bench/test_unit asserts the
# same cases on the judging code in process, in seconds); bench/README.md
# quotes them.  No server, no root: only the binary and python3.
#
#   bench/verdict_study.sh [--bench PATH] [--experiments N] [--seed S]
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/wal_stall_bench
experiments=400
seed=43

usage() {
	echo "usage: $0 [--bench PATH] [--experiments N] [--seed S]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--bench) [ $# -ge 2 ] || usage; bench=$2; shift 2 ;;
	--experiments) [ $# -ge 2 ] || usage; experiments=$2; shift 2 ;;
	--seed) [ $# -ge 2 ] || usage; seed=$2; shift 2 ;;
	*) usage ;;
	esac
done
[[ $experiments =~ ^[1-9][0-9]{0,5}$ ]] || { echo "$0: --experiments: \"$experiments\" is not a whole number from 1 to 999999" >&2; exit 2; }
[[ $seed =~ ^[0-9]{1,18}$ ]] || { echo "$0: --seed: \"$seed\" is not a whole number" >&2; exit 2; }
[ -x "$bench" ] || { echo "$0: \"$bench\" is not an executable (make -C bench wal_stall_bench)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "$0: python3 is not installed" >&2; exit 1; }

# a private scratch directory, removed on any exit
work=$(mktemp -d "${TMPDIR:-/tmp}/wsb_verdict_study.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

python3 - "$bench" "$experiments" "$seed" "$work" <<'PY'
import math, os, random, re, subprocess, sys

bench, n, seed, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
LABELS = "abcdefgh"

def design(k, rounds):
    """The harness's design: pairs of rounds, the second the first
    reversed; the first rounds the Williams rows that begin mirror pairs,
    in a drawn order per cycle, the labels permuted."""
    first = [0] + [(j + 1) // 2 if j % 2 else k - j // 2 for j in range(1, k)]
    leads = list(range(k if k % 2 else k // 2))
    label = list(range(k))
    rng.shuffle(label)
    order, queue = [], []
    for r in range(rounds):
        if r % 2:
            order.append(order[-1][::-1])
            continue
        if not queue:
            queue = leads[:]
            rng.shuffle(queue)
        i = queue.pop()
        order.append([label[(f + i) % k] for f in first])
    return order

def experiment(truth, rounds, noise, drift):
    k = len(truth)
    rows, i = [], 0
    for r, row in enumerate(design(k, rounds)):
        for p, c in enumerate(row):
            lt = math.log(1000 * truth[c]) + drift * i + rng.gauss(0, noise)
            rows.append((LABELS[c], r + 1, p + 1, math.exp(lt)))
            i += 1
    return rows

def judge(rows, rounds, extra, looks=0):
    path = os.path.join(work, "e.csv")
    with open(path, "w") as f:
        f.write("configuration,round,position,tps,baseline" + (",budget_looks" if looks else "") + "\n")
        for lab, r, p, tps in rows:
            if r <= rounds:
                f.write("%s,%d,%d,%.4f,%s%s\n" % (lab, r, p, tps, "true" if lab == "a" else "false",
                                                  ",%d" % looks if looks else ""))
    out = subprocess.run([bench, "--judge", path] + extra, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("wal_stall_bench --judge failed: " + out.stderr.strip())
    words = {}
    for line in out.stdout.splitlines():
        m = re.match(r"^([a-h])\s+\S+ \[\S+, \S+\]\s+(.*)$", line)
        if m:
            words[m.group(1)] = m.group(2)
    return words

def share(hits):
    return "%5.1f%% (%d of %d)" % (100.0 * hits / n, hits, n)

directional = re.compile(r"^(faster|slower)")
for what, rounds, drift in (("drift 8%", 3, math.log(1.08)), ("drift 4%", 5, math.log(1.04))):
    hits = 0
    for _ in range(n):
        w = judge(experiment([1, 1], rounds, 0.02, drift), rounds, [])
        hits += bool(directional.match(w["b"]))
    print("%-9s A/A, 2 configurations, %d rounds, drift %s a run, noise 2%%: faster/slower in %s"
          % (what, rounds, what.split()[1], share(hits)))
hits = 0
for _ in range(n):
    w = judge(experiment([1, 1.1, 1.1, 1.1, 1.1], 6, 0.04, 0), 6, ["--margin", "10"])
    hits += any(w[c].startswith("equivalent") for c in "bcde")
print("edge      4 configurations each truly +10%%, margin 10%%, 6 rounds, noise 4%% a run: "
      "equivalent for any in %s" % share(hits))
for what, ratio, want in (("+10%", 1.1, "faster by >= 5%"), ("A/A", 1.0, "equivalent within +-5%")):
    hits = 0
    for _ in range(n):
        rows = experiment([1, ratio], 20, 0.05 / math.sqrt(2), 0)
        for r in range(3, 21):
            w = judge(rows, r, [], looks=18)["b"]
            if w.startswith(("faster by", "slower by", "equivalent")) or r == 20:
                break
        hits += w.startswith(want)
    print("budget    --budget of 20 rounds, %s at 5%% per-round noise: \"%s\" in %s" % (what, want, share(hits)))
PY
