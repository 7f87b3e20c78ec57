/*-------------------------------------------------------------------------
 *
 * experiment.c
 *		wal_stall_bench: an experiment across invocations.  The plan as
 *		text (OUT/plan.txt, what --resume checks a continuation against),
 *		the budget's arithmetic, whether the runs are long against the
 *		configurations' stall cycles, appending a continuation's rows to
 *		results.csv, and --judge: the verdicts of a results directory or a
 *		CSV file, without any server.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "answer.h"
#include "engine.h"
#include "expbuffer.h"
#include "report_internal.h"
#include "verdict.h"
#include "experiment.h"
#include "figures.h"
#include "clog_report.h"
#include "ring_report.h"

/*
 * The major version of the server the runs are made on, as text: a
 * --cluster's own (VERSION/NAME), a --pgdata cluster's PG_VERSION, else
 * the temporary cluster's, which pg_config's binaries make.  "unknown"
 * when it cannot be read.  PG_VERSION is the cluster owner's file, read
 * back as untrusted input (wsb_read_back): a link there to a file of
 * root's would put its first line into plan.txt, a FIFO would block.
 */
static void
target_server_version(const WsbOptions *o, char *out, size_t len)
{
	char	   *path;
	char	   *text;
	char		why[256];
	int			major;

	snprintf(out, len, "unknown");
	if (o->cluster[0])
		snprintf(out, len, "%.*s", (int) strcspn(o->cluster, "/"), o->cluster);
	else if (o->pgdata[0])
	{
		path = wsb_psprintf("%s/PG_VERSION", o->pgdata);
		text = wsb_read_back(path, 64, NULL, why, sizeof(why));
		free(path);
		if (text)
			snprintf(out, len, "%s", wsb_trim(text));
		free(text);
	}
	else if (sscanf(o->pg_version, "PostgreSQL %d", &major) == 1)
		snprintf(out, len, "%d", major);
}

/*
 * The plan as "key = value" lines: everything that makes one round
 * comparable with another (where it runs and on which PostgreSQL, what
 * runs, how long, on what disk, the order's seed, the margin).  Not the
 * number of rounds or the budget: those a continuation may change.
 */
void
wsb_plan_text(const WsbOptions *o, const WsbPlan *plan, PQExpBuffer buf)
{
	char		version[64];
	char		real[PATH_MAX];

#define ADD(...) appendPQExpBuffer(buf, __VA_ARGS__)
	ADD("# wal_stall_bench plan: --resume checks a continuation against it\n");
	if (o->cluster[0])
		ADD("target = --cluster %s", o->cluster);
	else if (o->pgdata[0])
		ADD("target = --pgdata %s", o->pgdata);
	else
		ADD("target = temporary");
	if (o->service[0])
		ADD(" --service %s", o->service);
	ADD("\n");
	target_server_version(o, version, sizeof(version));
	ADD("server_version = %s\n", version);
	ADD("pg_config = %s\n", o->pg_config[0] && realpath(o->pg_config, real) ? real : o->pg_config);
	ADD("pg_config_version = %s\n", o->pg_version);
	ADD("seed = %lld\n", o->seed);
	ADD("margin = %g\n", o->margin_pct);
	ADD("duration = %d\nclients = %d\njobs = %d\nscale = %d\n", o->duration, o->clients,
		o->jobs, o->scale);
	ADD("builtin = %s\nscript = %s\npgbench_args = %s\npgbench_init_args = %s\n", o->builtin,
		o->script, o->pgbench_args, o->pgbench_init_args);
	ADD("slow_wal = %d\nslow_wal_mbps = %d\nslow_disk = %d\n", o->slow_wal_iops,
		o->slow_wal_mbps, o->slow_disk_iops);
	if (o->slow_wal_iops > 0)	/* older plans had the journal on the throttled device */
		ADD("slow_wal_journal = own device\n");
	if (o->wal_disk[0])			/* only then, so that older plans still match */
		ADD("wal_disk = %s\nslow_wal_kbps = %d\nslow_journal_kbps = %d\n", o->wal_disk,
			o->slow_wal_kbps, o->slow_journal_kbps);
	ADD("validate = %s\n", o->validate ? "true" : "false");
	if (o->in_memory)			/* only then, so that older plans still match */
		ADD("in_memory = on\n");
	if (o->warmup > 0)			/* only then, so that older plans still match */
		ADD("warmup = %d\n", o->warmup);
	if (o->aged_pages > 0)		/* only then, so that older plans still match */
		ADD("aged_pages = %d\naged_rows_per_page = %d\n", o->aged_pages, o->aged_rows_per_page);
	for (const char *p = o->extra_conf; *p;)
	{
		const char *e = strchr(p, '\n');
		int			l = e ? (int) (e - p) : (int) strlen(p);

		ADD("conf = %.*s\n", l, p);
		p += l + (e ? 1 : 0);
	}
	for (int c = 0; c < plan->nconfigs; c++)
		ADD("configuration = %s\n", plan->configs[c].label);
#undef ADD
}

