/*-------------------------------------------------------------------------
 *
 * report.c
 *		wal_stall_bench: results.csv, timeline.csv, report.html and the
 *		terminal verdict table.
 *
 * results.csv has one row per run, timeline.csv one row per second per
 * run; both are written in run order and quoted per RFC 4180, so any CSV
 * reader takes them.  timeline.csv carries every column of
 * wal_stall_history by name, whatever the extension's version returns.
 *
 * report.html is one self-contained file: inline CSS, and charts drawn by
 * gnuplot's svg terminal and pasted in as inline SVG.  gnuplot's inputs
 * (one data file per run, the scripts) are kept in DIR/plots/ so that a
 * chart can be redrawn or restyled by hand: `cd DIR/plots && gnuplot
 * timeline.gp`.  Without gnuplot the HTML is still written, says which
 * charts are missing and why, and wsb_write_report returns -1.
 *
 * Everything put into the HTML goes through html_escape(); everything put
 * into a gnuplot script as text goes through gp_string() and is drawn
 * noenhanced, so a configuration label is shown as typed.
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wsb.h"

/* wal_stall_summary's classes, in the view's order */
static const char *const all_classes[] = {
	"wal_buffer_full", "wal_flush", "wal_insert", "clog",
	"wal_write", "wal_fsync", "slru_io"
};
#define N_CLASSES (int) (sizeof(all_classes) / sizeof(all_classes[0]))

/* wal_stall_history's per-second stall columns, charted under the tps */
static const char *const stall_columns[] = {
	"wal_buffer_full_ms", "wal_flush_ms", "wal_insert_ms", "clog_ms"
};
#define N_STALL_COLUMNS (int) (sizeof(stall_columns) / sizeof(stall_columns[0]))

/* one colour per configuration, cycled past ten */
static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"
};
#define N_PALETTE (int) (sizeof(palette) / sizeof(palette[0]))

static const char *
config_colour(int c)
{
	return palette[c % N_PALETTE];
}

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
static double
summary_value(const WsbRun *run, const char *class, const char *column)
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
static double
first_row_value(const WsbRows *rows, const char *column)
{
	if (rows->nrows < 1 || wsb_rows_col(rows, column) < 0)
		return NAN;
	return wsb_rows_double(rows, 0, column, NAN);
}

static void
iso8601_utc(time_t t, char *buf, size_t len)
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
static const WsbRun **
runs_in_order(const WsbRun *runs, int nruns)
{
	const WsbRun **v = malloc(sizeof(*v) * (nruns > 0 ? nruns : 1));

	if (v == NULL)
		return NULL;
	for (int i = 0; i < nruns; i++)
		v[i] = &runs[i];
	qsort(v, nruns, sizeof(*v), cmp_run_order);
	return v;
}

static const char *
config_label(const WsbPlan *plan, int c)
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
	ord = runs_in_order(runs, nruns);
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
	for (int k = 0; k < N_CLASSES; k++)
		fprintf(f, ",%s_total_ms,%s_episodes", all_classes[k], all_classes[k]);
	fputs(",wal_buffers_full,wal_fsync_p99_ms,clog_hit_ratio,collector_cpu_share_pct,ok,error\n", f);

	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = ord[i];
		const WsbConfig *cf = (r->config >= 0 && r->config < plan->nconfigs)
			? &plan->configs[r->config] : NULL;
		char		ts[64];

		wsb_csv_field(f, config_label(plan, r->config));
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
		iso8601_utc(r->started_at, ts, sizeof(ts));
		fprintf(f, ",%d,%d,%s,", r->repeat, r->order, ts);
		csv_number(f, "%.3f", r->seconds);
		fputc(',', f);
		csv_number(f, "%.3f", r->tps);
		fputc(',', f);
		csv_number(f, "%.3f", r->latency_avg_ms);
		fputc(',', f);
		csv_number(f, "%.3f", r->latency_p99_ms);
		fprintf(f, ",%lld", (long long) r->transactions);
		for (int k = 0; k < N_CLASSES; k++)
		{
			fputc(',', f);
			csv_number(f, "%.3f", summary_value(r, all_classes[k], "total_ms"));
			fputc(',', f);
			csv_number(f, "%.0f", summary_value(r, all_classes[k], "episodes"));
		}
		fputc(',', f);
		csv_number(f, "%.0f", first_row_value(&r->wal, "wal_buffers_full"));
		fputc(',', f);
		csv_number(f, "%.3f", summary_value(r, "wal_fsync", "p99_ms"));
		fputc(',', f);
		csv_number(f, "%.6f", first_row_value(&r->clog, "hit_ratio"));
		fputc(',', f);
		csv_number(f, "%.3f", r->collector_cpu_share >= 0 ? r->collector_cpu_share : NAN);
		fprintf(f, ",%s,", r->ok ? "true" : "false");
		wsb_csv_field(f, r->error);
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

/* One second of a run: the pgbench second and/or the history row in it. */
typedef struct JoinRow
{
	int64_t		epoch;
	int			pg;				/* index into per_second, -1 if none */
	int			hist;			/* history row, -1 if none */
} JoinRow;

