/*-------------------------------------------------------------------------
 *
 * report_validate.c
 *		wal_stall_bench --validate: its measurement-error tables, on the
 *		terminal and as report.html's "Measurement error" section.
 *
 * validate.c computes the figures (a traced run's sums beside wal_stall's,
 * a configuration's sums over its traced runs, the tracer's cost); this
 * file only lays them out.  Their results.csv columns are csv.c's.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "validate.h"

static void
fmt_num(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

static void
fmt_count(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long) v);
}

/*
 * The terminal's "measurement error" tables: per configuration, the
 * client WAL-path time sampled and traced and their ratio, wrap-around
 * writes three ways, the io classes, and tps with and without the tracer.
 */
void
wsb_validate_print(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	double		cost = wsb_validate_overall_cost(plan, runs, nruns);
	int			wl = (int) strlen("configuration");

	if (!wsb_validate_any(runs, nruns))
		return;
	for (int c = 0; c < plan->nconfigs; c++)
		if ((int) strlen(plan->configs[c].label) > wl)
			wl = (int) strlen(plan->configs[c].label);
	if (wl > 32)
		wl = 32;
	fprintf(f, "\nmeasurement error (--validate): client WAL-path time, wal_stall's sampled "
			"estimate vs bpftrace\n");
	fprintf(f, "%-*s  %5s  %11s  %11s  %6s  %s\n", wl, "configuration", "runs",
			"sampled ms", "traced ms", "ratio", "wrap-around writes traced/core/exact");
	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbValidation s;
		double		tt,
					tu;
		int			n = wsb_validate_config(runs, nruns, c, &s, &tt, &tu);
		char		a[32],
					b[32],
					r[32],
					d1[32],
					d2[32],
					d3[32];

		fmt_num(a, sizeof(a), "%.1f", n ? s.client_sampled_ms : NAN);
		fmt_num(b, sizeof(b), "%.1f", n ? s.client_traced_ms : NAN);
		fmt_num(r, sizeof(r), "%.3f", n ? s.ratio : NAN);
		fmt_count(d1, sizeof(d1), n ? s.dirty_writes : -1);
		fmt_count(d2, sizeof(d2), s.wal_buffers_full);
		fmt_count(d3, sizeof(d3), s.exact_count);
		fprintf(f, "%-*.*s  %5d  %11s  %11s  %6s  %s / %s / %s\n", wl, wl, plan->configs[c].label,
				n, a, b, r, d1, d2, d3);
	}
	fprintf(f, "per side, clients: traced = time in XLogInsertRecord / XLogFlush calls of %d us or more\n",
			WSB_TRACE_WAIT_US);
	fprintf(f, "%-*s  %-44s  %s\n", wl, "", "insert side ms: traced / summary / history",
			"flush side ms: traced / summary / history");
	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbValidation s;
		double		tt,
					tu;
		int			n = wsb_validate_config(runs, nruns, c, &s, &tt, &tu);
		char		ins[96] = "-",
					fl[96] = "-";

		if (n)
		{
			snprintf(ins, sizeof(ins), "%.1f / %.1f / %.1f (%.3f, %.3f)",
					 s.client_insert_side_ms, s.summary_insert_side_ms, s.history_insert_side_ms,
					 wsb_validate_side_ratio(s.summary_insert_side_ms, s.client_insert_side_ms),
					 wsb_validate_side_ratio(s.history_insert_side_ms, s.client_insert_side_ms));
			snprintf(fl, sizeof(fl), "%.1f / %.1f / %.1f (%.3f, %.3f)",
					 s.client_flush_side_ms, s.summary_flush_side_ms, s.history_flush_side_ms,
					 wsb_validate_side_ratio(s.summary_flush_side_ms, s.client_flush_side_ms),
					 wsb_validate_side_ratio(s.history_flush_side_ms, s.client_flush_side_ms));
		}
		fprintf(f, "%-*.*s  %-44s  %s\n", wl, wl, plan->configs[c].label, ins, fl);
	}
	fprintf(f, "%-*s  %19s  %19s  %s\n", wl, "", "wal_write ms", "wal_fsync ms", "tps traced / untraced");
	fprintf(f, "%-*s  %19s  %19s\n", wl, "", "traced / sampled", "traced / sampled");
	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbValidation s;
		double		tt,
					tu;
		int			n = wsb_validate_config(runs, nruns, c, &s, &tt, &tu);
		char		w[48],
					y[48],
					t1[32],
					t2[32],
					x[32] = "";

		if (n && s.io_traced)
		{
			snprintf(w, sizeof(w), "%.1f / %.1f", s.wal_write_ms, s.sampled_wal_write_ms);
			snprintf(y, sizeof(y), "%.1f / %.1f", s.wal_fsync_ms, s.sampled_wal_fsync_ms);
		}
		else
		{
			snprintf(w, sizeof(w), "not traced");
			snprintf(y, sizeof(y), "not traced");
		}
		fmt_num(t1, sizeof(t1), "%.0f", tt);
		fmt_num(t2, sizeof(t2), "%.0f", tu);
		if (!isnan(tt) && !isnan(tu) && tu > 0)
			snprintf(x, sizeof(x), " (%+.1f%%)", 100.0 * (tt / tu - 1.0));
		fprintf(f, "%-*.*s  %19s  %19s  %s / %s%s\n", wl, wl, plan->configs[c].label,
				w, y, t1, t2, x);
	}
	if (isnan(cost))
		fprintf(f, "tracer's cost: not measured (needs --runs >= 2: every other run traced)\n");
	else
		fprintf(f, "tracer's cost: %+.1f%% tps, traced runs against untraced ones, mean over "
				"configurations\n", cost);
}

