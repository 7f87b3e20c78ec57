/*-------------------------------------------------------------------------
 *
 * csv.c
 *		wal_stall_bench: the CSV files: results.csv, timeline.csv and
 *		advice.csv written, and a CSV of runs read back as the rounds to
 *		judge.
 *
 * results.csv has one row per run, timeline.csv one row per second per
 * run; both are written in run order and quoted per RFC 4180, so any CSV
 * reader takes them.  results.csv is replaced whole after every round
 * (wsb_replace_open), so that a kill never leaves a part of it.  Its round (the run's repeat), position
 * (its place in the round), clients, seed, margin_pct, baseline and budget_looks are what
 * --judge needs to judge the rounds again (wsb_round_table_read_csv, below).  timeline.csv carries every column of
 * wal_stall_history by name, whatever the extension's version returns.
 * The per-second join of pgbench's seconds with the history rows
 * (figures.c's wsb_join_run) also feeds the timeline chart.  With
 * --validate, results.csv ends with the columns of validate.c's figures
 * (traced figures, the ratio), written here.
 *
 * The rounds are read back from the results.csv the harness just wrote,
 * that of an earlier experiment, or any CSV with at least the columns
 * configuration, round and tps (an old results.csv without round: its run
 * column, which was the repeat, is the round).  Optional columns: ok,
 * position, traced, clients and seconds (together: the clients' time),
 * client_ms, and per stall class CLASS_total_ms and CLASS_episodes.  The
 * baseline: --baseline NAME, else the configuration of the rows whose
 * baseline column is true (results.csv has one), else the first
 * configuration in the file.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "expbuffer.h"
#include "report_internal.h"
#include "validate.h"
#include "verdict.h"

/* A number as a CSV field; NAN (unknown) is the empty field. */
static void
csv_number(FILE *f, const char *fmt, double v)
{
	if (!isnan(v) && !isinf(v))
		fprintf(f, fmt, v);
}

/* A comma, then a number as a CSV field (empty when unknown). */
static void
csv_next_number(FILE *f, const char *fmt, double v)
{
	fputc(',', f);
	csv_number(f, fmt, v);
}

/* --validate's columns of results.csv, after the others */
void
wsb_validate_csv_header(FILE *f)
{
	fputs(",traced,traced_client_pids,traced_lock_wait_ms,traced_flush_ms,"
		  "traced_dirty_write_ms,traced_wal_path_ms,sampled_wal_path_ms,sampled_traced_ratio,"
		  "traced_dirty_writes,traced_client_dirty_writes,wal_buffer_full_exact_count,"
		  "traced_other_wal_path_ms,"
		  "traced_unclassified_ms,traced_wal_write_ms,traced_wal_writes,"
		  "traced_wal_fsync_ms,traced_wal_fsyncs,"
		  "traced_insert_side_ms,traced_insert_waits,traced_flush_side_ms,traced_flush_waits,"
		  "summary_insert_side_ms,summary_flush_side_ms,history_insert_side_ms,history_flush_side_ms,"
		  "summary_insert_ratio,summary_flush_ratio,history_insert_ratio,history_flush_ratio,"
		  "validate_error", f);
}

/* The run's validation columns; empty cells when the run was not traced. */
void
wsb_validate_csv_row(FILE *f, const WsbRun *r)
{
	const WsbValidation *v = &r->validation;
	bool		have = v->traced && v->ok;
	bool		io = have && v->io_traced;

	fprintf(f, ",%s", v->traced ? "true" : "false");
	csv_next_number(f, "%.0f", have ? v->client_pids : NAN);
	csv_next_number(f, "%.3f", have ? v->client_lock_wait_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->client_flush_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->client_dirty_write_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->client_traced_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->client_sampled_ms : NAN);
	csv_next_number(f, "%.4f", have ? v->ratio : NAN);
	csv_next_number(f, "%.0f", have ? (double) v->dirty_writes : NAN);
	csv_next_number(f, "%.0f", have ? (double) v->client_dirty_writes : NAN);
	/* beside the traced writes: core's count as wal_stall reports it */
	csv_next_number(f, "%.0f", have && v->exact_count >= 0 ? (double) v->exact_count : NAN);
	csv_next_number(f, "%.3f", have ? v->other_wal_path_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->unclassified_ms : NAN);
	csv_next_number(f, "%.3f", io ? v->wal_write_ms : NAN);
	csv_next_number(f, "%.0f", io ? (double) v->wal_writes : NAN);
	csv_next_number(f, "%.3f", io ? v->wal_fsync_ms : NAN);
	csv_next_number(f, "%.0f", io ? (double) v->wal_fsyncs : NAN);
	csv_next_number(f, "%.3f", have ? v->client_insert_side_ms : NAN);
	csv_next_number(f, "%.0f", have ? (double) v->client_insert_waits : NAN);
	csv_next_number(f, "%.3f", have ? v->client_flush_side_ms : NAN);
	csv_next_number(f, "%.0f", have ? (double) v->client_flush_waits : NAN);
	csv_next_number(f, "%.3f", have ? v->summary_insert_side_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->summary_flush_side_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->history_insert_side_ms : NAN);
	csv_next_number(f, "%.3f", have ? v->history_flush_side_ms : NAN);
	csv_next_number(f, "%.4f", have ? wsb_validate_side_ratio(v->summary_insert_side_ms, v->client_insert_side_ms) : NAN);
	csv_next_number(f, "%.4f", have ? wsb_validate_side_ratio(v->summary_flush_side_ms, v->client_flush_side_ms) : NAN);
	csv_next_number(f, "%.4f", have ? wsb_validate_side_ratio(v->history_insert_side_ms, v->client_insert_side_ms) : NAN);
	csv_next_number(f, "%.4f", have ? wsb_validate_side_ratio(v->history_flush_side_ms, v->client_flush_side_ms) : NAN);
	fputc(',', f);
	wsb_csv_field(f, v->error);
}

