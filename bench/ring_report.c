/*-------------------------------------------------------------------------
 *
 * ring_report.c
 *		wal_stall_bench: wal_buffers by size.
 *
 * The question of 2012 ("32MB better by about 1,000 tps ... after that it
 * gets murky"), asked of a sweep of three sizes or more: per
 * configuration the ring the server really has (wal_stall_status's
 * wal_buffers_bytes), the share of the clients' time in wrap-around waits
 * (class wal_buffer_full), the median run's tps and the paired verdict by
 * rounds against the baseline; the chart of both against the size,
 * ring.csv, and the tipping-point sentence of tipping.c, where a size's
 * stalls are settled when wrap-around takes under WSB_NEGLIGIBLE_SHARE of
 * the clients' time, the share below which the verdicts call a class
 * negligible.  The largest size must be the baseline.
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

#include "engine.h"
#include "report_internal.h"
#include "ring_report.h"
#include "tipping.h"

/* how ring.csv writes a share and a median tps */
#define RING_SHARE_FORMAT "%.6f"
#define RING_TPS_FORMAT "%.3f"

/* One configuration's ring figures, over its successful runs. */
typedef struct RingRow
{
	int			config;
	int			runs;			/* successful runs */
	double		bytes;			/* wal_stall_status.wal_buffers_bytes, NAN unknown */
	double		wrap_ms;		/* client wrap-around time, NAN without wal_stall */
	double		client_ms;		/* clients x run ms */
	double		share;			/* wrap_ms / client_ms, NAN unknown */
	double		tps_median;
	const WsbPaired *tps;		/* against the baseline by rounds, NULL */
} RingRow;

/* Does the plan vary wal_buffers over three values or more? */
bool
wsb_ring_wanted(const WsbPlan *plan)
{
	const char *seen[WSB_MAX_CONFIGS];
	int			n = 0;

	for (int c = 0; c < plan->nconfigs; c++)
		for (int s = 0; s < plan->configs[c].nsettings; s++)
		{
			const char *v = plan->configs[c].values[s];
			bool		known = false;

			if (strcmp(plan->configs[c].names[s], "wal_buffers") != 0)
				continue;
			for (int i = 0; i < n; i++)
				known |= strcmp(seen[i], v) == 0;
			if (!known && n < WSB_MAX_CONFIGS)
				seen[n++] = v;
		}
	return n >= 3;
}

/* A size as PostgreSQL writes it: the largest unit that divides it. */
static void
size_name(double bytes, char *buf, size_t len)
{
	long long	b = isnan(bytes) ? 0 : (long long) bytes;

	if (b > 0 && b % (1LL << 30) == 0)
		snprintf(buf, len, "%lldGB", b >> 30);
	else if (b > 0 && b % (1LL << 20) == 0)
		snprintf(buf, len, "%lldMB", b >> 20);
	else if (b % 1024 == 0)
		snprintf(buf, len, "%lldkB", b >> 10);
	else
		snprintf(buf, len, "%lldB", b);
}

static double
run_tps(const WsbRun *r, const char *a, const char *b)
{
	(void) a;
	(void) b;
	return r->tps;
}

/* A row's ring size, its place in the sweep. */
static double
row_bytes(const void *row)
{
	return ((const RingRow *) row)->bytes;
}

/* The configurations' rows, sorted by size (unknown sizes last). */
static int
collect(const WsbPlan *plan, const WsbRun *runs, int nruns, const WsbVerdicts *verdicts,
		RingRow *rows)
{
	int			n = 0;

	for (int c = 0; c < plan->nconfigs; c++)
	{
		RingRow    *row = &rows[n];

		memset(row, 0, sizeof(*row));
		row->config = c;
		row->bytes = NAN;
		for (int i = 0; i < nruns; i++)
		{
			const WsbRun *r = &runs[i];
			double		bytes;

			if (r->config != c || !r->ok)
				continue;
			bytes = wsb_first_row_value(&r->status, "wal_buffers_bytes");
			if (!isnan(bytes))
				row->bytes = bytes;
			row->wrap_ms += wsb_summary_value(r, "wal_buffer_full", "total_ms");
			row->client_ms += r->seconds * 1000.0 * plan->clients;
			row->runs++;
		}
		if (row->runs == 0)
			continue;
		/* as ring.csv keeps them: --judge prints the same section again */
		row->share = wsb_as_written(RING_SHARE_FORMAT,
									row->client_ms > 0 ? row->wrap_ms / row->client_ms : NAN);
		row->tps_median = wsb_as_written(RING_TPS_FORMAT,
										 wsb_config_median(runs, nruns, c, run_tps, NULL, NULL));
		row->tps = wsb_tip_tps(verdicts, plan->configs[c].label);
		n++;
	}
	return n;
}

