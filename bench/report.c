/*-------------------------------------------------------------------------
 *
 * report.c
 *		wal_stall_bench: report.html.
 *
 * report.html is one self-contained file: inline CSS, and the charts
 * chart.c has gnuplot draw, pasted in as inline SVG.  Without gnuplot the
 * HTML is still written, says which charts are missing and why, and
 * wsb_write_report returns -1.  The CSV files are csv.c's.
 *
 * Everything put into the HTML goes through wsb_html_escape().
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#define _GNU_SOURCE				/* vasprintf */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "answer.h"
#include "clog_report.h"
#include "ring_report.h"
#include "engine.h"
#include "expbuffer.h"
#include "report_internal.h"
#include "validate.h"
#include "verdict.h"

static void
html_printf(FILE *f, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* printf, escaped: for text that mixes figures with names */
static void
html_printf(FILE *f, const char *fmt,...)
{
	char	   *buf;
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vasprintf(&buf, fmt, ap);
	va_end(ap);
	if (n < 0)
	{
		/* no memory: the page says so rather than show a cut text */
		fputs("(out of memory)", f);
		return;
	}
	wsb_html_escape(f, buf);
	free(buf);
}

static double
get_rows(const WsbRun *r, const char *which, const char *col)
{
	if (strcmp(which, "wal") == 0)
		return wsb_first_row_value(&r->wal, col);
	if (strcmp(which, "clog") == 0)
		return wsb_first_row_value(&r->clog, col);
	if (strcmp(which, "cpu") == 0)
		return r->collector_cpu_share >= 0 ? r->collector_cpu_share : NAN;
	return NAN;
}

/* Do two configurations give the setting different values? */
static bool
plan_varies(const WsbPlan *plan, const char *name)
{
	const char *first = NULL;

	for (int c = 0; c < plan->nconfigs; c++)
		for (int s = 0; s < plan->configs[c].nsettings; s++)
			if (strcmp(plan->configs[c].names[s], name) == 0)
			{
				if (first == NULL)
					first = plan->configs[c].values[s];
				else if (strcmp(first, plan->configs[c].values[s]) != 0)
					return true;
			}
	return false;
}

/*
 * Before 17 the CLOG's buffers follow shared_buffers (shared_buffers / 512,
 * 4 to 128), so varying shared_buffers varies two caches at once.  The
 * server's major version comes from version(); unknown counts as before 17.
 */
static bool
clog_follows_shared_buffers(const WsbPlan *plan, const WsbEnvironment *env)
{
	int			major = 0;

	if (!plan_varies(plan, "shared_buffers"))
		return false;
	if (env != NULL)
		sscanf(env->pg_version, "PostgreSQL %d", &major);
	return major < 17;
}

/* fsync = off anywhere in the plan or the preset's fixed settings */
static bool
plan_turns_fsync_off(const WsbOptions *opts, const WsbPlan *plan)
{
	for (int c = 0; c < plan->nconfigs; c++)
		for (int s = 0; s < plan->configs[c].nsettings; s++)
			if (strcmp(plan->configs[c].names[s], "fsync") == 0)
			{
				const char *v = plan->configs[c].values[s];

				if (strcasecmp(v, "off") == 0 || strcasecmp(v, "false") == 0 ||
					strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0)
					return true;
			}
	if (opts != NULL)
	{
		const char *p = opts->extra_conf;

		while (p && *p)
		{
			char		name[128],
						value[128];

			if (sscanf(p, " %127[a-z_] = %127[^ \n#]", name, value) == 2 &&
				strcmp(name, "fsync") == 0 &&
				(strcasecmp(value, "off") == 0 || strcasecmp(value, "'off'") == 0 ||
				 strcasecmp(value, "false") == 0 || strcmp(value, "0") == 0))
				return true;
			p = strchr(p, '\n');
			if (p)
				p++;
		}
	}
	return false;
}

static const char report_css[] =
"body{font-family:sans-serif;margin:1.5em auto;max-width:1100px;color:#222;line-height:1.4}"
"h1{font-size:1.5em}.answer{font-size:1.1em;border-left:4px solid #369;padding:.25em 1em}"
"h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
"table{border-collapse:collapse;margin:.5em 0;font-size:.9em}"
"th,td{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}"
"th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}"
"tr.failed td{color:#a00}"
".faster{color:#070;font-weight:bold}.slower{color:#a00;font-weight:bold}"
".noise{color:#555}.few{color:#a60}"
".warn{background:#fff3cd;border:1px solid #e0c060;padding:.5em 1em}"
".missing{background:#fde;border:1px solid #c88;padding:.5em 1em}"
"pre{background:#f7f7f7;padding:.5em;overflow-x:auto;white-space:pre-wrap}"
"figure{margin:1em 0}figcaption{font-size:.9em;color:#444;max-width:900px}"
"svg{max-width:100%;height:auto}"
".swatch{display:inline-block;width:.8em;height:.8em;margin-right:.4em;vertical-align:middle}";

/*
 * Each configuration's runs: the tps of each in run order, how many
 * succeeded, and the median of the tps the verdict judges (over the steady
 * seconds when it pairs those), so that it reads beside the ratio.
 * Description only: the verdict is the rounds' (verdict.c), above.
 */
static void
write_runs_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	const WsbRun **ord = wsb_runs_in_order(runs, nruns);
	double	   *x = wsb_xmalloc(sizeof(double) * (nruns > 0 ? nruns : 1));

	fprintf(f, "<table><tr><th>configuration</th><th>tps of each run (run order)</th><th>runs ok</th>"
			"<th>median tps%s</th></tr>\n",
			wsb_window_judged(runs, nruns) ? " over the steady seconds (as judged)" : "");
	for (int c = 0; c < plan->nconfigs; c++)
	{
		int			total = 0,
					nok = wsb_config_judged_tps(runs, nruns, c, x);
		bool		first = true;

		fprintf(f, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
				wsb_config_colour(c));
		wsb_html_escape(f, plan->configs[c].label);
		fputs("</td><td>", f);
		for (int i = 0; ord && i < nruns; i++)
		{
			char		b[32];

			if (ord[i]->config != c)
				continue;
			total++;
			wsb_fmt_tps(b, sizeof(b), ord[i]->tps);
			fprintf(f, "%s%s", first ? "" : " ", ord[i]->ok ? b : "failed");
			first = false;
		}
		fprintf(f, "</td><td class=\"n\">%d/%d</td>", nok, total);
		wsb_html_number_cell(f, "%.1f", wsb_median(x, nok));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	free(ord);
	free(x);
}

static void
write_summary_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	fputs("<p>Medians over each configuration's successful runs of <code>wal_stall_summary</code> "
		  "read after the run (reset before it): total_ms and episodes over every run, "
		  "p99_ms and max_ms over the runs in which the class had an episode (a dash where "
		  "none had): a median of 0 episodes may stand beside the p99 of the runs that had "
		  "one. <em>stall</em> classes are time clients waited, "
		  "<em>io</em> classes time any process spent in that I/O; durations are estimated from "
		  "samples (see the extension's README).</p>\n", f);
	fputs("<table><tr><th>configuration</th><th>class</th><th>total_ms</th><th>episodes</th>"
		  "<th>p99_ms</th><th>max_ms</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		for (int k = 0; k < WSB_N_CLASSES; k++)
		{
			fputs("<tr>", f);
			if (k == 0)
			{
				fprintf(f, "<td rowspan=\"%d\"><span class=\"swatch\" style=\"background:%s\"></span>",
						WSB_N_CLASSES, wsb_config_colour(c));
				wsb_html_escape(f, plan->configs[c].label);
				fputs("</td>", f);
			}
			fputs("<td>", f);
			wsb_html_escape(f, wsb_classes[k]);
			fputs("</td>", f);
			{
				double		total_ms = wsb_config_median(runs, nruns, c, wsb_summary_value, wsb_classes[k], "total_ms");
				double		episodes = wsb_config_median(runs, nruns, c, wsb_summary_value, wsb_classes[k], "episodes");

				wsb_html_number_cell(f, "%.1f", total_ms);
				/*
				 * Time whose episodes all began outside the bursts that
				 * count them: episodes 0 (and episodes_stderr 0) would read
				 * as a count of none known exactly.
				 */
				if (episodes == 0 && total_ms > 0)
					fputs("<td class=\"n\">seen, none counted</td>", f);
				else
					/* the median of an even count of runs may fall between two */
					wsb_html_number_cell(f, episodes == floor(episodes) ? "%.0f" : "%.1f",
										 episodes);
			}
			wsb_html_number_cell(f, "%.2f", wsb_config_median(runs, nruns, c, wsb_summary_value, wsb_classes[k], "p99_ms"));
			wsb_html_number_cell(f, "%.1f", wsb_config_median(runs, nruns, c, wsb_summary_value, wsb_classes[k], "max_ms"));
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);

	fputs("<p>Other figures, medians over runs: core's own count of wrap-around writes "
		  "(<code>pg_stat_wal.wal_buffers_full</code>: the times a backend wrote the ring out "
		  "itself to free a page; a client that queued on <code>WALWrite</code> behind another's "
		  "write counts none, so it can stay near zero while the stall table above charges "
		  "seconds of client time to <code>wal_buffer_full</code>, which counts the waits), "
		  "the CLOG hit ratio "
		  "(<code>wal_stall_clog</code>) and the collector's CPU time as % of one core.</p>\n"
		  "<table><tr><th>configuration</th><th>wal_buffers_full</th><th>wal_fsync p99_ms</th>"
		  "<th>CLOG hit ratio</th><th>collector CPU %</th><th>latency avg ms</th><th>latency p99 ms</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		double	   *lat = wsb_xmalloc(sizeof(double) * (nruns > 0 ? nruns : 1));
		double	   *p99 = wsb_xmalloc(sizeof(double) * (nruns > 0 ? nruns : 1));
		int			n = 0;

		for (int i = 0; i < nruns; i++)
			if (runs[i].config == c && runs[i].ok)
			{
				lat[n] = runs[i].latency_avg_ms;
				p99[n++] = runs[i].latency_p99_ms;
			}
		fputs("<tr><td>", f);
		wsb_html_escape(f, plan->configs[c].label);
		fputs("</td>", f);
		wsb_html_number_cell(f, "%.0f", wsb_config_median(runs, nruns, c, get_rows, "wal", "wal_buffers_full"));
		wsb_html_number_cell(f, "%.2f", wsb_config_median(runs, nruns, c, wsb_summary_value, "wal_fsync", "p99_ms"));
		wsb_html_number_cell(f, "%.4f", wsb_config_median(runs, nruns, c, get_rows, "clog", "hit_ratio"));
		wsb_html_number_cell(f, "%.2f", wsb_config_median(runs, nruns, c, get_rows, "cpu", ""));
		wsb_html_number_cell(f, "%.3f", wsb_median(lat, n));
		wsb_html_number_cell(f, "%.3f", wsb_median(p99, n));
		fputs("</tr>\n", f);
		free(lat);
		free(p99);
	}
	fputs("</table>\n", f);
}

/* The last successful run of configuration c in run order, NULL if none. */
static const WsbRun *
last_ok_run(const WsbRun *runs, int nruns, int c)
{
	const WsbRun *last = NULL;

	for (int i = 0; i < nruns; i++)
		if (runs[i].config == c && runs[i].ok &&
			(last == NULL || runs[i].order > last->order))
			last = &runs[i];
	return last;
}

/* The first cell of a configuration's rows: colour swatch and label. */
static void
config_cell(FILE *f, const WsbPlan *plan, int c, int rowspan)
{
	fprintf(f, "<td rowspan=\"%d\"><span class=\"swatch\" style=\"background:%s\"></span>",
			rowspan > 0 ? rowspan : 1, wsb_config_colour(c));
	wsb_html_escape(f, wsb_config_label(plan, c));
	fputs("</td>", f);
}

/* A row's text cell, escaped; NULL as a dash. */
static void
html_cell_text(FILE *f, const char *s, bool code)
{
	fputs(code ? "<td><code>" : "<td>", f);
	if (s == NULL)
		fputs("&ndash;", f);
	else
		wsb_html_escape(f, s);
	fputs(code ? "</code></td>" : "</td>", f);
}

#define TOO_LITTLE_EVIDENCE "too little evidence"

/*
 * The advice shown for a configuration whose last successful run is r: on
 * the figures of its runs pooled when there were two or more, else on r's
 * alone.  *readings gets how many runs it pools.
 */
static const WsbRows *
shown_advice(const WsbRun *r, int *readings)
{
	if (r->advice_readings >= 2)
	{
		*readings = r->advice_readings;
		return &r->advice_pooled;
	}
	*readings = 1;
	return &r->advice;
}

/*
 * How many configurations' advice said "too little evidence", and in *read
 * how many had advice read at all; *most gets the most runs pooled in any
 * advice that said so.
 */
static int
advice_too_short(const WsbPlan *plan, const WsbRun *runs, int nruns, int *read, int *most)
{
	int			n = 0;

	*read = 0;
	*most = 0;
	for (int c = 0; c < plan->nconfigs; c++)
	{
		const WsbRun *r = last_ok_run(runs, nruns, c);
		const WsbRows *advice;
		int			readings;
		bool		short_run = false;

		if (r == NULL)
			continue;
		advice = shown_advice(r, &readings);
		*read += advice->nrows > 0;
		for (int k = 0; k < advice->nrows; k++)
		{
			const char *e = wsb_rows_get(advice, k, "evidence");

			if (e && strncmp(e, TOO_LITTLE_EVIDENCE, strlen(TOO_LITTLE_EVIDENCE)) == 0)
				short_run = true;
		}
		n += short_run;
		if (short_run && readings > *most)
			*most = readings;
	}
	return n;
}

/* "these runs lasted 5 s, 6 of them pooled", or less where unknown */
static void
html_runs_pooled(FILE *f, const WsbOptions *opts, int most)
{
	if (opts != NULL)
		html_printf(f, "these runs lasted %d s", opts->duration);
	else
		fputs("these runs were shorter", f);
	if (most >= 2)
		html_printf(f, ", and even the %d of a configuration pooled fell short", most);
}

/*
 * Advice: wal_stall_advice() on the figures of each configuration's
 * successful runs pooled (each run's alone when it had one).  When every
 * configuration's fell short of 60 s, one line says so in place of a
 * section of "too little evidence" rows.
 */
static void
write_advice_html(FILE *f, const WsbOptions *opts, const WsbPlan *plan,
				  const WsbRun *runs, int nruns)
{
	static const char *const cols[] = {"setting", "current", "suggested", "confidence", "evidence"};
	int			read,
				most,
				nshort = advice_too_short(plan, runs, nruns, &read, &most);

	if (read > 0 && nshort == read)
	{
		fputs("<p class=\"note\">No advice: <code>wal_stall_advice()</code> needs 60 s of "
			  "history since the reset the harness does before every run, ", f);
		html_runs_pooled(f, opts, most);
		fputs(". Runs of <code>--duration 60</code> or more, or more of them, give it.</p>\n", f);
		return;
	}
	fputs("<h2>Advice</h2>\n", f);
	fputs("<p>What <code>wal_stall_advice()</code> suggested for each configuration, from the "
		  "figures of its successful runs pooled (<code>wal_stall_advice(figures[])</code>: "
		  "counts and times add up, peaks and tails are the largest run's; the harness resets "
		  "them before every run): which settings to change, each with its evidence in numbers "
		  "(see the extension's README, &ldquo;Advice&rdquo;).</p>\n", f);
	if (nshort > 0)
	{
		fputs("<p class=\"warn\">The advice needs 60 s of history, and ", f);
		html_runs_pooled(f, opts, most);
		fputs(", so where it says &ldquo;too little evidence&rdquo; it suggests nothing. "
			  "Run with <code>--duration 60</code> or more for advice.</p>\n", f);
	}
	fputs("<table><tr><th>configuration</th><th>runs</th><th>setting</th><th>current</th>"
		  "<th>suggested</th><th>confidence</th><th>evidence</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		const WsbRun *r = last_ok_run(runs, nruns, c);
		int			readings = 0;
		const WsbRows *advice = r ? shown_advice(r, &readings) : NULL;
		int			n = advice ? advice->nrows : 0;

		fputs("<tr>", f);
		config_cell(f, plan, c, n);
		if (n == 0)
		{
			fputs("<td colspan=\"6\">", f);
			if (r == NULL)
				fputs("no successful run", f);
			else if (strcmp(r->statements_why, "wal_stall is not loaded") == 0)
				fputs("wal_stall is not loaded in this configuration", f);
			else
				fputs("not read: <code>wal_stall_advice()</code> failed", f);
			fputs("</td></tr>\n", f);
			continue;
		}
		fprintf(f, "<td rowspan=\"%d\">%d</td>", n, readings);
		for (int k = 0; k < n; k++)
		{
			if (k > 0)
				fputs("<tr>", f);
			for (int col = 0; col < 5; col++)
				html_cell_text(f, wsb_rows_get(advice, k, cols[col]), false);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

/*
 * Statements with the most stall time: wal_stall_queries joined with
 * pg_stat_statements after the last successful run of each configuration.
 */
static void
write_statements_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	bool		any = false,
				unloaded = false;

	for (int c = 0; c < plan->nconfigs; c++)
	{
		const WsbRun *r = last_ok_run(runs, nruns, c);

		if (r && r->statements.ncols > 0)
			any = true;
		if (r && strstr(r->statements_why, "not in shared_preload_libraries"))
			unloaded = true;
	}
	fputs("<p>After the last successful run of each configuration: the 5 statements whose "
		  "clients waited longest in the stall classes (<code>wal_buffer_full</code>, "
		  "<code>wal_flush</code>, <code>wal_insert</code>, <code>clog</code>) in "
		  "<code>wal_stall_queries</code>, summed, with the split by class, and the text "
		  "<code>pg_stat_statements</code> keeps for the query id (first 200 characters). "
		  "Both are reset before every run. A statement without text had no "
		  "<code>pg_stat_statements</code> entry; the row without a query id holds the "
		  "episodes outside any statement.</p>\n", f);
	if (unloaded)
		fputs("<p class=\"warn\">To list the statements, preload <code>pg_stat_statements</code> "
			  "with wal_stall: a preset line <code>conf = shared_preload_libraries = "
			  "'wal_stall,pg_stat_statements'</code> (with <code>--pgdata</code> it replaces the "
			  "cluster's list for the runs; the old value is restored at the end), or, when the "
			  "configurations vary <code>shared_preload_libraries</code>, add it to each value that "
			  "loads wal_stall: <code>--set \"shared_preload_libraries='','wal_stall,pg_stat_statements'\"</code>. "
			  "The harness creates the extension in its own database.</p>\n", f);
	if (!any)
	{
		for (int c = 0; c < plan->nconfigs; c++)
		{
			const WsbRun *r = last_ok_run(runs, nruns, c);

			if (r && r->statements_why[0] && !unloaded)
			{
				fputs("<p>Not read: ", f);
				wsb_html_escape(f, r->statements_why);
				fputs(".</p>\n", f);
				break;
			}
		}
		return;
	}
	fputs("<table><tr><th>configuration</th><th>queryid</th><th>stall ms</th>"
		  "<th>by class (ms)</th><th>query</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		const WsbRun *r = last_ok_run(runs, nruns, c);
		int			n = r ? r->statements.nrows : 0;

		fputs("<tr>", f);
		config_cell(f, plan, c, n);
		if (n == 0)
		{
			fputs("<td colspan=\"4\">", f);
			if (r == NULL)
				fputs("no successful run", f);
			else if (r->statements_why[0])
				html_printf(f, "not read: %s", r->statements_why);
			else
				fputs("no client stalled in these classes", f);
			fputs("</td></tr>\n", f);
			continue;
		}
		for (int k = 0; k < n; k++)
		{
			const char *qid = wsb_rows_get(&r->statements, k, "queryid");

			if (k > 0)
				fputs("<tr>", f);
			html_cell_text(f, qid ? qid : "(none)", false);
			wsb_html_number_cell(f, "%.1f", wsb_rows_double(&r->statements, k, "stall_ms", NAN));
			html_cell_text(f, wsb_rows_get(&r->statements, k, "by_class"), false);
			if (qid == NULL)
				fputs("<td>outside any statement</td>", f);
			else
				html_cell_text(f, wsb_rows_get(&r->statements, k, "query"), true);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

static void
env_row(FILE *f, const char *name, const char *value, bool pre)
{
	fputs("<tr><th>", f);
	wsb_html_escape(f, name);
	fputs(pre ? "</th><td><pre>" : "</th><td>", f);
	wsb_html_escape(f, value && *value ? value : "(not recorded)");
	fputs(pre ? "</pre></td></tr>\n" : "</td></tr>\n", f);
}

static void
write_environment_html(FILE *f, const WsbOptions *opts, const WsbPlan *plan,
					   const WsbEnvironment *env)
{
	char		buf[8192];

	fputs("<table>\n", f);
	if (env != NULL)
	{
		env_row(f, "PostgreSQL", env->pg_version, false);
		snprintf(buf, sizeof(buf), "%d cores, %.1f GB memory", env->cores, env->memory_gb);
		env_row(f, "machine", buf, false);
		if (env->fdatasync_per_sec >= 0)
			snprintf(buf, sizeof(buf), "%.0f fdatasync/s (wal_stall_test_fsync, one 8kB write)",
					 env->fdatasync_per_sec);
		else
			snprintf(buf, sizeof(buf), "not measured");
		env_row(f, "WAL directory fdatasync rate", buf, false);
		env_row(f, "slowed device", env->wal_device[0] ? env->wal_device : "none (not throttled)", false);
		if (env->wal_disk.profile)
		{
			wsb_disk_describe(&env->wal_disk, buf, sizeof(buf));
			env_row(f, "WAL disk profile (--wal-disk)", buf, false);
		}
		if (env->steady[0])
			env_row(f, "before every run", env->steady, false);
		env_row(f, "pgbench command", env->pgbench_command, true);
		env_row(f, "settings (non-default, as run)", env->settings, true);
		snprintf(buf, sizeof(buf), "%s - %s", env->started, env->finished);
		env_row(f, "started - finished", buf, false);
	}
	if (opts != NULL)
	{
		PQExpBufferData sets;

		initPQExpBuffer(&sets);
		for (int s = 0; s < opts->nsets; s++)
		{
			appendPQExpBuffer(&sets, "--set %s=", opts->sets[s].name);
			for (int v = 0; v < opts->sets[s].nvalues; v++)
				appendPQExpBuffer(&sets, "%s%s", v ? "," : "", opts->sets[s].values[v]);
			appendPQExpBufferChar(&sets, '\n');
		}
		env_row(f, "compared settings", wsb_buffer_text(&sets), true);
		termPQExpBuffer(&sets);
		env_row(f, "preset", opts->preset[0] ? opts->preset : "none", false);
		if (opts->description[0])
			env_row(f, "preset description", opts->description, true);
		if (opts->extra_conf[0])
			env_row(f, "fixed settings (preset)", opts->extra_conf, true);
		snprintf(buf, sizeof(buf),
				 "%d runs per configuration, %d s each, %d clients, %d jobs, scale %d, %s%s%s",
				 opts->runs, opts->duration, opts->clients, opts->jobs, opts->scale,
				 opts->builtin[0] ? "builtin " : "script ",
				 opts->builtin[0] ? opts->builtin : opts->script,
				 opts->pgbench_args[0] ? "" : "");
		env_row(f, "workload", buf, false);
		if (opts->pgbench_args[0])
			env_row(f, "extra pgbench arguments", opts->pgbench_args, false);
		snprintf(buf, sizeof(buf), "slow WAL: %s; WAL bandwidth: %s; slow data directory: %s",
				 opts->slow_wal_iops ? "" : "no", wsb_wal_cap_mbps(opts) > 0 ? "" : "unlimited",
				 opts->slow_disk_iops ? "" : "no");
		if (opts->slow_wal_iops || opts->slow_disk_iops)
			snprintf(buf, sizeof(buf), "slow WAL: %d write IOPS; WAL bandwidth: %.3g MB/s; slow data directory: %d write IOPS (0 = not limited)",
					 opts->slow_wal_iops, wsb_wal_cap_mbps(opts), opts->slow_disk_iops);
		env_row(f, "throttling (cgroup v2 io.max or v1 blkio)", buf, false);
		env_row(f, "cluster", opts->pgdata[0] ? opts->pgdata :
				opts->in_memory ? "temporary, in memory (/dev/shm; removed at the end)" :
				"temporary (removed at the end)", false);
	}
	snprintf(buf, sizeof(buf), "%d", plan->nconfigs);
	env_row(f, "configurations", buf, false);
	fputs("</table>\n", f);
}

static void
write_order_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	const WsbRun **ord = wsb_runs_in_order(runs, nruns);

	fputs("<p>Runs go in rounds, each running every configuration once, in balanced orders "
		  "drawn from the seed: every second round is the one before reversed (a Williams design "
		  "for more than two configurations), so that drift of the machine and what a run leaves "
		  "to the next weigh on every configuration alike.</p>\n"
		  "<table><tr><th>order</th><th>configuration</th><th>run</th>"
		  "<th>started (UTC)</th><th>seconds</th><th>tps</th><th>result</th></tr>\n", f);
	for (int i = 0; ord && i < nruns; i++)
	{
		const WsbRun *r = ord[i];
		char		ts[64];

		wsb_iso8601_utc(r->started_at, ts, sizeof(ts));
		fprintf(f, "<tr%s><td class=\"n\">%d</td><td>", r->ok ? "" : " class=\"failed\"", r->order);
		wsb_html_escape(f, wsb_config_label(plan, r->config));
		fprintf(f, "</td><td class=\"n\">%d</td><td>%s</td>", r->repeat, ts);
		wsb_html_number_cell(f, "%.1f", r->seconds);
		wsb_html_number_cell(f, "%.1f", r->tps);
		fputs("<td>", f);
		wsb_html_escape(f, r->ok ? "ok" : (r->error[0] ? r->error : "failed"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(ord);
}

/*
 * report.html in dir.  Returns 0; -1 when a chart could not be drawn (the
 * HTML is written anyway and says why; the reason is also printed on
 * stderr) or the file could not be written.  When every run failed there
 * is nothing to chart: the report says so, without charts, and that is
 * not an error of the report.
 */
int
wsb_write_report(const char *dir, const WsbOptions *opts,
				 const WsbPlan *plan, const WsbRun *runs, int nruns,
				 const WsbEnvironment *env, const WsbVerdicts *verdicts)
{
	char	   *path,
			   *plotdir = wsb_psprintf("%s/plots", dir);
	char		why[2048] = "",
				extra[512] = "";
	bool		charts = false;
	bool		ckpt = false;
	FILE	   *f;
	int			rc = 0;
	int			nfailed = 0;

	for (int i = 0; i < nruns; i++)
		if (!runs[i].ok)
			nfailed++;
	/* nothing to draw: gnuplot would stop on "all points undefined" */
	if (nfailed == nruns)
		snprintf(why, sizeof(why), "%s", nruns ? "every run failed, so there is nothing to draw; "
				 "the run order below says why each failed" : "there were no runs");
	else if (wsb_draw_charts(plotdir, plan, opts, env, runs, nruns, extra, sizeof(extra), &ckpt,
							 why, sizeof(why)) == 0)
		charts = true;

	path = wsb_psprintf("%s/report.html", dir);
	f = wsb_create_file(path, 0666);	/* the umask makes it 0600 or 0640 */
	free(path);
	if (f == NULL)
	{
		free(plotdir);
		return -1;
	}

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			"<title>wal_stall_bench report</title>\n<style>%s</style></head><body>\n", report_css);
	fputs("<h1>wal_stall_bench: ", f);
	{
		int			rounds = 0;

		/* the rounds run, which --budget and --resume decide */
		for (int i = 0; i < nruns; i++)
			if (runs[i].repeat > rounds)
				rounds = runs[i].repeat;
		html_printf(f, "%d configuration%s x %d round%s", plan->nconfigs,
					plan->nconfigs == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s");
	}
	fputs("</h1>\n", f);
	if (verdicts)
	{
		WsbAnswerConditions cond;
		char		answer[WSB_ANSWER_MAX];

		wsb_answer_conditions_of_runs(opts, plan, runs, nruns, charts, &cond);
		wsb_answer_text(verdicts, &cond, answer, sizeof(answer));
		wsb_answer_html(f, answer);
	}
	fputs("<p>", f);
	if (env)
		html_printf(f, "Started %s, finished %s. ", env->started, env->finished);
	html_printf(f, "Baseline: %s.", plan->nconfigs ? plan->configs[0].label : "none");
	fputs("</p>\n", f);
	if (plan_turns_fsync_off(opts, plan))
		fputs("<p class=\"warn\"><strong>Warning:</strong> some runs had <code>fsync = off</code>: "
			  "the server did not make WAL durable, and a crash of the machine during such a run "
			  "can corrupt the cluster. Read those figures as the ceiling of what faster storage "
			  "could give, never as a configuration to use.</p>\n", f);
	if (clog_follows_shared_buffers(plan, env))
		fputs("<p class=\"warn\"><strong>Confound:</strong> <code>shared_buffers</code> differs "
			  "between configurations, and before PostgreSQL 17 the CLOG's buffers follow it "
			  "(<code>shared_buffers</code> / 512, from 4 to 128): a change may come from the "
			  "CLOG cache or from the data cache. The CLOG hit ratio and the <code>clog</code> "
			  "stall figures below say whether the CLOG moved. (17 sets the CLOG's buffers "
			  "alone: <code>transaction_buffers</code>.)</p>\n", f);
	if (nfailed > 0)
		html_printf(f, "%d run%s failed and %s left out of every figure; see the run order below.",
					nfailed, nfailed == 1 ? "" : "s", nfailed == 1 ? "is" : "are");
	if (nfailed > 0)
		fputs("\n", f);
	if (!charts)
	{
		fputs(nfailed == nruns ? "<p class=\"missing\"><strong>No charts:</strong> "
			  : "<p class=\"missing\"><strong>Charts are missing:</strong> ", f);
		wsb_html_escape(f, why);
		fputs("</p>\n", f);
	}

	if (verdicts)
	{
		fputs("<h2>Verdict by rounds</h2>\n", f);
		wsb_paired_html(f, &verdicts->table, &verdicts->spec, verdicts->v, plan->seed,
						verdicts->forest ? plotdir : NULL);
		if (!verdicts->forest)
		{
			fputs("<p class=\"missing\">Forest plots missing: ", f);
			wsb_html_escape(f, verdicts->forest_why);
			fputs("</p>\n", f);
		}
	}
	fputs("<h2>Runs</h2>\n", f);
	write_runs_html(f, plan, runs, nruns);

	fputs("<h2>Throughput and stalls, second by second</h2>\n", f);
	path = wsb_psprintf("%s/timeline.svg", plotdir);
	if (charts)
	{
		fputs("<figure>\n", f);
		if (wsb_paste_svg(f, path) != 0)
			fputs("<p class=\"missing\">timeline.svg could not be read</p>\n", f);
		fputs("<figcaption>Top: transactions completed in each second of every successful run "
			  "(pgbench), one colour per configuration, x = seconds since the run started. "
			  "Beneath, on the same axis, from <code>wal_stall_history</code>: client stall time "
			  "in each second per class (ms of waiting per second, summed over backends), then "
			  "the WAL reserved but not yet written at that second's peak, in multiples of "
			  "<code>wal_buffers</code> (<code>buffer_fill_max</code>; at or above the dashed "
			  "line at 1 the ring was full and inserters waited for room); then what the WAL "
			  "disk was given to write: the WAL written in each second, in MB/s of 1048576 "
			  "bytes (<code>wal_bytes</code> / <code>seconds</code>, the advance of the insert "
			  "position: what the disk had to take in, not what reached it in that very second), "
			  "with the disk's bandwidth cap as a dashed line when the harness set one "
			  "(<code>--slow-wal-mbps</code>), and the longest WAL fsync of each second in ms "
			  "(<code>wal_fsync_max_ms</code>), with the time of one fdatasync as the probe "
			  "measured it on the WAL directory before the runs as a dotted line. These two "
			  "are the evidence when the answer "
			  "or a limit line says the WAL disk's write or flush rate limits both.", f);
		if (extra[0])
		{
			fputs(" Classes with no stall in any run are left out: ", f);
			wsb_html_escape(f, extra);
			fputs(".", f);
		}
		if (ckpt)
			fputs(" Grey bands: seconds in which a checkpoint was under way "
				  "(one band per run, so overlapping runs darken it).", f);
		fputs(" Data and script: <code>plots/run_*.dat</code>, <code>plots/timeline.gp</code>."
			  "</figcaption>\n</figure>\n", f);
	}
	else
		fputs("<p class=\"missing\">Chart missing (see above).</p>\n", f);

	fputs("<h2>Run tps by configuration</h2>\n", f);
	free(path);
	path = wsb_psprintf("%s/strip.svg", plotdir);
	if (charts)
	{
		fputs("<figure>\n", f);
		if (wsb_paste_svg(f, path) != 0)
			fputs("<p class=\"missing\">strip.svg could not be read</p>\n", f);
		fputs("<figcaption>Each dot is one successful run's tps as the verdict judges it "
			  "(over the run's steady seconds when every run has them, else pgbench's figure "
			  "for the whole run), spread sideways by run number, on an axis from zero; black: "
			  "the configuration's median. The verdict pairs each run with the baseline's of "
			  "the same round (above); these dots are not paired. Dashed line: the baseline's "
			  "median. Data and script: <code>plots/strip.dat</code>, "
			  "<code>plots/medians.dat</code>, <code>plots/strip.gp</code>.</figcaption>\n</figure>\n", f);
	}
	else
		fputs("<p class=\"missing\">Chart missing (see above).</p>\n", f);

	fputs("<h2>Stall summary per configuration</h2>\n", f);
	write_summary_html(f, plan, runs, nruns);
	if (wsb_clog_wanted(opts, plan))
		wsb_clog_html(f, plotdir, plan, runs, nruns, env, verdicts);
	if (wsb_ring_wanted(plan))
		wsb_ring_html(f, plotdir, plan, runs, nruns, verdicts);
	fputs("<h2>Statements with the most stall time</h2>\n", f);
	write_statements_html(f, plan, runs, nruns);
	write_advice_html(f, opts, plan, runs, nruns);
	wsb_validate_html(f, plan, runs, nruns);
	fputs("<h2>Environment</h2>\n", f);
	write_environment_html(f, opts, plan, env);
	fputs("<h2>Run order</h2>\n", f);
	write_order_html(f, plan, runs, nruns);
	fputs("<p>Files next to this report: <code>results.csv</code> (a row per run), "
		  "<code>timeline.csv</code> (a row per second per run), <code>plots/</code> "
		  "(gnuplot's inputs).</p>\n</body></html>\n", f);

	rc = wsb_close_written(f, rc);
	free(path);
	free(plotdir);
	if (!charts && nfailed < nruns)
	{
		fprintf(stderr, "wal_stall_bench: report.html has no charts: %s\n", why);
		rc = -1;
	}
	return rc;
}
