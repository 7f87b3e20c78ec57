/*-------------------------------------------------------------------------
 *
 * spending.c
 *		wal_stall_bench: the error spent over --budget's looks: Lan-DeMets'
 *		spending function of O'Brien-Fleming's type, with rounds as the
 *		information, and each look's nominal level from the group
 *		sequential boundary it implies.
 *
 * A budget of R rounds looks after every round from the third: look k
 * comes after round k + 2, at the information fraction t_k = (k + 2) / R.
 * By t the experiment may have spent
 *
 *		a(t) = 2 - 2 Phi(z(1 - a/2) / sqrt t)
 *
 * of its error (a(1) = a): almost nothing early, most of it near the end,
 * so the last looks test at nearly the level of one look alone (a 5%
 * budget of 20 rounds: 4e-7 at round 3, 0.0043 at round 10, 0.030 at
 * round 20), where splitting a evenly over 18 looks (Bonferroni) tested
 * every look at 0.0028.  Look k's boundary c_k on the z scale makes the
 * chance of crossing at look k, and at none before, a(t_k) - a(t_{k-1}),
 * under the joint law of the z statistics of nested samples (corr(Z_j,
 * Z_k) = sqrt(t_j / t_k)); it is found by numerical integration of the
 * score process S_k = Z_k sqrt(t_k), whose increments are independent
 * (Armitage, McPherson and Rowe's recursion, as Jennison and Turnbull
 * give it), and the look tests its paired t at the nominal level
 * 2 - 2 Phi(c_k).  The looks need not all happen: an experiment that
 * stops early has spent only what its looks spent, and the plan records
 * how much (plan.txt), so that --resume continues the same spending.
 *
 * Pure, and unit-tested (test_unit_verdict.c); the simulations
 * (test_unit_sim.c) check the family-wise error over the looks.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MATHLIB_STANDALONE
#include <Rmath.h>

#include "wsb.h"
#include "verdict.h"

/* grid points over a look's continuation region, and its reach in sds */
#define GRID 401
#define REACH 8.0
/* a boundary beyond this z spends nothing measurable */
#define Z_MAX 12.0

/* a(t): the error spent by information fraction t */
double
wsb_spent_by(double alpha, double t)
{
	if (!(t > 0))
		return 0;
	if (t >= 1)
		return alpha;
	return 2 - 2 * pnorm(qnorm(1 - alpha / 2, 0, 1, 1, 0) / sqrt(t), 0, 1, 1, 0);
}

/* The information fraction of look k (1..) of a budget of nlooks looks:
 * the rounds judged over the rounds the budget allows. */
static double
fraction(int k, int nlooks)
{
	return fmin(1, (double) (k + 2) / (nlooks + 2));
}

/* the chance of crossing +-b at the next look from the density f on the
 * grid s (step h), the increment's sd sd */
static double
crossing(const double *s, const double *f, int m, double h, double sd, double b)
{
	double		p = 0;

	for (int i = 0; i < m; i++)
	{
		double		w = (i == 0 || i == m - 1) ? h / 2 : h;

		p += w * f[i] * (pnorm((-b - s[i]) / sd, 0, 1, 1, 0) + pnorm((b - s[i]) / sd, 0, 1, 0, 0));
	}
	return p;
}

/*
 * The nominal two-sided level of each of n looks at the information
 * fractions t[] (ascending, the last at most 1), every look made: see the
 * header.  A look that may spend nothing measurable gets 0 (its boundary
 * beyond Z_MAX).
 */
