/*-------------------------------------------------------------------------
 *
 * test_unit_tipping.c
 *		wal_stall_bench unit tests: the tipping point of a sweep
 *		(tipping.c) on constructed values and verdicts: each case of the
 *		rule and its sentence, the order, and the bound on what tps can
 *		show.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_unit.h"
#include "tipping.h"

static WsbPaired verdicts[8];

/* A verdict with its word, its words and its interval. */
static const WsbPaired *
verdict(int i, WsbWord word, const char *words, double low, double high, int rounds)
{
	WsbPaired  *p = &verdicts[i];

	memset(p, 0, sizeof(*p));
	p->word = word;
	p->decided = word != WSB_W_INCONCLUSIVE && word != WSB_W_BASELINE;
	p->low = p->low_alone = low;
	p->high = p->high_alone = high;
	p->alpha_used = 0.05;
	p->equiv_alone = word == WSB_W_EQUIVALENT;
	p->ratio = (low + high) / 2;
	p->rounds = rounds;
	snprintf(p->words, sizeof(p->words), "%s", words);
	return p;
}

/* A sweep of wal_buffers sizes: 64kB .. 16MB, 16MB the baseline. */
static void
ring_sweep(WsbTipValue *v, const double *share, const WsbPaired *const *tps, int n)
{
	static const double kb[] = {64, 256, 1024, 4096, 16384};

	for (int i = 0; i < n; i++)
	{
		memset(&v[i], 0, sizeof(v[i]));
		v[i].value = kb[i] * 1024;
		if (kb[i] >= 1024)
			snprintf(v[i].name, sizeof(v[i].name), "%.0fMB", kb[i] / 1024);
		else
			snprintf(v[i].name, sizeof(v[i].name), "%.0fkB", kb[i]);
		v[i].known = true;
		v[i].stall_share = share[i];
		v[i].settled = share[i] < 0.01;
		snprintf(v[i].stalls, sizeof(v[i].stalls), "wrap-around %.1f%% of client time", 100.0 * share[i]);
		v[i].baseline = i == n - 1;
		v[i].tps = tps[i];
	}
}

static const WsbTipSweep ring = {
	.noun = "size",
	.settled_rule = "wrap-around stalls take under 1% of client time",
	.larger = "a larger ring",
	.margin_pct = 10,
	.baseline_label = "wal_buffers=16MB",
};

