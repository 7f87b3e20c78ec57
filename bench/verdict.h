/*-------------------------------------------------------------------------
 *
 * verdict.h
 *		wal_stall_bench: rounds as the unit of the verdict.  The paired
 *		statistics (paired.c) and the judgement (verdict.c), both pure;
 *		the rounds read back from results.csv or any CSV (round_table.c);
 *		and what verdict_report.c builds on them: verdicts.csv, the
 *		terminal table and the report's section.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_VERDICT_H
#define WSB_VERDICT_H

#include <stdbool.h>
#include <stdio.h>

/* the stall classes a client waits in (wal_stall_summary kind = stall) */
#define WSB_N_STALL 4
extern const char *const wsb_stall_classes[WSB_N_STALL];

/* What is judged per configuration: tps, the latency a client sees (its
 * transactions' 99th percentile and its longest stall), each stall class's
 * share of the clients' time and its episodes, the share of all classes,
 * and the tps change that share alone implies. */
typedef enum WsbMetric
{
	WSB_M_TPS,
	WSB_M_P99,					/* pgbench's per-transaction p99, ms */
	WSB_M_LONGEST,				/* the longest stall of any class, ms */
	WSB_M_SHARE,				/* + class, WSB_N_STALL of them */
	WSB_M_SHARE_ALL = WSB_M_SHARE + WSB_N_STALL,
	WSB_M_EPISODES,				/* + class */
	WSB_M_IMPLIED = WSB_M_EPISODES + WSB_N_STALL,
	WSB_N_METRICS
} WsbMetric;

/* One run as the judge sees it: from a WsbRun or from a CSV row. */
typedef struct WsbRoundRun
{
	int			config;			/* 0 = baseline */
	int			round;			/* 1.. */
	int			position;		/* 1.. inside the round, 0 unknown */
	bool		ok;
	bool		traced;			/* --validate: the tracer moved this run */
	double		tps;			/* what is paired (round_table.c's use_window_tps) */
	double		tps_window;		/* results.csv's tps_window, NAN unknown */
	double		machine_us;		/* the machine's speed gauge (gauge.c), NAN */
	double		client_ms;		/* clients x run ms, NAN unknown */
	double		latency_p99_ms;	/* NAN unknown */
	double		longest_stall_ms;	/* NAN unknown */
	double		stall_ms[WSB_N_STALL];	/* NAN unknown */
	double		episodes[WSB_N_STALL];
} WsbRoundRun;

/* How to judge: the declared margin and the error rate of this look. */
typedef struct WsbJudgeSpec
{
	double		margin_pct;		/* +-X% around no change */
	double		alpha;			/* family-wise over configurations, per look */
	int			look;			/* 1.. with --budget, 0 without */
	int			nlooks;			/* looks the budget allows (alpha was split) */
} WsbJudgeSpec;

typedef enum WsbWord
{
	WSB_W_BASELINE,
	WSB_W_TOO_FEW,				/* under 2 rounds, or under the sign-flip gate */
	WSB_W_FASTER_BY,			/* the whole interval beyond +margin */
	WSB_W_SLOWER_BY,
	WSB_W_FASTER,				/* excludes no change, overlaps the margin */
	WSB_W_SLOWER,
	WSB_W_FELL_BY,				/* latency: the whole interval below -margin */
	WSB_W_ROSE_BY,
	WSB_W_FELL,					/* latency: excludes no change, overlaps the margin */
	WSB_W_ROSE,
	WSB_W_EQUIVALENT,			/* 90% (TOST) interval inside +-margin */
	WSB_W_INCONCLUSIVE,
	WSB_W_FEWER,				/* stall metrics */
	WSB_W_MORE,
	WSB_W_UNCHANGED,
	WSB_W_NEGLIGIBLE,			/* share under WSB_NEGLIGIBLE_SHARE in both */
	WSB_W_NONE					/* the implied change: no word of its own */
} WsbWord;

/* What the limit line found (wsb_limit_text), for the answer (answer.c). */
typedef enum WsbLimitKind
{
	WSB_L_NONE,					/* no limit line: tps not settled */
	WSB_L_UNMEASURED,			/* no stall figures in the rounds */
	WSB_L_NOT_STALL,			/* every class negligible in both */
	WSB_L_MOVED,				/* limit_class's share fell or rose */
	WSB_L_GRAIN,				/* the same stall time in fewer, longer waits or
								 * more, shorter ones: what they wait on paces both */
	WSB_L_SAME,					/* limit_class unchanged: it limits both alike */
	WSB_L_UNTOLD				/* the rounds do not tell how it changed */
} WsbLimitKind;