/* The rows as the tipping point reads them, sorted by size. */
static void
tip_values(RingRow *rows, int n, WsbTipValue *v)
{
	for (int i = 0; i < n; i++)
	{
		const RingRow *r = &rows[i];
		double		s = r->share;

		memset(&v[i], 0, sizeof(v[i]));
		v[i].value = r->bytes;
		size_name(r->bytes, v[i].name, sizeof(v[i].name));
		v[i].known = !isnan(r->bytes) && !isnan(s);
		v[i].settled = v[i].known && s < WSB_NEGLIGIBLE_SHARE;
		snprintf(v[i].stalls, sizeof(v[i].stalls), "wrap-around %.1f%% of client time", 100.0 * s);
		v[i].stall_share = s;
		v[i].baseline = r->config == 0;
		v[i].tps = r->tps;
	}
}

/* rows and their tipping values, both sorted by size; the count */
static int
sorted_rows(const WsbPlan *plan, const WsbRun *runs, int nruns, const WsbVerdicts *verdicts,
			RingRow *rows, WsbTipValue *v)
{
	int			n = collect(plan, runs, nruns, verdicts, rows);

	wsb_sort_by_key(rows, n, sizeof(RingRow), row_bytes);
	tip_values(rows, n, v);
	return n;
}

static void
sentence(double margin_pct, const char *baseline_label, const WsbTipValue *v, int n,
		 char *buf, size_t len)
{
	WsbTipSweep sweep = {
		.noun = "size",
		.settled_rule = "wrap-around stalls take under 1% of client time",
		.larger = "a larger ring",
		.margin_pct = margin_pct,
		.baseline_label = baseline_label,
	};

	wsb_tip_sentence(&sweep, v, n, buf, len);
}

/* ring.csv: a row per configuration, by size; 0 or -1 */
int
wsb_ring_write_csv(const char *path, const WsbPlan *plan, const WsbRun *runs, int nruns,
				   const WsbVerdicts *verdicts)
{
	RingRow		rows[WSB_MAX_CONFIGS];
	WsbTipValue v[WSB_MAX_CONFIGS];
	int			n = sorted_rows(plan, runs, nruns, verdicts, rows, v);
	FILE	   *f = wsb_create_file(path, 0666);

	if (f == NULL)
		return -1;
	fputs("configuration,wal_buffers_bytes,runs,wrap_around_share,settled,tps_median,tps_by_rounds\n", f);
	for (int i = 0; i < n; i++)
	{
		wsb_csv_field(f, plan->configs[rows[i].config].label);
		fputc(',', f);
		if (!isnan(rows[i].bytes))
			fprintf(f, "%.0f", rows[i].bytes);
		fprintf(f, ",%d,", rows[i].runs);
		if (!isnan(v[i].stall_share))
			fprintf(f, RING_SHARE_FORMAT, v[i].stall_share);
		fprintf(f, ",%s,", v[i].settled ? "true" : "false");
		fprintf(f, RING_TPS_FORMAT ",", rows[i].tps_median);
		wsb_csv_field(f, rows[i].tps ? rows[i].tps->words : "");
		fputc('\n', f);
	}
	return wsb_close_written(f, 0);
}

/* The table and the sentence of rows and v, sorted by size. */
static void
print_rows(FILE *f, const RingRow *rows, const WsbTipValue *v, int n, double margin_pct,
		   const char *baseline_label)
{
	char		s[2048];

	fputs("\nwal_buffers by size (wrap-around: the clients' wal_buffer_full time)\n", f);
	fprintf(f, "%-10s %-12s %-8s %s\n", "size", "wrap-around", "tps", "tps by rounds");
	fprintf(f, "%-10s %-12s %-8s\n", "", "%client", "median");
	for (int i = 0; i < n; i++)
		fprintf(f, "%-10s %-12.3f %-8.0f %s\n", v[i].name, 100.0 * v[i].stall_share,
				rows[i].tps_median, rows[i].tps ? rows[i].tps->words : "-");
	sentence(margin_pct, baseline_label, v, n, s, sizeof(s));
	fprintf(f, "%s\n", s);
}

void
wsb_ring_print(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns,
			   const WsbVerdicts *verdicts)
{
	RingRow		rows[WSB_MAX_CONFIGS];
	WsbTipValue v[WSB_MAX_CONFIGS];
	int			n = sorted_rows(plan, runs, nruns, verdicts, rows, v);

	print_rows(f, rows, v, n, plan->margin_pct, plan->configs[0].label);
}

/*
 * The rows of ring.csv's text, for the configurations verdicts judged (a
 * row of another is left out); the count, or -1 with err.
 */
