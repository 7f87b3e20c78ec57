/*-------------------------------------------------------------------------
 *
 * verdict.c
 *		wal_stall_bench: the verdict, with rounds as the unit.
 *
 * A round runs every configuration once, in a balanced order drawn from
 * the seed (plan.c: every second round the one before reversed, a
 * Williams design over more than two configurations).  The machine drifts
 * (page cache, table bloat, neighbours on a shared VM: +-30% over a
 * session here), but within one round every configuration meets much the
 * same machine.  So each configuration is compared with the baseline of
 * its own round: d_r = ln(x_r / base_r), and the rounds' d_r are the
 * sample.  Drift between rounds cancels in d_r; drift inside a round moves
 * d_r by its slope times x_r, the difference of the two runs' places,
 * which the balanced order spreads evenly around 0 and the fit takes out.
 *
 *	ratio		exp(mean d), the geometric mean of the per-round ratios;
 *				from WSB_PLACE_MIN_ROUNDS rounds with the places known,
 *				exp(e) of the fit d_r = e + b x_r (wsb_paired_fit): the
 *				ratio of two runs in the same place, each configuration
 *				with its own slope and its own noise
 *	interval	exp(e -+ t(1 - a/2, df) se), a paired t interval with
 *				rounds - 1 degrees of freedom, rounds - 2 when fitted
 *	several		Holm's step-down over the configurations, per metric: the
 *				configuration with the i-th smallest p (0-based, of k) is
 *				tested, and its interval drawn, at a / (k - i); a direction
 *				word needs the Holm-adjusted p below a as well
 *	margin		declared before the runs (--margin, default 5%):
 *				  whole interval above 1 + X        faster by >= X%
 *				  whole interval below 1 - X        slower by >= X%
 *				  90% interval inside (1-X, 1+X)    equivalent within +-X%
 *				     (two one-sided tests: TOST; Holm over the
 *				     configurations as for the directions, the one with
 *				     the i-th smallest TOST p at a / (k - i), its interval
 *				     at 1 - 2a / (k - i)); when the interval at level
 *				     also excludes 1, the words say both: "equivalent
 *				     within +-5%, 2.9% faster [+1.4%, +4.5%]"
 *				  interval above / below 1          faster / slower
 *				  otherwise                         inconclusive [a%, b%]:
 *				     N-M more rounds for 80% power at +-X% (at the plan's
 *				     level; N at the noise seen, M at its 80% upper bound)
 *				  under 2 complete rounds           too few rounds
 *				  (any of these, under the gate's rounds: too few
 *				     rounds for a verdict / for faster at L: needs N)
 *	gate		no word before the rounds can carry it: each word also
 *				needs an exact sign-flip test of the same log ratios
 *				(wsb_sign_flip_p; two-sided for a direction, one-sided
 *				against each end of the margin for equivalence) to reach
 *				the same level, Holm's share of the look's alpha, Holm
 *				stepping down on it too (gate_rounds).  Under the rounds
 *				at which it can (wsb_sign_flip_rounds: 5 for equivalence
 *				and 6 for a direction at 5%) the line says so:
 *				"too few rounds for a verdict at 5%: needs 5 (6 for
 *				faster or slower)"; over WSB_SIGN_FLIP_EXACT_MAX rounds
 *				the t interval judges alone
 *	rank test	from 6 rounds, Wilcoxon's signed-rank test beside the t
 *				interval, over every round (exact, enumerated, up to 200
 *				rounds; the normal approximation above): a check that one
 *				wild round does not carry the verdict; it does not change
 *				the words
 *	stalls		the same pairing for each stall class's share of the
 *				clients' time (stall ms / (clients x run ms)) and for its
 *				episode count; a share is floored at 1 ms of stall (the
 *				sampling interval: less is not measured) and a count at 1,
 *				so zeros have a ratio; words fewer / more / unchanged
 *				within +-X% / inconclusive, or "negligible in both" when
 *				the class's share stays under 1% of the clients' time in
 *				every paired round on both sides (WSB_NEGLIGIBLE_SHARE)
 *	limit		under a decided tps verdict, one sentence on what limits
 *				the configuration, from the stall class with the largest
 *				share: its share moved (the ring, the flushes...), or the
 *				same stall time came in fewer, longer waits (the WAL disk),
 *				or nothing moved it (wsb_limit_text)
 *	implied		the tps change the stalls alone imply: per round
 *				(1 - s_config) / (1 - s_base), s the share of client time in
 *				all stall classes (a client that waits a share s of its time
 *				has 1 - s left to commit in: flush waits falling from a
 *				quarter of the clients' time to none imply +33%); paired like
 *				the rest, no word of its own
 *	budget		with --budget the verdict is taken after every round from
 *				the third on, at most K times (K fixed from the budget before
 *				the first run, kept by --resume).  Look k tests at the
 *				nominal level of O'Brien-Fleming's Lan-DeMets spending with
 *				rounds as the information (spending.c): almost nothing
 *				early, nearly a at the last looks, and the chance of any
 *				false faster/slower over all looks stays under a
 *
 * A round with a failed run is left out of every paired figure; a traced
 * run (--validate) is left out of its pairs, since the tracer moves tps.
 * The statistics on plain numbers (the paired t p, Holm, the signed-rank
 * p, the rounds needed) are paired.c's; the judgement is here.
 * Everything here is pure and unit-tested (test_unit_verdict.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wsb.h"
#include "verdict.h"

const char *const wsb_stall_classes[WSB_N_STALL] = {
	"wal_buffer_full", "wal_flush", "wal_insert", "clog"
};

const char *
wsb_metric_name(WsbMetric m)
{
	static char names[WSB_N_METRICS][48];

	if (m == WSB_M_TPS)
		return "tps";
	if (m == WSB_M_P99)
		return "latency_p99";
	if (m == WSB_M_LONGEST)
		return "longest_stall";
	if (m == WSB_M_SHARE_ALL)
		return "stall_share";
	if (m == WSB_M_IMPLIED)
		return "tps_implied_by_stalls";
	if (names[m][0] == '\0')
	{
		if (m >= WSB_M_SHARE && m < WSB_M_SHARE + WSB_N_STALL)
			snprintf(names[m], sizeof(names[m]), "%s_share", wsb_stall_classes[m - WSB_M_SHARE]);
		else
			snprintf(names[m], sizeof(names[m]), "%s_episodes", wsb_stall_classes[m - WSB_M_EPISODES]);
	}
	return names[m];
}

/* The t interval at level (two-sided) of the fit's estimate, as ratios
 * (exp of the ends).  A point when the rounds show no spread; NAN without
 * df. */
