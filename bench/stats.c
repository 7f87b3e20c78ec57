/*-------------------------------------------------------------------------
 *
 * stats.c
 *		wal_stall_bench: median, mean, spread and Student's t of a sample.
 *
 * The descriptive statistics the verdict (verdict.c) and the charts use:
 * median, mean, sample standard deviation, and Student's t distribution.
 *
 * Student's t distribution (wsb_t_cdf(), wsb_t_quantile()) comes from R's
 * standalone math library, libRmath (Debian's r-mathlib): pt() and qt()
 * take non-integer degrees of freedom.
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
	c = wsb_xmalloc(sizeof(double) * n);
	memcpy(c, x, sizeof(double) * n);
	qsort(c, n, sizeof(double), cmp_double);
	m = (n % 2) ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
	free(c);
	return m;
}

/*
 * Sort n rows of size bytes each by key, ascending, the rows whose key is
 * NAN last, rows of equal keys kept in their order: a few configurations,
 * so an insertion sort that swaps in place.
 */
void
wsb_sort_by_key(void *rows, int n, size_t size, double (*key) (const void *row))
{
	char	   *base = rows;

	for (int i = 1; i < n; i++)
		for (int j = i; j > 0; j--)
		{
			char	   *a = base + (size_t) (j - 1) * size;
			char	   *b = a + size;
			double		ka = key(a),
						kb = key(b);

			if (!(isnan(ka) && !isnan(kb)) && !(kb < ka))
				break;
			for (size_t k = 0; k < size; k++)
			{
				char		t = a[k];

				a[k] = b[k];
				b[k] = t;
			}
		}
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

/* The chi-square quantile: the x with P(X <= x) = p, 0 < p < 1, df > 0;
 * NAN outside that domain. */
double
wsb_chisq_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0) || isinf(df))
		return NAN;
	return qchisq(p, df, 1, 0);
}

/*
 * Whether the verdict pairs the runs' tps over their steady seconds: every
 * successful run has one (round_table.c's use_window_tps, the same rule on
 * the runs).
 */
bool
wsb_window_judged(const WsbRun *runs, int nruns)
{
	bool		any = false;

	for (int i = 0; i < nruns; i++)
	{
		if (runs[i].ok && !(runs[i].tps_window > 0))
			return false;
		any |= runs[i].ok;
	}
	return any;
}

/*
 * The tps the verdict judges of run r: over its steady seconds when window
 * (wsb_window_judged of all the runs), else the whole run's.
 */
double
wsb_judged_tps(const WsbRun *r, bool window)
{
	return window ? r->tps_window : r->tps;
}

/*
 * The tps the verdict judges of configuration c's successful runs, in run
 * order; returns n.
 */
int
wsb_config_judged_tps(const WsbRun *runs, int nruns, int c, double *out)
{
	bool		window = wsb_window_judged(runs, nruns);
	int			n = 0;

	for (int i = 0; i < nruns; i++)
		if (runs[i].config == c && runs[i].ok)
			out[n++] = wsb_judged_tps(&runs[i], window);
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
	double	   *v = wsb_xmalloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	int			n = 0;
	double		m;

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
