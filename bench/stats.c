/*-------------------------------------------------------------------------
 *
 * stats.c
 *		wal_stall_bench: judging the runs of each configuration against the
 *		baseline's.
 *
 * The test is Welch's t on run means: each run gives one tps figure, the
 * runs of a configuration are a sample, and the 95% two-sided interval of
 * mean(configuration) - mean(baseline) uses the Welch-Satterthwaite degrees
 * of freedom (the two configurations need not have the same variance, and
 * on a noisy 2-core VM they rarely do).  The interval is reported as a
 * percentage of the baseline's mean.  A configuration is "faster" or
 * "slower" only when that interval excludes 0.
 *
 * Student's t distribution (wsb_t_cdf(), wsb_t_quantile()) comes from R's
 * standalone math library, libRmath (Debian's r-mathlib): pt() and qt()
 * take non-integer degrees of freedom, as Welch's df are.
 *
 * Nothing here talks to the server; everything is pure and unit-tested
 * (test_unit.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MATHLIB_STANDALONE
#include <Rmath.h>

#include "wsb.h"
#include "figures.h"

/* Classes whose per-run totals explain a change: the stall classes, which a
 * client feels, and wal_fsync, the I/O behind most of them. */
static const char *const explain_classes[] = {
	"wal_buffer_full", "wal_flush", "wal_insert", "clog", "wal_fsync"
};
#define N_EXPLAIN_CLASSES (int) (sizeof(explain_classes) / sizeof(explain_classes[0]))

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Median of x[0..n-1]; NAN for n = 0.  x is not modified. */
double
wsb_median(const double *x, int n)
{
	double	   *c;
	double		m;

	if (n <= 0)
		return NAN;
	c = malloc(sizeof(double) * n);
	if (c == NULL)
		return NAN;
	memcpy(c, x, sizeof(double) * n);
	qsort(c, n, sizeof(double), cmp_double);
	m = (n % 2) ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
	free(c);
	return m;
}

/* Arithmetic mean; NAN for n = 0. */
double
wsb_mean(const double *x, int n)
{
	double		s = 0;

	if (n <= 0)
		return NAN;
	for (int i = 0; i < n; i++)
		s += x[i];
	return s / n;
}

/* Sample standard deviation (divisor n - 1); NAN for n < 2.  Two passes,
 * so large tps figures with small spread lose no digits. */
double
wsb_stddev(const double *x, int n)
{
	double		m,
				ss = 0;

	if (n < 2)
		return NAN;
	m = wsb_mean(x, n);
	for (int i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (n - 1));
}

/* Student's t CDF with df degrees of freedom (df > 0, not necessarily an
 * integer), from R's standalone math library. */
double
wsb_t_cdf(double t, double df)
{
	return pt(t, df, 1, 0);
}

/*
 * Student's t quantile: the t with P(T <= t) = p, for 0 < p < 1 and df > 0
 * (not necessarily an integer), from R's standalone math library.  NAN
 * outside that domain, where qt() would give an infinity or a warning.
 */
double
wsb_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0) || isinf(df))
	{
		/* df = infinity is the normal distribution; not needed here */
		return NAN;
	}
	return qt(p, df, 1, 0);
}

/*
 * Welch's interval at the given level (0.95) for mean(x) - mean(base), in
 * the units of the data (the caller divides by the baseline mean).
 *
 *	se = sqrt(sb^2/nb + sx^2/nx)
 *	df = se^4 / ((sb^2/nb)^2/(nb-1) + (sx^2/nx)^2/(nx-1))
 *	diff +- t((1+level)/2, df) * se
 *
 * NAN, NAN when either side has fewer than 2 values.  When both sides have
 * no spread at all (se = 0) df is undefined and the interval is the single
 * point diff: the data show no noise to be within.
 */
