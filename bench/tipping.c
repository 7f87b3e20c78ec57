/*-------------------------------------------------------------------------
 *
 * tipping.c
 *		wal_stall_bench: the tipping point of a sweep over an ordered
 *		setting, and its sentence (tipping.h has the rule).  The CLOG
 *		report and the wal_buffers sweep both ask here.
 *
 * Only the judging side: values in memory, no server.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tipping.h"
#include "wsb.h"

/* The index of configuration label among those v judged, -1 if absent. */
int
wsb_tip_config(const WsbVerdicts *v, const char *label)
{
	for (int c = 0; v != NULL && c < v->table.nconfigs; c++)
		if (strcmp(v->table.labels[c], label) == 0)
			return c;
	return -1;
}

const WsbPaired *
wsb_tip_tps(const WsbVerdicts *v, const char *label)
{
	int			c = wsb_tip_config(v, label);

	return c < 0 ? NULL : &v->v[c * WSB_N_METRICS + WSB_M_TPS];
}

/* A value's place in the sweep: its value, NAN (last) without figures. */
static double
tip_key(const void *row)
{
	const WsbTipValue *v = row;

	return v->known ? v->value : NAN;
}

/* Sort by value, the values without figures last. */
void
wsb_tip_sort(WsbTipValue *v, int n)
{
	wsb_sort_by_key(v, n, sizeof(WsbTipValue), tip_key);
}

/*
 * The sweep's claim is one claim in a fixed order: from the largest value
 * down, each equivalent to the largest, stopping at the first that is not.
 * Such a sequence holds its error at the level of each test (a claim is
 * made only when every one before it held), so each value is tested by
 * itself at the look's alpha (WsbPaired.equiv_alone), not at the share
 * Holm gives it among configurations judged each for itself.
 */
static bool
tps_equivalent(const WsbTipValue *v)
{
	return v->tps != NULL && (v->tps->word == WSB_W_EQUIVALENT || v->tps->word == WSB_W_BASELINE ||
							  v->tps->equiv_alone);
}

/* "1MB [-9.7%, +4.3%]" for the values from..to, each at 1 - 2 alpha */
static void
sequence_clause(const WsbTipValue *v, int from, int to, char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (int i = to; i >= from && used < len; i--)
	{
		const WsbPaired *t = v[i].tps;

		if (t == NULL || !(t->low_alone > 0))
			continue;
		used += snprintf(buf + used, len - used, "%s%s [%+.1f%%, %+.1f%%]", used ? ", " : "",
						 v[i].name, 100 * (t->low_alone - 1), 100 * (t->high_alone - 1));
	}
}

/* The level the sequence's intervals are drawn at, as a percentage */
static double
sequence_level(const WsbTipValue *v, int from, int to)
{
	for (int i = from; i <= to; i++)
		if (v[i].tps != NULL && v[i].tps->alpha_used > 0)
			return 100 * (1 - 2 * v[i].tps->alpha_used);
	return NAN;
}

/*
 * wsb_tip_find
 *		On values sorted by wsb_tip_sort: the tipping value, the smallest
 *		from which on every value is settled and tps equivalent (known - 1,
 *		the largest itself, when no smaller one is), and where the stalls
 *		alone settle.  tip is -1 when there is no rule to apply: fewer than
 *		two values with figures, or the largest is not the baseline.
 */
WsbTip
wsb_tip_find(const WsbTipValue *v, int n)
{
	WsbTip		t = {0, -1, -1};

	while (t.known < n && v[t.known].known && !isnan(v[t.known].value))
		t.known++;
	if (t.known < 2 || !v[t.known - 1].baseline)
		return t;
	t.tip = t.known - 1;
	while (t.tip > 0 && v[t.tip - 1].settled && tps_equivalent(&v[t.tip - 1]))
		t.tip--;
	t.settled_from = t.known - 1;
	while (t.settled_from > 0 && v[t.settled_from - 1].settled)
		t.settled_from--;
	return t;
}

/*
 * Where tps cannot resolve what the stalls allow.  Losing stalls that take
 * a share s of the clients' time can gain at most s / (1 - s) of tps; over
 * the values from..to (below the largest), the most a larger value could
 * remove is the largest share beyond the largest value's.  When even the
 * narrowest undecided interval of those values reaches past that gain,
 * the rounds cannot show it: say so, else nothing.
 */
