/*-------------------------------------------------------------------------
 *
 * plan.c
 *		wal_stall_bench: the plan: the configurations (the cartesian product
 *		of the --set values) and the run order (rounds in a balanced
 *		design drawn from the seed).
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

/* a permutation of 0 .. n-1 drawn from the stream (Fisher-Yates) */
static void
shuffle(uint64_t *state, int *p, int n)
{
	for (int c = 0; c < n; c++)
		p[c] = c;
	for (int c = n - 1; c > 0; c--)
	{
		int			j = (int) (splitmix64(state) % (uint64_t) (c + 1));
		int			t = p[c];

		p[c] = p[j];
		p[j] = t;
	}
}

/*
 * The first row of Williams' Latin square for k configurations: 0, 1,
 * k - 1, 2, k - 2, ...  Row i adds i to every entry (mod k).  Over its k
 * rows every configuration holds every place once, and for even k every
 * configuration runs right after every other once; each row's reverse is
 * row i + k/2.  For odd k the rows and their reverses together (2k rows)
 * give the same balance twice over.
 */
static void
williams_first_row(int k, int *row)
{
	for (int j = 0; j < k; j++)
		row[j] = j == 0 ? 0 : (j % 2 ? (j + 1) / 2 : k - j / 2);
}

/*
 * wsb_round_order
 *		The order of configurations in every round: a balanced design, taken
 *		in pairs of rounds, the second of each pair the first reversed.
 *		The first rounds of the pairs are the rows of Williams' square that
 *		begin its mirror pairs (k/2 rows for even k, all k for odd k), each
 *		cycle of them in an order drawn from the seed, and the labels of
 *		the configurations permuted by the seed once, so that the seed
 *		picks one of the balanced designs.  Over a whole cycle (k rounds
 *		for even k, 2k for odd) every configuration holds every place
 *		equally often and follows every other equally often, so that a
 *		drift inside rounds and the carryover of one run into the next
 *		cancel; inside every pair a linear drift cancels exactly.  With two
 *		configurations this is each round the previous one reversed.  The
 *		verdict takes the place as a covariate (verdict.c), which
 *		independent shuffles made necessary too: drift across a shuffled
 *		round turned into a bimodal noise the paired t test over-read (18%
 *		false verdicts at 5% with 8% a run over 3 rounds).  order has
 *		rounds x nconfigs entries.
 */
void
wsb_round_order(uint64_t seed, int nconfigs, int rounds, int *order)
{
	uint64_t	state = seed;
	int			k = nconfigs;
	int			nlead = k % 2 ? k : k / 2;
	int		   *label = wsb_xmalloc(sizeof(int) * (k > 0 ? k : 1));
	int		   *first = wsb_xmalloc(sizeof(int) * (k > 0 ? k : 1));
	int		   *lead = wsb_xmalloc(sizeof(int) * (nlead > 0 ? nlead : 1));

	if (k < 1)
		nlead = 0;
	williams_first_row(k, first);
	shuffle(&state, label, k);
	for (int r = 0, used = nlead; r < rounds; r++)
	{
		int		   *p = order + r * k;

		if (r % 2 == 1)
		{
			/* the second of a pair: the first reversed */
			const int  *prev = p - k;

			for (int c = 0; c < k; c++)
				p[c] = prev[k - 1 - c];
			continue;
		}
		if (used == nlead)
		{
			shuffle(&state, lead, nlead);
			used = 0;
		}
		for (int c = 0; c < k; c++)
			p[c] = label[(first[c] + lead[used]) % k];
		used++;
	}
	free(label);
	free(first);
	free(lead);
}

/*
 * The configurations: the cartesian product of the sets, the last set
 * varying fastest, so configs[0] takes every set's first value (the
 * baseline); the run order is rounds, each running every configuration
 * once, in a balanced design drawn from the seed (wsb_round_order).
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