/*
 * --budget's error spending as plan.txt records it, after the plan: the
 * looks the budget allows (what fixes the spending), the looks made and
 * the error they spent.  --resume reads them back and goes on spending
 * from there; the check of a continuation leaves these lines out, since
 * a continuation changes them.
 */
#define SPENDING_HEADER "# --budget's error spending (--resume continues it)\n"

void
wsb_spending_text(int nlooks, int looks_done, PQExpBuffer buf)
{
	appendPQExpBufferStr(buf, SPENDING_HEADER);
	appendPQExpBuffer(buf, "spending = O'Brien-Fleming (Lan-DeMets), rounds as information, "
					  "0.05 over %d rounds\n", nlooks + 2);
	appendPQExpBuffer(buf, "spending_looks = %d\nlooks = %d\nalpha_spent = %.6g\n", nlooks,
					  looks_done, wsb_spent_at_look(0.05, looks_done, nlooks));
}

/* a line of plan.txt that records the spending (see wsb_spending_text) */
static bool
spending_line(const char *line, int len)
{
	static const char *const keys[] = {"spending = ", "spending_looks = ", "looks = ", "alpha_spent = "};

	if (len == (int) strlen(SPENDING_HEADER) - 1 && strncmp(line, SPENDING_HEADER, len) == 0)
		return true;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strncmp(line, keys[i], strlen(keys[i])) == 0)
			return true;
	return false;
}

/* a throttle --wal-disk chose: each start calibrates it again */
static bool
calibrated_line(const char *line, int len)
{
	return (len >= 11 && strncmp(line, "slow_wal = ", 11) == 0) ||
		(len >= 16 && strncmp(line, "slow_wal_kbps = ", 16) == 0) ||
		(len >= 20 && strncmp(line, "slow_journal_kbps = ", 20) == 0);
}

/* the value of "key = " in plan text, or NULL */
static const char *
plan_value(const char *text, const char *key, char *out, size_t len)
{
	size_t		kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, key, kl) == 0 && strncmp(p + kl, " = ", 3) == 0)
		{
			const char *v = p + kl + 3;
			const char *e = strchr(v, '\n');

			snprintf(out, len, "%.*s", e ? (int) (e - v) : (int) strlen(v), v);
			return out;
		}
	return NULL;
}

/*
 * --resume DIR: take the seed and the margin stored in DIR/plan.txt unless
 * given (then they must be the same, which wsb_resume_check says), so that
 * the plan made next continues the stored one.  DIR becomes OUT, and is
 * checked as OUT is before anything in it is read: a directory another
 * account can change could hold a link or a FIFO at plan.txt.  0, -1 with
 * err.
 */