static void
fit_interval(const WsbPairedFit *fit, double level, double *lo, double *hi)
{
	double		h;

	*lo = *hi = NAN;
	if (!(fit->df > 0) || isnan(fit->se) || !(level > 0 && level < 1))
		return;
	h = fit->se == 0 ? 0 : wsb_t_quantile((1 + level) / 2, fit->df) * fit->se;
	*lo = exp(fit->estimate - h);
	*hi = exp(fit->estimate + h);
}

static double
sum_stall(const WsbRoundRun *r)
{
	double		s = 0;

	for (int k = 0; k < WSB_N_STALL; k++)
		s += r->stall_ms[k];
	return s;
}

/*
 * The figure of metric m of run r, on the scale whose ratio is judged;
 * NAN when the run does not have it.  A share is stall ms / client ms,
 * floored below; counts are floored at 1, the longest stall at 1 ms (the
 * collector's grain: a run without a stall and one with a 1 ms stall are
 * the same to a client).
 */
static double
metric_value(const WsbRoundRun *r, WsbMetric m, double share_floor)
{
	if (m == WSB_M_TPS)
		return r->tps > 0 ? r->tps : NAN;
	if (m == WSB_M_P99)
		return r->latency_p99_ms > 0 ? r->latency_p99_ms : NAN;
	if (m == WSB_M_LONGEST)
		return isnan(r->longest_stall_ms) ? NAN : fmax(r->longest_stall_ms, 1.0);
	if (m >= WSB_M_SHARE && m <= WSB_M_SHARE_ALL)
	{
		double		ms = m == WSB_M_SHARE_ALL ? sum_stall(r) : r->stall_ms[m - WSB_M_SHARE];

		if (!(r->client_ms > 0) || isnan(ms))
			return NAN;
		return fmax(ms / r->client_ms, share_floor);
	}
	if (m >= WSB_M_EPISODES && m < WSB_M_EPISODES + WSB_N_STALL)
	{
		double		e = r->episodes[m - WSB_M_EPISODES];

		return isnan(e) ? NAN : fmax(e, 1.0);
	}
	/* implied: 1 - s, the share of client time not lost in stalls */
	{
		double		s = sum_stall(r);

		if (!(r->client_ms > 0) || isnan(s) || s >= r->client_ms)
			return NAN;
		return 1 - s / r->client_ms;
	}
}

static int
paired_logs(const WsbRoundRun *runs, const WsbRoundIndex *ix, int nconfigs, int config,
			WsbMetric metric, double *d, int *rounds_of, double *place)
{
	int			n = 0;

	for (int k = 0; k < ix->nrounds; k++)
	{
		const WsbRoundRun *b,
				   *x;
		double		vb,
					vx,
					floor;

		if (!ix->complete[k])
			continue;
		b = &runs[ix->idx[k * nconfigs]];
		x = &runs[ix->idx[k * nconfigs + config]];
		if (b->traced || x->traced)
			continue;
		/*
		 * one floor for both shares of a pair: 1 ms of stall in the shorter
		 * run's client time (the sampling interval: less is not measured),
		 * so that two runs without stalls compare as equal
		 */
		floor = 1.0 / fmin(b->client_ms, x->client_ms);
		vb = metric_value(b, metric, floor);
		vx = metric_value(x, metric, floor);
		if (isnan(vb) || isnan(vx))
			continue;
		d[n] = log(vx / vb);
		if (rounds_of)
			rounds_of[n] = ix->round[k];
		if (place)
			place[n] = b->position > 0 && x->position > 0 ? x->position - b->position : NAN;
		n++;
	}
	return n;
}

/*
 * The per-round log ratios of metric m, configuration config against the
 * baseline: complete rounds only, a pair with a traced run left out.  For
 * the implied change the ratio is (1 - s_config) / (1 - s_base).  d and
 * rounds_of (may be NULL) take up to the number of rounds; returns n.
 */
int
wsb_paired_logs(const WsbRoundRun *runs, int nruns, int nconfigs, int config,
				WsbMetric metric, double *d, int *rounds_of)
{
	WsbRoundIndex	ix;
	int			n;

	if (!wsb_index_rounds(runs, nruns, nconfigs, &ix))
		return 0;
	n = paired_logs(runs, &ix, nconfigs, config, metric, d, rounds_of, NULL);
	wsb_index_free(&ix);
	return n;
}

/*
 * The same log ratios with each pair's place difference in its round
 * (configuration's place minus the baseline's; NAN when a place is not
 * known), what the verdict fits (wsb_paired_fit).  Returns n.
 */
int
wsb_paired_places(const WsbRoundRun *runs, int nruns, int nconfigs, int config,
				  WsbMetric metric, double *d, double *place)
{
	WsbRoundIndex	ix;
	int			n;

	if (!wsb_index_rounds(runs, nruns, nconfigs, &ix))
		return 0;
	n = paired_logs(runs, &ix, nconfigs, config, metric, d, NULL, place);
	wsb_index_free(&ix);
	return n;
}

static void
pct_interval(char *buf, size_t len, double lo, double hi)
{
	snprintf(buf, len, "[%+.1f%%, %+.1f%%]", 100 * (lo - 1), 100 * (hi - 1));
}

/* a word's level as the line prints it: "5%", "2.5%", "0.43%" */
static void
level_text(char *buf, size_t len, double a)
{
	snprintf(buf, len, "%.2g%%", 100 * a);
}

/*
 * No word yet: the rounds fall short of needed, what the sign-flip test
 * needs to reach level a; lv gets the level as the words print it.
 */
static void
mark_too_few(WsbPaired *v, double a, int needed, char *lv, size_t lvlen)
{
	level_text(lv, lvlen, a);
	v->word = WSB_W_TOO_FEW;
	v->decided = false;
	v->more_rounds = needed - v->rounds;
}

/*
 * Too few rounds for any word: the rounds the sign-flip test needs to
 * reach equivalence's level (one-sided), and a direction's (two-sided)
 * when that needs more.  No interval: one from 2 df promises what the
 * rounds cannot carry.
 */
static void
too_few_for_any(WsbPaired *v, double a_eq, const char *dirs)
{
	char		lv[32];

	mark_too_few(v, a_eq, v->rounds_equiv, lv, sizeof(lv));
	if (v->rounds_dir > v->rounds_equiv)
		snprintf(v->words, sizeof(v->words), "too few rounds for a verdict at %s: needs %d (%d for %s)",
				 lv, v->rounds_equiv, v->rounds_dir, dirs);
	else
		snprintf(v->words, sizeof(v->words), "too few rounds for a verdict at %s: needs %d",
				 lv, v->rounds_equiv);
}

