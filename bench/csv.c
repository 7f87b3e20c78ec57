/*-------------------------------------------------------------------------
 *
 * csv.c
 *		wal_stall_bench: the CSV files written: results.csv, timeline.csv
 *		and advice.csv.
 *
 * results.csv has one row per run, timeline.csv one row per second per
 * run; both are written in run order and quoted per RFC 4180, so any CSV
 * reader takes them.  results.csv is replaced whole after every round
 * (wsb_replace_open), so that a kill never leaves a part of it.  Its round (the run's repeat), position
 * (its place in the round), clients, seed, margin_pct, baseline and budget_looks are what
 * --judge needs to judge the rounds again (round_table.c reads them back).  timeline.csv carries every column of
 * wal_stall_history by name, whatever the extension's version returns.
 * The per-second join of pgbench's seconds with the history rows
 * (figures.c's wsb_join_run) also feeds the timeline chart.  With
 * --validate, results.csv ends with the columns of validate.c's figures
 * (traced figures, the ratio), written here.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "expbuffer.h"
#include "report_internal.h"
#include "validate.h"

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
	fputs(",longest_stall_ms,machine_us", f);
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
		fprintf(f, ",%d,", r->window_seconds);
		csv_number(f, "%.3f", wsb_longest_stall_ms(r));
		fputc(',', f);
		csv_number(f, "%.3f", r->machine_us);
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

/* One run's advice rows, each with how many runs' figures it pools. */
static void
write_advice_rows(FILE *f, const WsbPlan *plan, const WsbRun *r, const WsbRows *advice,
				  int readings)
{
	static const char *const cols[] = {"setting", "current", "suggested", "confidence", "evidence"};

	for (int k = 0; k < advice->nrows; k++)
	{
		wsb_csv_field(f, wsb_config_label(plan, r->config));
		fprintf(f, ",%d,%d,%d", r->repeat, r->order, readings);
		for (int c = 0; c < 5; c++)
		{
			const char *v = wsb_rows_get(advice, k, cols[c]);

			fputc(',', f);
			wsb_csv_field(f, v ? v : "");
		}
		fputc('\n', f);
	}
}

/*
 * wsb_write_advice_csv
 *		advice.csv: wal_stall_advice()'s rows after every successful run,
 *		in run order (runs 1), then for each configuration with two or
 *		more the rows on all their figures pooled (runs N, under its last
 *		run's number): those the report shows.
 */
int
wsb_write_advice_csv(const char *path, const WsbPlan *plan,
					 const WsbRun *runs, int nruns)
{
	const WsbRun **ord;
	FILE	   *f = open_in_run_order(path, runs, nruns, &ord);

	if (f == NULL)
		return -1;
	fputs("configuration,run,order,runs,setting,current,suggested,confidence,evidence\n", f);
	for (int i = 0; i < nruns; i++)
		if (ord[i]->ok)
			write_advice_rows(f, plan, ord[i], &ord[i]->advice, 1);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		const WsbRun *last = NULL;

		for (int i = 0; i < nruns; i++)
			if (ord[i]->ok && ord[i]->config == c)
				last = ord[i];
		if (last && last->advice_readings >= 2)
			write_advice_rows(f, plan, last, &last->advice_pooled, last->advice_readings);
	}
	return close_in_run_order(f, ord, 0);
}