int
wsb_resume_prepare(WsbOptions *o, bool margin_given, char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("%s/plan.txt", o->resume);
	char		v[256],
				what_seed[1300],
				what_margin[1300];
	char		why[256];
	char	   *text;

	if (wsb_dir_is_private(o->resume, "--resume", err, errlen) != 0 ||
		wsb_path_is_private(o->resume, "--resume", err, errlen) != 0)
	{
		free(path);
		return -1;
	}
	snprintf(what_seed, sizeof(what_seed), "--resume \"%s\": plan.txt: seed", o->resume);
	snprintf(what_margin, sizeof(what_margin), "--resume \"%s\": plan.txt: margin", o->resume);
	text = wsb_read_back(path, WSB_PLAN_TXT_MAX, NULL, why, sizeof(why));
	free(path);
	if (text == NULL && errno == ENOENT)
	{
		snprintf(err, errlen, "--resume \"%s\": no plan.txt there (%s): not an experiment of this harness",
				 o->resume, why);
		return -1;
	}
	if (text == NULL)
	{
		snprintf(err, errlen, "--resume \"%s\": cannot read plan.txt: %s", o->resume, why);
		return -1;
	}
	/* read back with the options' own checks: a file cannot declare what
	 * the command line refuses */
	if (!o->seed_given && plan_value(text, "seed", v, sizeof(v)) &&
		wsb_check_seed(what_seed, v, &o->seed, err, errlen) != 0)
	{
		free(text);
		return -1;
	}
	if (!margin_given && plan_value(text, "margin", v, sizeof(v)) &&
		wsb_check_margin(what_margin, v, &o->margin_pct, err, errlen) != 0)
	{
		free(text);
		return -1;
	}
	/* the spending a budget began: the continuation goes on with it */
	snprintf(what_seed, sizeof(what_seed), "--resume \"%s\": plan.txt: spending_looks", o->resume);
	if (plan_value(text, "spending_looks", v, sizeof(v)) &&
		wsb_check_looks(what_seed, v, &o->spending_looks, err, errlen) != 0)
	{
		free(text);
		return -1;
	}
	snprintf(what_seed, sizeof(what_seed), "--resume \"%s\": plan.txt: looks", o->resume);
	if (plan_value(text, "looks", v, sizeof(v)) && strcmp(v, "0") != 0 &&
		wsb_check_looks(what_seed, v, &o->looks_done, err, errlen) != 0)
	{
		free(text);
		return -1;
	}
	free(text);
	wsb_strlcpy(o->out, o->resume, sizeof(o->out));
	return 0;
}

/*
 * The stored plan against this one: 0 when they are the same, else -1 and
 * err names the first line that differs.
 */
int
wsb_resume_check(const WsbOptions *o, const WsbPlan *plan, char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("%s/plan.txt", o->resume);
	char		target[1200];
	char		why[256];
	char	   *stored;
	char	   *now = NULL;		/* the plan as it is now, malloc'd */
	PQExpBufferData text;
	const char *a,
			   *b;

	stored = wsb_read_back(path, WSB_PLAN_TXT_MAX, NULL, why, sizeof(why));
	if (stored == NULL)
		snprintf(err, errlen, "could not read \"%s\": %s", path, why);
	free(path);
	if (stored == NULL)
		return -1;
	initPQExpBuffer(&text);
	wsb_plan_text(o, plan, &text);
	now = (char *) wsb_buffer_text(&text);
	if (plan_value(stored, "target", target, sizeof(target)) == NULL)
	{
		snprintf(err, errlen, "--resume \"%s\": plan.txt names no target (an older wal_stall_bench "
				 "wrote it): its rounds cannot be shown to be of this cluster and PostgreSQL", o->resume);
		free(stored);
		free(now);
		return -1;
	}
	for (a = stored, b = now; *a || *b;)
	{
		const char *ea = strchr(a, '\n'),
				   *eb = strchr(b, '\n');
		int			la = ea ? (int) (ea - a) : (int) strlen(a),
					lb = eb ? (int) (eb - b) : (int) strlen(b);

		if (*a && spending_line(a, la))
		{
			a += la + (ea ? 1 : 0);
			continue;
		}
		if ((la != lb || strncmp(a, b, la) != 0) &&
			!(o->wal_disk[0] && calibrated_line(a, la) && calibrated_line(b, lb)))
		{
			snprintf(err, errlen, "--resume \"%s\": the plan differs: stored \"%.*s\", now \"%.*s\"",
					 o->resume, la > 200 ? 200 : la, a, lb > 200 ? 200 : lb, b);
			free(stored);
			free(now);
			return -1;
		}
		a += la + (ea ? 1 : 0);
		b += lb + (eb ? 1 : 0);
	}
	free(stored);
	free(now);
	return 0;
}

/* The rounds and runs already in DIR/results.csv: its highest round, and
 * its text kept for the continuation (malloc'd).  0, -1 with err. */
