/*-------------------------------------------------------------------------
 *
 * test_unit_sim.c
 *		wal_stall_bench: simulated experiments for the verdict by rounds.
 *
 * The machine, as this 2-core VM shared with other work behaves: every run's
 * tps is the configuration's true tps times the machine's state, which
 * drifts (+10% a round, spread over its runs, so that inside a round too
 * whatever runs later is faster, and a random walk of 2% a run on top),
 * times noise of 6% a run (lognormal), and one run in twenty meets a burst
 * from a neighbour (a further lognormal factor of 30%).  The per-round log
 * ratios then spread by about 0.1, as in the README's Results run (0.05 to
 * 0.12 for its three configurations), and one configuration's runs drift
 * by +60% over 20 rounds.  The rounds run in the balanced order drawn
 * from the experiment's seed, as the harness does (wsb_round_order).
 *
 *	A/A		three configurations that are all the baseline: over 2,000
 *			experiments, any faster or slower word is a false verdict; the
 *			family-wise rate must stay at 5% plus three standard errors of
 *			the simulation (sqrt(.05 .95 / 2000) = 0.49%), both with 5
 *			rounds judged once and with --budget's looks after rounds 3..20
 *			(18 looks, O'Brien-Fleming spending, spending.c).  The same looks without
 *			spending must exceed 5%: evidence that the simulation can see
 *			the inflation the spending prevents.  With looks, a false
 *			verdict counts if any look showed one, whether or not the
 *			experiment stopped there (a reader may watch every look).
 *	edge	four configurations each truly 10% faster, against a margin
 *			of 10%, 6 rounds: "equivalent within +-10%" for any of them
 *			is a false verdict; family-wise at most 5% plus three
 *			standard errors (Holm over the equivalence tests; each at 5%
 *			it was about three times that)
 *	20%		one configuration truly 20% faster, --budget's looks: the
 *			design decides "faster by >= 5%" in at least 95% of 2,000
 *			experiments within 20 rounds (97.2% with O'Brien-Fleming
 *			spending), and never reads slower.
 *
 *	machines	the cases, each run's log tps its truth plus a
 *			linear drift, an AR(1) machine state, lognormal noise and a
 *			carryover onto the run after one configuration: an A/A judged
 *			once reads faster/slower at most 5% plus three standard
 *			errors (iid 2%, 3 rounds; drift 8% a run, 3 rounds, which
 *			independent shuffles read 16.6% of the time without the
 *			place in the fit; drift 4% a run over 5 rounds, and with 5
 *			configurations over 4, 9.2% that way; AR(1) 0.8; iid 5% over
 *			20 rounds of 4 configurations; a 3% carryover); --budget of
 *			20 rounds decides a true +10% "faster by >= 5%" at 2.5%, 5%
 *			and 10% per-round noise in at least 95%, 90% and 40%, and an
 *			A/A at 5% reads "equivalent within +-5%" in at least 90%.
 *	stated	an inconclusive line's "N-M more rounds for 80% power", tried
 *			on fresh experiments with the truth where the line's estimate
 *			puts it: the high end decides in at least 78% (80% less the
 *			simulation's error; the old plug-in at 50% power: 59-63%).
 *	two-point	rounds that fall +5% or -5% from the truth, each way as
 *			likely: from 3 to 8 rounds, an A/A reads faster/slower and a
 *			truth on the margin reads equivalent in at most 5% plus three
 *			standard errors (the t interval alone: 21.8% and 12.9% at 3
 *			rounds; the sign-flip gate, verdict.c, holds the level).
 *	sweep	four sizes against the largest with --budget's looks: the
 *			tipping point's fixed sequence (tipping.c) claims a size truly
 *			on the margin in at most 5% plus three standard errors, and
 *			finds a true tipping point more often than Holm's words.
 *
 * Deterministic: a fixed seed for the simulation's own generator.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsb.h"
#include "engine.h"
#include "verdict.h"
#include "tipping.h"
#include "test_unit.h"

#define N_EXPERIMENTS 2000
#define MAX_ROUNDS 20
#define FIRST_LOOK 3

static uint64_t rng_state = 0x2012c0ffee;

static double
uniform(void)
{
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) / 9007199254740992.0;
}

/* Box-Muller: one standard normal */
static double
normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* One successful run with tps exp(lt) and no figures but tps. */
static void
sim_run(WsbRoundRun *x, int config, int round, int position, double lt)
{
	memset(x, 0, sizeof(*x));
	x->config = config;
	x->round = round;
	x->position = position;
	x->ok = true;
	x->tps = exp(lt);
	x->tps_window = x->client_ms = NAN;
	x->latency_p99_ms = x->longest_stall_ms = NAN;
	for (int k = 0; k < WSB_N_STALL; k++)
		x->stall_ms[k] = x->episodes[k] = NAN;
}

