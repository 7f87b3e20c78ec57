/*-------------------------------------------------------------------------
 *
 * test_unit_answer.c
 *		wal_stall_bench: unit tests of the answer (answer.c) on constructed
 *		verdicts: every case the sentence has (a gain, equivalent, both
 *		words, slower, several configurations, too few rounds,
 *		inconclusive, failed runs), the conditions it names, and one
 *		experiment judged for real from a CSV.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wsb.h"
#include "verdict.h"
#include "answer.h"
#include "test_unit.h"

/* verdicts of nconfigs configurations over rounds complete rounds, every
 * run ok, every configuration's tps still "too few rounds" */
static WsbVerdicts *
verdicts(int nconfigs, const char *const *labels, int rounds, double margin)
{
	WsbVerdicts *vs = calloc(1, sizeof(*vs));

	vs->table.nconfigs = nconfigs;
	for (int c = 0; c < nconfigs; c++)
		snprintf(vs->table.labels[c], sizeof(vs->table.labels[c]), "%s", labels[c]);
	vs->table.nruns = nconfigs * rounds;
	vs->table.runs = calloc(vs->table.nruns ? vs->table.nruns : 1, sizeof(WsbRoundRun));
	for (int i = 0; i < vs->table.nruns; i++)
	{
		vs->table.runs[i].config = i % nconfigs;
		vs->table.runs[i].round = i / nconfigs + 1;
		vs->table.runs[i].ok = true;
		vs->table.runs[i].tps = 1000;
	}
	vs->table.seed = -1;
	vs->spec.margin_pct = margin;
	vs->spec.alpha = 0.05;
	vs->v = calloc(nconfigs * WSB_N_METRICS, sizeof(WsbPaired));
	for (int c = 0; c < nconfigs; c++)
	{
		WsbPaired  *t = &vs->v[c * WSB_N_METRICS + WSB_M_TPS];

		t->word = c == 0 ? WSB_W_BASELINE : WSB_W_TOO_FEW;
		t->ratio = t->low = t->high = NAN;
		t->limit_class = -1;
	}
	return vs;
}

/* configuration c's tps verdict */
static WsbPaired *
tps(WsbVerdicts *vs, int c, WsbWord word, double ratio, double low, double high, int rounds)
{
	WsbPaired  *t = &vs->v[c * WSB_N_METRICS + WSB_M_TPS];

	t->word = word;
	t->ratio = ratio;
	t->low = low;
	t->high = high;
	t->rounds = rounds;
	t->decided = word == WSB_W_FASTER_BY || word == WSB_W_SLOWER_BY || word == WSB_W_EQUIVALENT;
	return t;
}

static void
limit(WsbPaired *t, WsbLimitKind kind, int cls, const char *text)
{
	t->limit_kind = kind;
	t->limit_class = cls;
	snprintf(t->limit, sizeof(t->limit), "%s", text);
}

static void
free_verdicts(WsbVerdicts *vs)
{
	wsb_verdicts_free(vs);
	free(vs);
}