static int
read_ring_rows(const char *path, const char *text, size_t len, const WsbVerdicts *verdicts,
			   RingRow *rows, char *err, size_t errlen)
{
	static const char *const names[] = {"configuration", "wal_buffers_bytes",
	"wrap_around_share", "tps_median"};
	int			col[4];
	WsbCsvReader r;
	char		msg[512];
	int			n = 0;
	int			rc;

	if (!wsb_csv_reader_init(&r, text, len))
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		return -1;
	}
	rc = wsb_csv_next_row(&r, msg, sizeof(msg));
	for (int k = 0; k < 4; k++)
	{
		col[k] = rc > 0 ? wsb_csv_column(&r, names[k]) : -1;
		if (rc >= 0 && col[k] < 0)
		{
			snprintf(err, errlen, "\"%s\" needs the columns configuration, wal_buffers_bytes, "
					 "wrap_around_share and tps_median", path);
			wsb_csv_reader_free(&r);
			return -1;
		}
	}
	while (rc > 0 && (rc = wsb_csv_next_row(&r, msg, sizeof(msg))) > 0)
	{
		RingRow    *row = &rows[n];
		const char *label = wsb_csv_text(&r, col[0]);
		int			bad = 0;
		int			c = wsb_tip_config(verdicts, label);

		if (c < 0)
			continue;
		for (int i = 0; i < n; i++)
			if (rows[i].config == c)
			{
				snprintf(err, errlen, "\"%s\" line %d: a second row of one configuration",
						 path, r.line);
				rc = -2;
			}
		if (rc == -2)
			break;
		if (n == WSB_MAX_CONFIGS)
		{
			snprintf(err, errlen, "\"%s\" line %d: more than %d configurations", path, r.line,
					 WSB_MAX_CONFIGS);
			rc = -2;
			break;
		}
		memset(row, 0, sizeof(*row));
		row->config = c;
		if (!wsb_csv_count(wsb_csv_text(&r, col[1]), 1, 1e15, &row->bytes))
			bad = 1;
		else if (!wsb_csv_number(wsb_csv_text(&r, col[2]), 0, 1e6, &row->share))
			bad = 2;
		else if (!wsb_csv_number(wsb_csv_text(&r, col[3]), 0, 1e12, &row->tps_median))
			bad = 3;
		if (bad > 0)
		{
			wsb_csv_bad_number(err, errlen, path, r.line, names[bad],
							   wsb_csv_text(&r, col[bad]));
			rc = -2;
			break;
		}
		row->tps = wsb_tip_tps(verdicts, label);
		n++;
	}
	/* -1: the reader's message; -2: err is written */
	if (rc == -1)
		snprintf(err, errlen, "\"%s\" %s", path, msg);
	wsb_csv_reader_free(&r);
	return rc == 0 ? n : -1;
}

/*
 * The rows of ring.csv's text and their tipping values, both sorted by
 * size; the count, or -1 with err when a cell is not what the run writes.
 * ring.csv gives each size's ring and wrap-around share (results.csv names
 * the setting, not the ring the server had); the tps verdicts are those
 * just judged.
 */
static int
judged_rows(const char *path, const char *text, size_t len, const WsbVerdicts *verdicts,
			RingRow *rows, WsbTipValue *v, char *err, size_t errlen)
{
	int			n = read_ring_rows(path, text, len, verdicts, rows, err, errlen);

	if (n < 0)
		return -1;
	if (n == 0)
	{
		snprintf(err, errlen, "\"%s\" has no row of a configuration judged", path);
		return -1;
	}
	wsb_sort_by_key(rows, n, sizeof(RingRow), row_bytes);
	tip_values(rows, n, v);
	return n;
}

int
wsb_ring_judge_print(FILE *f, const char *path, const char *text, size_t len,
					 const WsbVerdicts *verdicts, char *err, size_t errlen)
{
	RingRow		rows[WSB_MAX_CONFIGS];
	WsbTipValue v[WSB_MAX_CONFIGS];
	int			n = judged_rows(path, text, len, verdicts, rows, v, err, errlen);

	if (n < 0)
		return -1;
	print_rows(f, rows, v, n, verdicts->spec.margin_pct, verdicts->table.labels[0]);
	return 0;
}