static int
cmp_join_row(const void *a, const void *b)
{
	const JoinRow *x = a;
	const JoinRow *y = b;

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
static int
join_run(const WsbRun *run, JoinRow **out)
{
	int			cap = run->nseconds + run->history.nrows;
	JoinRow    *rows = malloc(sizeof(JoinRow) * (cap > 0 ? cap : 1));
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
	qsort(rows, n, sizeof(JoinRow), cmp_join_row);

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
	qsort(rows, n, sizeof(JoinRow), cmp_join_row);
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
 * timeline.csv: one row per second per run, in run order: configuration,
 * run, order, second (1 = the run's first second on either side), epoch,
 * tps, latency_avg_ms, latency_max_ms, then every column of
 * wal_stall_history, named and ordered as in the first run with history.
 */
int
wsb_write_timeline_csv(const char *path, const WsbPlan *plan,
					   const WsbRun *runs, int nruns)
{
	FILE	   *f = fopen(path, "w");
	const WsbRun **ord;
	const WsbRows *layout = history_layout(runs, nruns);
	int			nh = layout ? layout->ncols : 0;
	int			rc = 0;

	if (f == NULL)
		return -1;
	ord = runs_in_order(runs, nruns);
	if (ord == NULL)
	{
		fclose(f);
		return -1;
	}
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
		JoinRow    *rows;
		int			n = join_run(r, &rows);
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
			wsb_csv_field(f, config_label(plan, r->config));
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
	free(ord);
	if (ferror(f))
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* ---------------------------------------------------------------------
 * HTML and gnuplot
 * --------------------------------------------------------------------- */

static void
html_escape(FILE *f, const char *s)
{
	if (s == NULL)
		return;
	for (; *s; s++)
	{
		switch (*s)
		{
			case '&':
				fputs("&amp;", f);
				break;
			case '<':
				fputs("&lt;", f);
				break;
			case '>':
				fputs("&gt;", f);
				break;
			case '"':
				fputs("&quot;", f);
				break;
			case '\'':
				fputs("&#39;", f);
				break;
			default:
				fputc(*s, f);
		}
	}
}

static void
html_printf(FILE *f, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* printf, escaped: for text that mixes figures with names */
static void
html_printf(FILE *f, const char *fmt,...)
{
	char		buf[8192];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	html_escape(f, buf);
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
static void
gp_string(FILE *f, const char *s)
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

static void
gp_number(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("?", f);
	else
		fprintf(f, "%.6g", v);
}

/* gnuplot on PATH?  Fills why when not. */
static bool
find_gnuplot(char *why, size_t len)
{
	const char *path = getenv("PATH");
	char		buf[4096];

	if (path == NULL || *path == '\0')
	{
		snprintf(why, len, "PATH is empty, so gnuplot cannot be found (install gnuplot-nox)");
		return false;
	}
	while (*path)
	{
		const char *colon = strchr(path, ':');
		size_t		n = colon ? (size_t) (colon - path) : strlen(path);

		snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int) n, n ? path : ".");
		if (access(buf, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	snprintf(why, len, "gnuplot was not found on PATH; install it (apt-get install gnuplot-nox) and rerun");
	return false;
}

/* Run `gnuplot script` in dir, its messages into script.log.  0 on
 * success; else why says what went wrong. */
static int
run_gnuplot(const char *dir, const char *script, char *why, size_t len)
{
	pid_t		pid;
	int			status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
	{
		snprintf(why, len, "could not start gnuplot: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
	{
		char		logname[256];
		int			fd;

		if (chdir(dir) != 0)
			_exit(126);
		snprintf(logname, sizeof(logname), "%s.log", script);
		fd = open(logname, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
		{
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execlp("gnuplot", "gnuplot", script, (char *) NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
		{
			snprintf(why, len, "could not wait for gnuplot: %s", strerror(errno));
			return -1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
	{
		char		logpath[2048];
		char		line[512] = "";
		FILE	   *lf;

		snprintf(logpath, sizeof(logpath), "%s/%s.log", dir, script);
		lf = fopen(logpath, "r");
		if (lf != NULL)
		{
			char		l[512];

			/* the last non-empty line carries gnuplot's error */
			while (fgets(l, sizeof(l), lf))
				if (strspn(l, " \t\r\n") != strlen(l))
					snprintf(line, sizeof(line), "%s", l);
			fclose(lf);
			line[strcspn(line, "\r\n")] = '\0';
		}
		snprintf(why, len, "gnuplot failed on %s/%s (exit %d)%s%s",
				 dir, script, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				 line[0] ? ": " : "", line);
		return -1;
	}
	return 0;
}

/* Paste an SVG file into the HTML, from "<svg" on (gnuplot writes an XML
 * prologue and DOCTYPE first, which do not belong inside HTML). */
static int
paste_svg(FILE *f, const char *path)
{
	FILE	   *in = fopen(path, "r");
	char	   *buf;
	long		len;
	char	   *start;

	if (in == NULL)
		return -1;
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	fseek(in, 0, SEEK_SET);
	buf = malloc(len + 1);
	if (buf == NULL || fread(buf, 1, len, in) != (size_t) len)
	{
		free(buf);
		fclose(in);
		return -1;
	}
	fclose(in);
	buf[len] = '\0';
	start = strstr(buf, "<svg");
	if (start == NULL)
	{
		free(buf);
		return -1;
	}
	fputs(start, f);
	free(buf);
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
 * plotdir; caption receives what was left out.
 */
static int
write_timeline_chart(const char *plotdir, const WsbPlan *plan,
					 const WsbRun *runs, int nruns,
					 char *caption_extra, size_t caplen)
{
	char		path[1200];
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

	snprintf(path, sizeof(path), "%s/timeline.gp", plotdir);
	gp = fopen(path, "w");
	if (gp == NULL)
	{
		free(titled);
		return -1;
	}

	/* data: one file per run; columns second tps <stall columns> fill */
	for (int i = 0; i < nruns; i++)
	{
		const WsbRun *r = &runs[i];
		JoinRow    *rows = NULL;
		int			n = r->ok ? join_run(r, &rows) : 0;
		FILE	   *d;
		int			cols[N_STALL_COLUMNS];
		int			fillc = wsb_rows_col(&r->history, "buffer_fill_max");
		int			ckc = wsb_rows_col(&r->history, "checkpoint");
		int64_t		ck_start = -1;

		if (!r->ok)
			continue;
		if (n < 0)
			continue;
		snprintf(path, sizeof(path), "%s/run_%d.dat", plotdir, r->order);
		d = fopen(path, "w");
		if (d == NULL)
		{
			free(rows);
			fclose(gp);
			free(titled);
			return -1;
		}
		fprintf(d, "# run %d (order %d) of ", r->repeat, r->order);
		gp_comment(d, config_label(plan, r->config));
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
				gp_number(d, rows[k].hist >= 0 && cols[c] >= 0
						  ? wsb_rows_double(&r->history, rows[k].hist, stall_columns[c], NAN)
						  : NAN);
			}
			fputc(' ', d);
			gp_number(d, rows[k].hist >= 0 && fillc >= 0
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
			  "set ylabel \"tps\" noenhanced\n"
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
			fprintf(gp, "  'run_%d.dat' using 1:2 with points pt 7 ps 0.5 lc rgb '%s' ",
					r->order, config_colour(r->config));
			if (r->config >= 0 && r->config < plan->nconfigs && !titled[r->config])
			{
				char		lab[48];

				/* the legend has 30% of the width; the tables show labels whole */
				snprintf(lab, sizeof(lab), "%.47s", config_label(plan, r->config));
				if (strlen(config_label(plan, r->config)) > 40)
					strcpy(lab + 37, "...");
				fputs("title ", gp);
				gp_string(gp, lab);
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
			const char *name = p < npanels ? panels[p] : "buffer_fill_max";

			if (p < npanels)
				for (int k = 0; k < N_STALL_COLUMNS; k++)
					if (strcmp(stall_columns[k], panels[p]) == 0)
						col = 3 + k;
			if (last)
				fputs("set format x '%g'\nset xlabel 'seconds since the run started' noenhanced\n", gp);
			fputs("set ylabel ", gp);
			gp_string(gp, name);
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
				fprintf(gp, "  'run_%d.dat' using 1:%d with points pt 7 ps 0.5 lc rgb '%s' notitle",
						runs[i].order, col, config_colour(runs[i].config));
			}
			fputs(nplotted ? "\n" : "  NaN notitle\n", gp);
		}
		fputs("unset multiplot\nset output\n", gp);
	}
	fclose(gp);
	free(titled);
	if (ckpt_present)
	{
		size_t		used = strlen(caption_extra);

		snprintf(caption_extra + used, caplen - used, "|ckpt");
	}
	return 0;
}

/* mean and 95% interval of the mean of configuration c's successful runs */
static int
config_tps_values(const WsbRun *runs, int nruns, int c, double *v)
{
	int			n = 0;

	for (int i = 0; i < nruns; i++)
		if (runs[i].config == c && runs[i].ok)
			v[n++] = runs[i].tps;
	return n;
}

/* Chart (2): strip chart of run tps per configuration, mean with 95% CI. */
static int
write_strip_chart(const char *plotdir, const WsbPlan *plan,
				  const WsbRun *runs, int nruns)
{
	char		path[1200];
	FILE	   *gp,
			   *d;
	double	   *v = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	size_t		maxlabel = 0;
	int			maxrepeat = 1;

	if (v == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/strip.dat", plotdir);
	d = fopen(path, "w");
	if (d == NULL)
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
						runs[i].tps);
		fputs("\n\n", d);
	}
	fclose(d);

	snprintf(path, sizeof(path), "%s/means.dat", plotdir);
	d = fopen(path, "w");
	if (d == NULL)
	{
		free(v);
		return -1;
	}
	fputs("# configuration mean low high (95% interval of the mean, Student's t)\n", d);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		int			n = config_tps_values(runs, nruns, c, v);
		double		m = wsb_mean(v, n);
		double		half = n >= 2 ? wsb_t_quantile(0.975, n - 1) * wsb_stddev(v, n) / sqrt(n) : NAN;

		if (n == 0)
			continue;
		fprintf(d, "%d ", c + 1);
		gp_number(d, m);
		fputc(' ', d);
		gp_number(d, isnan(half) ? m : m - half);
		fputc(' ', d);
		gp_number(d, isnan(half) ? m : m + half);
		fputc('\n', d);
	}
	fclose(d);

	for (int c = 0; c < plan->nconfigs; c++)
		if (strlen(plan->configs[c].label) > maxlabel)
			maxlabel = strlen(plan->configs[c].label);
	if (maxlabel > 60)
		maxlabel = 60;

	snprintf(path, sizeof(path), "%s/strip.gp", plotdir);
	gp = fopen(path, "w");
	if (gp == NULL)
	{
		free(v);
		return -1;
	}
	fprintf(gp, "set terminal svg size 900,%d dynamic enhanced font 'sans,10'\n",
			380 + (int) maxlabel * 4);
	fputs("set output 'strip.svg'\n"
		  "set datafile missing '?'\n"
		  "set grid ytics lc rgb '#dddddd'\n"
		  "set ylabel 'tps of the run' noenhanced\n"
		  "set key outside right top noenhanced\n", gp);
	fprintf(gp, "set xrange [0.5:%d.5]\n", plan->nconfigs);
	fprintf(gp, "set bmargin %d\n", 3 + (int) maxlabel / 3);
	fputs("set xtics rotate by -25 left noenhanced (", gp);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		char		lab[64];

		snprintf(lab, sizeof(lab), "%.63s", plan->configs[c].label);
		if (strlen(plan->configs[c].label) > 60)
			strcpy(lab + 56, "...");
		gp_string(gp, lab);
		fprintf(gp, " %d%s", c + 1, c < plan->nconfigs - 1 ? ", " : "");
	}
	fputs(")\n", gp);
	{
		int			nb = config_tps_values(runs, nruns, 0, v);

		if (nb > 0)
			fprintf(gp, "set arrow 1 from graph 0, first %.6g to graph 1, first %.6g nohead dt 2 lc rgb '#555555'\n",
					wsb_mean(v, nb), wsb_mean(v, nb));
	}
	fputs("plot \\\n", gp);
	for (int c = 0; c < plan->nconfigs; c++)
		fprintf(gp, "  'strip.dat' index %d using 1:2 with points pt 7 ps 0.7 lc rgb '%s' notitle, \\\n",
				c, config_colour(c));
	fputs("  'means.dat' using ($1+0.25):2:3:4 with yerrorbars pt 5 ps 0.8 lc rgb '#000000' "
		  "title 'mean, 95% interval'\n"
		  "set output\n", gp);
	fclose(gp);
	free(v);
	return 0;
}

static void
fmt_tps(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.1f", v);
}

static void
fmt_change(char *buf, size_t len, const WsbJudgement *j)
{
	if (j->verdict == WSB_BASELINE || isnan(j->change_pct))
		snprintf(buf, len, "%s", j->verdict == WSB_BASELINE ? "" : "-");
	else if (isnan(j->ci_low_pct))
		snprintf(buf, len, "%+.1f%%", j->change_pct);
	else
		snprintf(buf, len, "%+.1f%% [%+.1f, %+.1f]", j->change_pct,
				 j->ci_low_pct, j->ci_high_pct);
}

/* median over the successful runs of configuration c of a per-run figure */
static double
config_median(const WsbRun *runs, int nruns, int c,
			  double (*get) (const WsbRun *, const char *, const char *),
			  const char *a, const char *b)
{
	double	   *v = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
	int			n = 0;
	double		m;

	if (v == NULL)
		return NAN;
	for (int i = 0; i < nruns; i++)
		if (runs[i].config == c && runs[i].ok)
		{
			double		x = get(&runs[i], a, b);

			if (!isnan(x))
				v[n++] = x;
		}
	m = wsb_median(v, n);
	free(v);
	return m;
}

static double
get_summary(const WsbRun *r, const char *class, const char *col)
{
	return summary_value(r, class, col);
}

static double
get_rows(const WsbRun *r, const char *which, const char *col)
{
	if (strcmp(which, "wal") == 0)
		return first_row_value(&r->wal, col);
	if (strcmp(which, "clog") == 0)
		return first_row_value(&r->clog, col);
	if (strcmp(which, "cpu") == 0)
		return r->collector_cpu_share >= 0 ? r->collector_cpu_share : NAN;
	return NAN;
}

static void
html_cell_number(FILE *f, const char *fmt, double v)
{
	fputs("<td class=\"n\">", f);
	if (isnan(v))
		fputs("&ndash;", f);
	else
		fprintf(f, fmt, v);
	fputs("</td>", f);
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
"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
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

static const char *
verdict_class(WsbVerdict v)
{
	switch (v)
	{
		case WSB_FASTER:
			return "faster";
		case WSB_SLOWER:
			return "slower";
		case WSB_WITHIN_NOISE:
			return "noise";
		case WSB_TOO_FEW_RUNS:
			return "few";
		default:
			return "base";
	}
}

static void
write_verdict_html(FILE *f, const WsbPlan *plan, const WsbRun *runs,
				   int nruns, const WsbJudgement *judged)
{
	const WsbRun **ord = runs_in_order(runs, nruns);

	fputs("<p>Test: <strong>Welch's t-test on run means, 95% two-sided interval of the "
		  "difference, as % of the baseline mean</strong>. Each run's tps is one "
		  "observation; a configuration is <em>faster</em> or <em>slower</em> only when the "
		  "interval of (its mean &minus; the baseline's mean) excludes 0, "
		  "<em>within noise</em> when it contains 0, and <em>too few runs</em> when either "
		  "side has fewer than 2 successful runs. The stall figures are per-class medians "
		  "over runs of <code>wal_stall_summary.total_ms</code>, baseline &rarr; configuration.</p>\n", f);
	fputs("<table><tr><th>configuration</th><th>tps of each run (run order)</th><th>runs ok</th>"
		  "<th>median tps</th><th>mean tps</th><th>change of the mean</th><th>95% interval</th>"
		  "<th>verdict</th><th>stall figures (baseline &rarr; this)</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		const WsbJudgement *j = &judged[c];
		int			total = 0;
		bool		first = true;

		fprintf(f, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
				config_colour(c));
		html_escape(f, plan->configs[c].label);
		fputs("</td><td>", f);
		for (int i = 0; ord && i < nruns; i++)
		{
			char		b[32];

			if (ord[i]->config != c)
				continue;
			total++;
			fmt_tps(b, sizeof(b), ord[i]->tps);
			fprintf(f, "%s%s", first ? "" : " ", ord[i]->ok ? b : "failed");
			first = false;
		}
		fprintf(f, "</td><td class=\"n\">%d/%d</td>", j->nruns, total);
		html_cell_number(f, "%.1f", j->median_tps);
		html_cell_number(f, "%.1f", j->mean_tps);
		if (c == 0)
			fputs("<td></td><td></td>", f);
		else
		{
			html_cell_number(f, "%+.1f%%", j->change_pct);
			if (isnan(j->ci_low_pct))
				fputs("<td>&ndash;</td>", f);
			else
				fprintf(f, "<td class=\"n\">[%+.1f%%, %+.1f%%]</td>", j->ci_low_pct, j->ci_high_pct);
		}
		fprintf(f, "<td class=\"%s\">", verdict_class(j->verdict));
		html_escape(f, wsb_verdict_name(j->verdict));
		fputs("</td><td>", f);
		html_escape(f, j->explanation);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(ord);
}

static void
write_summary_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	fputs("<p>Medians over each configuration's successful runs of <code>wal_stall_summary</code> "
		  "read after the run (reset before it). <em>stall</em> classes are time clients waited, "
		  "<em>io</em> classes time any process spent in that I/O; durations are estimated from "
		  "samples (see the extension's README).</p>\n", f);
	fputs("<table><tr><th>configuration</th><th>class</th><th>total_ms</th><th>episodes</th>"
		  "<th>p99_ms</th><th>max_ms</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		for (int k = 0; k < N_CLASSES; k++)
		{
			fputs("<tr>", f);
			if (k == 0)
			{
				fprintf(f, "<td rowspan=\"%d\"><span class=\"swatch\" style=\"background:%s\"></span>",
						N_CLASSES, config_colour(c));
				html_escape(f, plan->configs[c].label);
				fputs("</td>", f);
			}
			fputs("<td>", f);
			html_escape(f, all_classes[k]);
			fputs("</td>", f);
			html_cell_number(f, "%.1f", config_median(runs, nruns, c, get_summary, all_classes[k], "total_ms"));
			html_cell_number(f, "%.0f", config_median(runs, nruns, c, get_summary, all_classes[k], "episodes"));
			html_cell_number(f, "%.2f", config_median(runs, nruns, c, get_summary, all_classes[k], "p99_ms"));
			html_cell_number(f, "%.1f", config_median(runs, nruns, c, get_summary, all_classes[k], "max_ms"));
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);

	fputs("<p>Other figures, medians over runs: core's own count of wrap-around writes "
		  "(<code>pg_stat_wal.wal_buffers_full</code>), the CLOG hit ratio "
		  "(<code>wal_stall_clog</code>) and the collector's CPU time as % of one core.</p>\n"
		  "<table><tr><th>configuration</th><th>wal_buffers_full</th><th>wal_fsync p99_ms</th>"
		  "<th>CLOG hit ratio</th><th>collector CPU %</th><th>latency avg ms</th><th>latency p99 ms</th></tr>\n", f);
	for (int c = 0; c < plan->nconfigs; c++)
	{
		double	   *lat = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
		double	   *p99 = malloc(sizeof(double) * (nruns > 0 ? nruns : 1));
		int			n = 0;

		for (int i = 0; lat && p99 && i < nruns; i++)
			if (runs[i].config == c && runs[i].ok)
			{
				lat[n] = runs[i].latency_avg_ms;
				p99[n++] = runs[i].latency_p99_ms;
			}
		fputs("<tr><td>", f);
		html_escape(f, plan->configs[c].label);
		fputs("</td>", f);
		html_cell_number(f, "%.0f", config_median(runs, nruns, c, get_rows, "wal", "wal_buffers_full"));
		html_cell_number(f, "%.2f", config_median(runs, nruns, c, get_summary, "wal_fsync", "p99_ms"));
		html_cell_number(f, "%.4f", config_median(runs, nruns, c, get_rows, "clog", "hit_ratio"));
		html_cell_number(f, "%.2f", config_median(runs, nruns, c, get_rows, "cpu", ""));
		html_cell_number(f, "%.3f", lat && p99 ? wsb_median(lat, n) : NAN);
		html_cell_number(f, "%.3f", lat && p99 ? wsb_median(p99, n) : NAN);
		fputs("</tr>\n", f);
		free(lat);
		free(p99);
	}
	fputs("</table>\n", f);
}

static void
env_row(FILE *f, const char *name, const char *value, bool pre)
{
	fputs("<tr><th>", f);
	html_escape(f, name);
	fputs(pre ? "</th><td><pre>" : "</th><td>", f);
	html_escape(f, value && *value ? value : "(not recorded)");
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
		env_row(f, "pgbench command", env->pgbench_command, true);
		env_row(f, "settings (non-default, as run)", env->settings, true);
		snprintf(buf, sizeof(buf), "%s - %s", env->started, env->finished);
		env_row(f, "started - finished", buf, false);
	}
	if (opts != NULL)
	{
		size_t		used = 0;

		buf[0] = '\0';
		for (int s = 0; s < opts->nsets && used < sizeof(buf) - 1; s++)
		{
			used += snprintf(buf + used, sizeof(buf) - used, "--set %s=", opts->sets[s].name);
			for (int v = 0; v < opts->sets[s].nvalues && used < sizeof(buf) - 1; v++)
				used += snprintf(buf + used, sizeof(buf) - used, "%s%s", v ? "," : "",
								 opts->sets[s].values[v]);
			if (used < sizeof(buf) - 1)
				used += snprintf(buf + used, sizeof(buf) - used, "\n");
		}
		env_row(f, "compared settings", buf, true);
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
				 opts->slow_wal_iops ? "" : "no", opts->slow_wal_mbps ? "" : "unlimited",
				 opts->slow_disk_iops ? "" : "no");
		if (opts->slow_wal_iops || opts->slow_wal_mbps || opts->slow_disk_iops)
			snprintf(buf, sizeof(buf), "slow WAL: %d write IOPS; WAL bandwidth: %d MB/s; slow data directory: %d write IOPS (0 = not limited)",
					 opts->slow_wal_iops, opts->slow_wal_mbps, opts->slow_disk_iops);
		env_row(f, "throttling (cgroup v1 blkio)", buf, false);
		env_row(f, "cluster", opts->pgdata[0] ? opts->pgdata : "temporary (removed at the end)", false);
	}
	snprintf(buf, sizeof(buf), "%d", plan->nconfigs);
	env_row(f, "configurations", buf, false);
	fputs("</table>\n", f);
}

static void
write_order_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns)
{
	const WsbRun **ord = runs_in_order(runs, nruns);

	fputs("<p>Runs are interleaved (A B C A B C ...) so that drift of the machine hits every "
		  "configuration alike.</p>\n<table><tr><th>order</th><th>configuration</th><th>run</th>"
		  "<th>started (UTC)</th><th>seconds</th><th>tps</th><th>result</th></tr>\n", f);
	for (int i = 0; ord && i < nruns; i++)
	{
		const WsbRun *r = ord[i];
		char		ts[64];

		iso8601_utc(r->started_at, ts, sizeof(ts));
		fprintf(f, "<tr%s><td class=\"n\">%d</td><td>", r->ok ? "" : " class=\"failed\"", r->order);
		html_escape(f, config_label(plan, r->config));
		fprintf(f, "</td><td class=\"n\">%d</td><td>%s</td>", r->repeat, ts);
		html_cell_number(f, "%.1f", r->seconds);
		html_cell_number(f, "%.1f", r->tps);
		fputs("<td>", f);
		html_escape(f, r->ok ? "ok" : (r->error[0] ? r->error : "failed"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(ord);
}

static int
make_dir(const char *path)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	return -1;
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
				 const WsbJudgement *judged, const WsbEnvironment *env)
{
	char		path[1200],
				plotdir[1100],
				why[2048] = "",
				extra[512] = "";
	bool		charts = false;
	bool		ckpt;
	FILE	   *f;
	int			rc = 0;
	int			nfailed = 0;

	for (int i = 0; i < nruns; i++)
		if (!runs[i].ok)
			nfailed++;
	snprintf(plotdir, sizeof(plotdir), "%s/plots", dir);
	/* nothing to draw: gnuplot would stop on "all points undefined" */
	if (nfailed == nruns)
		snprintf(why, sizeof(why), "%s", nruns ? "every run failed, so there is nothing to draw; "
				 "the run order below says why each failed" : "there were no runs");
	else if (find_gnuplot(why, sizeof(why)))
	{
		if (make_dir(plotdir) != 0)
			snprintf(why, sizeof(why), "could not create directory \"%s\": %s", plotdir, strerror(errno));
		else if (write_timeline_chart(plotdir, plan, runs, nruns, extra, sizeof(extra)) != 0 ||
				 write_strip_chart(plotdir, plan, runs, nruns) != 0)
			snprintf(why, sizeof(why), "could not write the chart data in \"%s\": %s", plotdir, strerror(errno));
		else if (run_gnuplot(plotdir, "timeline.gp", why, sizeof(why)) == 0 &&
				 run_gnuplot(plotdir, "strip.gp", why, sizeof(why)) == 0)
			charts = true;
	}
	ckpt = strstr(extra, "|ckpt") != NULL;
	if (ckpt)
		*strstr(extra, "|ckpt") = '\0';

	snprintf(path, sizeof(path), "%s/report.html", dir);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			"<title>wal_stall_bench report</title>\n<style>%s</style></head><body>\n", report_css);
	fputs("<h1>wal_stall_bench: ", f);
	html_printf(f, "%d configuration%s x %d run%s", plan->nconfigs, plan->nconfigs == 1 ? "" : "s",
				opts ? opts->runs : (plan->nconfigs ? nruns / plan->nconfigs : 0),
				opts && opts->runs == 1 ? "" : "s");
	fputs("</h1>\n<p>", f);
	if (env)
		html_printf(f, "Started %s, finished %s. ", env->started, env->finished);
	html_printf(f, "Baseline: %s.", plan->nconfigs ? plan->configs[0].label : "none");
	fputs("</p>\n", f);
	if (plan_turns_fsync_off(opts, plan))
		fputs("<p class=\"warn\"><strong>Warning:</strong> some runs had <code>fsync = off</code>: "
			  "the server did not make WAL durable, and a crash of the machine during such a run "
			  "can corrupt the cluster. Read those figures as the ceiling of what faster storage "
			  "could give, never as a configuration to use.</p>\n", f);
	if (nfailed > 0)
		html_printf(f, "%d run%s failed and %s left out of every figure; see the run order below.",
					nfailed, nfailed == 1 ? "" : "s", nfailed == 1 ? "is" : "are");
	if (nfailed > 0)
		fputs("\n", f);
	if (!charts)
	{
		fputs(nfailed == nruns ? "<p class=\"missing\"><strong>No charts:</strong> "
			  : "<p class=\"missing\"><strong>Charts are missing:</strong> ", f);
		html_escape(f, why);
		fputs("</p>\n", f);
	}

	fputs("<h2>Verdict</h2>\n", f);
	write_verdict_html(f, plan, runs, nruns, judged);

	fputs("<h2>Throughput and stalls, second by second</h2>\n", f);
	snprintf(path, sizeof(path), "%s/timeline.svg", plotdir);
	if (charts)
	{
		fputs("<figure>\n", f);
		if (paste_svg(f, path) != 0)
			fputs("<p class=\"missing\">timeline.svg could not be read</p>\n", f);
		fputs("<figcaption>Top: transactions completed in each second of every successful run "
			  "(pgbench), one colour per configuration, x = seconds since the run started. "
			  "Beneath, on the same axis, from <code>wal_stall_history</code> (each panel named "
			  "by its column): client stall time in each second per class (ms, summed over "
			  "backends), then the peak WAL ring occupancy in that second "
			  "(<code>buffer_fill_max</code>; at or above the dashed line at 1 the ring was full "
			  "and inserters waited).", f);
		if (extra[0])
		{
			fputs(" Classes with no stall in any run are left out: ", f);
			html_escape(f, extra);
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
	snprintf(path, sizeof(path), "%s/strip.svg", plotdir);
	if (charts)
	{
		fputs("<figure>\n", f);
		if (paste_svg(f, path) != 0)
			fputs("<p class=\"missing\">strip.svg could not be read</p>\n", f);
		fputs("<figcaption>Each dot is one successful run's tps (pgbench's figure, "
			  "without connection time), spread sideways by run number; black: the mean of "
			  "the configuration's runs with its 95% interval (Student's t, n &minus; 1 df). "
			  "Dashed line: the baseline's mean. Data and script: <code>plots/strip.dat</code>, "
			  "<code>plots/means.dat</code>, <code>plots/strip.gp</code>.</figcaption>\n</figure>\n", f);
	}
	else
		fputs("<p class=\"missing\">Chart missing (see above).</p>\n", f);

	fputs("<h2>Stall summary per configuration</h2>\n", f);
	write_summary_html(f, plan, runs, nruns);
	fputs("<h2>Environment</h2>\n", f);
	write_environment_html(f, opts, plan, env);
	fputs("<h2>Run order</h2>\n", f);
	write_order_html(f, plan, runs, nruns);
	fputs("<p>Files next to this report: <code>results.csv</code> (a row per run), "
		  "<code>timeline.csv</code> (a row per second per run), <code>plots/</code> "
		  "(gnuplot's inputs).</p>\n</body></html>\n", f);

	if (ferror(f))
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	if (!charts && nfailed < nruns)
	{
		fprintf(stderr, "wal_stall_bench: report.html has no charts: %s\n", why);
		rc = -1;
	}
	return rc;
}

/* ---------------------------------------------------------------------
 * Terminal
 * --------------------------------------------------------------------- */

/* Print text from column indent on, wrapped at width on blanks. */
static void
print_wrapped(FILE *f, const char *text, int indent, int width)
{
	const char *p = text;

	while (*p)
	{
		int			room = width - indent;
		int			len = (int) strlen(p);
		int			cut = len;

		if (len > room)
		{
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = room;
		}
		fprintf(f, "%*s%.*s\n", indent, "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

/*
 * The verdict table on the terminal: configuration, each run's tps in run
 * order, median, change of the mean with its 95% interval, verdict, and
 * the stall figures.  Fits 100 columns: a label longer than 40 characters
 * gets a line of its own, the run list moves under the row when the row
 * would be wider, and the explanation goes on the next line, wrapped, when
 * it does not fit after the verdict.
 */
#define VERDICT_WIDTH 100
#define VERDICT_LABEL_MAX 40

void
wsb_print_verdict(FILE *f, const WsbPlan *plan, const WsbRun *runs,
				  int nruns, const WsbJudgement *judged)
{
	const WsbRun **ord = runs_in_order(runs, nruns);
	int			nc = plan->nconfigs;
	char	  (*tpsl)[512] = calloc(nc > 0 ? nc : 1, 512);
	char		med[WSB_MAX_CONFIGS][32],
				chg[WSB_MAX_CONFIGS][64];
	int			wl = (int) strlen("configuration"),
				wt = (int) strlen("tps of each run"),
				wm = (int) strlen("median"),
				wc = (int) strlen("change [95% CI]"),
				wv = (int) strlen("verdict");
	bool		runs_below;
	int			row_width;

	if (ord == NULL || tpsl == NULL || nc > WSB_MAX_CONFIGS)
	{
		free(ord);
		free(tpsl);
		return;
	}
	for (int c = 0; c < nc; c++)
	{
		size_t		used = 0;
		int			ll = (int) strlen(plan->configs[c].label);

		for (int i = 0; i < nruns; i++)
		{
			char		b[32];

			if (ord[i]->config != c)
				continue;
			fmt_tps(b, sizeof(b), ord[i]->tps);
			if (used < 500)
				used += snprintf(tpsl[c] + used, 512 - used, "%s%s", used ? " " : "",
								 ord[i]->ok ? b : "failed");
		}
		fmt_tps(med[c], sizeof(med[c]), judged[c].median_tps);
		fmt_change(chg[c], sizeof(chg[c]), &judged[c]);
		if (ll <= VERDICT_LABEL_MAX && ll > wl)
			wl = ll;
		if ((int) strlen(tpsl[c]) > wt)
			wt = (int) strlen(tpsl[c]);
		if ((int) strlen(med[c]) > wm)
			wm = (int) strlen(med[c]);
		if ((int) strlen(chg[c]) > wc)
			wc = (int) strlen(chg[c]);
		if ((int) strlen(wsb_verdict_name(judged[c].verdict)) > wv)
			wv = (int) strlen(wsb_verdict_name(judged[c].verdict));
	}
	row_width = wl + 2 + wt + 2 + wm + 2 + wc + 2 + wv;
	runs_below = row_width > VERDICT_WIDTH;
	if (runs_below)
		row_width -= wt + 2;

	if (runs_below)
		fprintf(f, "%-*s  %*s  %-*s  %s\n", wl, "configuration", wm, "median",
				wc, "change [95% CI]", "verdict");
	else
		fprintf(f, "%-*s  %-*s  %*s  %-*s  %s\n", wl, "configuration", wt, "tps of each run",
				wm, "median", wc, "change [95% CI]", "verdict");
	for (int i = 0; i < row_width; i++)
		fputc('-', f);
	fputc('\n', f);

	for (int c = 0; c < nc; c++)
	{
		const char *label = plan->configs[c].label;
		const char *vname = wsb_verdict_name(judged[c].verdict);
		const char *expl = judged[c].explanation;
		bool		inline_expl;

		if ((int) strlen(label) > VERDICT_LABEL_MAX)
		{
			fprintf(f, "%s\n", label);
			label = "";
		}
		/* the explanation follows on the row when it fits */
		inline_expl = expl[0] && row_width + 2 + (int) strlen(expl) <= VERDICT_WIDTH;
		if (runs_below)
			fprintf(f, "%-*s  %*s  %-*s  %-*s", wl, label, wm, med[c], wc, chg[c],
					inline_expl ? wv : 0, vname);
		else
			fprintf(f, "%-*s  %-*s  %*s  %-*s  %-*s", wl, label, wt, tpsl[c], wm, med[c],
					wc, chg[c], inline_expl ? wv : 0, vname);
		if (inline_expl)
		{
			fprintf(f, "  %s", expl);
			expl = "";
		}
		fputc('\n', f);
		if (runs_below)
		{
			char		line[600];

			snprintf(line, sizeof(line), "tps: %s", tpsl[c]);
			print_wrapped(f, line, 4, VERDICT_WIDTH);
		}
		/* one figure per line, each wrapped if it must be */
		while (expl[0])
		{
			const char *semi = strstr(expl, "; ");
			char		item[1024];
			int			len = semi ? (int) (semi - expl) : (int) strlen(expl);

			snprintf(item, sizeof(item), "%.*s", len, expl);
			print_wrapped(f, item, 4, VERDICT_WIDTH);
			expl += len;
			if (*expl)
				expl += 2;
		}
	}
	free(ord);
	free(tpsl);
}