void
wsb_spending_levels(double alpha, const double *fractions, int nlooks, double *nominal)
{
	double	   *s = wsb_xmalloc(sizeof(double) * GRID),
			   *f = wsb_xmalloc(sizeof(double) * GRID),
			   *s2 = wsb_xmalloc(sizeof(double) * GRID),
			   *f2 = wsb_xmalloc(sizeof(double) * GRID);
	double		h = 0,
				prev_t = 0;
	bool		first = true;

	for (int k = 1; k <= nlooks; k++)
	{
		double		t = fmin(1, fractions[k - 1]),
					spend = wsb_spent_by(alpha, t) - wsb_spent_by(alpha, prev_t),
					sd = sqrt(t - prev_t),
					b,
					lo,
					hi,
					reach;

		if (t <= prev_t)
		{
			/* no new information: no new error */
			nominal[k - 1] = 0;
			continue;
		}
		if (first)
			b = spend > 0 ? qnorm(1 - spend / 2, 0, 1, 1, 0) * sqrt(t) : Z_MAX * sqrt(t);
		else
		{
			/* bisect the boundary on the S scale: crossing falls as b grows */
			lo = 0;
			hi = Z_MAX * sqrt(t);
			if (crossing(s, f, GRID, h, sd, hi) >= spend)
				lo = hi;
			for (int it = 0; it < 50 && hi - lo > 1e-9; it++)
			{
				double		mid = (lo + hi) / 2;

				if (crossing(s, f, GRID, h, sd, mid) > spend)
					lo = mid;
				else
					hi = mid;
			}
			b = hi;
		}
		b = fmin(b, Z_MAX * sqrt(t));
		nominal[k - 1] = 2 * pnorm(b / sqrt(t), 0, 1, 0, 0);
		/* the density of S_k where the experiment goes on: (-b, b), on a
		 * grid no wider than REACH sds of S_k */
		reach = fmin(b, REACH * sqrt(t));
		for (int i = 0; i < GRID; i++)
		{
			s2[i] = -reach + 2 * reach * i / (GRID - 1);
			if (first)
				f2[i] = dnorm(s2[i], 0, sqrt(t), 0);
			else
			{
				/* the normal density written out: dnorm's checks, once
				 * per grid pair, were most of the time */
				double		v = 0,
							scale = 1 / (sd * sqrt(2 * M_PI)),
							inv = -0.5 / (sd * sd);

				for (int j = 0; j < GRID; j++)
				{
					double		w = (j == 0 || j == GRID - 1) ? h / 2 : h,
								x = s2[i] - s[j];

					v += w * f[j] * exp(inv * x * x);
				}
				f2[i] = v * scale;
			}
		}
		memcpy(s, s2, sizeof(double) * GRID);
		memcpy(f, f2, sizeof(double) * GRID);
		h = 2 * reach / (GRID - 1);
		prev_t = t;
		first = false;
	}
	free(s);
	free(f);
	free(s2);
	free(f2);
}

/*
 * The level look (1..nlooks) of a budget may test at: its nominal level
 * from wsb_spending_levels (kept for the last alpha and nlooks asked, as
 * every look of an experiment asks the same); the whole alpha without a
 * budget (nlooks 0).
 */
double
wsb_look_alpha(double alpha, int look, int nlooks)
{
	static double *levels;
	static int	have_looks;
	static double have_alpha;

	if (nlooks < 1)
		return alpha;
	if (look < 1)
		look = 1;
	if (look > nlooks)
		look = nlooks;
	if (levels == NULL || have_looks != nlooks || have_alpha != alpha)
	{
		double	   *t = wsb_xmalloc(sizeof(double) * nlooks);

		free(levels);
		for (int k = 1; k <= nlooks; k++)
			t[k - 1] = fraction(k, nlooks);
		levels = wsb_xmalloc(sizeof(double) * nlooks);
		wsb_spending_levels(alpha, t, nlooks, levels);
		free(t);
		have_looks = nlooks;
		have_alpha = alpha;
	}
	return levels[look - 1];
}

/* The error spent by look (1..nlooks) of a budget of nlooks looks. */
double
wsb_spent_at_look(double alpha, int look, int nlooks)
{
	if (nlooks < 1)
		return look > 0 ? alpha : 0;
	return wsb_spent_by(alpha, fraction(look < nlooks ? look : nlooks, nlooks));
}