/* The process's umask (the harness keeps 077, or 027 with --group). */
static mode_t
current_umask(void)
{
	mode_t		mask = umask(0);

	umask(mask);
	return mask;
}

/*
 * wsb_replace_open / wsb_replace_close
 *		A file replaced whole: written to a new temporary file beside it
 *		(the same directory: the rename stays on one file system), flushed
 *		to disk, then renamed over it, and the directory flushed.  A kill
 *		at any moment leaves the old file or the new one, never a part of
 *		one: results.csv holds every finished round --resume needs.
 */
FILE *
wsb_replace_open(WsbReplace *w, const char *path)
{
	int			fd;

	w->f = NULL;
	if (snprintf(w->path, sizeof(w->path), "%s", path) >= (int) sizeof(w->path) ||
		snprintf(w->tmp, sizeof(w->tmp), "%s.tmp.XXXXXX", path) >= (int) sizeof(w->tmp))
	{
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkstemp(w->tmp);		/* O_EXCL, mode 0600 */
	if (fd < 0)
		return NULL;
	(void) fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* mkstemp ignores the umask: the file gets the mode any other would */
	if (fchmod(fd, 0666 & ~current_umask()) != 0)
	{
		close(fd);
		unlink(w->tmp);
		return NULL;
	}
	w->f = fdopen(fd, "w");
	if (w->f == NULL)
	{
		close(fd);
		unlink(w->tmp);
	}
	return w->f;
}

/* rc 0: put the new file in place (0, or -1 with errno); else drop it (rc) */
int
wsb_replace_close(WsbReplace *w, int rc)
{
	char		dir[1200];
	int			dfd;
	char	   *slash;

	if (rc == 0 && (fflush(w->f) != 0 || ferror(w->f) || fsync(fileno(w->f)) != 0))
		rc = -1;
	if (fclose(w->f) != 0)
		rc = -1;
	w->f = NULL;
	if (rc == 0 && rename(w->tmp, w->path) != 0)
		rc = -1;
	if (rc != 0)
	{
		int			saved = errno;

		unlink(w->tmp);
		errno = saved;
		return rc;
	}
	/* the rename itself reaches the disk with the directory */
	wsb_strlcpy(dir, w->path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
	{
		/* some file systems cannot fsync a directory (PostgreSQL's
		 * fsync_fname lets these two pass too) */
		if (fsync(dfd) != 0 && errno != EINVAL && errno != EBADF)
			rc = -1;
		close(dfd);
	}
	return rc;
}

/*
 * results.csv's text: a header, then one row per run in run order.  0, or
 * -1 when out of memory.
 */
int
wsb_results_csv_text(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	const WsbRun **ord;
	const WsbConfig *c0 = plan->nconfigs > 0 ? &plan->configs[0] : NULL;
	int			nsettings = c0 ? c0->nsettings : 0;

	ord = wsb_runs_in_order(runs, nruns);
	if (ord == NULL)
		return -1;

	fputs("configuration", f);
	for (int s = 0; s < nsettings; s++)
	{
		fputc(',', f);
		wsb_csv_field(f, c0->names[s]);
	}
	fputs(",run,order,started_at,seconds,tps,latency_avg_ms,latency_p99_ms,transactions", f);
	for (int k = 0; k < WSB_N_CLASSES; k++)
		fprintf(f, ",%s_total_ms,%s_episodes", wsb_classes[k], wsb_classes[k]);
	fputs(",wal_buffers_full,wal_fsync_p99_ms,clog_hit_ratio,collector_cpu_share_pct,ok,error", f);
	fputs(",round,position,clients,seed,margin_pct,baseline,budget_looks,tps_window,window_seconds", f);
	if (wsb_validate_any(runs, nruns))
		wsb_validate_csv_header(f);
	fputc('\n', f);

	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = ord[i];
		const WsbConfig *cf = (r->config >= 0 && r->config < plan->nconfigs)
			? &plan->configs[r->config] : NULL;
		char		ts[64];

		wsb_csv_field(f, wsb_config_label(plan, r->config));
		for (int s = 0; s < nsettings; s++)
		{
			fputc(',', f);
			/* configurations share the --set list; match by name anyway */
			if (cf != NULL)
				for (int t = 0; t < cf->nsettings; t++)
					if (strcmp(cf->names[t], c0->names[s]) == 0)
					{
						wsb_csv_field(f, cf->values[t]);
						break;
					}
		}
		wsb_iso8601_utc(r->started_at, ts, sizeof(ts));
		fprintf(f, ",%d,%d,%s,", r->repeat, r->order, ts);
		csv_number(f, "%.3f", r->seconds);
		fputc(',', f);
		csv_number(f, "%.3f", r->tps);
		fputc(',', f);
		csv_number(f, "%.3f", r->latency_avg_ms);
		fputc(',', f);
		csv_number(f, "%.3f", r->latency_p99_ms);
		fprintf(f, ",%lld", (long long) r->transactions);
		for (int k = 0; k < WSB_N_CLASSES; k++)
		{
			fputc(',', f);
			csv_number(f, "%.3f", wsb_summary_value(r, wsb_classes[k], "total_ms"));
			fputc(',', f);
			csv_number(f, "%.0f", wsb_summary_value(r, wsb_classes[k], "episodes"));
		}
		fputc(',', f);
		csv_number(f, "%.0f", wsb_first_row_value(&r->wal, "wal_buffers_full"));
		fputc(',', f);
		csv_number(f, "%.3f", wsb_summary_value(r, "wal_fsync", "p99_ms"));
		fputc(',', f);
		csv_number(f, "%.6f", wsb_first_row_value(&r->clog, "hit_ratio"));
		fputc(',', f);
		csv_number(f, "%.3f", r->collector_cpu_share >= 0 ? r->collector_cpu_share : NAN);
		fprintf(f, ",%s,", r->ok ? "true" : "false");
		wsb_csv_field(f, r->error);
		fprintf(f, ",%d,%d,%d,", r->repeat, r->position, plan->clients);
		if (plan->seed >= 0)
			fprintf(f, "%lld", plan->seed);
		fprintf(f, ",%g,%s,%d,", plan->margin_pct, r->config == 0 ? "true" : "false",
				plan->budget_looks);
		csv_number(f, "%.3f", r->tps_window);
		fprintf(f, ",%d", r->window_seconds);
		if (wsb_validate_any(runs, nruns))
			wsb_validate_csv_row(f, r);
		fputc('\n', f);
	}
	free(ord);
	return 0;
}

/*
 * results.csv, replaced whole (wsb_replace_open).  Returns 0, or -1 with
 * errno set when the file cannot be written.
 */
int
wsb_write_results_csv(const char *path, const WsbPlan *plan,
					  const WsbRun *runs, int nruns)
{
	WsbReplace	w;
	FILE	   *f = wsb_replace_open(&w, path);

	if (f == NULL)
		return -1;
	return wsb_replace_close(&w, wsb_results_csv_text(f, plan, runs, nruns));
}

/* The history columns of the first run that has any (NULL if none). */
static const WsbRows *
history_layout(const WsbRun *runs, int nruns)
{
	for (int i = 0; i < nruns; i++)
		if (runs[i].history.ncols > 0)
			return &runs[i].history;
	return NULL;
}

/*
 * A CSV file written run by run in run order: the file opened for writing
 * and the runs sorted, or NULL (nothing to free) when either fails.
 */
static FILE *
open_in_run_order(const char *path, const WsbRun *runs, int nruns, const WsbRun ***ord)
{
	FILE	   *f = fopen(path, "w");

	*ord = NULL;				/* set on every path: callers free it */
	if (f == NULL)
		return NULL;
	*ord = wsb_runs_in_order(runs, nruns);
	if (*ord == NULL)
	{
		fclose(f);
		return NULL;
	}
	return f;
}

/* Close what open_in_run_order() opened: rc, or -1 if writing failed. */
static int
close_in_run_order(FILE *f, const WsbRun **ord, int rc)
{
	free(ord);
	return wsb_close_written(f, rc);
}

/*
 * timeline.csv: one row per second per run, in run order: configuration,
 * run, order, second (1 = the run's first second on either side), epoch,
 * tps, latency_avg_ms, latency_max_ms, then every column of
 * wal_stall_history, named and ordered as in the first run with history.
 */
int
wsb_write_timeline_csv(const char *path, const WsbPlan *plan,
					   const WsbRun *runs, int nruns)
{
	const WsbRun **ord;
	FILE	   *f = open_in_run_order(path, runs, nruns, &ord);
	const WsbRows *layout = history_layout(runs, nruns);
	int			nh = layout ? layout->ncols : 0;
	int			rc = 0;

	if (f == NULL)
		return -1;
	fputs("configuration,run,order,second,epoch,tps,latency_avg_ms,latency_max_ms", f);
	for (int c = 0; c < nh; c++)
	{
		fputc(',', f);
		wsb_csv_field(f, layout->names[c]);
	}
	fputc('\n', f);

	for (int i = 0; i < nruns && rc == 0; i++)
	{
		const WsbRun *r = ord[i];
		WsbJoinRow    *rows;
		int			n = wsb_join_run(r, &rows);
		/* as many as the header has: a history of any width is written whole */
		int		   *colmap = malloc(sizeof(int) * (nh > 0 ? nh : 1));

		if (n < 0 || colmap == NULL)
		{
			if (n >= 0)
				free(rows);
			free(colmap);
			rc = -1;
			break;
		}
		for (int c = 0; c < nh; c++)
			colmap[c] = wsb_rows_col(&r->history, layout->names[c]);
		for (int k = 0; k < n; k++)
		{
			wsb_csv_field(f, wsb_config_label(plan, r->config));
			fprintf(f, ",%d,%d,%lld,%lld,", r->repeat, r->order,
					(long long) (rows[k].epoch - rows[0].epoch + 1),
					(long long) rows[k].epoch);
			if (rows[k].pg >= 0)
			{
				const WsbPgbenchSecond *s = &r->per_second[rows[k].pg];

				fprintf(f, "%lld,", (long long) s->transactions);
				csv_number(f, "%.3f", s->latency_avg_ms);
				fputc(',', f);
				csv_number(f, "%.3f", s->latency_max_ms);
			}
			else
				fputs(",,", f);
			for (int c = 0; c < nh; c++)
			{
				fputc(',', f);
				if (rows[k].hist >= 0 && colmap[c] >= 0)
					wsb_csv_field(f, r->history.cells[rows[k].hist][colmap[c]]);
			}
			fputc('\n', f);
		}
		free(rows);
		free(colmap);
	}
	return close_in_run_order(f, ord, rc);
}

/*
 * wsb_write_advice_csv
 *		advice.csv: wal_stall_advice()'s rows after every successful run,
 *		in run order, one line per row (the report shows those of each
 *		configuration's last run).
 */
int
wsb_write_advice_csv(const char *path, const WsbPlan *plan,
					 const WsbRun *runs, int nruns)
{
	static const char *const cols[] = {"setting", "current", "suggested", "confidence", "evidence"};
	const WsbRun **ord;
	FILE	   *f = open_in_run_order(path, runs, nruns, &ord);

	if (f == NULL)
		return -1;
	fputs("configuration,run,order,setting,current,suggested,confidence,evidence\n", f);
	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = ord[i];

		if (!r->ok)
			continue;
		for (int k = 0; k < r->advice.nrows; k++)
		{
			wsb_csv_field(f, wsb_config_label(plan, r->config));
			fprintf(f, ",%d,%d", r->repeat, r->order);
			for (int c = 0; c < 5; c++)
			{
				const char *v = wsb_rows_get(&r->advice, k, cols[c]);

				fputc(',', f);
				wsb_csv_field(f, v ? v : "");
			}
			fputc('\n', f);
		}
	}
	return close_in_run_order(f, ord, 0);
}