/* the quick start's case: the ring does not matter on a throttled disk */
static void
test_answer_equivalent(void)
{
	const char *const labels[] = {"wal_buffers=32kB", "wal_buffers=1MB"};
	WsbVerdicts *vs = verdicts(2, labels, 3, 10);
	WsbAnswerConditions cond;
	char		a[WSB_ANSWER_MAX];
	const char *want;

	limit(tps(vs, 1, WSB_W_EQUIVALENT, 1.018, 0.984, 1.054, 3), WSB_L_GRAIN, 0,
		  "the same stall time (65%, 68% of client time) in 1.8x fewer, longer waits: "
		  "the WAL disk's write rate, not the ring, limits both");
	wsb_answer_conditions_init(&cond);
	cond.slow_wal_iops = 100;
	cond.slow_wal_mbps = 4;
	snprintf(cond.held, sizeof(cond.held), "synchronous_commit = off");
	cond.wal_mb_per_s[0] = 4.12;
	cond.wal_mb_per_s[1] = 4.09;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	want = "On this WAL disk (throttled to 100 write IOPS, 4 MB/s; synchronous_commit = off), "
		"wal_buffers=1MB is equivalent to wal_buffers=32kB within +-10%: it does not matter here; "
		"the WAL disk's write rate (4.1 MB/s measured against its 4 MB/s cap) limits both. "
		"Faster WAL storage would help; a larger ring will not.";
	check(strcmp(a, want) == 0, "answer: equivalent on a throttled disk names the throttle, the "
		  "measured rate and what would help (got \"%s\")", a);

	/* two rates that differ are both given; no cap without --slow-wal */
	cond.slow_wal_iops = 0;
	cond.slow_wal_mbps = 0;
	cond.wal_mb_per_s[1] = 3.5;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "With synchronous_commit = off, wal_buffers=1MB is equivalent") == a &&
		  strstr(a, "write rate (3.5 and 4.1 MB/s measured) limits both") != NULL,
		  "answer: not throttled: the settings open it, both rates, no cap (got \"%s\")", a);

	/* the rate unknown (a CSV judged alone): no figure is made up */
	wsb_answer_conditions_init(&cond);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "In these runs, wal_buffers=1MB is equivalent") == a &&
		  strstr(a, "the WAL disk's write rate limits both.") != NULL && strstr(a, "MB/s") == NULL,
		  "answer: conditions unknown: no throttle, no rate (got \"%s\")", a);

	/* both words: equivalent, and the interval excludes no change */
	tps(vs, 1, WSB_W_EQUIVALENT, 1.029, 1.014, 1.045, 8);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "within +-10% (2.9% faster, +1.4% to +4.5%, too little to matter): it does "
				 "not matter here;") != NULL,
		  "answer: equivalent and faster: both in one breath (got \"%s\")", a);

	/* equivalent, and no WAL or CLOG wait to speak of */
	limit(tps(vs, 1, WSB_W_EQUIVALENT, 1.0, 0.98, 1.02, 4), WSB_L_NOT_STALL, -1,
		  "not a WAL or CLOG stall: every class under 1% of client time in both");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "it does not matter here; no WAL or CLOG wait limits either (every class under "
				 "1% of client time): the limit is elsewhere") != NULL,
		  "answer: equivalent without stalls: the limit is elsewhere (got \"%s\")", a);

	/* the flushes limit both alike */
	limit(tps(vs, 1, WSB_W_EQUIVALENT, 1.0, 0.98, 1.02, 4), WSB_L_SAME, 1,
		  "wal_flush: 30% and 30% of client time, unchanged, in as many waits: it limits both alike");
	cond.wal_mb_per_s[0] = cond.wal_mb_per_s[1] = 2.0;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "the WAL disk's flush rate (2.0 MB/s measured) limits both. Faster WAL storage "
				 "(a shorter flush) would help") != NULL,
		  "answer: the flushes limit both (got \"%s\")", a);
	free_verdicts(vs);
}

/* one configuration decided faster or slower */
static void
test_answer_direction(void)
{
	const char *const labels[] = {"wal_buffers=64kB", "wal_buffers=16MB"};
	WsbVerdicts *vs = verdicts(2, labels, 4, 5);
	WsbAnswerConditions cond;
	char		a[WSB_ANSWER_MAX];
	const char *want;

	wsb_answer_conditions_init(&cond);
	limit(tps(vs, 1, WSB_W_FASTER_BY, 1.213, 1.158, 1.271, 4), WSB_L_MOVED, 0,
		  "the ring: wrap-around time fell from 22% to 2% of client time");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	want = "In these runs, set wal_buffers=16MB: 21% more tps than wal_buffers=64kB (+16% to +27%), "
		"beyond the +-5% margin; the ring: wrap-around time fell from 22% to 2% of client time.";
	check(strcmp(a, want) == 0, "answer: faster by the margin: what to set, by how much, why "
		  "(got \"%s\")", a);

	tps(vs, 1, WSB_W_FASTER, 1.04, 1.01, 1.07, 4);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "wal_buffers=16MB gives 4.0% more tps than wal_buffers=64kB (+1.0% to +7.0%), "
				 "not yet beyond the +-5% margin: set it if that is worth having, or give it more "
				 "rounds (--budget)") != NULL,
		  "answer: faster within the margin: worth it or more rounds (got \"%s\")", a);

	limit(tps(vs, 1, WSB_W_SLOWER_BY, 0.88, 0.84, 0.92, 4), WSB_L_MOVED, 1,
		  "WAL flushes: the clients' flush waits rose from 5% to 15% of client time");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "In these runs, keep wal_buffers=64kB: wal_buffers=16MB gives 12% less tps "
				 "(-16% to -8.0%), beyond the +-5% margin; WAL flushes: the clients' flush waits "
				 "rose from 5% to 15% of client time.") == a,
		  "answer: slower by the margin: keep the baseline (got \"%s\")", a);
	free_verdicts(vs);
}

