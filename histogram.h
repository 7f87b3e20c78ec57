/*-------------------------------------------------------------------------
 *
 * histogram.h
 *		Per-class figures and the episode-length histogram (histogram.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_HISTOGRAM_H
#define WAL_STALL_HISTOGRAM_H

/*
 * Episode-length histogram, in samples: bucket 0 holds one-sample episodes,
 * bucket k holds 2^(k-1) + 1 to 2^k samples.  Edges sit half an interval off
 * the multiples of the interval, (0, 1.5], (1.5, 2.5], (2.5, 4.5] ... times
 * the base, so that jitter around one interval does not split a sample
 * count across two buckets.
 */
#define WS_HIST_BUCKETS			32

typedef struct WalStallClassStats
{
	int64		episodes;
	int64		samples;
	uint64		total_ns;
	uint64		max_ns;
	int64		hist[WS_HIST_BUCKETS];
	uint64		hist_ns[WS_HIST_BUCKETS];	/* summed durations per bucket */
} WalStallClassStats;

/*
 * The largest count or sum of nanoseconds the figures hold: a quarter of
 * int64's range (4.6e18: 146 years of summed waits), far beyond what a
 * collector counts, and low enough that the views' sums over classes and
 * buckets cannot overflow.  The collector's additions stop there rather
 * than wrap, and a save file holding more is refused (persist.c).
 */
#define WS_FIGURE_MAX			(INT64CONST(1) << 62)

/* sum + n, stopping at WS_FIGURE_MAX; n is not negative */
static inline int64
ws_add_count(int64 sum, int64 n)
{
	if (sum >= WS_FIGURE_MAX || n >= WS_FIGURE_MAX - sum)
		return WS_FIGURE_MAX;
	return sum + n;
}

/* the same for a sum of nanoseconds */
static inline uint64
ws_add_ns(uint64 sum, uint64 n)
{
	if (sum >= (uint64) WS_FIGURE_MAX || n >= (uint64) WS_FIGURE_MAX - sum)
		return (uint64) WS_FIGURE_MAX;
	return sum + n;
}

extern int	ws_hist_bucket(uint64 duration_ns, uint64 base_ns);
extern void ws_hist_bounds(int bucket, uint64 base_ns, double *lower_ns, double *upper_ns);
extern double ws_histogram_percentile(const WalStallClassStats *stats, uint64 base_ns,
									  double fraction);

#endif							/* WAL_STALL_HISTOGRAM_H */