/* ---------------------------------------------------------------------
 * Reading a CSV of runs back: the round table
 * --------------------------------------------------------------------- */

static bool
parse_bool(const char *s, bool if_empty)
{
	if (s == NULL || *s == '\0')
		return if_empty;
	return strcasecmp(s, "true") == 0 || strcasecmp(s, "t") == 0 ||
		strcmp(s, "1") == 0 || strcasecmp(s, "yes") == 0 || strcasecmp(s, "ok") == 0;
}

/*
 * The index of configuration label in t, added when new and add: -1 when
 * it is not there and cannot be added (64 already), -2 when it is too
 * long to keep whole (it is never cut: two labels alike in their first
 * 1023 bytes would be taken for one).
 */
static int
label_index(WsbRoundTable *t, const char *label, bool add)
{
	for (int c = 0; c < t->nconfigs; c++)
		if (strcmp(t->labels[c], label) == 0)
			return c;
	if (strlen(label) >= sizeof(t->labels[0]))
		return -2;
	if (!add || t->nconfigs >= 64)
		return -1;
	wsb_strlcpy(t->labels[t->nconfigs], label, sizeof(t->labels[0]));
	return t->nconfigs++;
}

/* The message for a label label_index() refused as too long. */
static void
label_too_long(const char *path, const char *label, char *err, size_t errlen)
{
	snprintf(err, errlen, "\"%s\": configuration label too long: \"%.60s...\" (%zu bytes, at most %zu)",
			 path, label, strlen(label), sizeof(((WsbRoundTable *) NULL)->labels[0]) - 1);
}