/*
 * Where the timeline shows a WAL disk limit: named in the sentence when
 * report.html has the panel, for the write rate (wal_buffer_full) the WAL
 * written, for the flush rate (wal_flush) the longest fsync too; never for
 * another class, a limit that moved, or a panel not drawn.
 */
static void
test_answer_chart_pointer(void)
{
	const char *const labels[] = {"wal_buffers=32kB", "wal_buffers=1MB"};
	WsbVerdicts *vs = verdicts(2, labels, 3, 10);
	WsbAnswerConditions cond;
	char		a[WSB_ANSWER_MAX];

	limit(tps(vs, 1, WSB_W_EQUIVALENT, 1.018, 0.984, 1.054, 3), WSB_L_GRAIN, 0,
		  "the same stall time (65%, 68% of client time) in 1.8x fewer, longer waits: "
		  "the WAL disk's write rate, not the ring, limits both");
	wsb_answer_conditions_init(&cond);
	cond.slow_wal_iops = 100;
	cond.slow_wal_mbps = 4;
	cond.wal_mb_per_s[0] = cond.wal_mb_per_s[1] = 4.1;
	cond.charted_wal_rate = cond.charted_fsync = true;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "the WAL disk's write rate (4.1 MB/s measured against its 4 MB/s cap; see the "
				 "timeline's \"WAL written, MB/s\" panel) limits both.") != NULL,
		  "answer: the write rate limits both: the WAL written panel, after the figures "
		  "(got \"%s\")", a);

	limit(tps(vs, 1, WSB_W_EQUIVALENT, 1.0, 0.98, 1.02, 4), WSB_L_SAME, 1,
		  "wal_flush: 30% and 30% of client time, unchanged, in as many waits: it limits both alike");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "the WAL disk's flush rate (4.1 MB/s measured against its 4 MB/s cap; see the "
				 "timeline's \"longest WAL fsync, ms\" and \"WAL written, MB/s\" panels) limits "
				 "both.") != NULL,
		  "answer: the flush rate limits both: the fsync and WAL written panels (got \"%s\")", a);

	/* no rate measured, the fsync panel drawn alone: the pointer alone */
	cond.wal_mb_per_s[0] = cond.wal_mb_per_s[1] = NAN;
	cond.charted_wal_rate = false;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "the WAL disk's flush rate (see the timeline's \"longest WAL fsync, ms\" "
				 "panel) limits both.") != NULL,
		  "answer: no rate measured: only the panel that is there (got \"%s\")", a);

	/* no chart: nothing points at one */
	cond.charted_fsync = false;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "the WAL disk's flush rate limits both.") != NULL && strstr(a, "timeline") == NULL,
		  "answer: no chart drawn: no pointer (got \"%s\")", a);

	/* the insert locks: not the WAL disk, no pointer */
	cond.charted_wal_rate = cond.charted_fsync = true;
	limit(tps(vs, 1, WSB_W_EQUIVALENT, 1.0, 0.98, 1.02, 4), WSB_L_SAME, 2,
		  "wal_insert: 30% and 30% of client time, unchanged, in as many waits: it limits both alike");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "WAL insertion (the insert locks) limits both.") != NULL &&
		  strstr(a, "timeline") == NULL,
		  "answer: the insert locks limit both: no WAL disk panel named (got \"%s\")", a);

	/* a gain whose limit line names the disk's write rate: pointed at */
	limit(tps(vs, 1, WSB_W_FASTER_BY, 1.213, 1.158, 1.271, 4), WSB_L_GRAIN, 0,
		  "the same stall time (65%, 68% of client time) in 1.8x fewer, longer waits: "
		  "the WAL disk's write rate, not the ring, limits both");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "the WAL disk's write rate, not the ring, limits both (see the timeline's "
				 "\"WAL written, MB/s\" panel).") != NULL,
		  "answer: a gain with the write rate's limit line: the panel after it (got \"%s\")", a);

	/* slower, the flush rate's limit line */
	limit(tps(vs, 1, WSB_W_SLOWER_BY, 0.88, 0.84, 0.92, 4), WSB_L_GRAIN, 1,
		  "the same stall time (5%, 5% of client time) in 2.0x more, shorter waits: "
		  "the WAL disk's flush rate limits both");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "the WAL disk's flush rate limits both (see the timeline's \"longest WAL fsync, "
				 "ms\" and \"WAL written, MB/s\" panels).") != NULL,
		  "answer: slower with the flush rate's limit line: both panels (got \"%s\")", a);

	/* a stall that moved is its own evidence, in the stall panels */
	limit(tps(vs, 1, WSB_W_FASTER_BY, 1.213, 1.158, 1.271, 4), WSB_L_MOVED, 0,
		  "the ring: wrap-around time fell from 22% to 2% of client time");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "fell from 22% to 2% of client time.") != NULL && strstr(a, "timeline") == NULL,
		  "answer: a limit that moved: no WAL disk panel named (got \"%s\")", a);
	free_verdicts(vs);
}

