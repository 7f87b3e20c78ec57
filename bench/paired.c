/*-------------------------------------------------------------------------
 *
 * paired.c
 *		wal_stall_bench: paired statistics over rounds: the mean and
 *		spread of per-round differences, their fit on the runs' places,
 *		the paired t test's p, Holm's
 *		adjustment, Wilcoxon's signed-rank p, the rounds a t interval
 *		needs to reach a width, and the rounds an exact sign-flip test
 *		needs to reach a level.
 *
 * Each function takes plain numbers (the per-round log ratios d_r, a list
 * of p-values) and knows nothing of runs, metrics or margins: verdict.c
 * pairs the runs and turns these figures into words.  Student's t
 * distribution is stats.c's (R's standalone math library).  Pure, and
 * unit-tested on cases with known answers (test_unit_verdict.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsb.h"
#include "verdict.h"

/* Mean and sample standard deviation (n - 1) of d; NAN where undefined. */
void
wsb_paired_summary(const double *d, int n, double *mean, double *sd)
{
	*mean = wsb_mean(d, n);
	*sd = wsb_stddev(d, n);
}

/*
 * Two-sided p of the paired t test of mean d = 0 (ratio 1), n - 1 df.
 * No spread at all: 0 when the mean is not zero (every round moved alike),
 * else 1.  NAN under 2 values.
 */
double
wsb_paired_t_p(const double *d, int n)
{
	double		m,
				s,
				t;

	if (n < 2)
		return NAN;
	wsb_paired_summary(d, n, &m, &s);
	if (s == 0)
		return m == 0 ? 1 : 0;
	t = m / (s / sqrt(n));
	return 2 * wsb_t_cdf(-fabs(t), n - 1);
}

/*
 * The fit of d on the place differences (see WsbPairedFit): least squares
 * with an intercept, the estimate at x = 0 and its standard error
 * s sqrt(1/n + mean(x)^2 / Sxx), n - 2 df.  The place soaks up a drift
 * inside rounds (and the carryover every place shares), which the balanced
 * order (plan.c) spreads evenly on both sides; unadjusted, that drift
 * would read as noise, or in an unbalanced order as an effect.  place may
 * be NULL; a NAN in it means the places are not known.
 */
void
wsb_paired_fit(const double *d, const double *place, int n, WsbPairedFit *fit)
{
	double		mx = 0,
				sxx = 0,
				sxy = 0,
				ss = 0,
				md;
	bool		known = place != NULL && n >= WSB_PLACE_MIN_ROUNDS;

	memset(fit, 0, sizeof(*fit));
	fit->slope = NAN;
	wsb_paired_summary(d, n, &md, &fit->sd);
	fit->estimate = md;
	fit->df = n - 1;
	fit->se = n >= 2 ? fit->sd / sqrt(n) : NAN;
	for (int i = 0; known && i < n; i++)
		known = !isnan(place[i]);
	if (!known)
		return;
	mx = wsb_mean(place, n);
	for (int i = 0; i < n; i++)
	{
		sxx += (place[i] - mx) * (place[i] - mx);
		sxy += (place[i] - mx) * (d[i] - md);
	}
	if (!(sxx > 0))
		return;
	fit->adjusted = true;
	fit->slope = sxy / sxx;
	fit->estimate = md - fit->slope * mx;
	for (int i = 0; i < n; i++)
	{
		double		e = d[i] - fit->estimate - fit->slope * place[i];

		ss += e * e;
	}
	fit->df = n - 2;
	fit->sd = sqrt(ss / fit->df);
	fit->se = fit->sd * sqrt(1.0 / n + mx * mx / sxx);
}

/* Two-sided p of estimate = 0 under the fit's t; no spread at all: 0 when
 * the estimate is not zero, else 1.  NAN without df. */
