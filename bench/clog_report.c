/*-------------------------------------------------------------------------
 *
 * clog_report.c
 *		wal_stall_bench: the CLOG by buffer count.
 *
 * The question of 2011 (NUM_CLOG_BUFFERS recompiled at 8..48, "the tipping
 * point is somewhere in the neighborhood of 32 buffers"), asked of a
 * buffer sweep: per configuration its CLOG buffers (wal_stall_clog's
 * buffers, what the server really has, so on 13-16 the count that follows
 * shared_buffers), its misses (CLOG pages read into the SLRU) per 1,000
 * transactions from pg_stat_slru and from wal_stall_clog side by side (the
 * run reads both in the same statistics snapshots, so they agree to the
 * page), the hit ratio, the share of the clients' time lost to CLOG lock
 * waits (class clog) and SLRU I/O (class slru_io), and tps: the median
 * run and the paired verdict by rounds against the baseline.  Then the
 * chart of misses and tps against the buffer count, and the sentence:
 *
 *	 the tipping point is the smallest count from which on, at every count
 *	 of the sweep, the CLOG misses are within 1% of the lookups of the
 *	 largest count's (their miss ratios, 1 - hit ratio, differ by at most
 *	 0.01) and tps is equivalent within the margin; the tps verdicts are
 *	 against the baseline, so the largest count must be the baseline (the
 *	 clog preset puts it first).  The rule and the sentence are tipping.c's,
 *	 shared with every sweep.
 *
 * Only the judging side: runs in memory, no server.  clog.csv keeps each
 * run's figures, so that --judge DIR prints the section again from it.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "clog_report.h"
#include "engine.h"
#include "report_internal.h"
#include "tipping.h"

/* misses within this share of the lookups of the largest count's */
#define CLOG_MISS_TOLERANCE 0.01

/* One run's CLOG figures: of a run in memory, or a row of clog.csv. */
typedef struct ClogRun
{
	int			config;
	double		buffers;		/* wal_stall_clog.buffers, NAN unknown */
	double		transactions;
	double		tps;
	double		slru_hits;		/* pg_stat_slru, NAN when the run lacks it */
	double		slru_reads;
	double		ws_hits;		/* wal_stall_clog, NAN without wal_stall */
	double		ws_reads;
	double		clog_ms;		/* client stall time by class, NAN unknown */
	double		slru_io_ms;
	double		seconds;		/* the run's length, NAN unknown */
	double		clients;
} ClogRun;

/* One configuration's CLOG figures, over its successful runs. */
typedef struct ClogRow
{
	int			config;
	int			runs;			/* successful runs */
	double		buffers;		/* wal_stall_clog.buffers, NAN unknown */
	double		transactions;
	double		slru_hits;		/* pg_stat_slru, NAN when a run lacks it */
	double		slru_reads;
	double		ws_hits;		/* wal_stall_clog */
	double		ws_reads;
	int			equal_runs;		/* runs whose two read counts agree */
	double		clog_ms;		/* client stall time by class */
	double		slru_io_ms;
	double		client_ms;		/* clients x run ms, NAN unknown */
	double		tps_median;
	const WsbPaired *tps;		/* against the baseline by rounds, NULL */
} ClogRow;

/*
 * The columns of clog.csv past configuration, round and ok: a ClogRun's
 * field each, a count (whole) or a figure to the thousandth, with the
 * least value a run can write, but for the misses per 1,000 transactions,
 * which are derived (offset -1) and so not read back.  Only tps is known
 * for every successful run.
 */
#define CLOG_COUNT(name, field, least) {name, "%.0f", offsetof(ClogRun, field), least, true}
#define CLOG_FIGURE(name, field) {name, "%.3f", offsetof(ClogRun, field), 0, false}
static const struct
{
	const char *name;
	const char *format;
	ptrdiff_t	offset;
	double		least;
	bool		whole;
}			clog_columns[] = {
	CLOG_COUNT("clog_buffers", buffers, 1),
	CLOG_COUNT("transactions", transactions, 0),
	CLOG_FIGURE("tps", tps),
	CLOG_COUNT("slru_hits", slru_hits, 0),
	CLOG_COUNT("slru_reads", slru_reads, 0),
	CLOG_COUNT("wal_stall_hits", ws_hits, 0),
	CLOG_COUNT("wal_stall_reads", ws_reads, 0),
	{"misses_per_1000_transactions", "%.3f", -1, 0, false},
	CLOG_FIGURE("clog_ms", clog_ms),
	CLOG_FIGURE("slru_io_ms", slru_io_ms),
	CLOG_FIGURE("seconds", seconds),
	CLOG_COUNT("clients", clients, 1),
};