/* several configurations: the best decided one, or none */
static void
test_answer_several(void)
{
	const char *const labels[] = {"32kB", "1MB", "16MB", "64MB"};
	WsbVerdicts *vs = verdicts(4, labels, 4, 5);
	WsbAnswerConditions cond;
	char		a[WSB_ANSWER_MAX];

	wsb_answer_conditions_init(&cond);
	tps(vs, 1, WSB_W_FASTER, 1.40, 1.02, 1.9, 4);
	tps(vs, 2, WSB_W_FASTER_BY, 1.20, 1.10, 1.30, 4);
	tps(vs, 3, WSB_W_INCONCLUSIVE, 1.30, 0.90, 1.80, 4);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "In these runs, set 16MB: 20% more tps than 32kB") == a &&
		  strstr(a, "It gains the most of the 3 configurations against 32kB. "
				 "Not decided yet: 64MB (more rounds: --budget).") != NULL,
		  "answer: several: the largest gain decided by the margin, before a larger one within it; "
		  "the undecided named (got \"%s\")", a);

	tps(vs, 1, WSB_W_EQUIVALENT, 1.01, 0.97, 1.04, 4);
	tps(vs, 2, WSB_W_SLOWER_BY, 0.80, 0.75, 0.85, 4);
	limit(tps(vs, 3, WSB_W_EQUIVALENT, 0.99, 0.96, 1.03, 4), WSB_L_GRAIN, 0, "x");
	limit(&vs->v[1 * WSB_N_METRICS + WSB_M_TPS], WSB_L_GRAIN, 0, "x");
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strcmp(a, "In these runs, none of the 3 configurations beats 32kB: 1MB equivalent within "
				 "+-5%, 16MB 20% slower, 64MB equivalent within +-5%. For 1MB, the WAL disk's write "
				 "rate limits both. Faster WAL storage would help; a larger ring will not.") == 0,
		  "answer: several, none better: each named, what limits the first equivalent one "
		  "(got \"%s\")", a);
	free_verdicts(vs);
}