/* The interval points one way, but a direction needs more rounds. */
static void
too_few_for_direction(WsbPaired *v, double a_dir, const char *dir)
{
	char		lv[32];

	mark_too_few(v, a_dir, v->rounds_dir, lv, sizeof(lv));
	snprintf(v->words, sizeof(v->words), "too few rounds for %s at %s: needs %d", dir, lv,
			 v->rounds_dir);
}

/* The rounds to add for need in all, at least the gate's; -1 for none */
static int
rounds_to_add(const WsbPaired *v, int need, int gate)
{
	if (need < 0)
		return -1;
	need = need > gate ? need : gate;
	return need > v->rounds ? need - v->rounds : 1;
}

/*
 * An inconclusive tps line and the rounds it needs, aiming at whichever
 * decision the estimate m points to: beyond the margin, the direction by
 * it (its tail tail_dir), else equivalence (tail_equiv), both at the
 * plan's level.  A plug-in at the noise seen decides only half the time
 * and few rounds' sd is often under the machine's, so the line gives a
 * range for WSB_PLAN_POWER: at the noise seen, and at its upper
 * confidence bound (wsb_sd_upper); e.g. "6-11 more rounds for 80% power
 * at +-10%".
 */
static void
inconclusive_words(WsbPaired *v, double m, double sd, double up, double dn, double tail_dir,
				   double tail_equiv, const char *mtext)
{
	bool		dir = m >= up || m <= dn;
	double		dist = m >= up ? m - up : (m <= dn ? dn - m : fmin(up - m, m - dn));
	double		tail = dir ? tail_dir : tail_equiv;
	int			gate = dir ? v->rounds_dir : v->rounds_equiv;
	int			lost = (int) lround(v->rounds - v->df);
	double		sd_hi = wsb_sd_upper(sd, v->df, WSB_NOISE_UPPER_CONF);
	int			lo = rounds_to_add(v, wsb_rounds_needed(sd, dist, tail, WSB_PLAN_POWER, lost), gate),
				hi = rounds_to_add(v, wsb_rounds_needed(sd_hi, dist, tail, WSB_PLAN_POWER, lost), gate);
	char		iv[64],
				n[64];

	v->word = WSB_W_INCONCLUSIVE;
	v->more_rounds_low = lo;
	v->more_rounds = hi;
	pct_interval(iv, sizeof(iv), v->low, v->high);
	if (lo < 0)
		snprintf(n, sizeof(n), "over %d more rounds", WSB_ROUNDS_NEEDED_MAX);
	else if (hi < 0)
		snprintf(n, sizeof(n), "%d to over %d more rounds", lo, WSB_ROUNDS_NEEDED_MAX);
	else if (lo == hi)
		snprintf(n, sizeof(n), "%d more round%s", lo, lo == 1 ? "" : "s");
	else
		snprintf(n, sizeof(n), "%d-%d more rounds", lo, hi);
	snprintf(v->words, sizeof(v->words), "inconclusive %s: %s for %.0f%% power at +-%s%%", iv, n,
			 100 * WSB_PLAN_POWER, mtext);
}

/*
 * The words of a figure judged against the margin, by the direction of its
 * ratio: tps is faster or slower, a latency rose or fell.
 */
typedef struct MarginWords
{
	WsbWord		up_by,
				down_by,
				up,
				down;
	const char *up_text,
			   *down_text,
			   *either;			/* for "too few rounds ... for faster or slower" */
} MarginWords;

static const MarginWords tps_words_of = {
	WSB_W_FASTER_BY, WSB_W_SLOWER_BY, WSB_W_FASTER, WSB_W_SLOWER,
	"faster", "slower", "faster or slower"
};

static const MarginWords latency_words_of = {
	WSB_W_ROSE_BY, WSB_W_FELL_BY, WSB_W_ROSE, WSB_W_FELL,
	"rose", "fell", "a rise or a fall"
};

/*
 * The words for tps or a latency (see the header), and for an inconclusive
 * result the rounds still needed: judged from the observed mean m and
 * spread sd of the log ratios, aiming at whichever decision the estimate
 * points to.  A direction needs v->rounds_dir rounds and equivalence
 * v->rounds_equiv (the reach of the sign-flip test at a_dir, a_eq),
 * whatever the t interval says.
 */
static void
margin_words(WsbPaired *v, const MarginWords *w, double margin, double tail_dir,
			 double tail_equiv, double m, double sd, const char *mtext, double a_dir,
			 double a_eq)
{
	double		up = log(1 + margin),
				dn = log(1 - margin);
	bool		dir_reach = v->rounds >= v->rounds_dir,
				eq_reach = v->rounds >= v->rounds_equiv,
				dir_ok = dir_reach && v->flip_dir_ok,
				eq_ok = eq_reach && v->flip_equiv_ok,
				above = v->low > 1 && v->p_holm < v->alpha_used,
				below = v->high < 1 && v->p_holm < v->alpha_used;

	v->decided = false;
	if (dir_ok && above && v->low > 1 + margin)
	{
		v->word = w->up_by;
		snprintf(v->words, sizeof(v->words), "%s by >= %s%%", w->up_text, mtext);
		v->decided = true;
	}
	else if (dir_ok && below && v->high < 1 - margin)
	{
		v->word = w->down_by;
		snprintf(v->words, sizeof(v->words), "%s by >= %s%%", w->down_text, mtext);
		v->decided = true;
	}
	else if (eq_ok && v->p_equiv_holm < v->alpha_used)
	{
		v->word = WSB_W_EQUIVALENT;
		v->decided = true;
		if (dir_ok && (above || below))
		{
			char		iv[64];

			/* inside the margin, and which way: both, or the words hide it */
			pct_interval(iv, sizeof(iv), v->low, v->high);
			snprintf(v->words, sizeof(v->words), "equivalent within +-%s%%, %.1f%% %s %s", mtext,
					 100 * fabs(v->ratio - 1), above ? w->up_text : w->down_text, iv);
		}
		else if (v->low90 != v->low || v->high90 != v->high)
		{
			char		iv[64];

			/*
			 * the interval that decided it, beside the wider one the line
			 * shows, which may reach past the margin
			 */
			pct_interval(iv, sizeof(iv), v->low90, v->high90);
			snprintf(v->words, sizeof(v->words), "equivalent within +-%s%%: %s at %.3g%%", mtext, iv,
					 100 * v->level90);
		}
		else
			snprintf(v->words, sizeof(v->words), "equivalent within +-%s%%", mtext);
	}
	else if (dir_ok && above)
	{
		v->word = w->up;
		snprintf(v->words, sizeof(v->words), "%s", w->up_text);
	}
	else if (dir_ok && below)
	{
		v->word = w->down;
		snprintf(v->words, sizeof(v->words), "%s", w->down_text);
	}
	else if (!eq_reach)
		too_few_for_any(v, a_eq, w->either);
	else if ((above || below) && !dir_reach)
		too_few_for_direction(v, a_dir, above ? w->up_text : w->down_text);
	else
		inconclusive_words(v, m, sd, up, dn, tail_dir, tail_equiv, mtext);
}