#define CLOG_COLUMN_TPS 2

/* the most any cell of clog.csv may hold */
#define CLOG_CELL_MAX 1e15

#define CLOG_NCOLUMNS ((int) (sizeof(clog_columns) / sizeof(clog_columns[0])))

/* opts may be NULL (a report of --judge, or of the unit tests' runs) */
bool
wsb_clog_wanted(const WsbOptions *opts, const WsbPlan *plan)
{
	if (opts != NULL && opts->aged_pages > 0)
		return true;
	for (int c = 0; c < plan->nconfigs; c++)
		for (int s = 0; s < plan->configs[c].nsettings; s++)
			if (strcmp(plan->configs[c].names[s], "transaction_buffers") == 0)
				return true;
	return false;
}

static double
per_thousand(double misses, double transactions)
{
	return transactions > 0 ? 1000.0 * misses / transactions : NAN;
}

static double
miss_ratio(const ClogRow *r)
{
	return r->slru_hits + r->slru_reads > 0 ? r->slru_reads / (r->slru_hits + r->slru_reads) : NAN;
}

static double
share(double ms, double client_ms)
{
	return client_ms > 0 ? ms / client_ms : NAN;
}

/* A row's buffer count, its place in the sweep. */
static double
row_buffers(const void *row)
{
	return ((const ClogRow *) row)->buffers;
}

/* Column k of clog.csv for a run. */
static double *
run_field(ClogRun *run, int k)
{
	return (double *) ((char *) run + clog_columns[k].offset);
}

/*
 * A run's CLOG figures, what clog.csv keeps of it: each as the file
 * writes it, so that the section the run prints is the one --judge prints
 * again from the file.
 */
static ClogRun
run_figures(const WsbPlan *plan, const WsbRun *r)
{
	ClogRun		run = {
		.config = r->config,
		.buffers = wsb_first_row_value(&r->clog, "buffers"),
		.transactions = (double) r->transactions,
		.tps = r->tps,
		.slru_hits = r->slru_clog_hits >= 0 ? (double) r->slru_clog_hits : NAN,
		.slru_reads = r->slru_clog_reads >= 0 ? (double) r->slru_clog_reads : NAN,
		.ws_hits = wsb_first_row_value(&r->clog, "hits"),
		.ws_reads = wsb_first_row_value(&r->clog, "reads"),
		.clog_ms = wsb_summary_value(r, "clog", "total_ms"),
		.slru_io_ms = wsb_summary_value(r, "slru_io", "total_ms"),
		.seconds = r->seconds,
		.clients = plan->clients,
	};

	for (int k = 0; k < CLOG_NCOLUMNS; k++)
		if (clog_columns[k].offset >= 0)
			*run_field(&run, k) = wsb_as_written(clog_columns[k].format, *run_field(&run, k));
	return run;
}

/* Add a successful run to its configuration's row; its tps into tps[]. */
static void
add_run(ClogRow *row, const ClogRun *run, double *tps)
{
	tps[row->runs++] = run->tps;
	if (!isnan(run->buffers))
		row->buffers = run->buffers;
	row->transactions += run->transactions;
	row->slru_reads += run->slru_reads;	/* NAN when a run lacks pg_stat_slru */
	row->slru_hits += run->slru_hits;
	row->ws_reads += run->ws_reads;	/* NAN when wal_stall was not loaded */
	row->ws_hits += run->ws_hits;
	if (run->ws_reads == run->slru_reads)
		row->equal_runs++;
	row->clog_ms += isnan(run->clog_ms) ? 0 : run->clog_ms;
	row->slru_io_ms += isnan(run->slru_io_ms) ? 0 : run->slru_io_ms;
	row->client_ms += run->seconds * 1000.0 * run->clients;
}