/* nothing decided yet, and failed runs */
static void
test_answer_undecided(void)
{
	const char *const labels[] = {"32kB", "1MB"};
	WsbVerdicts *vs = verdicts(2, labels, 1, 10);
	WsbAnswerConditions cond;
	char		a[WSB_ANSWER_MAX];

	wsb_answer_conditions_init(&cond);
	tps(vs, 1, WSB_W_TOO_FEW, 1.05, NAN, NAN, 1);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strcmp(a, "In these runs, no verdict yet: 1MB has 1 complete round against 32kB, too few "
				 "for a verdict (at least 2); more rounds (--runs, or --budget) give them.") == 0,
		  "answer: too few rounds: not decided, and what gives the rounds (got \"%s\")", a);

	/* a gate of the judge's own above 2 rounds: too few, whatever the interval */
	tps(vs, 1, WSB_W_TOO_FEW, 1.05, 0.9, 1.2, 4);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "no verdict yet: 1MB has 4 complete rounds against 32kB, too few for a verdict; "
				 "more rounds") != NULL,
		  "answer: too few rounds by the judge's word, not only under 2 (got \"%s\")", a);
	free_verdicts(vs);

	vs = verdicts(2, labels, 5, 10);
	wsb_answer_conditions_init(&cond);
	tps(vs, 1, WSB_W_INCONCLUSIVE, 1.06, 0.97, 1.16, 5)->more_rounds = 7;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strcmp(a, "In these runs, nothing is decided yet: 1MB against 32kB measured 6.0% faster "
				 "(-3.0% to +16%) over 5 rounds, neither beyond nor within the +-10% margin; about 7 "
				 "more rounds would likely decide it (--budget gives the rounds).") == 0,
		  "answer: inconclusive: the interval and the rounds still needed (got \"%s\")", a);
	vs->v[WSB_N_METRICS + WSB_M_TPS].more_rounds_low = 3;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "margin; 3-7 more rounds would likely decide it (--budget gives the rounds).") != NULL,
		  "answer: inconclusive: the table's range of rounds, at the noise seen and its bound "
		  "(got \"%s\")", a);
	vs->v[WSB_N_METRICS + WSB_M_TPS].more_rounds_low = 0;

	/* a failed run in round 2 takes its round out, and says so */
	vs->table.runs[3].ok = false;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "(--budget gives the rounds). 1 run failed; 1 round with one is left out.") != NULL,
		  "answer: a failed run is said, with the round it took out (got \"%s\")", a);
	free_verdicts(vs);

	/* every round has a failed run: no pairs at all */
	vs = verdicts(2, labels, 2, 10);
	vs->table.runs[1].ok = vs->table.runs[3].ok = false;
	tps(vs, 1, WSB_W_TOO_FEW, NAN, NAN, NAN, 0);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strcmp(a, "In these runs, no verdict yet: 1MB has 0 complete rounds against 32kB, too few "
				 "for a verdict (at least 2) (the log says why runs failed); more rounds (--runs, or "
				 "--budget) give them. 2 runs failed; 2 rounds with one are left out.") == 0,
		  "answer: every round with a failed run (got \"%s\")", a);
	free_verdicts(vs);

	vs = verdicts(1, labels, 2, 10);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(a[0] == '\0', "answer: one configuration: nothing to answer (got \"%s\")", a);
	free_verdicts(vs);
}

