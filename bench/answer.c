/*-------------------------------------------------------------------------
 *
 * answer.c
 *		wal_stall_bench: the answer first.  One sentence, made from the
 *		judged tps verdicts (their word and interval, never their printed
 *		words), the limit line's kind and class, and the conditions the
 *		runs ran under: what to set, or that it does not matter here and
 *		what limits both, or that nothing is decided yet and what gives the
 *		rounds.  The terminal prints it last, before the results' path;
 *		report.html puts it under its title.
 *
 * The cases:
 *	a gain		the configuration with the largest decided gain (faster by
 *				the margin before faster within it): set it, by how much,
 *				and what its stalls did
 *	none better	every configuration equivalent or slower: with one, it
 *				does not matter here (equivalent; "does not change tps"
 *				where p99 latency moved) or keep the baseline (slower),
 *				then what limits both and what would help
 *	undecided	too few rounds (at least 2 complete ones) or an interval
 *				that neither clears nor stays within the margin: not
 *				decided yet, and --runs or --budget gives the rounds
 *	failed runs	said at the end, with the rounds they took out
 *
 * When what limits both is the WAL disk's write or flush rate, the sentence
 * names the timeline panels of report.html that show it (when they were
 * drawn), so that the claim can be checked against the seconds.
 *
 * Everything here is pure and unit-tested (test_unit_answer.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "answer.h"
#include "report_internal.h"

/* what paces both sides when a class limits them alike, and what would help */
static const char *const class_limiter[WSB_N_STALL] = {
	"the WAL disk's write rate",
	"the WAL disk's flush rate",
	"WAL insertion (the insert locks)",
	"CLOG reads"
};

static const char *const class_help[WSB_N_STALL] = {
	"Faster WAL storage would help; a larger ring will not.",
	"Faster WAL storage (a shorter flush) would help; this setting will not.",
	"Fewer clients inserting WAL at once would help; this setting will not.",
	"More CLOG buffers would help (transaction_buffers, PostgreSQL 17 on); this setting will not."
};

/*
 * The settings that bear on how commits reach the WAL disk; a conf line
 * every configuration ran with that sets one of them is a condition of the
 * answer.
 */
static const char *const held_names[] = {
	"synchronous_commit", "fsync", "wal_sync_method", "commit_delay", "commit_siblings",
	"full_page_writes", "wal_compression", "wal_writer_delay", "wal_writer_flush_after",
	"wal_buffers", "wal_level"
};

/*
 * The settings that trade safety for speed, with what a crash costs: an
 * answer that says to set one says this in the same breath.
 */
static const struct
{
	const char *name;
	const char *risk;
}			risky_settings[] = {
	{"synchronous_commit", "a crash can lose the transactions of the last moments (up to three "
	 "times wal_writer_delay) after their commit was reported, though it cannot corrupt the database"},
	{"fsync", "a crash or power loss can corrupt the database beyond repair"},
	{"full_page_writes", "a crash can leave torn pages that the WAL cannot repair, unless the "
	 "file system and disk rule out partial page writes"},
};

/* a boolean setting's value read as off, as PostgreSQL reads it */
static bool
value_is_off(const char *v)
{
	static const char *const off[] = {"off", "false", "no", "0", "of", "f", "n"};

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (strcasecmp(v, off[i]) == 0)
			return true;
	return false;
}

/*
 * What setting name to value risks, or NULL: each of risky_settings
 * risks only when off (synchronous_commit's local and remote_* levels
 * still wait for the local flush).
 */
const char *
wsb_setting_risk(const char *name, const char *value)
{
	for (size_t i = 0; i < sizeof(risky_settings) / sizeof(risky_settings[0]); i++)
		if (strcasecmp(name, risky_settings[i].name) == 0 && value_is_off(value))
			return risky_settings[i].risk;
	return NULL;
}

/*
 * What a configuration's settings risk, from its label: plan.c makes it of
 * the settings' name=value words ("wal_buffers=1MB synchronous_commit=off",
 * a value quoted only when empty or holding a blank or a comma), and a CSV
 * judged alone carries the same labels; NULL none.
 */
static const char *
label_risk(const char *label)
{
	char		word[WSB_NAME_LEN + WSB_VALUE_LEN + 2];

	for (const char *p = label; *p;)
	{
		size_t		n = strcspn(p, " ");
		char	   *eq;

		if (n > 0 && n < sizeof(word))
		{
			memcpy(word, p, n);
			word[n] = '\0';
			if ((eq = strchr(word, '=')) != NULL)
			{
				const char *risk;

				*eq = '\0';
				if ((risk = wsb_setting_risk(word, eq + 1)) != NULL)
					return risk;
			}
		}
		p += n;
		p += strspn(p, " ");
	}
	return NULL;
}