void
wsb_round_table_free(WsbRoundTable *t)
{
	free(t->runs);
	t->runs = NULL;
	t->nruns = 0;
}

/* The columns read_csv takes, by index in the header (-1: absent). */
typedef struct CsvColumns
{
	int			configuration,
				round,
				tps,
				ok,
				position,
				traced,
				clients,
				seconds,
				client_ms,
				seed,
				margin_pct,
				budget_looks,
				baseline,
				tps_window;
	int			stall_ms[WSB_N_STALL];
	int			episodes[WSB_N_STALL];
	char		stall_ms_name[WSB_N_STALL][64];	/* "wal_flush_total_ms" */
	char		episodes_name[WSB_N_STALL][64];	/* "wal_flush_episodes" */
} CsvColumns;

static int
header_col(const WsbCsvReader *r, const char *name)
{
	for (int i = 0; i < r->ncells; i++)
		if (strcmp(wsb_csv_cell(r, i), name) == 0)
			return i;
	return -1;
}

static void
find_columns(const WsbCsvReader *r, CsvColumns *c)
{
	c->configuration = header_col(r, "configuration");
	/* results.csv before rounds: run was the repeat */
	c->round = header_col(r, "round") >= 0 ? header_col(r, "round") : header_col(r, "run");
	c->tps = header_col(r, "tps");
	c->ok = header_col(r, "ok");
	c->position = header_col(r, "position");
	c->traced = header_col(r, "traced");
	c->clients = header_col(r, "clients");
	c->seconds = header_col(r, "seconds");
	c->client_ms = header_col(r, "client_ms");
	c->seed = header_col(r, "seed");
	c->margin_pct = header_col(r, "margin_pct");
	c->budget_looks = header_col(r, "budget_looks");
	c->baseline = header_col(r, "baseline");
	c->tps_window = header_col(r, "tps_window");
	for (int k = 0; k < WSB_N_STALL; k++)
	{
		snprintf(c->stall_ms_name[k], sizeof(c->stall_ms_name[k]), "%s_total_ms", wsb_stall_classes[k]);
		c->stall_ms[k] = header_col(r, c->stall_ms_name[k]);
		snprintf(c->episodes_name[k], sizeof(c->episodes_name[k]), "%s_episodes", wsb_stall_classes[k]);
		c->episodes[k] = header_col(r, c->episodes_name[k]);
	}
}