double
wsb_fit_p(const WsbPairedFit *fit)
{
	if (!(fit->df > 0) || isnan(fit->se))
		return NAN;
	if (fit->se == 0)
		return fit->estimate == 0 ? 1 : 0;
	return 2 * wsb_t_cdf(-fabs(fit->estimate / fit->se), fit->df);
}

/*
 * The p of the two one-sided tests (TOST) that the fit's ratio lies inside
 * (1 - margin, 1 + margin): the larger of the two one-sided p.  No spread
 * at all: 0 inside, 1 outside.  NAN without df.
 */
double
wsb_fit_equiv_p(const WsbPairedFit *fit, double margin)
{
	double		lo = log(1 - margin),
				hi = log(1 + margin);

	if (!(fit->df > 0) || isnan(fit->se) || !(margin > 0 && margin < 1))
		return NAN;
	if (fit->se == 0)
		return fit->estimate > lo && fit->estimate < hi ? 0 : 1;
	return fmax(wsb_t_cdf(-(fit->estimate - lo) / fit->se, fit->df),
				wsb_t_cdf((fit->estimate - hi) / fit->se, fit->df));
}

/*
 * Least squares from the normal equations of n observations: xtx (p x p,
 * row-major, X'X), xty (X'y) and yty (y'y), no intercept (the caller
 * centres what needs it), losing lost further degrees of freedom (to a
 * centring); accumulated by the caller, so that the rows need not be
 * kept.  Gauss-Jordan with partial pivoting gives beta[p] and, from the
 * inverse's diagonal and the residual sum y'y - beta'X'y, se[p]; *df the
 * residual degrees of freedom.  false when a column is a combination of
 * the others (a pivot under 1e-9 of the largest diagonal: the design
 * cannot tell them apart) or no degree of freedom is left.
 */
bool
wsb_least_squares(const double *xtx, const double *xty, double yty, int n, int p, int lost,
				  double *beta, double *se, double *df)
{
	int			w = 2 * p;
	double	   *a = wsb_xmalloc(sizeof(double) * p * w + 1);
	double		scale = 0,
				rss = yty;
	bool		ok = n - lost - p > 0;

	*df = n - lost - p;
	/* [X'X | I], made [I | (X'X)^-1] */
	for (int i = 0; i < p; i++)
		for (int j = 0; j < w; j++)
			a[i * w + j] = j < p ? xtx[i * p + j] : j - p == i;
	for (int i = 0; i < p; i++)
		scale = fmax(scale, a[i * w + i]);
	for (int col = 0; ok && col < p; col++)
	{
		int			piv = col;

		for (int r = col + 1; r < p; r++)
			if (fabs(a[r * w + col]) > fabs(a[piv * w + col]))
				piv = r;
		if (!(fabs(a[piv * w + col]) > 1e-9 * scale))
		{
			ok = false;
			break;
		}
		for (int j = 0; j < w; j++)
		{
			double		t = a[col * w + j];

			a[col * w + j] = a[piv * w + j];
			a[piv * w + j] = t;
		}
		for (int j = w - 1; j >= col; j--)
			a[col * w + j] /= a[col * w + col];
		for (int r = 0; r < p; r++)
			if (r != col && a[r * w + col] != 0)
				for (int j = w - 1; j >= col; j--)
					a[r * w + j] -= a[r * w + col] * a[col * w + j];
	}
	for (int i = 0; ok && i < p; i++)
	{
		beta[i] = 0;
		for (int j = 0; j < p; j++)
			beta[i] += a[i * w + p + j] * xty[j];
		rss -= beta[i] * xty[i];
	}
	rss = fmax(rss, 0);
	for (int i = 0; ok && i < p; i++)
		se[i] = sqrt(rss / *df * a[i * w + p + i]);
	free(a);
	return ok;
}

/*
 * Holm's step-down adjustment of k p-values: sorted ascending, the i-th
 * (0-based) is multiplied by k - i, and the running maximum keeps the
 * adjusted values in the same order (a later hypothesis is never rejected
 * before an earlier one).  rank[j]: the place of p[j] in that order.
 * A NAN p is left out (adjusted NAN, rank -1) and does not count in k.
 */