/*
 * The words for a stall share or count: fewer / more / unchanged /
 * inconclusive, each behind the same gate of rounds as tps's words.
 */
static void
stall_words(WsbPaired *v, const char *mtext, double a_dir, double a_eq)
{
	char		iv[64];
	bool		dir_reach = v->rounds >= v->rounds_dir,
				eq_reach = v->rounds >= v->rounds_equiv,
				dir_ok = dir_reach && v->flip_dir_ok,
				eq_ok = eq_reach && v->flip_equiv_ok,
				above = v->low > 1 && v->p_holm < v->alpha_used,
				below = v->high < 1 && v->p_holm < v->alpha_used;

	v->decided = true;
	if (dir_ok && below)
	{
		v->word = WSB_W_FEWER;
		snprintf(v->words, sizeof(v->words), "fewer");
	}
	else if (dir_ok && above)
	{
		v->word = WSB_W_MORE;
		snprintf(v->words, sizeof(v->words), "more");
	}
	else if (eq_ok && v->p_equiv_holm < v->alpha_used)
	{
		v->word = WSB_W_UNCHANGED;
		snprintf(v->words, sizeof(v->words), "unchanged within +-%s%%", mtext);
	}
	else if (!eq_reach)
		too_few_for_any(v, a_eq, "fewer or more");
	else if ((above || below) && !dir_reach)
		too_few_for_direction(v, a_dir, below ? "fewer" : "more");
	else
	{
		v->decided = false;
		v->word = WSB_W_INCONCLUSIVE;
		pct_interval(iv, sizeof(iv), v->low, v->high);
		snprintf(v->words, sizeof(v->words), "inconclusive %s", iv);
	}
}

/*
 * The share of the clients' time in stall class k (WSB_N_STALL: all
 * classes) of run r; NAN when the run lacks it.
 */
static double
run_share(const WsbRoundRun *r, int k)
{
	double		ms = k == WSB_N_STALL ? sum_stall(r) : r->stall_ms[k];

	if (!(r->client_ms > 0) || isnan(ms))
		return NAN;
	return ms / r->client_ms;
}

/*
 * Over the rounds config is paired with the baseline in: the median share
 * of class k (WSB_N_STALL: all) on each side, and the largest share either
 * side had.  Returns the number of pairs, 0 when none has the figure.
 */
static int
paired_shares(const WsbRoundRun *runs, const WsbRoundIndex *ix, int nconfigs, int config,
			  int k, double *base_median, double *config_median, double *largest)
{
	double	   *b = wsb_xmalloc(sizeof(double) * (ix->nrounds + 1));
	double	   *x = wsb_xmalloc(sizeof(double) * (ix->nrounds + 1));
	int			n = 0;

	*base_median = *config_median = NAN;
	*largest = 0;
	for (int r = 0; r < ix->nrounds; r++)
	{
		const WsbRoundRun *rb,
				   *rx;

		if (!ix->complete[r])
			continue;
		rb = &runs[ix->idx[r * nconfigs]];
		rx = &runs[ix->idx[r * nconfigs + config]];
		if (rb->traced || rx->traced)
			continue;
		b[n] = run_share(rb, k);
		x[n] = run_share(rx, k);
		if (isnan(b[n]) || isnan(x[n]))
			continue;
		*largest = fmax(*largest, fmax(b[n], x[n]));
		n++;
	}
	if (n > 0)
	{
		*base_median = wsb_median(b, n);
		*config_median = wsb_median(x, n);
	}
	free(b);
	free(x);
	return n;
}

/* Share metric m's class (WSB_N_STALL for the share of all classes);
 * -1 when m is no share. */
static int
share_class(WsbMetric m)
{
	if (m >= WSB_M_SHARE && m <= WSB_M_SHARE_ALL)
		return m - WSB_M_SHARE;
	if (m >= WSB_M_EPISODES && m < WSB_M_EPISODES + WSB_N_STALL)
		return m - WSB_M_EPISODES;
	return -1;
}

/* what a class's waits are on, for the limit's sentence */
static const char *const class_limit[WSB_N_STALL] = {
	"the ring: wrap-around time",
	"WAL flushes: the clients' flush waits",
	"WAL insertion: the insert lock waits",
	"the CLOG: its waits"
};

/* who sets the pace when a class's waits merely change their grain */
static const char *const class_pace[WSB_N_STALL] = {
	"the WAL disk's write rate, not the ring, limits both",
	"the WAL disk's flush rate limits both",
	"the insert locks limit both alike",
	"the CLOG's reads limit both alike"
};

static void
pct(char *buf, size_t len, double share)
{
	snprintf(buf, len, share >= 0.0095 || share == 0 ? "%.0f%%" : "%.1f%%", 100 * share);
}

/*
 * A tps verdict that says which way the configuration went: decided by the
 * margin (or equivalent within it), or faster / slower by an amount the
 * rounds cannot yet put beyond the margin.  Such a verdict gets the limit
 * line; the budget goes on counting only the decided ones.
 */
bool
wsb_tps_settled(const WsbPaired *v)
{
	return v->decided || v->word == WSB_W_FASTER || v->word == WSB_W_SLOWER;
}

/*
 * One sentence on what limits configuration config against the baseline,
 * from the stalls measured in the rounds they are paired in; v is config's
 * WSB_N_METRICS entries, judged.  The class with the largest share on
 * either side speaks: when its share moved, the sentence says from what to
 * what ("the ring: wrap-around time fell from 26% to 2% of client time");
 * when it did not but its episodes did, the same stall time came in
 * fewer, longer waits (or more, shorter ones), and what paces both is
 * what the waits wait on ("... the WAL disk's write rate, not the ring,
 * limits both"); when neither moved, that class limits both alike.  Every
 * class under the floor in both: the limit is not a WAL or CLOG stall.
 * *kind says which of these the sentence is and *cls the class it names
 * (-1 none), so that the answer (answer.c) need not read the sentence.
 * With labels each figure names its configuration ("26% with 32kB"); NULL
 * leaves them unnamed.
 */