/*
 * The configurations' rows of the successful runs, sorted by buffer count
 * (unknown counts last); labels[c] names configuration c.  The count, or
 * -1 out of memory.
 */
static int
collect(const char *const *labels, int nconfigs, const ClogRun *runs, int nruns,
		const WsbVerdicts *verdicts, ClogRow *rows)
{
	double	   *tps = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	int			n = 0;

	if (tps == NULL)
		return -1;
	for (int c = 0; c < nconfigs; c++)
	{
		ClogRow    *row = &rows[n];

		memset(row, 0, sizeof(*row));
		row->config = c;
		row->buffers = NAN;
		for (int i = 0; i < nruns; i++)
			if (runs[i].config == c)
				add_run(row, &runs[i], tps);
		if (row->runs == 0)
			continue;
		row->tps_median = wsb_median(tps, row->runs);
		row->tps = wsb_tip_tps(verdicts, labels[c]);
		n++;
	}
	free(tps);
	wsb_sort_by_key(rows, n, sizeof(ClogRow), row_buffers);
	return n;
}

/* The rows of a plan's successful runs in memory; -1 out of memory. */
static int
collect_runs(const WsbPlan *plan, const WsbRun *runs, int nruns, const WsbVerdicts *verdicts,
			 ClogRow *rows)
{
	ClogRun    *figures = malloc(sizeof(ClogRun) * (nruns > 0 ? nruns : 1));
	const char *labels[WSB_MAX_CONFIGS];
	int			nok = 0;
	int			n;

	if (figures == NULL)
		return -1;
	for (int c = 0; c < plan->nconfigs; c++)
		labels[c] = plan->configs[c].label;
	for (int i = 0; i < nruns; i++)
		if (runs[i].ok)
			figures[nok++] = run_figures(plan, &runs[i]);
	n = collect(labels, plan->nconfigs, figures, nok, verdicts, rows);
	free(figures);
	return n;
}

/*
 * The tipping-point sentence into buf.  rows sorted by buffers, n of them
 * with known counts first.  Settled: the miss ratio (1 - hit ratio) within
 * CLOG_MISS_TOLERANCE of the largest count's.
 */
static void
tipping_sentence(const ClogRow *rows, int n, double margin_pct, const char *baseline_label,
				 char *buf, size_t len)
{
	WsbTipValue v[WSB_MAX_CONFIGS];
	WsbTipSweep sweep = {
		.noun = "count",
		.settled_rule = "the CLOG misses are within 1% of the lookups of the largest count's",
		.larger = "more CLOG buffers",
		.margin_pct = margin_pct,
		.baseline_label = baseline_label,
	};
	double		largest = NAN;

	for (int i = 0; i < n; i++)
		if (!isnan(rows[i].buffers) && !isnan(miss_ratio(&rows[i])))
			largest = miss_ratio(&rows[i]);
	for (int i = 0; i < n; i++)
	{
		const ClogRow *r = &rows[i];

		memset(&v[i], 0, sizeof(v[i]));
		v[i].value = r->buffers;
		snprintf(v[i].name, sizeof(v[i].name), "%.0f buffers", r->buffers);
		v[i].known = !isnan(r->buffers) && !isnan(miss_ratio(r));
		v[i].settled = v[i].known && fabs(miss_ratio(r) - largest) <= CLOG_MISS_TOLERANCE;
		snprintf(v[i].stalls, sizeof(v[i].stalls), "%.2f%% of the lookups miss", 100.0 * miss_ratio(r));
		v[i].stall_share = share(r->clog_ms + r->slru_io_ms, r->client_ms);
		v[i].baseline = r->config == 0;
		v[i].tps = r->tps;
	}
	wsb_tip_sentence(&sweep, v, n, buf, len);
}

