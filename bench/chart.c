/*-------------------------------------------------------------------------
 *
 * chart.c
 *		wal_stall_bench: the report's charts, drawn by gnuplot.
 *
 * gnuplot's svg terminal draws them; report.c pastes the SVG inline.
 * gnuplot's inputs (one data file per run, the scripts) are kept in
 * DIR/plots/ so that a chart can be redrawn or restyled by hand:
 * `cd DIR/plots && gnuplot timeline.gp`.  Everything put into a gnuplot
 * script as text goes through wsb_gp_string() and is drawn noenhanced, so a
 * configuration label is shown as typed.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "proc.h"
#include "report_internal.h"

/* wal_stall_history's per-second stall columns, charted under the tps */
static const char *const stall_columns[] = {
	"wal_buffer_full_ms", "wal_flush_ms", "wal_insert_ms", "clog_ms"
};
#define N_STALL_COLUMNS (int) (sizeof(stall_columns) / sizeof(stall_columns[0]))
/* buffer_fill_max: WAL reserved but not yet written, in rings (above 1
 * while inserters wait for room) */
#define FILL_AXIS "WAL not yet written, x wal_buffers (peak)"
/* the WAL disk's side: what it was given to write, and its slowest fsync */
#define WAL_RATE_AXIS "WAL written, MB/s"
#define FSYNC_AXIS "longest WAL fsync, ms"

/*
 * A run's data file: second, tps, the stall columns, then these; gnuplot
 * numbers the columns from 1.
 */
#define DAT_COL_STALL 3
#define DAT_COL_FILL (DAT_COL_STALL + N_STALL_COLUMNS)
#define DAT_COL_WAL_RATE (DAT_COL_FILL + 1)
#define DAT_COL_FSYNC (DAT_COL_FILL + 2)

/* One panel under the tps: its data file column and its axis name. */
typedef struct TimelinePanel
{
	int			column;
	char		axis[64];
	bool		ring_line;		/* the dashed line at 1 ring (the fill panel) */
	bool		wal_cap;		/* the WAL disk's throttle (the WAL rate panel) */
	bool		probe_line;		/* the fsync probe's time (the fsync panel) */
} TimelinePanel;

#define MAX_TIMELINE_PANELS (N_STALL_COLUMNS + 3)

/* one colour per configuration, cycled past ten */
static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"
};
#define N_PALETTE (int) (sizeof(palette) / sizeof(palette[0]))

/* The colour of configuration c in every chart and table. */
const char *
wsb_config_colour(int c)
{
	return palette[c % N_PALETTE];
}

/*
 * A string in a gnuplot script, double-quoted.  Not single-quoted: gnuplot
 * 5.4 mis-scans two doubled quotes in a row ('a''''' ends after the first
 * pair, "unexpected or unrecognized token"), so a label such as
 * shared_preload_libraries='' cannot be written that way.  Inside double
 * quotes a backslash and a double quote are escaped, a backquote is
 * written as \140 (gnuplot substitutes `command` even inside double
 * quotes, but not an escape), line breaks and other control characters
 * become blanks.  Every text is drawn noenhanced, so it shows as typed.
 */
