/*-------------------------------------------------------------------------
 *
 * test_unit_verdict.c
 *		wal_stall_bench: unit tests of the verdict by rounds (verdict.c) and
 *		of what round_table.c reads and verdict_report.c writes, on fixed data with known answers.
 *
 * The expected figures are worked out independently of the code: t
 * quantiles from published tables, or for 2 degrees of freedom from the
 * closed form F(t) = 1/2 + t / (2 sqrt(2 + t^2)), i.e. t = q sqrt(2 / (1 -
 * q^2)) with q = 2p - 1; logs and means by hand (shown in the comments,
 * checked with a separate Python script).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expbuffer.h"
#include "wsb.h"
#include "engine.h"
#include "verdict.h"
#include "experiment.h"
#include "test_unit.h"

static bool
near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* t quantile for 2 df, closed form (see the header) */
static double
t2(double p)
{
	double		q = 2 * p - 1;

	return q * sqrt(2 / (1 - q * q));
}

/* A table of rounds: tps[round][config], everything ok, untraced. */
static WsbRoundRun *
rounds_of(int nrounds, int nconfigs, const double *tps, int *nruns)
{
	WsbRoundRun *r = calloc(nrounds * nconfigs, sizeof(WsbRoundRun));

	for (int i = 0; i < nrounds; i++)
		for (int c = 0; c < nconfigs; c++)
		{
			WsbRoundRun *x = &r[i * nconfigs + c];

			x->config = c;
			x->round = i + 1;
			x->position = c + 1;
			x->ok = true;
			x->tps = tps[i * nconfigs + c];
			x->client_ms = NAN;
			x->latency_p99_ms = x->longest_stall_ms = NAN;
			for (int k = 0; k < WSB_N_STALL; k++)
				x->stall_ms[k] = x->episodes[k] = NAN;
		}
	*nruns = nrounds * nconfigs;
	return r;
}

static WsbJudgeSpec
spec5(void)
{
	WsbJudgeSpec s = {5, 0.05, 0, 0};

	return s;
}

/* the 2012 pgsql-hackers figures, read as three rounds */
static void
test_2012(void)
{
	const double tps[] = {13069, 14916, 14370, 14746, 13787, 15110};
	WsbJudgeSpec s = spec5();
	WsbPaired	v[2 * WSB_N_METRICS];
	int			n;
	WsbRoundRun *r = rounds_of(3, 2, tps, &n);
	const WsbPaired *p = &v[WSB_N_METRICS + WSB_M_TPS];
	double		d[3],
				m,
				sd;

	wsb_judge_rounds(r, n, 2, &s, v);
	/*
	 * d = ln(14916/13069), ln(14746/14370), ln(15110/13787) = 0.1321914,
	 * 0.0258292, 0.0916307; mean 0.0832171 -> ratio 1.0867777; sd 0.0536780;
	 * t(0.975, 2) = 4.3026527: exp(0.0832171 -+ 4.3026527 * 0.0536780 /
	 * sqrt 3) = [0.9511092, 1.2417983]
	 */
	check(p->rounds == 3 && near(p->ratio, 1.0867777, 1e-6),
		  "2012 data: geometric-mean ratio of 3 rounds is 1.086778 (got %d rounds, %.7f)", p->rounds, p->ratio);
	check(near(p->low, 0.9511092, 1e-6) && near(p->high, 1.2417983, 1e-6),
		  "2012 data: paired t 95%% interval [0.951109, 1.241798] (got [%.7f, %.7f])", p->low, p->high);
	/* t = 0.0832171 / (0.0536780 / sqrt 3) = 2.6852022; 2 df: p = 1 - t / sqrt(2 + t^2) */
	check(near(p->p, 1 - 2.6852022 / sqrt(2 + 2.6852022 * 2.6852022), 1e-6),
		  "2012 data: paired t p = 0.115211 (got %.6f)", p->p);
	/*
	 * three rounds carry no word at 5%: a sign-flip test of 3 rounds
	 * reaches p = 1/8 at best one-sided, 1/4 two-sided; equivalence needs
	 * 1/2^n <= 0.05, 5 rounds, a direction 2/2^n <= 0.05, 6
	 */
	check(p->word == WSB_W_TOO_FEW && p->more_rounds == 2 && p->rounds_equiv == 5 &&
		  p->rounds_dir == 6 &&
		  strcmp(p->words, "too few rounds for a verdict at 5%: needs 5 (6 for faster or slower)") == 0,
		  "2012 data: \"%s\"", p->words);
	check(!p->decided && isnan(p->rank_p), "2012 data: undecided; no rank test under 6 rounds");
	n = wsb_paired_logs(r, 6, 2, 1, WSB_M_TPS, d, NULL);
	wsb_paired_summary(d, n, &m, &sd);
	check(n == 3 && near(sd, 0.0536780, 1e-6), "2012 data: sd of the log ratios 0.053678 (got %.7f)", sd);
	free(r);
}

/*
 * The README's Results run (wal_stall_bench --preset wal_buffers_small,
 * 3 rounds): the unpaired intervals of the run means (Welch's) were 88.6,
 * 87.9 and 87.5 points wide; the same runs paired by round, each
 * configuration judged alone, give 25.7, 33.9 and 59.6 (t(0.975, 2) =
 * 4.302653).
 */