void
wsb_limit_text(const WsbRoundRun *runs, int nruns, int nconfigs, int config,
			   const WsbPaired *v, const char *base_label, const char *label,
			   char *buf, size_t len, WsbLimitKind *kind, int *cls)
{
	WsbRoundIndex	ix;
	double		base[WSB_N_STALL],
				cfg[WSB_N_STALL],
				top = 0,
				largest;
	int			k = -1;
	bool		all_negligible = true;
	char		a[80],
				b[80];

	buf[0] = '\0';
	*kind = WSB_L_NONE;
	*cls = -1;
	if (!wsb_index_rounds(runs, nruns, nconfigs, &ix))
		return;
	for (int c = 0; c < WSB_N_STALL; c++)
	{
		if (paired_shares(runs, &ix, nconfigs, config, c, &base[c], &cfg[c], &largest) == 0)
			continue;
		all_negligible &= v[WSB_M_SHARE + c].word == WSB_W_NEGLIGIBLE;
		if (k < 0 || fmax(base[c], cfg[c]) > top)
		{
			k = c;
			top = fmax(base[c], cfg[c]);
		}
	}
	wsb_index_free(&ix);
	*kind = WSB_L_UNMEASURED;
	if (k < 0)
	{
		snprintf(buf, len, "no stall figures in these rounds: what limits it is not measured");
		return;
	}
	pct(a, sizeof(a), base[k]);
	pct(b, sizeof(b), cfg[k]);
	/* the unit once, on the first figure: "26% of client time with 32kB, 0.4% with 1MB" */
	snprintf(a + strlen(a), sizeof(a) - strlen(a), " of client time");
	/* each figure with the configuration it is of, when they have names */
	if (base_label && label)
	{
		snprintf(a + strlen(a), sizeof(a) - strlen(a), " with %.*s", 48, base_label);
		snprintf(b + strlen(b), sizeof(b) - strlen(b), " with %.*s", 48, label);
	}
	*cls = k;
	if (all_negligible || v[WSB_M_SHARE_ALL].word == WSB_W_NEGLIGIBLE)
	{
		*kind = WSB_L_NOT_STALL;
		*cls = -1;
		snprintf(buf, len, "not a WAL or CLOG stall: every class under 1%% of client time in both");
	}
	else if (v[WSB_M_SHARE + k].word == WSB_W_FEWER || v[WSB_M_SHARE + k].word == WSB_W_MORE)
	{
		*kind = WSB_L_MOVED;
		snprintf(buf, len, "%s %s from %s to %s", class_limit[k],
				 v[WSB_M_SHARE + k].word == WSB_W_FEWER ? "fell" : "rose", a, b);
	}
	else if (v[WSB_M_EPISODES + k].word == WSB_W_FEWER || v[WSB_M_EPISODES + k].word == WSB_W_MORE)
	{
		double		r = v[WSB_M_EPISODES + k].ratio;
		bool		fewer = v[WSB_M_EPISODES + k].word == WSB_W_FEWER;
		double		times = fewer ? 1 / r : r;

		*kind = WSB_L_GRAIN;
		snprintf(buf, len, "%s stall time (%s, %s) in %.*fx %s %s waits: %s",
				 v[WSB_M_SHARE + k].word == WSB_W_UNCHANGED ? "the same" : "about the same",
				 a, b, times < 10 ? 1 : 0, times, fewer ? "fewer," : "more,",
				 fewer ? "longer" : "shorter", class_pace[k]);
	}
	else if (v[WSB_M_SHARE + k].word == WSB_W_UNCHANGED)
	{
		*kind = WSB_L_SAME;
		snprintf(buf, len, "%s: %s and %s, unchanged, in as many waits: it limits both alike",
				 wsb_stall_classes[k], a, b);
	}
	else
	{
		*kind = WSB_L_UNTOLD;
		snprintf(buf, len, "%s takes most stall time (%s, %s); the rounds do not "
				 "tell how it changed", wsb_stall_classes[k], a, b);
	}
}

/*
 * The limit line of every configuration whose tps verdict is settled, into
 * its tps entry of out (judged); labels name the figures' configurations
 * ([0] the baseline), NULL leaves them unnamed.  wsb_judge_rounds makes
 * them unnamed; who has the names makes them again with them.
 */
void
wsb_limit_lines(const WsbRoundRun *runs, int nruns, int nconfigs, const char (*labels)[1024],
				WsbPaired *out)
{
	for (int c = 1; c < nconfigs; c++)
	{
		WsbPaired  *t = &out[c * WSB_N_METRICS + WSB_M_TPS];

		t->limit[0] = '\0';
		t->limit_kind = WSB_L_NONE;
		t->limit_class = -1;
		if (wsb_tps_settled(t))
			wsb_limit_text(runs, nruns, nconfigs, c, &out[c * WSB_N_METRICS],
						   labels ? labels[0] : NULL, labels ? labels[c] : NULL, t->limit,
						   sizeof(t->limit), &t->limit_kind, &t->limit_class);
	}
}

/*
 * Which metrics some run may have, from one pass over the runs: a figure
 * no run has needs no pass over the rounds.  A metric marked present may
 * still pair no round; one marked absent pairs none.
 */
static void
figures_present(const WsbRoundRun *runs, int nruns, bool *present)
{
	bool		tps = false,
				p99 = false,
				longest = false,
				client = false,
				stall[WSB_N_STALL] = {false},
				episodes[WSB_N_STALL] = {false},
				every_stall = true;

	for (int i = 0; i < nruns; i++)
	{
		tps |= runs[i].tps > 0;
		p99 |= runs[i].latency_p99_ms > 0;
		longest |= !isnan(runs[i].longest_stall_ms);
		client |= runs[i].client_ms > 0;
		for (int k = 0; k < WSB_N_STALL; k++)
		{
			stall[k] |= !isnan(runs[i].stall_ms[k]);
			episodes[k] |= !isnan(runs[i].episodes[k]);
		}
	}
	present[WSB_M_TPS] = tps;
	present[WSB_M_P99] = p99;
	present[WSB_M_LONGEST] = longest;
	for (int k = 0; k < WSB_N_STALL; k++)
	{
		present[WSB_M_SHARE + k] = client && stall[k];
		present[WSB_M_EPISODES + k] = episodes[k];
		every_stall &= stall[k];
	}
	present[WSB_M_SHARE_ALL] = present[WSB_M_IMPLIED] = client && every_stall;
}

/*
 * A round the carryover is fitted on: complete, no traced run, and every
 * configuration in a known place, one to a place.
 */
static bool
round_places_known(const WsbRoundRun *runs, const WsbRoundIndex *ix, int nconfigs, int k)
{
	unsigned long long seen = 0;

	if (!ix->complete[k])
		return false;
	for (int c = 0; c < nconfigs; c++)
	{
		const WsbRoundRun *x = &runs[ix->idx[k * nconfigs + c]];

		if (x->traced || x->position < 1 || x->position > nconfigs ||
			(seen & (1ULL << (x->position - 1))))
			return false;
		seen |= 1ULL << (x->position - 1);
	}
	return true;
}