int
wsb_resume_load(const WsbOptions *o, const WsbPlan *plan, WsbResume *r, char *err, size_t errlen)
{
	char	   *path = wsb_psprintf("%s/results.csv", o->resume);
	WsbRoundTable t;
	char		why[256];
	int			rc;

	memset(r, 0, sizeof(*r));
	r->results_text = wsb_read_back(path, WSB_RESULTS_CSV_MAX, NULL, why, sizeof(why));
	if (r->results_text == NULL)
	{
		snprintf(err, errlen, errno == ENOENT ? "--resume \"%s\": no results.csv (%s): no round finished"
				 : "--resume \"%s\": cannot read results.csv: %s", o->resume, why);
		free(path);
		return -1;
	}
	rc = wsb_round_table_read_csv(path, plan->configs[0].label, NULL, 0, &t, err, errlen);
	free(path);
	if (rc != 0)
		return -1;
	for (int i = 0; i < t.nruns; i++)
	{
		if (t.runs[i].round > r->rounds_done)
			r->rounds_done = t.runs[i].round;
	}
	r->runs_done = t.nruns;
	wsb_round_table_free(&t);
	return 0;
}

/*
 * results.csv of a continuation: the rows already there, then the new
 * runs' rows (its header must be the stored one), replaced whole as
 * wsb_write_results_csv does.  0, -1.
 */
int
wsb_write_results_continued(const char *path, const char *old_text, const WsbPlan *plan,
							const WsbRun *runs, int nruns)
{
	char	   *fresh = NULL,
			   *body;
	size_t		freshlen = 0,
				hl;
	FILE	   *mem;
	WsbReplace	w;
	FILE	   *f;

	if (old_text == NULL)
		return wsb_write_results_csv(path, plan, runs, nruns);
	mem = open_memstream(&fresh, &freshlen);
	if (mem == NULL)
		return -1;
	if (wsb_results_csv_text(mem, plan, runs, nruns) != 0 || wsb_close_written(mem, 0) != 0)
	{
		free(fresh);
		return -1;
	}
	body = strchr(fresh, '\n');
	hl = body ? (size_t) (body - fresh) : strlen(fresh);
	if (strncmp(old_text, fresh, hl) != 0 || old_text[hl] != '\n')
	{
		wsb_error("results.csv of the continuation has other columns than the stored one");
		free(fresh);
		return -1;
	}
	f = wsb_replace_open(&w, path);
	if (f == NULL)
	{
		free(fresh);
		return -1;
	}
	fputs(old_text, f);
	if (body)
		fputs(body + 1, f);
	free(fresh);
	return wsb_replace_close(&w, 0);
}

/*
 * Runs too short for a configuration's stall cycle: when its median
 * episode of a stall class (the median over its successful runs of
 * wal_stall_summary.p50_ms) lasts more than a tenth of a run, where the
 * run's end falls in a cycle moves its tps by a sizeable part of a cycle.
 * One line per such configuration into buf ("" when none): which class,
 * how long, and the run length that would hold ten such episodes; the
 * longest of those into *needed_s (0 when none).  Returns how many
 * configurations were named.
 */
int
wsb_short_runs(const WsbPlan *plan, const WsbRun *runs, int nruns, int duration,
			   PQExpBuffer buf, double *needed_s)
{
	int			named = 0;

	*needed_s = 0;
	for (int c = 0; c < plan->nconfigs; c++)
	{
		double		worst = 0;
		const char *which = NULL;

		for (int k = 0; k < WSB_N_STALL; k++)
		{
			double		p50 = wsb_config_median(runs, nruns, c, wsb_summary_value,
												wsb_stall_classes[k], "p50_ms");

			if (p50 > worst)
			{
				worst = p50;
				which = wsb_stall_classes[k];
			}
		}
		if (which == NULL || worst <= duration * 1000.0 / 10)
			continue;
		named++;
		*needed_s = fmax(*needed_s, ceil(worst / 100));
		appendPQExpBuffer(buf,
						  "runs too short for %s's stall cycle: its median %s episode lasts "
						  "%.1f s, over a tenth of the %d s runs; runs of %.0f s or more would "
						  "hold ten (--duration)\n",
						  plan->configs[c].label, which, worst / 1000, duration,
						  ceil(worst / 100));
	}
	return named;
}

/*
 * How many looks a budget allows: the rounds that fit, at an estimated
 * round length, less the two before the first look (at least 1).  The
 * estimate: each run takes its duration plus WSB_RUN_OVERHEAD_S (the
 * checkpoint, resets, the 1.5 s pause, reading the views; measured here).
 * K is fixed before the first run, since the error spent per look depends
 * on it; rounds that go faster than the estimate stop at K looks.
 */
