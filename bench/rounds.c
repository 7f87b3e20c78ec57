/*-------------------------------------------------------------------------
 *
 * rounds.c
 *		wal_stall_bench: which run holds each configuration in each round.
 *
 * The judgement (verdict.c) and the machine's speed fit (speed.c) both
 * read runs by round: a round is complete when every configuration has a
 * successful run in it and none failed, and only complete rounds are
 * paired or fitted, so that every configuration is judged on the same
 * rounds.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <stdlib.h>
#include <string.h>

#include "wsb.h"
#include "verdict.h"

/* qsort's order of WsbRoundKey: round, configuration, then place */
int
wsb_cmp_round_key(const void *a, const void *b)
{
	const WsbRoundKey *x = a;
	const WsbRoundKey *y = b;

	if (x->round != y->round)
		return (x->round > y->round) - (x->round < y->round);
	if (x->config != y->config)
		return (x->config > y->config) - (x->config < y->config);
	return (x->at > y->at) - (x->at < y->at);
}

void
wsb_index_free(WsbRoundIndex *ix)
{
	free(ix->round);
	free(ix->idx);
	free(ix->complete);
	free(ix->failed);
	memset(ix, 0, sizeof(*ix));
}

/* The index of runs; false when out of memory, with *ix empty. */
bool
wsb_index_rounds(const WsbRoundRun *runs, int nruns, int nconfigs, WsbRoundIndex *ix)
{
	WsbRoundKey	   *keys = malloc(sizeof(WsbRoundKey) * (nruns > 0 ? nruns : 1));
	int			nkeys = 0,
				nc = nconfigs > 0 ? nconfigs : 1;

	memset(ix, 0, sizeof(*ix));
	if (keys == NULL)
		return false;
	for (int i = 0; i < nruns; i++)
		if (runs[i].round >= 1 && runs[i].config >= 0 && runs[i].config < nconfigs)
		{
			keys[nkeys].round = runs[i].round;
			keys[nkeys].config = runs[i].config;
			keys[nkeys].at = i;
			nkeys++;
		}
	/* runs in round order (results.csv's) need no sort: a round's runs
	 * need only be together */
	for (int i = 1; i < nkeys; i++)
		if (keys[i].round < keys[i - 1].round)
		{
			qsort(keys, nkeys, sizeof(WsbRoundKey), wsb_cmp_round_key);
			break;
		}
	for (int i = 0; i < nkeys; i++)
		ix->nrounds += i == 0 || keys[i].round != keys[i - 1].round;
	ix->round = malloc(sizeof(int) * (ix->nrounds + 1));
	ix->idx = malloc(sizeof(int) * ((size_t) ix->nrounds + 1) * nc);
	ix->complete = calloc(ix->nrounds + 1, sizeof(bool));
	ix->failed = calloc(ix->nrounds + 1, sizeof(bool));
	if (!ix->round || !ix->idx || !ix->complete || !ix->failed)
	{
		free(keys);
		wsb_index_free(ix);
		return false;
	}
	for (size_t i = 0; i < ((size_t) ix->nrounds + 1) * nc; i++)
		ix->idx[i] = -1;
	for (int i = 0, k = -1, have = 0; i < nkeys; i++)
	{
		const WsbRoundRun *x = &runs[keys[i].at];

		if (i == 0 || keys[i].round != keys[i - 1].round)
		{
			k++;
			ix->round[k] = keys[i].round;
			have = 0;
		}
		if (!x->ok)
			ix->failed[k] = true;
		/* two runs of one configuration in a round: the later one counts */
		if (ix->idx[k * nc + x->config] < 0)
			have++;
		ix->idx[k * nc + x->config] = keys[i].at;
		ix->complete[k] = have == nconfigs && !ix->failed[k];
	}
	free(keys);
	return true;
}

/* The rounds that occur in runs, ascending: whether each is complete and
 * whether a run failed in it.  The number of rounds (*out malloc'd), -1
 * when out of memory. */
int
wsb_round_states(const WsbRoundRun *runs, int nruns, int nconfigs, WsbRoundState **out)
{
	WsbRoundIndex	ix;
	int			n;

	*out = NULL;
	if (!wsb_index_rounds(runs, nruns, nconfigs, &ix))
		return -1;
	n = ix.nrounds;
	*out = malloc(sizeof(WsbRoundState) * (n > 0 ? n : 1));
	if (*out == NULL)
	{
		wsb_index_free(&ix);
		return -1;
	}
	for (int k = 0; k < ix.nrounds; k++)
	{
		(*out)[k].round = ix.round[k];
		(*out)[k].complete = ix.complete[k];
		(*out)[k].failed = ix.failed[k];
	}
	wsb_index_free(&ix);
	return n;
}

bool
wsb_round_complete(const WsbRoundRun *runs, int nruns, int nconfigs, int round)
{
	WsbRoundState *states;
	int			n = wsb_round_states(runs, nruns, nconfigs, &states);
	bool		c = false;

	for (int k = 0; k < n; k++)
		if (states[k].round == round)
			c = states[k].complete;
	free(states);
	return c;
}
