/*-------------------------------------------------------------------------
 *
 * plan.c
 *		wal_stall_bench: the plan: the configurations (the cartesian product
 *		of the --set values) and the run order (rounds, each shuffled from
 *		the seed).
 *
 * Nothing here touches a server: these are pure functions, unit tested.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "expbuffer.h"

/* splitmix64: a small PRNG whose stream is the same on every platform, so
 * a seed names one run order everywhere */
static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * wsb_round_order
 *		The order of configurations in every round: each round a permutation
 *		drawn afresh (Fisher-Yates from the seed's stream), so that no
 *		configuration always runs first and each round's order is
 *		independent of the others'.  Independence matters: an earlier rule
 *		that kept a round from starting with the configuration the previous
 *		one ended with tied neighbouring rounds together, and under drift
 *		inside a round that made the paired t test read 8% false verdicts
 *		at 5% (test_unit_sim.c found it).  order has rounds x nconfigs
 *		entries.
 */
void
wsb_round_order(uint64_t seed, int nconfigs, int rounds, int *order)
{
	uint64_t	state = seed;

	for (int r = 0; r < rounds; r++)
	{
		int		   *p = order + r * nconfigs;

		for (int c = 0; c < nconfigs; c++)
			p[c] = c;
		for (int c = nconfigs - 1; c > 0; c--)
		{
			int			j = (int) (splitmix64(&state) % (uint64_t) (c + 1));
			int			t = p[c];

			p[c] = p[j];
			p[j] = t;
		}
	}
}

/*
 * The configurations: the cartesian product of the sets, the last set
 * varying fastest, so configs[0] takes every set's first value (the
 * baseline); the run order is rounds, each running every configuration
 * once in an order shuffled from the seed (wsb_round_order).
 */
int
wsb_make_plan(const WsbOptions *o, WsbPlan *plan, char *err, size_t errlen)
{
	long		n = 1;

	memset(plan, 0, sizeof(*plan));
	for (int i = 0; i < o->nsets; i++)
	{
		n *= o->sets[i].nvalues;
		if (n > WSB_MAX_CONFIGS)
		{
			snprintf(err, errlen, "the --set values make more than %d configurations", WSB_MAX_CONFIGS);
			return -1;
		}
	}
	plan->nconfigs = (int) n;
	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbConfig  *cf = &plan->configs[c];
		PQExpBufferData label;
		int			rest = c;

		cf->nsettings = o->nsets;
		for (int i = o->nsets - 1; i >= 0; i--)
		{
			int			v = rest % o->sets[i].nvalues;

			rest /= o->sets[i].nvalues;
			strcpy(cf->names[i], o->sets[i].name);
			strcpy(cf->values[i], o->sets[i].values[v]);
		}
		initPQExpBuffer(&label);
		for (int i = 0; i < o->nsets; i++)
		{
			bool		quote = cf->values[i][0] == '\0' || strchr(cf->values[i], ' ') ||
				strchr(cf->values[i], ',');

			appendPQExpBuffer(&label, quote ? "%s%s='%s'" : "%s%s=%s", i ? " " : "",
							  cf->names[i], cf->values[i]);
		}
		wsb_strlcpy(cf->label, label.len ? wsb_buffer_text(&label) : "as configured", sizeof(cf->label));
		termPQExpBuffer(&label);
	}
	plan->seed = o->seed;
	plan->margin_pct = o->margin_pct;
	plan->clients = o->clients;
	/* with --budget and no --runs the budget alone says when to stop */
	plan->nruns = plan->nconfigs *
		(o->budget_seconds > 0 && !o->runs_given ? WSB_BUDGET_MAX_ROUNDS : o->runs);
	plan->order = wsb_xmalloc(sizeof(int) * plan->nruns);
	wsb_round_order((uint64_t) o->seed, plan->nconfigs, plan->nruns / plan->nconfigs, plan->order);
	return 0;
}

void
wsb_plan_free(WsbPlan *plan)
{
	free(plan->order);
	plan->order = NULL;
}