static void
test_readme_results(void)
{
	const double base[] = {430, 544, 658};
	const double cfg[3][3] = {{446, 575, 632}, {468, 601, 646}, {501, 662, 655}};
	const double width[3] = {25.69851, 33.89278, 59.57822};
	const double unpaired[3] = {88.6, 87.9, 87.5};

	for (int c = 0; c < 3; c++)
	{
		double		tps[6];
		WsbPaired	v[2 * WSB_N_METRICS];
		WsbJudgeSpec s = spec5();
		int			n;
		WsbRoundRun *r;

		for (int i = 0; i < 3; i++)
		{
			tps[2 * i] = base[i];
			tps[2 * i + 1] = cfg[c][i];
		}
		r = rounds_of(3, 2, tps, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(near(100 * (v[WSB_N_METRICS].high - v[WSB_N_METRICS].low), width[c], 1e-3) &&
			  100 * (v[WSB_N_METRICS].high - v[WSB_N_METRICS].low) < unpaired[c],
			  "README Results, configuration %d: paired interval %.1f points wide, narrower than the unpaired %.1f",
			  c + 1, 100 * (v[WSB_N_METRICS].high - v[WSB_N_METRICS].low), unpaired[c]);
		free(r);
	}
}

/*
 * Linear drift: the machine gets 15% faster every round (+75% over six),
 * the configuration is 10% faster than the baseline of its round, with
 * +-1% noise on each.  Paired: the interval covers 1.10 and the verdict is
 * "faster by >= 5%", where an unpaired comparison of the run means would
 * count the drift as noise.
 */
static void
test_drift(void)
{
	const double noise_b[6] = {0.01, -0.01, 0.005, -0.005, 0, 0.008};
	const double noise_x[6] = {-0.008, 0.004, 0.01, -0.01, 0.006, -0.004};
	double		tps[12];
	WsbPaired	v[2 * WSB_N_METRICS];
	WsbJudgeSpec s = spec5();
	int			n;
	WsbRoundRun *r;

	for (int i = 0; i < 6; i++)
	{
		double		machine = 1000 * (1 + 0.15 * i);

		tps[2 * i] = machine * (1 + noise_b[i]);
		tps[2 * i + 1] = 1.10 * machine * (1 + noise_x[i]);
	}
	r = rounds_of(6, 2, tps, &n);
	wsb_judge_rounds(r, n, 2, &s, v);
	check(v[WSB_N_METRICS].low < 1.10 && v[WSB_N_METRICS].high > 1.10 &&
		  v[WSB_N_METRICS].high - v[WSB_N_METRICS].low < 0.05,
		  "drift: paired interval covers the true 1.10 and is narrow ([%.4f, %.4f])",
		  v[WSB_N_METRICS].low, v[WSB_N_METRICS].high);
	check(strcmp(v[WSB_N_METRICS].words, "faster by >= 5%") == 0 && v[WSB_N_METRICS].decided,
		  "drift: \"faster by >= 5%%\" (got \"%s\")", v[WSB_N_METRICS].words);
	/* six rounds all one way: exact signed-rank p = 2 / 2^6 */
	check(near(v[WSB_N_METRICS].rank_p, 2.0 / 64, 1e-12), "drift: signed-rank p 0.03125 (got %g)",
		  v[WSB_N_METRICS].rank_p);
	free(r);
}

static void
test_words(void)
{
	WsbJudgeSpec s = spec5();
	WsbPaired	v[4 * WSB_N_METRICS];
	int			n;

	/* three configurations against one baseline of 1000 tps a round */
	{
		/*
		 * 1: +30%, 2: -30%, 3: +-0.3% around no change; 8 rounds (Holm's
		 * first share, 5% / 3, needs 7 for a direction)
		 */
		const double tps[] = {
			1000, 1300, 700, 1003,
			1000, 1310, 702, 998,
			1000, 1290, 698, 1001,
			1000, 1305, 700, 999,
			1000, 1300, 700, 1003,
			1000, 1310, 702, 998,
			1000, 1290, 698, 1001,
			1000, 1305, 700, 999
		};
		WsbRoundRun *r = rounds_of(8, 4, tps, &n);

		wsb_judge_rounds(r, n, 4, &s, v);
		check(strcmp(v[1 * WSB_N_METRICS].words, "faster by >= 5%") == 0,
			  "words: +30%% every round is \"faster by >= 5%%\" (got \"%s\")", v[WSB_N_METRICS].words);
		check(strcmp(v[2 * WSB_N_METRICS].words, "slower by >= 5%") == 0,
			  "words: -30%% is \"slower by >= 5%%\" (got \"%s\")", v[2 * WSB_N_METRICS].words);
		/* the 90% interval, Holm's 1 - 10% / 3 for the first of three, in the words */
		check(strcmp(v[3 * WSB_N_METRICS].words, "equivalent within +-5%: [-0.2%, +0.2%] at 96.7%") == 0 &&
			  v[3 * WSB_N_METRICS].low90 > 0.95 && v[3 * WSB_N_METRICS].high90 < 1.05,
			  "words: +-0.3%% is \"equivalent within +-5%%\" by TOST's 90%% interval (got \"%s\")",
			  v[3 * WSB_N_METRICS].words);
		check(strcmp(v[0].words, "baseline") == 0, "words: the baseline is \"baseline\"");
		/*
		 * Holm: the p of configuration 3 is the largest of the three, so its
		 * interval is drawn at 95%; the other two at 1 - 0.05/3 and 1 - 0.05/2
		 * in the order of their p
		 */
		check(near(v[3 * WSB_N_METRICS].level, 0.95, 1e-12) &&
			  (near(v[1 * WSB_N_METRICS].level, 1 - 0.05 / 3, 1e-12) ||
			   near(v[1 * WSB_N_METRICS].level, 1 - 0.05 / 2, 1e-12)) &&
			  v[1 * WSB_N_METRICS].level != v[2 * WSB_N_METRICS].level,
			  "Holm: levels %.4f %.4f %.4f", v[1 * WSB_N_METRICS].level, v[2 * WSB_N_METRICS].level,
			  v[3 * WSB_N_METRICS].level);
		free(r);
	}
	{
		/*
		 * +3%, +6%, +9%, +6%, twice: d mean ln-ish 0.0580, sd 0.0262; 95%
		 * with 7 df (t 2.364624): about [1.037, 1.083]: excludes 1,
		 * overlaps +5%
		 */
		const double tps[] = {1000, 1030, 1000, 1060, 1000, 1090, 1000, 1060,
		1000, 1030, 1000, 1060, 1000, 1090, 1000, 1060};
		WsbRoundRun *r = rounds_of(8, 2, tps, &n);

		wsb_judge_rounds(r, n, 2, &s, v);
		check(strcmp(v[WSB_N_METRICS].words, "faster") == 0 && v[WSB_N_METRICS].low > 1 &&
			  v[WSB_N_METRICS].low < 1.05 && !v[WSB_N_METRICS].decided,
			  "words: +3/+6/+9/+6%% is \"faster\", not by the margin ([%.3f, %.3f], \"%s\")",
			  v[WSB_N_METRICS].low, v[WSB_N_METRICS].high, v[WSB_N_METRICS].words);
		free(r);
	}
	{
		const double tps[] = {1000, 1300};
		WsbRoundRun *r = rounds_of(1, 2, tps, &n);

		wsb_judge_rounds(r, n, 2, &s, v);
		check(strcmp(v[WSB_N_METRICS].words, "too few rounds") == 0 && v[WSB_N_METRICS].rounds == 1,
			  "words: one round is \"too few rounds\" (got \"%s\")", v[WSB_N_METRICS].words);
		free(r);
	}
	{
		/*
		 * margin 10: +6% every round, spread 0.5%: its 90% interval lies
		 * inside +-10%, so under that margin the change does not matter;
		 * but its 95% interval excludes 1, and the words say which way:
		 * the three rounds twice, mean log 0.058259, sd 0.004218,
		 * t(0.975, 5) 2.570582: +5.5% to +6.5%
		 */
		const double tps[] = {1000, 1060, 1000, 1065, 1000, 1055,
		1000, 1060, 1000, 1065, 1000, 1055};
		WsbRoundRun *r = rounds_of(6, 2, tps, &n);
		WsbJudgeSpec s10 = {10, 0.05, 0, 0};

		wsb_judge_rounds(r, n, 2, &s10, v);
		check(strcmp(v[WSB_N_METRICS].words, "equivalent within +-10%, 6.0% faster [+5.5%, +6.5%]") == 0 &&
			  v[WSB_N_METRICS].word == WSB_W_EQUIVALENT && v[WSB_N_METRICS].decided,
			  "margin 10: +6%% is \"equivalent within +-10%%, 6.0%% faster [+5.5%%, +6.5%%]\": both words "
			  "(got \"%s\")", v[WSB_N_METRICS].words);
		s10.margin_pct = 2;
		wsb_judge_rounds(r, n, 2, &s10, v);
		check(strcmp(v[WSB_N_METRICS].words, "faster by >= 2%") == 0,
			  "margin 2: the same rounds are \"faster by >= 2%%\" (got \"%s\")", v[WSB_N_METRICS].words);
		free(r);
	}
}

/*
 * Holm over the equivalence tests: three configurations, each with a
 * mean log ratio of 0 and +-0.04546 alternating over six rounds (sd
 * 0.049799, se 0.020331).  Alone, its 90% interval (t(0.95, 5) 2.015:
 * +-0.04097) lies inside +-5% (log 1.05 = 0.04879): equivalent.  Three of
 * them: the first is tested at 5% / 3, t(1 - 0.05 / 3, 5) 2.9 times se
 * reaches 0.0589, past the margin, and Holm stops there: none is.
 */
static void
test_equivalence_holm(void)
{
	double		tps[6 * 4];
	WsbPaired	v[4 * WSB_N_METRICS];
	WsbJudgeSpec s = spec5();
	WsbRoundRun *r;
	int			n;
	int			equivalent = 0;

	for (int i = 0; i < 6; i++)
	{
		tps[4 * i] = 1000;
		for (int c = 1; c < 4; c++)
			tps[4 * i + c] = 1000 * exp(i % 2 ? -0.04546 : 0.04546);
	}
	r = rounds_of(6, 4, tps, &n);
	wsb_judge_rounds(r, n, 2, &s, v);
	check(strcmp(v[WSB_N_METRICS].words, "equivalent within +-5%: [-4.0%, +4.2%] at 90%") == 0 &&
		  near(v[WSB_N_METRICS].level90, 0.90, 1e-12),
		  "equivalence, one configuration: its 90%% interval inside +-5%% (got \"%s\")",
		  v[WSB_N_METRICS].words);
	wsb_judge_rounds(r, n, 4, &s, v);
	for (int c = 1; c < 4; c++)
		equivalent += v[c * WSB_N_METRICS].word == WSB_W_EQUIVALENT;
	check(equivalent == 0 && near(v[WSB_N_METRICS].level90, 1 - 0.1 / 3, 1e-12) &&
		  v[WSB_N_METRICS].p_equiv_holm > 0.05 && v[WSB_N_METRICS].p_equiv < 0.05,
		  "equivalence, three such configurations: Holm over them, none equivalent "
		  "(%d; TOST p %.4f, Holm %.4f; interval at %.4f)", equivalent, v[WSB_N_METRICS].p_equiv,
		  v[WSB_N_METRICS].p_equiv_holm, v[WSB_N_METRICS].level90);
	free(r);
}

/* a failed run leaves its round out; a traced run leaves its pair out */
static void
test_left_out(void)
{
	const double tps[] = {1000, 1100, 1000, 1110, 1000, 1090, 1000, 1105};
	WsbJudgeSpec s = spec5();
	WsbPaired	v[2 * WSB_N_METRICS];
	int			n;
	WsbRoundRun *r = rounds_of(4, 2, tps, &n);
	WsbRoundTable t;
	char		left[256];
	int			rounds[4];
	double		d[4];

	r[2].ok = false;			/* round 2's baseline failed */
	r[2].tps = 0;
	wsb_judge_rounds(r, n, 2, &s, v);
	check(v[WSB_N_METRICS].rounds == 3 && !wsb_round_complete(r, n, 2, 2) && wsb_round_complete(r, n, 2, 3),
		  "a round with a failed run is left out (%d rounds used)", v[WSB_N_METRICS].rounds);
	memset(&t, 0, sizeof(t));
	t.nconfigs = 2;
	t.nruns = n;
	t.runs = r;
	{
		PQExpBufferData b;

		initPQExpBuffer(&b);
		wsb_left_out_rounds(&t, &b);
		wsb_strlcpy(left, b.data, sizeof(left));
		termPQExpBuffer(&b);
	}
	check(strcmp(left, "round 2 (a failed run)") == 0, "the left-out round is listed (got \"%s\")", left);
	r[7].traced = true;			/* round 4's configuration was traced */
	n = wsb_paired_logs(r, 8, 2, 1, WSB_M_TPS, d, rounds);
	check(n == 2 && rounds[0] == 1 && rounds[1] == 3, "a traced run's pair is left out (rounds %d %d)",
		  rounds[0], rounds[1]);
	free(r);
}

static void
test_pieces(void)
{
	double		p[3] = {0.01, 0.04, 0.03},
				adj[3];
	int			rank[3];
	/* ranks of |d|: 1..6; one negative (rank 2): W+ = 19, patterns with
	 * W+ >= 19 or <= 2: {}, {1}, {2} left out and their mirrors: 6 of 64 */
	double		d6[6] = {0.01, -0.02, 0.03, 0.04, 0.05, 0.06};

	/* sorted 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> running max 0.06 */
	wsb_holm(p, 3, adj, rank);
	check(near(adj[0], 0.03, 1e-12) && near(adj[2], 0.06, 1e-12) && near(adj[1], 0.06, 1e-12) &&
		  rank[0] == 0 && rank[2] == 1 && rank[1] == 2,
		  "Holm of 0.01 0.04 0.03 is 0.03 0.06 0.06 (got %g %g %g)", adj[0], adj[1], adj[2]);
	check(near(wsb_signed_rank_p(d6, 6), 6.0 / 64, 1e-12), "signed-rank exact p with one negative of 6: 6/64 (got %g)",
		  wsb_signed_rank_p(d6, 6));
	check(isnan(wsb_signed_rank_p(d6, 5)), "signed-rank test needs 6 rounds");
	check(wsb_rounds_needed(0.053678, 0.0344272, 0.975, 0.5, 1) == 12, "rounds needed at 50%% power: 12 (got %d)",
		  wsb_rounds_needed(0.053678, 0.0344272, 0.975, 0.5, 1));
	check(wsb_rounds_needed(0.05, 0, 0.975, 0.8, 1) == -1, "rounds needed on the margin itself: none");
	/*
	 * 80% power, sd = distance = 0.05: (t(0.975, n-1) + t(0.8, n-1)) / sqrt n
	 * <= 1; n = 9: (2.306004 + 0.888890) / 3 = 1.0650, n = 10: (2.262157 +
	 * 0.883404) / 3.162278 = 0.9947: 10.  With the place fitted (n - 2 df),
	 * n = 10: (2.306004 + 0.888890) / 3.162278 = 1.0103, n = 11: (2.262157
	 * + 0.883404) / 3.316625 = 0.9484: 11
	 */
	check(wsb_rounds_needed(0.05, 0.05, 0.975, 0.8, 1) == 10 && wsb_rounds_needed(0.05, 0.05, 0.975, 0.8, 2) == 11,
		  "rounds needed at 80%% power: 10, 11 with the place fitted (got %d, %d)",
		  wsb_rounds_needed(0.05, 0.05, 0.975, 0.8, 1), wsb_rounds_needed(0.05, 0.05, 0.975, 0.8, 2));
	/* chi2(0.2, 2) = -2 ln 0.8 = 0.4462871: sd sqrt(2 / 0.4462871) = 2.116936 sd */
	check(near(wsb_sd_upper(0.01, 2, 0.8), 0.02116936, 1e-7) && isnan(wsb_sd_upper(0.01, 0, 0.8)),
		  "the noise's 80%% upper bound from 2 df: 2.116936 times the sd (got %.8f)", wsb_sd_upper(0.01, 2, 0.8));
	check(near(t2(0.975), 4.3026527, 1e-6) && near(wsb_t_quantile(0.975, 2), t2(0.975), 1e-7),
		  "t(0.975, 2) closed form 4.302653 matches the harness");
	check(wsb_look_alpha(0.05, 0, 0) == 0.05 && near(wsb_look_alpha(0.05, 1, 1), 0.05, 1e-12),
		  "budget: no looks, or one, test at the whole 0.05");
	check(near(wsb_t_cdf(-2.6852022, 2), (1 - 2.6852022 / sqrt(2 + 2.6852022 * 2.6852022)) / 2, 1e-9),
		  "t CDF for 2 df matches its closed form");
}

/*
 * The spending: a(t) = 2 - 2 Phi(1.959964 / sqrt t) worked by hand (0.5:
 * 0.0055746, 0.35: 0.00092320), and each look's boundary checked by
 * simulating the z statistics of nested samples directly (a Gaussian
 * random walk on the rounds, 100,000 paths): the share first crossing by
 * each look must be what the spending allows there, within 4 standard
 * errors, and over all 18 looks 5%.
 */
static void
test_spending(void)
{
	enum
	{
		K = 18, PATHS = 100000
	};
	double		z[K],
				cross[K] = {0};
	uint64_t	st = 0x5eed;
	bool		ok = true;
	double		worst = 0;

	check(near(wsb_spent_by(0.05, 0.5), 0.0055746, 1e-7) && near(wsb_spent_by(0.05, 0.35), 0.00092320, 1e-8) &&
		  wsb_spent_by(0.05, 1) == 0.05 && wsb_spent_by(0.05, 0) == 0,
		  "spending a(t): 0.0055746 at t 0.5, 0.00092320 at 0.35, 0.05 at 1, 0 at 0");
	for (int k = 1; k <= K; k++)
	{
		double		a = wsb_look_alpha(0.05, k, K);

		/* the t test's boundary at the nominal level, on the z scale */
		z[k - 1] = a > 0 ? -wsb_t_quantile(a / 2, 1e9) : INFINITY;
		ok &= k == 1 || a >= wsb_look_alpha(0.05, k - 1, K);
	}
	check(ok && wsb_look_alpha(0.05, K, K) > 0.05 / K * 5,
		  "spending: the nominal level rises look by look, the last (%.4f) above 5 x 0.05 / 18 (Bonferroni's %.4f)",
		  wsb_look_alpha(0.05, K, K), 0.05 / K);
	for (int p = 0; p < PATHS; p++)
	{
		double		s = 0,
					prev = 0;

		for (int k = 1; k <= K; k++)
		{
			double		t = (k + 2) / 20.0;
			uint64_t	x = (st += 0x9e3779b97f4a7c15ULL);
			double		u1,
						u2;

			x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
			x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
			x ^= x >> 31;
			u1 = ((x >> 11) + 0.5) / 9007199254740992.0;
			x = (st += 0x9e3779b97f4a7c15ULL);
			x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
			x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
			x ^= x >> 31;
			u2 = ((x >> 11) + 0.5) / 9007199254740992.0;
			s += sqrt(t - prev) * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			prev = t;
			if (fabs(s / sqrt(t)) > z[k - 1])
			{
				for (int j = k; j <= K; j++)
					cross[j - 1]++;
				break;
			}
		}
	}
	ok = true;
	for (int k = 1; k <= K; k++)
	{
		double		want = wsb_spent_by(0.05, (k + 2) / 20.0),
					got = cross[k - 1] / PATHS,
					se = sqrt(fmax(want, 1.0 / PATHS) * (1 - want) / PATHS);

		ok &= fabs(got - want) <= 4 * se;
		worst = fmax(worst, fabs(got - want) / se);
	}
	check(ok, "spending: first crossings by each look as spent, over 18 looks %.4f (0.05), worst %.1f se off",
		  cross[K - 1] / PATHS, worst);
}

/* stall shares, episode counts, the implied tps change */
static void
test_stalls(void)
{
	const double tps[] = {1000, 1300, 1000, 1320, 1000, 1310,
	1000, 1305, 1000, 1315, 1000, 1295};
	WsbJudgeSpec s = spec5();
	WsbPaired	v[2 * WSB_N_METRICS];
	int			n;
	WsbRoundRun *r = rounds_of(6, 2, tps, &n);
	double		implied = 0;

	for (int i = 0; i < n; i++)
	{
		r[i].client_ms = 4 * 10 * 1000.0;	/* 4 clients, 10 s */
		for (int k = 0; k < WSB_N_STALL; k++)
			r[i].stall_ms[k] = r[i].episodes[k] = 0;
		if (r[i].config == 0)
		{
			/* the baseline's clients lose a quarter of their time in wal_flush */
			r[i].stall_ms[1] = 10000 + 100 * r[i].round;
			r[i].episodes[1] = 500 + r[i].round;
		}
	}
	wsb_judge_rounds(r, n, 2, &s, v);
	check(strcmp(v[WSB_N_METRICS + WSB_M_SHARE + 1].words, "fewer") == 0 &&
		  v[WSB_N_METRICS + WSB_M_SHARE + 1].high < 0.001,
		  "stalls: wal_flush share from a quarter to none is \"fewer\" (ratio %.2g [%.2g, %.2g], floor 1 ms)",
		  v[WSB_N_METRICS + WSB_M_SHARE + 1].ratio, v[WSB_N_METRICS + WSB_M_SHARE + 1].low,
		  v[WSB_N_METRICS + WSB_M_SHARE + 1].high);
	check(strcmp(v[WSB_N_METRICS + WSB_M_EPISODES + 1].words, "fewer") == 0,
		  "stalls: its episodes \"fewer\" (got \"%s\")", v[WSB_N_METRICS + WSB_M_EPISODES + 1].words);
	check(strcmp(v[WSB_N_METRICS + WSB_M_SHARE + 0].words, "negligible in both") == 0 &&
		  v[WSB_N_METRICS + WSB_M_SHARE + 0].ratio == 1 && v[WSB_N_METRICS + WSB_M_SHARE + 0].decided,
		  "stalls: zero against zero is \"negligible in both\" (got \"%s\")",
		  v[WSB_N_METRICS + WSB_M_SHARE + 0].words);
	check(strcmp(v[WSB_N_METRICS + WSB_M_TPS].limit,
				 "WAL flushes: the clients' flush waits fell from 26% of client time to 0%") == 0,
		  "stalls: the limit of a +31%% from flushes gone (25.5%% median) (got \"%s\")", v[WSB_N_METRICS + WSB_M_TPS].limit);
	/* implied: (1 - 0) / (1 - 10200/40000) = 1 / 0.745 = 1.3423 in round 2 */
	for (int i = 1; i <= 6; i++)
		implied += log(1 / (1 - (10000 + 100 * i) / 40000.0)) / 6;
	check(near(v[WSB_N_METRICS + WSB_M_IMPLIED].ratio, exp(implied), 1e-9),
		  "implied tps change: (1 - s_config) / (1 - s_base), geometric mean %.4f",
		  v[WSB_N_METRICS + WSB_M_IMPLIED].ratio);
	check(strcmp(wsb_metric_name(WSB_M_SHARE + 1), "wal_flush_share") == 0 &&
		  strcmp(wsb_metric_name(WSB_M_EPISODES + 3), "clog_episodes") == 0,
		  "metric names");
	free(r);
}

/*
 * Latency judged like tps, lower the better: p99 a third lower in every
 * round "fell by >= 5%", the longest stall the same on both sides
 * "equivalent", and a p99 3% higher in every round equivalent within the
 * margin, with the direction said in latency's words.
 */
static void
test_latency(void)
{
	const double tps[] = {1000, 1010, 1000, 990, 1000, 1005, 1000, 1002,
	1000, 998, 1000, 1003, 1000, 1001, 1000, 999};
	static const double wobble[8] = {0, 0.004, -0.003, 0.002, -0.001, 0.003, -0.002, 0.001};
	WsbJudgeSpec s = spec5();
	WsbPaired	v[2 * WSB_N_METRICS];
	const WsbPaired *p99 = &v[WSB_N_METRICS + WSB_M_P99],
			   *longest = &v[WSB_N_METRICS + WSB_M_LONGEST];
	int			n;
	WsbRoundRun *r = rounds_of(8, 2, tps, &n);

	for (int i = 0; i < n; i++)
	{
		double		w = 1 + wobble[r[i].round - 1];

		r[i].latency_p99_ms = (r[i].config == 0 ? 300 : 200) * w;
		r[i].longest_stall_ms = 450 * (r[i].config == 0 ? 1 : w);
	}
	wsb_judge_rounds(r, n, 2, &s, v);
	check(p99->word == WSB_W_FELL_BY && p99->decided && strcmp(p99->words, "fell by >= 5%") == 0 &&
		  near(p99->ratio, 2.0 / 3, 0.01),
		  "latency: p99 a third lower in 8 rounds \"fell by >= 5%%\" (got \"%s\", %.3f)",
		  p99->words, p99->ratio);
	check(longest->word == WSB_W_EQUIVALENT && strncmp(longest->words, "equivalent within +-5%", 22) == 0,
		  "latency: the same longest stall is \"equivalent within +-5%%\" (got \"%s\")", longest->words);
	check(strcmp(wsb_metric_name(WSB_M_P99), "latency_p99") == 0 &&
		  strcmp(wsb_metric_name(WSB_M_LONGEST), "longest_stall") == 0, "latency: metric names");

	for (int i = 0; i < n; i++)
		r[i].latency_p99_ms = (r[i].config == 0 ? 300 : 309) * (1 + wobble[r[i].round - 1]);
	wsb_judge_rounds(r, n, 2, &s, v);
	check(p99->word == WSB_W_EQUIVALENT &&
		  strcmp(p99->words, "equivalent within +-5%, 3.0% rose [+3.0%, +3.0%]") == 0,
		  "latency: p99 3%% higher in every round, margin 5%%: equivalent, \"3.0%% rose\" (got \"%s\")",
		  p99->words);

	/* runs without the figures: not measured, and the tps verdict as before */
	for (int i = 0; i < n; i++)
		r[i].latency_p99_ms = r[i].longest_stall_ms = NAN;
	wsb_judge_rounds(r, n, 2, &s, v);
	check(p99->word == WSB_W_NONE && strcmp(p99->words, "not measured") == 0 &&
		  longest->word == WSB_W_NONE,
		  "latency: unknown in every run is \"not measured\" (got \"%s\")", p99->words);
	free(r);
}

/*
 * Rounds of a baseline and one configuration with the given tps and, per
 * class, stall shares of the clients' time and episode counts, the same in
 * every round but for the small wobble w[round] (a fraction of the share).
 */
static WsbRoundRun *
stall_rounds(int nrounds, const double *tps, const double *share_b, const double *share_x,
			 const double *ep_b, const double *ep_x, int *n)
{
	static const double w[6] = {0, 0.004, -0.003, 0.002, -0.001, 0.003};
	WsbRoundRun *r = rounds_of(nrounds, 2, tps, n);

	for (int i = 0; i < *n; i++)
	{
		const double *sh = r[i].config == 0 ? share_b : share_x;
		const double *ep = r[i].config == 0 ? ep_b : ep_x;

		r[i].client_ms = 4 * 20 * 1000.0;	/* 4 clients, 20 s */
		for (int k = 0; k < WSB_N_STALL; k++)
		{
			r[i].stall_ms[k] = sh[k] * (1 + w[(r[i].round - 1) % 6]) * r[i].client_ms;
			r[i].episodes[k] = ep[k];
		}
	}
	return r;
}

/* the floor under which a class reads "negligible in both" */
static void
test_negligible(void)
{
	const double tps[] = {1000, 1300, 1000, 1310, 1000, 1290,
	1000, 1305, 1000, 1295, 1000, 1315};
	/* wal_buffer_full 40% in both; wal_flush 0.5% -> 0.9%; wal_insert 0.5%
	 * -> 0.995% (under 1% in rounds 1 and 3, 0.999% in round 2: still
	 * under); clog 0.5% -> 1.2% */
	const double sb[WSB_N_STALL] = {0.40, 0.005, 0.005, 0.005};
	const double sx[WSB_N_STALL] = {0.40, 0.009, 0.00995, 0.012};
	const double eb[WSB_N_STALL] = {300, 40, 40, 40};
	const double ex[WSB_N_STALL] = {25, 80, 80, 80};
	WsbJudgeSpec s = spec5();
	WsbPaired	v[2 * WSB_N_METRICS];
	const WsbPaired *c = &v[WSB_N_METRICS];
	int			n;
	WsbRoundRun *r = stall_rounds(6, tps, sb, sx, eb, ex, &n);

	wsb_judge_rounds(r, n, 2, &s, v);
	check(strcmp(c[WSB_M_SHARE + 1].words, "negligible in both") == 0 &&
		  strcmp(c[WSB_M_EPISODES + 1].words, "negligible in both") == 0 && c[WSB_M_SHARE + 1].decided,
		  "negligible: wal_flush at 0.5%% and 0.9%% of client time, share and episodes (got \"%s\", \"%s\")",
		  c[WSB_M_SHARE + 1].words, c[WSB_M_EPISODES + 1].words);
	check(strcmp(c[WSB_M_SHARE + 2].words, "negligible in both") == 0,
		  "negligible: wal_insert just under 1%% in every round (got \"%s\")", c[WSB_M_SHARE + 2].words);
	check(strcmp(c[WSB_M_SHARE + 3].words, "more") == 0,
		  "negligible: clog at 1.2%% is above the floor and judged, \"more\" (got \"%s\")",
		  c[WSB_M_SHARE + 3].words);
	check(strcmp(c[WSB_M_SHARE + 0].words, "unchanged within +-5%") == 0 &&
		  strcmp(c[WSB_M_EPISODES + 0].words, "fewer") == 0,
		  "negligible: wal_buffer_full at 40%% is judged (got \"%s\", episodes \"%s\")",
		  c[WSB_M_SHARE + 0].words, c[WSB_M_EPISODES + 0].words);
	check(WSB_NEGLIGIBLE_SHARE == 0.01, "negligible: the floor is 1%% of client time");
	free(r);
}

/* the limiting-factor sentence under each decided configuration */
static void
test_limit(void)
{
	/* six rounds: the fewest that carry a direction at 5% */
	const double faster[] = {1000, 1300, 1000, 1310, 1000, 1290,
	1000, 1305, 1000, 1295, 1000, 1315};
	const double same[] = {1000, 1010, 1000, 990, 1000, 1005,
	1000, 995, 1000, 1008, 1000, 992};
	const double murky[] = {1000, 1300, 1000, 800, 1000, 1150,
	1000, 900, 1000, 1250, 1000, 850};
	const double ep[WSB_N_STALL] = {300, 20, 1, 1};
	const double ep12[WSB_N_STALL] = {25, 20, 1, 1};
	const double none[WSB_N_STALL] = {0.002, 0.001, 0, 0};
	WsbJudgeSpec s = spec5();
	WsbPaired	v[2 * WSB_N_METRICS];
	const WsbPaired *t = &v[WSB_N_METRICS + WSB_M_TPS];
	int			n;
	WsbRoundRun *r;

	/* the ring's wrap-around time falls from 26% to 2% */
	{
		const double sb[WSB_N_STALL] = {0.26, 0.03, 0, 0};
		const double sx[WSB_N_STALL] = {0.02, 0.03, 0, 0};

		r = stall_rounds(6, faster, sb, sx, ep, ep, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->decided && strcmp(t->limit, "the ring: wrap-around time fell from 26% of client time to 2%") == 0,
			  "limit: \"%s\"", t->limit);
		check(t->limit_kind == WSB_L_MOVED && t->limit_class == 0,
			  "limit kind: the share moved, the ring's class (got %d, %d)", t->limit_kind, t->limit_class);
		free(r);
	}
	/* the same 40% of stall time in 12x fewer, longer waits */
	{
		const double sh[WSB_N_STALL] = {0.40, 0.03, 0, 0};

		r = stall_rounds(6, faster, sh, sh, ep, ep12, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->decided && strcmp(t->limit, "the same stall time (40% of client time, 40%) in 12x fewer, "
								   "longer waits: the WAL disk's write rate, not the ring, limits both") == 0,
			  "limit: \"%s\"", t->limit);
		check(t->limit_kind == WSB_L_GRAIN && t->limit_class == 0,
			  "limit kind: the grain changed, the ring's class (got %d, %d)", t->limit_kind, t->limit_class);
		{
			const char	names[2][1024] = {"32kB", "1MB"};

			wsb_limit_lines(r, n, 2, names, v);
			check(strcmp(t->limit, "the same stall time (40% of client time with 32kB, 40% with 1MB) in "
						 "12x fewer, longer waits: the WAL disk's write rate, not the ring, limits both") == 0 &&
				  t->limit_kind == WSB_L_GRAIN,
				  "limit: named, each figure says whose it is: \"%s\"", t->limit);
		}
		free(r);
	}
	/* equivalent, and nothing moved: the largest class limits both alike */
	{
		const double sh[WSB_N_STALL] = {0.03, 0.30, 0, 0};
		const double e[WSB_N_STALL] = {20, 300, 1, 1};

		r = stall_rounds(6, same, sh, sh, e, e, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->decided && strcmp(t->limit, "wal_flush: 30% of client time and 30%, unchanged, in as many "
								   "waits: it limits both alike") == 0,
			  "limit: \"%s\" (%s)", t->limit, t->words);
		check(t->limit_kind == WSB_L_SAME && t->limit_class == 1,
			  "limit kind: unchanged, the flushes' class (got %d, %d)", t->limit_kind, t->limit_class);
		free(r);
	}
	/* every class under the floor */
	{
		r = stall_rounds(6, faster, none, none, ep, ep, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->decided && strcmp(t->limit, "not a WAL or CLOG stall: every class under 1% of client time "
								   "in both") == 0,
			  "limit: \"%s\"", t->limit);
		check(t->limit_kind == WSB_L_NOT_STALL && t->limit_class == -1,
			  "limit kind: not a stall, no class (got %d, %d)", t->limit_kind, t->limit_class);
		free(r);
	}
	/* slower by less than the margin can tell: the direction is known, so the sentence is given */
	{
		const double slower[] = {1000, 940, 1000, 920, 1000, 960,
		1000, 930, 1000, 950, 1000, 945};
		const double sb[WSB_N_STALL] = {0.26, 0.03, 0, 0};

		r = stall_rounds(6, slower, sb, sb, ep, ep12, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->word == WSB_W_SLOWER && !t->decided && wsb_tps_settled(t) &&
			  strstr(t->limit, "fewer, longer waits: the WAL disk's write rate, not the ring, limits both") != NULL,
			  "limit: given under \"slower\" (not by the margin): \"%s\" (%s)", t->limit, t->words);
		free(r);
	}
	/* undecided: no sentence */
	{
		const double sb[WSB_N_STALL] = {0.26, 0.03, 0, 0};

		r = stall_rounds(6, murky, sb, sb, ep, ep, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(!t->decided && t->limit[0] == '\0', "limit: none under an undecided verdict (%s)", t->words);
		check(t->limit_kind == WSB_L_NONE && t->limit_class == -1,
			  "limit kind: none under an undecided verdict (got %d, %d)", t->limit_kind, t->limit_class);
		free(r);
	}
	/* tps alone (a CSV without stall figures), decided: not measured */
	{
		int			nr;
		WsbRoundRun *q = rounds_of(6, 2, faster, &nr);

		wsb_judge_rounds(q, nr, 2, &s, v);
		check(t->decided && strstr(t->limit, "not measured") != NULL, "limit without stall figures: \"%s\"",
			  t->limit);
		check(t->limit_kind == WSB_L_UNMEASURED && t->limit_class == -1,
			  "limit kind: not measured, no class (got %d, %d)", t->limit_kind, t->limit_class);
		free(q);
	}
}

/* the positions of two configurations' runs in a round */
static void
check_round_balance(int k, int cycles, uint64_t seed)
{
	int			cycle = k % 2 ? 2 * k : k;
	int			rounds = cycle * cycles;
	int		   *o = calloc(rounds * k, sizeof(int));
	int		   *place = calloc(k * k, sizeof(int));	/* [config][place] */
	int		   *after = calloc(k * k, sizeof(int));	/* [before][after] */
	bool		perm = true,
				mirrored = true,
				places_even = true,
				follows_even = true;

	wsb_round_order(seed, k, rounds, o);
	for (int r = 0; r < rounds; r++)
	{
		int			seen = 0;

		for (int i = 0; i < k; i++)
		{
			seen |= 1 << o[r * k + i];
			place[o[r * k + i] * k + i]++;
			if (i > 0)
				after[o[r * k + i - 1] * k + o[r * k + i]]++;
			if (r % 2 == 1)
				mirrored &= o[r * k + i] == o[(r - 1) * k + k - 1 - i];
		}
		perm &= seen == (1 << k) - 1;
	}
	/* over whole cycles: every configuration in every place as often, and
	 * right after every other as often (Williams' balance) */
	for (int a = 0; a < k; a++)
		for (int b = 0; b < k; b++)
		{
			places_even &= place[a * k + b] == rounds / k;
			if (a != b)
				follows_even &= after[a * k + b] == after[1];
			else
				follows_even &= after[a * k + b] == 0;
		}
	check(perm && mirrored && places_even && follows_even && after[1] > 0,
		  "round order, %d configurations, %d rounds: every round a permutation (%s), every second "
		  "round the one before reversed (%s), every place as often (%s), every configuration after "
		  "every other as often (%s)", k, rounds, perm ? "yes" : "no", mirrored ? "yes" : "no",
		  places_even ? "yes" : "no", follows_even ? "yes" : "no");
	free(o);
	free(place);
	free(after);
}

/* the order inside each round: a balanced design drawn from the seed */
static void
test_round_order(void)
{
	int			a[5 * 40],
				b[5 * 40],
				c[5 * 40],
				two[2 * 7];
	int			first[5] = {0};
	bool		alternate = true;

	for (int k = 2; k <= 6; k++)
		check_round_balance(k, 3, 42 + k);
	wsb_round_order(9, 2, 7, two);
	for (int r = 1; r < 7; r++)
		alternate &= two[2 * r] == two[2 * r - 1] && two[2 * r + 1] == two[2 * r - 2];
	check(alternate, "round order, two configurations: each round the one before reversed "
		  "(%d%d %d%d %d%d ...)", two[0], two[1], two[2], two[3], two[4], two[5]);
	wsb_round_order(42, 5, 40, a);
	wsb_round_order(42, 5, 40, b);
	wsb_round_order(43, 5, 40, c);
	check(memcmp(a, b, sizeof(a)) == 0 && memcmp(a, c, sizeof(a)) != 0,
		  "round order: the same seed gives the same order, another seed another");
	/* the seed picks among the balanced designs: which one opens differs */
	for (uint64_t s = 0; s < 40; s++)
	{
		wsb_round_order(s, 5, 1, a);
		first[a[0]]++;
	}
	check(first[0] > 0 && first[0] < 40 && first[1] > 0 && first[4] > 0,
		  "round order: over 40 seeds no configuration always opens (baseline in %d)", first[0]);
}

/* The fit on the runs' places (wsb_paired_fit), worked by hand. */
static void
test_place_fit(void)
{
	/* 0.1 + 0.08 x, residuals +-0.01: slope sum(x d) / sum(x^2) = 0.48 / 6,
	 * rss 4e-4 over 4 df, s 0.01, se 0.01 / sqrt 6 */
	const double d6[6] = {0.18, 0.02, 0.19, 0.01, 0.17, 0.03};
	const double x6[6] = {1, -1, 1, -1, 1, -1};
	/* five rounds, mean x 0.2, Sxx 4.8: slope 0.0825, estimate 0.0975,
	 * s 0.0091287 (3 df), se s sqrt(1/5 + 0.04 / 4.8) = 0.0041667 */
	const double x5_unknown[5] = {1, -1, NAN, -1, 1};
	const double same[6] = {1, 1, 1, 1, 1, 1};
	WsbPairedFit f;
	double		t,
				p3;

	wsb_paired_fit(d6, x6, 6, &f);
	check(f.adjusted && near(f.estimate, 0.1, 1e-12) && near(f.slope, 0.08, 1e-12) &&
		  near(f.sd, 0.01, 1e-12) && near(f.se, 0.01 / sqrt(6), 1e-12) && f.df == 4,
		  "place fit, balanced: estimate 0.1, slope 0.08, s 0.01, se 0.00408, 4 df (got %g %g %g %g %g)",
		  f.estimate, f.slope, f.sd, f.se, f.df);
	wsb_paired_fit(d6, x6, 5, &f);
	/* t with 3 df, closed form: F(t) = 1/2 + (atan(u) + u / (1 + u^2)) / pi, u = t / sqrt 3 */
	t = 0.0975 * 240;			/* se = 1 / 240 */
	p3 = 2 * (0.5 - (atan(t / sqrt(3)) + (t / sqrt(3)) / (1 + t * t / 3)) / M_PI);
	check(f.adjusted && near(f.estimate, 0.0975, 1e-12) && near(f.slope, 0.0825, 1e-12) &&
		  near(f.sd, 0.0091287093, 1e-9) && near(f.se, 0.0041666667, 1e-9) && f.df == 3 &&
		  near(wsb_fit_p(&f), p3, 1e-6 * p3),
		  "place fit, unbalanced: estimate 0.0975 at equal places, se 0.0041667, 3 df, p %.3g (got %g %g %g)",
		  p3, f.estimate, f.se, wsb_fit_p(&f));
	wsb_paired_fit(d6, x6, 3, &f);
	check(!f.adjusted && f.df == 2 && near(f.estimate, 0.13, 1e-12),
		  "place fit: under %d rounds the plain mean, n - 1 df", WSB_PLACE_MIN_ROUNDS);
	wsb_paired_fit(d6, x5_unknown, 5, &f);
	check(!f.adjusted && f.df == 4, "place fit: a place not known, the plain mean");
	wsb_paired_fit(d6, same, 6, &f);
	check(!f.adjusted && f.df == 5 && isnan(f.slope),
		  "place fit: one place difference throughout (an order never varied), the plain mean");
}

/*
 * Drift inside rounds, judged: the machine gets 8% faster every run, the
 * configuration is truly 10% faster, +-1% noise, six rounds in the
 * harness's order for two configurations.  Each round's ratio is 1.10
 * times 1.08 or 1 / 1.08 by who ran second; fitted on the place, the
 * interval is narrow around 1.10 and the verdict "faster by >= 5%".  The
 * same runs with the places unknown: the plain mean of the bimodal ratios,
 * whose interval reaches below 1.05.
 */
static void
test_place_judged(void)
{
	const double noise[12] = {0.01, -0.01, 0.005, -0.005, 0, 0.008,
		-0.008, 0.004, 0.01, -0.01, 0.006, -0.004};
	int			order[12];
	WsbRoundRun r[12];
	WsbPaired	v[2 * WSB_N_METRICS];
	WsbJudgeSpec s = spec5();
	const WsbPaired *x = &v[WSB_N_METRICS];

	wsb_round_order(5, 2, 6, order);
	for (int i = 0; i < 12; i++)
	{
		memset(&r[i], 0, sizeof(r[i]));
		r[i].config = order[i];
		r[i].round = i / 2 + 1;
		r[i].position = i % 2 + 1;
		r[i].ok = true;
		r[i].tps = 1000 * pow(1.08, i) * (order[i] ? 1.10 : 1) * (1 + noise[i]);
		r[i].client_ms = NAN;
		for (int k = 0; k < WSB_N_STALL; k++)
			r[i].stall_ms[k] = r[i].episodes[k] = NAN;
	}
	wsb_judge_rounds(r, 12, 2, &s, v);
	check(x->place_adjusted && x->low < 1.10 && x->high > 1.10 && x->high - x->low < 0.05 &&
		  strcmp(x->words, "faster by >= 5%") == 0 && near(exp(x->place_slope), 1.08, 0.01),
		  "drift of 8%% a run inside rounds, fitted on the place: [%.4f, %.4f] around 1.10, "
		  "slope %.4f a place, \"%s\"", x->low, x->high, exp(x->place_slope), x->words);
	for (int i = 0; i < 12; i++)
		r[i].position = 0;
	wsb_judge_rounds(r, 12, 2, &s, v);
	check(!x->place_adjusted && x->low < 1.05 && strcmp(x->words, "faster by >= 5%") != 0,
		  "the same runs, places unknown: the plain mean, [%.4f, %.4f], \"%s\"",
		  x->low, x->high, x->words);
}

/*
 * Carryover: three configurations in the harness's order, twelve rounds; a
 * run right after configuration 1 is 5% faster (across rounds too), the
 * machine drifts 3% a run, +-0.5% noise.  The fit reads configuration 1's
 * carryover as about +5% and configuration 2's as none, with the ratios
 * still the truth; with two configurations it cannot be told from the
 * place, and the table says so.
 */
static void
test_carryover(void)
{
	int			order[36];
	WsbRoundRun r[36];
	WsbPaired	v[3 * WSB_N_METRICS];
	WsbJudgeSpec s = spec5();
	const double truth[3] = {1, 1.10, 0.95};

	wsb_round_order(11, 3, 12, order);
	for (int i = 0; i < 36; i++)
	{
		memset(&r[i], 0, sizeof(r[i]));
		r[i].config = order[i];
		r[i].round = i / 3 + 1;
		r[i].position = i % 3 + 1;
		r[i].ok = true;
		r[i].tps = 1000 * pow(1.03, i) * truth[order[i]] * (i > 0 && order[i - 1] == 1 ? 1.05 : 1) *
			(1 + 0.005 * sin(i * 2.1));
		r[i].client_ms = NAN;
		for (int k = 0; k < WSB_N_STALL; k++)
			r[i].stall_ms[k] = r[i].episodes[k] = NAN;
	}
	wsb_judge_rounds(r, 36, 3, &s, v);
	check(near(v[WSB_N_METRICS].carryover, 1.05, 0.015) &&
		  v[WSB_N_METRICS].carryover_low > 1 &&
		  near(v[2 * WSB_N_METRICS].carryover, 1.0, 0.015) &&
		  v[2 * WSB_N_METRICS].carryover_low < 1 && v[2 * WSB_N_METRICS].carryover_high > 1,
		  "carryover: after configuration 1 %.4f [%.4f, %.4f] (truth 1.05), after 2 %.4f [%.4f, %.4f] (truth 1)",
		  v[WSB_N_METRICS].carryover, v[WSB_N_METRICS].carryover_low, v[WSB_N_METRICS].carryover_high,
		  v[2 * WSB_N_METRICS].carryover, v[2 * WSB_N_METRICS].carryover_low,
		  v[2 * WSB_N_METRICS].carryover_high);
	check(near(v[WSB_N_METRICS].ratio, 1.10, 0.03) && near(v[2 * WSB_N_METRICS].ratio, 0.95, 0.03),
		  "carryover: the ratios stay near the truth, 1.10 and 0.95 (got %.4f, %.4f)",
		  v[WSB_N_METRICS].ratio, v[2 * WSB_N_METRICS].ratio);
	{
		WsbRoundTable t;
		FILE	   *f = tmpfile();
		char		out[8192] = "";
		size_t		got;

		memset(&t, 0, sizeof(t));
		t.nconfigs = 3;
		strcpy(t.labels[0], "a");
		strcpy(t.labels[1], "b");
		strcpy(t.labels[2], "c");
		t.runs = r;
		t.nruns = 36;
		wsb_print_paired(f, &t, &s, v, 11);
		rewind(f);
		got = fread(out, 1, sizeof(out) - 1, f);
		out[got] = '\0';
		fclose(f);
		check(strstr(out, "\nb: carryover: a run right after it +") != NULL &&
			  strstr(out, "against one right after the baseline\n") != NULL,
			  "terminal table: the carryover line");
	}
	wsb_judge_rounds(r, 36, 2, &s, v);
	check(isnan(v[WSB_N_METRICS].carryover),
		  "carryover: with two configurations not estimable (NAN, got %g)", v[WSB_N_METRICS].carryover);
}

static char *
write_tmp(const char *text)
{
	static char path[64];
	FILE	   *f;

	strcpy(path, "/tmp/wsb_unit_csv.XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* the terminal table: the limit under a decided configuration, a
 * negligible class in one line (a CSV with every stall column) */
static void
test_limit_printed(void)
{
	WsbVerdicts vs;
	char		err[512] = "";
	char		out[8192] = "";
	const char *path;
	FILE	   *f;
	size_t		got;

	path = write_tmp("configuration,round,tps,client_ms,"
					 "wal_buffer_full_total_ms,wal_buffer_full_episodes,wal_flush_total_ms,wal_flush_episodes,"
					 "wal_insert_total_ms,wal_insert_episodes,clog_total_ms,clog_episodes\n"
					 "32kB,1,1000,80000,20800,300,240,20,0,0,0,0\n"
					 "16MB,1,1300,80000,1600,25,240,20,0,0,0,0\n"
					 "32kB,2,1010,80000,20900,310,250,20,0,0,0,0\n"
					 "16MB,2,1320,80000,1610,24,245,21,0,0,0,0\n"
					 "32kB,3,990,80000,20700,305,235,19,0,0,0,0\n"
					 "16MB,3,1290,80000,1590,26,240,20,0,0,0,0\n"
					 "32kB,4,1000,80000,20800,300,240,20,0,0,0,0\n"
					 "16MB,4,1305,80000,1600,25,240,20,0,0,0,0\n"
					 "32kB,5,1005,80000,20850,302,245,20,0,0,0,0\n"
					 "16MB,5,1315,80000,1605,24,242,21,0,0,0,0\n"
					 "32kB,6,995,80000,20750,307,238,19,0,0,0,0\n"
					 "16MB,6,1295,80000,1595,26,241,20,0,0,0,0\n");
	check(wsb_verdicts_from_csv(path, NULL, 10, 0, 0, &vs, err, sizeof(err)) == 0, "limit CSV read (%s)", err);
	f = tmpfile();
	wsb_print_paired(f, &vs.table, &vs.spec, vs.v, -1);
	rewind(f);
	got = fread(out, 1, sizeof(out) - 1, f);
	out[got] = '\0';
	fclose(f);
	check(strstr(out, "faster by >= 10%\n    limit: the ring: wrap-around time fell from 26% of client "
				 "time with 32kB to 2% with 16MB\n"),
		  "terminal: the limit under the decided configuration, each figure with its configuration");
	check(strstr(out, "    wal_flush        negligible in both (share under 1% of client time)\n") &&
		  strstr(out, "wal_flush        episodes") == NULL && strstr(out, "wal_insert") == NULL,
		  "terminal: a negligible class is one line, a class without stalls none");
	wsb_verdicts_free(&vs);
	unlink(path);
}

/* --judge FILE.csv: any CSV with configuration, round, tps */
/*
 * --judge of a CSV takes the runs' places from its position column, or,
 * without one, from the order of the runs' numbers in each round (an
 * order column, or run beside round); a run column that is the round
 * (results.csv's) tells no place.  Six rounds, each the one before
 * reversed, 8% drift a run, the configuration truly 10% faster.
 */
static void
test_csv_places(void)
{
	static const char *const heads[4] = {
		"configuration,round,position,tps\n", "configuration,round,order,tps\n",
		"configuration,round,run,tps\n", "configuration,run,round,tps\n"
	};
	static const char *const what[4] = {
		"a position column", "an order column", "a run column numbering the runs",
		"a run column that is the round"
	};
	char		err[512];

	for (int h = 0; h < 4; h++)
	{
		PQExpBufferData csv;
		WsbVerdicts vs;
		char	   *path;
		int			order[12];

		initPQExpBuffer(&csv);
		appendPQExpBufferStr(&csv, heads[h]);
		wsb_round_order(5, 2, 6, order);
		/* the rows of each round in reverse order: the places come from
		 * the numbers, not from the lines */
		for (int r = 0; r < 6; r++)
			for (int q = 1; q >= 0; q--)
			{
				int			i = 2 * r + q;
				int			num = h == 0 ? q + 1 : h == 3 ? r + 1 : i + 1;
				double		tps = 1000 * pow(1.08, i) * (order[i] ? 1.10 : 1) * (1 + 0.01 * sin(i));

				if (h == 3)
					appendPQExpBuffer(&csv, "%s,%d,%d,%.3f\n", order[i] ? "b" : "a", num, r + 1, tps);
				else
					appendPQExpBuffer(&csv, "%s,%d,%d,%.3f\n", order[i] ? "b" : "a", r + 1, num, tps);
			}
		path = write_tmp(csv.data);
		termPQExpBuffer(&csv);
		if (wsb_verdicts_from_csv(path, "a", NAN, 0, 0, &vs, err, sizeof(err)) != 0)
		{
			check(false, "CSV with %s: %s", what[h], err);
			unlink(path);
			continue;
		}
		{
			const WsbPaired *x = &vs.v[WSB_N_METRICS];
			PQExpBufferData method;

			initPQExpBuffer(&method);
			wsb_method_text(&vs.spec, WSB_M_TPS, x, &method);
			if (h < 3)
				check(x->place_adjusted && x->df == 4 && near(x->ratio, 1.10, 0.02) &&
					  strstr(method.data, "the run's place in its round a covariate, 4 df") != NULL,
					  "CSV with %s: the places fitted, ratio %.4f, \"%s\"", what[h], x->ratio, method.data);
			else
				check(!x->place_adjusted && x->df == 5 && strstr(method.data, ", 5 df,") != NULL,
					  "CSV with %s: no places, the plain mean (%s)", what[h], method.data);
			termPQExpBuffer(&method);
		}
		wsb_verdicts_free(&vs);
		unlink(path);
	}
}

static void
test_csv_input(void)
{
	WsbVerdicts vs;
	char		err[512] = "";
	char	   *path;
	char		dir[] = "/tmp/wsb_unit_verdicts.XXXXXX";
	char		p2[256];
	char	   *text;
	int			rc;

	path = write_tmp("tps,configuration,round,note\n"
					 "13069,wal_buffers=16MB,1,\"a, quoted \"\"note\"\"\"\n"
					 "14916,wal_buffers=32MB,1,\n"
					 "14370,wal_buffers=16MB,2,\n14746,wal_buffers=32MB,2,\n"
					 "13787,wal_buffers=16MB,3,\r\n15110,wal_buffers=32MB,3,\n");
	check(wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err)) == 0 &&
		  vs.table.nconfigs == 2 && strcmp(vs.table.labels[0], "wal_buffers=16MB") == 0 &&
		  near(vs.v[WSB_N_METRICS].ratio, 1.0867777, 1e-6),
		  "CSV: columns in any order, quoted fields, CRLF; the first configuration is the baseline (%s)",
		  err);
	{
		/* the table states the budget's look and its alpha (0.05 / 10) */
		FILE	   *f = tmpfile();
		char		out[8192] = "";
		WsbJudgeSpec keep = vs.spec;
		size_t		got;

		vs.spec.look = 2;
		vs.spec.nlooks = 10;
		vs.spec.alpha = 0.005;
		wsb_print_paired(f, &vs.table, &vs.spec, vs.v, 42);
		rewind(f);
		got = fread(out, 1, sizeof(out) - 1, f);
		out[got] = '\0';
		fclose(f);
		vs.spec = keep;
		check(strstr(out, "margin +-5%, 3 complete rounds, seed 42, look 2 of at most 10 (alpha 0.005 at this look, "
					 "O'Brien-Fleming spending)") != NULL,
			  "terminal table: margin, rounds, seed, the look and its alpha");
		/* sd 0.053678: exp(sd) - 1 = 5.5%; 4.3026527 * 0.053678 / sqrt 3 = 0.133347: +14.3% */
		check(strstr(out, "\nwal_buffers=32MB: per-round noise +-5.5% (sd of the log ratio over 3 rounds); "
					 "3 rounds tell changes beyond +-14.3% from none\n") != NULL,
			  "terminal table: the per-round noise and the change these rounds can tell");
	}
	check(strcmp(vs.v[WSB_N_METRICS + WSB_M_SHARE].words, "not measured") == 0,
		  "CSV of tps alone: stall figures \"not measured\" (got \"%s\")", vs.v[WSB_N_METRICS + WSB_M_SHARE].words);
	check(mkdtemp(dir) != NULL && wsb_verdicts_write(dir, &vs) == 0, "verdicts.csv written");
	snprintf(p2, sizeof(p2), "%s/verdicts.csv", dir);
	text = wsb_read_file(p2, NULL);
	check(text && strncmp(text, "configuration,baseline,metric,ratio,low,high,level,low90,high90,p,p_holm,"
						  "signed_rank_p,verdict,decided,rounds,margin_pct,method\n", 110) == 0 &&
		  strstr(text, "wal_buffers=32MB,wal_buffers=16MB,tps,1.086778,0.951109,1.241798,0.950000,") != NULL &&
		  strstr(text, ",too few rounds for a verdict at 5%: needs 5 (6 for faster or slower),false,3,5,") != NULL,
		  "verdicts.csv: a row per configuration and metric with ratio, interval, words, rounds, method");
	check(text && strstr(text, "paired t on per-round log ratios of tps, 2 df, 95% interval") != NULL,
		  "verdicts.csv: the method says paired t, its df and level");
	free(text);
	wsb_verdicts_free(&vs);

	check(wsb_verdicts_from_csv(path, "wal_buffers=32MB", NAN, 0, 0, &vs, err, sizeof(err)) == 0 &&
		  strcmp(vs.table.labels[0], "wal_buffers=32MB") == 0 && vs.v[WSB_N_METRICS].ratio < 1,
		  "CSV: --baseline NAME picks the baseline");
	wsb_verdicts_free(&vs);
	check(wsb_verdicts_from_csv(path, "nope", NAN, 0, 0, &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "--baseline \"nope\" is not a configuration") != NULL,
		  "CSV: an unknown --baseline is refused (%s)", err);
	unlink(path);

	/* tps_window, when every successful run has one, is what is paired */
	path = write_tmp("configuration,round,tps,tps_window,ok\n"
					 "a,1,100,200,true\nb,1,150,220,true\na,2,100,200,true\nb,2,150,220,true\n"
					 "a,3,100,200,true\nb,3,150,220,true\nb,4,0,,false\n");
	rc = wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err));
	check(rc == 0 && near(vs.v[WSB_N_METRICS].ratio, 1.1, 1e-9) &&
		  strcmp(vs.table.tps_column, "tps_window") == 0,
		  "CSV: tps_window is paired when every successful run has it (%s)", err);
	wsb_verdicts_free(&vs);
	unlink(path);
	path = write_tmp("configuration,round,tps,tps_window\n"
					 "a,1,100,200\nb,1,150,220\na,2,100,200\nb,2,150,\n");
	rc = wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err));
	check(rc == 0 && near(vs.v[WSB_N_METRICS].ratio, 1.5, 1e-9) && vs.table.tps_column[0] == '\0',
		  "CSV: one run without tps_window: every run's tps is paired, never a mix (%s)", err);
	wsb_verdicts_free(&vs);
	unlink(path);

	/* the latency columns: read when present, refused with line and column when bad */
	path = write_tmp("configuration,round,tps,latency_p99_ms,longest_stall_ms\n"
					 "a,1,100,30,400\nb,1,150,20,abc\n");
	check(wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "line 3: longest_stall_ms: \"abc\" is not a number") != NULL,
		  "CSV: a longest_stall_ms that is no number is refused, line and column named (%s)", err);
	unlink(path);
	path = write_tmp("configuration,round,tps,latency_p99_ms,longest_stall_ms\n"
					 "a,1,100,-3,400\nb,1,150,20,300\n");
	check(wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "line 2: latency_p99_ms: \"-3\" is not a number from 0") != NULL,
		  "CSV: a negative latency_p99_ms is refused (%s)", err);
	unlink(path);
	path = write_tmp("configuration,round,tps,latency_p99_ms,longest_stall_ms\n"
					 "a,1,100,30,400\nb,1,150,20,200\na,2,100,31,410\nb,2,150,21,190\n");
	rc = wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err));
	check(rc == 0 && vs.v[WSB_N_METRICS + WSB_M_P99].rounds == 2 &&
		  near(vs.v[WSB_N_METRICS + WSB_M_P99].ratio, sqrt(20.0 / 30 * 21.0 / 31), 1e-9) &&
		  vs.v[WSB_N_METRICS + WSB_M_LONGEST].rounds == 2,
		  "CSV: latency_p99_ms and longest_stall_ms paired by round (%s)", err);
	if (rc == 0)
		wsb_verdicts_free(&vs);
	unlink(path);

	path = write_tmp("configuration,tps\na,1\nb,2\n");
	check(wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "needs the columns configuration, round and tps") != NULL,
		  "CSV without a round column is refused (%s)", err);
	unlink(path);
	{
		/* two labels alike in their first 1100 bytes: refused, not cut into one */
		char		long_csv[2600];
		char		label[1101];

		memset(label, 'x', sizeof(label) - 1);
		label[sizeof(label) - 1] = '\0';
		snprintf(long_csv, sizeof(long_csv), "configuration,round,tps\n%sa,1,1\n%sb,1,2\n",
				 label, label);
		path = write_tmp(long_csv);
		check(wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err)) != 0 &&
			  strstr(err, "configuration label too long") != NULL &&
			  strstr(err, "(1101 bytes, at most 1023)") != NULL,
			  "CSV: a 1101-byte configuration label is refused, not cut (%.120s)", err);
		unlink(path);
	}
	path = write_tmp("configuration,round,tps\na,1,1\na,1,2\nb,1,3\n");
	check(wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err)) != 0 &&
		  strstr(err, "has two rows in round 1") != NULL, "CSV with two rows of one configuration in a round is refused");
	unlink(path);
	/* an old results.csv: run was the repeat; ok false leaves the round out */
	path = write_tmp("configuration,run,order,tps,ok,clients,seconds,wal_flush_total_ms,wal_flush_episodes\n"
					 "a,1,1,100,true,4,10,10000,50\nb,1,2,130,true,4,10,0,0\n"
					 "a,2,3,110,true,4,10,10000,50\nb,2,4,0,false,4,10,,\n"
					 "a,3,5,105,true,4,10,10000,50\nb,3,6,137,true,4,10,0,0\n"
					 "a,4,7,100,true,4,10,10000,50\nb,4,8,131,true,4,10,0,0\n"
					 "a,5,9,102,true,4,10,10000,50\nb,5,10,133,true,4,10,0,0\n"
					 "a,6,11,104,true,4,10,10000,50\nb,6,12,135,true,4,10,0,0\n"
					 "a,7,13,101,true,4,10,10000,50\nb,7,14,132,true,4,10,0,0\n");
	err[0] = '\0';
	check(wsb_verdicts_from_csv(path, NULL, 10, 0, 0, &vs, err, sizeof(err)) == 0 && vs.v &&
		  vs.v[WSB_N_METRICS].rounds == 6 && vs.spec.margin_pct == 10 &&
		  strcmp(vs.v[WSB_N_METRICS + WSB_M_SHARE + 1].words, "fewer") == 0,
		  "CSV: an old results.csv (run as the round), a failed run's round out, stall columns read (%s)",
		  vs.v ? vs.v[WSB_N_METRICS + WSB_M_SHARE + 1].words : err);
	wsb_verdicts_free(&vs);
	unlink(path);
	/* a budgeted experiment's results.csv: judged at its last look */
	path = write_tmp("configuration,round,tps,budget_looks\na,1,100,10\nb,1,130,10\na,2,100,10\nb,2,131,10\n"
					 "a,3,100,10\nb,3,129,10\na,4,100,10\nb,4,130,10\n");
	rc = wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err));
	check(rc == 0 && vs.spec.nlooks == 10 && vs.spec.look == 2 && vs.spec.alpha == wsb_look_alpha(0.05, 2, 10) &&
		  vs.spec.alpha > 0 && vs.spec.alpha < wsb_spent_by(0.05, 4.0 / 12) &&
		  near(vs.v[WSB_N_METRICS].level, 1 - vs.spec.alpha, 1e-12),
		  "CSV with budget_looks 10 and 4 rounds: look 2 of 10 at its nominal alpha %.3g, under the "
		  "%.3g spent by 4 of 12 rounds (%s)", vs.spec.alpha, wsb_spent_by(0.05, 4.0 / 12), err);
	{
		/* judging it again spends nothing new: the same look, the same alpha */
		double		first = vs.spec.alpha;

		wsb_verdicts_free(&vs);
		rc = wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err));
		check(rc == 0 && vs.spec.look == 2 && vs.spec.alpha == first,
			  "CSV with budget_looks: judged again, the same look 2 and alpha (%s)", err);
	}
	wsb_verdicts_free(&vs);
	unlink(path);
	/* results.csv: shuffled, the baseline's runs need not come first */
	path = write_tmp("configuration,round,tps,baseline\nb,1,130,false\na,1,100,true\n"
					 "a,2,100,true\nb,2,131,false\n");
	check(wsb_verdicts_from_csv(path, NULL, NAN, 0, 0, &vs, err, sizeof(err)) == 0 &&
		  strcmp(vs.table.labels[0], "a") == 0 && vs.v[WSB_N_METRICS].ratio > 1.2,
		  "CSV: the baseline column names the baseline, whatever runs first (%s)", err);
	wsb_verdicts_free(&vs);
	unlink(path);
	snprintf(p2, sizeof(p2), "rm -rf '%s'", dir);
	if (system(p2) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static void
test_duration(void)
{
	double		s = 0;

	check(wsb_parse_duration("20m", &s) && s == 1200 && wsb_parse_duration("2h", &s) && s == 7200 &&
		  wsb_parse_duration("1h30m", &s) && s == 5400 && wsb_parse_duration("90", &s) && s == 90 &&
		  wsb_parse_duration("45s", &s) && s == 45,
		  "durations: 20m 2h 1h30m 90 45s");
	check(!wsb_parse_duration("", &s) && !wsb_parse_duration("10x", &s) && !wsb_parse_duration("0m", &s) &&
		  !wsb_parse_duration("-5m", &s), "durations: empty, 10x, 0m, -5m refused");
}

/* the budget's looks, and --resume's check of the stored plan */
static void
test_experiment(void)
{
	WsbOptions	o;
	WsbPlan		plan;
	char		dir[] = "/tmp/wsb_unit_plan.XXXXXX";
	char		path[256],
				err[512],
				text[8192];

	wsb_options_defaults(&o);
	o.duration = 15;
	o.budget_seconds = 1200;
	/* 4 x (15 + 6) = 84 s a round: 14 rounds fit, the first look after 3 */
	check(wsb_budget_looks(&o, 4) == 12, "budget 20m, 4 configurations of 15 s runs: 12 looks (got %d)",
		  wsb_budget_looks(&o, 4));
	o.runs = 5;
	o.runs_given = true;
	check(wsb_budget_looks(&o, 4) == 3, "--runs 5 caps the looks at 3 (got %d)", wsb_budget_looks(&o, 4));
	o.runs_given = false;
	o.budget_seconds = 60;
	check(wsb_budget_looks(&o, 4) == 1, "a budget shorter than 3 rounds: still 1 look (got %d)",
		  wsb_budget_looks(&o, 4));
	o.warmup = 5;
	/* 4 x (15 + 5 + 6) = 104 s a round: 11 rounds fit in 20 min */
	o.budget_seconds = 1200;
	check(wsb_budget_looks(&o, 4) == 9, "a 5 s warm-up counts in a round's length: 9 looks (got %d)",
		  wsb_budget_looks(&o, 4));

	/* the WAL segments made ahead of a slowed disk */
	wsb_options_defaults(&o);
	check(wsb_wal_segments_ahead(&o) == 0, "no slowed disk: no WAL made ahead (got %d)",
		  wsb_wal_segments_ahead(&o));
	o.slow_wal_iops = 100;
	o.slow_wal_mbps = 4;
	o.duration = 10;
	/* 4 MB/s x (10 + 10) s = 80 MB: 5 segments, and the one in use */
	check(wsb_wal_segments_ahead(&o) == 6, "4 MB/s, 10 s runs: 6 segments ahead (got %d)",
		  wsb_wal_segments_ahead(&o));
	o.warmup = 4;
	check(wsb_wal_segments_ahead(&o) == 7, "and a 4 s warm-up: 7 (got %d)", wsb_wal_segments_ahead(&o));
	o.slow_wal_mbps = 0;
	o.warmup = 0;
	/* 100 IOPS of 256 kB = 25 MB/s x 20 s = 500 MB: 31.25 -> 32 segments, and one */
	check(wsb_wal_segments_ahead(&o) == 33, "100 IOPS alone: 33 segments ahead (got %d)",
		  wsb_wal_segments_ahead(&o));
	o.duration = 3600;
	check(wsb_wal_segments_ahead(&o) == WSB_WAL_AHEAD_MAX, "an hour's run: capped at %d (got %d)",
		  WSB_WAL_AHEAD_MAX, wsb_wal_segments_ahead(&o));

	wsb_options_defaults(&o);
	o.seed = 7;
	o.nsets = 1;
	if (wsb_parse_set("wal_buffers=1MB,4MB", &o.sets[0], err, sizeof(err)) != 0 ||
		wsb_make_plan(&o, &plan, err, sizeof(err)) != 0 || mkdtemp(dir) == NULL)
	{
		check(false, "plan for the resume test: %s", err);
		return;
	}
	plan_text(&o, &plan, text, sizeof(text));
	snprintf(path, sizeof(path), "%s/plan.txt", dir);
	wsb_write_file(path, text);
	wsb_strlcpy(o.resume, dir, sizeof(o.resume));
	check(strstr(text, "seed = 7\n") && strstr(text, "configuration = wal_buffers=4MB\n") &&
		  wsb_resume_check(&o, &plan, err, sizeof(err)) == 0,
		  "plan.txt: the seed and the configurations; the same plan passes the resume check");
	o.duration = 31;
	check(wsb_resume_check(&o, &plan, err, sizeof(err)) != 0 &&
		  strstr(err, "stored \"duration = 30\", now \"duration = 31\"") != NULL,
		  "resume check names the first difference (%s)", err);
	o.duration = 30;
	o.seed = 99;
	{
		int			rc = wsb_resume_prepare(&o, false, err, sizeof(err));

		check(rc == 0 && o.seed == 7 && strcmp(o.out, dir) == 0,
			  "--resume takes the stored seed when none is given (got %lld)", o.seed);
	}
	{
		/*
		 * A budget of 18 looks that made 5 (rounds 3 to 7): plan.txt records
		 * the spending after the plan; the continuation passes the check
		 * and reads back what it goes on from.  By round 7 of 20 the looks
		 * spent a(0.35) = 0.00092320; what remains is the rest of 0.05.
		 */
		PQExpBufferData spent;
		char	   *stored;
		int			rc;

		initPQExpBuffer(&spent);
		appendPQExpBufferStr(&spent, text);
		wsb_spending_text(18, 5, &spent);
		wsb_write_file(path, spent.data);
		termPQExpBuffer(&spent);
		stored = wsb_read_file(path, NULL);
		o.spending_looks = o.looks_done = 0;
		rc = wsb_resume_prepare(&o, false, err, sizeof(err));
		check(rc == 0 && wsb_resume_check(&o, &plan, err, sizeof(err)) == 0 &&
			  o.spending_looks == 18 && o.looks_done == 5 && stored &&
			  strstr(stored, "\nspending_looks = 18\nlooks = 5\nalpha_spent = 0.000923195\n") &&
			  strstr(stored, "spending = O'Brien-Fleming (Lan-DeMets), rounds as information, 0.05 over 20 rounds\n"),
			  "plan.txt records the spending (18 looks, 5 made, 0.000923195 spent); --resume reads it back "
			  "and the check of the plan passes (%s)", err);
		/* look 6 (round 8) may spend a(0.40) - a(0.35); its nominal level
		 * is at least that (the looks before it overlap it) and under what
		 * remains */
		check(near(0.05 - wsb_spent_at_look(0.05, o.looks_done, o.spending_looks), 0.05 - 0.00092320, 1e-8) &&
			  wsb_look_alpha(0.05, 6, 18) >= wsb_spent_by(0.05, 8.0 / 20) - wsb_spent_by(0.05, 7.0 / 20) &&
			  wsb_look_alpha(0.05, 6, 18) < 0.05 - 0.00092320,
			  "--resume spends only what remains: %.6f after 5 looks; look 6 tests at %.5f (it may spend %.5f)",
			  0.05 - wsb_spent_at_look(0.05, o.looks_done, o.spending_looks), wsb_look_alpha(0.05, 6, 18),
			  wsb_spent_by(0.05, 8.0 / 20) - wsb_spent_by(0.05, 7.0 / 20));
		free(stored);
		wsb_write_file(path, "target = temporary\nlooks = x\n");
		rc = wsb_resume_prepare(&o, false, err, sizeof(err));
		check(rc != 0 && strstr(err, "plan.txt: looks: \"x\" is not an integer") != NULL,
			  "--resume: a bad looks line in plan.txt is refused (%s)", err);
	}
	wsb_plan_free(&plan);
	unlink(path);
	rmdir(dir);
}

/* a baseline of 1000 tps and one configuration at 1000 exp(d[r]) */
static WsbRoundRun *
rounds_from_logs(const double *d, int nrounds, int *nruns)
{
	double	   *tps = malloc(sizeof(double) * 2 * nrounds);
	WsbRoundRun *r;

	for (int i = 0; i < nrounds; i++)
	{
		tps[2 * i] = 1000;
		tps[2 * i + 1] = 1000 * exp(d[i]);
	}
	r = rounds_of(nrounds, 2, tps, nruns);
	free(tps);
	return r;
}

/*
 * No word the runs cannot carry: the sign-flip test's reach, its exact p,
 * and the words it gates, through the real judgement.
 */
static void
test_sign_flip(void)
{
	WsbJudgeSpec s = spec5();
	WsbPaired	v[2 * WSB_N_METRICS];
	const WsbPaired *t = &v[WSB_N_METRICS + WSB_M_TPS];
	int			n;
	WsbRoundRun *r;

	/* 2 / 2^n <= a two-sided, 1 / 2^n one-sided; 2 / 2^5 = 0.0625 itself */
	check(wsb_sign_flip_rounds(0.05, true) == 6 && wsb_sign_flip_rounds(0.05, false) == 5 &&
		  wsb_sign_flip_rounds(0.025, true) == 7 && wsb_sign_flip_rounds(0.0625, true) == 5 &&
		  wsb_sign_flip_rounds(0.01, false) == 7 && wsb_sign_flip_rounds(0, true) == -1,
		  "sign-flip reach: 6 rounds two-sided at 5%%, 5 one-sided, 7 at 2.5%%, 5 at 1/16, 7 one-sided at 1%%");
	{
		char		note[256] = "";

		check(wsb_too_few_rounds_note(2, 1, note, sizeof(note)) &&
			  strcmp(note, "2 rounds cannot carry a verdict at 5%: equivalence needs 5, a direction 6 "
					 "(--runs 6, or --budget)") == 0 &&
			  !wsb_too_few_rounds_note(5, 1, note, sizeof(note)) &&
			  wsb_too_few_rounds_note(5, 3, note, sizeof(note)) &&
			  strstr(note, "over these configurations: equivalence needs 6, a direction 7") &&
			  !wsb_too_few_rounds_note(1, 0, note, sizeof(note)),
			  "plan: fixed rounds too few for any verdict are said before the runs; 5 rounds carry "
			  "equivalence against one configuration, not against three (Holm's 5%% / 3) (%s)", note);
	}
	{
		/*
		 * 3, 2, 1, -0.5: sum 5.5; of the 16 patterns 3+2+1+0.5 = 6.5 and
		 * 3+2+1-0.5 = 5.5 reach it: one-sided 2/16, two-sided 4/16
		 */
		const double d[] = {3, 2, 1, -0.5};
		const double ones[] = {1, 1, 1, 1, 1};

		check(near(wsb_sign_flip_p(d, 4, 0, 1, 1), 0.125, 1e-12) &&
			  near(wsb_sign_flip_p(d, 4, 0, 0, 1), 0.25, 1e-12) &&
			  near(wsb_sign_flip_p(d, 4, 0, -1, 1), 15.0 / 16, 1e-12),
			  "sign-flip p of 3, 2, 1, -0.5: 2/16 above, 4/16 both ways, 15/16 below (got %g %g %g)",
			  wsb_sign_flip_p(d, 4, 0, 1, 1), wsb_sign_flip_p(d, 4, 0, 0, 1), wsb_sign_flip_p(d, 4, 0, -1, 1));
		/* against a centre: 1 - 0.5 five times, all above: 1/32 */
		check(near(wsb_sign_flip_p(ones, 5, 0.5, 1, 1), 1.0 / 32, 1e-12) &&
			  near(wsb_sign_flip_p(ones, 5, 1.5, 1, 1), 1, 1e-12) &&
			  wsb_sign_flip_p(d, 4, 0, 0, 0.1) > 0.1 && isnan(wsb_sign_flip_p(ones, 0, 0, 0, 1)),
			  "sign-flip p against a centre; counting stops past stop_above; none of no rounds");
	}
	{
		/* +30% every round: at 5 rounds the t interval is sure, the test cannot be */
		const double d[] = {0.26, 0.27, 0.25, 0.265, 0.26, 0.255};

		r = rounds_from_logs(d, 5, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->word == WSB_W_TOO_FEW && !t->decided && t->more_rounds == 1 && t->low > 1.2 &&
			  strcmp(t->words, "too few rounds for faster at 5%: needs 6") == 0,
			  "sign-flip gate: +30%% over 5 rounds, [%.3f, %.3f], \"%s\"", t->low, t->high, t->words);
		free(r);
		r = rounds_from_logs(d, 6, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(strcmp(t->words, "faster by >= 5%") == 0 && near(t->flip_p, 2.0 / 64, 1e-12),
			  "sign-flip gate: the same at 6 rounds is \"faster by >= 5%%\", sign-flip p 2/64 (got \"%s\", %g)",
			  t->words, t->flip_p);
		free(r);
	}
	{
		/* +-0.3%: 4 rounds carry no word at 5%, 5 carry equivalence */
		const double d[] = {0.003, -0.002, 0.001, -0.001, 0.002};

		r = rounds_from_logs(d, 4, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->word == WSB_W_TOO_FEW && t->more_rounds == 1 &&
			  strcmp(t->words, "too few rounds for a verdict at 5%: needs 5 (6 for faster or slower)") == 0,
			  "sign-flip gate: +-0.3%% over 4 rounds: \"%s\"", t->words);
		free(r);
		r = rounds_from_logs(d, 5, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(strcmp(t->words, "equivalent within +-5%: [-0.1%, +0.3%] at 90%") == 0 &&
			  near(t->flip_p_equiv, 1.0 / 32, 1e-12),
			  "sign-flip gate: 5 rounds of +-0.3%% are \"equivalent within +-5%%\", sign-flip p 1/32 "
			  "(got \"%s\", %g)", t->words, t->flip_p_equiv);
		free(r);
	}
	{
		/*
		 * six rounds +5%, one -5%: the t test (p 0.046) calls it faster;
		 * 8 of the 128 patterns have six or seven signs up, so the
		 * sign-flip p is 16/128 and no direction is said (the judgement
		 * stops counting once past 5%)
		 */
		const double d[] = {0.05, 0.05, 0.05, 0.05, 0.05, 0.05, -0.05};

		r = rounds_from_logs(d, 7, &n);
		wsb_judge_rounds(r, n, 2, &s, v);
		check(t->p < 0.05 && t->low > 1 && t->flip_p > 0.05 &&
			  near(wsb_sign_flip_p(d, 7, 0, 0, 1), 16.0 / 128, 1e-12) && t->word == WSB_W_INCONCLUSIVE,
			  "sign-flip gate: 6 rounds +5%%, one -5%%: t p %.3f, sign-flip p %g, \"%s\"", t->p, t->flip_p,
			  t->words);
		free(r);
	}
	{
		/*
		 * Holm: three configurations +30% over 6 rounds; the first in
		 * Holm's order is tested at 5% / 3, which 6 rounds cannot reach
		 * (2/64 > 0.0167): Holm stops there, so none is said, each needs 7
		 */
		double		tps[6 * 4];
		WsbPaired	w[4 * WSB_N_METRICS];

		for (int i = 0; i < 6; i++)
		{
			tps[4 * i] = 1000;
			tps[4 * i + 1] = 1300 + i;
			tps[4 * i + 2] = 1310 - 2 * i;
			tps[4 * i + 3] = 1295 + 3 * (i % 2);
		}
		r = rounds_of(6, 4, tps, &n);
		wsb_judge_rounds(r, n, 4, &s, w);
		check(w[1 * WSB_N_METRICS].word == WSB_W_TOO_FEW &&
			  w[2 * WSB_N_METRICS].word == WSB_W_TOO_FEW && w[3 * WSB_N_METRICS].word == WSB_W_TOO_FEW &&
			  w[1 * WSB_N_METRICS].rounds_dir == 7 && w[2 * WSB_N_METRICS].rounds_dir == 7 &&
			  w[3 * WSB_N_METRICS].rounds_dir == 7,
			  "sign-flip gate under Holm: none of three +30%% at 6 rounds (\"%s\", \"%s\", \"%s\")",
			  w[1 * WSB_N_METRICS].words, w[2 * WSB_N_METRICS].words, w[3 * WSB_N_METRICS].words);
		free(r);
	}
}

/*
 * The machine's speed (speed.c): on rounds whose log tps is a round's
 * level, a configuration's and -0.8 ln machine_us exactly, the fit finds
 * the slope with all the variance within rounds, and the moved tps keeps
 * only the configurations' ratios; a paired round without a reading, a
 * traced round and too few rounds; and the judgement pays a degree of
 * freedom for it.
 */
static void
test_speed_fit(void)
{
	static const double level[3] = {0, 0.1, -0.05};
	double		tps[7 * 3];
	int			nruns;
	WsbRoundRun *r;
	WsbSpeedFit fit;
	bool		ratios = true,
				used;
	WsbPaired	v[3 * WSB_N_METRICS],
				plain[3 * WSB_N_METRICS];
	WsbJudgeSpec s = spec5();

	for (int i = 0; i < 21; i++)
		tps[i] = 1;
	r = rounds_of(7, 3, tps, &nruns);
	for (int i = 0; i < nruns; i++)
	{
		r[i].machine_us = 100 * exp(0.1 * sin(i + 1));
		r[i].tps = exp(7 + 0.02 * r[i].round + level[r[i].config] - 0.8 * log(r[i].machine_us));
	}
	used = wsb_speed_fit(r, nruns, 3, &fit);
	check(used && fit.rounds == 7 && near(fit.slope, -0.8, 1e-9) &&
		  near(fit.r2, 1, 1e-9),
		  "speed fit: exact data, slope %.6f (-0.8), r2 %.6f (1), %d rounds", fit.slope, fit.r2, fit.rounds);
	wsb_speed_adjust(r, nruns, &fit);
	for (int i = 0; i < nruns; i++)
		ratios &= near(log(r[i].tps / r[i - i % 3].tps), level[r[i].config], 1e-9);
	check(ratios, "speed fit: the moved tps keeps each configuration's ratio to the baseline alone");
	free(r);

	/* configuration 1 reads the gauge 30% slower in every round, 2 by chance alone */
	for (int i = 0; i < 21; i++)
		tps[i] = 1000 * (1 + 0.01 * ((i * 7) % 5));
	r = rounds_of(7, 3, tps, &nruns);
	for (int i = 0; i < nruns; i++)
		r[i].machine_us = 100 * (r[i].config == 1 ? 1.3 : 1) * (1 + 0.02 * ((i * 5) % 3)) *
			(r[i].config == 2 ? 1 + 0.03 * ((r[i].round % 2) ? 1 : -1) : 1);
	wsb_judge_rounds(r, nruns, 3, &s, v);
	check(v[WSB_N_METRICS].speed_adjusted && v[WSB_N_METRICS].machine_low > 1 &&
		  v[2 * WSB_N_METRICS].machine_low < 1 && v[2 * WSB_N_METRICS].machine_high > 1,
		  "speed fit: the gauge's reading against the baseline's has an interval: 1 outside it for a "
		  "configuration that reads it slower every round ([%.3f, %.3f]), inside for chance ([%.3f, %.3f])",
		  v[WSB_N_METRICS].machine_low, v[WSB_N_METRICS].machine_high,
		  v[2 * WSB_N_METRICS].machine_low, v[2 * WSB_N_METRICS].machine_high);
	free(r);

	for (int i = 0; i < 21; i++)
		tps[i] = 1000 * (1 + 0.01 * ((i * 7) % 5));
	r = rounds_of(7, 3, tps, &nruns);
	for (int i = 0; i < nruns; i++)
		r[i].machine_us = 100 + (i * 3) % 7;
	wsb_judge_rounds(r, nruns, 3, &s, v);
	r[4].machine_us = NAN;
	used = wsb_speed_fit(r, nruns, 3, &fit);
	check(!used,
		  "speed fit: a paired round without a reading leaves tps as measured");
	wsb_judge_rounds(r, nruns, 3, &s, plain);
	check(v[WSB_N_METRICS].speed_adjusted && !plain[WSB_N_METRICS].speed_adjusted &&
		  v[WSB_N_METRICS].df == plain[WSB_N_METRICS].df - 1 && !isnan(v[WSB_N_METRICS].sd_measured),
		  "speed fit: the judgement takes it out and pays a degree of freedom (%g against %g)",
		  v[WSB_N_METRICS].df, plain[WSB_N_METRICS].df);
	r[4].machine_us = 100;
	r[3].traced = r[4].traced = r[5].traced = true;
	used = wsb_speed_fit(r, nruns, 3, &fit);
	check(used && fit.rounds == 6,
		  "speed fit: a traced round is left out of the fit as out of the pairs (%d rounds)", fit.rounds);
	r[6].traced = true;
	used = wsb_speed_fit(r, nruns, 3, &fit);
	check(!used && fit.rounds == 5,
		  "speed fit: under %d rounds with readings, none (%d)", WSB_SPEED_MIN_ROUNDS, fit.rounds);
	free(r);
}

void
test_verdict(void)
{
	test_experiment();
	test_2012();
	test_readme_results();
	test_drift();
	test_words();
	test_sign_flip();
	test_left_out();
	test_pieces();
	test_stalls();
	test_latency();
	test_negligible();
	test_limit();
	test_equivalence_holm();
	test_spending();
	test_round_order();
	test_place_fit();
	test_place_judged();
	test_carryover();
	test_csv_input();
	test_csv_places();
	test_limit_printed();
	test_duration();
	test_speed_fit();
}