void
wsb_answer_conditions_init(WsbAnswerConditions *cond)
{
	memset(cond, 0, sizeof(*cond));
	cond->slow_wal_iops = -1;
	for (int c = 0; c < 64; c++)
		cond->wal_mb_per_s[c] = NAN;
}

/*
 * A run's WAL written per second in MB/s (1048576 bytes): wal_stall_history's
 * wal_bytes over its seconds, summed over the rows of the run's steady
 * seconds (those tps is judged on: a history row keyed as wsb_join_run()
 * keys it), or over every row when the run has no window; NAN when it has
 * no such rows.  The ramp-up and the seconds after pgbench ended would
 * read the rate low against the disk's cap.  The signature
 * wsb_config_median takes.
 */
static double
run_wal_mb_per_s(const WsbRun *run, const char *unused_a, const char *unused_b)
{
	const WsbRows *h = &run->history;
	bool		windowed = run->window_to > 0 && wsb_rows_col(h, "sample_epoch") >= 0;
	double		bytes = 0,
				seconds = 0;

	(void) unused_a;
	(void) unused_b;
	if (wsb_rows_col(h, "wal_bytes") < 0 || wsb_rows_col(h, "seconds") < 0)
		return NAN;
	for (int i = 0; i < h->nrows; i++)
	{
		double		t = wsb_rows_double(h, i, "sample_epoch", NAN);
		int64_t		second = isnan(t) ? INT64_MIN : wsb_history_second(t);

		if (windowed && (second < run->window_from || second > run->window_to))
			continue;
		bytes += wsb_rows_double(h, i, "wal_bytes", 0);
		seconds += wsb_rows_double(h, i, "seconds", 0);
	}
	return seconds > 0 ? bytes / seconds / 1048576.0 : NAN;
}

/*
 * The conditions of the harness's own runs: the WAL disk's throttle, the
 * conf lines every configuration ran with (wsb_answer_held), per
 * configuration the median of its successful runs' WAL rate, and, when
 * report.html's charts were drawn (charted), which of the timeline's WAL
 * disk panels it has.  o may be NULL (the throttle is then unknown).
 */
void
wsb_answer_conditions_of_runs(const WsbOptions *o, const WsbPlan *plan, const WsbRun *runs,
							  int nruns, bool charted, WsbAnswerConditions *cond)
{
	wsb_answer_conditions_init(cond);
	if (o)
	{
		cond->slow_wal_iops = o->slow_wal_iops;
		cond->slow_wal_mbps = wsb_wal_cap_mbps(o);
		wsb_answer_held(o->extra_conf, cond->held, sizeof(cond->held));
	}
	for (int c = 0; c < plan->nconfigs && c < 64; c++)
		cond->wal_mb_per_s[c] = wsb_config_median(runs, nruns, c, run_wal_mb_per_s, NULL, NULL);
	if (charted)
		wsb_timeline_wal_panels(runs, nruns, &cond->charted_wal_rate, &cond->charted_fsync);
}

/*
 * From conf lines ("name = value", one a line: a preset's conf, plan.txt's
 * conf lines without their "conf = "), those that set a setting of
 * held_names, joined by ", ", into buf.
 */
void
wsb_answer_held(const char *conf_lines, char *buf, size_t len)
{
	size_t		used = 0;

	buf[0] = '\0';
	for (const char *p = conf_lines; p && *p;)
	{
		const char *e = strchr(p, '\n');
		size_t		l = e ? (size_t) (e - p) : strlen(p);
		size_t		name = strcspn(p, " =\t\n");

		for (size_t i = 0; i < sizeof(held_names) / sizeof(held_names[0]); i++)
			if (name == strlen(held_names[i]) && name <= l &&
				strncmp(p, held_names[i], name) == 0)
			{
				int			n = snprintf(buf + used, len - used, "%s%.*s",
										 used ? ", " : "", (int) l, p);

				if (n < 0 || (size_t) n >= len - used)
				{
					buf[used] = '\0';	/* a whole setting or none */
					return;
				}
				used += n;
				break;
			}
		p += l + (e ? 1 : 0);
	}
}

