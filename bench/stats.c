/*-------------------------------------------------------------------------
 *
 * stats.c
 *		wal_stall_bench: median, mean, spread and Student's t of a sample.
 *
 * The descriptive statistics the verdict (verdict.c) and the charts use:
 * median, mean, sample standard deviation, and Student's t distribution.
 *
 * Student's t quantile is computed here rather than taken from a table:
 * the CDF comes from the regularized incomplete beta function (continued
 * fraction, Lentz's method), and the quantile from bisection on it
 * (monotone, so it cannot diverge).
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

/*
 * One step of the modified Lentz method with coefficient aa: updates c and
 * d (each kept off zero by tiny) and returns the factor for the fraction.
 */
static double
lentz_step(double aa, double tiny, double *c, double *d)
{
	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/*
 * Continued fraction of the incomplete beta function (modified Lentz).
 * Converges quickly for x < (a + 1) / (a + b + 2); the caller arranges that.
 * Each m takes two steps: the even coefficient, then the odd one.
 */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double		qab = a + b,
				qap = a + 1,
				qam = a - 1;
	double		c = 1,
				d = 1 - qab * x / qap,
				h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++)
	{
		int			m2 = 2 * m;
		double		del;

		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), tiny, &c, &d);
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), tiny, &c, &d);
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* Regularized incomplete beta function I_x(a, b). */
static double
inc_beta(double a, double b, double x)
{
	double		front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) +
				a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* Student's t CDF with df degrees of freedom (df > 0, not necessarily an
 * integer): P(T <= t) = 1 - I_{df/(df+t^2)}(df/2, 1/2) / 2 for t >= 0. */
double
wsb_t_cdf(double t, double df)
{
	double		tail = 0.5 * inc_beta(df / 2, 0.5, df / (df + t * t));

	return t >= 0 ? 1 - tail : tail;
}

/*
 * Student's t quantile: the t with P(T <= t) = p, for 0 < p < 1 and df > 0.
 * NAN outside that domain.  Bisection on the CDF, to a relative width of
 * 1e-13: about 50 CDF evaluations, far below anything the harness notices,
 * and accurate well beyond the 1e-6 the report needs.
 */
double
wsb_t_quantile(double p, double df)
{
	double		lo = 0,
				hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0) || isinf(df))
	{
		/* df = infinity is the normal distribution; not needed here */
		return NAN;
	}
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -wsb_t_quantile(1 - p, df);

	/* bracket: t_cdf is increasing; double hi until it passes p */
	while (wsb_t_cdf(hi, df) < p)
	{
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return INFINITY;
	}
	for (int i = 0; i < 400 && hi - lo > 1e-13 * hi; i++)
	{
		double		mid = (lo + hi) / 2;

		if (wsb_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
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