/*
 * The tps the verdict pairs: a results.csv's tps_window (over each run's
 * steady seconds, pgbench.c's wsb_window_tps) when every successful run
 * has one, else every run's tps (pgbench's end-inclusive total, or a plain
 * CSV's): one kind for all runs, never a mix.
 */
static void
use_window_tps(WsbRoundTable *t)
{
	bool		all = t->nruns > 0;

	for (int i = 0; i < t->nruns; i++)
		if (t->runs[i].ok && !(t->runs[i].tps_window > 0))
			all = false;
	if (!all)
		return;
	for (int i = 0; i < t->nruns; i++)
		if (t->runs[i].ok)
			t->runs[i].tps = t->runs[i].tps_window;
	wsb_strlcpy(t->tps_column, "tps_window", sizeof(t->tps_column));
}

/*
 * A number cell of the current row: NAN when the cell is empty or absent
 * (unknown), else a finite number from min to max (whole when asked), or
 * false with err naming the line and the column.
 */
static bool
cell_number(const WsbCsvReader *r, const char *path, int col, const char *name,
			double min, double max, bool whole, double *out, char *err, size_t errlen)
{
	const char *s = wsb_csv_cell(r, col);
	char	   *end;
	double		v;

	*out = NAN;
	if (s == NULL || *s == '\0')
		return true;
	errno = 0;
	/* plain digits, as round and tps mostly are: read without strtod */
	if (strspn(s, "0123456789") == strlen(s) && strlen(s) <= 15)
	{
		v = 0;
		for (const char *q = s; *q; q++)
			v = v * 10 + (*q - '0');
		end = (char *) s + strlen(s);
	}
	else
		v = strtod(s, &end);
	while (isspace((unsigned char) *end))
		end++;
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || v < min || v > max ||
		(whole && v != floor(v)))
	{
		snprintf(err, errlen, "\"%s\" line %d: %s: \"%.60s\" is not %s from %.15g to %.15g",
				 path, r->line, name, s, whole ? "a whole number" : "a number", min, max);
		return false;
	}
	*out = v;
	return true;
}

