#!/bin/bash
# Mutations of cadence.c that test/unit/test_cadence.c must catch in its
# simulated collector, which drives cadence.c's entry points as collector.c
# does: each mutant is built into the test and must fail the simulation's
# checks (not only the unit checks of the rule it breaks).  Prints TAP.
#
#   test/unit/mutate_cadence.sh [WORKDIR]
#
# Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
n=0
failed=0

# mutate NAME SIMULATION-CHECK PYTHON-REPLACEMENT-FROM PYTHON-REPLACEMENT-TO
mutate() {
	local name=$1 sim_check=$2 from=$3 to=$4 mutant="$work/cadence_$1.c"
	n=$((n + 1))
	if ! FROM=$from TO=$to python3 - "$here/cadence.c" "$mutant" <<'PY'
import os, sys
s = open(sys.argv[1]).read()
if os.environ['FROM'] not in s:
    sys.exit(1)
open(sys.argv[2], 'w').write(s.replace(os.environ['FROM'], os.environ['TO']))
PY
	then
		echo "not ok $n - $name: the code to mutate is not in cadence.c"
		failed=$((failed + 1))
		return
	fi
	sed "s|#include \"../../cadence.c\"|#include \"$mutant\"|; s|#include \"../tap.h\"|#include \"$here/test/tap.h\"|" \
		"$here/test/unit/test_cadence.c" >"$work/test_$name.c"
	sed -i "s|#include \"cadence.h\"|#include \"$here/cadence.h\"|" "$mutant"
	if ! cc -O2 -o "$work/test_$name" "$work/test_$name.c" -lm; then
		echo "not ok $n - $name: the mutant does not build"
		failed=$((failed + 1))
		return
	fi
	"$work/test_$name" >"$work/test_$name.log" 2>&1
	if grep -q "^not ok .*$sim_check" "$work/test_$name.log"; then
		echo "ok $n - $name fails the simulation: $(grep -m1 "^not ok .*$sim_check" "$work/test_$name.log" | sed 's/^not ok [0-9]* - //')"
	else
		echo "not ok $n - $name passes the simulation's check \"$sim_check\""
		failed=$((failed + 1))
	fi
}

mutate burst_on_first_tick "runs of 4,000 waits of 0.2-0.6 ms" \
	'	if (!c->burst_armed)
	{
		c->burst_armed = true;
		return;
	}
' ''
mutate wrap_counted_in_burst "wrap-arounds," \
	'	if (c->classes[cls].by_count || rule->share[WS_COUNT_OUTSIDE] >= 1.0)' \
	'	if (rule->share[WS_COUNT_OUTSIDE] >= 1.0)'
mutate no_variance_from_cycles "steady waits: mean error" \
	'		c->pending_var[k] += burst_variance(' \
	'		c->pending_var[k] += 0 * burst_variance('

echo "$((n - failed)) passed, $failed failed"
[ $failed -eq 0 ]