int
wsb_budget_looks(const WsbOptions *o, int nconfigs)
{
	double		round_s = nconfigs * (o->duration + o->warmup + WSB_RUN_OVERHEAD_S);
	double		fit = floor(o->budget_seconds / round_s);
	/* the plan's rounds (wsb_make_plan): --runs, else the budget's cap */
	int			rounds = o->runs_given ? o->runs : WSB_BUDGET_MAX_ROUNDS;

	if (fit < rounds)
		rounds = (int) fit;
	return rounds - 2 > 1 ? rounds - 2 : 1;
}

/*
 * A results directory's ring.csv or clog.csv, read once for the terminal
 * and report.html alike.
 */
typedef struct JudgedSection
{
	const char *what;			/* "wal_buffers", "CLOG": in its note */
	const char *file;			/* its name in the directory */
	size_t		max;			/* the most wsb_read_back takes of it */
	char	   *path;			/* NULL: --judge of a file */
	char	   *text;			/* NULL: absent, unreadable or refused */
	size_t		len;
	int			(*print) (FILE *f, const char *path, const char *text, size_t len,
						  const WsbVerdicts *verdicts, char *err, size_t errlen);
	int			(*html) (FILE *f, const char *plotdir, const char *path, const char *text,
						 size_t len, const WsbVerdicts *verdicts, char *err, size_t errlen);
} JudgedSection;

#define JUDGED_NSECTIONS 2

/*
 * Read each section's file of directory dir, and print the section after
 * the verdicts.  The verdicts stand without it: a file that cannot be read
 * or holds a cell the run does not write costs only its section, with a
 * note; no file, no section.
 */
static void
print_sections(JudgedSection *sections, const char *dir, const WsbVerdicts *vs)
{
	char		err[1024];

	for (int i = 0; i < JUDGED_NSECTIONS; i++)
	{
		JudgedSection *s = &sections[i];

		s->path = wsb_psprintf("%s/%s", dir, s->file);
		s->text = wsb_read_back(s->path, s->max, &s->len, err, sizeof(err));
		if (s->text == NULL)
		{
			if (errno != ENOENT)
				wsb_note("no %s section: could not read \"%s\": %s", s->what, s->path, err);
		}
		else if (s->print(stdout, s->path, s->text, s->len, vs, err, sizeof(err)) != 0)
		{
			wsb_note("no %s section: %s", s->what, err);
			free(s->text);
			s->text = NULL;
		}
	}
}

static void
free_sections(JudgedSection *sections)
{
	for (int i = 0; i < JUDGED_NSECTIONS; i++)
	{
		free(sections[i].path);
		free(sections[i].text);
	}
}

/* A small report for --judge: the verdicts of a file, no runs behind them,
 * the answer first; then the sections printed on the terminal. */
static int
write_judge_report(const char *dir, const WsbVerdicts *vs, const char *source, const char *answer,
				   const JudgedSection *sections)
{
	char	   *plotdir;
	FILE	   *f;
	char		err[1024];
	int			rc = 0;

	if ((f = wsb_fopenf("w", "%s/report.html", dir)) == NULL)
		return -1;
	plotdir = wsb_psprintf("%s/plots", dir);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		  "<title>wal_stall_bench verdicts</title>\n<style>body{font-family:sans-serif;"
		  "max-width:1100px;margin:1em auto}table{border-collapse:collapse}th,td{border:1px solid #ccc;"
		  "padding:.25em .5em}td.n{text-align:right}.faster{color:#070;font-weight:bold}"
		  ".slower{color:#a00;font-weight:bold}.missing{background:#fde}"
		  ".answer{font-size:1.1em;border-left:4px solid #369;padding:.25em 1em}</style></head><body>\n", f);
	fputs("<h1>wal_stall_bench: verdicts of ", f);
	wsb_html_escape(f, source);
	fputs("</h1>\n", f);
	wsb_answer_html(f, answer);
	fputs("<p>Judged with <code>--judge</code> from the file alone (no server). Baseline: ", f);
	wsb_html_escape(f, vs->table.labels[0]);
	fputs(".</p>\n<h2>Verdict by rounds</h2>\n", f);
	wsb_paired_html(f, &vs->table, &vs->spec, vs->v, vs->table.seed, vs->forest ? plotdir : NULL);
	if (!vs->forest)
	{
		fputs("<p class=\"missing\">Forest plots missing: ", f);
		wsb_html_escape(f, vs->forest_why);
		fputs("</p>\n", f);
	}
	for (int i = 0; i < JUDGED_NSECTIONS; i++)
	{
		const JudgedSection *s = &sections[i];

		if (s->text == NULL)
			continue;
		/* its chart goes beside the forest plots, which may be absent; a
		 * chart that cannot be drawn is named in the section */
		if (mkdir(plotdir, 0755) != 0 && errno != EEXIST)
			wsb_note("could not create directory \"%s\": %s", plotdir, strerror(errno));
		/* the text was printed: it can fail now only out of memory */
		if (s->html(f, plotdir, s->path, s->text, s->len, vs, err, sizeof(err)) != 0)
			wsb_note("no %s section in the report: %s", s->what, err);
	}
	free(plotdir);
	fputs("</body></html>\n", f);
	return wsb_close_written(f, rc);
}