/* the conditions: conf lines that bear on commits, the WAL rate of the runs */
static void
test_answer_conditions(void)
{
	static const char *const names[] = {"sample_time", "seconds", "wal_bytes"};
	/* 8 MB over 2 s, 4.1 MB/s; 6 MB over 2 s, 3 MB/s */
	static const char *const rows_a[] = {"t1", "1", "4194304", "t2", "1", "4404019"};
	static const char *const rows_b[] = {"t1", "1.0", "3145728", "t2", "1.0", "3145728"};
	WsbOptions *o = calloc(1, sizeof(*o));
	WsbPlan    *plan = calloc(1, sizeof(*plan));
	WsbRun		runs[3];
	WsbAnswerConditions cond;
	char		held[64];

	wsb_answer_held("synchronous_commit = off\ncheckpoint_timeout = 30min\nsynchronous_commit_x = 1\n"
					"fsync = on", held, sizeof(held));
	check(strcmp(held, "synchronous_commit = off, fsync = on") == 0,
		  "answer: the held settings are those that bear on commits, by whole name (got \"%s\")", held);
	wsb_answer_held("synchronous_commit = off\nwal_sync_method = open_datasync_but_much_longer_than_fits",
					held, 40);
	check(strcmp(held, "synchronous_commit = off") == 0,
		  "answer: a setting that does not fit is left out whole (got \"%s\")", held);

	memset(runs, 0, sizeof(runs));
	plan->nconfigs = 2;
	o->slow_wal_iops = 100;
	o->slow_wal_mbps = 4;
	snprintf(o->extra_conf, sizeof(o->extra_conf), "synchronous_commit = off\n");
	runs[0].config = 0;
	runs[0].ok = true;
	runs[0].history = make_rows(3, names, 2, rows_a);
	runs[1].config = 1;
	runs[1].ok = true;
	runs[1].history = make_rows(3, names, 2, rows_b);
	runs[2].config = 1;
	runs[2].ok = false;			/* a failed run's rows are not its configuration's rate */
	runs[2].history = make_rows(3, names, 2, rows_a);
	wsb_answer_conditions_of_runs(o, plan, runs, 3, false, &cond);
	check(cond.slow_wal_iops == 100 && cond.slow_wal_mbps == 4 &&
		  strcmp(cond.held, "synchronous_commit = off") == 0 &&
		  fabs(cond.wal_mb_per_s[0] - 4.1) < 1e-6 && fabs(cond.wal_mb_per_s[1] - 3.0) < 1e-9 &&
		  isnan(cond.wal_mb_per_s[2]),
		  "answer: the runs' conditions: throttle, settings, WAL MB/s per configuration "
		  "(got %d, %g, \"%s\", %.6f, %.6f)", cond.slow_wal_iops, cond.slow_wal_mbps, cond.held,
		  cond.wal_mb_per_s[0], cond.wal_mb_per_s[1]);
	{
		/*
		 * with a window: only its seconds' rows, by the pgbench second each
		 * overlaps most (sample_epoch - 1): 4 MB/s in the window, a
		 * ramp-up second and a second after pgbench at 0.5 MB/s outside it
		 */
		static const char *const wn[] = {"sample_epoch", "seconds", "wal_bytes"};
		static const char *const wc[] = {
			"1000.1", "1", "524288",	/* second 999: before the window */
			"1001.2", "1", "4194304",
			"1002.1", "1", "4194304",
			"1003.3", "1", "524288",	/* second 1002: after it */
		};
		WsbRun		w;

		memset(&w, 0, sizeof(w));
		w.ok = true;
		w.history = make_rows(3, wn, 4, wc);
		wsb_answer_conditions_of_runs(o, plan, &w, 1, false, &cond);
		check(fabs(cond.wal_mb_per_s[0] - 2.25) < 1e-9,
			  "answer: no window: every row's WAL rate (got %.6f)", cond.wal_mb_per_s[0]);
		w.window_from = 1000;
		w.window_to = 1001;
		wsb_answer_conditions_of_runs(o, plan, &w, 1, false, &cond);
		check(fabs(cond.wal_mb_per_s[0] - 4.0) < 1e-9,
			  "answer: the WAL rate over the window's seconds alone, not the ramp-up's (got %.6f)",
			  cond.wal_mb_per_s[0]);
		wsb_rows_free(&w.history);
	}
	wsb_answer_conditions_of_runs(NULL, plan, runs, 0, false, &cond);
	check(cond.slow_wal_iops == -1 && isnan(cond.wal_mb_per_s[0]),
		  "answer: no options, no runs: throttle unknown, no rate");
	check(!cond.charted_wal_rate && !cond.charted_fsync,
		  "answer: no charts drawn: no panel to name");
	wsb_answer_conditions_of_runs(o, plan, runs, 3, true, &cond);
	check(cond.charted_wal_rate && !cond.charted_fsync,
		  "answer: charts drawn: the WAL written panel the runs fill, no fsync panel without "
		  "wal_fsync_max_ms");
	for (int i = 0; i < 3; i++)
		wsb_rows_free(&runs[i].history);
	free(o);
	free(plan);
}