/*
 * One experiment of rounds x nconfigs runs; true_ratio[c] the truth.
 * Fills runs in run order.
 */
static void
simulate(int rounds, int nconfigs, const double *true_ratio, WsbRoundRun *runs)
{
	int			order[MAX_ROUNDS * 8];
	double		machine = 0;	/* log of the machine's state */

	wsb_round_order((uint64_t) (uniform() * 4e9), nconfigs, rounds, order);
	for (int r = 0; r < rounds; r++)
		for (int pos = 0; pos < nconfigs; pos++)
		{
			WsbRoundRun *x = &runs[r * nconfigs + pos];
			int			c = order[r * nconfigs + pos];
			double		lt;

			machine += log(1.10) / nconfigs + 0.02 * normal();
			lt = log(1000 * true_ratio[c]) + machine + 0.06 * normal();
			if (uniform() < 0.05)
				lt += 0.30 * normal();
			sim_run(x, c, r + 1, pos + 1, lt);
		}
}

typedef struct SimOutcome
{
	int			false_direction;	/* experiments whose verdict read faster/slower */
	int			ever_direction;		/* ... at any look, stopped there or not */
	int			decided_faster_by;	/* configuration 1 read faster by >= 5% */
	int			slower;
	double		mean_rounds;
} SimOutcome;

static bool
directional(WsbWord w)
{
	return w == WSB_W_FASTER || w == WSB_W_FASTER_BY || w == WSB_W_SLOWER || w == WSB_W_SLOWER_BY;
}

/*
 * Run N_EXPERIMENTS: with looks, judge after every round from FIRST_LOOK
 * to MAX_ROUNDS and stop when every configuration is decided (the
 * harness's --budget), spending alpha / nlooks at each look when spend,
 * else the whole alpha at each; without looks, judge fixed_rounds once.
 */
static SimOutcome
run_sims(int nconfigs, const double *truth, bool looks, bool spend, int fixed_rounds)
{
	SimOutcome	o = {0};
	WsbRoundRun runs[MAX_ROUNDS * 8];
	WsbPaired  *v = calloc(nconfigs * WSB_N_METRICS, sizeof(WsbPaired));
	int			nlooks = MAX_ROUNDS - FIRST_LOOK + 1;
	long		total_rounds = 0;

	for (int e = 0; e < N_EXPERIMENTS; e++)
	{
		int			rounds = looks ? MAX_ROUNDS : fixed_rounds;
		int			used = rounds;
		bool		any_dir = false,
					ever = false;

		simulate(rounds, nconfigs, truth, runs);
		for (int r = looks ? FIRST_LOOK : rounds; r <= rounds; r++)
		{
			WsbJudgeSpec s = {5, 0.05, looks ? r - FIRST_LOOK + 1 : 0, looks && spend ? nlooks : 0};
			bool		all = true;

			s.alpha = wsb_look_alpha(0.05, s.look, s.nlooks);
			wsb_judge_rounds(runs, r * nconfigs, nconfigs, &s, v);
			for (int c = 1; c < nconfigs; c++)
			{
				all &= v[c * WSB_N_METRICS].decided;
				ever |= directional(v[c * WSB_N_METRICS].word);
			}
			used = r;
			if (all || r == rounds)
			{
				/* the experiment's final verdict is the one it stopped at */
				for (int c = 1; c < nconfigs; c++)
					any_dir |= directional(v[c * WSB_N_METRICS].word);
				if (v[WSB_N_METRICS].word == WSB_W_FASTER_BY)
					o.decided_faster_by++;
				if (v[WSB_N_METRICS].word == WSB_W_SLOWER || v[WSB_N_METRICS].word == WSB_W_SLOWER_BY)
					o.slower++;
				break;
			}
		}
		o.false_direction += any_dir;
		o.ever_direction += ever;
		total_rounds += used;
	}
	o.mean_rounds = (double) total_rounds / N_EXPERIMENTS;
	free(v);
	return o;
}

/*
 * Experiments in which every configuration but the baseline is truly at
 * the edge of the margin (truth[c] = 1 + margin): the share in which any
 * of them reads equivalent within it, judged once after rounds.
 */