/*
 * The carryover of each configuration into the run after it, on tps: the
 * log tps of every run fitted on its round (the fit is within rounds), its
 * configuration, its place, whether it opens its round, and which
 * configuration ran just before it in the round; the carryover of c is how
 * a run after c compares with one after the baseline.  Into v[c] (c's
 * tps entry) as a ratio and 95% interval; NAN when the design cannot tell
 * carryover from the place, as with two configurations, whose runs in the
 * second place always follow the other one.
 */
static void
fit_carryover(const WsbRoundRun *runs, const WsbRoundIndex *ix, int nconfigs, WsbPaired *out)
{
	int			p = 2 * nconfigs,
				n = 0,
				rounds = 0;
	double	   *x,
			   *y,
			   *xtx,
			   *xty,
			   *beta,
			   *se,
				yty = 0,
				df;

	for (int c = 1; c < nconfigs; c++)
	{
		WsbPaired  *v = &out[c * WSB_N_METRICS + WSB_M_TPS];

		v->carryover = v->carryover_low = v->carryover_high = NAN;
	}
	if (nconfigs < 3)
		return;
	/* one round's rows at a time, summed into the normal equations */
	x = wsb_xmalloc(sizeof(double) * nconfigs * p);
	y = wsb_xmalloc(sizeof(double) * nconfigs);
	xtx = wsb_xcalloc((size_t) p * p, sizeof(double));
	xty = wsb_xcalloc(p, sizeof(double));
	beta = wsb_xmalloc(sizeof(double) * p);
	se = wsb_xmalloc(sizeof(double) * p);
	for (int k = 0; k < ix->nrounds; k++)
	{
		int			at[64];		/* the run in each place */

		if (!round_places_known(runs, ix, nconfigs, k))
			continue;
		for (int c = 0; c < nconfigs; c++)
			at[runs[ix->idx[k * nconfigs + c]].position - 1] = ix->idx[k * nconfigs + c];
		for (int q = 0; q < nconfigs; q++)
		{
			const WsbRoundRun *r = &runs[at[q]];
			double	   *row = x + q * p;

			memset(row, 0, sizeof(double) * p);
			y[q] = log(r->tps);
			if (r->config > 0)
				row[r->config - 1] = 1;
			row[nconfigs - 1] = q + 1;
			row[nconfigs] = q == 0;
			if (q > 0 && runs[at[q - 1]].config > 0)
				row[nconfigs + runs[at[q - 1]].config] = 1;
		}
		/* within the round: each column and y less its round's mean */
		for (int j = 0; j <= p; j++)
		{
			double		s = 0;

			for (int q = 0; q < nconfigs; q++)
				s += j < p ? x[q * p + j] : y[q];
			for (int q = 0; q < nconfigs; q++)
				*(j < p ? &x[q * p + j] : &y[q]) -= s / nconfigs;
		}
		for (int q = 0; q < nconfigs; q++)
		{
			for (int i = 0; i < p; i++)
			{
				for (int j = 0; j < p; j++)
					xtx[i * p + j] += x[q * p + i] * x[q * p + j];
				xty[i] += x[q * p + i] * y[q];
			}
			yty += y[q] * y[q];
		}
		n += nconfigs;
		rounds++;
	}
	if (wsb_least_squares(xtx, xty, yty, n, p, rounds, beta, se, &df))
		for (int c = 1; c < nconfigs; c++)
		{
			WsbPaired  *v = &out[c * WSB_N_METRICS + WSB_M_TPS];
			double		b = beta[nconfigs + c],
						h = wsb_t_quantile(0.975, df) * se[nconfigs + c];

			v->carryover = exp(b);
			v->carryover_low = exp(b - h);
			v->carryover_high = exp(b + h);
		}
	free(x);
	free(y);
	free(xtx);
	free(xty);
	free(beta);
	free(se);
}

/*
 * The sign-flip gate, at Holm's share of alpha for each configuration's
 * rank (two-sided for a direction, one-sided for each side of an
 * equivalence): need[c], the rounds at which the test can reach that
 * share (at[c]), and ok[c], whether its p (flip_p[c], NAN: not computed,
 * the t test alone) does.  Holm steps down: once a configuration fails
 * its share, every one after it in the order fails too and needs as many
 * rounds at that share, so that the words stay a subset of what Holm
 * allows on the t test and on the sign-flip test alike.  rounds[c] the
 * pairs c has.
 */
static void
gate_rounds(const int *rank, const int *rounds, const double *flip_p, int nconfigs, int k,
			double a, bool two_sided, int *need, double *at, bool *ok)
{
	int			running = 0;
	double		running_at = a;
	bool		blocked = false;

	for (int c = 1; c < nconfigs; c++)
	{
		need[c] = wsb_sign_flip_rounds(a, two_sided);
		at[c] = a;
		ok[c] = false;
	}
	for (int i = 0; i < k; i++)
		for (int c = 1; c < nconfigs; c++)
			if (rank[c] == i)
			{
				double		share = a / (k - i);

				need[c] = wsb_sign_flip_rounds(share, two_sided);
				at[c] = share;
				if (running > need[c])
				{
					need[c] = running;
					at[c] = running_at;
				}
				if (rounds[c] < need[c])
				{
					running = need[c];
					running_at = at[c];
				}
				blocked |= rounds[c] < need[c] || flip_p[c] > share;
				ok[c] = !blocked;
			}
}

/*
 * Equivalence of one configuration by itself, at the look's whole alpha
 * a: the TOST p and the sign-flip gate (its rounds, and its p where it is
 * counted) without Holm's shares.  What a fixed sequence of claims tests
 * (tipping.c), where Holm's family does not apply.
 */
static bool
equivalent_alone(const WsbPaired *v, double a)
{
	return v->p_equiv < a && v->rounds >= wsb_sign_flip_rounds(a, false) &&
		(isnan(v->flip_p_equiv) || v->flip_p_equiv <= a);
}

/*
 * A slope fitted on the same runs (the machine's speed): one more
 * parameter on the residuals than fit counted, the same sum of squares
 * over one degree of freedom fewer, and the slope's own error in the
 * estimate, var (its variance times the configuration's mean gap in the
 * gauge's readings, squared).
 */
static void
fit_add_slope(WsbPairedFit *fit, double var)
{
	double		widen = sqrt(fit->df / (fit->df - 1));

	fit->sd *= widen;
	fit->se = sqrt(fit->se * widen * fit->se * widen + (isnan(var) ? 0 : var));
	fit->df -= 1;
}