/* plots/ring.dat and ring.gp, drawn; 0 or -1 with why */
static int
draw_chart(const char *plotdir, const RingRow *rows, const WsbTipValue *v, int n, char *why,
		   size_t len)
{
	FILE	   *d,
			   *gp;
	int			known = 0;

	for (int i = 0; i < n; i++)
		known += v[i].known;
	if (known == 0)
	{
		snprintf(why, len, "no size has wrap-around figures (wal_stall not loaded?)");
		return -1;
	}
	if ((d = wsb_fopenf("w", "%s/ring.dat", plotdir)) == NULL)
		return -1;
	fputs("# bytes name wrap_around_pct tps_median\n", d);
	for (int i = 0; i < n; i++)
		if (v[i].known)
			fprintf(d, "%.0f %s %.6g %.6g\n", rows[i].bytes, v[i].name, 100.0 * v[i].stall_share,
					rows[i].tps_median);
	if (fclose(d) != 0)
		return -1;
	if ((gp = wsb_fopenf("w", "%s/ring.gp", plotdir)) == NULL)
		return -1;
	wsb_gp_sweep_axes(gp, "ring.svg", "wal\\_buffers (wal\\_stall\\_status.wal\\_buffers\\_bytes)",
					  "wrap-around waits, % of client time");
	fputs("plot 'ring.dat' using 1:3:xtic(2) with linespoints lw 2 pt 7 lc rgb '#b2182b' "
		  "title 'wrap-around, % of client time' axes x1y1, \\\n"
		  "     1 with lines dt 2 lc rgb '#b2182b' title 'negligible below 1%' axes x1y1, \\\n"
		  "     'ring.dat' using 1:4 with linespoints lw 2 pt 5 lc rgb '#2166ac' "
		  "title 'tps' axes x1y2\n", gp);
	if (fclose(gp) != 0)
		return -1;
	return wsb_run_gnuplot(plotdir, "ring.gp", why, len);
}

/* The section of rows and v, sorted by size, in report.html. */
static void
html_rows(FILE *f, const char *plotdir, const RingRow *rows, const WsbTipValue *v, int n,
		  const char *const *labels, double margin_pct)
{
	char		s[2048],
				why[1024] = "";

	fputs("<h2>wal_buffers by size</h2>\n", f);
	fputs("<table><tr><th>wal_buffers</th><th>configuration</th><th>wrap-around waits, % of "
		  "client time</th><th>tps, median run</th><th>tps by rounds against the baseline</th>"
		  "</tr>\n", f);
	for (int i = 0; i < n; i++)
	{
		fputs("<tr><td>", f);
		wsb_html_escape(f, v[i].name);
		fputs("</td><td>", f);
		wsb_html_escape(f, labels[rows[i].config]);
		fputs("</td>", f);
		wsb_html_number_cell(f, "%.3f", 100.0 * v[i].stall_share);
		wsb_html_number_cell(f, "%.0f", rows[i].tps_median);
		fputs("<td>", f);
		wsb_html_escape(f, rows[i].tps ? rows[i].tps->words : "-");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	sentence(margin_pct, labels[0], v, n, s, sizeof(s));
	fputs("<p><strong>", f);
	wsb_html_escape(f, s);
	fputs("</strong></p>\n", f);
	wsb_html_sweep_chart(f, plotdir, "ring.svg", draw_chart(plotdir, rows, v, n, why, sizeof(why)),
						 why, "wal_buffers",
						 "<p>The clients' wrap-around waits (<code>wal_buffer_full</code>) as a "
						 "share of their time, and the median run's tps, against the ring's size; "
						 "the dashed line is the 1% below which a class is negligible. Data and "
						 "script: <code>plots/ring.dat</code>, <code>plots/ring.gp</code>; a row "
						 "per configuration: <code>ring.csv</code>.</p>\n");
}

void
wsb_ring_html(FILE *f, const char *plotdir, const WsbPlan *plan, const WsbRun *runs,
			  int nruns, const WsbVerdicts *verdicts)
{
	RingRow		rows[WSB_MAX_CONFIGS];
	WsbTipValue v[WSB_MAX_CONFIGS];
	const char *labels[WSB_MAX_CONFIGS];
	int			n = sorted_rows(plan, runs, nruns, verdicts, rows, v);

	for (int c = 0; c < plan->nconfigs; c++)
		labels[c] = plan->configs[c].label;
	html_rows(f, plotdir, rows, v, n, labels, plan->margin_pct);
}

int
wsb_ring_judge_html(FILE *f, const char *plotdir, const char *path, const char *text,
					size_t len, const WsbVerdicts *verdicts, char *err, size_t errlen)
{
	RingRow		rows[WSB_MAX_CONFIGS];
	WsbTipValue v[WSB_MAX_CONFIGS];
	const char *labels[WSB_MAX_CONFIGS];
	int			n = judged_rows(path, text, len, verdicts, rows, v, err, errlen);

	if (n < 0)
		return -1;
	for (int c = 0; c < verdicts->table.nconfigs && c < WSB_MAX_CONFIGS; c++)
		labels[c] = verdicts->table.labels[c];
	html_rows(f, plotdir, rows, v, n, labels, verdicts->spec.margin_pct);
	return 0;
}