/* append to buf (of len), truncating at its end */
static void
add(char *buf, size_t len, const char *fmt,...)
{
	size_t		used = strlen(buf);
	va_list		ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* a ratio's change as a percentage without its sign: "21%", "2.9%" */
static void
change(char *out, size_t len, double ratio)
{
	double		x = fabs(ratio - 1) * 100;

	snprintf(out, len, x < 9.95 ? "%.1f%%" : "%.0f%%", x);
}

/* an interval as signed changes: "+16% to +27%", "-3.0% to +16%" */
static void
interval(char *out, size_t len, double low, double high)
{
	double		a = (low - 1) * 100,
				b = (high - 1) * 100;

	snprintf(out, len, fabs(a) < 9.95 ? "%+.1f%% to " : "%+.0f%% to ", a);
	snprintf(out + strlen(out), len - strlen(out), fabs(b) < 9.95 ? "%+.1f%%" : "%+.0f%%", b);
}

/* the conditions, as the sentence's opening clause */
static void
conditions(char *buf, size_t len, const WsbAnswerConditions *cond)
{
	if (cond->slow_wal_iops > 0)
	{
		add(buf, len, "On this WAL disk (throttled to %d write IOPS", cond->slow_wal_iops);
		if (cond->slow_wal_mbps > 0)
			add(buf, len, ", %.3g MB/s", cond->slow_wal_mbps);
		if (cond->held[0])
			add(buf, len, "; %s", cond->held);
		add(buf, len, "), ");
	}
	else if (cond->held[0])
		add(buf, len, "With %s, ", cond->held);
	else
		add(buf, len, "In these runs, ");
}

/*
 * Where the timeline shows a WAL disk class's limit, for a reader to check
 * the claim: "see the timeline's \"WAL written, MB/s\" panel" for the
 * write rate (wal_buffer_full), the longest fsync first for the flush rate
 * (wal_flush).  Only the panels report.html has; "" none.  k is the
 * class's index in wsb_stall_classes.
 */
static void
chart_pointer(char *out, size_t len, const WsbAnswerConditions *cond, int k)
{
	bool		fsync = k == 1 && cond->charted_fsync;
	bool		rate = (k == 0 || k == 1) && cond->charted_wal_rate;

	out[0] = '\0';
	if (!fsync && !rate)
		return;
	snprintf(out, len, "see the timeline's %s%s%s panel%s",
			 fsync ? "\"longest WAL fsync, ms\"" : "", fsync && rate ? " and " : "",
			 rate ? "\"WAL written, MB/s\"" : "", fsync && rate ? "s" : "");
}

/* The evidence for a disk class k on both sides: " (4.1 MB/s measured
 * against its 4 MB/s cap; see the timeline's ... panel)", each part when
 * it is known; nothing when neither is. */
static void
disk_evidence(char *buf, size_t len, const WsbAnswerConditions *cond, int config, int k)
{
	double		a = cond->wal_mb_per_s[0],
				b = cond->wal_mb_per_s[config],
				lo = fmin(a, b),
				hi = fmax(a, b);
	bool		measured = !isnan(a) && !isnan(b);
	char		pointer[128];

	chart_pointer(pointer, sizeof(pointer), cond, k);
	if (!measured && !pointer[0])
		return;
	add(buf, len, " (");
	if (measured && hi - lo < 0.05)
		add(buf, len, "%.1f MB/s measured", hi);
	else if (measured)
		add(buf, len, "%.1f and %.1f MB/s measured", lo, hi);
	if (measured && cond->slow_wal_iops > 0 && cond->slow_wal_mbps > 0)
		add(buf, len, " against its %.3g MB/s cap", cond->slow_wal_mbps);
	add(buf, len, "%s%s)", measured && pointer[0] ? "; " : "", pointer);
}

/* A limit line within the sentence; when it says the WAL disk's rate
 * limits both (its waits only changed their grain), where that shows. */
static void
add_limit(char *buf, size_t len, const WsbPaired *t, const WsbAnswerConditions *cond)
{
	char		pointer[128] = "";

	add(buf, len, "%s", t->limit);
	if (t->limit_kind == WSB_L_GRAIN)
		chart_pointer(pointer, sizeof(pointer), cond, t->limit_class);
	if (pointer[0])
		add(buf, len, " (%s)", pointer);
}

/* Why a configuration that is no better does not matter: what limits both,
 * and what would help. */
static void
why_no_better(char *buf, size_t len, const WsbPaired *tps, const WsbAnswerConditions *cond,
			  int config)
{
	int			k = tps->limit_class;

	switch (tps->limit_kind)
	{
		case WSB_L_GRAIN:
		case WSB_L_SAME:
			if (k < 0 || k >= WSB_N_STALL)
				break;
			add(buf, len, "%s", class_limiter[k]);
			if (k <= 1)
				disk_evidence(buf, len, cond, config, k);
			add(buf, len, " limits both. %s", class_help[k]);
			return;
		case WSB_L_NOT_STALL:
			add(buf, len, "no WAL or CLOG wait limits either (every class under %g%% of client "
				"time): the limit is elsewhere, and no WAL setting will lift it.",
				100 * WSB_NEGLIGIBLE_SHARE);
			return;
		case WSB_L_MOVED:
			add(buf, len, "%s, yet tps stayed within the margin: that stall was not the limit.",
				tps->limit);
			return;
		default:
			break;
	}
	if (tps->limit[0])
		add(buf, len, "what limits it: %s.", tps->limit);
	else
		add(buf, len, "what limits both is not measured.");
}

/* the tps entry of configuration c */
static const WsbPaired *
tps_of(const WsbVerdicts *vs, int c)
{
	return &vs->v[c * WSB_N_METRICS + WSB_M_TPS];
}

static bool
is_gain(WsbWord w)
{
	return w == WSB_W_FASTER_BY || w == WSB_W_FASTER;
}

static bool
is_no_better(const WsbPaired *t)
{
	return t->word == WSB_W_EQUIVALENT || t->word == WSB_W_SLOWER_BY || t->word == WSB_W_SLOWER;
}

/* the configuration with the largest gain, faster by the margin first; 0 none */
static int
best_gain(const WsbVerdicts *vs)
{
	int			best = 0;

	for (int c = 1; c < vs->table.nconfigs; c++)
	{
		const WsbPaired *t = tps_of(vs, c);

		if (!is_gain(t->word))
			continue;
		if (best == 0 ||
			(t->word == WSB_W_FASTER_BY && tps_of(vs, best)->word != WSB_W_FASTER_BY) ||
			(t->word == tps_of(vs, best)->word && t->ratio > tps_of(vs, best)->ratio))
			best = c;
	}
	return best;
}

/*
 * What a client's p99 latency did, when the rounds decided it, after lead:
 * "p99 latency fell 38% (-45% to -30%)", "p99 latency unchanged within
 * +-10%"; nothing while undecided.
 */
static void
latency_clause(char *buf, size_t len, const WsbVerdicts *vs, int c, const char *lead)
{
	const WsbPaired *l = &vs->v[c * WSB_N_METRICS + WSB_M_P99];
	char		x[32],
				iv[64];

	change(x, sizeof(x), l->ratio);
	interval(iv, sizeof(iv), l->low, l->high);
	switch (l->word)
	{
		case WSB_W_FELL_BY:
		case WSB_W_FELL:
		case WSB_W_ROSE_BY:
		case WSB_W_ROSE:
			add(buf, len, "%sp99 latency %s %s (%s)", lead,
				l->word == WSB_W_FELL_BY || l->word == WSB_W_FELL ? "fell" : "rose", x, iv);
			break;
		case WSB_W_EQUIVALENT:
			add(buf, len, "%sp99 latency unchanged within +-%g%%", lead, vs->spec.margin_pct);
			break;
		default:
			break;
	}
}

static bool
latency_beyond_margin(const WsbVerdicts *vs, int c)
{
	WsbWord		w = vs->v[c * WSB_N_METRICS + WSB_M_P99].word;

	return w == WSB_W_FELL_BY || w == WSB_W_ROSE_BY;
}

/* p99 latency moved, by a decided direction, but not surely beyond the margin */
static bool
latency_moved(const WsbVerdicts *vs, int c)
{
	WsbWord		w = vs->v[c * WSB_N_METRICS + WSB_M_P99].word;

	return w == WSB_W_FELL || w == WSB_W_ROSE;
}

static void
say_gain(char *buf, size_t len, const WsbVerdicts *vs, const WsbAnswerConditions *cond, int c)
{
	const WsbPaired *t = tps_of(vs, c);
	const char *base = vs->table.labels[0];
	const char *risk;
	char		x[32],
				iv[64];

	change(x, sizeof(x), t->ratio);
	interval(iv, sizeof(iv), t->low, t->high);
	/* from twice on, a multiple reads better than a percentage */
	if (t->word == WSB_W_FASTER_BY && t->low >= 2)
		add(buf, len, "set %s: %.3gx the tps of %s (%.3gx to %.3gx), beyond the +-%g%% margin",
			vs->table.labels[c], t->ratio, base, t->low, t->high, vs->spec.margin_pct);
	else if (t->word == WSB_W_FASTER_BY)
		add(buf, len, "set %s: %s more tps than %s (%s), beyond the +-%g%% margin",
			vs->table.labels[c], x, base, iv, vs->spec.margin_pct);
	else
		add(buf, len, "%s gives %s more tps than %s (%s), not yet beyond the +-%g%% margin: "
			"set it if that is worth having, or give it more rounds (--budget) to settle it",
			vs->table.labels[c], x, base, iv, vs->spec.margin_pct);
	latency_clause(buf, len, vs, c, "; ");
	if (t->limit[0])
	{
		add(buf, len, "; ");
		add_limit(buf, len, t, cond);
	}
	add(buf, len, ".");
	if ((risk = label_risk(vs->table.labels[c])) != NULL)
		add(buf, len, " Its risk: %s.", risk);
}

static void
say_no_better(char *buf, size_t len, const WsbVerdicts *vs, const WsbAnswerConditions *cond, int c)
{
	const WsbPaired *t = tps_of(vs, c);
	const char *base = vs->table.labels[0];
	char		x[32],
				iv[64];

	change(x, sizeof(x), t->ratio);
	interval(iv, sizeof(iv), t->low, t->high);
	if (t->word == WSB_W_EQUIVALENT)
	{
		add(buf, len, "%s is equivalent to %s within +-%g%%", vs->table.labels[c], base,
			vs->spec.margin_pct);
		/* the interval also excludes no change: both words */
		if (t->low > 1 || t->high < 1)
			add(buf, len, " (%s %s, %s, too little to matter)", x,
				t->low > 1 ? "faster" : "slower", iv);
		/* a latency decided beyond the margin is what the change does */
		if (latency_beyond_margin(vs, c))
		{
			add(buf, len, ": it does not change tps here, but");
			latency_clause(buf, len, vs, c, " ");
		}
		/* one that moved, within the margin or not yet beyond it, is said */
		else if (latency_moved(vs, c))
		{
			add(buf, len, ": it does not change tps here");
			latency_clause(buf, len, vs, c, "; ");
		}
		else
		{
			add(buf, len, ": it does not matter here");
			latency_clause(buf, len, vs, c, "; ");
		}
		add(buf, len, "; ");
	}
	else
	{
		add(buf, len, "keep %s: %s gives %s less tps (%s), %s the +-%g%% margin", base,
			vs->table.labels[c], x, iv, t->word == WSB_W_SLOWER_BY ? "beyond" : "not yet beyond",
			vs->spec.margin_pct);
		if (t->limit[0])
		{
			add(buf, len, "; ");
			add_limit(buf, len, t, cond);
		}
		add(buf, len, ".");
		return;
	}
	why_no_better(buf, len, t, cond, c);
}

static void
say_undecided(char *buf, size_t len, const WsbVerdicts *vs, int c, int failed_rounds)
{
	const WsbPaired *t = tps_of(vs, c);
	const char *base = vs->table.labels[0];
	char		x[32],
				iv[64];

	/* too few rounds: under 2, or under what the judge's own gate asks */
	if (t->word == WSB_W_TOO_FEW || t->rounds < 2 || isnan(t->low))
	{
		add(buf, len, "no verdict yet: %s has %d complete round%s against %s, too few for a "
			"verdict%s", vs->table.labels[c], t->rounds, t->rounds == 1 ? "" : "s", base,
			t->rounds < 2 ? " (at least 2)" : "");
		if (failed_rounds > 0)
			add(buf, len, " (the log says why runs failed)");
		add(buf, len, "; more rounds (--runs, or --budget) give them.");
		return;
	}
	change(x, sizeof(x), t->ratio);
	interval(iv, sizeof(iv), t->low, t->high);
	add(buf, len, "nothing is decided yet: %s against %s measured %s %s (%s) over %d rounds, neither "
		"beyond nor within the +-%g%% margin", vs->table.labels[c], base, x,
		t->ratio >= 1 ? "faster" : "slower", iv, t->rounds, vs->spec.margin_pct);
	/* the table's range: at the noise seen, and at its upper bound */
	if (t->more_rounds_low > 0 && t->more_rounds > t->more_rounds_low)
		add(buf, len, "; %d-%d more rounds would likely decide it (--budget gives the rounds).",
			t->more_rounds_low, t->more_rounds);
	else if (t->more_rounds > 0)
		add(buf, len, "; about %d more rounds would likely decide it (--budget gives the rounds).",
			t->more_rounds);
	else
		add(buf, len, "; more rounds (--budget) would decide it.");
}

/* the sentence's first letter upper case */
static void
capitalize(char *buf)
{
	if (buf[0] >= 'a' && buf[0] <= 'z')
		buf[0] += 'A' - 'a';
}

/*
 * The answer for the judged verdicts vs under cond, into buf (len at most
 * WSB_ANSWER_MAX is enough).  "" when there is nothing to judge (a single
 * configuration).
 */
void
wsb_answer_text(const WsbVerdicts *vs, const WsbAnswerConditions *cond, char *buf, size_t len)
{
	int			n = vs->table.nconfigs,
				best,
				undecided = 0,
				first_undecided = 0,
				first_equivalent = 0,
				failed_runs = 0,
				failed_rounds = 0;
	WsbRoundState *states;
	int			nstates;

	buf[0] = '\0';
	if (n < 2 || vs->v == NULL)
		return;
	for (int i = 0; i < vs->table.nruns; i++)
		failed_runs += !vs->table.runs[i].ok;
	nstates = wsb_round_states(vs->table.runs, vs->table.nruns, n, &states);
	for (int k = 0; k < nstates; k++)
		failed_rounds += states[k].failed;
	free(states);
	for (int c = 1; c < n; c++)
	{
		const WsbPaired *t = tps_of(vs, c);

		if (!is_gain(t->word) && !is_no_better(t))
		{
			undecided++;
			first_undecided = first_undecided ? first_undecided : c;
		}
		if (t->word == WSB_W_EQUIVALENT && first_equivalent == 0)
			first_equivalent = c;
	}

	conditions(buf, len, cond);
	if ((best = best_gain(vs)) > 0)
	{
		say_gain(buf, len, vs, cond, best);
		if (n > 2)
			add(buf, len, " It gains the most of the %d configurations against %s.", n - 1,
				vs->table.labels[0]);
	}
	else if (undecided == 0 && n == 2)
		say_no_better(buf, len, vs, cond, 1);
	else if (undecided == 0)
	{
		int			c = first_equivalent ? first_equivalent : 1;

		add(buf, len, "none of the %d configurations beats %s:", n - 1, vs->table.labels[0]);
		for (int i = 1; i < n; i++)
		{
			const WsbPaired *t = tps_of(vs, i);
			char		x[32];

			change(x, sizeof(x), t->ratio);
			if (t->word == WSB_W_EQUIVALENT)
				add(buf, len, "%s %s equivalent within +-%g%%", i > 1 ? "," : "",
					vs->table.labels[i], vs->spec.margin_pct);
			else
				add(buf, len, "%s %s %s slower", i > 1 ? "," : "", vs->table.labels[i], x);
		}
		add(buf, len, ". For %s, ", vs->table.labels[c]);
		why_no_better(buf, len, tps_of(vs, c), cond, c);
	}
	else
		say_undecided(buf, len, vs, first_undecided, failed_rounds);
	if (undecided > 0 && (best > 0 || undecided > 1))
	{
		add(buf, len, " Not decided yet:");
		for (int c = 1, i = 0; c < n; c++)
			if ((!is_gain(tps_of(vs, c)->word) && !is_no_better(tps_of(vs, c))) &&
				(best > 0 || c != first_undecided))
				add(buf, len, "%s %s", i++ ? "," : "", vs->table.labels[c]);
		add(buf, len, " (more rounds: --budget).");
	}
	if (failed_runs > 0)
		add(buf, len, " %d run%s failed; %d round%s with one %s left out.", failed_runs,
			failed_runs == 1 ? "" : "s", failed_rounds, failed_rounds == 1 ? "" : "s",
			failed_rounds == 1 ? "is" : "are");
	capitalize(buf);
}

/* The answer as report.html's first paragraph; nothing when it is "". */
void
wsb_answer_html(FILE *f, const char *answer)
{
	if (answer[0] == '\0')
		return;
	fputs("<p class=\"answer\"><strong>", f);
	wsb_html_escape(f, answer);
	fputs("</strong></p>\n", f);
}
