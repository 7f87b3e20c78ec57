/*-------------------------------------------------------------------------
 *
 * test_unit.c
 *		wal_stall_bench: unit tests of the pure parts, TAP output.
 *
 * Prints "ok N - what" / "not ok N - what" per check and ends with
 * "N passed, N failed"; exits 1 when any check failed.  This file holds
 * the runner and the tests of stats.c, csv.c, report.c and terminal.c;
 * test_options() and test_pgbench() live in test_unit_engine.c.
 *
 * Expected figures are computed independently of the code under test:
 * published t tables, hand-worked examples (shown in comments), and for
 * the non-integer df a separate program that integrates the t density
 * numerically (see test_stats).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "expbuffer.h"
#include "wsb.h"
/* this file holds main(): check() and tap_finish() are defined here */
#define TAP_MAIN
#include "experiment.h"
#include "clog_report.h"
#include "ring_report.h"
#include "report_internal.h"
#include "test_unit.h"

static bool
near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---------- crafted data ---------- */

/* A WsbRows with malloc'd cells, freed by wsb_rows_free.  cells is row
 * major, NULL for a NULL cell.  (Shared through test_unit.h.) */
WsbRows
make_rows(int ncols, const char *const *names, int nrows, const char *const *cells)
{
	WsbRows		r;

	r.ncols = ncols;
	r.nrows = nrows;
	r.names = calloc(ncols, sizeof(char *));
	for (int c = 0; c < ncols; c++)
		r.names[c] = strdup(names[c]);
	r.cells = calloc(nrows ? nrows : 1, sizeof(char **));
	for (int i = 0; i < nrows; i++)
	{
		r.cells[i] = calloc(ncols, sizeof(char *));
		for (int c = 0; c < ncols; c++)
			r.cells[i][c] = cells[i * ncols + c] ? strdup(cells[i * ncols + c]) : NULL;
	}
	return r;
}

/* wal_stall_summary rows: every class, wal_buffer_full/wal_fsync as given */
static WsbRows
make_summary(double wbf_ms, int wbf_episodes, double fsync_ms, double fsync_p99)
{
	static const char *const names[] = {"class", "kind", "episodes", "total_ms", "p99_ms", "max_ms"};
	static const char *const classes[] = {"wal_buffer_full", "wal_flush", "wal_insert", "clog",
	"wal_write", "wal_fsync", "slru_io"};
	char		buf[7][4][32];
	const char *cells[7 * 6];

	for (int k = 0; k < 7; k++)
	{
		double		ms = k == 0 ? wbf_ms : k == 5 ? fsync_ms : 0.2;
		int			ep = k == 0 ? wbf_episodes : k == 5 ? 100 : 1;

		snprintf(buf[k][0], 32, "%d", ep);
		snprintf(buf[k][1], 32, "%.3f", ms);
		snprintf(buf[k][2], 32, "%.3f", k == 5 ? fsync_p99 : 0.1);
		snprintf(buf[k][3], 32, "%.3f", ms);
		cells[k * 6 + 0] = classes[k];
		cells[k * 6 + 1] = k < 4 ? "stall" : "io";
		cells[k * 6 + 2] = buf[k][0];
		cells[k * 6 + 3] = buf[k][1];
		cells[k * 6 + 4] = buf[k][2];
		cells[k * 6 + 5] = buf[k][3];
	}
	return make_rows(6, names, 7, cells);
}

static void
init_plan(WsbPlan *plan, int nconfigs, const char *const *labels, const char *guc,
		  const char *const *values)
{
	memset(plan, 0, sizeof(*plan));
	plan->nconfigs = nconfigs;
	for (int c = 0; c < nconfigs; c++)
	{
		WsbConfig  *cf = &plan->configs[c];

		cf->nsettings = 1;
		snprintf(cf->names[0], WSB_NAME_LEN, "%s", guc);
		snprintf(cf->values[0], WSB_VALUE_LEN, "%s", values[c]);
		snprintf(cf->label, sizeof(cf->label), "%s", labels[c]);
	}
}

static void
free_runs(WsbRun *runs, int n)
{
	for (int i = 0; i < n; i++)
	{
		wsb_rows_free(&runs[i].history);
		wsb_rows_free(&runs[i].summary);
		wsb_rows_free(&runs[i].clog);
		wsb_rows_free(&runs[i].wal);
		wsb_rows_free(&runs[i].status);
		wsb_rows_free(&runs[i].advice);
		wsb_rows_free(&runs[i].statements);
		free(runs[i].per_second);
	}
}

/* Everything f wrote, as a malloc'd string (f is a tmpfile). */
static char *
slurp(FILE *f)
{
	long		len;
	char	   *s;

	fflush(f);
	len = ftell(f);
	s = calloc(len + 1, 1);
	rewind(f);
	if (fread(s, 1, len, f) != (size_t) len)
		s[0] = '\0';
	return s;
}

static char *
read_path(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *s;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	s = slurp(f);
	fclose(f);
	return s;
}