static double
edge_equivalence_rate(int nconfigs, const double *truth, double margin_pct, int rounds)
{
	WsbRoundRun runs[MAX_ROUNDS * 8];
	WsbPaired  *v = calloc(nconfigs * WSB_N_METRICS, sizeof(WsbPaired));
	WsbJudgeSpec s = {margin_pct, 0.05, 0, 0};
	int			any = 0;

	for (int e = 0; e < N_EXPERIMENTS; e++)
	{
		bool		equivalent = false;

		simulate(rounds, nconfigs, truth, runs);
		wsb_judge_rounds(runs, rounds * nconfigs, nconfigs, &s, v);
		for (int c = 1; c < nconfigs; c++)
			equivalent |= v[c * WSB_N_METRICS].word == WSB_W_EQUIVALENT;
		any += equivalent;
	}
	free(v);
	return (double) any / N_EXPERIMENTS;
}

/*
 * A machine of the cases: every run's log tps is its
 * configuration's truth, plus a linear drift a run, plus an
 * autocorrelated state (AR(1): phi, and the sd of its steps), plus
 * lognormal noise; a run right after configuration 1 gets carry.
 */
typedef struct Machine
{
	const char *what;
	double		noise;			/* per run, log sd */
	double		drift;			/* log, a run */
	double		phi,
				step;			/* the AR(1) state */
	double		carry;			/* log, onto the run after configuration 1 */
} Machine;

static void
simulate_machine(const Machine *m, int rounds, int nconfigs, const double *truth,
				 WsbRoundRun *runs)
{
	int			order[MAX_ROUNDS * 8];
	double		state = 0;

	wsb_round_order((uint64_t) (uniform() * 4e9), nconfigs, rounds, order);
	for (int i = 0; i < rounds * nconfigs; i++)
	{
		WsbRoundRun *x = &runs[i];
		int			c = order[i];

		state = m->phi * state + m->step * normal();
		sim_run(x, c, i / nconfigs + 1, i % nconfigs + 1,
				log(1000 * truth[c]) + m->drift * i + state + m->noise * normal() +
				(i > 0 && order[i - 1] == 1 ? m->carry : 0));
	}
}

/*
 * A/A on machine m, judged once after rounds: the share of experiments
 * in which a configuration from first_judged on reads faster or slower.
 */
