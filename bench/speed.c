/*-------------------------------------------------------------------------
 *
 * speed.c
 *		wal_stall_bench: the machine's speed taken out of tps.
 *
 * gauge.c reads, beside every run, how long a fixed unit of work took in
 * CPU time (results.csv's machine_us).  A run that met a slower machine
 * has a larger reading and, on a shared virtual machine, a lower tps, by
 * the same amount whatever the configuration.  So the verdict fits ln tps
 * on ln machine_us within rounds and configurations: one slope for the
 * machine, every round and every configuration a level of its own,
 * from the complete rounds (where round and configuration are orthogonal,
 * so taking out both means leaves what varies within them).  Every run's
 * tps is then moved to the mean reading, tps * (machine_us / centre) ^
 * -slope, before it is paired: the per-round log ratio loses the part the
 * two runs' readings explain.  The fit's one degree of freedom is taken
 * from each configuration's interval (verdict.c).
 *
 * The fit assumes that a configuration does not move the gauge itself (a
 * core a configuration keeps busier would read slower): the report gives
 * each configuration's reading against the baseline's, and the unit tests'
 * simulation checks the verdict's error rates with the fit in place.
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

/*
 * Round k's runs (ix->idx) as a row of the fit: 1 when the round is
 * complete, not traced (--validate: out of the pairs, and so of the fit)
 * and every run has the gauge's reading and a tps; 0 when it is not
 * complete or is traced; -1 when a reading is missing.
 */
static int
round_measured(const WsbRoundRun *runs, const WsbRoundIndex *ix, int nconfigs, int k)
{
	const int  *at = &ix->idx[k * nconfigs];
	int			measured = 1;

	if (!ix->complete[k])
		return 0;
	for (int c = 0; c < nconfigs; c++)
	{
		if (runs[at[c]].traced)
			return 0;
		if (!(runs[at[c]].machine_us > 0) || !(runs[at[c]].tps > 0))
			measured = -1;
	}
	return measured;
}

/* Take out the round means and the configuration means, add the grand mean. */
static void
within(double *v, int nrounds, int nconfigs)
{
	double		grand = 0;
	double	   *cmean = calloc(nconfigs, sizeof(double));

	if (cmean == NULL)
		return;
	for (int k = 0; k < nrounds; k++)
		for (int c = 0; c < nconfigs; c++)
		{
			cmean[c] += v[k * nconfigs + c] / nrounds;
			grand += v[k * nconfigs + c] / (nrounds * nconfigs);
		}
	for (int k = 0; k < nrounds; k++)
	{
		double		rmean = 0;

		for (int c = 0; c < nconfigs; c++)
			rmean += v[k * nconfigs + c] / nconfigs;
		for (int c = 0; c < nconfigs; c++)
			v[k * nconfigs + c] -= rmean + cmean[c] - grand;
	}
	free(cmean);
}

bool
wsb_speed_fit(const WsbRoundRun *runs, int nruns, int nconfigs, WsbSpeedFit *fit)
{
	WsbRoundIndex ix;
	double	   *y = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	double	   *x = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	double		sxx = 0,
				sxy = 0,
				syy = 0;
	int			n = 0;

	memset(fit, 0, sizeof(*fit));
	fit->slope = fit->r2 = fit->centre = fit->slope_var = NAN;
	if (!wsb_index_rounds(runs, nruns, nconfigs, &ix))
		goto done;
	if (y == NULL || x == NULL || nconfigs < 2)
		goto done;
	for (int k = 0; k < ix.nrounds; k++)
	{
		const int  *at = &ix.idx[k * nconfigs];
		int			measured = round_measured(runs, &ix, nconfigs, k);

		if (measured == 0)
			continue;
		if (measured < 0)
		{
			/* a paired round without the gauge: tps as measured throughout */
			n = 0;
			break;
		}
		for (int c = 0; c < nconfigs; c++)
		{
			y[n * nconfigs + c] = log(runs[at[c]].tps);
			x[n * nconfigs + c] = log(runs[at[c]].machine_us);
		}
		n++;
	}
	fit->rounds = n;
	if (n < WSB_SPEED_MIN_ROUNDS)
		goto done;
	fit->centre = 0;
	for (int i = 0; i < n * nconfigs; i++)
		fit->centre += x[i] / (n * nconfigs);
	within(y, n, nconfigs);
	within(x, n, nconfigs);
	for (int i = 0; i < n * nconfigs; i++)
	{
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
		syy += y[i] * y[i];
	}
	if (!(sxx > 0) || !(syy > 0))
		goto done;
	fit->slope = sxy / sxx;
	fit->r2 = sxy * sxy / (sxx * syy);
	/* the residual variance of a run on (n - 1)(k - 1) - 1 degrees of
	 * freedom, and the slope's variance from it */
	if ((n - 1) * (nconfigs - 1) - 1 < 1)
		goto done;
	fit->slope_var = (syy - sxy * sxy / sxx) / ((n - 1) * (nconfigs - 1) - 1) / sxx;
	fit->used = true;
done:
	wsb_index_free(&ix);
	free(y);
	free(x);
	return fit->used;
}

void
wsb_speed_adjust(WsbRoundRun *runs, int nruns, const WsbSpeedFit *fit)
{
	if (!fit->used)
		return;
	for (int i = 0; i < nruns; i++)
		if (runs[i].machine_us > 0 && runs[i].tps > 0)
			runs[i].tps *= exp(-fit->slope * (log(runs[i].machine_us) - fit->centre));
}

/*
 * ln(machine_us of c / machine_us of the baseline) over the rounds the
 * fit used: its mean, how far c's runs met another machine than the
 * baseline's (which carries the slope's own error into c's estimate), and
 * the 95% t interval of that mean, which tells chance from a
 * configuration that moves the gauge itself (the fit assumes none does).
 * False without two such rounds.
 */
bool
wsb_speed_gap(const WsbRoundRun *runs, int nruns, int nconfigs, int c, WsbSpeedGap *gap)
{
	WsbRoundIndex ix;
	double		sum = 0,
				sum2 = 0;
	int			n = 0;

	gap->mean = gap->low = gap->high = NAN;
	if (!wsb_index_rounds(runs, nruns, nconfigs, &ix))
		return false;
	for (int k = 0; k < ix.nrounds; k++)
		if (round_measured(runs, &ix, nconfigs, k) == 1)
		{
			const int  *at = &ix.idx[k * nconfigs];
			double		d = log(runs[at[c]].machine_us / runs[at[0]].machine_us);

			sum += d;
			sum2 += d * d;
			n++;
		}
	wsb_index_free(&ix);
	if (n < 2)
		return false;
	gap->mean = sum / n;
	{
		double		var = fmax(0, (sum2 - n * gap->mean * gap->mean) / (n - 1));
		double		half = wsb_t_quantile(0.975, n - 1) * sqrt(var / n);

		gap->low = gap->mean - half;
		gap->high = gap->mean + half;
	}
	return true;
}