/* One configuration and metric against the baseline. */
typedef struct WsbPaired
{
	int			rounds;			/* pairs used */
	double		ratio;			/* geometric mean of the per-round ratios */
	double		low,
				high;			/* interval at level */
	double		level;			/* after Holm (and the budget's split) */
	double		alpha_used;		/* this look's alpha, before Holm */
	double		low90,
				high90;			/* two one-sided tests' interval */
	double		low_alone,		/* the same at 1 - 2 alpha_used, without */
				high_alone;		/* Holm: one claim of a fixed sequence */
	bool		equiv_alone;	/* equivalent by itself at alpha_used, the
								 * sign-flip gate included (tipping.c) */
	double		sd;				/* of the per-round log ratios (residual, when
								 * adjusted for the place): the noise */
	double		se;				/* standard error of the log ratio */
	double		df;				/* of the t interval */
	bool		place_adjusted;	/* the run's place in its round a covariate */
	double		place_slope;	/* log ratio per place later, NAN unadjusted */
	double		carryover,		/* tps: a run after this configuration against */
				carryover_low,	/* one after the baseline, ratio and 95% */
				carryover_high;	/* interval; NAN when the design cannot tell */
	double		p;				/* paired t, two-sided, ratio = 1 */
	double		p_holm;			/* Holm-adjusted over configurations */
	double		p_equiv;		/* TOST: the larger one-sided p, against the margin */
	double		p_equiv_holm;	/* Holm-adjusted over configurations */
	double		level90;		/* of low90, high90: 1 - 2 a / (k - i), Holm */
	double		rank_p;			/* signed-rank p, NAN under 6 rounds */
	double		flip_p;			/* exact sign-flip p, two-sided, ratio = 1; NAN
								 * over WSB_SIGN_FLIP_EXACT_MAX rounds */
	double		flip_p_equiv;	/* the larger of its two one-sided p against
								 * the margin */
	bool		flip_dir_ok;	/* the sign-flip test allows a direction */
	bool		flip_equiv_ok;	/* and equivalence, at Holm's share */
	int			rounds_dir;		/* a direction needs this many rounds (the */
	int			rounds_equiv;	/* sign-flip test's reach), equivalence this */
	int			more_rounds;	/* too few: this many more; inconclusive: this
								 * many more for 80% power at the noise's
								 * upper bound (-1: over the most) */
	int			more_rounds_low;	/* inconclusive: the same at the noise seen */
	WsbWord		word;
	bool		decided;		/* by the margin, or equivalent */
	char		words[224];		/* the verdict as printed */
	char		limit[256];		/* tps, settled: what limits it (wsb_limit_text) */
	WsbLimitKind limit_kind;	/* tps: which sentence limit is */
	int			limit_class;	/* tps: the stall class it names, -1 none */
	bool		speed_adjusted;	/* tps: the machine's speed taken out (speed.c) */
	double		speed_slope;	/* tps: ln tps per ln machine_us, NAN */
	double		speed_r2;		/* tps: the share of the within-round variance
								 * of ln tps the gauge explains, NAN */
	double		sd_measured;	/* tps: the per-round noise before, NAN */
	double		machine_ratio;	/* tps: this configuration's gauge reading
								 * against the baseline's (geometric mean
								 * over the pairs), NAN */
	double		machine_low;	/* its 95% interval, NAN */
	double		machine_high;
} WsbPaired;

/*
 * A stall class whose share of the clients' time stays under this in every
 * paired round, in both configurations, is "negligible in both": its
 * waits can move tps by under 1% (a client waiting a share s has 1 - s
 * left), a fifth of the default margin, and the ratio of two such shares
 * is mostly the sampling's granularity.
 */
#define WSB_NEGLIGIBLE_SHARE 0.01

#define WSB_RANK_MIN_ROUNDS 6
/* the signed-rank p is exact up to this many rounds, a normal
 * approximation above (the exact count grows with the cube of n) */
#define WSB_RANK_EXACT_MAX 200

/* A round as the judgement sees it (wsb_round_states). */
typedef struct WsbRoundState
{
	int			round;
	bool		complete;		/* every configuration ran, none failed */
	bool		failed;			/* a run in it failed */
} WsbRoundState;

/*
 * The sign-flip test is exact, its 2^n patterns counted, up to this many
 * rounds; above it the t interval alone judges (by 20 rounds the
 * randomization distribution of the mean is close to the t's, and the
 * test could reach any level down to 2e-6)
 */
#define WSB_SIGN_FLIP_EXACT_MAX 20

/* ---------- speed.c: the machine's speed taken out of tps ---------- */

/* ln tps fitted on ln machine_us within rounds and configurations */
typedef struct WsbSpeedFit
{
	bool		used;			/* fitted: tps is adjusted */
	int			rounds;			/* complete rounds with every reading */
	double		slope;			/* ln tps per ln machine_us */
	double		r2;				/* of the within-round variance of ln tps */
	double		centre;			/* mean ln machine_us: tps is moved to it */
	double		slope_var;		/* the slope's variance */
} WsbSpeedFit;

