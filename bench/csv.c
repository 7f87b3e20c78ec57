/*-------------------------------------------------------------------------
 *
 * csv.c
 *		wal_stall_bench: results.csv and timeline.csv, and reading a run's
 *		figures for every output (report_internal.h).
 *
 * results.csv has one row per run, timeline.csv one row per second per
 * run; both are written in run order and quoted per RFC 4180, so any CSV
 * reader takes them.  results.csv's round (the run's repeat), position
 * (its place in the round), clients, seed, margin_pct, baseline and budget_looks are what
 * --judge needs to judge the rounds again (judge.c).  timeline.csv carries every column of
 * wal_stall_history by name, whatever the extension's version returns.
 * The per-second join of pgbench's seconds with the history rows
 * (wsb_join_run) also feeds the timeline chart.  With --validate,
 * results.csv ends with validate.c's columns (traced figures, the ratio).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "validate.h"

const char *const wsb_classes[WSB_N_CLASSES] = {
	"wal_buffer_full", "wal_flush", "wal_insert", "clog",
	"wal_write", "wal_fsync", "slru_io"
};

/* ---------------------------------------------------------------------
 * CSV
 * --------------------------------------------------------------------- */

/*
 * Write one CSV field per RFC 4180: quoted when it holds a comma, a double
 * quote, CR or LF, or starts or ends with a blank (which some readers
 * trim), with quotes doubled inside.  NULL is the empty field.
 */