/* judged for real: the same 40% of wrap-around time in 12x fewer waits */
static void
test_answer_judged(void)
{
	char		path[] = "/tmp/wsb_answer_XXXXXX";
	int			fd = mkstemp(path);
	FILE	   *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	static const double tps[] = {1000, 1010, 1000, 990, 1000, 1005, 1000, 998, 1000, 1004, 1000, 994};
	WsbVerdicts vs;
	WsbAnswerConditions cond;
	char		err[256],
				a[WSB_ANSWER_MAX];
	const WsbPaired *t;

	if (f == NULL)
	{
		check(false, "answer: a temporary CSV");
		return;
	}
	fputs("configuration,round,tps,client_ms,wal_buffer_full_total_ms,wal_buffer_full_episodes,"
		  "wal_flush_total_ms,wal_flush_episodes,wal_insert_total_ms,wal_insert_episodes,"
		  "clog_total_ms,clog_episodes\n", f);
	/* 6 rounds: the fewest in which the sign-flip gate lets "fewer" be said */
	for (int r = 0; r < 6; r++)
		for (int c = 0; c < 2; c++)
			fprintf(f, "%s,%d,%g,80000,%g,%d,400,20,0,0,0,0\n", c ? "1MB" : "32kB", r + 1,
					tps[2 * r + c], 32000 + 100.0 * r, c ? 25 : 300);
	fclose(f);
	if (wsb_verdicts_from_csv(path, "32kB", 10, 0, 0, &vs, err, sizeof(err)) != 0)
	{
		check(false, "answer: the CSV is judged (%s)", err);
		unlink(path);
		return;
	}
	unlink(path);
	t = &vs.v[WSB_N_METRICS + WSB_M_TPS];
	wsb_answer_conditions_init(&cond);
	cond.slow_wal_iops = 100;
	cond.slow_wal_mbps = 4;
	cond.wal_mb_per_s[0] = cond.wal_mb_per_s[1] = 4.1;
	wsb_answer_text(&vs, &cond, a, sizeof(a));
	check(t->word == WSB_W_EQUIVALENT && t->limit_kind == WSB_L_GRAIN && t->limit_class == 0 &&
		  strcmp(a, "On this WAL disk (throttled to 100 write IOPS, 4 MB/s), 1MB is equivalent to 32kB "
				 "within +-10%: it does not matter here; the WAL disk's write rate (4.1 MB/s measured "
				 "against its 4 MB/s cap) limits both. Faster WAL storage would help; a larger ring "
				 "will not.") == 0,
		  "answer: judged from a CSV, the limit's kind and class reach the sentence (word %d, kind %d, "
		  "class %d: \"%s\")", t->word, t->limit_kind, t->limit_class, a);
	wsb_verdicts_free(&vs);
}

/* report.html's paragraph: escaped, and none for no answer */
/* configuration c's p99 latency verdict */
static void
p99(WsbVerdicts *vs, int c, WsbWord word, double ratio, double low, double high)
{
	WsbPaired  *l = &vs->v[c * WSB_N_METRICS + WSB_M_P99];

	l->word = word;
	l->ratio = ratio;
	l->low = low;
	l->high = high;
}

/*
 * A setting that trades safety for tps: the answer that says to set it
 * names its risk, and says what p99 latency did; a latency change beyond
 * the margin is said even when tps does not move.
 */
