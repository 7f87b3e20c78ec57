/*-------------------------------------------------------------------------
 *
 * tipping.h
 *		wal_stall_bench: the tipping point of a sweep over an ordered
 *		setting (CLOG buffers, wal_buffers), one rule and one sentence for
 *		every sweep (tipping.c).
 *
 * The tipping point is the smallest value from which on, at every value of
 * the sweep, the stalls the setting governs are settled where the largest
 * value's are (the sweep says what settled means: misses within 1% of the
 * lookups, a negligible share of client time) and tps is equivalent within
 * the margin to the largest value's.  The tps verdicts are against the
 * baseline, so the largest value must be the baseline.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_TIPPING_H
#define WSB_TIPPING_H

#include <stdbool.h>
#include <stddef.h>
#include "verdict.h"

/* One value of the sweep, as the rule reads it. */
typedef struct WsbTipValue
{
	double		value;			/* in the setting's unit: the sweep's order; NAN unknown */
	char		name[64];		/* "128 buffers", "64kB" */
	bool		known;			/* has the stall figures */
	bool		settled;		/* its stalls settled where the largest value's are */
	char		stalls[160];	/* its stall figure in words: "0.09% of the lookups miss" */
	double		stall_share;	/* share of client time in those stalls, NAN unknown */
	bool		baseline;		/* the plan's first configuration */
	const WsbPaired *tps;		/* against the baseline, NULL when not judged */
} WsbTipValue;

/* What the sweep is over, for the sentence. */
typedef struct WsbTipSweep
{
	const char *noun;			/* a value of it: "count", "size" */
	const char *settled_rule;	/* "the CLOG misses are within 1% of the lookups
								 * of the largest count's" */
	const char *larger;			/* what a larger value removes: "more CLOG buffers" */
	double		margin_pct;
	const char *baseline_label;
} WsbTipSweep;

/* Where the rule lands on a sorted sweep. */
typedef struct WsbTip
{
	int			known;			/* values with figures, sorted first */
	int			tip;			/* the tipping value, -1 none */
	int			settled_from;	/* the smallest from which on every value is
								 * settled, stalls alone */
} WsbTip;

/* the index of a configuration among those judged, -1 if absent */
extern int	wsb_tip_config(const WsbVerdicts *v, const char *label);
/* the tps verdict of the configuration labelled label, or NULL */
extern const WsbPaired *wsb_tip_tps(const WsbVerdicts *v, const char *label);
extern void wsb_tip_sort(WsbTipValue *v, int n);
extern WsbTip wsb_tip_find(const WsbTipValue *v, int n);
extern void wsb_tip_sentence(const WsbTipSweep *s, const WsbTipValue *v, int n, char *buf, size_t len);

#endif							/* WSB_TIPPING_H */