static void
bound_clause(const WsbTipSweep *s, const WsbTipValue *v, int from, int to,
			 const WsbTipValue *largest, char *buf, size_t len)
{
	const WsbTipValue *most = NULL,
			   *narrowest = NULL;
	double		share = 0,
				gain;

	buf[0] = '\0';
	for (int i = from; i <= to; i++)
	{
		const WsbPaired *t = v[i].tps;
		double		extra = v[i].stall_share - (isnan(largest->stall_share) ? 0 : largest->stall_share);

		if (isnan(v[i].stall_share))
			return;
		if (most == NULL || extra > share)
		{
			most = &v[i];
			share = extra > 0 ? extra : 0;
		}
		if (t && !t->decided && t->word != WSB_W_BASELINE && !isnan(t->low) && !isnan(t->high) &&
			(narrowest == NULL || t->high - t->low < narrowest->tps->high - narrowest->tps->low))
			narrowest = &v[i];
	}
	if (most == NULL || narrowest == NULL || share >= 1)
		return;
	gain = share / (1 - share);
	if (gain >= narrowest->tps->high - 1)
		return;
	snprintf(buf, len, " From %s on, the stalls %s would remove take at most %.1f%% of client time "
			 "(at %s): at most about %.1f%% of tps, inside even the narrowest interval %d rounds "
			 "give at this noise ([%+.1f%%, %+.1f%%] at %s).", v[from].name, s->larger,
			 100.0 * share, most->name, 100.0 * gain, narrowest->tps->rounds,
			 100.0 * (narrowest->tps->low - 1), 100.0 * (narrowest->tps->high - 1), narrowest->name);
}

/*
 * wsb_tip_sentence
 *		The tipping-point sentence of values sorted by wsb_tip_sort, into buf.
 */
void
wsb_tip_sentence(const WsbTipSweep *s, const WsbTipValue *v, int n, char *buf, size_t len)
{
	WsbTip		t = wsb_tip_find(v, n);
	const WsbTipValue *largest;
	char		bound[512],
				seq[320],
				how[480];

	if (t.known < 2)
	{
		snprintf(buf, len, "No tipping point: fewer than two %ss in the sweep with figures.", s->noun);
		return;
	}
	largest = &v[t.known - 1];
	if (t.tip < 0)
	{
		snprintf(buf, len, "No tipping point: tps is judged against the baseline (%.200s), and the "
				 "largest %s (%s) is not it; put the largest %s first.",
				 s->baseline_label, s->noun, largest->name, s->noun);
		return;
	}
	if (t.tip == t.known - 1)
	{
		const WsbTipValue *below = &v[t.known - 2];

		bound[0] = '\0';
		if (t.settled_from < t.known - 1)
			bound_clause(s, v, t.settled_from, t.known - 2, largest, bound, sizeof(bound));
		sequence_clause(v, t.known - 2, t.known - 2, seq, sizeof(seq));
		if (seq[0] != '\0')
			snprintf(how, sizeof(how), " even by itself (%s at %.4g%%)", seq,
					 sequence_level(v, t.known - 2, t.known - 2));
		else
			how[0] = '\0';
		if (t.settled_from < t.known - 1)
			snprintf(buf, len, "No %s in the sweep reaches the tipping point: from %s on %s (%s: %s; "
					 "%s: %s), but tps at %s is not shown equivalent within +-%g%%%s: %s.%s",
					 s->noun, v[t.settled_from].name, s->settled_rule, v[t.settled_from].name,
					 v[t.settled_from].stalls, largest->name, largest->stalls, below->name,
					 s->margin_pct, how, below->tps ? below->tps->words : "not judged", bound);
		else
			snprintf(buf, len, "No %s in the sweep reaches the tipping point: at %s, the next below "
					 "the largest (%s), %s against %s, and tps by rounds: %s.",
					 s->noun, below->name, largest->name, below->stalls, largest->stalls,
					 below->tps ? below->tps->words : "not judged");
		return;
	}
	sequence_clause(v, t.tip, t.known - 2, seq, sizeof(seq));
	if (seq[0] != '\0')
		snprintf(how, sizeof(how), " (each %s from the largest down, at %.4g%% while every larger "
				 "one holds: %s)", s->noun, sequence_level(v, t.tip, t.known - 2), seq);
	else
		how[0] = '\0';
	if (t.tip == 0)
	{
		snprintf(buf, len, "The tipping point on this machine is at or below %s, the smallest %s of "
				 "the sweep: from there on %s (%s: %s; %s: %s) and tps is equivalent within "
				 "+-%g%%%s; a smaller %s would tell where it lies.", v[0].name, s->noun,
				 s->settled_rule, v[0].name, v[0].stalls, largest->name, largest->stalls,
				 s->margin_pct, how, s->noun);
		return;
	}
	snprintf(buf, len, "The tipping point on this machine: %s.  From there on %s (%s: %s; %s: %s) "
			 "and tps is equivalent within +-%g%%%s; at %s, %s, and tps by rounds: %s.",
			 v[t.tip].name, s->settled_rule, v[t.tip].name, v[t.tip].stalls, largest->name,
			 largest->stalls, s->margin_pct, how, v[t.tip - 1].name, v[t.tip - 1].stalls,
			 v[t.tip - 1].tps ? v[t.tip - 1].tps->words : "not judged");
}