/*
 * --judge DIR|FILE.csv: read, judge, print; with --out also verdicts.csv,
 * the forest plots and report.html there.  The files are read as
 * untrusted input (wsb_read_back): a link, a FIFO or a device at their
 * names fails at once.  The exit status.
 */
int
wsb_judge_only(const WsbOptions *o, bool margin_given)
{
	char	   *path;
	char		err[1024];
	char		why[256];
	struct stat st;
	WsbVerdicts vs;

	char	   *plan = NULL;
	JudgedSection sections[JUDGED_NSECTIONS] = {
		{.what = "wal_buffers", .file = "ring.csv", .max = WSB_RING_CSV_MAX,
		.print = wsb_ring_judge_print, .html = wsb_ring_judge_html},
		{.what = "CLOG", .file = "clog.csv", .max = WSB_CLOG_CSV_MAX,
		.print = wsb_clog_judge_print, .html = wsb_clog_judge_html},
	};
	const char *labels[64];
	int			nlabels = 0;
	int			rc;
	WsbAnswerConditions cond;
	PQExpBufferData conf;
	char		answer[WSB_ANSWER_MAX];
	bool		is_dir = stat(o->judge, &st) == 0 && S_ISDIR(st.st_mode);

	if (is_dir)
	{
		path = wsb_psprintf("%s/plan.txt", o->judge);
		/* none: the order of results.csv */
		plan = wsb_read_back(path, WSB_PLAN_TXT_MAX, NULL, why, sizeof(why));
		if (plan == NULL && errno != ENOENT)
		{
			wsb_error("could not read \"%s\": %s", path, why);
			free(path);
			return WSB_EXIT_FAILURE;
		}
		free(path);
		path = wsb_psprintf("%s/results.csv", o->judge);
	}
	else
		path = wsb_xstrdup(o->judge);
	/* a results directory: its configurations in the plan's order, as the
	 * run showed them, and the conditions of the answer (a CSV alone has
	 * none: the throttle is then unknown, the WAL rate unmeasured) */
	wsb_answer_conditions_init(&cond);
	initPQExpBuffer(&conf);
	for (char *p = plan; p && *p && nlabels < 64;)
	{
		char	   *e = strchr(p, '\n');

		if (e)
			*e = '\0';
		if (strncmp(p, "configuration = ", 16) == 0)
			labels[nlabels++] = p + 16;
		else if (strncmp(p, "slow_wal = ", 11) == 0)
			cond.slow_wal_iops = atoi(p + 11) > 0 ? atoi(p + 11) : 0;
		else if (strncmp(p, "slow_wal_mbps = ", 16) == 0 && atoi(p + 16) > 0)
			cond.slow_wal_mbps = atoi(p + 16);
		else if (strncmp(p, "slow_wal_kbps = ", 16) == 0 && atoi(p + 16) > 0)
			cond.slow_wal_mbps = atoi(p + 16) / 1024.0;
		else if (strncmp(p, "conf = ", 7) == 0)
			appendPQExpBuffer(&conf, "%s\n", p + 7);
		p = e ? e + 1 : NULL;
	}
	wsb_answer_held(wsb_buffer_text(&conf), cond.held, sizeof(cond.held));
	termPQExpBuffer(&conf);
	rc = wsb_verdicts_from_csv_ordered(path, o->baseline, labels, o->baseline[0] ? 0 : nlabels,
									   margin_given ? o->margin_pct : NAN, 0, 0, &vs,
									   err, sizeof(err));
	free(plan);
	if (rc != 0)
	{
		wsb_error("%s", err);
		free(path);
		return WSB_EXIT_FAILURE;
	}
	wsb_print_paired(stdout, &vs.table, &vs.spec, vs.v, vs.table.seed);
	/* a sweep of wal_buffers or the CLOG: its section again, if the run
	 * wrote one */
	if (is_dir)
		print_sections(sections, o->judge, &vs);
	wsb_answer_text(&vs, &cond, answer, sizeof(answer));
	if (answer[0])
		printf("\n%s\n", answer);
	rc = WSB_EXIT_FAILURE;
	if (!o->out[0])
		rc = WSB_EXIT_OK;
	/* made only where no other account can redirect the name */
	else if (wsb_path_is_private(o->out, "--out", err, sizeof(err)) != 0)
		wsb_error("%s", err);
	else if (mkdir(o->out, 0700) != 0 && errno != EEXIST)
		wsb_error("could not create \"%s\": %s", o->out, strerror(errno));
	/* root runs gnuplot there: nobody else may change what it reads */
	else if (wsb_out_dir_secure(o->out, o, err, sizeof(err)) != 0)
		wsb_error("%s", err);
	else if (wsb_verdicts_write(o->out, &vs) != 0 ||
			 write_judge_report(o->out, &vs, path, answer, sections) != 0)
		wsb_error("could not write the verdicts in \"%s\"", o->out);
	else
	{
		if (!vs.forest)
			wsb_note("no forest plots: %s", vs.forest_why);
		printf("verdicts in %s\n", o->out);
		rc = WSB_EXIT_OK;
	}
	wsb_verdicts_free(&vs);
	free_sections(sections);
	free(path);
	return rc;
}