static int
count_lines(const char *s)
{
	int			n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* line i (0-based) of s, malloc'd */
static char *
line_of(const char *s, int i)
{
	const char *e;

	while (i-- > 0 && s)
	{
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (s == NULL)
		return strdup("");
	e = strchr(s, '\n');
	return strndup(s, e ? (size_t) (e - s) : strlen(s));
}

/* ---------- stats.c ---------- */

/*
 * Five configurations, three runs each, interleaved, for the verdicts:
 * 0 baseline ~1000 tps, 1 ~1200 (faster), 2 ~800 (slower, with a
 * wrap-around explanation), 3 ~1000 with noise, 4 one good run and two
 * failed (too few runs).
 */
static const double crafted_tps[5][3] = {
	{1000, 1010, 990},
	{1200, 1210, 1190},
	{800, 805, 795},
	{1000, 1020, 985},
	{950, 0, 0}
};

static int
make_crafted_runs(WsbPlan *plan, WsbRun *runs, const char *label0)
{
	static const char *const values[] = {"-1", "16MB", "32kB", "256kB", "1MB"};
	const char *labels[5] = {label0, "wal_buffers=16MB", "wal_buffers=32kB",
	"wal_buffers=256kB", "wal_buffers=1MB"};
	int			n = 0;

	init_plan(plan, 5, labels, "wal_buffers", values);
	plan->clients = 4;
	for (int rep = 1; rep <= 3; rep++)
		for (int c = 0; c < 5; c++)
		{
			WsbRun	   *r = &runs[n];

			memset(r, 0, sizeof(*r));
			r->config = c;
			r->repeat = rep;
			r->order = n + 1;
			r->started_at = 1764496800 + n * 20;
			r->seconds = 15;
			r->tps = crafted_tps[c][rep - 1];
			r->latency_avg_ms = 4.0;
			r->latency_p99_ms = 12.5;
			r->transactions = (int64_t) (r->tps * 15);
			r->collector_cpu_share = 0.8;
			r->ok = !(c == 4 && rep > 1);
			if (!r->ok)
				snprintf(r->error, sizeof(r->error), "pgbench exited with status 1, \"connection lost\"");
			if (c == 2)
				r->summary = make_summary(43900 + rep * 10, 312, 5000, 12.0);
			else
				r->summary = make_summary(800 + rep, 4, 4000, 9.0);
			{
				static const char *const wn[] = {"wal_buffers_full", "wal_write"};
				const char *wc[] = {c == 2 ? "5000" : "10", "100"};

				r->wal = make_rows(2, wn, 1, wc);
			}
			{
				static const char *const cn[] = {"buffers", "hit_ratio"};
				const char *cc[] = {"128", c == 4 ? NULL : "0.999"};

				r->clog = make_rows(2, cn, 1, cc);
			}
			{
				/* the ring each has: -1 is 4MB here (shared_buffers / 32) */
				static const char *const sn[] = {"wal_buffers_bytes"};
				static const char *const bytes[] = {"4194304", "16777216", "32768", "262144", "1048576"};
				const char *sc[] = {bytes[c]};

				r->status = make_rows(1, sn, 1, sc);
			}
			/* per-second data: 15 s of pgbench, 15 history rows */
			r->nseconds = 15;
			r->per_second = calloc(15, sizeof(WsbPgbenchSecond));
			{
				static const char *const hn[] = {"sample_time", "buffer_fill_max",
					"wal_buffer_full_ms", "wal_flush_ms", "wal_insert_ms", "clog_ms",
				"checkpoint", "sample_epoch", "seconds", "wal_bytes", "wal_fsync_max_ms"};
				const char *cells[15 * 11];
				char		ts[15][64],
							epoch[15][32],
							fill[15][32],
							wbf[15][32],
							bytes[15][32],
							fsync[15][32];

				for (int s = 0; s < 15; s++)
				{
					time_t		t = r->started_at + s + 1;
					struct tm	tm;

					r->per_second[s].epoch = r->started_at + s;
					r->per_second[s].transactions = (int64_t) r->tps + (s % 3) * 10 - 10;
					r->per_second[s].latency_avg_ms = 4.0;
					r->per_second[s].latency_max_ms = 30.0;
					gmtime_r(&t, &tm);
					strftime(ts[s], 64, "%Y-%m-%d %H:%M:%S.042+00", &tm);
					snprintf(epoch[s], 32, "%lld.042", (long long) t);
					snprintf(fill[s], 32, "%.2f", c == 2 ? 1.0 + (s % 2) * 0.3 : 0.2);
					snprintf(wbf[s], 32, "%.1f", c == 2 ? 2900.0 : 50.0);
					/* 4 MB/s or 2 MB/s; second 8 a row of 2 s (a gap), twice the bytes */
					snprintf(bytes[s], 32, "%d", (c == 2 ? 4 : 2) * 1048576 * (s == 7 ? 2 : 1));
					snprintf(fsync[s], 32, "%.1f", c == 2 ? 250.5 : 12.0);
					cells[s * 11 + 0] = ts[s];
					cells[s * 11 + 1] = fill[s];
					cells[s * 11 + 2] = wbf[s];
					cells[s * 11 + 3] = "1.5";
					cells[s * 11 + 4] = "0";
					cells[s * 11 + 5] = "0";
					cells[s * 11 + 6] = (s >= 2 && s <= 4) ? (s == 2 ? "start" : s == 4 ? "done" : "running") : NULL;
					cells[s * 11 + 7] = epoch[s];
					cells[s * 11 + 8] = s == 7 ? "2" : "1";
					cells[s * 11 + 9] = bytes[s];
					/* no fsync ended in the first second */
					cells[s * 11 + 10] = s == 0 ? NULL : fsync[s];
				}
				r->history = make_rows(11, hn, 15, cells);
			}
			n++;
		}
	return n;
}

/* A test row for wsb_sort_by_key: sorted by key, tag tells the order. */
typedef struct SortRow
{
	double		key;
	char		tag;
} SortRow;

static double
sort_row_key(const void *row)
{
	return ((const SortRow *) row)->key;
}

static void
test_sort_by_key(void)
{
	SortRow		rows[] = {{NAN, 'a'}, {3, 'b'}, {1, 'c'}, {3, 'd'}, {NAN, 'e'}, {2, 'f'}};
	char		order[7] = {0};

	wsb_sort_by_key(rows, 6, sizeof(SortRow), sort_row_key);
	for (int i = 0; i < 6; i++)
		order[i] = rows[i].tag;
	check(strcmp(order, "cfbdae") == 0,
		  "rows sorted by key, equal keys in their order, NaN keys last (%s)", order);
	wsb_sort_by_key(rows, 0, sizeof(SortRow), sort_row_key);
	check(rows[0].tag == 'c', "no rows: nothing moves");
}

static void
test_stats(void)
{
	double		a[] = {3, 1, 2};
	double		b[] = {4, 1, 3, 2};
	double		c[] = {2, 4, 4, 4, 5, 5, 7, 9};

	check(wsb_median(a, 3) == 2, "median of 3 1 2 is 2");
	check(wsb_median(b, 4) == 2.5, "median of 4 1 3 2 is 2.5");
	check(a[0] == 3 && a[1] == 1, "median leaves its input unsorted");
	check(isnan(wsb_median(a, 0)), "median of nothing is NaN");
	test_sort_by_key();
	check(wsb_mean(b, 4) == 2.5, "mean of 4 1 3 2 is 2.5");
	/* sum of squares about the mean 5: 9+1+1+1+0+0+4+16 = 32; 32/7 */
	check(near(wsb_stddev(c, 8), sqrt(32.0 / 7), 1e-12),
		  "sample stddev of 2 4 4 4 5 5 7 9 is sqrt(32/7) = 2.13809 (got %.6f)", wsb_stddev(c, 8));
	check(isnan(wsb_stddev(c, 1)), "stddev of one value is NaN");

	/* published two-sided 95% t table values (e.g. NIST/SEMATECH e-Handbook) */
	{
		static const struct
		{
			double		p,
						df,
						t;
		}			tt[] = {
			{0.975, 1, 12.7062047},
			{0.975, 2, 4.30265273},
			{0.975, 4, 2.77644511},
			{0.975, 10, 2.22813885},
			{0.975, 30, 2.04227246},
			{0.995, 5, 4.03214298},
			{0.95, 3, 2.35336343},
			{0.025, 4, -2.77644511},

			/*
			 * Non-integer df, from a separate program that integrates the t
			 * density (Gamma via lgamma) by Simpson's rule with 200,000
			 * intervals on [0, t] and bisects P(T <= t) = 0.975 to 60 steps;
			 * the same program reproduces every integer-df row above to 1e-8.
			 * df = 2.5 gives 3.5746548420 (not 3.4954), df = 7.3 gives
			 * 2.3450667365, df = 243/49 (Welch's degrees of freedom of 100 102 98
			 * against 110 114 112 108)
			 * 2.5769584490.
			 */
			{0.975, 2.5, 3.5746548420},
			{0.975, 7.3, 2.3450667365},
			{0.975, 243.0 / 49, 2.5769584490},
		};

		for (size_t i = 0; i < sizeof(tt) / sizeof(tt[0]); i++)
		{
			double		got = wsb_t_quantile(tt[i].p, tt[i].df);

			check(near(got, tt[i].t, 1e-6), "t(%g, df %g) = %.8f (got %.8f)",
				  tt[i].p, tt[i].df, tt[i].t, got);
		}
	}
	check(wsb_t_quantile(0.5, 3) == 0, "t(0.5, 3) = 0");
	check(isnan(wsb_t_quantile(1.0, 3)) && isnan(wsb_t_quantile(0.9, 0)),
		  "t quantile outside its domain is NaN");

	/* each configuration's successful runs, as the charts and the runs table read them */
	{
		WsbPlan		plan;
		WsbRun		runs[15];
		double		x[15];
		int			n = make_crafted_runs(&plan, runs, "wal_buffers=-1");
		int			nb = wsb_config_judged_tps(runs, n, 0, x);

		check(nb == 3 && wsb_median(x, nb) == 1000, "baseline: 3 runs, median 1000 tps (got %d, %g)",
			  nb, wsb_median(x, nb));
		check(wsb_config_judged_tps(runs, n, 4, x) == 1, "a configuration with two failed runs has one tps");
		free_runs(runs, n);
	}
}

/* ---------- csv.c: the CSV files written ---------- */

static char *
csv_of(const char *s)
{
	FILE	   *f = tmpfile();
	char	   *out;

	wsb_csv_field(f, s);
	out = slurp(f);
	fclose(f);
	return out;
}

static void
test_csv(void)
{
	static const struct
	{
		const char *in;
		const char *out;
		const char *what;
	}			cases[] = {
		{"plain", "plain", "plain field unquoted"},
		{"a,b", "\"a,b\"", "comma quoted"},
		{"say \"hi\"", "\"say \"\"hi\"\"\"", "quotes doubled and quoted"},
		{"line\nbreak", "\"line\nbreak\"", "LF quoted"},
		{"cr\rhere", "\"cr\rhere\"", "CR quoted"},
		{" lead", "\" lead\"", "leading blank quoted"},
		{"trail ", "\"trail \"", "trailing blank quoted"},
		{"", "", "empty string is the empty field"},
		{NULL, "", "NULL is the empty field"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		char	   *got = csv_of(cases[i].in);

		check(strcmp(got, cases[i].out) == 0, "csv: %s", cases[i].what);
		free(got);
	}

	/* results.csv and timeline.csv from the crafted runs */
	{
		WsbPlan		plan;
		WsbRun		runs[15];
		int			n = make_crafted_runs(&plan, runs, "wal_buffers=-1, \"default\"");
		char		dir[] = "/tmp/wsb_test_csv_XXXXXX";
		char		path[256];
		char	   *text,
				   *l;

		check(mkdtemp(dir) != NULL, "temporary directory for CSV files");
		snprintf(path, sizeof(path), "%s/results.csv", dir);
		check(wsb_write_results_csv(path, &plan, runs, n) == 0, "results.csv written");
		text = read_path(path);
		check(text && count_lines(text) == 1 + n, "results.csv: header and one row per run (%d lines)",
			  text ? count_lines(text) : -1);
		l = line_of(text ? text : "", 0);
		check(starts_with(l, "configuration,wal_buffers,run,order,started_at,seconds,tps,latency_avg_ms,"
						  "latency_p99_ms,transactions,wal_buffer_full_total_ms,wal_buffer_full_episodes,") &&
			  strstr(l, ",slru_io_total_ms,slru_io_episodes,wal_buffers_full,wal_fsync_p99_ms,"
					 "clog_hit_ratio,collector_cpu_share_pct,ok,error") != NULL,
			  "results.csv header names every column (%s)", l);
		free(l);
		l = line_of(text ? text : "", 1);
		check(starts_with(l, "\"wal_buffers=-1, \"\"default\"\"\",-1,1,1,2025-11-30T10:00:00Z,15.000,1000.000,"),
			  "results.csv first row: quoted label, GUC value, run, order, ISO start (%s)", l);
		check(strstr(l, ",801.000,4,") != NULL && strstr(l, ",10,9.000,0.999000,0.800,true,") != NULL,
			  "results.csv first row: wal_buffer_full total/episodes, wal_buffers_full, fsync p99, CLOG ratio, CPU");
		free(l);
		l = line_of(text ? text : "", 10);
		check(strstr(l, ",false,\"pgbench exited with status 1, \"\"connection lost\"\"\"") != NULL,
			  "results.csv failed run: ok false and its quoted error (%s)", l);
		free(l);
		free(text);

		snprintf(path, sizeof(path), "%s/timeline.csv", dir);
		check(wsb_write_timeline_csv(path, &plan, runs, n) == 0, "timeline.csv written");
		text = read_path(path);
		check(text && count_lines(text) == 1 + 15 * n, "timeline.csv: one row per second per run (%d lines)",
			  text ? count_lines(text) : -1);
		l = line_of(text ? text : "", 0);
		check(strcmp(l, "configuration,run,order,second,epoch,tps,latency_avg_ms,latency_max_ms,"
					 "sample_time,buffer_fill_max,wal_buffer_full_ms,wal_flush_ms,wal_insert_ms,clog_ms,checkpoint,"
					 "sample_epoch,seconds,wal_bytes,wal_fsync_max_ms") == 0,
			  "timeline.csv header: pgbench columns then every history column (%s)", l);
		free(l);
		free(text);
		free_runs(runs, n);
		snprintf(path, sizeof(path), "rm -rf '%s'", dir);
		if (system(path) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}

	/*
	 * The join on mismatched seconds.  pgbench has seconds E, E+1, E+2, E+4
	 * (E+3 empty: no transaction ended in it).  History rows at E+1.2 (->
	 * second E), E+2.1 (-> E+1), E+3.9 (-> E+3), E+5.05 (its sample_time
	 * written with a +01 offset; the join goes by sample_epoch: -> E+4),
	 * E+6.0 (-> E+5): 6 rows, E+2 without history, E+3 and E+5 without
	 * pgbench.
	 */
	{
		WsbPlan		plan;
		static const char *const labels[] = {"one"};
		static const char *const values[] = {"on"};
		WsbRun		run;
		const int64_t E = 1796032862;	/* 2026-11-30 10:01:02 UTC */
		static const char *const hn[] = {"sample_time", "xids", "sample_epoch"};
		static const char *const hc[] = {
			"2026-11-30 10:01:03.2+00", "11", "1796032863.2",
			"2026-11-30 10:01:04.1+00", "12", "1796032864.1",
			"2026-11-30 10:01:05.9+00", "13", "1796032865.9",
			"2026-11-30 11:01:07.05+01", "14", "1796032867.05",
			"2026-11-30 10:01:08+00", "15", "1796032868",
		};
		const int64_t pg_epochs[] = {E, E + 1, E + 2, E + 4};
		char		dir[] = "/tmp/wsb_test_join_XXXXXX";
		char		path[256];
		char	   *text = NULL;

		init_plan(&plan, 1, labels, "fsync", values);
		memset(&run, 0, sizeof(run));
		run.config = 0;
		run.repeat = 1;
		run.order = 1;
		run.ok = true;
		run.nseconds = 4;
		run.per_second = calloc(4, sizeof(WsbPgbenchSecond));
		for (int i = 0; i < 4; i++)
		{
			run.per_second[i].epoch = pg_epochs[i];
			run.per_second[i].transactions = 100 + i;
			run.per_second[i].latency_avg_ms = 1.5;
			run.per_second[i].latency_max_ms = 9;
		}
		run.history = make_rows(3, hn, 5, hc);
		if (mkdtemp(dir) != NULL)
		{
			snprintf(path, sizeof(path), "%s/timeline.csv", dir);
			if (wsb_write_timeline_csv(path, &plan, &run, 1) == 0)
				text = read_path(path);
		}
		check(text && count_lines(text) == 7, "join: 6 seconds from 4 pgbench seconds and 5 history rows (%d lines)",
			  text ? count_lines(text) - 1 : -1);
		if (text)
		{
			char	   *want[6];
			const char *expect[6] = {
				"one,1,1,1,1796032862,100,1.500,9.000,2026-11-30 10:01:03.2+00,11,1796032863.2",
				"one,1,1,2,1796032863,101,1.500,9.000,2026-11-30 10:01:04.1+00,12,1796032864.1",
				"one,1,1,3,1796032864,102,1.500,9.000,,,",
				"one,1,1,4,1796032865,,,,2026-11-30 10:01:05.9+00,13,1796032865.9",
				"one,1,1,5,1796032866,103,1.500,9.000,2026-11-30 11:01:07.05+01,14,1796032867.05",
				"one,1,1,6,1796032867,,,,2026-11-30 10:01:08+00,15,1796032868",
			};

			for (int i = 0; i < 6; i++)
			{
				want[i] = line_of(text, i + 1);
				check(strcmp(want[i], expect[i]) == 0, "join row %d: %s (got %s)", i + 1, expect[i], want[i]);
				free(want[i]);
			}
		}
		free(text);
		free_runs(&run, 1);
		snprintf(path, sizeof(path), "rm -rf '%s'", dir);
		if (system(path) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
}

/* ---------- report.c: HTML; terminal.c: the runs on the terminal ---------- */

/* A class of one configuration's runs with time but no episode counted (all
 * begun outside the bursts that count them): episodes 0 beside total_ms. */
static void
none_counted_in_config(WsbRun *runs, int n, int config, const char *class)
{
	for (int i = 0; i < n; i++)
	{
		WsbRows    *rows = &runs[i].summary;
		int			ep = wsb_rows_col(rows, "episodes");

		if (runs[i].config != config)
			continue;
		for (int k = 0; k < rows->nrows; k++)
		{
			if (strcmp(rows->cells[k][0], class) != 0)
				continue;
			free(rows->cells[k][ep]);
			rows->cells[k][ep] = strdup("0");
		}
	}
}

/* Advice and statements for the crafted runs: the last run of
 * configuration 2 (wal_buffers=32kB) has both, its advice alone and on its
 * three runs pooled; configuration 0's last run ran without
 * pg_stat_statements and too briefly for advice. */
static void
add_advice_and_statements(WsbRun *runs, int n)
{
	static const char *const an[] = {"setting", "current", "suggested", "confidence", "evidence"};
	static const char *const sn[] = {"queryid", "query", "stall_ms", "by_class"};

	for (int i = 0; i < n; i++)
	{
		WsbRun	   *r = &runs[i];

		if (r->repeat != 3)
			continue;
		if (r->config == 2)
		{
			const char *ac[] = {"wal_buffers", "32kB", "128kB", "high",
			"ring full in 8 of 71 s; <b>peak</b> WAL 4.3 MB/s"};
			const char *sc[] = {
				"-1041059394170471163", "UPDATE t SET a = a + $1 WHERE aid < $2", "43000.5",
				"wal_buffer_full 42000.0, wal_flush 1000.5",
				NULL, NULL, "900.0", "wal_flush 900.0"
			};

			const char *pc[] = {"wal_buffers", "32kB", "256kB", "high",
			"ring full in 24 of 213 s; <b>peak</b> WAL 4.3 MB/s"};

			r->advice = make_rows(5, an, 1, ac);
			r->advice_pooled = make_rows(5, an, 1, pc);
			r->advice_readings = 3;
			r->statements = make_rows(4, sn, 2, sc);
		}
		else if (r->config == 0)
		{
			const char *ac[] = {"(none)", "none", NULL, "none",
			"too little evidence: 16 s of history since the last reset, at least 60 s are needed"};

			r->advice = make_rows(5, an, 1, ac);
			snprintf(r->statements_why, sizeof(r->statements_why),
					 "pg_stat_statements is not in shared_preload_libraries");
		}
		else
			r->statements = make_rows(4, sn, 0, NULL);
	}
}

static void
fill_environment(WsbEnvironment *env, WsbOptions *opts)
{
	memset(env, 0, sizeof(*env));
	snprintf(env->pg_version, sizeof(env->pg_version), "PostgreSQL 15.14 (Debian 15.14-0+deb12u1) on x86_64");
	env->cores = 2;
	env->memory_gb = 7.8;
	env->fdatasync_per_sec = 47;
	snprintf(env->wal_device, sizeof(env->wal_device), "loop device 7:3 (pg_wal alone), 100 write IOPS");
	env->pgbench_command = "pgbench -c 4 -j 2 -T 15 --aggregate-interval=1 -l bench";
	env->settings = "synchronous_commit = off\ntrack_wal_io_timing = on\n";
	snprintf(env->started, sizeof(env->started), "2025-11-30T10:00:00Z");
	snprintf(env->finished, sizeof(env->finished), "2025-11-30T10:05:00Z");
	memset(opts, 0, sizeof(*opts));
	opts->runs = 3;
	opts->duration = 15;
	opts->clients = 4;
	opts->jobs = 2;
	opts->scale = 10;
	opts->slow_wal_iops = 100;
	opts->slow_wal_mbps = 4;
	snprintf(opts->builtin, sizeof(opts->builtin), "tpcb-like");
	snprintf(opts->preset, sizeof(opts->preset), "wal_buffers_small");
	opts->nsets = 1;
	snprintf(opts->sets[0].name, WSB_NAME_LEN, "wal_buffers");
	opts->sets[0].nvalues = 5;
	for (int v = 0; v < 5; v++)
		snprintf(opts->sets[0].values[v], WSB_VALUE_LEN, "%s",
				 (const char *[]) {"-1", "16MB", "32kB", "256kB", "1MB"}[v]);
}

static void
test_report(void)
{
	WsbPlan		plan;
	WsbRun		runs[15];
	WsbEnvironment env;
	WsbOptions	opts;
	int			n = make_crafted_runs(&plan, runs, "wal_buffers=-1 <script>alert(1)</script>");
	char		dir[] = "/tmp/wsb_test_report_XXXXXX";
	char		path[512];
	char	   *html = NULL;
	int			rc = -2;
	const char *keep = getenv("WSB_TEST_KEEP_REPORT");

	fill_environment(&env, &opts);
	add_advice_and_statements(runs, n);
	none_counted_in_config(runs, n, 1, "clog");
	if (mkdtemp(dir) != NULL)
	{
		rc = wsb_write_report(dir, &opts, &plan, runs, n, &env, NULL);
		snprintf(path, sizeof(path), "%s/report.html", dir);
		html = read_path(path);
	}
	check(rc == 0, "report written with charts (rc %d)", rc);
	check(html != NULL, "report.html exists");
	if (html == NULL)
		html = strdup("");
	{
		int			nsvg = 0;

		for (const char *p = html; (p = strstr(p, "<svg")) != NULL; p++)
			nsvg++;
		check(nsvg == 3, "report holds its three charts as inline SVG: strip, timeline, wal_buffers by size (%d <svg)",
			  nsvg);
		check(strstr(html, "<h2>wal_buffers by size</h2>") &&
			  strstr(html, "<tr><td>32kB</td><td>wal_buffers=32kB</td><td class=\"n\">73.200</td>") &&
			  strstr(html, "the largest size (16MB) is not it; put the largest size first"),
			  "wal_buffers by size: five sizes from wal_stall_status, 32kB's wrap-around share, and "
			  "the baseline (4MB, -1) not the largest");
	}
	check(strstr(html, "<?xml") == NULL && strstr(html, "<!DOCTYPE svg") == NULL,
		  "gnuplot's XML prologue is not pasted into the HTML");
	check(strstr(html, "<figure>") && strstr(html, "<figcaption>"), "charts are captioned figures");
	check(strstr(html, "<h2>Runs</h2>") && strstr(html, "<th>median tps</th>") &&
		  strstr(html, "<td class=\"n\">1/3</td>"),
		  "report holds the runs table: tps of each run, runs ok, median");
	check(strstr(html, "Welch") == NULL && strstr(html, "within noise") == NULL,
		  "report has one verdict: no Welch table, no \"within noise\"");
	check(strstr(html, "<script>") == NULL && strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL,
		  "a label with <script> appears escaped");
	{
		const char *none = strstr(html, "seen, none counted");

		check(none != NULL && strstr(none + 1, "seen, none counted") == NULL &&
			  strstr(html, "<td>clog</td><td class=\"n\">0.2</td><td class=\"n\">seen, none counted</td>") &&
			  strstr(html, "<td>clog</td><td class=\"n\">0.2</td><td class=\"n\">1</td>"),
			  "summary: a class with time but no episode counted says so, once; the others give their count");
	}
	check(strstr(html, "Grey bands") != NULL, "checkpoint column present: checkpoint bands are described");
	check(strstr(html, "47 fdatasync/s") && strstr(html, "pgbench -c 4 -j 2") &&
		  strstr(html, "2 cores") && strstr(html, "loop device 7:3"),
		  "environment: fdatasync rate, pgbench command, cores, slowed device");
	check(strstr(html, "connection lost") != NULL, "run order lists the failed runs' errors");
	{
		const char *adv = strstr(html, "<h2>Advice</h2>");
		const char *st = strstr(html, "<h2>Statements with the most stall time</h2>");

		check(adv && strstr(adv, "<td rowspan=\"1\">3</td><td>wal_buffers</td><td>32kB</td><td>256kB</td>"
							"<td>high</td><td>ring full in 24 of 213 s; &lt;b&gt;peak&lt;/b&gt; WAL 4.3 MB/s") &&
			  !strstr(adv, "ring full in 8 of 71 s"),
			  "advice section: the advice on the three runs pooled, not the last run's alone; evidence escaped");
		check(adv && strstr(adv, "needs 60 s of history") && strstr(adv, "these runs lasted 15 s") &&
			  strstr(adv, "too little evidence: 16 s"),
			  "advice section: too short runs are named as the reason for no advice");
		check(st && st < adv &&
			  strstr(st, "<td>-1041059394170471163</td><td class=\"n\">43000.5</td>"
					 "<td>wal_buffer_full 42000.0, wal_flush 1000.5</td>"
					 "<td><code>UPDATE t SET a = a + $1 WHERE aid &lt; $2</code></td>"),
			  "statements section: queryid, stall ms, by class, query text escaped");
		check(st && strstr(st, "outside any statement") && strstr(st, "no client stalled"),
			  "statements section: the NULL query id row, and a configuration without stalls");
		check(st && strstr(st, "conf = shared_preload_libraries = 'wal_stall,pg_stat_statements'") &&
			  strstr(st, "not read: pg_stat_statements is not in shared_preload_libraries"),
			  "statements section: without pg_stat_statements it says how to preload it");
	}
	if (html != NULL)
	{
		char	   *csv;
		const char *row32;

		snprintf(path, sizeof(path), "%s/advice.csv", dir);
		check(wsb_write_advice_csv(path, &plan, runs, n) == 0, "advice.csv written");
		csv = read_path(path);
		row32 = csv ? strstr(csv, "\nwal_buffers=32kB,3,") : NULL;
		check(csv && starts_with(csv, "configuration,run,order,runs,setting,current,suggested,confidence,evidence\n") &&
			  count_lines(csv) == 4,
			  "advice.csv: header, the two runs' rows and the pooled row (%d lines)", csv ? count_lines(csv) : -1);
		check(row32 && strstr(row32, ",1,wal_buffers,32kB,128kB,high,ring full in 8 of 71 s; <b>peak</b> WAL 4.3 MB/s\n"),
			  "advice.csv: a row carries the run and the advice as given");
		check(row32 && strstr(strstr(row32, "ring full in 8") ? strstr(row32, "ring full in 8") : row32,
							  "\nwal_buffers=32kB,3,") &&
			  strstr(row32, ",3,wal_buffers,32kB,256kB,high,ring full in 24 of 213 s; <b>peak</b> WAL 4.3 MB/s\n"),
			  "advice.csv: the pooled row last, under the last run, with the runs it pools");
		check(csv && strstr(csv, ",(none),none,,none,\"too little evidence: 16 s"),
			  "advice.csv: a NULL suggestion is an empty cell, a comma in the evidence quoted");
		free(csv);

		snprintf(path, sizeof(path), "%s/ring.csv", dir);
		check(wsb_ring_write_csv(path, &plan, runs, n, NULL) == 0, "ring.csv written");
		csv = read_path(path);
		check(csv && starts_with(csv, "configuration,wal_buffers_bytes,runs,wrap_around_share,settled,"
								 "tps_median,tps_by_rounds\nwal_buffers=32kB,32768,3,0.732000,false,800.000,\n") &&
			  strstr(csv, "\nwal_buffers=1MB,1048576,1,") && strstr(csv, "\nwal_buffers=16MB,16777216,3,") &&
			  count_lines(csv) == 6,
			  "ring.csv: a row per configuration by size, its share, runs and median (%d lines)",
			  csv ? count_lines(csv) : -1);
		free(csv);
	}
	free(html);

	/* the SVG came from gnuplot with the data kept next to it */
	snprintf(path, sizeof(path), "%s/plots/timeline.gp", dir);
	check(access(path, R_OK) == 0, "gnuplot script kept in plots/");

	/* without gnuplot: HTML written, says why, returns -1 */
	{
		char	   *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
		char		dir2[] = "/tmp/wsb_test_nognuplot_XXXXXX";

		html = NULL;
		rc = -2;
		setenv("PATH", "/nonexistent", 1);
		if (mkdtemp(dir2) != NULL)
		{
			rc = wsb_write_report(dir2, &opts, &plan, runs, n, &env, NULL);
			snprintf(path, sizeof(path), "%s/report.html", dir2);
			html = read_path(path);
		}
		if (old)
		{
			setenv("PATH", old, 1);
			free(old);
		}
		check(rc == -1 && html && strstr(html, "Charts are missing") && strstr(html, "gnuplot-nox") &&
			  strstr(html, "<h2>Runs</h2>"),
			  "without gnuplot: -1, and the HTML says charts are missing and why, the runs still there");
		free(html);
		snprintf(path, sizeof(path), "rm -rf '%s'", dir2);
		if (system(path) != 0)
			fprintf(stderr, "could not remove %s\n", dir2);
	}

	/* the runs on the terminal */
	{
		FILE	   *f = tmpfile();
		char	   *t;
		int			widest = 0,
					cur = 0;

		wsb_print_runs(f, &plan, runs, n);
		t = slurp(f);
		fclose(f);
		for (const char *p = t; *p; p++)
		{
			if (*p == '\n')
			{
				if (cur > widest)
					widest = cur;
				cur = 0;
			}
			else
				cur++;
		}
		check(widest <= 100, "terminal runs fit 100 columns (widest line %d)", widest);
		check(strstr(t, "wal_buffers=16MB: 1200 1210 1190, median 1200") &&
			  strstr(t, "wal_buffers=1MB: 950 failed failed, median 950") &&
			  strstr(t, "within noise") == NULL && strstr(t, "[95% CI]") == NULL,
			  "terminal runs: tps in run order and the median, no verdict of their own");
		check(strstr(t, "steady seconds") == NULL, "terminal runs: no window tps when the runs have none");
		free(t);
		for (int i = 0; i < n; i++)
			runs[i].tps_window = runs[i].ok ? runs[i].tps - 10 : NAN;
		f = tmpfile();
		wsb_print_runs(f, &plan, runs, n);
		t = slurp(f);
		fclose(f);
		check(strstr(t, "wal_buffers=16MB: 1200 1210 1190; over the steady seconds: 1190 1200 1180, "
					 "median 1190\n") &&
			  strstr(t, "wal_buffers=1MB: 950 failed failed; over the steady seconds: 940, median 940\n"),
			  "terminal runs: each successful run's window tps, and the median of those, what the "
			  "verdict judges (got \"%s\")", t);
		free(t);
		{
			/* the strip chart's dots: the same judged tps */
			double		x[16];
			int			k = -1;

			for (int c = 0; c < plan.nconfigs; c++)
				if (strcmp(plan.configs[c].label, "wal_buffers=16MB") == 0)
					k = wsb_config_judged_tps(runs, n, c, x);
			check(wsb_window_judged(runs, n) && k == 3 && x[0] == 1190 && x[1] == 1200 && x[2] == 1180,
				  "the tps judged: every successful run's window tps when each has one");
		}
		/* one successful run without window tps: the verdict pairs whole-run tps, the median too */
		runs[0].tps_window = NAN;
		f = tmpfile();
		wsb_print_runs(f, &plan, runs, n);
		t = slurp(f);
		fclose(f);
		check(strstr(t, "steady seconds") == NULL && strstr(t, "wal_buffers=16MB: 1200 1210 1190, median 1200\n"),
			  "terminal runs: whole-run tps and their median when a run lacks window tps (got \"%s\")", t);
		{
			/* a label that makes its line wrap: the rest hangs four columns in */
			char		saved[sizeof(plan.configs[1].label)];
			bool		hung = true;

			memcpy(saved, plan.configs[1].label, sizeof(saved));
			snprintf(plan.configs[1].label, sizeof(plan.configs[1].label),
					 "wal_buffers=16MB shared_buffers=8GB wal_writer_delay=20ms synchronous_commit=off "
					 "commit_delay=10");
			free(t);
			f = tmpfile();
			wsb_print_runs(f, &plan, runs, n);
			t = slurp(f);
			fclose(f);
			for (const char *p = t; *p; p = strchr(p, '\n') + 1)
				hung &= strncmp(p, "tps of", 6) == 0 || strncmp(p, "wal_buffers=", 12) == 0 ||
					(strncmp(p, "    ", 4) == 0 && p[4] != ' ');
			check(hung && strstr(t, "\n    ") != NULL,
				  "terminal runs: a wrapped line's rest hangs four columns in (got \"%s\")", t);
			memcpy(plan.configs[1].label, saved, sizeof(saved));
		}
		{
			double		x[16];
			int			k = -1;

			for (int c = 0; c < plan.nconfigs; c++)
				if (strcmp(plan.configs[c].label, "wal_buffers=16MB") == 0)
					k = wsb_config_judged_tps(runs, n, c, x);
			check(!wsb_window_judged(runs, n) && k == 3 && x[0] == 1200 && x[1] == 1210,
				  "the tps judged: whole-run tps when a successful run lacks window tps");
		}
		if (keep)
			fputs(t, stderr);
		free(t);
	}
	free_runs(runs, n);
	if (keep)
		fprintf(stderr, "report kept in %s\n", dir);
	else
	{
		snprintf(path, sizeof(path), "rm -rf '%s'", dir);
		if (system(path) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
}

/*
 * The stall summary's episodes of two runs each: a median between two
 * counts prints as such (3.5), not rounded to a count no run had.
 */
static void
test_report_summary_half(void)
{
	WsbPlan		plan;
	WsbRun		runs[4];
	WsbEnvironment env;
	WsbOptions	opts;
	const char *labels[2] = {"wal_buffers=-1", "wal_buffers=1MB"};
	static const char *const values[] = {"-1", "1MB"};
	char		dir[] = "/tmp/wsb_test_half_XXXXXX";
	char		path[512];
	char	   *html = NULL;

	fill_environment(&env, &opts);
	init_plan(&plan, 2, labels, "wal_buffers", values);
	memset(runs, 0, sizeof(runs));
	for (int i = 0; i < 4; i++)
	{
		runs[i].config = i % 2;
		runs[i].repeat = i / 2 + 1;
		runs[i].order = i + 1;
		runs[i].seconds = 5;
		runs[i].tps = 1000 + i;
		runs[i].ok = true;
		runs[i].summary = make_summary(10.0, 3 + i / 2, 5.0, 1.0);
	}
	/* no history here: the timeline cannot be drawn, and the report says so */
	if (mkdtemp(dir) != NULL)
	{
		(void) wsb_write_report(dir, &opts, &plan, runs, 4, &env, NULL);
		snprintf(path, sizeof(path), "%s/report.html", dir);
		html = read_path(path);
	}
	check(html && strstr(html, "<td>wal_buffer_full</td><td class=\"n\">10.0</td><td class=\"n\">3.5</td>") &&
		  strstr(html, "p99_ms and max_ms over the runs in which the class had an episode"),
		  "summary: the median of 3 and 4 episodes reads 3.5; the caption says which runs each median takes");
	free(html);
	free_runs(runs, 4);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* A line of a file that starts with prefix, without its newline; "" none. */
static char *
line_starting(const char *text, const char *prefix)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (starts_with(p, prefix))
			return strndup(p, strcspn(p, "\n"));
	return strdup("");
}

/*
 * The timeline's WAL disk panels: the WAL written per second, with the
 * bandwidth cap as a line when the harness set one and a note when it
 * capped IOPS alone, and the longest fsync per second; neither when the
 * runs' history lacks their columns.
 */
static void
test_timeline_wal_panels(void)
{
	WsbPlan		plan;
	WsbRun		runs[15];
	WsbEnvironment env;
	WsbOptions	opts;
	int			n = make_crafted_runs(&plan, runs, "wal_buffers=-1");
	char		dir[] = "/tmp/wsb_test_walpanels_XXXXXX";
	char		path[600],
				extra[512],
				why[1024];
	char	   *gp,
			   *dat,
			   *l;
	bool		ckpt,
				rate,
				fsync;

	fill_environment(&env, &opts);
	if (mkdtemp(dir) == NULL)
	{
		check(false, "timeline WAL panels: a temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/plots", dir);
	check(wsb_draw_charts(path, &plan, &opts, &env, runs, n, extra, sizeof(extra), &ckpt,
						  why, sizeof(why)) == 0, "timeline WAL panels: drawn (%s)", why);
	snprintf(path, sizeof(path), "%s/plots/timeline.gp", dir);
	gp = read_path(path);
	check(gp && strstr(gp, "set ylabel \"WAL written, MB/s\" noenhanced\n") &&
		  strstr(gp, "set ylabel \"longest WAL fsync, ms\" noenhanced\n") &&
		  strstr(gp, "using 1:8 with lines") && strstr(gp, "using 1:9 with lines"),
		  "timeline WAL panels: the WAL written and the longest fsync, units on their axes");
	check(gp && strstr(gp, "  4 with lines dt 2 lw 1.2 lc rgb '#555555' title \"cap 4 MB/s\"\n") &&
		  strstr(gp, "no MB/s cap") == NULL,
		  "timeline WAL panels: --slow-wal-mbps 4 is a line titled \"cap 4 MB/s\"");
	/* the probe's 47 fdatasyncs a second: 21.3 ms each, on the fsync panel */
	check(gp && strstr(gp, "  21.277 with lines dt 3 lw 1.2 lc rgb '#555555' "
					   "title \"probe: one fdatasync 21.3 ms\"\n"),
		  "timeline WAL panels: the fsync probe's time a line on the fsync panel");
	{
		const char *rate_panel = gp ? strstr(gp, "set ylabel \"WAL written, MB/s\"") : NULL;
		const char *xname = gp ? strstr(gp, "set xlabel 'seconds since the run started'") : NULL;
		const char *fsync_panel = gp ? strstr(gp, "set ylabel \"longest WAL fsync, ms\"") : NULL;

		check(rate_panel && xname && fsync_panel && rate_panel < xname && xname < fsync_panel,
			  "timeline WAL panels: the WAL written, then the fsync panel last, over the x axis's name");
	}
	free(gp);
	/* run 7: 2 MB/s, second 8 a row of 2 s with twice the bytes, no fsync in second 1 */
	snprintf(path, sizeof(path), "%s/plots/run_7.dat", dir);
	dat = read_path(path);
	l = line_starting(dat, "1 ");
	check(strcmp(l, "1 1200 50 1.5 0 0 0.2 2 ?") == 0,
		  "timeline WAL panels: MB/s of 1048576 bytes, a NULL fsync undefined (got \"%s\")", l);
	free(l);
	l = line_starting(dat, "8 ");
	check(strcmp(l, "8 1210 50 1.5 0 0 0.2 2 12") == 0,
		  "timeline WAL panels: a row of 2 s is divided by its seconds (got \"%s\")", l);
	free(l);
	free(dat);

	/* IOPS alone: no line, the panel says why */
	opts.slow_wal_mbps = 0;
	snprintf(path, sizeof(path), "%s/plots", dir);
	wsb_draw_charts(path, &plan, &opts, &env, runs, n, extra, sizeof(extra), &ckpt, why, sizeof(why));
	snprintf(path, sizeof(path), "%s/plots/timeline.gp", dir);
	gp = read_path(path);
	check(gp && strstr(gp, "title \"cap ") == NULL &&
		  strstr(gp, "set label 1 \"pg_wal capped at 100 write IOPS\"") &&
		  strstr(gp, "no MB/s cap, so no cap line"),
		  "timeline WAL panels: an IOPS cap alone draws no line and says so");
	free(gp);

	/* no throttle known: neither */
	snprintf(path, sizeof(path), "%s/plots", dir);
	wsb_draw_charts(path, &plan, NULL, NULL, runs, n, extra, sizeof(extra), &ckpt, why, sizeof(why));
	snprintf(path, sizeof(path), "%s/plots/timeline.gp", dir);
	gp = read_path(path);
	check(gp && strstr(gp, "WAL written, MB/s") && strstr(gp, "title \"cap ") == NULL &&
		  strstr(gp, "\nset label") == NULL && strstr(gp, "probe:") == NULL,
		  "timeline WAL panels: unknown options and probe, the panels without cap, note or probe line");
	free(gp);

	wsb_timeline_wal_panels(runs, n, &rate, &fsync);
	check(rate && fsync, "timeline WAL panels: the crafted runs fill both");
	for (int i = 0; i < n; i++)
	{
		wsb_rows_free(&runs[i].history);
		runs[i].history = make_rows(0, NULL, 0, NULL);
	}
	wsb_timeline_wal_panels(runs, n, &rate, &fsync);
	check(!rate && !fsync, "timeline WAL panels: none without their history columns");
	free_runs(runs, n);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/*
 * Labels gnuplot must take as typed: a single-quoted empty value (the
 * overhead preset's shared_preload_libraries=''; gnuplot 5.4 stops on
 * 'a''''' with "unexpected token"), and a double quote, a backslash and a
 * backquote, which gnuplot would run as a command in double quotes.
 */
static void
test_report_labels(void)
{
	static const char *const labels[] = {"shared_preload_libraries=''",
	"x='a''b' \"q\" \\ `touch /tmp/wsb_test_pwned`"};
	static const char *const values[] = {"''", "wal_stall"};
	WsbPlan		plan;
	WsbRun		runs[4];
	char		dir[] = "/tmp/wsb_test_labels_XXXXXX";
	char		path[512];
	char	   *html = NULL;
	int			rc = -2;
	int			nsvg = 0;

	init_plan(&plan, 2, labels, "shared_preload_libraries", values);
	memset(runs, 0, sizeof(runs));
	for (int i = 0; i < 4; i++)
	{
		WsbRun	   *r = &runs[i];

		r->config = i % 2;
		r->repeat = i / 2 + 1;
		r->order = i + 1;
		r->started_at = 1764496800 + i * 10;
		r->seconds = 3;
		r->tps = 500 + 10 * i;
		r->transactions = 1500;
		r->ok = true;
		r->collector_cpu_share = -1;
		r->nseconds = 3;
		r->per_second = calloc(3, sizeof(WsbPgbenchSecond));
		for (int s = 0; s < 3; s++)
		{
			r->per_second[s].epoch = r->started_at + s;
			r->per_second[s].transactions = 500;
		}
	}
	unlink("/tmp/wsb_test_pwned");
	if (mkdtemp(dir) != NULL)
	{
		rc = wsb_write_report(dir, NULL, &plan, runs, 4, NULL, NULL);
		snprintf(path, sizeof(path), "%s/report.html", dir);
		html = read_path(path);
	}
	if (html == NULL)
		html = strdup("");
	for (const char *p = html; (p = strstr(p, "<svg")) != NULL; p++)
		nsvg++;
	check(rc == 0 && nsvg == 2, "labels with quotes, a backslash and a backquote: both charts drawn (rc %d, %d <svg)",
		  rc, nsvg);
	check(strstr(html, "shared_preload_libraries=&#39;&#39;") != NULL,
		  "the quoted label appears in the tables, escaped");
	check(strstr(html, "`touch /tmp/wsb_test_pwned`") != NULL && access("/tmp/wsb_test_pwned", F_OK) != 0,
		  "a backquoted label is drawn as typed, not run by gnuplot");
	{
		char	   *gp;

		snprintf(path, sizeof(path), "%s/plots/strip.gp", dir);
		gp = read_path(path);
		check(gp && strstr(gp, "\"x='a''b' \\\"q\\\" \\\\ \\140touch /tmp/wsb_test_pwned\\140\""),
			  "gnuplot strings: double-quoted, \\\" \\\\ and \\140 escaped");
		free(gp);
	}
	free(html);
	free_runs(runs, 4);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* runs too short for a configuration's stall cycle (experiment.c) */
void
plan_text(const WsbOptions *o, const WsbPlan *plan, char *text, size_t len)
{
	PQExpBufferData b;

	initPQExpBuffer(&b);
	wsb_plan_text(o, plan, &b);
	wsb_strlcpy(text, b.data, len);
	termPQExpBuffer(&b);
}

/* wsb_short_runs on the four runs, its text copied into buf, the length needed into *needed */
static int
short_runs(const WsbPlan *plan, const WsbRun *runs, int duration, char *buf, size_t len, double *needed)
{
	PQExpBufferData b;
	int			named;

	initPQExpBuffer(&b);
	named = wsb_short_runs(plan, runs, 4, duration, &b, needed);
	wsb_strlcpy(buf, b.data, len);
	termPQExpBuffer(&b);
	return named;
}

static void
test_short_runs(void)
{
	static const char *const names[] = {"class", "kind", "episodes", "total_ms", "p50_ms"};
	static const char *const values[] = {"32kB", "16MB"};
	const char *labels[2] = {"wal_buffers=32kB", "wal_buffers=16MB"};
	WsbPlan		plan;
	WsbRun		runs[4];
	char		buf[1024];
	int			named;
	double		needed;

	init_plan(&plan, 2, labels, "wal_buffers", values);
	memset(runs, 0, sizeof(runs));
	for (int i = 0; i < 4; i++)
	{
		/* 32kB: 300 episodes of 5 ms; 16MB: 19 of 2.2 and 2.4 s */
		const char *cells[] = {"wal_buffer_full", "stall", i % 2 ? "19" : "300", "40000",
		i % 2 ? (i < 2 ? "2200" : "2400") : "5", "wal_flush", "stall", "3", "12", "4"};

		runs[i].config = i % 2;
		runs[i].repeat = i / 2 + 1;
		runs[i].ok = true;
		runs[i].summary = make_rows(5, names, 2, cells);
	}
	named = short_runs(&plan, runs, 10, buf, sizeof(buf), &needed);
	check(named == 1 && needed == 23 && strcmp(buf, "runs too short for wal_buffers=16MB's stall cycle: its median "
							   "wal_buffer_full episode lasts 2.3 s, over a tenth of the 10 s runs; "
							   "runs of 23 s or more would hold ten (--duration)\n") == 0,
		  "short runs: 16MB's 2.3 s episodes in 10 s runs are named, 32kB's 5 ms not (%d: %s)", named, buf);
	named = short_runs(&plan, runs, 30, buf, sizeof(buf), &needed);
	check(named == 0 && buf[0] == '\0' && needed == 0,
		  "short runs: 30 s runs hold ten 2.3 s episodes: none named");

	/*
	 * --budget lengthens the later rounds' runs instead: 23 s needed, 10 s
	 * runs, 2 configurations, 6 s of overhead a run.  With 100 s left two
	 * rounds of 4 runs' worth fit at 100 / 4 - 6 = 19 s; with 200 s the 23 s
	 * needed fit; with 60 s only 9 s would, no longer than now: 0.
	 */
	{
		static const struct
		{
			int			warmup;
			double		left;
			int			want;
			const char *what;
		}			cases[] = {
			{0, 100, 19, "19 s runs fit two more rounds in 100 s"},
			{0, 200, 23, "to the 23 s needed when they fit"},
			{3, 100, 16, "a 3 s warm-up counts against it"},
			{0, 60, 0, "not when what fits is no longer than the runs are"},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			int			got = wsb_lengthened_duration(23, 10, cases[i].warmup, 2, cases[i].left);

			check(got == cases[i].want, "budget lengthens: %s (got %d)", cases[i].what, got);
		}
	}
	free_runs(runs, 4);
}

/*
 * A CLOG sweep of 64 (the baseline), 16 and 32 buffers, 8 rounds: 16
 * misses 60 of 3,000 lookups a run (2%), 32 and 64 a few; run 2 of 32
 * failed, and in round 3 of 16 wal_stall's count of reads is one less
 * than pg_stat_slru's; 16's clients wait 90 ms a run on the CLOG lock.
 */
static int
make_clog_runs(WsbPlan *plan, WsbRun *runs)
{
	static const char *const values[] = {"64", "16", "32"};
	static const char *const labels[] = {"transaction_buffers=64", "transaction_buffers=16",
	"transaction_buffers=32"};
	static const char *const cn[] = {"buffers", "hits", "reads"};
	int			n = 0;

	init_plan(plan, 3, labels, "transaction_buffers", values);
	plan->clients = 4;
	plan->margin_pct = 5;
	for (int rep = 1; rep <= 8; rep++)
		for (int c = 0; c < 3; c++)
		{
			WsbRun	   *r = &runs[n++];
			int64_t		reads = c == 1 ? 60 : 2 + rep % 2;
			char		cells[3][32];
			const char *cc[] = {cells[0], cells[1], cells[2]};

			memset(r, 0, sizeof(*r));
			r->config = c;
			r->repeat = rep;
			r->order = n;
			r->seconds = rep == 5 ? 14.5 : 15;
			r->tps = (c == 1 ? 960 : 1000) + (rep * (c + 3)) % 7;
			r->transactions = (int64_t) (r->tps * r->seconds);
			r->ok = !(c == 2 && rep == 2);
			r->slru_clog_reads = reads;
			r->slru_clog_hits = 3000 - reads;
			snprintf(cells[0], 32, "%s", values[c]);
			snprintf(cells[1], 32, "%lld", (long long) r->slru_clog_hits);
			snprintf(cells[2], 32, "%lld", (long long) (reads - (c == 1 && rep == 3)));
			r->clog = make_rows(3, cn, 1, cc);
			r->summary = make_summary(0, 0, 4000, 9.0);
			if (c == 1)
			{
				/* 90 ms of CLOG lock waits a run (row 3, total_ms) */
				free(r->summary.cells[3][3]);
				r->summary.cells[3][3] = strdup("90.000");
			}
		}
	return n;
}

/*
 * What one of the CLOG printers wrote, malloc'd: of the runs in memory, or
 * with csv of that clog.csv's text; with plotdir report.html's section.
 */
static char *
clog_printed(const WsbPlan *plan, const WsbRun *runs, int nruns, const char *csv,
			 const char *plotdir, const WsbVerdicts *vs, int *rc, char *err, size_t errlen)
{
	FILE	   *f = tmpfile();
	char	   *text = csv ? read_path(csv) : NULL;
	size_t		len = text ? strlen(text) : 0;
	char	   *s;

	*rc = 0;
	if (f == NULL || (csv != NULL && text == NULL))
	{
		*rc = -2;
		if (f)
			fclose(f);
		free(text);
		return strdup("");
	}
	if (csv == NULL && plotdir == NULL)
		wsb_clog_print(f, plan, runs, nruns, vs);
	else if (csv == NULL)
		wsb_clog_html(f, plotdir, plan, runs, nruns, NULL, vs);
	else if (plotdir == NULL)
		*rc = wsb_clog_judge_print(f, csv, text, len, vs, err, errlen);
	else
		*rc = wsb_clog_judge_html(f, plotdir, csv, text, len, vs, err, errlen);
	s = slurp(f);
	fclose(f);
	free(text);
	return s;
}

/*
 * --judge DIR of a CLOG sweep prints the section the run printed, from
 * the run's clog.csv: the same bytes, and nothing when clog.csv is absent;
 * its cells are read as untrusted input.
 */
static void
test_clog_judged(void)
{
	WsbPlan		plan;
	WsbRun		runs[24];
	WsbVerdicts vs;
	int			n = make_clog_runs(&plan, runs);
	char		dir[] = "/tmp/wsb_test_clog_XXXXXX";
	char		results[512],
				clog[512],
				err[1024] = "";
	const char *labels[3];
	char	   *live,
			   *again,
			   *text;
	int			rc;

	if (mkdtemp(dir) == NULL)
	{
		check(false, "a temporary directory for clog.csv");
		free_runs(runs, n);
		return;
	}
	snprintf(results, sizeof(results), "%s/results.csv", dir);
	snprintf(clog, sizeof(clog), "%s/clog.csv", dir);
	for (int c = 0; c < 3; c++)
		labels[c] = plan.configs[c].label;
	rc = wsb_write_results_csv(results, &plan, runs, n);
	if (rc == 0)
		rc = wsb_verdicts_from_csv_ordered(results, labels[0], labels, 3, plan.margin_pct, 0, 0,
										   &vs, err, sizeof(err));
	check(rc == 0, "the CLOG sweep's results judged (%s)", err);
	if (rc != 0)
	{
		free_runs(runs, n);
		return;
	}

	live = clog_printed(&plan, runs, n, NULL, NULL, &vs, &rc, err, sizeof(err));
	rc = wsb_clog_write_csv(clog, &plan, runs, n);
	again = clog_printed(&plan, runs, n, clog, NULL, &vs, &rc, err, sizeof(err));
	check(rc == 0 && strcmp(live, again) == 0,
		  "--judge of a CLOG sweep prints what the run printed, from clog.csv (%s)\n%s\n%s", err,
		  live, again);
	check(strstr(live, "\n16       4.17         4.16         0.9800    0.151    0.000    964      "
				 "equivalent within +-5%, 3.9% slower [-4.2%, -3.6%]\n         (wal_stall's misses "
				 "differ from pg_stat_slru's in 1 of 8 runs)\n32       0.17         0.17         "
				 "0.9991    0.000    0.000    1004     equivalent within +-5%\n64       0.17         "
				 "0.17         0.9992    0.000    0.000    1003     baseline\n") != NULL,
		  "... the rows by buffer count: misses per 1,000 transactions, hit ratio, the clients' "
		  "share, tps; a run whose counts differ is named; a failed run left out");
	check(strstr(live, "\nThe tipping point on this machine: 32 buffers.  From there on the CLOG "
				 "misses are within 1% of the lookups") != NULL,
		  "... and the tipping-point sentence");
	free(live);
	free(again);

	/* report.html of --judge --out: the section the run's report had, but
	 * for the aged table's span (the run's environment, not in clog.csv) */
	live = clog_printed(&plan, runs, n, NULL, dir, &vs, &rc, err, sizeof(err));
	again = clog_printed(&plan, runs, n, clog, dir, &vs, &rc, err, sizeof(err));
	check(rc == 0 && strstr(live, "<h2>The CLOG by buffer count</h2>") &&
		  strstr(live, "The tipping point on this machine: 32 buffers.") &&
		  strcmp(live, again) == 0,
		  "--judge --out of a CLOG sweep: report.html's section as the run wrote it (%s)\n%.400s\n%.400s",
		  err, live, again);
	free(again);

	/* a clog.csv of a run before seconds and clients: the shares unknown */
	text = read_path(clog);
	if (text != NULL)
	{
		char	   *cut;
		PQExpBufferData old;

		initPQExpBuffer(&old);
		for (char *line = text; *line; line = cut + 1)
		{
			char	   *last;

			if ((cut = strchr(line, '\n')) == NULL)
				break;
			*cut = '\0';
			/* drop the last two cells */
			for (int k = 0; k < 2 && (last = strrchr(line, ',')) != NULL; k++)
				*last = '\0';
			appendPQExpBuffer(&old, "%s\n", line);
		}
		wsb_write_file(clog, old.data);
		termPQExpBuffer(&old);
		free(text);
	}
	again = clog_printed(&plan, runs, n, clog, NULL, &vs, &rc, err, sizeof(err));
	check(rc == 0 && strstr(again, "\n16       4.17         4.16         0.9800    -        -        "
							"964      "),
		  "a clog.csv without seconds and clients: the shares of client time unknown (%s)", again);
	free(again);

	/* its cells are untrusted input */
	{
		static const struct
		{
			const char *row;
			const char *message;
		}			cases[] = {
			{"transaction_buffers=16,1,true,16,abc,960,2970,30,2970,30,,0.2,0.2,15,4\n",
			"line 2: transactions is not a number in its range: \"abc\""},
			{"transaction_buffers=16,1,true,0,14400,960,2970,30,2970,30,,0.2,0.2,15,4\n",
			"line 2: clog_buffers is not a number in its range: \"0\""},
			{"transaction_buffers=16,1,true,16,14400,960,2970,\"3\x1b[2J\",2970,30,,0.2,0.2,15,4\n",
			"line 2: slru_reads is not a number in its range"},
			{"transaction_buffers=16,1,true,16,14400,960,2970,30,2970,30,,0.2,0.2,15,1e400\n",
			"line 2: clients is not a number in its range: \"1e400\""},
			{"transaction_buffers=16,1,true,16.5,14400,960,2970,30,2970,30,,0.2,0.2,15,4\n",
			"line 2: clog_buffers is not a number in its range: \"16.5\""},
			{"transaction_buffers=16,1,true,16,14400,nan,2970,30,2970,30,,0.2,0.2,15,4\n",
			"line 2: tps is not a number in its range: \"nan\""},
			{"transaction_buffers=16,0,true,16,14400,960,2970,30,2970,30,,0.2,0.2,15,4\n",
			"line 2: round is not a number in its range: \"0\""},
			{"transaction_buffers=16,2,true,16,14400,960,2970,30,2970,30,,0.2,0.2,15,4\n"
				"transaction_buffers=32,2,true,32,14400,960,2970,30,2970,30,,0.2,0.2,15,4\n"
				"transaction_buffers=16,2,true,16,14400,960,2970,30,2970,30,,0.2,0.2,15,4\n",
			"line 4: a second run of one configuration in round 2"},
			{"transaction_buffers=8,1,true,8,14400,960,2970,30,2970,30,,0.2,0.2,15,4\n"
				"transaction_buffers=16,1,false,16,,,,,,,,,,,4\n",
			"has no successful run of a configuration judged"},
		};
		static const char head[] = "configuration,round,ok,clog_buffers,transactions,tps,slru_hits,"
			"slru_reads,wal_stall_hits,wal_stall_reads,misses_per_1000_transactions,clog_ms,"
			"slru_io_ms,seconds,clients\n";

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			char	   *csv = wsb_psprintf("%s%s", head, cases[i].row);

			wsb_write_file(clog, csv);
			free(csv);
			again = clog_printed(&plan, runs, n, clog, NULL, &vs, &rc, err, sizeof(err));
			check(rc == -1 && again[0] == '\0' && strstr(err, cases[i].message) &&
				  !strchr(err, '\x1b'),
				  "a bad clog.csv cell is refused, nothing printed: %s (got \"%s\")",
				  cases[i].message, err);
			free(again);
		}
		wsb_write_file(clog, "configuration,round,tps\n");
		again = clog_printed(&plan, runs, n, clog, NULL, &vs, &rc, err, sizeof(err));
		check(rc == -1 && strstr(err, "needs the columns configuration, round, ok, clog_buffers"),
			  "a clog.csv without its columns is refused (got \"%s\")", err);
		free(again);
	}

	free(live);
	snprintf(clog, sizeof(clog), "rm -rf '%s'", dir);
	if (system(clog) != 0)
		check(false, "%s", clog);
	wsb_verdicts_free(&vs);
	free_runs(runs, n);
}

/* Every run failed: no data to chart, and still a report with verdicts. */
static void
test_report_all_failed(void)
{
	WsbPlan		plan;
	WsbRun		runs[15];
	WsbEnvironment env;
	WsbOptions	opts;
	int			n = make_crafted_runs(&plan, runs, "wal_buffers=-1");
	char		dir[] = "/tmp/wsb_test_failed_XXXXXX";
	char		path[512];
	char	   *html = NULL;
	int			rc = -2;
	char		longcmd[3000];

	for (int i = 0; i < n; i++)
	{
		runs[i].ok = false;
		snprintf(runs[i].error, sizeof(runs[i].error), "pgbench failed (exit status 1): connection refused");
	}
	fill_environment(&env, &opts);
	/* a pgbench command longer than the 2048 bytes it once was cut at */
	memset(longcmd, 'p', sizeof(longcmd) - 1);
	longcmd[sizeof(longcmd) - 1] = '\0';
	memcpy(longcmd, "pgbench ", 8);
	env.pgbench_command = longcmd;
	if (mkdtemp(dir) != NULL)
	{
		rc = wsb_write_report(dir, &opts, &plan, runs, n, &env, NULL);
		snprintf(path, sizeof(path), "%s/report.html", dir);
		html = read_path(path);
	}
	check(rc == 0 && html != NULL, "every run failed: report.html written, rc 0 (rc %d)", rc);
	if (html == NULL)
		html = strdup("");
	check(strstr(html, longcmd) != NULL, "a %zu-byte pgbench command is in report.html whole",
		  strlen(longcmd));
	check(strstr(html, "<h2>Runs</h2>") && strstr(html, "<td class=\"n\">0/3</td>") &&
		  strstr(html, "connection refused"),
		  "every run failed: the runs table and each run's error are there");
	check(strstr(html, "<svg") == NULL && strstr(html, "every run failed, so there is nothing to draw"),
		  "every run failed: no charts, and the report says why");
	check(strstr(html, "<h2>Advice</h2>") && strstr(html, "<td colspan=\"6\">no successful run</td>"),
		  "every run failed: the advice section says there was no successful run");
	check(strstr(html, "Confound") == NULL, "wal_buffers varies: no CLOG confound stated");
	free(html);

	/* the same plan varying shared_buffers: before 17 a confound, from 17 none */
	for (int c = 0; c < plan.nconfigs; c++)
		strcpy(plan.configs[c].names[0], "shared_buffers");
	html = NULL;
	if (wsb_write_report(dir, &opts, &plan, runs, n, &env, NULL) == 0)
		html = read_path(path);
	check(html && strstr(html, "<strong>Confound:</strong> <code>shared_buffers</code> differs"),
		  "shared_buffers varies on 15: the report states the CLOG confound");
	free(html);
	snprintf(env.pg_version, sizeof(env.pg_version), "PostgreSQL 17.2 (Debian 17.2-1) on x86_64");
	html = NULL;
	if (wsb_write_report(dir, &opts, &plan, runs, n, &env, NULL) == 0)
		html = read_path(path);
	check(html && strstr(html, "Confound") == NULL,
		  "shared_buffers varies on 17: no confound (transaction_buffers is the CLOG's own)");
	free(html);
	free_runs(runs, n);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/*
 * A list setting's value split into elements (settings.c): an element
 * longer than a setting's value buffer (WSB_VALUE_LEN) comes back whole,
 * and quotes, "" and blanks are read as the server reads them.
 */
static void
test_list_elements(void)
{
	char		value[3 * WSB_VALUE_LEN];
	char		el[sizeof(value)];
	const char *p = value;
	size_t		longlen = WSB_VALUE_LEN + 100;
	int			n = 0;
	bool		whole = false;

	memset(value, 'x', longlen);
	strcpy(value + longlen, ", \"a,\"\"b\" ,c");
	while (wsb_list_element(&p, el))
	{
		if (n == 0)
			whole = strlen(el) == longlen && strspn(el, "x") == longlen;
		else if (n == 1)
			check(strcmp(el, "a,\"b") == 0, "list element 2: a quoted \"a,\"\"b\" is a,\"b (got %s)", el);
		else if (n == 2)
			check(strcmp(el, "c") == 0, "list element 3: c (got %s)", el);
		n++;
	}
	check(whole, "list element 1: %zu bytes, longer than WSB_VALUE_LEN (%d), kept whole", longlen, WSB_VALUE_LEN);
	check(n == 3, "a list of a long element, a quoted one and c: 3 elements (got %d)", n);
	p = " , ,";
	check(!wsb_list_element(&p, el), "a list of blanks and commas: no element");
}

int
main(void)
{
	test_stats();
	test_csv();
	test_report();
	test_report_summary_half();
	test_timeline_wal_panels();
	test_report_labels();
	test_report_all_failed();
	test_short_runs();
	test_clog_judged();
	test_list_elements();
	test_autoconf();
	test_options();
	test_pgbench();
	test_proc();
	test_validate();
	test_verdict();
	test_answer();
	test_tipping();
	test_disk_profiles();
	test_files();
	test_simulation();
	return tap_finish();
}