int
wsb_clog_write_csv(const char *path, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	FILE	   *f = wsb_create_file(path, 0666);

	if (f == NULL)
		return -1;
	fputs("configuration,round,ok", f);
	for (int k = 0; k < CLOG_NCOLUMNS; k++)
		fprintf(f, ",%s", clog_columns[k].name);
	fputc('\n', f);
	for (int i = 0; i < nruns; i++)
	{
		ClogRun		run = run_figures(plan, &runs[i]);

		wsb_csv_field(f, plan->configs[runs[i].config].label);
		fprintf(f, ",%d,%s", runs[i].repeat, runs[i].ok ? "true" : "false");
		for (int k = 0; k < CLOG_NCOLUMNS; k++)
		{
			double		v = clog_columns[k].offset >= 0 ? *run_field(&run, k) :
				per_thousand(run.slru_reads, run.transactions);

			fputc(',', f);
			if (!isnan(v))
				fprintf(f, clog_columns[k].format, v);
		}
		fputc('\n', f);
	}
	return wsb_close_written(f, 0);
}

static void
fmt_number(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

/* The table and the sentence of rows, sorted by buffer count. */
static void
print_rows(FILE *f, const ClogRow *rows, int n, double margin_pct, const char *baseline_label)
{
	char		sentence[2048];

	fputs("\nCLOG by buffer count (misses: CLOG pages read into the SLRU, exact)\n", f);
	fprintf(f, "%-8s %-12s %-12s %-9s %-8s %-8s %-8s %s\n", "buffers", "misses/1000", "(wal_stall)",
			"hit", "clog", "slru_io", "tps", "tps by rounds");
	fprintf(f, "%-8s %-12s %-12s %-9s %-8s %-8s %-8s\n", "", "pg_stat_slru", "", "ratio",
			"%client", "%client", "median");
	for (int i = 0; i < n; i++)
	{
		const ClogRow *r = &rows[i];
		char		b[32],
					m1[32],
					m2[32],
					h[32],
					s1[32],
					s2[32];

		fmt_number(b, sizeof(b), "%.0f", r->buffers);
		fmt_number(m1, sizeof(m1), "%.2f", per_thousand(r->slru_reads, r->transactions));
		fmt_number(m2, sizeof(m2), "%.2f", per_thousand(r->ws_reads, r->transactions));
		fmt_number(h, sizeof(h), "%.4f", isnan(miss_ratio(r)) ? NAN : 1 - miss_ratio(r));
		fmt_number(s1, sizeof(s1), "%.3f", 100.0 * share(r->clog_ms, r->client_ms));
		fmt_number(s2, sizeof(s2), "%.3f", 100.0 * share(r->slru_io_ms, r->client_ms));
		fprintf(f, "%-8s %-12s %-12s %-9s %-8s %-8s %-8.0f %s\n", b, m1, m2, h, s1, s2,
				r->tps_median, r->tps ? r->tps->words : "-");
		if (r->equal_runs < r->runs)
			fprintf(f, "         (wal_stall's misses differ from pg_stat_slru's in %d of %d runs)\n",
					r->runs - r->equal_runs, r->runs);
	}
	tipping_sentence(rows, n, margin_pct, baseline_label, sentence, sizeof(sentence));
	fprintf(f, "%s\n", sentence);
}

void
wsb_clog_print(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns,
			   const WsbVerdicts *verdicts)
{
	ClogRow		rows[WSB_MAX_CONFIGS];
	int			n = collect_runs(plan, runs, nruns, verdicts, rows);

	if (n < 0)
		fputs("\nCLOG by buffer count: out of memory\n", f);
	else
		print_rows(f, rows, n, plan->margin_pct, plan->configs[0].label);
}

/*
 * A successful run's cells into run; false with err when a cell is not
 * what the run writes: out of its range, a count not whole, no tps.
 */
static bool
read_run(const WsbCsvReader *r, const int *col, const char *path, ClogRun *run, char *err,
		 size_t errlen)
{
	for (int k = 0; k < CLOG_NCOLUMNS; k++)
	{
		const char *cell = wsb_csv_text(r, col[k]);
		double	   *v;
		bool		read;

		if (clog_columns[k].offset < 0)
			continue;
		v = run_field(run, k);
		read = clog_columns[k].whole ?
			wsb_csv_count(cell, clog_columns[k].least, CLOG_CELL_MAX, v) :
			wsb_csv_number(cell, clog_columns[k].least, CLOG_CELL_MAX, v);
		if (!read || (k == CLOG_COLUMN_TPS && isnan(*v)))
		{
			wsb_csv_bad_number(err, errlen, path, r->line, clog_columns[k].name, cell);
			return false;
		}
	}
	return true;
}

/*
 * The successful runs of clog.csv's text, for the configurations verdicts
 * judged (a row of another is left out), into *runs (malloc'd); the count,
 * or -1 with err.  A column the run did not write (seconds and clients
 * came later) reads as unknown.  A configuration has one run a round, so
 * there are at most WSB_MAX_CONFIGS x WSB_MAX_ROUNDS.
 */
static int
read_clog_runs(const char *path, const char *text, size_t len, const WsbVerdicts *verdicts,
			   ClogRun **runs, char *err, size_t errlen)
{
	int			col[CLOG_NCOLUMNS];
	int			config_col,
				round_col,
				ok_col;
	WsbCsvReader r;
	char		msg[512];
	bool	   *seen = calloc(WSB_MAX_CONFIGS * (WSB_MAX_ROUNDS + 1), sizeof(bool));
	int			n = 0,
				cap = 0;
	int			rc;

	*runs = NULL;
	if (seen == NULL || !wsb_csv_reader_init(&r, text, len))
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		free(seen);
		return -1;
	}
	rc = wsb_csv_next_row(&r, msg, sizeof(msg));
	config_col = rc > 0 ? wsb_csv_column(&r, "configuration") : -1;
	round_col = rc > 0 ? wsb_csv_column(&r, "round") : -1;
	ok_col = rc > 0 ? wsb_csv_column(&r, "ok") : -1;
	for (int k = 0; k < CLOG_NCOLUMNS; k++)
		col[k] = rc > 0 ? wsb_csv_column(&r, clog_columns[k].name) : -1;
	if (rc >= 0 && (config_col < 0 || round_col < 0 || ok_col < 0 || col[0] < 0 || col[1] < 0 ||
					col[CLOG_COLUMN_TPS] < 0))
	{
		snprintf(err, errlen, "\"%s\" needs the columns configuration, round, ok, clog_buffers, "
				 "transactions and tps", path);
		wsb_csv_reader_free(&r);
		free(seen);
		return -1;
	}
	while (rc > 0 && (rc = wsb_csv_next_row(&r, msg, sizeof(msg))) > 0)
	{
		ClogRun		run = {.config = wsb_tip_config(verdicts, wsb_csv_text(&r, config_col))};
		const char *round_cell = wsb_csv_text(&r, round_col);
		double		round;

		if (run.config < 0 || run.config >= WSB_MAX_CONFIGS ||
			strcmp(wsb_csv_text(&r, ok_col), "true") != 0)
			continue;
		if (!wsb_csv_count(round_cell, 1, WSB_MAX_ROUNDS, &round) || isnan(round))
		{
			wsb_csv_bad_number(err, errlen, path, r.line, "round", round_cell);
			rc = -2;
			break;
		}
		if (seen[run.config * (WSB_MAX_ROUNDS + 1) + (int) round])
		{
			snprintf(err, errlen, "\"%s\" line %d: a second run of one configuration in round %d",
					 path, r.line, (int) round);
			rc = -2;
			break;
		}
		seen[run.config * (WSB_MAX_ROUNDS + 1) + (int) round] = true;
		if (!read_run(&r, col, path, &run, err, errlen))
		{
			rc = -2;
			break;
		}
		if (n == cap)
		{
			ClogRun    *more = realloc(*runs, sizeof(ClogRun) * (cap = cap ? 2 * cap : 64));

			if (more == NULL)
			{
				snprintf(err, errlen, "\"%s\": out of memory", path);
				rc = -2;
				break;
			}
			*runs = more;
		}
		(*runs)[n++] = run;
	}
	/* -1: the reader's message; -2: err is written */
	if (rc == -1)
		snprintf(err, errlen, "\"%s\" %s", path, msg);
	wsb_csv_reader_free(&r);
	free(seen);
	if (rc != 0)
	{
		free(*runs);
		*runs = NULL;
		return -1;
	}
	return n;
}