/*
 * Judge every configuration against the baseline on every metric, from the
 * complete rounds.  out[c * WSB_N_METRICS + m]; the baseline's entries say
 * "baseline".  speed_var: NULL, or tps was moved for the machine's speed
 * (speed.c) by a slope fitted on these rounds, which each tps interval
 * pays for with a degree of freedom and with the slope's error,
 * speed_var[c], the variance it adds to c's log ratio.
 */
static void
judge_rounds(const WsbRoundRun *runs, int nruns, int nconfigs,
			 const WsbJudgeSpec *spec, const double *speed_var, WsbPaired *out)
{
	double	   *d,
			   *place,
			   *p,
			   *adj,
			   *peq,
			   *adjeq;
	WsbPairedFit *fit;
	int		   *rank,
			   *rankeq,
			   *tps_rounds,
			   *npairs,
			   *need_dir,
			   *need_eq;
	double	   *flip,
			   *flipeq,
			   *at_dir,
			   *at_eq;
	bool	   *ok_dir,
			   *ok_eq;
	bool		present[WSB_N_METRICS];	/* some run has the figure */
	WsbRoundIndex	ix;
	double		a = spec->alpha;
	/* the level the rounds still needed are planned at: with --budget
	 * its last look's, what a later look will test at */
	double		a_plan = spec->nlooks > 0 ? wsb_look_alpha(0.05, spec->nlooks, spec->nlooks) : a;
	double		margin = spec->margin_pct / 100;
	char		mtext[32];

	snprintf(mtext, sizeof(mtext), "%g", spec->margin_pct);
	if (!wsb_index_rounds(runs, nruns, nconfigs, &ix))
		return;
	d = calloc(ix.nrounds + 1, sizeof(double));
	place = calloc(ix.nrounds + 1, sizeof(double));
	p = calloc(nconfigs + 1, sizeof(double));
	adj = calloc(nconfigs + 1, sizeof(double));
	peq = calloc(nconfigs + 1, sizeof(double));
	adjeq = calloc(nconfigs + 1, sizeof(double));
	fit = calloc(nconfigs + 1, sizeof(WsbPairedFit));
	rank = calloc(nconfigs + 1, sizeof(int));
	rankeq = calloc(nconfigs + 1, sizeof(int));
	tps_rounds = calloc(nconfigs + 1, sizeof(int));
	npairs = calloc(nconfigs + 1, sizeof(int));
	need_dir = calloc(nconfigs + 1, sizeof(int));
	need_eq = calloc(nconfigs + 1, sizeof(int));
	flip = calloc(nconfigs + 1, sizeof(double));
	flipeq = calloc(nconfigs + 1, sizeof(double));
	at_dir = calloc(nconfigs + 1, sizeof(double));
	at_eq = calloc(nconfigs + 1, sizeof(double));
	ok_dir = calloc(nconfigs + 1, sizeof(bool));
	ok_eq = calloc(nconfigs + 1, sizeof(bool));
	if (!d || !place || !p || !adj || !peq || !adjeq || !fit || !rank || !rankeq || !tps_rounds ||
		!npairs || !need_dir || !need_eq || !flip || !flipeq || !at_dir || !at_eq ||
		!ok_dir || !ok_eq)
		goto done;
	figures_present(runs, nruns, present);

	/* WSB_M_TPS first: the other metrics ask whether tps was paired */
	for (int m = WSB_M_TPS; m < WSB_N_METRICS; m++)
	{
		int			k = 0,
					keq = 0;

		/* one pass over the rounds per configuration: the summary kept for
		 * the intervals, which wait for Holm's order */
		for (int c = 0; c < nconfigs; c++)
		{
			WsbPaired  *v = &out[c * WSB_N_METRICS + m];
			int			n;

			memset(v, 0, sizeof(*v));
			v->ratio = v->low = v->high = v->low90 = v->high90 = v->sd = NAN;
			v->se = v->df = v->place_slope = NAN;
			v->carryover = v->carryover_low = v->carryover_high = NAN;
			v->low_alone = v->high_alone = NAN;
			v->p = v->p_holm = v->rank_p = v->level = NAN;
			v->p_equiv = v->p_equiv_holm = v->level90 = NAN;
			v->flip_p = v->flip_p_equiv = NAN;
			p[c] = peq[c] = NAN;
			if (c == 0)
			{
				v->word = WSB_W_BASELINE;
				snprintf(v->words, sizeof(v->words), "baseline");
				continue;
			}
			/* a figure no run has (a CSV of tps alone): no pass over the rounds */
			n = present[m] ? paired_logs(runs, &ix, nconfigs, c, m, d, NULL, place) : 0;
			v->rounds = n;
			if (m == WSB_M_TPS)
				tps_rounds[c] = n;
			wsb_paired_fit(d, place, n, &fit[c]);
			if (m == WSB_M_TPS && speed_var != NULL && fit[c].df > 1)
				fit_add_slope(&fit[c], speed_var[c]);
			if (n >= 1)
				v->ratio = exp(fit[c].estimate);
			if (n >= 2)
			{
				p[c] = wsb_fit_p(&fit[c]);
				k++;
				peq[c] = wsb_fit_equiv_p(&fit[c], margin);
				keq += !isnan(peq[c]);
			}
			/* the rank test on the rounds as the fit sees them: each
			 * round's log ratio moved to the same place */
			if (fit[c].adjusted)
				for (int i = 0; i < n; i++)
					d[i] -= fit[c].slope * place[i];
			v->rank_p = wsb_signed_rank_p(d, n);
			/* the sign-flip test on the same rounds: its p can only gate
			 * a word, so counting stops once it is past alpha */
			if (n >= 2)
			{
				v->flip_p = wsb_sign_flip_p(d, n, 0, 0, a);
				v->flip_p_equiv = fmax(wsb_sign_flip_p(d, n, log(1 - margin), 1, a),
									   wsb_sign_flip_p(d, n, log(1 + margin), -1, a));
			}
			flip[c] = v->flip_p;
			flipeq[c] = v->flip_p_equiv;
		}
		wsb_holm(p, nconfigs, adj, rank);
		/* the equivalence claims are a family too: four configurations
		 * each truly on the margin read equivalent for one of them in
		 * 13.8% of experiments when each was tested at a */
		wsb_holm(peq, nconfigs, adjeq, rankeq);
		for (int c = 1; c < nconfigs; c++)
			npairs[c] = out[c * WSB_N_METRICS + m].rounds;
		gate_rounds(rank, npairs, flip, nconfigs, k, a, true, need_dir, at_dir, ok_dir);
		gate_rounds(rankeq, npairs, flipeq, nconfigs, keq, a, false, need_eq, at_eq, ok_eq);
		for (int c = 1; c < nconfigs; c++)
		{
			WsbPaired  *v = &out[c * WSB_N_METRICS + m];
			int			n = v->rounds;
			double		a_dir,
						a_eq;

			v->alpha_used = a;
			/* the share of this look's alpha c's rounds are gated at */
			a_dir = at_dir[c];
			a_eq = at_eq[c];
			v->rounds_dir = need_dir[c];
			v->rounds_equiv = need_eq[c];
			v->flip_dir_ok = ok_dir[c];
			v->flip_equiv_ok = ok_eq[c];
			if (n < 2)
			{
				/* complete rounds, but not this figure: not measured */
				bool		measured = n > 0 || m == WSB_M_TPS || tps_rounds[c] == 0;

				v->word = measured ? WSB_W_TOO_FEW : WSB_W_NONE;
				snprintf(v->words, sizeof(v->words), measured ? "too few rounds" : "not measured");
				continue;
			}
			v->p = p[c];
			v->sd = fit[c].sd;
			v->se = fit[c].se;
			v->df = fit[c].df;
			v->place_adjusted = fit[c].adjusted;
			v->place_slope = fit[c].slope;
			v->p_holm = adj[c];
			v->p_equiv = peq[c];
			v->p_equiv_holm = isnan(adjeq[c]) ? 1 : adjeq[c];
			v->level = 1 - a / (k - rank[c]);
			v->level90 = rankeq[c] >= 0 ? 1 - 2 * a / (keq - rankeq[c]) : 1 - 2 * a;
			fit_interval(&fit[c], v->level, &v->low, &v->high);
			fit_interval(&fit[c], v->level90, &v->low90, &v->high90);
			fit_interval(&fit[c], 1 - 2 * a, &v->low_alone, &v->high_alone);
			v->equiv_alone = equivalent_alone(v, a);
			if (m == WSB_M_TPS || m == WSB_M_P99 || m == WSB_M_LONGEST)
				margin_words(v, m == WSB_M_TPS ? &tps_words_of : &latency_words_of, margin,
							 1 - a_plan / (2.0 * (k - rank[c])),
							 1 - a_plan / (rankeq[c] >= 0 ? keq - rankeq[c] : 1),
							 fit[c].estimate, fit[c].sd, mtext, a_dir, a_eq);
			else if (m == WSB_M_IMPLIED)
			{
				v->word = WSB_W_NONE;
				v->words[0] = '\0';
			}
			else
				stall_words(v, mtext, a_dir, a_eq);
			if (share_class(m) >= 0)
			{
				double		mb,
							mx,
							largest;

				if (paired_shares(runs, &ix, nconfigs, c, share_class(m), &mb, &mx, &largest) > 0 &&
					largest < WSB_NEGLIGIBLE_SHARE)
				{
					v->word = WSB_W_NEGLIGIBLE;
					v->decided = true;
					snprintf(v->words, sizeof(v->words), "negligible in both");
				}
			}
		}
	}
	if (present[WSB_M_TPS])
		fit_carryover(runs, &ix, nconfigs, out);
	/*
	 * What limits each configuration whose direction is known, once every
	 * metric is judged: decided by the margin, equivalent, or faster /
	 * slower by less than the rounds can put beyond the margin.
	 */
	wsb_limit_lines(runs, nruns, nconfigs, NULL, out);
done:
	wsb_index_free(&ix);
	free(d);
	free(place);
	free(p);
	free(adj);
	free(peq);
	free(adjeq);
	free(fit);
	free(rank);
	free(rankeq);
	free(tps_rounds);
	free(npairs);
	free(need_dir);
	free(need_eq);
	free(flip);
	free(flipeq);
	free(at_dir);
	free(at_eq);
	free(ok_dir);
	free(ok_eq);
}