/* A sampled figure and, in parentheses, its ratio to the traced one. */
static void
html_side(FILE *f, double sampled_ms, double traced_ms)
{
	double		r = wsb_validate_side_ratio(sampled_ms, traced_ms);

	fputs("<td class=\"n\">", f);
	if (isnan(sampled_ms))
		fputs("&ndash;", f);
	else if (isnan(r))
		fprintf(f, "%.1f", sampled_ms);
	else
		fprintf(f, "%.1f (%.3f)", sampled_ms, r);
	fputs("</td>", f);
}

/* The report's "Measurement error" section (its <h2> included). */
void
wsb_validate_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	double		cost = wsb_validate_overall_cost(plan, runs, nruns);
	bool		io = false;

	if (!wsb_validate_any(runs, nruns))
		return;
	for (int i = 0; i < nruns; i++)
		if (runs[i].validation.traced && runs[i].validation.ok && runs[i].validation.io_traced)
			io = true;
	fputs("<h2>Measurement error</h2>\n"
		  "<p>With <code>--validate</code> a bpftrace program (<code>validate.bt</code> beside "
		  "this report) ran beside every other run of each configuration (column <em>traced</em> "
		  "of <code>results.csv</code>) and summed, per "
		  "process of the cluster, the exact time spent on the WAL path: waits for the LWLocks "
		  "<code>WALWrite</code>, <code>WALBufMapping</code> and <code>WALInsert</code> (USDT "
		  "<code>lwlock__wait__start/done</code>), time inside <code>XLogFlush</code> (uprobe), "
		  "and wrap-around writes of dirty WAL buffers (USDT "
		  "<code>wal__buffer__write__dirty__start/done</code>), never counting a nested interval "
		  "twice. <em>Traced</em> is that sum for client backends (classified by "
		  "<code>pg_stat_activity.backend_type</code>, polled every second, or, for a process "
		  "that came and went between two polls, by its entering <code>PostgresMain</code>); "
		  "<em>sampled</em> is "
		  "what wal_stall estimated for the same classes of process: <code>wal_buffer_full</code> "
		  "+ <code>wal_flush</code> + <code>wal_insert</code> <code>total_ms</code>. The ratio "
		  "sampled/traced is wal_stall's measurement error (1 is exact). Wrap-around writes: "
		  "traced (every process) / <code>pg_stat_wal.wal_buffers_full</code> / "
		  "<code>wal_stall_summary.exact_count</code>.</p>\n", f);
	fputs("<table><tr><th>configuration</th><th>traced runs</th><th>sampled ms</th>"
		  "<th>traced ms</th><th>ratio</th><th>lock wait ms</th><th>XLogFlush ms</th>"
		  "<th>dirty write ms</th><th>wrap-around writes traced / core / exact</th>"
		  "<th>tps traced</th><th>tps untraced</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbValidation s;
		double		tt,
					tu;
		int			n = wsb_validate_config(runs, nruns, c, &s, &tt, &tu);
		char		d1[32],
					d2[32],
					d3[32];

		fputs("<tr><td>", f);
		wsb_html_escape(f, plan->configs[c].label);
		fprintf(f, "</td><td class=\"n\">%d</td>", n);
		wsb_html_number_cell(f, "%.1f", n ? s.client_sampled_ms : NAN);
		wsb_html_number_cell(f, "%.1f", n ? s.client_traced_ms : NAN);
		wsb_html_number_cell(f, "%.3f", n ? s.ratio : NAN);
		wsb_html_number_cell(f, "%.1f", n ? s.client_lock_wait_ms : NAN);
		wsb_html_number_cell(f, "%.1f", n ? s.client_flush_ms : NAN);
		wsb_html_number_cell(f, "%.1f", n ? s.client_dirty_write_ms : NAN);
		fmt_count(d1, sizeof(d1), n ? s.dirty_writes : -1);
		fmt_count(d2, sizeof(d2), s.wal_buffers_full);
		fmt_count(d3, sizeof(d3), s.exact_count);
		fprintf(f, "<td class=\"n\">%s / %s / %s</td>", d1, d2, d3);
		wsb_html_number_cell(f, "%.0f", tt);
		wsb_html_number_cell(f, "%.0f", tu);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);

	fprintf(f, "<p>Per side, client backends: the insert side is the time inside "
			"<code>XLogInsertRecord</code> (insertion-lock waits and wrap-arounds happen inside "
			"it), the flush side the time inside <code>XLogFlush</code> (uprobes on both), "
			"counting only calls of %d&nbsp;us or more: shorter ones are CPU (copying a record), "
			"not waits. Against them, wal_stall's <code>wal_buffer_full</code> + "
			"<code>wal_insert</code> and <code>wal_flush</code>, from the summary and from "
			"the history rows of the run (<code>wal_stall_history</code>); sampled/traced in "
			"parentheses.</p>\n"
			"<table><tr><th>configuration</th><th>insert side traced ms</th><th>waits</th>"
			"<th>summary ms</th><th>history ms</th><th>flush side traced ms</th><th>waits</th>"
			"<th>summary ms</th><th>history ms</th></tr>\n", WSB_TRACE_WAIT_US);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		WsbValidation s;
		double		tt,
					tu;
		int			n = wsb_validate_config(runs, nruns, c, &s, &tt, &tu);

		fputs("<tr><td>", f);
		wsb_html_escape(f, plan->configs[c].label);
		fputs("</td>", f);
		wsb_html_number_cell(f, "%.1f", n ? s.client_insert_side_ms : NAN);
		wsb_html_number_cell(f, "%.0f", n ? (double) s.client_insert_waits : NAN);
		html_side(f, n ? s.summary_insert_side_ms : NAN, s.client_insert_side_ms);
		html_side(f, n ? s.history_insert_side_ms : NAN, s.client_insert_side_ms);
		wsb_html_number_cell(f, "%.1f", n ? s.client_flush_side_ms : NAN);
		wsb_html_number_cell(f, "%.0f", n ? (double) s.client_flush_waits : NAN);
		html_side(f, n ? s.summary_flush_side_ms : NAN, s.client_flush_side_ms);
		html_side(f, n ? s.history_flush_side_ms : NAN, s.client_flush_side_ms);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);

	if (io)
	{
		fputs("<p>The io classes, every process (WAL writer and checkpointer included): "
			  "<code>wal_write</code> traced as libc's <code>pwrite</code>/<code>pwritev</code> "
			  "and <code>wal_fsync</code> as <code>fdatasync</code>/<code>fsync</code>, each "
			  "only when called inside <code>XLogFlush</code>, <code>XLogBackgroundFlush</code> "
			  "or a wrap-around write (uprobes on the libc the postmaster maps). Not traced: "
			  "WAL segments pre-allocated by the checkpointer outside those functions.</p>\n"
			  "<table><tr><th>configuration</th><th>wal_write traced ms</th><th>sampled ms</th>"
			  "<th>writes</th><th>wal_fsync traced ms</th><th>sampled ms</th><th>fsyncs</th></tr>\n", f);
		for (int c = 0; c < plan->nconfigs; c++)
		{
			WsbValidation s;
			double		tt,
						tu;
			int			n = wsb_validate_config(runs, nruns, c, &s, &tt, &tu);
			bool		have = n && s.io_traced;

			fputs("<tr><td>", f);
			wsb_html_escape(f, plan->configs[c].label);
			fputs("</td>", f);
			wsb_html_number_cell(f, "%.1f", have ? s.wal_write_ms : NAN);
			wsb_html_number_cell(f, "%.1f", have ? s.sampled_wal_write_ms : NAN);
			wsb_html_number_cell(f, "%.0f", have ? (double) s.wal_writes : NAN);
			wsb_html_number_cell(f, "%.1f", have ? s.wal_fsync_ms : NAN);
			wsb_html_number_cell(f, "%.1f", have ? s.sampled_wal_fsync_ms : NAN);
			wsb_html_number_cell(f, "%.0f", have ? (double) s.wal_fsyncs : NAN);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	else
		fputs("<p>The io classes (<code>wal_write</code>, <code>wal_fsync</code>) were not "
			  "traced: the libc the postmaster maps was not found.</p>\n", f);

	fputs("<p>Per run:</p>\n<table><tr><th>order</th><th>configuration</th><th>run</th>"
		  "<th>tps</th><th>sampled ms</th><th>traced ms</th><th>ratio</th><th>client pids</th>"
		  "<th>other processes ms</th><th>unclassified ms</th><th>tracer</th></tr>\n", f);
	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = NULL;
		const WsbValidation *v;

		for (int j = 0; j < nruns; j++)
			if (runs[j].order == i + 1)
				r = &runs[j];
		if (r == NULL)
			continue;
		v = &r->validation;
		fprintf(f, "<tr><td class=\"n\">%d</td><td>", r->order);
		wsb_html_escape(f, plan->configs[r->config].label);
		fprintf(f, "</td><td class=\"n\">%d</td>", r->repeat);
		wsb_html_number_cell(f, "%.0f", r->ok ? r->tps : NAN);
		if (v->traced && v->ok)
		{
			wsb_html_number_cell(f, "%.1f", v->client_sampled_ms);
			wsb_html_number_cell(f, "%.1f", v->client_traced_ms);
			wsb_html_number_cell(f, "%.3f", v->ratio);
			wsb_html_number_cell(f, "%.0f", (double) v->client_pids);
			wsb_html_number_cell(f, "%.1f", v->other_wal_path_ms);
			wsb_html_number_cell(f, "%.1f", v->unclassified_ms);
			fputs("<td>traced</td>", f);
		}
		else
		{
			fputs("<td></td><td></td><td></td><td></td><td></td><td></td><td>", f);
			wsb_html_escape(f, v->traced ? (v->error[0] ? v->error : "failed") : "not traced");
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (isnan(cost))
		fputs("<p>The tracer's cost was not measured: that needs <code>--runs</code> of 2 or "
			  "more (every other round traced).</p>\n", f);
	else
		fprintf(f, "<p>The tracer's cost: <strong>%+.1f%%</strong> tps, the mean over the "
				"configurations of (mean tps of the traced runs / mean tps of the untraced runs "
				"&minus; 1); traced and untraced rounds alternated. The verdict by rounds pairs "
				"the untraced runs only (the tracer moves tps); Welch's comparison beside it uses "
				"every run, traced or not.</p>\n", cost);
}