/*
 * The configurations' rows of clog.csv's text, sorted by buffer count, and
 * the labels of the configurations judged; the count, or -1 with err when
 * a cell is not what the run writes or no row is of a configuration
 * judged.  clog.csv gives each run's buffers, misses and stall times
 * (results.csv names the setting, not the CLOG the server had); the tps
 * verdicts are those just judged.
 */
static int
judged_rows(const char *path, const char *text, size_t len, const WsbVerdicts *verdicts,
			ClogRow *rows, const char **labels, char *err, size_t errlen)
{
	int			nconfigs = 0;
	ClogRun    *runs;
	int			nruns = read_clog_runs(path, text, len, verdicts, &runs, err, errlen);
	int			n;

	if (nruns < 0)
		return -1;
	if (nruns == 0)
	{
		snprintf(err, errlen, "\"%s\" has no successful run of a configuration judged", path);
		free(runs);
		return -1;
	}
	for (; nconfigs < verdicts->table.nconfigs && nconfigs < WSB_MAX_CONFIGS; nconfigs++)
		labels[nconfigs] = verdicts->table.labels[nconfigs];
	n = collect(labels, nconfigs, runs, nruns, verdicts, rows);
	free(runs);
	if (n < 0)
		snprintf(err, errlen, "\"%s\": out of memory", path);
	return n;
}