void
wsb_holm(const double *p, int k, double *adjusted, int *rank)
{
	int		   *idx = wsb_xmalloc(sizeof(int) * (k > 0 ? k : 1));
	int			m = 0;
	double		run = 0;

	for (int j = 0; j < k; j++)
	{
		adjusted[j] = NAN;
		rank[j] = -1;
		if (!isnan(p[j]))
			idx[m++] = j;
	}
	/* insertion sort by p: a handful of configurations */
	for (int i = 1; i < m; i++)
		for (int j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--)
		{
			int			t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int i = 0; i < m; i++)
	{
		double		a = fmin(1, (m - i) * p[idx[i]]);

		run = fmax(run, a);
		adjusted[idx[i]] = run;
		rank[idx[i]] = i;
	}
	free(idx);
}

/* The exact two-sided p from m doubled ranks, their sum and W2+. */
static double
exact_signed_rank_p(const int *r2, int m, long long total2, long long wplus2)
{
	double	   *count = calloc(total2 + 1, sizeof(double));
	double		hits = 0,
				all = 0,
				obs = fabs(wplus2 - total2 / 2.0);

	if (count == NULL)
		return NAN;
	count[0] = 1;
	for (int i = 0; i < m; i++)
		for (long long w = total2; w >= r2[i]; w--)
			count[w] += count[w - r2[i]];
	for (long long w = 0; w <= total2; w++)
	{
		all += count[w];
		if (fabs(w - total2 / 2.0) >= obs)
			hits += count[w];
	}
	free(count);
	return hits / all;
}

static int
cmp_abs(const void *a, const void *b)
{
	double		x = fabs(*(const double *) a),
				y = fabs(*(const double *) b);

	return (x > y) - (x < y);
}

/*
 * Two-sided p of Wilcoxon's signed-rank test on d (zeros dropped, tied |d|
 * given their mean rank), over every value.  Ranks doubled are whole
 * numbers (a mean rank is a multiple of 1/2).  Up to WSB_RANK_EXACT_MAX
 * values the p is exact: every one of the 2^n sign patterns is equally
 * likely under "no change", so p is the share of patterns whose W+ lies at
 * least as far from its mean as the observed, counted by W+ with one pass
 * per value (subset-sum counts, n x sum of ranks steps).  Above it, where
 * that count grows with the cube of n, the normal approximation with the
 * tie-corrected variance sum(r^2) / 4 and a continuity correction stands
 * in (wsb_method_text says so).  NAN under WSB_RANK_MIN_ROUNDS values: with
 * fewer, even all rounds one way cannot reach p < 0.05 (2 / 2^5 = 0.0625).
 */
double
wsb_signed_rank_p(const double *d, int n)
{
	double	   *a;
	int		   *r2;				/* doubled ranks, in the order of a */
	int			m = 0;
	long long	total2 = 0,
				wplus2 = 0;
	double		sumsq2 = 0,
				p;

	if (n < WSB_RANK_MIN_ROUNDS)
		return NAN;
	a = malloc(sizeof(double) * n);
	r2 = malloc(sizeof(int) * n);
	if (a == NULL || r2 == NULL)
	{
		free(a);
		free(r2);
		return NAN;
	}
	for (int i = 0; i < n; i++)
		if (d[i] != 0)
			a[m++] = d[i];
	qsort(a, m, sizeof(double), cmp_abs);
	for (int i = 0; i < m;)
	{
		int			j = i;

		while (j < m && fabs(a[j]) == fabs(a[i]))
			j++;
		/* positions i+1 .. j share the mean rank (i + 1 + j) / 2 */
		for (int k = i; k < j; k++)
		{
			r2[k] = i + 1 + j;
			total2 += r2[k];
			sumsq2 += (double) r2[k] * r2[k];
			if (a[k] > 0)
				wplus2 += r2[k];
		}
		i = j;
	}
	if (m == 0)
		p = 1;
	else if (n <= WSB_RANK_EXACT_MAX)
		p = exact_signed_rank_p(r2, m, total2, wplus2);
	else
	{
		/* W2+ = 2 W+: mean total2 / 2, variance sum(r2^2) / 4; the
		 * continuity correction of 1/2 in W+ is 1 in W2+ */
		double		z = (fabs(wplus2 - total2 / 2.0) - 1) / sqrt(sumsq2 / 4);

		p = z > 0 ? fmin(1, erfc(z / sqrt(2.0))) : 1;
	}
	free(a);
	free(r2);
	return p;
}