/*
 * The fit needs this many complete rounds with the gauge's readings: each
 * configuration's interval then keeps 4 degrees of freedom after paying one
 * for the slope (t 2.78 against 2.57, 8% wider, which a gauge explaining a
 * sixth of the variance pays back).  At 3 rounds it would keep one (t 12.7
 * against 4.30) and a fit through three points mostly fits noise.
 */
#define WSB_SPEED_MIN_ROUNDS 6

extern bool wsb_speed_fit(const WsbRoundRun *runs, int nruns, int nconfigs, WsbSpeedFit *fit);
extern void wsb_speed_adjust(WsbRoundRun *runs, int nruns, const WsbSpeedFit *fit);
/* ln of a configuration's gauge reading against the baseline's: the mean
 * over the rounds the fit used, and its interval */
typedef struct WsbSpeedGap
{
	double		mean;
	double		low;			/* its 95% t interval */
	double		high;
} WsbSpeedGap;

extern bool wsb_speed_gap(const WsbRoundRun *runs, int nruns, int nconfigs, int c, WsbSpeedGap *gap);

/* ---------- paired.c: paired statistics over rounds ---------- */

/*
 * The per-round log ratios d_r fitted on the difference of the two runs'
 * places in their round, x_r (configuration's minus baseline's):
 * d_r = estimate + slope x_r + e_r, the estimate the log ratio of two runs
 * in the same place.  Without places (or too few rounds, or one place
 * difference throughout) the plain mean, n - 1 df.
 */
typedef struct WsbPairedFit
{
	double		estimate;
	double		se;
	double		df;
	double		sd;				/* of the residuals: the per-round noise */
	double		slope;			/* NAN unadjusted */
	bool		adjusted;
} WsbPairedFit;

/* the place is a covariate from this many rounds (2 df left) */
#define WSB_PLACE_MIN_ROUNDS 4

/* wsb_rounds_needed looks no further than this many rounds */
#define WSB_ROUNDS_NEEDED_MAX 1000

/* the rounds an inconclusive line asks for: this power, planned at the
 * upper confidence bound at WSB_NOISE_UPPER_CONF on the noise seen */
#define WSB_PLAN_POWER 0.8
#define WSB_NOISE_UPPER_CONF 0.8

extern void wsb_paired_summary(const double *d, int n, double *mean, double *sd);
extern double wsb_paired_t_p(const double *d, int n);
extern void wsb_paired_fit(const double *d, const double *place, int n, WsbPairedFit *fit);
extern double wsb_fit_p(const WsbPairedFit *fit);
extern double wsb_fit_equiv_p(const WsbPairedFit *fit, double margin);
extern bool wsb_least_squares(const double *xtx, const double *xty, double yty, int n, int p,
							  int lost, double *beta, double *se, double *df);
extern void wsb_holm(const double *p, int k, double *adjusted, int *rank);
extern double wsb_signed_rank_p(const double *d, int n);
extern int	wsb_rounds_needed(double sd, double distance, double tail, double power, int lost);
extern double wsb_sd_upper(double sd, double df, double conf);
extern int	wsb_sign_flip_rounds(double a, bool two_sided);
extern bool wsb_too_few_rounds_note(int rounds, int k, char *buf, size_t len);
extern double wsb_sign_flip_p(const double *d, int n, double centre, int side, double stop_above);

/* ---------- rounds.c: which run holds each configuration in each round ---------- */

/* A run's place in a round, for sorting: round, configuration, then at (a
 * run's index, or its line in a file) */
typedef struct WsbRoundKey
{
	int			round;
	int			config;
	int			at;
} WsbRoundKey;

/*
 * The rounds that occur in the runs, ascending (a file's round numbers may
 * be far apart): round[k], idx[k * nconfigs + c] the run of configuration
 * c in it (-1: none; of two, the later), complete[k] (every configuration
 * has a successful run in it and none failed), failed[k].
 */
typedef struct WsbRoundIndex
{
	int			nrounds;
	int		   *round;
	int		   *idx;
	bool	   *complete;
	bool	   *failed;
} WsbRoundIndex;

extern int	wsb_cmp_round_key(const void *a, const void *b);
extern bool wsb_index_rounds(const WsbRoundRun *runs, int nruns, int nconfigs, WsbRoundIndex *ix);
extern void wsb_index_free(WsbRoundIndex *ix);
extern bool wsb_round_complete(const WsbRoundRun *runs, int nruns, int nconfigs, int round);
extern int	wsb_round_states(const WsbRoundRun *runs, int nruns, int nconfigs,
							 WsbRoundState **out);