/* an experiment-wide cell (seed, margin_pct, budget_looks) through the
 * options' own check; empty cells are skipped */
static bool
experiment_cell(const WsbCsvReader *r, const char *path, int col, const char *name,
				WsbRoundTable *t, char *err, size_t errlen)
{
	const char *s = wsb_csv_cell(r, col);
	char		what[1200];

	if (s == NULL || *s == '\0')
		return true;
	snprintf(what, sizeof(what), "\"%s\" line %d: %s", path, r->line, name);
	if (strcmp(name, "seed") == 0)
	{
		long long	seed;

		if (wsb_check_seed(what, s, &seed, err, errlen) != 0)
			return false;
		if (t->seed < 0)
			t->seed = seed;
	}
	else if (strcmp(name, "margin_pct") == 0)
	{
		double		margin;

		if (wsb_check_margin(what, s, &margin, err, errlen) != 0)
			return false;
		if (isnan(t->margin_pct))
			t->margin_pct = margin;
	}
	else if (strcmp(s, "0") != 0)	/* results.csv's 0: no --budget */
	{
		int			looks;

		if (wsb_check_looks(what, s, &looks, err, errlen) != 0)
			return false;
		if (t->budget_looks == 0)
			t->budget_looks = looks;
	}
	return true;
}

/* the largest round number a file may hold (kept as an int) */
#define CSV_MAX_ROUND 1000000000

/*
 * One run of the current row into x; its configuration's index in the
 * file's order of labels (t->labels as read so far).  false with err.
 */
static bool
read_run(const WsbCsvReader *r, const char *path, const CsvColumns *c, WsbRoundTable *t,
		 WsbRoundRun *x, char *err, size_t errlen)
{
	const char *label = wsb_csv_cell(r, c->configuration);
	double		round,
				pos,
				clients,
				seconds,
				v;

	if (label == NULL || *label == '\0' ||
		!cell_number(r, path, c->round, "round", 1, CSV_MAX_ROUND, true, &round, err, errlen) ||
		isnan(round))
	{
		snprintf(err, errlen, "\"%s\" line %d: a configuration and a whole round number from 1 to %d are needed",
				 path, r->line, CSV_MAX_ROUND);
		return false;
	}
	x->config = label_index(t, label, true);
	if (x->config == -2)
	{
		label_too_long(path, label, err, errlen);
		return false;
	}
	if (x->config < 0)
	{
		snprintf(err, errlen, "\"%s\" line %d: more than 64 configurations", path, r->line);
		return false;
	}
	x->round = (int) round;
	if (!cell_number(r, path, c->position, "position", 0, 64, true, &pos, err, errlen) ||
		!cell_number(r, path, c->tps, "tps", 0, 1e12, false, &x->tps, err, errlen) ||
		!cell_number(r, path, c->tps_window, "tps_window", 0, 1e12, false, &x->tps_window, err, errlen) ||
		!cell_number(r, path, c->clients, "clients", 1, WSB_MAX_CLIENTS, true, &clients, err, errlen) ||
		!cell_number(r, path, c->seconds, "seconds", 0, 1e9, false, &seconds, err, errlen) ||
		!cell_number(r, path, c->client_ms, "client_ms", 0, 1e18, false, &x->client_ms, err, errlen))
		return false;
	x->position = isnan(pos) ? 0 : (int) pos;
	x->ok = parse_bool(wsb_csv_cell(r, c->ok), true) && x->tps > 0;
	x->traced = parse_bool(wsb_csv_cell(r, c->traced), false);
	if (isnan(x->client_ms) && clients > 0 && seconds > 0)
		x->client_ms = clients * seconds * 1000;
	for (int k = 0; k < WSB_N_STALL; k++)
	{
		if (!cell_number(r, path, c->stall_ms[k], c->stall_ms_name[k], 0, 1e18, false,
						 &x->stall_ms[k], err, errlen) ||
			!cell_number(r, path, c->episodes[k], c->episodes_name[k], 0, 1e18, true, &v, err, errlen))
			return false;
		x->episodes[k] = v;
	}
	return experiment_cell(r, path, c->seed, "seed", t, err, errlen) &&
		experiment_cell(r, path, c->margin_pct, "margin_pct", t, err, errlen) &&
		experiment_cell(r, path, c->budget_looks, "budget_looks", t, err, errlen);
}

