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
 * Chart (1): per-second tps of every run, coloured by configuration, and
 * beneath it on the same x axis the stall ms per second of each class and
 * the WAL ring's peak fill.  Writes run_<order>.dat and timeline.gp into
 * plotdir; caption receives what was left out, *ckpt whether checkpoint
 * bands were drawn.
 */
static int
write_timeline_chart(const char *plotdir, const WsbPlan *plan,
					 const WsbRun *runs, int nruns,
					 char *caption_extra, size_t caplen, bool *ckpt)
{
	FILE	   *gp;
	const char *panels[N_STALL_COLUMNS + 1];
	int			npanels = 0;
	bool		fill_present,
				fill_column,
				ckpt_present = false;
	int64_t		max_second = 1;
	int			nobj = 0;
	bool	   *titled = calloc(plan->nconfigs > 0 ? plan->nconfigs : 1, sizeof(bool));

	if (titled == NULL)
		return -1;
	caption_extra[0] = '\0';
	for (int k = 0; k < N_STALL_COLUMNS; k++)
	{
		bool		present,
					defined;

		if (history_has_values(runs, nruns, stall_columns[k], &present, &defined))
			panels[npanels++] = stall_columns[k];
		else if (present)
		{
			size_t		used = strlen(caption_extra);

			snprintf(caption_extra + used, caplen - used, "%s%s",
					 used ? ", " : "", stall_columns[k]);
		}
	}
	history_has_values(runs, nruns, "buffer_fill_max", &fill_column, &fill_present);
	for (int i = 0; i < nruns; i++)
		if (wsb_rows_col(&runs[i].history, "checkpoint") >= 0)
			ckpt_present = true;

	if ((gp = wsb_fopenf("w", "%s/timeline.gp", plotdir)) == NULL)
	{
		free(titled);
		return -1;
	}

	/* data: one file per run; columns second tps <stall columns> fill */
	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = &runs[i];
		WsbJoinRow    *rows = NULL;
		int			n = r->ok ? wsb_join_run(r, &rows) : 0;
		FILE	   *d;
		int			cols[N_STALL_COLUMNS];
		int			fillc = wsb_rows_col(&r->history, "buffer_fill_max");
		int			ckc = wsb_rows_col(&r->history, "checkpoint");
		int64_t		ck_start = -1;

		if (!r->ok)
			continue;
		if (n < 0)
			continue;
		if ((d = wsb_fopenf("w", "%s/run_%d.dat", plotdir, r->order)) == NULL)
		{
			free(rows);
			fclose(gp);
			free(titled);
			return -1;
		}
		fprintf(d, "# run %d (order %d) of ", r->repeat, r->order);
		gp_comment(d, wsb_config_label(plan, r->config));
		fputs("\n# second tps", d);
		for (int k = 0; k < N_STALL_COLUMNS; k++)
		{
			cols[k] = wsb_rows_col(&r->history, stall_columns[k]);
			fprintf(d, " %s", stall_columns[k]);
		}
		fputs(" buffer_fill_max\n", d);
		for (int k = 0; k < n; k++)
		{
			int64_t		sec = rows[k].epoch - rows[0].epoch + 1;
			const char *ck = NULL;

			if (sec > max_second)
				max_second = sec;
			fprintf(d, "%lld ", (long long) sec);
			if (rows[k].pg >= 0)
				fprintf(d, "%lld", (long long) r->per_second[rows[k].pg].transactions);
			else
				fputs("?", d);
			for (int c = 0; c < N_STALL_COLUMNS; c++)
			{
				fputc(' ', d);
				wsb_gp_number(d, rows[k].hist >= 0 && cols[c] >= 0
						  ? wsb_rows_double(&r->history, rows[k].hist, stall_columns[c], NAN)
						  : NAN);
			}
			fputc(' ', d);
			wsb_gp_number(d, rows[k].hist >= 0 && fillc >= 0
					  ? wsb_rows_double(&r->history, rows[k].hist, "buffer_fill_max", NAN)
					  : NAN);
			fputc('\n', d);

			/* checkpoint shading: contiguous seconds under way */
			if (ckc >= 0 && rows[k].hist >= 0)
				ck = r->history.cells[rows[k].hist][ckc];
			if (checkpoint_active(ck) && ck_start < 0)
				ck_start = sec;
			if (ck_start >= 0 && (!checkpoint_active(ck) || k == n - 1 ||
								  (ck != NULL && strcmp(ck, "done") == 0)))
			{
				int64_t		ck_end = checkpoint_active(ck) ? sec : sec - 1;

				fprintf(gp, "set object %d rect from %.1f, graph 0 to %.1f, graph 1 "
						"behind fillcolor rgb '#808080' fillstyle transparent solid 0.12 noborder\n",
						++nobj, ck_start - 0.5, ck_end + 0.5);
				ck_start = -1;
			}
		}
		fclose(d);
		free(rows);
	}

	{
		int			npanel_all = 1 + npanels + (fill_present ? 1 : 0);
		int			height = 80 + 190 * npanel_all;
		int			nplotted = 0;

		fprintf(gp, "set terminal svg size 1000,%d dynamic enhanced font 'sans,10'\n", height);
		fputs("set output 'timeline.svg'\n"
			  "set datafile missing '?'\n"
			  "set grid ytics lc rgb '#dddddd'\n", gp);
		fprintf(gp, "set xrange [0:%lld]\n", (long long) max_second + 1);
		fprintf(gp, "set multiplot layout %d,1 margins screen 0.08,0.70,%.3f,0.98 spacing screen 0,0.025\n",
				npanel_all, 55.0 / height);
		fputs("set key at screen 0.71, screen 0.99 left top Left reverse noenhanced\n"
			  "set format x ''\n"
			  "set ylabel \"transactions/s\" noenhanced\n"
			  "set yrange [0:*]\n", gp);

		/* the tps panel */
		for (int c = 0; c < plan->nconfigs; c++)
			titled[c] = false;
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
			if (r->config >= 0 && r->config < plan->nconfigs && !titled[r->config])
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

		for (int p = 0; p < npanels + (fill_present ? 1 : 0); p++)
		{
			bool		last = p == npanels + (fill_present ? 1 : 0) - 1;
			int			col = 7;	/* buffer_fill_max */
			char		name[64];

			snprintf(name, sizeof(name), "%s", FILL_AXIS);
			if (p < npanels)
				for (int k = 0; k < N_STALL_COLUMNS; k++)
					if (strcmp(stall_columns[k], panels[p]) == 0)
					{
						col = 3 + k;
						/* the class, its column's name less "_ms", and the unit */
						snprintf(name, sizeof(name), "%.*s: client wait, ms/s",
								 (int) strlen(panels[p]) - 3, panels[p]);
					}
			if (last)
				fputs("set format x '%g'\nset xlabel 'seconds since the run started' noenhanced\n", gp);
			fputs("set ylabel ", gp);
			wsb_gp_string(gp, name);
			fputs(" noenhanced\n", gp);
			if (p >= npanels)
				fputs("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb '#555555'\n", gp);
			fputs("plot \\\n", gp);
			nplotted = 0;
			for (int i = 0; i < nruns; i++)
			{
				if (!runs[i].ok)
					continue;
				if (nplotted++ > 0)
					fputs(", \\\n", gp);
				fprintf(gp, "  'run_%d.dat' using 1:%d with lines lw 1.2 lc rgb '%s' notitle",
						runs[i].order, col, wsb_config_colour(runs[i].config));
			}
			fputs(nplotted ? "\n" : "  NaN notitle\n", gp);
		}
		fputs("unset multiplot\nset output\n", gp);
	}
	fclose(gp);
	free(titled);
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
 * gnuplot's inputs there.  0 when both were drawn; else -1 and why says
 * what is missing (no gnuplot, a file that could not be written, gnuplot's
 * own error).  left_out receives the stall columns left out of the
 * timeline (no stall in any run), *ckpt whether checkpoint bands were
 * drawn.  The caller makes sure some run succeeded: gnuplot stops on a
 * chart without points.
 */
int
wsb_draw_charts(const char *plotdir, const WsbPlan *plan, const WsbRun *runs, int nruns,
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
	if (write_timeline_chart(plotdir, plan, runs, nruns, left_out, lolen, ckpt) != 0 ||
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
