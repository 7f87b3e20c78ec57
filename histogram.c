/*-------------------------------------------------------------------------
 *
 * histogram.c
 *		The episode-length histogram: its buckets, their edges, and the
 *		percentiles the views estimate from them.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "histogram.h"
#include "wal_stall.h"

/*
 * ws_hist_bucket
 *		Histogram bucket of an episode (see WS_HIST_BUCKETS): the first whose
 *		upper edge, base * 2^k + base / 2, is not below the duration; the
 *		last bucket takes everything longer.
 */
int
ws_hist_bucket(uint64 duration_ns, uint64 base_ns)
{
	int			k = 0;

	if (base_ns == 0)
		base_ns = 1;
	while (k < WS_HIST_BUCKETS - 1 && duration_ns > (base_ns << k) + base_ns / 2)
		k++;
	return k;
}

/*
 * ws_hist_bounds
 *		Edges of histogram bucket k, in nanoseconds: (lower, upper].
 */
void
ws_hist_bounds(int bucket, uint64 base_ns, double *lower_ns, double *upper_ns)
{
	double		half = base_ns / 2.0;

	*upper_ns = ldexp((double) base_ns, bucket) + half;
	*lower_ns = (bucket == 0) ? 0.0 : ldexp((double) base_ns, bucket - 1) + half;
}

/*
 * ws_histogram_percentile
 *		Estimate a percentile of episode length, in ms, from the histogram.
 *
 * Inside the bucket that holds it, episodes are taken as spread evenly over
 * the widest range around the bucket's mean that stays within the bucket:
 * one-sample episodes all sit near one interval, and spreading them over
 * the whole bucket would report half an interval for a single 1 ms episode.
 * Never above the longest episode seen.  Buckets are powers of two, and so
 * is the worst-case precision.
 */
double
ws_histogram_percentile(const WalStallClassStats *stats, uint64 base_ns, double fraction)
{
	double		target = fraction * stats->episodes;
	double		cumulative = 0;

	for (int k = 0; k < WS_HIST_BUCKETS; k++)
	{
		double		lower,
					upper,
					mean,
					half_width,
					value;

		if (stats->hist[k] == 0 || cumulative + stats->hist[k] < target)
		{
			cumulative += stats->hist[k];
			continue;
		}
		ws_hist_bounds(k, base_ns, &lower, &upper);
		upper = Min(upper, (double) stats->max_ns);
		mean = (double) stats->hist_ns[k] / stats->hist[k];
		half_width = Max(0.0, Min(mean - lower, upper - mean));
		value = (mean - half_width) +
			2 * half_width * (target - cumulative) / stats->hist[k];
		return Min(value, (double) stats->max_ns) / WS_NS_PER_MS;
	}
	return stats->max_ns / WS_NS_PER_MS;
}