/* (t(tail) + t(power)) sd / sqrt(n) on n - lost df: the distance n
 * rounds at the noise sd tell at that tail with that power */
static double
distance_told(double sd, int n, int lost, double tail, double power)
{
	double		tp = power > 0.5 ? wsb_t_quantile(power, n - lost) : 0;

	return (wsb_t_quantile(tail, n - lost) + tp) * sd / sqrt(n);
}

/*
 * Rounds needed for a one-sided t test at the quantile tail (0.975 for
 * each side of a two-sided 5%) to decide, with probability power, a truth
 * that lies distance beyond its bound, at the per-round noise sd: the
 * smallest n > lost with (t(tail, n - lost) + t(power, n - lost)) sd /
 * sqrt(n) <= distance (the normal approximation to the noncentral t, with
 * t quantiles for the few rounds; lost the df the fit takes, 1 for the
 * plain mean, 2 with the place).  At power 0.5 that is the rounds whose
 * interval's half width reaches distance: the plug-in, which decides
 * only half the time.  -1 when no n up to WSB_ROUNDS_NEEDED_MAX will do
 * (the estimate sits on the margin).
 */
int
wsb_rounds_needed(double sd, double distance, double tail, double power, int lost)
{
	int			lo = lost + 1,
				hi = WSB_ROUNDS_NEEDED_MAX;

	if (!(distance > 0) || isnan(sd) || lost < 1)
		return -1;
	/* the distance told falls as n grows (t falls, sqrt n rises): bisect */
	if (distance_told(sd, hi, lost, tail, power) > distance)
		return -1;
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (distance_told(sd, mid, lost, tail, power) <= distance)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The upper confidence bound at conf on a noise sd estimated with df
 * degrees of freedom: sd sqrt(df / chi2(1 - conf, df)).  From 3 rounds'
 * sd at 80% it is 2.7 times the estimate, from 10 rounds' 1.3 times: what
 * the rounds needed must plan for, since few rounds often show less
 * spread than the machine has.  NAN without df.
 */
double
wsb_sd_upper(double sd, double df, double conf)
{
	if (!(df > 0) || isnan(sd) || !(conf > 0 && conf < 1))
		return NAN;
	return sd * sqrt(df / wsb_chisq_quantile(1 - conf, df));
}

/*
 * The fewest rounds at which an exact sign-flip (randomization) test of
 * the per-round log ratios can reach level a.  Under "no change" (or, for
 * one side of an equivalence, "the ratio sits on the margin") each
 * round's sign is as likely flipped as not, so each of the 2^n sign
 * patterns is equally likely; whatever the statistic, the observed
 * pattern can at best be the most extreme one, p = 1 / 2^n one-sided and
 * 2 / 2^n two-sided (it and its mirror).  So no test of n rounds that
 * assumes nothing of the noise's shape can say more, however narrow the t
 * interval of 2 df looks: 6 rounds two-sided at 5%, 5 one-sided.  -1 when
 * a is not in (0, 1).
 */
int
wsb_sign_flip_rounds(double a, bool two_sided)
{
	int			n = 1;

	if (!(a > 0 && a < 1))
		return -1;
	while (ldexp(two_sided ? 2 : 1, -n) > a)
		n++;
	return n;
}

/*
 * A plan of a fixed number of rounds that no verdict can come from: fewer
 * than the sign-flip test needs for equivalence at 5%, against k
 * configurations besides the baseline (Holm tests the first at 5% / k).
 * Writes the note into buf and returns true; false when the rounds can
 * carry a verdict.
 */
bool
wsb_too_few_rounds_note(int rounds, int k, char *buf, size_t len)
{
	int			equiv,
				dir;

	if (k < 1)
		return false;
	equiv = wsb_sign_flip_rounds(0.05 / k, false);
	dir = wsb_sign_flip_rounds(0.05 / k, true);
	if (rounds >= equiv)
		return false;
	snprintf(buf, len, "%d round%s cannot carry a verdict at 5%%%s: equivalence needs %d, "
			 "a direction %d (--runs %d, or --budget)", rounds, rounds == 1 ? "" : "s",
			 k > 1 ? " over these configurations" : "", equiv, dir, dir);
	return true;
}

/*
 * The sign patterns of a[i..n) (magnitudes, descending; rest[i] their
 * sum) whose signed sum, added to partial, reaches t; counting stops once
 * it passes limit.  Branch and bound: a branch that reaches t with every
 * sign left negative counts whole, one that cannot with every sign left
 * positive counts nothing, so a decisive sample costs far fewer than 2^n
 * steps.
 */
static double
patterns_reaching(const double *a, const double *rest, int i, int n, double partial, double t,
				  double limit)
{
	double		c;

	if (partial - rest[i] >= t)
		return ldexp(1, n - i);
	if (partial + rest[i] < t)
		return 0;
	c = patterns_reaching(a, rest, i + 1, n, partial + a[i], t, limit);
	if (c > limit)
		return c;
	return c + patterns_reaching(a, rest, i + 1, n, partial - a[i], t, limit - c);
}

static int
cmp_desc(const void *x, const void *y)
{
	double		a = *(const double *) x,
				b = *(const double *) y;

	return (a < b) - (a > b);
}

/*
 * The exact sign-flip (randomization) test of the mean of d against
 * centre: under the null each d_i - centre is as likely negated, so the
 * p is the share of the 2^n sign patterns whose sum lies at least as far
 * out as the observed one; side +1 tests "above centre", -1 "below", 0
 * both (|sum|).  Nothing is assumed of the noise's shape but its
 * symmetry.  Counting may stop once p is known to exceed stop_above (the
 * result is then some p above it).  NAN over WSB_SIGN_FLIP_EXACT_MAX
 * values, where the t test's own p stands alone, or under 1.
 */
double
wsb_sign_flip_p(const double *d, int n, double centre, int side, double stop_above)
{
	double		a[WSB_SIGN_FLIP_EXACT_MAX + 1],
				rest[WSB_SIGN_FLIP_EXACT_MAX + 2],
				sum = 0,
				t,
				all;

	if (n < 1 || n > WSB_SIGN_FLIP_EXACT_MAX)
		return NAN;
	for (int i = 0; i < n; i++)
	{
		double		e = side < 0 ? centre - d[i] : d[i] - centre;

		sum += e;
		a[i] = fabs(e);
	}
	qsort(a, n, sizeof(double), cmp_desc);
	rest[n] = 0;
	for (int i = n - 1; i >= 0; i--)
		rest[i] = rest[i + 1] + a[i];
	if (side == 0)
		sum = fabs(sum);
	if (side == 0 && sum == 0)
		return 1;
	/* a pattern as far out as the observed one may sum a rounding away */
	t = sum - 1e-12 * rest[0];
	all = ldexp(1, n);
	if (side == 0)
		return fmin(1, 2 * patterns_reaching(a, rest, 0, n, 0, t, stop_above * all / 2) / all);
	return patterns_reaching(a, rest, 0, n, 0, t, stop_above * all) / all;
}