int
wsb_clog_judge_print(FILE *f, const char *path, const char *text, size_t len,
					 const WsbVerdicts *verdicts, char *err, size_t errlen)
{
	ClogRow		rows[WSB_MAX_CONFIGS];
	const char *labels[WSB_MAX_CONFIGS];
	int			n = judged_rows(path, text, len, verdicts, rows, labels, err, errlen);

	if (n < 0)
		return -1;
	print_rows(f, rows, n, verdicts->spec.margin_pct, verdicts->table.labels[0]);
	return 0;
}

/* plots/clog.dat and clog.gp, drawn; 0 or -1 with why */
static int
draw_chart(const char *plotdir, const ClogRow *rows, int n, char *why, size_t len)
{
	FILE	   *d,
			   *gp;

	if ((d = wsb_fopenf("w", "%s/clog.dat", plotdir)) == NULL)
		return -1;
	fputs("# buffers misses_per_1000_transactions tps_median\n", d);
	for (int i = 0; i < n; i++)
		if (!isnan(rows[i].buffers) && !isnan(rows[i].slru_reads))
			fprintf(d, "%.0f %.6g %.6g\n", rows[i].buffers,
					per_thousand(rows[i].slru_reads, rows[i].transactions), rows[i].tps_median);
	if (fclose(d) != 0)
		return -1;
	if ((gp = wsb_fopenf("w", "%s/clog.gp", plotdir)) == NULL)
		return -1;
	wsb_gp_sweep_axes(gp, "clog.svg", "CLOG buffers (wal\\_stall\\_clog.buffers)",
					  "CLOG misses per 1,000 transactions (pg\\_stat\\_slru)");
	fputs("plot 'clog.dat' using 1:2:xtic(1) with linespoints lw 2 pt 7 lc rgb '#b2182b' "
		  "title 'misses per 1,000 transactions' axes x1y1, \\\n"
		  "     'clog.dat' using 1:3 with linespoints lw 2 pt 5 lc rgb '#2166ac' "
		  "title 'tps' axes x1y2\n", gp);
	if (fclose(gp) != 0)
		return -1;
	return wsb_run_gnuplot(plotdir, "clog.gp", why, len);
}

/* The table, the sentence and the chart of rows, sorted by buffer count,
 * in report.html. */