void
wsb_gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
	{
		unsigned char ch = (unsigned char) *s;

		if (ch == '"' || ch == '\\')
		{
			fputc('\\', f);
			fputc(ch, f);
		}
		else if (ch == '`')
			fputs("\\140", f);
		else if (ch < 0x20 || ch == 0x7f)
			fputc(' ', f);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* A text in a comment line of a gnuplot data file: one line, always. */
static void
gp_comment(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

/*
 * wsb_gp_sweep_axes
 *		The opening of a sweep's chart (CLOG buffers, wal_buffers): an SVG
 *		of 800 x 420, the setting on a log 2 axis, the stall figure on the
 *		left axis and the median run's tps on the right, both from 0.  The
 *		labels go in as given: gnuplot's enhanced text, underscores escaped.
 */
void
wsb_gp_sweep_axes(FILE *gp, const char *svg, const char *xlabel, const char *ylabel)
{
	fprintf(gp, "set terminal svg size 800,420 dynamic enhanced font 'sans,10'\n"
			"set output '%s'\n"
			"set logscale x 2\n"
			"set offsets graph 0.05, graph 0.05, 0, 0\n"
			"set grid xtics ytics lc rgb '#dddddd'\n"
			"set xlabel '%s'\n"
			"set ylabel '%s'\n"
			"set y2label 'tps, median run'\n"
			"set ytics nomirror\n"
			"set y2tics\n"
			"set yrange [0:*]\n"
			"set y2range [0:*]\n"
			"set key outside bottom center horizontal\n", svg, xlabel, ylabel);
}

void
wsb_gp_number(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("?", f);
	else
		fprintf(f, "%.6g", v);
}

/* gnuplot on PATH?  Fills why when not. */
bool
wsb_find_gnuplot(char *why, size_t len)
{
	const char *path = getenv("PATH");
	char		prog[PATH_MAX];

	if (path == NULL || *path == '\0')
	{
		snprintf(why, len, "PATH is empty, so gnuplot cannot be found (install gnuplot-nox)");
		return false;
	}
	if (wsb_which_on_path("gnuplot", prog, sizeof(prog)))
		return true;
	snprintf(why, len, "gnuplot was not found on PATH; install it (apt-get install gnuplot-nox) and rerun");
	return false;
}

/* The last non-empty line of a gnuplot log: it carries gnuplot's error. */
static void
last_log_line(const char *logpath, char *line, size_t len)
{
	FILE	   *lf = fopen(logpath, "r");
	char		l[512];

	line[0] = '\0';
	if (lf == NULL)
		return;
	while (fgets(l, sizeof(l), lf))
		if (strspn(l, " \t\r\n") != strlen(l))
			snprintf(line, len, "%s", l);
	fclose(lf);
	line[strcspn(line, "\r\n")] = '\0';
}

/* Run `gnuplot script` in dir, its messages into script.log.  0 on
 * success; else why says what went wrong. */
int
wsb_run_gnuplot(const char *dir, const char *script, char *why, size_t len)
{
	WsbCommand	c;
	char		prog[PATH_MAX] = "gnuplot";
	char	   *logpath;
	char		line[512];
	pid_t		pid;
	int			status;
	int			rc = -1;

	/* the script is read, and the charts written, by name: in our own directory only */
	if (wsb_dir_is_private(dir, "the plot directory", why, len) != 0)
		return -1;
	/* not on PATH: the exec fails and the exit status says so */
	wsb_which_on_path("gnuplot", prog, sizeof(prog));
	logpath = wsb_psprintf("%s/%s.log", dir, script);
	wsb_cmd_init(&c, (uid_t) -1, (gid_t) -1);
	wsb_cmd_add(&c, "%s", prog);
	wsb_cmd_add(&c, "%s", script);
	c.cwd = dir;
	c.stdout_path = logpath;	/* and stderr */
	pid = wsb_cmd_start(&c);
	wsb_cmd_free(&c);
	if (pid < 0)
		snprintf(why, len, "could not start gnuplot: %s", strerror(errno));
	else if (wsb_proc_wait(pid, -1, &status) != 1)
		snprintf(why, len, "could not wait for gnuplot: %s", strerror(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		last_log_line(logpath, line, sizeof(line));
		snprintf(why, len, "gnuplot failed on %s/%s (exit %d)%s%s",
				 dir, script, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				 line[0] ? ": " : "", line);
	}
	else
		rc = 0;
	free(logpath);
	return rc;
}

/* Paste an SVG file into the HTML, from "<svg" on (gnuplot writes an XML
 * prologue and DOCTYPE first, which do not belong inside HTML). */
int
wsb_paste_svg(FILE *f, const char *path)
{
	char	   *buf = wsb_read_file(path, NULL);
	char	   *start = buf ? strstr(buf, "<svg") : NULL;

	if (start != NULL)
		fputs(start, f);
	free(buf);
	return start != NULL ? 0 : -1;
}

/*
 * A sweep's chart in report.html: plotdir/svg pasted with its caption when
 * it was drawn (drawn is 0) and can be read; else a note that the chart
 * called what is missing, and why.
 */
void
wsb_html_sweep_chart(FILE *f, const char *plotdir, const char *svg, int drawn, const char *why,
					 const char *what, const char *caption)
{
	char	   *path = wsb_psprintf("%s/%s", plotdir, svg);

	if (drawn == 0 && wsb_paste_svg(f, path) == 0)
		fputs(caption, f);
	else
	{
		fprintf(f, "<p class=\"missing\">%s chart missing: ", what);
		if (why[0])
			wsb_html_escape(f, why);
		else
			fprintf(f, "%s could not be read", svg);
		fputs("</p>\n", f);
	}
	free(path);
}

/*
 * Paste an SVG file into the HTML as an <img> whose src is a data: URI
 * holding the whole file in base64 (the verdict's forest plots).  -1 when
 * the file cannot be read, and nothing written.
 */
int
wsb_paste_svg_image(FILE *f, const char *path, const char *alt)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t		len;
	unsigned char *s = (unsigned char *) wsb_read_file(path, &len);

	if (s == NULL)
		return -1;
	fputs("<img alt=\"", f);
	wsb_html_escape(f, alt);
	fputs("\" src=\"data:image/svg+xml;base64,", f);
	for (size_t i = 0; i < len; i += 3)
	{
		unsigned	v = s[i] << 16 | (i + 1 < len ? s[i + 1] << 8 : 0) | (i + 2 < len ? s[i + 2] : 0);

		fputc(b64[v >> 18 & 63], f);
		fputc(b64[v >> 12 & 63], f);
		fputc(i + 1 < len ? b64[v >> 6 & 63] : '=', f);
		fputc(i + 2 < len ? b64[v & 63] : '=', f);
	}
	fputs("\">\n", f);
	free(s);
	return 0;
}

/*
 * true when a successful run's history has the column with a non-zero
 * value in it; *present: a successful run's history has the column;
 * *defined: some value in it is not NULL.  Failed runs are not drawn, so
 * they do not count: a panel whose every point is undefined stops gnuplot
 * ("all points y value undefined").
 */
static bool
history_has_values(const WsbRun *runs, int nruns, const char *col,
				   bool *present, bool *defined)
{
	bool		nonzero = false;

	*present = false;
	*defined = false;
	for (int i = 0; i < nruns; i++)
	{
		int			c = runs[i].ok ? wsb_rows_col(&runs[i].history, col) : -1;

		if (c < 0)
			continue;
		*present = true;
		for (int r = 0; r < runs[i].history.nrows; r++)
		{
			const char *v = runs[i].history.cells[r][c];

			if (v != NULL)
				*defined = true;
			if (v != NULL && strtod(v, NULL) != 0)
				nonzero = true;
		}
	}
	return nonzero;
}

/* A checkpoint is under way in a second whose `checkpoint` column says
 * start, running or done (done: it ended in that second). */
static bool
checkpoint_active(const char *v)
{
	return v != NULL && (strcmp(v, "start") == 0 ||
						 strcmp(v, "running") == 0 ||
						 strcmp(v, "done") == 0);
}

/*
 * Which of the timeline's WAL disk panels some successful run fills: the
 * WAL written per second (wal_bytes over seconds) and the longest WAL
 * fsync per second.  The answer (answer.c) names a panel only when it is
 * there.
 */
void
wsb_timeline_wal_panels(const WsbRun *runs, int nruns, bool *wal_rate, bool *fsync)
{
	bool		present,
				defined;

	/* without seconds every rate is undefined, and gnuplot stops on that */
	*wal_rate = history_has_values(runs, nruns, "wal_bytes", &present, &defined) &&
		history_has_values(runs, nruns, "seconds", &present, &defined);
	*fsync = history_has_values(runs, nruns, "wal_fsync_max_ms", &present, &defined);
}

/*
 * The panels under the tps, top to bottom: each stall class with a stall
 * in some run, the ring's fill, the WAL written, the longest WAL fsync.
 * caption_extra receives the stall classes left out (no stall in any run).
 */
static int
timeline_panels(const WsbRun *runs, int nruns, TimelinePanel *panels,
				char *caption_extra, size_t caplen)
{
	int			n = 0;
	bool		present,
				defined,
				wal_rate,
				fsync;

	caption_extra[0] = '\0';
	memset(panels, 0, sizeof(TimelinePanel) * MAX_TIMELINE_PANELS);
	for (int k = 0; k < N_STALL_COLUMNS; k++)
	{
		if (history_has_values(runs, nruns, stall_columns[k], &present, &defined))
		{
			panels[n].column = DAT_COL_STALL + k;
			/* the class, its column's name less "_ms", and the unit */
			snprintf(panels[n].axis, sizeof(panels[n].axis), "%.*s: client wait, ms/s",
					 (int) strlen(stall_columns[k]) - 3, stall_columns[k]);
			n++;
		}
		else if (present)
		{
			size_t		used = strlen(caption_extra);

			snprintf(caption_extra + used, caplen - used, "%s%s",
					 used ? ", " : "", stall_columns[k]);
		}
	}
	/* a ring that never filled is shown too: the fill says how far it was */
	history_has_values(runs, nruns, "buffer_fill_max", &present, &defined);
	if (defined)
	{
		panels[n].column = DAT_COL_FILL;
		snprintf(panels[n].axis, sizeof(panels[n].axis), "%s", FILL_AXIS);
		panels[n++].ring_line = true;
	}
	wsb_timeline_wal_panels(runs, nruns, &wal_rate, &fsync);
	if (wal_rate)
	{
		panels[n].column = DAT_COL_WAL_RATE;
		snprintf(panels[n].axis, sizeof(panels[n].axis), "%s", WAL_RATE_AXIS);
		panels[n++].wal_cap = true;
	}
	if (fsync)
	{
		panels[n].column = DAT_COL_FSYNC;
		snprintf(panels[n].axis, sizeof(panels[n].axis), "%s", FSYNC_AXIS);
		panels[n++].probe_line = true;
	}
	return n;
}

/* A history row's WAL written per second in MB/s (1048576 bytes, the unit
 * of --slow-wal-mbps); NAN when the row does not say. */
static double
row_wal_mb_per_s(const WsbRows *history, int row)
{
	double		bytes = wsb_rows_double(history, row, "wal_bytes", NAN);
	double		seconds = wsb_rows_double(history, row, "seconds", NAN);

	return seconds > 0 ? bytes / seconds / 1048576.0 : NAN;
}

/*
 * Run r's data file run_<order>.dat: one line a second (second, tps, the
 * stall columns, buffer_fill_max, WAL MB/s, wal_fsync_max_ms), and into gp
 * a grey band for each stretch of seconds with a checkpoint under way
 * (*nobj counts gnuplot's objects).  *max_second grows to the run's last
 * second.  0, or -1 when the file cannot be written.
 */
static int
write_run_data(const char *plotdir, const WsbPlan *plan, const WsbRun *r, FILE *gp,
			   int *nobj, int64_t *max_second)
{
	WsbJoinRow *rows = NULL;
	int			n = wsb_join_run(r, &rows);
	FILE	   *d;
	int			ckc = wsb_rows_col(&r->history, "checkpoint");
	int64_t		ck_start = -1;

	if (n < 0)
		return 0;
	if ((d = wsb_fopenf("w", "%s/run_%d.dat", plotdir, r->order)) == NULL)
	{
		free(rows);
		return -1;
	}
	fprintf(d, "# run %d (order %d) of ", r->repeat, r->order);
	gp_comment(d, wsb_config_label(plan, r->config));
	fputs("\n# second tps", d);
	for (int k = 0; k < N_STALL_COLUMNS; k++)
		fprintf(d, " %s", stall_columns[k]);
	fputs(" buffer_fill_max wal_mb_per_s wal_fsync_max_ms\n", d);
	for (int k = 0; k < n; k++)
	{
		int64_t		sec = rows[k].epoch - rows[0].epoch + 1;
		int			h = rows[k].hist;
		const char *ck = NULL;

		if (sec > *max_second)
			*max_second = sec;
		fprintf(d, "%lld ", (long long) sec);
		if (rows[k].pg >= 0)
			fprintf(d, "%lld", (long long) r->per_second[rows[k].pg].transactions);
		else
			fputs("?", d);
		for (int c = 0; c < N_STALL_COLUMNS; c++)
		{
			fputc(' ', d);
			wsb_gp_number(d, h >= 0 ? wsb_rows_double(&r->history, h, stall_columns[c], NAN) : NAN);
		}
		fputc(' ', d);
		wsb_gp_number(d, h >= 0 ? wsb_rows_double(&r->history, h, "buffer_fill_max", NAN) : NAN);
		fputc(' ', d);
		wsb_gp_number(d, h >= 0 ? row_wal_mb_per_s(&r->history, h) : NAN);
		fputc(' ', d);
		wsb_gp_number(d, h >= 0 ? wsb_rows_double(&r->history, h, "wal_fsync_max_ms", NAN) : NAN);
		fputc('\n', d);

		/* checkpoint shading: contiguous seconds under way */
		if (ckc >= 0 && h >= 0)
			ck = r->history.cells[h][ckc];
		if (checkpoint_active(ck) && ck_start < 0)
			ck_start = sec;
		if (ck_start >= 0 && (!checkpoint_active(ck) || k == n - 1 ||
							  (ck != NULL && strcmp(ck, "done") == 0)))
		{
			int64_t		ck_end = checkpoint_active(ck) ? sec : sec - 1;

			fprintf(gp, "set object %d rect from %.1f, graph 0 to %.1f, graph 1 "
					"behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder\n",
					++*nobj, ck_start - 0.5, ck_end + 0.5);
			ck_start = -1;
		}
	}
	fclose(d);
	free(rows);
	return 0;
}

/*
 * The top panel: every successful run's tps, one colour per configuration,
 * each configuration named once in the key.
 */
static void
write_tps_panel(FILE *gp, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	bool	   *titled = calloc(plan->nconfigs > 0 ? plan->nconfigs : 1, sizeof(bool));
	int			nplotted = 0;

	fputs("plot \\\n", gp);
	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = &runs[i];

		if (!r->ok)
			continue;
		if (nplotted++ > 0)
			fputs(", \\\n", gp);
		fprintf(gp, "  'run_%d.dat' using 1:2 with lines lw 1.2 lc rgb '%s' ",
				r->order, wsb_config_colour(r->config));
		if (titled != NULL && r->config >= 0 && r->config < plan->nconfigs && !titled[r->config])
		{
			char		lab[48];

			/* the legend has 30% of the width; the tables show labels whole */
			snprintf(lab, sizeof(lab), "%.47s", wsb_config_label(plan, r->config));
			if (strlen(wsb_config_label(plan, r->config)) > 40)
				strcpy(lab + 37, "...");
			fputs("title ", gp);
			wsb_gp_string(gp, lab);
			titled[r->config] = true;
		}
		else
			fputs("notitle", gp);
	}
	fputs(nplotted ? "\n" : "  NaN notitle\n", gp);
	fputs("unset key\n", gp);
	free(titled);
}

/*
 * The WAL disk's throttle on the WAL rate panel, beside it where the key
 * is.  A bandwidth cap (--slow-wal-mbps) is a line, and *cap_mbps says
 * where (0 none).  An IOPS cap alone draws no line: it bounds MB/s only
 * through the size of each write, which PostgreSQL chooses, so the panel
 * says the cap is in IOPS instead.
 */
static void
write_wal_cap_note(FILE *gp, const WsbOptions *o, double *cap_mbps)
{
	char		note[96] = "";

	*cap_mbps = 0;
	if (o == NULL)
		return;
	if (wsb_wal_cap_mbps(o) > 0)
	{
		*cap_mbps = wsb_wal_cap_mbps(o);
		fputs("set key at graph 1.02, graph 1 left top Left reverse noenhanced\n", gp);
		return;
	}
	if (o->slow_wal_iops > 0)
		snprintf(note, sizeof(note), "pg_wal capped at %d write IOPS", o->slow_wal_iops);
	else if (o->slow_disk_iops > 0)
		snprintf(note, sizeof(note), "data directory, pg_wal in it, capped at %d write IOPS",
				 o->slow_disk_iops);
	if (note[0] == '\0')
		return;
	fputs("set label 1 ", gp);
	wsb_gp_string(gp, note);
	fputs(" at graph 1.02, graph 0.95 left noenhanced\n"
		  "set label 2 \"no MB/s cap, so no cap line\" at graph 1.02, graph 0.82 left noenhanced\n", gp);
}

/*
 * The time of one fdatasync of an 8kB write as the harness's probe of the
 * WAL directory measured it before the runs (wal_stall_test_fsync), ms,
 * for the fsync panel: what the disk does alone, against which the runs'
 * longest fsyncs read.  0 when it was not measured.
 */
static double
probe_fsync_ms(const WsbEnvironment *env)
{
	if (env == NULL || !(env->fdatasync_per_sec > 0))
		return 0;
	return 1000.0 / env->fdatasync_per_sec;
}

/* One panel under the tps: column p->column of every successful run. */
static void
write_timeline_panel(FILE *gp, const WsbRun *runs, int nruns, const TimelinePanel *p,
					 bool last, const WsbOptions *o, const WsbEnvironment *env)
{
	int			nplotted = 0;
	double		cap_mbps = 0;
	double		probe_ms = p->probe_line ? probe_fsync_ms(env) : 0;

	if (last)
		fputs("set format x '%g'\nset xlabel 'seconds since the run started' noenhanced\n", gp);
	fputs("set ylabel ", gp);
	wsb_gp_string(gp, p->axis);
	fputs(" noenhanced\n", gp);
	if (p->ring_line)
		fputs("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#555555'\n", gp);
	if (p->wal_cap)
		write_wal_cap_note(gp, o, &cap_mbps);
	if (probe_ms > 0)
		fputs("set key at graph 1.02, graph 1 left top Left reverse noenhanced\n", gp);
	fputs("plot \\\n", gp);
	for (int i = 0; i < nruns; i++)
	{
		if (!runs[i].ok)
			continue;
		if (nplotted++ > 0)
			fputs(", \\\n", gp);
		fprintf(gp, "  'run_%d.dat' using 1:%d with lines lw 1.2 lc rgb '%s' notitle",
				runs[i].order, p->column, wsb_config_colour(runs[i].config));
	}
	if (nplotted == 0)
		fputs("  NaN notitle", gp);
	/* a function, so that autoscaling keeps the cap in view */
	if (cap_mbps > 0)
		fprintf(gp, ", \\\n  %g with lines dt 2 lw 1.2 lc rgb '#555555' title \"cap %.3g MB/s\"",
				cap_mbps, cap_mbps);
	if (probe_ms > 0)
		fprintf(gp, ", \\\n  %.3f with lines dt 3 lw 1.2 lc rgb '#555555' "
				"title \"probe: one fdatasync %.1f ms\"", probe_ms, probe_ms);
	fputc('\n', gp);
	/* what belongs to this panel alone */
	if (p->ring_line)
		fputs("unset arrow 1\n", gp);
	if (p->wal_cap || probe_ms > 0)
		fputs("unset key\nunset label 1\nunset label 2\n", gp);
}

/*
 * Chart (1): per-second tps of every run, coloured by configuration, and
 * beneath it on the same x axis the stall ms per second of each class,
 * the WAL ring's peak fill, the WAL written per second (with the WAL
 * disk's bandwidth cap when the harness set one, o may be NULL) and the
 * longest WAL fsync per second (with the time of one fdatasync as the
 * probe measured it before the runs, env may be NULL).  Writes
 * run_<order>.dat and timeline.gp
 * into plotdir; caption receives what was left out, *ckpt whether
 * checkpoint bands were drawn.
 */
static int
write_timeline_chart(const char *plotdir, const WsbPlan *plan, const WsbOptions *o,
					 const WsbEnvironment *env, const WsbRun *runs, int nruns,
					 char *caption_extra, size_t caplen, bool *ckpt)
{
	FILE	   *gp;
	TimelinePanel panels[MAX_TIMELINE_PANELS];
	int			npanels = timeline_panels(runs, nruns, panels, caption_extra, caplen);
	bool		ckpt_present = false;
	int64_t		max_second = 1;
	int			nobj = 0;
	int			height = 80 + 190 * (1 + npanels);

	for (int i = 0; i < nruns; i++)
		if (wsb_rows_col(&runs[i].history, "checkpoint") >= 0)
			ckpt_present = true;

	if ((gp = wsb_fopenf("w", "%s/timeline.gp", plotdir)) == NULL)
		return -1;

	/* data: one file per successful run */
	for (int i = 0; i < nruns; i++)
		if (runs[i].ok &&
			write_run_data(plotdir, plan, &runs[i], gp, &nobj, &max_second) != 0)
		{
			fclose(gp);
			return -1;
		}

	fprintf(gp, "set terminal svg size 1000,%d dynamic enhanced font 'sans,10'\n", height);
	fputs("set output 'timeline.svg'\n"
		  "set datafile missing '?'\n"
		  "set grid ytics lc rgb '#dddddd'\n", gp);
	fprintf(gp, "set xrange [0:%lld]\n", (long long) max_second + 1);
	fprintf(gp, "set multiplot layout %d,1 margins screen 0.08,0.70,%.3f,0.98 spacing screen 0,0.025\n",
			1 + npanels, 55.0 / height);
	fputs("set key at screen 0.71, screen 0.99 left top Left reverse noenhanced\n"
		  "set format x ''\n"
		  "set ylabel \"transactions/s\" noenhanced\n"
		  "set yrange [0:*]\n", gp);
	write_tps_panel(gp, plan, runs, nruns);
	for (int p = 0; p < npanels; p++)
		write_timeline_panel(gp, runs, nruns, &panels[p], p == npanels - 1, o, env);
	fputs("unset multiplot\nset output\n", gp);
	fclose(gp);
	*ckpt = ckpt_present;
	return 0;
}

/*
 * Chart (2): strip chart of the tps the verdict judges (over the steady
 * seconds when it pairs those), per configuration, with the median, on an
 * axis from zero: a difference reads at its true size.
 */
static int
write_strip_chart(const char *plotdir, const WsbPlan *plan,
				  const WsbRun *runs, int nruns)
{
	FILE	   *gp,
			   *d;
	double	   *v = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	bool		window = wsb_window_judged(runs, nruns);
	size_t		maxlabel = 0;
	int			maxrepeat = 1;

	if (v == NULL)
		return -1;
	if ((d = wsb_fopenf("w", "%s/strip.dat", plotdir)) == NULL)
	{
		free(v);
		return -1;
	}
	for (int i = 0; i < nruns; i++)
		if (runs[i].repeat > maxrepeat)
			maxrepeat = runs[i].repeat;
	/* one block per configuration (index c): x tps, jittered by repeat */
	for (int c = 0; c < plan->nconfigs; c++)
	{
		fprintf(d, "# %d\n", c);
		for (int i = 0; i < nruns; i++)
			if (runs[i].config == c && runs[i].ok)
				fprintf(d, "%.4f %.6g\n",
						c + 1 + (maxrepeat > 1 ? 0.3 * ((runs[i].repeat - 1.0) / (maxrepeat - 1) - 0.5) : 0),
						wsb_judged_tps(&runs[i], window));
		fputs("\n\n", d);
	}
	fclose(d);

	if ((d = wsb_fopenf("w", "%s/medians.dat", plotdir)) == NULL)
	{
		free(v);
		return -1;
	}
	fputs("# configuration median\n", d);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		int			n = wsb_config_judged_tps(runs, nruns, c, v);

		if (n == 0)
			continue;
		fprintf(d, "%d ", c + 1);
		wsb_gp_number(d, wsb_median(v, n));
		fputc('\n', d);
	}
	fclose(d);

	for (int c = 0; c < plan->nconfigs; c++)
		if (strlen(plan->configs[c].label) > maxlabel)
			maxlabel = strlen(plan->configs[c].label);
	if (maxlabel > 60)
		maxlabel = 60;

	if ((gp = wsb_fopenf("w", "%s/strip.gp", plotdir)) == NULL)
	{
		free(v);
		return -1;
	}
	fprintf(gp, "set terminal svg size 900,%d dynamic enhanced font 'sans,10'\n",
			380 + (int) maxlabel * 4);
	fputs("set output 'strip.svg'\n"
		  "set datafile missing '?'\n"
		  "set grid ytics lc rgb '#dddddd'\n"
		  "set key outside right top noenhanced\n"
		  "set yrange [0:*]\n", gp);
	fprintf(gp, "set ylabel '%s' noenhanced\n",
			window ? "transactions/s over the steady seconds (as judged)" : "transactions/s of the run");
	fprintf(gp, "set xrange [0.5:%d.5]\n", plan->nconfigs);
	fprintf(gp, "set bmargin %d\n", 3 + (int) maxlabel / 3);
	fputs("set xtics rotate by -25 left noenhanced (", gp);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		char		lab[64];

		snprintf(lab, sizeof(lab), "%.63s", plan->configs[c].label);
		if (strlen(plan->configs[c].label) > 60)
			strcpy(lab + 56, "...");
		wsb_gp_string(gp, lab);
		fprintf(gp, " %d%s", c + 1, c < plan->nconfigs - 1 ? ", " : "");
	}
	fputs(")\n", gp);
	{
		int			nb = wsb_config_judged_tps(runs, nruns, 0, v);

		if (nb > 0)
			fprintf(gp, "set arrow 1 from graph 0, first %.6g to graph 1, first %.6g nohead dt 2 lc rgb '#555555'\n",
					wsb_median(v, nb), wsb_median(v, nb));
	}
	fputs("plot \\\n", gp);
	for (int c = 0; c < plan->nconfigs; c++)
		fprintf(gp, "  'strip.dat' index %d using 1:2 with points pt 7 ps 0.7 lc rgb '%s' notitle, \\\n",
				c, wsb_config_colour(c));
	fputs("  'medians.dat' using ($1+0.25):2 with points pt 5 ps 0.9 lc rgb '#000000' "
		  "title 'median'\n"
		  "set output\n", gp);
	fclose(gp);
	free(v);
	return 0;
}