void
test_tipping(void)
{
	WsbTipValue v[5];
	char		s[2048];
	const WsbPaired *base = verdict(4, WSB_W_BASELINE, "baseline", NAN, NAN, 0);
	WsbTip		t;

	/* 256kB on settled and equivalent: the tipping point */
	{
		double		share[] = {0.20, 0.004, 0.002, 0.001, 0.0005};
		const WsbPaired *tps[] = {
			verdict(0, WSB_W_SLOWER, "slower by >= 10%", 0.62, 0.80, 9),
			verdict(1, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.95, 1.04, 9),
			verdict(2, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.96, 1.03, 9),
			verdict(3, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.97, 1.02, 9), base};

		ring_sweep(v, share, tps, 5);
		t = wsb_tip_find(v, 5);
		check(t.known == 5 && t.tip == 1 && t.settled_from == 1,
			  "tipping: 256kB, from which every size is settled and equivalent (tip %d, settled from %d)",
			  t.tip, t.settled_from);
		wsb_tip_sentence(&ring, v, 5, s, sizeof(s));
		check(strstr(s, "The tipping point on this machine: 256kB.") &&
			  strstr(s, "(256kB: wrap-around 0.4% of client time; 16MB: wrap-around 0.1% of client time)") &&
			  strstr(s, "at 64kB, wrap-around 20.0% of client time, and tps by rounds: slower by >= 10%"),
			  "tipping: the sentence names it, its figures and the size below (%s)", s);
	}

	/* settled, but tps not resolved: no tipping point, and why */
	{
		double		share[] = {0.20, 0.012, 0.009, 0.003, 0.001};
		const WsbPaired *tps[] = {
			verdict(0, WSB_W_SLOWER, "slower by >= 10%", 0.62, 0.80, 9),
			verdict(1, WSB_W_INCONCLUSIVE, "inconclusive [-7.0%, +14.5%]", 0.93, 1.145, 9),
			verdict(2, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.96, 1.03, 9),
			verdict(3, WSB_W_INCONCLUSIVE, "inconclusive [-8.0%, +12.0%]", 0.92, 1.12, 9), base};

		ring_sweep(v, share, tps, 5);
		t = wsb_tip_find(v, 5);
		check(t.tip == 4 && t.settled_from == 2,
			  "tipping: 4MB inconclusive keeps every smaller size out (tip %d, settled from %d)",
			  t.tip, t.settled_from);
		wsb_tip_sentence(&ring, v, 5, s, sizeof(s));
		check(strstr(s, "No size in the sweep reaches the tipping point: from 1MB on wrap-around stalls "
					 "take under 1% of client time") &&
			  strstr(s, "but tps at 4MB is not shown equivalent within +-10% even by itself (4MB [-8.0%, "
					 "+12.0%] at 90%): inconclusive [-8.0%, +12.0%]."),
			  "tipping: settled from 1MB, tps at 4MB unresolved (%s)", s);
		check(strstr(s, "From 1MB on, the stalls a larger ring would remove take at most 0.8% of client "
					 "time (at 1MB): at most about 0.8% of tps, inside even the narrowest interval 9 "
					 "rounds give at this noise ([-8.0%, +12.0%] at 4MB)."),
			  "tipping: and that tps cannot resolve what those stalls could cost (%s)", s);
	}

	/*
	 * 4MB and 1MB inconclusive by Holm's shares but equivalent each by
	 * itself: the fixed sequence from the largest down reaches 1MB, and
	 * stops at 256kB, whose stalls are not settled
	 */
	{
		double		share[] = {0.20, 0.016, 0.008, 0.001, 0.0005};
		WsbPaired  *p;
		const WsbPaired *tps[] = {
			verdict(0, WSB_W_SLOWER, "slower by >= 10%", 0.62, 0.80, 22),
			verdict(1, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.95, 1.04, 22),
			verdict(2, WSB_W_INCONCLUSIVE, "inconclusive [-10.9%, +13.1%]", 0.891, 1.131, 22),
			verdict(3, WSB_W_INCONCLUSIVE, "inconclusive [-10.5%, +17.3%]", 0.895, 1.173, 22), base};

		for (int i = 2; i <= 3; i++)
		{
			p = &verdicts[i];
			p->equiv_alone = true;
			p->alpha_used = 0.0298;
			p->low_alone = i == 2 ? 0.903 : 0.938;
			p->high_alone = i == 2 ? 1.043 : 1.087;
		}
		ring_sweep(v, share, tps, 5);
		t = wsb_tip_find(v, 5);
		check(t.tip == 2, "tipping: a fixed sequence of claims, each at the look's alpha, reaches 1MB (tip %d)",
			  t.tip);
		wsb_tip_sentence(&ring, v, 5, s, sizeof(s));
		check(strstr(s, "The tipping point on this machine: 1MB.") &&
			  strstr(s, "(each size from the largest down, at 94.04% while every larger one holds: "
					 "4MB [-6.2%, +8.7%], 1MB [-9.7%, +4.3%])") &&
			  strstr(s, "at 256kB, wrap-around 1.6% of client time, and tps by rounds: equivalent within +-10%"),
			  "tipping: the sentence gives each claim's interval in the sequence's order (%s)", s);
	}

	/* nothing settles below the largest */
	{
		double		share[] = {0.40, 0.30, 0.20, 0.05, 0.001};
		const WsbPaired *tps[] = {
			verdict(0, WSB_W_SLOWER, "slower by >= 10%", 0.5, 0.6, 6),
			verdict(1, WSB_W_SLOWER, "slower by >= 10%", 0.6, 0.7, 6),
			verdict(2, WSB_W_SLOWER, "slower by >= 10%", 0.7, 0.8, 6),
			verdict(3, WSB_W_INCONCLUSIVE, "inconclusive [-20.0%, +1.0%]", 0.8, 1.01, 6), base};

		ring_sweep(v, share, tps, 5);
		wsb_tip_sentence(&ring, v, 5, s, sizeof(s));
		check(strstr(s, "No size in the sweep reaches the tipping point: at 4MB, the next below the largest "
					 "(16MB), wrap-around 5.0% of client time against wrap-around 0.1% of client time") &&
			  !strstr(s, "at most about"),
			  "tipping: none settled; a 5%% share is no bound inside [-20%%, +1%%] (%s)", s);
	}

	/* the smallest already there */
	{
		double		share[] = {0.002, 0.001, 0.001, 0.001, 0.001};
		const WsbPaired *tps[] = {
			verdict(0, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.95, 1.04, 6),
			verdict(1, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.95, 1.04, 6),
			verdict(2, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.95, 1.04, 6),
			verdict(3, WSB_W_EQUIVALENT, "equivalent within +-10%", 0.95, 1.04, 6), base};

		ring_sweep(v, share, tps, 5);
		wsb_tip_sentence(&ring, v, 5, s, sizeof(s));
		check(strstr(s, "The tipping point on this machine is at or below 64kB, the smallest size of the "
					 "sweep") && strstr(s, "a smaller size would tell where it lies"),
			  "tipping: at or below the smallest (%s)", s);
	}

	/* the largest not the baseline; too few values; the order */
	{
		double		share[] = {0.20, 0.001};
		const WsbPaired *tps[] = {base, verdict(1, WSB_W_FASTER, "faster by >= 10%", 1.2, 1.4, 6)};
		WsbTipValue w[3];

		ring_sweep(v, share, tps, 2);
		v[0].baseline = true;
		v[1].baseline = false;
		wsb_tip_sentence(&ring, v, 2, s, sizeof(s));
		check(strstr(s, "No tipping point: tps is judged against the baseline (wal_buffers=16MB), and the "
					 "largest size (256kB) is not it; put the largest size first.") != NULL,
			  "tipping: the largest must be the baseline (%s)", s);
		wsb_tip_sentence(&ring, v, 1, s, sizeof(s));
		check(strstr(s, "fewer than two sizes") != NULL, "tipping: one size, no rule (%s)", s);

		memset(w, 0, sizeof(w));
		w[0].value = 4096;
		w[0].known = true;
		w[1].value = NAN;
		w[1].known = true;
		w[2].value = 1024;
		w[2].known = false;
		w[0].stall_share = 4;
		w[1].stall_share = 5;
		w[2].stall_share = 1;
		wsb_tip_sort(w, 3);
		check(w[0].stall_share == 4 && w[1].stall_share == 5 && w[2].stall_share == 1,
			  "tipping: sorted by value, unknown values and values without figures last");
	}
}