/* A run's place for the check of two rows of one configuration in a round. */
typedef struct RowKey
{
	int			round;
	int			config;
	int			line;
} RowKey;

static int
cmp_row_key(const void *a, const void *b)
{
	const RowKey *x = a;
	const RowKey *y = b;

	if (x->round != y->round)
		return (x->round > y->round) - (x->round < y->round);
	if (x->config != y->config)
		return (x->config > y->config) - (x->config < y->config);
	return (x->line > y->line) - (x->line < y->line);
}

/* Refuse a configuration with two rows in one round (sorted: n log n). */
static bool
check_one_row_per_round(const char *path, const WsbRoundTable *t, const int *lines,
						char *err, size_t errlen)
{
	RowKey	   *keys = malloc(sizeof(RowKey) * (t->nruns > 0 ? t->nruns : 1));
	RowKey		last[64];		/* per configuration, its latest row */

	if (keys == NULL)
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		return false;
	}
	for (int i = 0; i < t->nruns; i++)
	{
		keys[i].round = t->runs[i].round;
		keys[i].config = t->runs[i].config;
		keys[i].line = lines[i];
	}
	/* rows in round order (results.csv's) need no sort: a round's rows
	 * need only be together, each configuration's last one remembered */
	for (int i = 1; i < t->nruns; i++)
		if (keys[i].round < keys[i - 1].round)
		{
			qsort(keys, t->nruns, sizeof(RowKey), cmp_row_key);
			break;
		}
	for (int c = 0; c < 64; c++)
		last[c].round = 0;
	for (int i = 0; i < t->nruns; i++)
	{
		RowKey	   *seen = &last[keys[i].config];

		if (seen->round == keys[i].round)
		{
			snprintf(err, errlen, "\"%s\" line %d: configuration \"%s\" has two rows in round %d "
					 "(the first on line %d)", path, keys[i].line, t->labels[keys[i].config],
					 keys[i].round, seen->line);
			free(keys);
			return false;
		}
		*seen = keys[i];
	}
	free(keys);
	return true;
}

/*
 * The configurations in the order to show them: the baseline first (named,
 * else the one results.csv's baseline column names, else the first in the
 * file), then the plan's labels, then the others in the order of the file.
 * t->labels holds them in the file's order; the runs' configurations are
 * renumbered.  false with err.
 */
static bool
order_labels(const char *path, WsbRoundTable *t, const char *first,
			 const char *const *labels, int nlabels, char *err, size_t errlen)
{
	static WsbRoundTable ordered;	/* its labels alone: 64 kB, off the stack */
	int			map[64];

	ordered.nconfigs = 0;
	if (first && *first && label_index(&ordered, first, true) == -2)
	{
		label_too_long(path, first, err, errlen);
		return false;
	}
	for (int c = 0; c < nlabels; c++)
		if (label_index(&ordered, labels[c], true) == -2)
		{
			label_too_long(path, labels[c], err, errlen);
			return false;
		}
	for (int c = 0; c < t->nconfigs; c++)
	{
		map[c] = label_index(&ordered, t->labels[c], true);
		if (map[c] < 0)
		{
			snprintf(err, errlen, "\"%s\": more than 64 configurations", path);
			return false;
		}
	}
	for (int i = 0; i < t->nruns; i++)
		t->runs[i].config = map[t->runs[i].config];
	for (int c = 0; c < ordered.nconfigs; c++)
		memcpy(t->labels[c], ordered.labels[c], sizeof(t->labels[0]));
	t->nconfigs = ordered.nconfigs;
	return true;
}

/* Room for ncap runs and their line numbers; false when out of memory. */
static bool
grow_runs(WsbRoundTable *t, int **lines, int *cap, int ncap)
{
	WsbRoundRun *runs = realloc(t->runs, sizeof(WsbRoundRun) * ncap);
	int		   *nlines;

	if (runs == NULL)
		return false;
	t->runs = runs;
	nlines = realloc(*lines, sizeof(int) * ncap);
	if (nlines == NULL)
		return false;
	*lines = nlines;
	*cap = ncap;
	return true;
}