static int
make_dir(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	return -1;
}

/*
 * Draw timeline.svg and strip.svg in plotdir (created if missing), keeping
 * gnuplot's inputs there; opts (NULL: unknown) say how the WAL disk was
 * throttled.  0 when both were drawn; else -1 and why says
 * what is missing (no gnuplot, a file that could not be written, gnuplot's
 * own error).  left_out receives the stall columns left out of the
 * timeline (no stall in any run), *ckpt whether checkpoint bands were
 * drawn.  The caller makes sure some run succeeded: gnuplot stops on a
 * chart without points.
 */
int
wsb_draw_charts(const char *plotdir, const WsbPlan *plan, const WsbOptions *opts,
				const WsbEnvironment *env, const WsbRun *runs, int nruns,
				char *left_out, size_t lolen, bool *ckpt, char *why, size_t whylen)
{
	left_out[0] = '\0';
	*ckpt = false;
	if (!wsb_find_gnuplot(why, whylen))
		return -1;
	if (make_dir(plotdir) != 0)
	{
		snprintf(why, whylen, "could not create directory \"%s\": %s", plotdir, strerror(errno));
		return -1;
	}
	if (write_timeline_chart(plotdir, plan, opts, env, runs, nruns, left_out, lolen, ckpt) != 0 ||
		write_strip_chart(plotdir, plan, runs, nruns) != 0)
	{
		snprintf(why, whylen, "could not write the chart data in \"%s\": %s", plotdir, strerror(errno));
		return -1;
	}
	if (wsb_run_gnuplot(plotdir, "timeline.gp", why, whylen) != 0 ||
		wsb_run_gnuplot(plotdir, "strip.gp", why, whylen) != 0)
		return -1;
	return 0;
}
