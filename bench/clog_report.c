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
 * Only the judging side: runs in memory, no server.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clog_report.h"
#include "engine.h"
#include "report_internal.h"
#include "tipping.h"

/* misses within this share of the lookups of the largest count's */
#define CLOG_MISS_TOLERANCE 0.01

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
	double		client_ms;		/* clients x run ms */
	double		tps_median;
	const WsbPaired *tps;		/* against the baseline by rounds, NULL */
} ClogRow;

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

static void
add_run(ClogRow *row, const WsbPlan *plan, const WsbRun *r, double *tps)
{
	double		ws_reads = wsb_first_row_value(&r->clog, "reads");
	double		ws_hits = wsb_first_row_value(&r->clog, "hits");
	double		buffers = wsb_first_row_value(&r->clog, "buffers");
	double		clog = wsb_summary_value(r, "clog", "total_ms");
	double		io = wsb_summary_value(r, "slru_io", "total_ms");

	tps[row->runs++] = r->tps;
	if (!isnan(buffers))
		row->buffers = buffers;
	row->transactions += (double) r->transactions;
	if (r->slru_clog_reads < 0 || r->slru_clog_hits < 0)
		row->slru_reads = row->slru_hits = NAN;
	else
	{
		row->slru_reads += (double) r->slru_clog_reads;
		row->slru_hits += (double) r->slru_clog_hits;
	}
	row->ws_reads += ws_reads;	/* NAN when wal_stall was not loaded */
	row->ws_hits += ws_hits;
	if (!isnan(ws_reads) && r->slru_clog_reads >= 0 && ws_reads == (double) r->slru_clog_reads)
		row->equal_runs++;
	row->clog_ms += isnan(clog) ? 0 : clog;
	row->slru_io_ms += isnan(io) ? 0 : io;
	row->client_ms += r->seconds * 1000.0 * plan->clients;
}

/* The configurations' rows, sorted by buffer count (unknown counts last). */
static int
collect(const WsbPlan *plan, const WsbRun *runs, int nruns, const WsbVerdicts *verdicts,
		ClogRow *rows)
{
	double	   *tps = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	int			n = 0;

	if (tps == NULL)
		return 0;
	for (int c = 0; c < plan->nconfigs; c++)
	{
		ClogRow    *row = &rows[n];

		memset(row, 0, sizeof(*row));
		row->config = c;
		row->buffers = NAN;
		for (int i = 0; i < nruns; i++)
			if (runs[i].config == c && runs[i].ok)
				add_run(row, plan, &runs[i], tps);
		if (row->runs == 0)
			continue;
		row->tps_median = wsb_median(tps, row->runs);
		row->tps = wsb_tip_tps(verdicts, plan->configs[c].label);
		n++;
	}
	free(tps);
	wsb_sort_by_key(rows, n, sizeof(ClogRow), row_buffers);
	return n;
}

/*
 * The tipping-point sentence into buf.  rows sorted by buffers, n of them
 * with known counts first.  Settled: the miss ratio (1 - hit ratio) within
 * CLOG_MISS_TOLERANCE of the largest count's.
 */
static void
tipping_sentence(const ClogRow *rows, int n, const WsbPlan *plan, char *buf, size_t len)
{
	WsbTipValue v[WSB_MAX_CONFIGS];
	WsbTipSweep sweep = {
		.noun = "count",
		.settled_rule = "the CLOG misses are within 1% of the lookups of the largest count's",
		.larger = "more CLOG buffers",
		.margin_pct = plan->margin_pct,
		.baseline_label = plan->configs[0].label,
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
	fputs("configuration,round,ok,clog_buffers,transactions,tps,slru_hits,slru_reads,"
		  "wal_stall_hits,wal_stall_reads,misses_per_1000_transactions,clog_ms,slru_io_ms\n", f);
	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = &runs[i];
		double		reads = (double) r->slru_clog_reads;

		wsb_csv_field(f, plan->configs[r->config].label);
		fprintf(f, ",%d,%s,", r->repeat, r->ok ? "true" : "false");
#define NUM(fmt, v) do { double v_ = (v); if (!isnan(v_)) fprintf(f, fmt, v_); } while (0)
		NUM("%.0f", wsb_first_row_value(&r->clog, "buffers"));
		fprintf(f, ",%lld,", (long long) r->transactions);
		NUM("%.3f", r->tps);
		fputc(',', f);
		if (r->slru_clog_hits >= 0)
			fprintf(f, "%lld", (long long) r->slru_clog_hits);
		fputc(',', f);
		if (r->slru_clog_reads >= 0)
			fprintf(f, "%lld", (long long) r->slru_clog_reads);
		fputc(',', f);
		NUM("%.0f", wsb_first_row_value(&r->clog, "hits"));
		fputc(',', f);
		NUM("%.0f", wsb_first_row_value(&r->clog, "reads"));
		fputc(',', f);
		NUM("%.3f", r->slru_clog_reads >= 0 ? per_thousand(reads, (double) r->transactions) : NAN);
		fputc(',', f);
		NUM("%.3f", wsb_summary_value(r, "clog", "total_ms"));
		fputc(',', f);
		NUM("%.3f", wsb_summary_value(r, "slru_io", "total_ms"));
#undef NUM
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

void
wsb_clog_print(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns,
			   const WsbVerdicts *verdicts)
{
	ClogRow		rows[WSB_MAX_CONFIGS];
	int			n = collect(plan, runs, nruns, verdicts, rows);
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
	tipping_sentence(rows, n, plan, sentence, sizeof(sentence));
	fprintf(f, "%s\n", sentence);
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

void
wsb_clog_html(FILE *f, const char *plotdir, const WsbPlan *plan, const WsbRun *runs,
			  int nruns, const WsbEnvironment *env, const WsbVerdicts *verdicts)
{
	ClogRow		rows[WSB_MAX_CONFIGS];
	int			n = collect(plan, runs, nruns, verdicts, rows);
	char		sentence[2048],
				why[1024] = "";
	char	   *path = wsb_psprintf("%s/clog.svg", plotdir);

	fputs("<h2>The CLOG by buffer count</h2>\n", f);
	if (env && env->aged_span[0])
	{
		fputs("<p>The aged table: ", f);
		wsb_html_escape(f, env->aged_span);
		fputs(". Each run started from a fresh copy of it, its rows not yet hinted.</p>\n", f);
	}
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
		wsb_html_escape(f, plan->configs[r->config].label);
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
	tipping_sentence(rows, n, plan, sentence, sizeof(sentence));
	fputs("<p><strong>", f);
	wsb_html_escape(f, sentence);
	fputs("</strong> (Misses within 1% of the lookups: the miss ratios, 1 &minus; hit ratio, "
		  "differ by at most 0.01.)</p>\n", f);
	if (draw_chart(plotdir, rows, n, why, sizeof(why)) == 0 && wsb_paste_svg(f, path) == 0)
		fputs("<p>CLOG misses per 1,000 transactions (pg_stat_slru) and the median run's tps "
			  "against the buffer count. Data and script: <code>plots/clog.dat</code>, "
			  "<code>plots/clog.gp</code>; a row per run: <code>clog.csv</code>.</p>\n", f);
	else
	{
		fputs("<p class=\"missing\">CLOG chart missing: ", f);
		wsb_html_escape(f, why[0] ? why : "clog.svg could not be read");
		fputs("</p>\n", f);
	}
	free(path);
}