/*
 * Read a CSV of runs into t (see "Reading" above).  baseline: a label, or
 * NULL/"" for the first configuration in the file.  labels: the
 * configurations in the order to show them ([0] the baseline), NULL for
 * the order of the file.  0, or -1 with err.
 */
int
wsb_round_table_read_csv(const char *path, const char *baseline, const char *const *labels,
						 int nlabels, WsbRoundTable *t, char *err, size_t errlen)
{
	size_t		len;
	char	   *text = wsb_read_file(path, &len);
	WsbCsvReader	r;
	CsvColumns	cols;
	char		msg[512];
	char		first[1024] = "";
	int		   *lines = NULL;
	int			cap = 0,
				rc;

	memset(t, 0, sizeof(*t));
	t->seed = -1;
	t->margin_pct = NAN;
	if (text == NULL)
	{
		snprintf(err, errlen, "could not read \"%s\": %s", path, strerror(errno));
		return -1;
	}
	if (!wsb_csv_reader_init(&r, text, len))
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		free(text);
		return -1;
	}
	rc = wsb_csv_next_row(&r, msg, sizeof(msg));
	if (rc < 0)
		goto parse_error;
	find_columns(&r, &cols);
	/* a row per line at most: room for them all at once, not by doubling */
	for (const char *q = text; (q = memchr(q, '\n', text + len - q)) != NULL; q++)
		cap++;
	if (!grow_runs(t, &lines, &cap, cap + 1))
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		goto fail;
	}
	if (rc == 0 || cols.configuration < 0 || cols.round < 0 || cols.tps < 0)
	{
		snprintf(err, errlen, "\"%s\" needs the columns configuration, round and tps", path);
		goto fail;
	}
	while ((rc = wsb_csv_next_row(&r, msg, sizeof(msg))) > 0)
	{
		if (t->nruns == cap && !grow_runs(t, &lines, &cap, cap * 2))
		{
			snprintf(err, errlen, "\"%s\" line %d: out of memory", path, r.line);
			goto fail;
		}
		memset(&t->runs[t->nruns], 0, sizeof(WsbRoundRun));
		if (!read_run(&r, path, &cols, t, &t->runs[t->nruns], err, errlen))
			goto fail;
		/* results.csv says which configuration was the baseline: its runs
		 * run in shuffled order, so the first row need not be one of them */
		if (first[0] == '\0' && parse_bool(wsb_csv_cell(&r, cols.baseline), false))
			wsb_strlcpy(first, t->labels[t->runs[t->nruns].config], sizeof(first));
		lines[t->nruns++] = r.line;
	}
	if (rc < 0)
		goto parse_error;
	use_window_tps(t);
	if (!check_one_row_per_round(path, t, lines, err, errlen) ||
		!order_labels(path, t, baseline && *baseline ? baseline : first, labels, nlabels,
					  err, errlen))
		goto fail;
	if (baseline && *baseline)
	{
		bool		seen = false;

		for (int i = 0; i < t->nruns; i++)
			seen |= t->runs[i].config == 0;
		if (!seen)
		{
			snprintf(err, errlen, "--baseline \"%s\" is not a configuration of \"%s\"", baseline, path);
			goto fail;
		}
	}
	if (t->nconfigs < 2)
	{
		snprintf(err, errlen, "\"%s\" has %d configuration%s: nothing to compare", path,
				 t->nconfigs, t->nconfigs == 1 ? "" : "s");
		goto fail;
	}
	wsb_csv_reader_free(&r);
	free(text);
	free(lines);
	return 0;
parse_error:
	snprintf(err, errlen, "\"%s\" %s", path, msg);
fail:
	wsb_csv_reader_free(&r);
	free(text);
	free(lines);
	wsb_round_table_free(t);
	return -1;
}

/* "round 2 (a failed run), round 5 (...)": the rounds left out. */
void
wsb_left_out_rounds(const WsbRoundTable *t, PQExpBuffer buf)
{
	WsbRoundState *states;
	int			n = wsb_round_states(t->runs, t->nruns, t->nconfigs, &states);
	bool		first = true;

	if (n < 0)
	{
		appendPQExpBufferStr(buf, "(out of memory: the rounds left out are not known)");
		return;
	}
	for (int k = 0; k < n; k++)
	{
		if (states[k].complete)
			continue;
		appendPQExpBuffer(buf, "%sround %d (%s)", first ? "" : ", ",
						  states[k].round, states[k].failed ? "a failed run" : "not every configuration ran");
		first = false;
	}
	free(states);
}