static void
test_answer_risk_and_latency(void)
{
	const char *const labels[] = {"synchronous_commit=on", "synchronous_commit=off"};
	WsbVerdicts *vs = verdicts(2, labels, 6, 10);
	WsbAnswerConditions cond;
	char		a[WSB_ANSWER_MAX];

	tps(vs, 1, WSB_W_FASTER_BY, 3.1, 2.6, 3.7, 6);
	p99(vs, 1, WSB_W_FELL_BY, 0.31, 0.25, 0.38);
	wsb_answer_conditions_init(&cond);
	cond.slow_wal_iops = 100;
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strcmp(a, "On this WAL disk (throttled to 100 write IOPS), set synchronous_commit=off: "
				 "3.1x the tps of synchronous_commit=on (2.6x to 3.7x), beyond the +-10% "
				 "margin; p99 latency fell 69% (-75% to -62%). Its risk: a crash can lose the "
				 "transactions of the last moments (up to three times wal_writer_delay) after "
				 "their commit was reported, though it cannot corrupt the database.") == 0,
		  "answer: synchronous_commit=off: set it, p99 fell, its risk named (got \"%s\")", a);

	/* a CSV judged alone: the label names the setting */
	wsb_answer_conditions_init(&cond);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "In these runs, set synchronous_commit=off") == a &&
		  strstr(a, ". Its risk: a crash can lose the transactions") != NULL,
		  "answer: without the plan, the risk read from the label (got \"%s\")", a);

	check(wsb_setting_risk("synchronous_commit", "local") == NULL &&
		  wsb_setting_risk("synchronous_commit", "on") == NULL &&
		  wsb_setting_risk("SYNCHRONOUS_COMMIT", "False") != NULL &&
		  wsb_setting_risk("fsync", "0") != NULL && wsb_setting_risk("full_page_writes", "no") != NULL &&
		  wsb_setting_risk("wal_buffers", "off") == NULL,
		  "answer: the risky settings, off as PostgreSQL reads off; local and on are safe");

	tps(vs, 1, WSB_W_EQUIVALENT, 1.01, 0.97, 1.05, 6);
	p99(vs, 1, WSB_W_FELL_BY, 0.62, 0.55, 0.70);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "within +-10%: it does not change tps here, but p99 latency fell 38% "
				 "(-45% to -30%); ") != NULL,
		  "answer: tps equivalent, p99 down beyond the margin: said (got \"%s\")", a);

	/* the quick start's case: p99 rose, decided, not surely beyond the margin */
	p99(vs, 1, WSB_W_ROSE, 1.23, 1.012, 1.50);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "within +-10%: it does not change tps here; p99 latency rose 23% "
				 "(+1.2% to +50%); ") != NULL && strstr(a, "does not matter") == NULL,
		  "answer: tps equivalent, p99 up within reach of the margin: tps alone called unchanged "
		  "(got \"%s\")", a);

	p99(vs, 1, WSB_W_EQUIVALENT, 0.99, 0.95, 1.03);
	wsb_answer_text(vs, &cond, a, sizeof(a));
	check(strstr(a, "it does not matter here; p99 latency unchanged within +-10%; ") != NULL,
		  "answer: tps and p99 both unchanged (got \"%s\")", a);
	free_verdicts(vs);
}

static void
test_answer_html(void)
{
	char	   *out = NULL;
	size_t		len = 0;
	FILE	   *f = open_memstream(&out, &len);

	wsb_answer_html(f, "Set a<b & \"c\".");
	wsb_answer_html(f, "");
	fclose(f);
	check(strcmp(out, "<p class=\"answer\"><strong>Set a&lt;b &amp; &quot;c&quot;.</strong></p>\n") == 0,
		  "answer: the report's paragraph is escaped, and an empty answer writes nothing (got \"%s\")",
		  out);
	free(out);
}

void
test_answer(void)
{
	test_answer_equivalent();
	test_answer_direction();
	test_answer_chart_pointer();
	test_answer_several();
	test_answer_undecided();
	test_answer_conditions();
	test_answer_judged();
	test_answer_risk_and_latency();
	test_answer_html();
}