static void
html_rows(FILE *f, const char *plotdir, const ClogRow *rows, int n, const char *const *labels,
		  double margin_pct)
{
	char		sentence[2048],
				why[1024] = "";

	fputs("<table><tr><th>CLOG buffers</th><th>configuration</th><th>misses / 1,000 transactions "
		  "(pg_stat_slru)</th><th>(wal_stall_clog)</th><th>hit ratio</th><th>CLOG lock waits, % of "
		  "client time</th><th>SLRU I/O, % of client time</th><th>tps, median run</th>"
		  "<th>tps by rounds against the baseline</th></tr>\n", f);
	for (int i = 0; i < n; i++)
	{
		const ClogRow *r = &rows[i];

		fputs("<tr>", f);
		wsb_html_number_cell(f, "%.0f", r->buffers);
		fputs("<td>", f);
		wsb_html_escape(f, labels[r->config]);
		fputs("</td>", f);
		wsb_html_number_cell(f, "%.2f", per_thousand(r->slru_reads, r->transactions));
		wsb_html_number_cell(f, "%.2f", per_thousand(r->ws_reads, r->transactions));
		wsb_html_number_cell(f, "%.4f", isnan(miss_ratio(r)) ? NAN : 1 - miss_ratio(r));
		wsb_html_number_cell(f, "%.3f", 100.0 * share(r->clog_ms, r->client_ms));
		wsb_html_number_cell(f, "%.3f", 100.0 * share(r->slru_io_ms, r->client_ms));
		wsb_html_number_cell(f, "%.0f", r->tps_median);
		fputs("<td>", f);
		wsb_html_escape(f, r->tps ? r->tps->words : "-");
		if (r->equal_runs < r->runs)
			fprintf(f, " (wal_stall's misses differ from pg_stat_slru's in %d of %d runs)",
					r->runs - r->equal_runs, r->runs);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	tipping_sentence(rows, n, margin_pct, labels[0], sentence, sizeof(sentence));
	fputs("<p><strong>", f);
	wsb_html_escape(f, sentence);
	fputs("</strong> (Misses within 1% of the lookups: the miss ratios, 1 &minus; hit ratio, "
		  "differ by at most 0.01.)</p>\n", f);
	wsb_html_sweep_chart(f, plotdir, "clog.svg", draw_chart(plotdir, rows, n, why, sizeof(why)),
						 why, "CLOG",
						 "<p>CLOG misses per 1,000 transactions (pg_stat_slru) and the median "
						 "run's tps against the buffer count. Data and script: "
						 "<code>plots/clog.dat</code>, <code>plots/clog.gp</code>; a row per run: "
						 "<code>clog.csv</code>.</p>\n");
}

void
wsb_clog_html(FILE *f, const char *plotdir, const WsbPlan *plan, const WsbRun *runs,
			  int nruns, const WsbEnvironment *env, const WsbVerdicts *verdicts)
{
	ClogRow		rows[WSB_MAX_CONFIGS];
	const char *labels[WSB_MAX_CONFIGS];
	int			n = collect_runs(plan, runs, nruns, verdicts, rows);

	for (int c = 0; c < plan->nconfigs; c++)
		labels[c] = plan->configs[c].label;
	fputs("<h2>The CLOG by buffer count</h2>\n", f);
	if (env && env->aged_span[0])
	{
		fputs("<p>The aged table: ", f);
		wsb_html_escape(f, env->aged_span);
		fputs(". Each run started from a fresh copy of it, its rows not yet hinted.</p>\n", f);
	}
	if (n < 0)
		fputs("<p class=\"missing\">The CLOG table: out of memory.</p>\n", f);
	else
		html_rows(f, plotdir, rows, n, labels, plan->margin_pct);
}

int
wsb_clog_judge_html(FILE *f, const char *plotdir, const char *path, const char *text,
					size_t len, const WsbVerdicts *verdicts, char *err, size_t errlen)
{
	ClogRow		rows[WSB_MAX_CONFIGS];
	const char *labels[WSB_MAX_CONFIGS];
	int			n = judged_rows(path, text, len, verdicts, rows, labels, err, errlen);

	if (n < 0)
		return -1;
	fputs("<h2>The CLOG by buffer count</h2>\n", f);
	html_rows(f, plotdir, rows, n, labels, verdicts->spec.margin_pct);
	return 0;
}