void
wsb_welch_interval(const double *base, int nb, const double *x, int nx,
				   double level, double *low, double *high)
{
	double		vb,
				vx,
				se,
				df,
				t,
				diff;

	*low = *high = NAN;
	if (nb < 2 || nx < 2 || !(level > 0 && level < 1))
		return;
	diff = wsb_mean(x, nx) - wsb_mean(base, nb);
	vb = pow(wsb_stddev(base, nb), 2) / nb;
	vx = pow(wsb_stddev(x, nx), 2) / nx;
	se = sqrt(vb + vx);
	if (se == 0)
	{
		*low = *high = diff;
		return;
	}
	df = (vb + vx) * (vb + vx) /
		(vb * vb / (nb - 1) + vx * vx / (nx - 1));
	t = wsb_t_quantile((1 + level) / 2, df);
	*low = diff - t * se;
	*high = diff + t * se;
}

const char *
wsb_verdict_name(WsbVerdict v)
{
	switch (v)
	{
		case WSB_BASELINE:
			return "baseline";
		case WSB_FASTER:
			return "faster";
		case WSB_SLOWER:
			return "slower";
		case WSB_WITHIN_NOISE:
			return "within noise";
		case WSB_TOO_FEW_RUNS:
			return "too few runs";
	}
	return "?";
}

/* tps of the successful runs of configuration c, in run order; returns n. */
int
wsb_config_tps(const WsbRun *runs, int nruns, int c, double *out)
{
	int			n = 0;

	for (int i = 0; i < nruns; i++)
		if (runs[i].config == c && runs[i].ok)
			out[n++] = runs[i].tps;
	return n;
}

/*
 * Median over the successful runs of configuration c of a per-run figure,
 * get(run, a, b); runs where it is NAN are left out; NAN when none has it.
 */
double
wsb_config_median(const WsbRun *runs, int nruns, int c,
				  double (*get) (const WsbRun *, const char *, const char *),
				  const char *a, const char *b)
{
	double	   *v = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	int			n = 0;
	double		m;

	if (v == NULL)
		return NAN;
	for (int i = 0; i < nruns; i++)
		if (runs[i].config == c && runs[i].ok)
		{
			double		x = get(&runs[i], a, b);

			if (!isnan(x))
				v[n++] = x;
		}
	m = wsb_median(v, n);
	free(v);
	return m;
}

/* "43.9 s -> 0.8 s" or "312 ms -> 5.1 ms": seconds for both when either
 * side reaches 1000 ms, so the two sides read in one unit. */
static void
format_ms_pair(char *buf, size_t len, double a, double b)
{
	if (a >= 1000 || b >= 1000)
		snprintf(buf, len, "%.1f s -> %.1f s", a / 1000, b / 1000);
	else
	{
		const char *fa = a >= 100 ? "%.0f ms -> " : "%.1f ms -> ";
		const char *fb = b >= 100 ? "%.0f ms" : "%.1f ms";
		char		pa[64],
					pb[64];

		snprintf(pa, sizeof(pa), fa, a);
		snprintf(pb, sizeof(pb), fb, b);
		snprintf(buf, len, "%s%s", pa, pb);
	}
}

/*
 * The stall figures that explain configuration c against the baseline:
 * the classes whose median total_ms moved most, at most three; those
 * under 1 ms on both sides, or that moved by less than 1 ms or 5%, are
 * left out.
 */