/*
 * How many WAL segments to make before the disk is slowed, so that no run
 * has to create one on it: a new segment is zero-filled (wal_init_zero),
 * 16 MB written at the slowed rate, 4 s at 4 MB/s, in which every commit
 * waits.  A temporary cluster's first runs would pay that and later ones
 * recycle: tps would climb run after run whatever the configuration.  At
 * most what the slowed disk can take in one run (its rate times the
 * warm-up, the run and WSB_WAL_AHEAD_SLACK_S), plus the one in use; 0 when
 * no disk is slowed (creating one at full speed costs little).
 */
int
wsb_wal_segments_ahead(const WsbOptions *o)
{
	double		mb_per_s;
	int			n;

	if (wsb_wal_cap_mbps(o) > 0)
		mb_per_s = wsb_wal_cap_mbps(o);
	else if (o->slow_wal_iops > 0 || o->slow_disk_iops > 0)
		mb_per_s = (o->slow_wal_iops ? o->slow_wal_iops : o->slow_disk_iops) * WSB_WAL_AHEAD_IO_KB / 1024.0;
	else
		return 0;
	n = (int) ceil(mb_per_s * (o->warmup + o->duration + WSB_WAL_AHEAD_SLACK_S) / WSB_WAL_SEGMENT_MB) + 1;
	return n < WSB_WAL_AHEAD_MAX ? n : WSB_WAL_AHEAD_MAX;
}

/*
 * With --budget, after the first round: how long the later rounds' runs
 * should be, when the first round showed them too short for a
 * configuration's stall cycle (needed_s: the length that holds ten of its
 * median episodes, from wsb_short_runs).  A run's tps then depends on how
 * many of those long waits fall inside it, which more rounds of the same
 * short runs average only slowly; longer runs remove it at its source.
 * The new length is what is needed, or the most that still lets the budget
 * left (left_s) hold the two rounds the first look needs, at nconfigs runs
 * a round of length + warm-up + WSB_RUN_OVERHEAD_S each; 0 when that is
 * no longer than the runs already are (the rounds go on as planned).
 */
int
wsb_lengthened_duration(double needed_s, int duration, int warmup, int nconfigs, double left_s)
{
	double		fits = left_s / (2.0 * nconfigs) - warmup - WSB_RUN_OVERHEAD_S;
	int			d = (int) floor(fmin(ceil(needed_s), fits));

	return d > duration ? d : 0;
}