/* ---------- verdict.c: the judgement, pure ---------- */

extern int	wsb_paired_logs(const WsbRoundRun *runs, int nruns, int nconfigs, int config,
							WsbMetric metric, double *d, int *rounds_of);
extern int	wsb_paired_places(const WsbRoundRun *runs, int nruns, int nconfigs, int config,
							  WsbMetric metric, double *d, double *place);
extern void wsb_judge_rounds(const WsbRoundRun *runs, int nruns, int nconfigs,
							 const WsbJudgeSpec *spec, WsbPaired *out);	/* [nconfigs * WSB_N_METRICS] */
extern bool wsb_tps_settled(const WsbPaired *v);
extern void wsb_limit_lines(const WsbRoundRun *runs, int nruns, int nconfigs,
							const char (*labels)[1024], WsbPaired *out);
extern void wsb_limit_text(const WsbRoundRun *runs, int nruns, int nconfigs, int config,
						   const WsbPaired *v, const char *base_label, const char *label,
						   char *buf, size_t len, WsbLimitKind *kind, int *cls);	/* v: config's metrics */
extern const char *wsb_metric_name(WsbMetric m);	/* "tps", "wal_flush_share" ... */

/* ---------- spending.c: the error spent over --budget's looks ---------- */

extern double wsb_spent_by(double alpha, double t);
extern void wsb_spending_levels(double alpha, const double *fractions, int nlooks,
								double *nominal);
extern double wsb_look_alpha(double alpha, int look, int nlooks);
extern double wsb_spent_at_look(double alpha, int look, int nlooks);

/* ---------- round_table.c: the rounds read back; verdict_report.c: judged and written out ---------- */

/* The rounds of an experiment, read from results.csv or any CSV. */
typedef struct WsbRoundTable
{
	int			nconfigs;
	char		labels[64][1024];	/* [0] the baseline */
	int			nruns;
	WsbRoundRun *runs;
	long long	seed;			/* -1 unknown */
	double		margin_pct;		/* from results.csv's margin column, NAN none */
	int			budget_looks;	/* from its budget_looks column, 0 none */
	char		tps_column[16];	/* "tps_window" when paired on it, "" tps */
} WsbRoundTable;

/* An experiment's verdicts: its rounds, how they were judged, the results. */
typedef struct WsbVerdicts
{
	WsbRoundTable table;
	WsbJudgeSpec spec;
	WsbPaired  *v;				/* [nconfigs * WSB_N_METRICS] */
	bool		forest;			/* the forest plots were drawn */
	char		forest_why[512];	/* why not */
} WsbVerdicts;

/* round_table.c */
extern int	wsb_round_table_read_csv(const char *path, const char *baseline,
									 const char *const *labels, int nlabels, WsbRoundTable *t,
									 char *err, size_t errlen);
extern void wsb_round_table_free(WsbRoundTable *t);
struct PQExpBufferData;
extern void wsb_left_out_rounds(const WsbRoundTable *t, struct PQExpBufferData *buf);

/* verdict_report.c */
struct WsbPlan;
struct WsbRun;
extern int	wsb_verdicts_from_csv(const char *path, const char *baseline, double margin_pct,
								  int look, int nlooks, WsbVerdicts *out, char *err, size_t errlen);
extern int	wsb_verdicts_from_csv_ordered(const char *path, const char *baseline,
										  const char *const *labels, int nlabels,
										  double margin_pct, int look, int nlooks,
										  WsbVerdicts *out, char *err, size_t errlen);
extern bool wsb_verdicts_all_decided(const WsbVerdicts *vs);
extern int	wsb_verdicts_write(const char *dir, WsbVerdicts *vs);
extern void wsb_verdicts_free(WsbVerdicts *vs);
extern void wsb_method_text(const WsbJudgeSpec *spec, WsbMetric m, const WsbPaired *p,
							struct PQExpBufferData *buf);
extern int	wsb_write_verdicts_csv(const char *path, const WsbRoundTable *t,
								   const WsbJudgeSpec *spec, const WsbPaired *v);
extern void wsb_print_paired(FILE *f, const WsbRoundTable *t, const WsbJudgeSpec *spec,
							 const WsbPaired *v, long long seed);
extern void wsb_paired_html(FILE *f, const WsbRoundTable *t, const WsbJudgeSpec *spec,
							const WsbPaired *v, long long seed, const char *plotdir);

/* ---------- forest.c ---------- */

extern int	wsb_draw_forest(const char *plotdir, const WsbRoundTable *t, const WsbJudgeSpec *spec,
							const WsbPaired *v, char *why, size_t whylen);

#endif							/* WSB_VERDICT_H */