static void
explain(const WsbRun *runs, int nruns, int c, char *out, size_t len)
{
	double		base_ms[N_EXPLAIN_CLASSES],
				ms[N_EXPLAIN_CLASSES],
				base_ep[N_EXPLAIN_CLASSES],
				ep[N_EXPLAIN_CLASSES];
	int			idx[N_EXPLAIN_CLASSES];
	int			n = 0,
				shown = 0,
				known = 0;

	out[0] = '\0';
	for (int k = 0; k < N_EXPLAIN_CLASSES; k++)
	{
		base_ms[k] = wsb_config_median(runs, nruns, 0, wsb_summary_value, explain_classes[k], "total_ms");
		ms[k] = wsb_config_median(runs, nruns, c, wsb_summary_value, explain_classes[k], "total_ms");
		base_ep[k] = wsb_config_median(runs, nruns, 0, wsb_summary_value, explain_classes[k], "episodes");
		ep[k] = wsb_config_median(runs, nruns, c, wsb_summary_value, explain_classes[k], "episodes");
		if (isnan(base_ms[k]) || isnan(ms[k]))
			continue;
		known++;
		if (base_ms[k] < 1 && ms[k] < 1)
			continue;
		/* unchanged figures explain nothing: under 1 ms or 5% apart */
		if (fabs(ms[k] - base_ms[k]) < 1 ||
			fabs(ms[k] - base_ms[k]) < 0.05 * fmax(ms[k], base_ms[k]))
			continue;
		idx[n++] = k;
	}
	/* largest absolute change first (insertion sort: five classes) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 &&
			 fabs(ms[idx[j]] - base_ms[idx[j]]) > fabs(ms[idx[j - 1]] - base_ms[idx[j - 1]]); j--)
		{
			int			t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int i = 0; i < n && shown < 3; i++)
	{
		int			k = idx[i];
		char		pair[128],
					item[256];
		size_t		used = strlen(out);

		format_ms_pair(pair, sizeof(pair), base_ms[k], ms[k]);
		if (!isnan(base_ep[k]) && !isnan(ep[k]))
			snprintf(item, sizeof(item), "%s%s %s (episodes %.0f -> %.0f)",
					 shown ? "; " : "", explain_classes[k], pair, base_ep[k], ep[k]);
		else
			snprintf(item, sizeof(item), "%s%s %s",
					 shown ? "; " : "", explain_classes[k], pair);
		if (used + strlen(item) + 1 > len)
			break;
		strcat(out, item);
		shown++;
	}
	if (shown == 0 && known > 0)
		snprintf(out, len, "no stall class changed by 1 ms and 5%% or more");
}

/*
 * Judge every configuration of the plan from the successful runs: median
 * and mean tps, the change of the mean against the baseline's with its
 * Welch interval, both in % of the baseline mean, the verdict and the
 * stall figures behind it.  out has plan->nconfigs entries.
 */
void
wsb_judge(const WsbPlan *plan, const WsbRun *runs, int nruns,
		  WsbJudgement *out)
{
	double	   *base = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	double	   *x = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	int			nb;
	double		base_mean;

	if (base == NULL || x == NULL)
	{
		free(base);
		free(x);
		return;
	}
	nb = wsb_config_tps(runs, nruns, 0, base);
	base_mean = wsb_mean(base, nb);

	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbJudgement *j = &out[c];
		int			nx = wsb_config_tps(runs, nruns, c, x);

		memset(j, 0, sizeof(*j));
		j->config = c;
		j->nruns = nx;
		j->median_tps = wsb_median(x, nx);
		j->mean_tps = wsb_mean(x, nx);
		j->ci_low_pct = j->ci_high_pct = NAN;

		if (c == 0)
		{
			j->change_pct = nx > 0 ? 0 : NAN;
			j->verdict = WSB_BASELINE;
			continue;
		}
		j->change_pct = (nb > 0 && nx > 0 && base_mean != 0)
			? 100.0 * (j->mean_tps / base_mean - 1) : NAN;
		explain(runs, nruns, c, j->explanation, sizeof(j->explanation));

		if (nb < 2 || nx < 2 || base_mean == 0)
		{
			j->verdict = WSB_TOO_FEW_RUNS;
			continue;
		}
		else
		{
			double		lo,
						hi;

			wsb_welch_interval(base, nb, x, nx, 0.95, &lo, &hi);
			j->ci_low_pct = 100.0 * lo / base_mean;
			j->ci_high_pct = 100.0 * hi / base_mean;
			if (lo <= 0 && hi >= 0)
				j->verdict = WSB_WITHIN_NOISE;
			else
				j->verdict = lo > 0 ? WSB_FASTER : WSB_SLOWER;
		}
	}
	free(base);
	free(x);
}