void
wsb_csv_field(FILE *f, const char *s)
{
	size_t		len;
	bool		quote;

	if (s == NULL)
		return;
	len = strlen(s);
	quote = strpbrk(s, ",\"\r\n") != NULL ||
		(len > 0 && (s[0] == ' ' || s[0] == '\t' ||
					 s[len - 1] == ' ' || s[len - 1] == '\t'));
	if (!quote)
	{
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++)
	{
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A number as a CSV field; NAN (unknown) is the empty field. */
static void
csv_number(FILE *f, const char *fmt, double v)
{
	if (!isnan(v) && !isinf(v))
		fprintf(f, fmt, v);
}

/* A column of the summary row of one class; NAN when absent or NULL. */
double
wsb_summary_value(const WsbRun *run, const char *class, const char *column)
{
	const WsbRows *s = &run->summary;

	for (int r = 0; r < s->nrows; r++)
	{
		const char *cl = wsb_rows_get(s, r, "class");

		if (cl != NULL && strcmp(cl, class) == 0)
			return wsb_rows_double(s, r, column, NAN);
	}
	return NAN;
}

/* A column of the first row of a one-row result; NAN when absent. */
double
wsb_first_row_value(const WsbRows *rows, const char *column)
{
	if (rows->nrows < 1 || wsb_rows_col(rows, column) < 0)
		return NAN;
	return wsb_rows_double(rows, 0, column, NAN);
}

void
wsb_iso8601_utc(time_t t, char *buf, size_t len)
{
	struct tm	tm;

	if (t <= 0 || gmtime_r(&t, &tm) == NULL)
	{
		buf[0] = '\0';
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int
cmp_run_order(const void *a, const void *b)
{
	const WsbRun *x = *(const WsbRun *const *) a;
	const WsbRun *y = *(const WsbRun *const *) b;

	return (x->order > y->order) - (x->order < y->order);
}

/* The runs sorted by their position in the run order (caller frees). */
const WsbRun **
wsb_runs_in_order(const WsbRun *runs, int nruns)
{
	const WsbRun **v = malloc(sizeof(*v) * (nruns > 0 ? nruns : 1));

	if (v == NULL)
		return NULL;
	for (int i = 0; i < nruns; i++)
		v[i] = &runs[i];
	qsort(v, nruns, sizeof(*v), cmp_run_order);
	return v;
}

const char *
wsb_config_label(const WsbPlan *plan, int c)
{
	if (c < 0 || c >= plan->nconfigs)
		return "?";
	return plan->configs[c].label;
}

/*
 * results.csv: a header, then one row per run in run order.  Returns 0, or
 * -1 with errno set when the file cannot be written.
 */
int
wsb_write_results_csv(const char *path, const WsbPlan *plan,
					  const WsbRun *runs, int nruns)
{
	FILE	   *f = fopen(path, "w");
	const WsbRun **ord;
	const WsbConfig *c0 = plan->nconfigs > 0 ? &plan->configs[0] : NULL;
	int			nsettings = c0 ? c0->nsettings : 0;

	if (f == NULL)
		return -1;
	ord = wsb_runs_in_order(runs, nruns);
	if (ord == NULL)
	{
		fclose(f);
		return -1;
	}

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
	fputs(",round,position,clients,seed,margin_pct,baseline,budget_looks", f);
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
		fprintf(f, ",%g,%s,%d", plan->margin_pct, r->config == 0 ? "true" : "false",
				plan->budget_looks);
		if (wsb_validate_any(runs, nruns))
			wsb_validate_csv_row(f, r);
		fputc('\n', f);
	}
	free(ord);
	if (ferror(f))
	{
		fclose(f);
		errno = EIO;
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------------
 * The per-second join of pgbench and wal_stall_history
 * --------------------------------------------------------------------- */

/* days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant) */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	int64_t		era,
				yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * Unix time of a timestamptz as PostgreSQL prints it with DateStyle ISO:
 * "2026-11-30 10:01:02.123456+00", "... +05:30", "...-08", "...T...Z".
 * false when the text is not such a timestamp.
 */
static bool
parse_timestamptz(const char *s, double *out)
{
	char	   *end;
	long		y,
				mo,
				d,
				h,
				mi;
	double		sec,
				off = 0;

	if (s == NULL)
		return false;
	y = strtol(s, &end, 10);
	if (*end != '-')
		return false;
	mo = strtol(end + 1, &end, 10);
	if (*end != '-')
		return false;
	d = strtol(end + 1, &end, 10);
	if (*end != ' ' && *end != 'T')
		return false;
	h = strtol(end + 1, &end, 10);
	if (*end != ':')
		return false;
	mi = strtol(end + 1, &end, 10);
	if (*end != ':')
		return false;
	sec = strtod(end + 1, &end);
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 24 ||
		mi < 0 || mi > 59 || sec < 0 || sec >= 61)
		return false;
	if (*end == '+' || *end == '-')
	{
		int			sign = *end == '-' ? -1 : 1;
		const char *p = end + 1;
		long		oh = 0,
					om = 0,
					os = 0;

		if (p[0] < '0' || p[0] > '9' || p[1] < '0' || p[1] > '9')
			return false;
		oh = (p[0] - '0') * 10 + (p[1] - '0');
		p += 2;
		if (*p == ':')
			p++;
		if (p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9')
		{
			om = (p[0] - '0') * 10 + (p[1] - '0');
			p += 2;
			if (*p == ':')
				p++;
			if (p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9')
				os = (p[0] - '0') * 10 + (p[1] - '0');
		}
		off = sign * (oh * 3600.0 + om * 60.0 + os);
	}
	else if (*end != 'Z' && *end != '\0')
		return false;
	*out = (double) days_from_civil(y, (int) mo, (int) d) * 86400.0 +
		h * 3600.0 + mi * 60.0 + sec - off;
	return true;
}

static int
cmp_join_row(const void *a, const void *b)
{
	const WsbJoinRow *x = a;
	const WsbJoinRow *y = b;

	if (x->epoch != y->epoch)
		return (x->epoch > y->epoch) - (x->epoch < y->epoch);
	return (x->hist > y->hist) - (x->hist < y->hist);
}

/*
 * Join a run's pgbench seconds and history rows by second.  A pgbench
 * second e counts transactions that ended in [e, e + 1); a history row
 * covers the second that ends at its sample_time T, (T - 1, T], which
 * overlaps most with pgbench's second round(T - 1): that is its key.  The
 * collector's ticks jitter, so two rows can round to one second; the later
 * one then takes the next second (the rows are ordered).  Seconds present
 * on only one side are kept.  Returns the number of rows (*out is
 * malloc'd), sorted by second; -1 when out of memory.
 */
int
wsb_join_run(const WsbRun *run, WsbJoinRow **out)
{
	int			cap = run->nseconds + run->history.nrows;
	WsbJoinRow    *rows = malloc(sizeof(WsbJoinRow) * (cap > 0 ? cap : 1));
	int			n = 0;
	int64_t		prev_key = INT64_MIN;
	int			tcol = wsb_rows_col(&run->history, "sample_time");

	*out = rows;
	if (rows == NULL)
		return -1;
	for (int i = 0; i < run->nseconds; i++)
	{
		rows[n].epoch = run->per_second[i].epoch;
		rows[n].pg = i;
		rows[n].hist = -1;
		n++;
	}
	qsort(rows, n, sizeof(WsbJoinRow), cmp_join_row);

	for (int h = 0; tcol >= 0 && h < run->history.nrows; h++)
	{
		double		t;
		int64_t		key;
		int			lo = 0,
					hi = run->nseconds - 1;
		bool		matched = false;

		if (!parse_timestamptz(run->history.cells[h][tcol], &t))
			continue;
		key = (int64_t) llround(t - 1.0);
		if (key <= prev_key)
			key = prev_key + 1;
		prev_key = key;
		/* binary search among the pgbench rows (the first nseconds) */
		while (lo <= hi)
		{
			int			mid = (lo + hi) / 2;

			if (rows[mid].epoch == key)
			{
				if (rows[mid].hist < 0)
				{
					rows[mid].hist = h;
					matched = true;
				}
				break;
			}
			if (rows[mid].epoch < key)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
		if (!matched)
		{
			rows[n].epoch = key;
			rows[n].pg = -1;
			rows[n].hist = h;
			n++;
		}
	}
	qsort(rows, n, sizeof(WsbJoinRow), cmp_join_row);
	return n;
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
	if (ferror(f))
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
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
		int			colmap[1024];

		if (n < 0)
		{
			rc = -1;
			break;
		}
		for (int c = 0; c < nh && c < 1024; c++)
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
			for (int c = 0; c < nh && c < 1024; c++)
			{
				fputc(',', f);
				if (rows[k].hist >= 0 && colmap[c] >= 0)
					wsb_csv_field(f, r->history.cells[rows[k].hist][colmap[c]]);
			}
			fputc('\n', f);
		}
		free(rows);
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