static double
false_direction_rate(const Machine *m, int nconfigs, int rounds, int first_judged)
{
	WsbRoundRun runs[MAX_ROUNDS * 8];
	WsbPaired  *v = calloc(nconfigs * WSB_N_METRICS, sizeof(WsbPaired));
	const double truth[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	WsbJudgeSpec s = {5, 0.05, 0, 0};
	int			bad = 0;

	for (int e = 0; e < N_EXPERIMENTS; e++)
	{
		bool		any = false;

		simulate_machine(m, rounds, nconfigs, truth, runs);
		wsb_judge_rounds(runs, rounds * nconfigs, nconfigs, &s, v);
		for (int c = first_judged; c < nconfigs; c++)
			any |= directional(v[c * WSB_N_METRICS].word);
		bad += any;
	}
	free(v);
	return (double) bad / N_EXPERIMENTS;
}

/*
 * --budget of 20 rounds on machine m, two configurations, the second's
 * truth ratio: judged after every round from the third with the spending
 * of the harness, stopped when decided; the share that ends on word.
 */
static double
budget_rate(const Machine *m, double ratio, WsbWord word)
{
	WsbRoundRun runs[MAX_ROUNDS * 2];
	WsbPaired	v[2 * WSB_N_METRICS];
	const double truth[2] = {1, ratio};
	int			nlooks = MAX_ROUNDS - FIRST_LOOK + 1,
				hits = 0;

	for (int e = 0; e < N_EXPERIMENTS; e++)
	{
		simulate_machine(m, MAX_ROUNDS, 2, truth, runs);
		for (int r = FIRST_LOOK; r <= MAX_ROUNDS; r++)
		{
			WsbJudgeSpec s = {5, 0.05, r - FIRST_LOOK + 1, nlooks};

			s.alpha = wsb_look_alpha(0.05, s.look, nlooks);
			wsb_judge_rounds(runs, r * 2, 2, &s, v);
			if (v[WSB_N_METRICS].decided || r == MAX_ROUNDS)
			{
				hits += v[WSB_N_METRICS].word == word;
				break;
			}
		}
	}
	return (double) hits / N_EXPERIMENTS;
}

/*
 * The machines: the false faster/slower of an A/A judged once
 * stays at 5% within three standard errors of the simulation, whatever
 * the machine does; the power of --budget to decide a true +10%.
 */
static void
test_machines(void)
{
	static const struct
	{
		Machine		m;
		int			nconfigs,
					rounds,
					first_judged;
	}			aa[] = {
		{{"iid noise 2% a run", 0.02, 0, 0, 0, 0}, 2, 3, 1},
		{{"drift 8% a run, noise 2%", 0.02, 0.0770, 0, 0, 0}, 2, 3, 1},
		{{"drift 4% a run, noise 2%", 0.02, 0.0392, 0, 0, 0}, 2, 5, 1},
		{{"drift 4% a run, noise 2%", 0.02, 0.0392, 0, 0, 0}, 5, 4, 1},
		{{"machine state AR(1) 0.8, steps 3%, noise 2%", 0.02, 0, 0.8, 0.03, 0}, 3, 6, 1},
		{{"iid noise 5% a run", 0.05, 0, 0, 0, 0}, 4, 20, 1},
		/* the third configuration, whose neighbours carry over alike */
		{{"carryover 3% after the second of three, drift 2%", 0.02, 0.0198, 0, 0, 0.03}, 3, 12, 2},
	};
	double		bound = 0.05 + 3 * sqrt(0.05 * 0.95 / N_EXPERIMENTS);

	for (size_t i = 0; i < sizeof(aa) / sizeof(aa[0]); i++)
	{
		double		rate = false_direction_rate(&aa[i].m, aa[i].nconfigs, aa[i].rounds,
											   aa[i].first_judged);

		check(rate <= bound, "simulation A/A, %s, %d configurations, %d rounds judged once: faster/slower "
			  "in %.2f%% (at most %.2f%%)", aa[i].m.what, aa[i].nconfigs, aa[i].rounds, 100 * rate,
			  100 * bound);
	}
	{
		/* per-round noise x: each run's x / sqrt 2 */
		static const double noise[3] = {0.025, 0.05, 0.10};
		static const double floor_of[3] = {0.95, 0.90, 0.40};

		for (int i = 0; i < 3; i++)
		{
			Machine		m = {"", noise[i] / sqrt(2), 0, 0, 0, 0};
			double		rate = budget_rate(&m, 1.10, WSB_W_FASTER_BY);

			check(rate >= floor_of[i], "simulation --budget of 20 rounds, a true +10%% at %.1f%% per-round "
				  "noise: \"faster by >= 5%%\" in %.1f%% (at least %.0f%%)", 100 * noise[i], 100 * rate,
				  100 * floor_of[i]);
		}
	}
	{
		Machine		m = {"", 0.05 / sqrt(2), 0, 0, 0, 0};
		double		rate = budget_rate(&m, 1, WSB_W_EQUIVALENT);

		check(rate >= 0.90, "simulation --budget of 20 rounds, A/A at 5%% per-round noise: \"equivalent "
			  "within +-5%%\" in %.1f%% (at least 90%%)", 100 * rate);
	}
}

/*
 * Rounds whose log ratio is the truth plus a two-point noise: +-5%, each
 * way as likely (a machine whose state flips between two levels from one
 * round to the next), and a jitter of 0.2%.  Nothing in it is normal: the
 * t interval of 2 df takes three rounds that fell the same way for a
 * certain change, which a sign-flip test gives p = 1/4 (two-sided).  Two
 * configurations judged by the real code at 5%; the share of
 * experiments whose words are word (faster or slower, for WSB_W_FASTER).
 */
static double
two_point_rate(double truth, double margin_pct, int rounds, WsbWord word)
{
	WsbRoundRun runs[MAX_ROUNDS * 2];
	WsbPaired	v[2 * WSB_N_METRICS];
	WsbJudgeSpec spec = {margin_pct, 0.05, 0, 0};
	int			hits = 0;

	for (int e = 0; e < N_EXPERIMENTS; e++)
	{
		for (int r = 0; r < rounds; r++)
		{
			double		d = log(truth) + (uniform() < 0.5 ? 0.05 : -0.05) + 0.002 * normal();

			for (int c = 0; c < 2; c++)
			{
				/* places unknown: the plain paired mean, whose sign-flip
				 * test is exact (with the place fitted it runs on the
				 * rounds moved to one place, an approximation) */
				sim_run(&runs[r * 2 + c], c, r + 1, 0, log(1000) + (c == 0 ? 0 : d));
			}
		}
		wsb_judge_rounds(runs, rounds * 2, 2, &spec, v);
		if (word == WSB_W_FASTER)
			hits += v[WSB_N_METRICS].word == WSB_W_FASTER || v[WSB_N_METRICS].word == WSB_W_SLOWER ||
				v[WSB_N_METRICS].word == WSB_W_FASTER_BY || v[WSB_N_METRICS].word == WSB_W_SLOWER_BY;
		else
			hits += v[WSB_N_METRICS].word == word;
	}
	return (double) hits / N_EXPERIMENTS;
}

/*
 * No word the runs cannot carry: on the two-point noise, an A/A reads
 * faster or slower, and a truth on the margin reads equivalent, in at
 * most 5% (plus three standard errors) at every number of rounds.  The
 * t interval alone read 21.8% and 12.9% at 3 rounds (every round one
 * way: 2/8 and 1/8 of the experiments), 10.5% and 6.3% at 4, 9.0% and
 * 7.2% at 7; the sign-flip gate allows a direction from 6 rounds (2/64)
 * and equivalence from 5 (1/32), and only where its p reaches the level.
 */
static void
test_two_point(void)
{
	double		bound = 0.05 + 3 * sqrt(0.05 * 0.95 / N_EXPERIMENTS);

	for (int rounds = 3; rounds <= 8; rounds++)
	{
		double		aa = two_point_rate(1, 5, rounds, WSB_W_FASTER);
		double		edge = two_point_rate(1.10, 10, rounds, WSB_W_EQUIVALENT);

		check(aa <= bound && edge <= bound,
			  "simulation, two-point noise +-5%%, %d rounds: an A/A faster/slower in %.2f%%, a true "
			  "+10%% equivalent within +-10%% in %.2f%% (each at most %.2f%%)", rounds, 100 * aa,
			  100 * edge, 100 * bound);
	}
	{
		/* and the gate costs no word the rounds can carry: a true +30% */
		double		power = two_point_rate(1.30, 5, 6, WSB_W_FASTER_BY);

		check(power >= 0.99, "simulation, two-point noise +-5%%, a true +30%%, 6 rounds: \"faster by "
			  ">= 5%%\" in %.1f%% (at least 99%%)", 100 * power);
	}
}

/* rounds of two configurations, places unknown, d_r = ln(truth) + sd z */
static void
plain_rounds(double truth, double sd, int rounds, WsbRoundRun *runs)
{
	for (int r = 0; r < rounds; r++)
	{
		double		d = log(truth) + sd * normal();

		for (int c = 0; c < 2; c++)
		{
			sim_run(&runs[r * 2 + c], c, r + 1, 0, log(1000) + (c == 0 ? 0 : d));
		}
	}
}

/*
 * The rounds an inconclusive line asks for, put to the test: experiments
 * of first rounds at the truth and per-round noise sd, judged by the real
 * code at 5% against margin_pct; each inconclusive one states "N-M more
 * rounds"; then CONTINUATIONS fresh experiments of first + N (low) and
 * first + M (high) rounds with the truth where the line's estimate put it
 * (the stated distance) are judged, and a hit is the decision the line
 * aimed at (beyond the margin: that direction by it; inside: equivalent).
 * Mean powers over the stated lines into *low, *high; returns the lines.
 */
#define STATED_EXPERIMENTS 300
#define CONTINUATIONS 40
#define STATED_MAX_ROUNDS 200

static int
stated_power(double truth, double sd, double margin_pct, int first, double *low, double *high)
{
	WsbRoundRun *runs = malloc(sizeof(WsbRoundRun) * 2 * (STATED_MAX_ROUNDS + first));
	WsbPaired	v[2 * WSB_N_METRICS];
	WsbJudgeSpec spec = {margin_pct, 0.05, 0, 0};
	double		up = log(1 + margin_pct / 100),
				dn = log(1 - margin_pct / 100);
	int			lines = 0;

	*low = *high = 0;
	for (int e = 0; e < STATED_EXPERIMENTS; e++)
	{
		const WsbPaired *t = &v[WSB_N_METRICS + WSB_M_TPS];
		double		m;
		int			n[2];
		WsbWord		aim;

		plain_rounds(truth, sd, first, runs);
		wsb_judge_rounds(runs, first * 2, 2, &spec, v);
		if (t->word != WSB_W_INCONCLUSIVE || t->more_rounds < 0 ||
			t->more_rounds > STATED_MAX_ROUNDS)
			continue;
		m = log(t->ratio);
		aim = m >= up ? WSB_W_FASTER_BY : (m <= dn ? WSB_W_SLOWER_BY : WSB_W_EQUIVALENT);
		n[0] = first + t->more_rounds_low;
		n[1] = first + t->more_rounds;
		lines++;
		for (int h = 0; h < 2; h++)
		{
			int			hits = 0;

			for (int k = 0; k < CONTINUATIONS; k++)
			{
				plain_rounds(exp(m), sd, n[h], runs);
				wsb_judge_rounds(runs, n[h] * 2, 2, &spec, v);
				hits += t->word == aim;
			}
			*(h ? high : low) += (double) hits / CONTINUATIONS;
		}
	}
	if (lines > 0)
	{
		*low /= lines;
		*high /= lines;
	}
	free(runs);
	return lines;
}

/*
 * "N-M more rounds for 80% power": at the truth the line's estimate
 * states, the high end M (the noise's 80% upper bound) decides in at
 * least about 80% of fresh experiments; the low end (the noise seen)
 * decides less often: few rounds' sd is often under the machine's.  The
 * old plug-in (50% power at the noise seen) decided in about half.
 */
static void
test_stated_rounds(void)
{
	static const struct
	{
		double		truth,
					sd,
					margin;
		int			first;
		const char *what;
	}			cases[] = {
		{1.0, 0.04, 5, 5, "A/A, 4% noise, margin 5%, 5 rounds"},
		{1.09, 0.08, 5, 6, "a true +9%, 8% noise, margin 5%, 6 rounds"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		low,
					high;
		int			lines = stated_power(cases[i].truth, cases[i].sd, cases[i].margin, cases[i].first,
										 &low, &high);

		check(lines >= STATED_EXPERIMENTS / 4 && high >= 0.78 && low < high,
			  "simulation, rounds stated for 80%% power, %s: %d inconclusive lines; at the truth they "
			  "state, the high end decides in %.1f%% (at least 78%%), the low end in %.1f%%",
			  cases[i].what, lines, 100 * high, 100 * low);
	}
}

/*
 * A machine whose speed moves from run to run, as this shared VM's does:
 * every run's log tps is its truth minus the machine's slowness z (normal,
 * sd speed), plus noise of its own; the gauge reads 100 us times exp(z)
 * and a noise of its own (gauge_noise), or, not coupled, exp of noise
 * alone: a gauge that tells nothing about tps.
 */
typedef struct SpeedMachine
{
	double		speed;
	double		noise;
	double		gauge_noise;
	bool		coupled;
} SpeedMachine;

static void
simulate_speed(const SpeedMachine *m, int rounds, int nconfigs, const double *truth,
			   WsbRoundRun *runs)
{
	int			order[MAX_ROUNDS * 8];

	wsb_round_order((uint64_t) (uniform() * 4e9), nconfigs, rounds, order);
	for (int i = 0; i < rounds * nconfigs; i++)
	{
		double		z = m->speed * normal();

		sim_run(&runs[i], order[i], i / nconfigs + 1, i % nconfigs + 1,
				log(1000 * truth[order[i]]) - z + m->noise * normal());
		runs[i].machine_us = 100 * exp((m->coupled ? z : 0) + m->gauge_noise * normal());
	}
}

typedef struct SpeedOutcome
{
	double		excludes;		/* share of experiments in which a tps interval
								 * excluded no change */
	double		equivalent;		/* ... with an "equivalent" */
	double		noise_ratio;	/* mean per-round noise, after / before */
} SpeedOutcome;

/*
 * N_EXPERIMENTS on machine m judged once after rounds, with the gauge's
 * readings (gauge) or without them: how often a configuration's tps
 * interval (at its Holm level) excluded no change and how often one read
 * equivalent, and the noise the gauge took out.
 */
static SpeedOutcome
speed_rates(const SpeedMachine *m, int nconfigs, const double *truth, int rounds, bool gauge)
{
	WsbRoundRun runs[MAX_ROUNDS * 8];
	WsbPaired  *v = calloc(nconfigs * WSB_N_METRICS, sizeof(WsbPaired));
	WsbJudgeSpec s = {10, 0.05, 0, 0};
	SpeedOutcome o = {0};
	double		after = 0,
				before = 0;

	for (int e = 0; e < N_EXPERIMENTS; e++)
	{
		bool		excl = false,
					eq = false;

		simulate_speed(m, rounds, nconfigs, truth, runs);
		if (!gauge)
			for (int i = 0; i < rounds * nconfigs; i++)
				runs[i].machine_us = NAN;
		wsb_judge_rounds(runs, rounds * nconfigs, nconfigs, &s, v);
		for (int c = 1; c < nconfigs; c++)
		{
			const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];

			excl |= p->low > 1 || p->high < 1;
			eq |= p->word == WSB_W_EQUIVALENT;
			if (p->speed_adjusted)
			{
				after += p->sd;
				before += p->sd_measured;
			}
		}
		o.excludes += excl;
		o.equivalent += eq;
	}
	free(v);
	o.excludes /= N_EXPERIMENTS;
	o.equivalent /= N_EXPERIMENTS;
	o.noise_ratio = before > 0 ? after / before : NAN;
	return o;
}

/*
 * The machine's speed taken out (speed.c), through the real judgement: an
 * A/A's tps interval excludes no change, and configurations truly on the
 * margin read equivalent, at most 5% plus three standard errors, with the
 * gauge coupled to tps and with a gauge that tells nothing (without the
 * slope's own error in the intervals, 6.1% there); where the gauge does
 * tell, the noise falls and an A/A is shown equivalent far more often.
 */
static void
test_speed(void)
{
	const double aa[3] = {1, 1, 1};
	const double edge[5] = {1, 1.10, 1.10, 1.10, 1.10};
	const SpeedMachine coupled = {0.10, 0.04, 0.03, true};
	const SpeedMachine unrelated = {0.10, 0.04, 0.03, false};
	double		bound = 0.05 + 3 * sqrt(0.05 * 0.95 / N_EXPERIMENTS);
	static const int rounds[] = {6, 10, 20};
	SpeedOutcome o,
				without;

	for (size_t i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++)
	{
		o = speed_rates(&coupled, 2, aa, rounds[i], true);
		check(o.excludes <= bound, "simulation, the machine's speed taken out, A/A of 2 configurations, %d "
			  "rounds: the interval excludes no change in %.2f%% (at most %.2f%%)", rounds[i],
			  100 * o.excludes, 100 * bound);
	}
	o = speed_rates(&unrelated, 2, aa, 10, true);
	check(o.excludes <= bound, "simulation, a gauge that tells nothing of tps, A/A of 2 configurations, 10 "
		  "rounds: the interval excludes no change in %.2f%% (at most %.2f%%)", 100 * o.excludes, 100 * bound);
	o = speed_rates(&coupled, 5, edge, 6, true);
	check(o.equivalent <= bound, "simulation, the machine's speed taken out, four configurations each truly "
		  "+10%% against a 10%% margin, 6 rounds: \"equivalent\" for any in %.2f%% (at most %.2f%%)",
		  100 * o.equivalent, 100 * bound);
	o = speed_rates(&coupled, 3, aa, 8, true);
	without = speed_rates(&coupled, 3, aa, 8, false);
	check(o.noise_ratio < 0.6 && o.equivalent > without.equivalent + 0.3,
		  "simulation, a machine whose speed moves tps by 10%% a run (noise 4%%, the gauge's 3%%), A/A of 3 "
		  "configurations, 8 rounds: the per-round noise %.2f of what it was; \"equivalent within +-10%%\" "
		  "for one or both in %.1f%% with the gauge, %.1f%% without",
		  o.noise_ratio, 100 * o.equivalent, 100 * without.equivalent);
}

/*
 * A sweep of four sizes against the largest (the baseline), on the
 * drifting machine of simulate(), judged after every round from the third
 * with --budget's spending and stopped when every size is decided: truth
 * holds the sizes' true ratios, smallest first, and every size has its
 * stalls settled, so that tps alone stops the sequence.  The share of
 * experiments in which the tipping point, at any look, lies at or below
 * the size false_from (a claim that it is equivalent: false when its
 * truth is on the margin); and in which the tipping point is found where
 * expect is, the sequence's own (found) and with Holm's words alone
 * (holm).
 */
typedef struct SweepOutcome
{
	double		false_claim;
	double		found;
	double		holm;
} SweepOutcome;

static SweepOutcome
sweep_rates(const double *truth, int false_from, int expect)
{
	SweepOutcome o = {0, 0, 0};
	WsbRoundRun runs[MAX_ROUNDS * 5];
	WsbPaired	v[5 * WSB_N_METRICS];
	/* configuration 0 the baseline, the largest; 1..4 the sizes */
	double		ratio[5] = {1, truth[0], truth[1], truth[2], truth[3]};
	int			nlooks = MAX_ROUNDS - FIRST_LOOK + 1;

	for (int e = 0; e < N_EXPERIMENTS; e++)
	{
		bool		claimed = false;
		WsbTip		t = {0, -1, -1};
		int			holm_tip = 4;

		simulate(MAX_ROUNDS, 5, ratio, runs);
		for (int r = FIRST_LOOK; r <= MAX_ROUNDS; r++)
		{
			WsbJudgeSpec s = {10, 0.05, r - FIRST_LOOK + 1, nlooks};
			WsbTipValue tv[5];
			bool		all = true;

			s.alpha = wsb_look_alpha(0.05, s.look, nlooks);
			wsb_judge_rounds(runs, r * 5, 5, &s, v);
			for (int i = 0; i < 5; i++)
			{
				int			c = i < 4 ? i + 1 : 0;

				memset(&tv[i], 0, sizeof(tv[i]));
				tv[i].value = i;
				tv[i].known = true;
				tv[i].settled = true;
				tv[i].baseline = c == 0;
				tv[i].tps = &v[c * WSB_N_METRICS + WSB_M_TPS];
				all &= c == 0 || tv[i].tps->decided;
			}
			t = wsb_tip_find(tv, 5);
			claimed |= t.tip >= 0 && t.tip <= false_from;
			if (all || r == MAX_ROUNDS)
			{
				while (holm_tip > 0 && tv[holm_tip - 1].tps->word == WSB_W_EQUIVALENT)
					holm_tip--;
				break;
			}
		}
		o.false_claim += claimed / (double) N_EXPERIMENTS;
		o.found += (t.tip == expect) / (double) N_EXPERIMENTS;
		o.holm += (holm_tip == expect) / (double) N_EXPERIMENTS;
	}
	return o;
}

/*
 * The tipping point's fixed sequence (tipping.c): a size truly on the
 * margin is claimed equivalent, at any look, in at most 5% plus three
 * standard errors of the experiments, whether it is the first claim of
 * the sequence or one after two true ones; where the truth has the
 * tipping point at the second size (the smallest truly 20% slower), the
 * sequence finds it more often than Holm's words would.
 */
static void
test_sweep(void)
{
	double		bound = 0.05 + 3 * sqrt(0.05 * 0.95 / N_EXPERIMENTS);
	const double at_top[4] = {0.8, 1, 1, 1.10},
				below[4] = {0.8, 1.10, 1, 1},
				tip[4] = {0.8, 1, 1, 1};
	SweepOutcome top = sweep_rates(at_top, 3, 1),
				low = sweep_rates(below, 1, 2),
				found = sweep_rates(tip, -1, 1);

	check(top.false_claim <= bound && low.false_claim <= bound,
		  "simulation, a sweep of 4 sizes, --budget of 20 rounds: the tipping point claims a size truly "
		  "+10%% equivalent within +-10%% in %.2f%% (the largest below the baseline) and %.2f%% (after two "
		  "true claims), each at most %.2f%%", 100 * top.false_claim, 100 * low.false_claim, 100 * bound);
	check(found.found > found.holm,
		  "simulation, the same sweep with the tipping point truly at the second size, the smallest 20%% "
		  "slower: found in %.1f%%, with Holm's words alone %.1f%%", 100 * found.found, 100 * found.holm);
}

void
test_simulation(void)
{
	const double aa[3] = {1, 1, 1};
	const double effect[2] = {1, 1.20};
	double		bound = 0.05 + 3 * sqrt(0.05 * 0.95 / N_EXPERIMENTS);
	SimOutcome	o;

	o = run_sims(3, aa, false, false, 5);
	check(o.false_direction <= bound * N_EXPERIMENTS,
		  "simulation A/A, 5 rounds judged once: faster/slower in %.2f%% of %d experiments (at most %.2f%%)",
		  100.0 * o.false_direction / N_EXPERIMENTS, N_EXPERIMENTS, 100 * bound);
	o = run_sims(3, aa, true, true, 0);
	check(o.ever_direction <= bound * N_EXPERIMENTS,
		  "simulation A/A, budget looks after rounds 3..20 with spending: faster/slower at any look in %.2f%% "
		  "(at most %.2f%%; the final verdict in %.2f%%)",
		  100.0 * o.ever_direction / N_EXPERIMENTS, 100 * bound, 100.0 * o.false_direction / N_EXPERIMENTS);
	o = run_sims(3, aa, true, false, 0);
	check(o.ever_direction > bound * N_EXPERIMENTS,
		  "simulation A/A, the same looks without spending: faster/slower at some look in %.2f%%, above %.2f%% "
		  "(the simulation sees the inflation the spending prevents)",
		  100.0 * o.ever_direction / N_EXPERIMENTS, 100 * bound);
	{
		const double edge[5] = {1, 1.10, 1.10, 1.10, 1.10};
		double		rate = edge_equivalence_rate(5, edge, 10, 6);

		check(rate <= bound,
			  "simulation, four configurations each truly +10%% against a 10%% margin, 6 rounds: "
			  "\"equivalent\" for any of them in %.2f%% (family-wise, at most %.2f%%)",
			  100 * rate, 100 * bound);
	}
	o = run_sims(2, effect, true, true, 0);
	check(o.decided_faster_by >= 0.95 * N_EXPERIMENTS && o.slower == 0 && o.mean_rounds < MAX_ROUNDS,
		  "simulation, a true +20%%: the budgeted design reads \"faster by >= 5%%\" in %.1f%% of %d experiments "
		  "(mean %.1f rounds), slower in %d",
		  100.0 * o.decided_faster_by / N_EXPERIMENTS, N_EXPERIMENTS, o.mean_rounds, o.slower);
	test_machines();
	test_two_point();
	test_stated_rounds();
	test_speed();
	test_sweep();
}