/*
 * The per-round noise of configuration c's tps against the baseline's as
 * measured, fitted as judge_rounds fits: what the report sets beside the
 * noise left once the machine's speed is taken out.  NAN under 2 rounds.
 */
static double
measured_noise(const WsbRoundRun *runs, int nruns, int nconfigs, int c)
{
	double	   *d = malloc(sizeof(double) * (nruns + 1));
	double	   *place = malloc(sizeof(double) * (nruns + 1));
	WsbPairedFit fit;
	int			n = 0;

	if (d != NULL && place != NULL)
	{
		n = wsb_paired_places(runs, nruns, nconfigs, c, WSB_M_TPS, d, place);
		wsb_paired_fit(d, place, n, &fit);
	}
	free(d);
	free(place);
	return n >= 2 ? fit.sd : NAN;
}

/*
 * wsb_judge_rounds
 *		judge_rounds on tps moved for the machine's speed where the gauge
 *		read every run of enough complete rounds (speed.c), else on tps as
 *		measured.
 */
void
wsb_judge_rounds(const WsbRoundRun *runs, int nruns, int nconfigs,
				 const WsbJudgeSpec *spec, WsbPaired *out)
{
	WsbSpeedFit fit;
	WsbRoundRun *moved = NULL;
	WsbSpeedGap *gap = NULL;
	double	   *var = NULL;

	if (wsb_speed_fit(runs, nruns, nconfigs, &fit))
	{
		moved = malloc(sizeof(WsbRoundRun) * nruns);
		gap = calloc(nconfigs, sizeof(WsbSpeedGap));
		var = calloc(nconfigs, sizeof(double));
	}
	if (moved != NULL && gap != NULL && var != NULL)
	{
		memcpy(moved, runs, sizeof(WsbRoundRun) * nruns);
		wsb_speed_adjust(moved, nruns, &fit);
		for (int c = 1; c < nconfigs; c++)
		{
			wsb_speed_gap(runs, nruns, nconfigs, c, &gap[c]);
			var[c] = gap[c].mean * gap[c].mean * fit.slope_var;
		}
		judge_rounds(moved, nruns, nconfigs, spec, var, out);
	}
	else
	{
		free(moved);
		moved = NULL;
		judge_rounds(runs, nruns, nconfigs, spec, NULL, out);
	}
	for (int c = 0; c < nconfigs; c++)
	{
		WsbPaired  *v = &out[c * WSB_N_METRICS + WSB_M_TPS];

		v->speed_adjusted = moved != NULL;
		v->speed_slope = moved ? fit.slope : NAN;
		v->speed_r2 = moved ? fit.r2 : NAN;
		v->sd_measured = moved && c > 0 ? measured_noise(runs, nruns, nconfigs, c) : NAN;
		v->machine_ratio = moved && c > 0 ? exp(gap[c].mean) : NAN;
		v->machine_low = moved && c > 0 ? exp(gap[c].low) : NAN;
		v->machine_high = moved && c > 0 ? exp(gap[c].high) : NAN;
	}
	free(moved);
	free(gap);
	free(var);
}
