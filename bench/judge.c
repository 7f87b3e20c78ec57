/*-------------------------------------------------------------------------
 *
 * judge.c
 *		wal_stall_bench: the rounds an experiment judged, where they come
 *		from and where its verdicts go.
 *
 * The rounds come from a CSV file (wsb_round_table_read_csv): the
 * results.csv the harness just wrote, that of an earlier experiment, or
 * any CSV with at least the columns configuration, round and tps (an old
 * results.csv without round: its run column, which was the repeat, is the
 * round).  Optional columns: ok, position, traced, clients
 * and seconds (together: the clients' time), client_ms, and per stall class
 * CLASS_total_ms and CLASS_episodes.  The baseline: --baseline NAME, else
 * the configuration of the rows whose baseline column is true (results.csv
 * has one), else the first configuration in the file.
 *
 * The verdicts (verdict.c) go to verdicts.csv (one row per configuration
 * and metric), the terminal table and the report's "Verdict by rounds"
 * section, whose forest plots forest.c draws.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "engine.h"
#include "fits.h"
#include "report_internal.h"
#include "verdict.h"

/* ---------------------------------------------------------------------
 * Reading
 * --------------------------------------------------------------------- */

static bool
parse_bool(const char *s, bool if_empty)
{
	if (s == NULL || *s == '\0')
		return if_empty;
	return strcasecmp(s, "true") == 0 || strcasecmp(s, "t") == 0 ||
		strcmp(s, "1") == 0 || strcasecmp(s, "yes") == 0 || strcasecmp(s, "ok") == 0;
}

/*
 * The index of configuration label in t, added when new and add: -1 when
 * it is not there and cannot be added (64 already), -2 when it is too
 * long to keep whole (it is never cut: two labels alike in their first
 * 1023 bytes would be taken for one).
 */
static int
label_index(WsbRoundTable *t, const char *label, bool add)
{
	for (int c = 0; c < t->nconfigs; c++)
		if (strcmp(t->labels[c], label) == 0)
			return c;
	if (strlen(label) >= sizeof(t->labels[0]))
		return -2;
	if (!add || t->nconfigs >= 64)
		return -1;
	wsb_strlcpy(t->labels[t->nconfigs], label, sizeof(t->labels[0]));
	return t->nconfigs++;
}

/* The message for a label label_index() refused as too long. */
static void
label_too_long(const char *path, const char *label, char *err, size_t errlen)
{
	snprintf(err, errlen, "\"%s\": configuration label too long: \"%.60s...\" (%zu bytes, at most %zu)",
			 path, label, strlen(label), sizeof(((WsbRoundTable *) NULL)->labels[0]) - 1);
}

void
wsb_round_table_free(WsbRoundTable *t)
{
	free(t->runs);
	t->runs = NULL;
	t->nruns = 0;
}

/* The columns read_csv takes, by index in the header (-1: absent). */
typedef struct CsvColumns
{
	int			configuration,
				round,
				tps,
				ok,
				position,
				traced,
				clients,
				seconds,
				client_ms,
				seed,
				margin_pct,
				budget_looks,
				baseline,
				tps_window;
	int			stall_ms[WSB_N_STALL];
	int			episodes[WSB_N_STALL];
	char		stall_ms_name[WSB_N_STALL][64];	/* "wal_flush_total_ms" */
	char		episodes_name[WSB_N_STALL][64];	/* "wal_flush_episodes" */
} CsvColumns;

static int
header_col(const WsbCsvReader *r, const char *name)
{
	for (int i = 0; i < r->ncells; i++)
		if (strcmp(wsb_csv_cell(r, i), name) == 0)
			return i;
	return -1;
}

static void
find_columns(const WsbCsvReader *r, CsvColumns *c)
{
	c->configuration = header_col(r, "configuration");
	/* results.csv before rounds: run was the repeat */
	c->round = header_col(r, "round") >= 0 ? header_col(r, "round") : header_col(r, "run");
	c->tps = header_col(r, "tps");
	c->ok = header_col(r, "ok");
	c->position = header_col(r, "position");
	c->traced = header_col(r, "traced");
	c->clients = header_col(r, "clients");
	c->seconds = header_col(r, "seconds");
	c->client_ms = header_col(r, "client_ms");
	c->seed = header_col(r, "seed");
	c->margin_pct = header_col(r, "margin_pct");
	c->budget_looks = header_col(r, "budget_looks");
	c->baseline = header_col(r, "baseline");
	c->tps_window = header_col(r, "tps_window");
	for (int k = 0; k < WSB_N_STALL; k++)
	{
		snprintf(c->stall_ms_name[k], sizeof(c->stall_ms_name[k]), "%s_total_ms", wsb_stall_classes[k]);
		c->stall_ms[k] = header_col(r, c->stall_ms_name[k]);
		snprintf(c->episodes_name[k], sizeof(c->episodes_name[k]), "%s_episodes", wsb_stall_classes[k]);
		c->episodes[k] = header_col(r, c->episodes_name[k]);
	}
}

/*
 * The tps the verdict pairs: a results.csv's tps_window (over each run's
 * whole stall cycles or steady seconds, pgbench.c's wsb_cycle_tps and
 * wsb_window_tps) when every successful run
 * has one, else every run's tps (pgbench's end-inclusive total, or a plain
 * CSV's): one kind for all runs, never a mix.
 */
static void
use_window_tps(WsbRoundTable *t)
{
	bool		all = t->nruns > 0;

	for (int i = 0; i < t->nruns; i++)
		if (t->runs[i].ok && !(t->runs[i].tps_window > 0))
			all = false;
	if (!all)
		return;
	for (int i = 0; i < t->nruns; i++)
		if (t->runs[i].ok)
			t->runs[i].tps = t->runs[i].tps_window;
	wsb_strlcpy(t->tps_column, "tps_window", sizeof(t->tps_column));
}

/*
 * A number cell of the current row: NAN when the cell is empty or absent
 * (unknown), else a finite number from min to max (whole when asked), or
 * false with err naming the line and the column.
 */
static bool
cell_number(const WsbCsvReader *r, const char *path, int col, const char *name,
			double min, double max, bool whole, double *out, char *err, size_t errlen)
{
	const char *s = wsb_csv_cell(r, col);
	char	   *end;
	double		v;

	*out = NAN;
	if (s == NULL || *s == '\0')
		return true;
	errno = 0;
	/* plain digits, as round and tps mostly are: read without strtod */
	if (strspn(s, "0123456789") == strlen(s) && strlen(s) <= 15)
	{
		v = 0;
		for (const char *q = s; *q; q++)
			v = v * 10 + (*q - '0');
		end = (char *) s + strlen(s);
	}
	else
		v = strtod(s, &end);
	while (isspace((unsigned char) *end))
		end++;
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || v < min || v > max ||
		(whole && v != floor(v)))
	{
		snprintf(err, errlen, "\"%s\" line %d: %s: \"%.60s\" is not %s from %.15g to %.15g",
				 path, r->line, name, s, whole ? "a whole number" : "a number", min, max);
		return false;
	}
	*out = v;
	return true;
}

/* an experiment-wide cell (seed, margin_pct, budget_looks) through the
 * options' own check; empty cells are skipped */
static bool
experiment_cell(const WsbCsvReader *r, const char *path, int col, const char *name,
				WsbRoundTable *t, char *err, size_t errlen)
{
	const char *s = wsb_csv_cell(r, col);
	char		what[1200];

	if (s == NULL || *s == '\0')
		return true;
	snprintf(what, sizeof(what), "\"%s\" line %d: %s", path, r->line, name);
	if (strcmp(name, "seed") == 0)
	{
		long long	seed;

		if (wsb_check_seed(what, s, &seed, err, errlen) != 0)
			return false;
		if (t->seed < 0)
			t->seed = seed;
	}
	else if (strcmp(name, "margin_pct") == 0)
	{
		double		margin;

		if (wsb_check_margin(what, s, &margin, err, errlen) != 0)
			return false;
		if (isnan(t->margin_pct))
			t->margin_pct = margin;
	}
	else if (strcmp(s, "0") != 0)	/* results.csv's 0: no --budget */
	{
		int			looks;

		if (wsb_check_looks(what, s, &looks, err, errlen) != 0)
			return false;
		if (t->budget_looks == 0)
			t->budget_looks = looks;
	}
	return true;
}

/* the largest round number a file may hold (kept as an int) */
#define CSV_MAX_ROUND 1000000000

/*
 * One run of the current row into x; its configuration's index in the
 * file's order of labels (t->labels as read so far).  false with err.
 */
static bool
read_run(const WsbCsvReader *r, const char *path, const CsvColumns *c, WsbRoundTable *t,
		 WsbRoundRun *x, char *err, size_t errlen)
{
	const char *label = wsb_csv_cell(r, c->configuration);
	double		round,
				pos,
				clients,
				seconds,
				v;

	if (label == NULL || *label == '\0' ||
		!cell_number(r, path, c->round, "round", 1, CSV_MAX_ROUND, true, &round, err, errlen) ||
		isnan(round))
	{
		snprintf(err, errlen, "\"%s\" line %d: a configuration and a whole round number from 1 to %d are needed",
				 path, r->line, CSV_MAX_ROUND);
		return false;
	}
	x->config = label_index(t, label, true);
	if (x->config == -2)
	{
		label_too_long(path, label, err, errlen);
		return false;
	}
	if (x->config < 0)
	{
		snprintf(err, errlen, "\"%s\" line %d: more than 64 configurations", path, r->line);
		return false;
	}
	x->round = (int) round;
	if (!cell_number(r, path, c->position, "position", 0, 64, true, &pos, err, errlen) ||
		!cell_number(r, path, c->tps, "tps", 0, 1e12, false, &x->tps, err, errlen) ||
		!cell_number(r, path, c->tps_window, "tps_window", 0, 1e12, false, &x->tps_window, err, errlen) ||
		!cell_number(r, path, c->clients, "clients", 1, WSB_MAX_CLIENTS, true, &clients, err, errlen) ||
		!cell_number(r, path, c->seconds, "seconds", 0, 1e9, false, &seconds, err, errlen) ||
		!cell_number(r, path, c->client_ms, "client_ms", 0, 1e18, false, &x->client_ms, err, errlen))
		return false;
	x->position = isnan(pos) ? 0 : (int) pos;
	x->ok = parse_bool(wsb_csv_cell(r, c->ok), true) && x->tps > 0;
	x->traced = parse_bool(wsb_csv_cell(r, c->traced), false);
	if (isnan(x->client_ms) && clients > 0 && seconds > 0)
		x->client_ms = clients * seconds * 1000;
	for (int k = 0; k < WSB_N_STALL; k++)
	{
		if (!cell_number(r, path, c->stall_ms[k], c->stall_ms_name[k], 0, 1e18, false,
						 &x->stall_ms[k], err, errlen) ||
			!cell_number(r, path, c->episodes[k], c->episodes_name[k], 0, 1e18, true, &v, err, errlen))
			return false;
		x->episodes[k] = v;
	}
	return experiment_cell(r, path, c->seed, "seed", t, err, errlen) &&
		experiment_cell(r, path, c->margin_pct, "margin_pct", t, err, errlen) &&
		experiment_cell(r, path, c->budget_looks, "budget_looks", t, err, errlen);
}

/* A run's place for the check of two rows of one configuration in a round. */
typedef struct RowKey
{
	int			round;
	int			config;
	int			line;
} RowKey;

static int
cmp_row_key(const void *a, const void *b)
{
	const RowKey *x = a;
	const RowKey *y = b;

	if (x->round != y->round)
		return (x->round > y->round) - (x->round < y->round);
	if (x->config != y->config)
		return (x->config > y->config) - (x->config < y->config);
	return (x->line > y->line) - (x->line < y->line);
}

/* Refuse a configuration with two rows in one round (sorted: n log n). */
static bool
check_one_row_per_round(const char *path, const WsbRoundTable *t, const int *lines,
						char *err, size_t errlen)
{
	RowKey	   *keys = malloc(sizeof(RowKey) * (t->nruns > 0 ? t->nruns : 1));
	RowKey		last[64];		/* per configuration, its latest row */

	if (keys == NULL)
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		return false;
	}
	for (int i = 0; i < t->nruns; i++)
	{
		keys[i].round = t->runs[i].round;
		keys[i].config = t->runs[i].config;
		keys[i].line = lines[i];
	}
	/* rows in round order (results.csv's) need no sort: a round's rows
	 * need only be together, each configuration's last one remembered */
	for (int i = 1; i < t->nruns; i++)
		if (keys[i].round < keys[i - 1].round)
		{
			qsort(keys, t->nruns, sizeof(RowKey), cmp_row_key);
			break;
		}
	for (int c = 0; c < 64; c++)
		last[c].round = 0;
	for (int i = 0; i < t->nruns; i++)
	{
		RowKey	   *seen = &last[keys[i].config];

		if (seen->round == keys[i].round)
		{
			snprintf(err, errlen, "\"%s\" line %d: configuration \"%s\" has two rows in round %d "
					 "(the first on line %d)", path, keys[i].line, t->labels[keys[i].config],
					 keys[i].round, seen->line);
			free(keys);
			return false;
		}
		*seen = keys[i];
	}
	free(keys);
	return true;
}

/*
 * The configurations in the order to show them: the baseline first (named,
 * else the one results.csv's baseline column names, else the first in the
 * file), then the plan's labels, then the others in the order of the file.
 * t->labels holds them in the file's order; the runs' configurations are
 * renumbered.  false with err.
 */
static bool
order_labels(const char *path, WsbRoundTable *t, const char *first,
			 const char *const *labels, int nlabels, char *err, size_t errlen)
{
	static WsbRoundTable ordered;	/* its labels alone: 64 kB, off the stack */
	int			map[64];

	ordered.nconfigs = 0;
	if (first && *first && label_index(&ordered, first, true) == -2)
	{
		label_too_long(path, first, err, errlen);
		return false;
	}
	for (int c = 0; c < nlabels; c++)
		if (label_index(&ordered, labels[c], true) == -2)
		{
			label_too_long(path, labels[c], err, errlen);
			return false;
		}
	for (int c = 0; c < t->nconfigs; c++)
	{
		map[c] = label_index(&ordered, t->labels[c], true);
		if (map[c] < 0)
		{
			snprintf(err, errlen, "\"%s\": more than 64 configurations", path);
			return false;
		}
	}
	for (int i = 0; i < t->nruns; i++)
		t->runs[i].config = map[t->runs[i].config];
	for (int c = 0; c < ordered.nconfigs; c++)
		memcpy(t->labels[c], ordered.labels[c], sizeof(t->labels[0]));
	t->nconfigs = ordered.nconfigs;
	return true;
}

/* Room for ncap runs and their line numbers; false when out of memory. */
static bool
grow_runs(WsbRoundTable *t, int **lines, int *cap, int ncap)
{
	WsbRoundRun *runs = realloc(t->runs, sizeof(WsbRoundRun) * ncap);
	int		   *nlines;

	if (runs == NULL)
		return false;
	t->runs = runs;
	nlines = realloc(*lines, sizeof(int) * ncap);
	if (nlines == NULL)
		return false;
	*lines = nlines;
	*cap = ncap;
	return true;
}

/*
 * Read a CSV of runs into t (see the file header).  baseline: a label, or
 * NULL/"" for the first configuration in the file.  labels: the
 * configurations in the order to show them ([0] the baseline), NULL for
 * the order of the file.  0, or -1 with err.
 */
static int
read_csv(const char *path, const char *baseline, const char *const *labels, int nlabels,
		 WsbRoundTable *t, char *err, size_t errlen)
{
	size_t		len;
	char	   *text = wsb_read_file(path, &len);
	WsbCsvReader	r;
	CsvColumns	cols;
	char		msg[512];
	char		first[1024] = "";
	int		   *lines = NULL;
	int			cap = 0,
				rc;

	memset(t, 0, sizeof(*t));
	t->seed = -1;
	t->margin_pct = NAN;
	if (!WSB_PATH(t->source, err, errlen, "%s", path))
	{
		free(text);
		return -1;
	}
	if (text == NULL)
	{
		snprintf(err, errlen, "could not read \"%s\": %s", path, strerror(errno));
		return -1;
	}
	if (!wsb_csv_reader_init(&r, text, len))
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		free(text);
		return -1;
	}
	rc = wsb_csv_next_row(&r, msg, sizeof(msg));
	if (rc < 0)
		goto parse_error;
	find_columns(&r, &cols);
	/* a row per line at most: room for them all at once, not by doubling */
	for (const char *q = text; (q = memchr(q, '\n', text + len - q)) != NULL; q++)
		cap++;
	if (!grow_runs(t, &lines, &cap, cap + 1))
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		goto fail;
	}
	if (rc == 0 || cols.configuration < 0 || cols.round < 0 || cols.tps < 0)
	{
		snprintf(err, errlen, "\"%s\" needs the columns configuration, round and tps", path);
		goto fail;
	}
	while ((rc = wsb_csv_next_row(&r, msg, sizeof(msg))) > 0)
	{
		if (t->nruns == cap && !grow_runs(t, &lines, &cap, cap * 2))
		{
			snprintf(err, errlen, "\"%s\" line %d: out of memory", path, r.line);
			goto fail;
		}
		memset(&t->runs[t->nruns], 0, sizeof(WsbRoundRun));
		if (!read_run(&r, path, &cols, t, &t->runs[t->nruns], err, errlen))
			goto fail;
		/* results.csv says which configuration was the baseline: its runs
		 * run in shuffled order, so the first row need not be one of them */
		if (first[0] == '\0' && parse_bool(wsb_csv_cell(&r, cols.baseline), false))
			wsb_strlcpy(first, t->labels[t->runs[t->nruns].config], sizeof(first));
		lines[t->nruns++] = r.line;
	}
	if (rc < 0)
		goto parse_error;
	use_window_tps(t);
	if (!check_one_row_per_round(path, t, lines, err, errlen) ||
		!order_labels(path, t, baseline && *baseline ? baseline : first, labels, nlabels,
					  err, errlen))
		goto fail;
	if (baseline && *baseline)
	{
		bool		seen = false;

		for (int i = 0; i < t->nruns; i++)
			seen |= t->runs[i].config == 0;
		if (!seen)
		{
			snprintf(err, errlen, "--baseline \"%s\" is not a configuration of \"%s\"", baseline, path);
			goto fail;
		}
	}
	if (t->nconfigs < 2)
	{
		snprintf(err, errlen, "\"%s\" has %d configuration%s: nothing to compare", path,
				 t->nconfigs, t->nconfigs == 1 ? "" : "s");
		goto fail;
	}
	wsb_csv_reader_free(&r);
	free(text);
	free(lines);
	return 0;
parse_error:
	snprintf(err, errlen, "\"%s\" %s", path, msg);
fail:
	wsb_csv_reader_free(&r);
	free(text);
	free(lines);
	wsb_round_table_free(t);
	return -1;
}

int
wsb_round_table_read_csv(const char *path, const char *baseline, WsbRoundTable *t,
						 char *err, size_t errlen)
{
	return read_csv(path, baseline, NULL, 0, t, err, errlen);
}

/* "round 2 (a failed run), round 5 (...)": the rounds left out. */
void
wsb_left_out_rounds(const WsbRoundTable *t, char *buf, size_t len)
{
	WsbRoundState *states;
	int			n = wsb_round_states(t->runs, t->nruns, t->nconfigs, &states);
	size_t		used = 0;

	buf[0] = '\0';
	if (n < 0)
	{
		snprintf(buf, len, "(out of memory: the rounds left out are not known)");
		return;
	}
	for (int k = 0; k < n && used < len; k++)
	{
		if (states[k].complete)
			continue;
		used += snprintf(buf + used, len - used, "%sround %d (%s)", used ? ", " : "",
						 states[k].round, states[k].failed ? "a failed run" : "not every configuration ran");
	}
	free(states);
}

/* ---------------------------------------------------------------------
 * Writing
 * --------------------------------------------------------------------- */

/* How the interval of metric m was made, for verdicts.csv and the report. */
void
wsb_method_text(const WsbJudgeSpec *spec, WsbMetric m, const WsbPaired *p,
				char *buf, size_t len)
{
	int			n = snprintf(buf, len, "paired t on per-round log ratios of %s, %d df, %.4g%% interval "
							 "(Holm over configurations), TOST at %.4g%%",
							 m == WSB_M_TPS ? "tps" : m == WSB_M_IMPLIED ? "(1 - stall share)" :
							 (m >= WSB_M_EPISODES ? "episodes (floor 1)" : "stall share (floor 1 ms)"),
							 p->rounds > 1 ? p->rounds - 1 : 0,
							 isnan(p->level) ? 95.0 : 100 * p->level,
							 100 * (1 - 2 * p->alpha_used));

	if (spec->nlooks > 0 && (size_t) n < len)
		n += snprintf(buf + n, len - n, "; look %d of at most %d, alpha %.4g each (Bonferroni spending)",
					  spec->look, spec->nlooks, p->alpha_used);
	if (!isnan(p->rank_p) && (size_t) n < len)
		snprintf(buf + n, len - n, p->rounds > WSB_RANK_EXACT_MAX ?
				 "; signed-rank p %.3g (normal approximation: more than %d rounds)" :
				 "; signed-rank p %.3g (exact)", p->rank_p, WSB_RANK_EXACT_MAX);
}

static void
csv_num(FILE *f, const char *fmt, double v)
{
	fputc(',', f);
	if (!isnan(v) && !isinf(v))
		fprintf(f, fmt, v);
}

/*
 * verdicts.csv: one row per configuration (not the baseline) and metric:
 * ratio, its interval, the 90% interval, p values, the words, the rounds
 * used and the method.  0, or -1 when the file could not be written.
 */
int
wsb_write_verdicts_csv(const char *path, const WsbRoundTable *t, const WsbJudgeSpec *spec,
					   const WsbPaired *v)
{
	FILE	   *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs("configuration,baseline,metric,ratio,low,high,level,low90,high90,p,p_holm,"
		  "signed_rank_p,verdict,decided,rounds,margin_pct,method\n", f);
	for (int c = 1; c < t->nconfigs; c++)
		for (int m = 0; m < WSB_N_METRICS; m++)
		{
			const WsbPaired *p = &v[c * WSB_N_METRICS + m];
			char		method[512];

			wsb_csv_field(f, t->labels[c]);
			fputc(',', f);
			wsb_csv_field(f, t->labels[0]);
			fprintf(f, ",%s", wsb_metric_name(m));
			csv_num(f, "%.6f", p->ratio);
			csv_num(f, "%.6f", p->low);
			csv_num(f, "%.6f", p->high);
			csv_num(f, "%.6f", p->level);
			csv_num(f, "%.6f", p->low90);
			csv_num(f, "%.6f", p->high90);
			csv_num(f, "%.6g", p->p);
			csv_num(f, "%.6g", p->p_holm);
			csv_num(f, "%.6g", p->rank_p);
			fputc(',', f);
			wsb_csv_field(f, p->words);
			fprintf(f, ",%s,%d,%g,", p->decided ? "true" : "false", p->rounds, spec->margin_pct);
			wsb_method_text(spec, m, p, method, sizeof(method));
			wsb_csv_field(f, method);
			fputc('\n', f);
		}
	if (ferror(f))
	{
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* a ratio: three decimals, or two significant digits below 0.1 (stall
 * shares fall a thousandfold) */
static const char *
num(char *buf, double v)
{
	snprintf(buf, 32, fabs(v) >= 0.1 ? "%.3f" : "%.2g", v);
	return buf;
}

static void
fmt_ratio(char *buf, size_t len, const WsbPaired *p)
{
	char		a[32],
				b[32],
				c[32];

	if (isnan(p->ratio))
		snprintf(buf, len, "-");
	else if (isnan(p->low))
		snprintf(buf, len, "%s", num(a, p->ratio));
	else
		snprintf(buf, len, "%s [%s, %s]", num(a, p->ratio), num(b, p->low), num(c, p->high));
}

/* a stall metric worth a line: measured, and not at the floor in every round */
static bool
stall_line_shown(const WsbPaired *p)
{
	return !isnan(p->ratio) && !(p->ratio == 1 && p->low == 1 && p->high == 1);
}

static int
complete_rounds(const WsbRoundTable *t)
{
	WsbRoundState *states;
	int			n = wsb_round_states(t->runs, t->nruns, t->nconfigs, &states),
				complete = 0;

	for (int k = 0; k < n; k++)
		complete += states[k].complete;
	free(states);
	return complete;
}

/*
 * The per-round noise the rounds showed: per configuration, the standard
 * deviation of its per-round log tps ratios, as +-% (exp(sd) - 1), and the
 * half-width of the 95% interval that many rounds give at that noise: a
 * change smaller than it cannot be told from none in these rounds.
 */
static void
noise_line(char *buf, size_t len, const char *label, const WsbPaired *p)
{
	double		half = wsb_t_quantile(0.975, p->rounds - 1) * p->sd / sqrt(p->rounds);

	snprintf(buf, len, "%s: per-round noise +-%.1f%% (sd of the log ratio over %d rounds); "
			 "%d rounds tell changes beyond +-%.1f%% from none",
			 label, 100 * (exp(p->sd) - 1), p->rounds, p->rounds, 100 * (exp(half) - 1));
}

/*
 * The terminal table: per configuration the tps ratio with its interval
 * and the words, then the stall share of all classes, the tps change the
 * stalls imply, and each class whose share or episodes moved.
 */
void
wsb_print_paired(FILE *f, const WsbRoundTable *t, const WsbJudgeSpec *spec,
				 const WsbPaired *v, long long seed)
{
	char		left[1024];
	int			traced = 0,
				complete = complete_rounds(t);

	for (int i = 0; i < t->nruns; i++)
		traced += t->runs[i].traced;
	fprintf(f, "\nverdict by rounds: each configuration against the baseline of the same round\n");
	fprintf(f, "margin +-%g%%, %d complete round%s", spec->margin_pct, complete,
			complete == 1 ? "" : "s");
	if (seed >= 0)
		fprintf(f, ", seed %lld", seed);
	if (spec->nlooks > 0)
		fprintf(f, ", look %d of at most %d (alpha %.4g each)", spec->look, spec->nlooks,
				spec->alpha);
	if (t->tps_column[0])
		fprintf(f, ", tps over each run's steady window (%s: whole stall cycles where the clients pause, "
				"else the steady seconds)", t->tps_column);
	fputc('\n', f);
	wsb_left_out_rounds(t, left, sizeof(left));
	if (left[0])
		fprintf(f, "left out: %s\n", left);
	if (traced)
		fprintf(f, "%d traced run%s (--validate) left out of the pairs: the tracer moves tps\n",
				traced, traced == 1 ? "" : "s");
	fprintf(f, "%-40s  %-26s  %s\n", "configuration", "tps ratio [95% CI, Holm]", "verdict");
	for (int i = 0; i < 100; i++)
		fputc('-', f);
	fputc('\n', f);
	fprintf(f, "%-40.40s  %-26s  baseline\n", t->labels[0], "1");
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS];
		char		r[128];

		fmt_ratio(r, sizeof(r), &p[WSB_M_TPS]);
		if (strlen(t->labels[c]) > 40)
			fprintf(f, "%s\n%-40s", t->labels[c], "");
		else
			fprintf(f, "%-40s", t->labels[c]);
		fprintf(f, "  %-26s  %s\n", r, p[WSB_M_TPS].words);
		if (p[WSB_M_TPS].limit[0])
			fprintf(f, "    limit: %s\n", p[WSB_M_TPS].limit);
		if (p[WSB_M_SHARE_ALL].word == WSB_W_NEGLIGIBLE)
			fprintf(f, "    stall share of client time  negligible in both (under %g%%)\n",
					100 * WSB_NEGLIGIBLE_SHARE);
		else if (stall_line_shown(&p[WSB_M_SHARE_ALL]))
		{
			char		s[128],
						im[128];

			fmt_ratio(s, sizeof(s), &p[WSB_M_SHARE_ALL]);
			fmt_ratio(im, sizeof(im), &p[WSB_M_IMPLIED]);
			fprintf(f, "    stall share of client time  %s  %s\n", s, p[WSB_M_SHARE_ALL].words);
			fprintf(f, "    tps the stalls alone imply  %s\n", im);
		}
		for (int k = 0; k < WSB_N_STALL; k++)
		{
			const WsbPaired *s = &p[WSB_M_SHARE + k];
			const WsbPaired *e = &p[WSB_M_EPISODES + k];
			char		a[128],
						b[128];

			if (!stall_line_shown(s) && !stall_line_shown(e))
				continue;
			if (s->word == WSB_W_NEGLIGIBLE)
			{
				fprintf(f, "    %-16s negligible in both (share under %g%% of client time)\n",
						wsb_stall_classes[k], 100 * WSB_NEGLIGIBLE_SHARE);
				continue;
			}
			fmt_ratio(a, sizeof(a), s);
			fmt_ratio(b, sizeof(b), e);
			fprintf(f, "    %-16s share %s %s\n", wsb_stall_classes[k], a, s->words);
			fprintf(f, "    %-16s episodes %s %s\n", "", b, e->words);
		}
	}
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];
		char		line[1400];

		if (p->rounds >= 2 && !isnan(p->sd))
		{
			noise_line(line, sizeof(line), t->labels[c], p);
			fprintf(f, "%s\n", line);
		}
	}
}

static void
html_ratio_cells(FILE *f, const WsbPaired *p)
{
	char		a[32],
				b[32],
				c[32];

	if (isnan(p->ratio))
		fputs("<td class=\"n\">&ndash;</td><td>&ndash;</td>", f);
	else if (isnan(p->low))
		fprintf(f, "<td class=\"n\">%s</td><td>&ndash;</td>", num(a, p->ratio));
	else
		fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">[%s, %s]</td>", num(a, p->ratio),
				num(b, p->low), num(c, p->high));
}

static const char *
word_class(WsbWord w)
{
	switch (w)
	{
		case WSB_W_FASTER_BY:
		case WSB_W_FASTER:
		case WSB_W_FEWER:
			return "faster";
		case WSB_W_SLOWER_BY:
		case WSB_W_SLOWER:
		case WSB_W_MORE:
			return "slower";
		case WSB_W_TOO_FEW:
			return "few";
		default:
			return "noise";
	}
}

/* a forest plot, as an <img> holding the SVG in a data: URI (self-contained) */
static void
paste_svg_as_image(FILE *f, const char *path, const char *alt)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t		len;
	unsigned char *s = (unsigned char *) wsb_read_file(path, &len);

	if (s == NULL)
	{
		fputs("<p class=\"missing\">", f);
		wsb_html_escape(f, path);
		fputs(" could not be read</p>\n", f);
		return;
	}
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
}

/*
 * The report's "Verdict by rounds" section: the method, the seed, the
 * rounds left out, the table, and the forest plots (drawn beforehand into
 * plotdir by wsb_draw_forest; NULL: none).
 */
void
wsb_paired_html(FILE *f, const WsbRoundTable *t, const WsbJudgeSpec *spec,
				const WsbPaired *v, long long seed, const char *plotdir)
{
	char		left[1024],
				buf[1400];
	int			traced = 0;

	for (int i = 0; i < t->nruns; i++)
		traced += t->runs[i].traced;
	fprintf(f, "<p>Rounds are the unit: a round runs every configuration once, in an order "
			"shuffled from the seed (<strong>%s%lld</strong>), and each configuration is compared "
			"with the baseline run of the same round. Per round the log of the ratio; the "
			"<strong>ratio</strong> is their geometric mean, its interval a paired t interval with "
			"rounds &minus; 1 degrees of freedom at 95%%, Holm-adjusted over the configurations "
			"(the one with the i-th smallest p at 5%% / (k &minus; i)). The margin, declared before "
			"the runs, is <strong>&plusmn;%g%%</strong>: <em>faster/slower by &ge; %g%%</em> when "
			"the whole interval lies beyond it; <em>equivalent within &plusmn;%g%%</em> when the "
			"90%% interval (two one-sided tests) lies inside it; <em>faster/slower</em> when the "
			"interval excludes no change but reaches into the margin; otherwise "
			"<em>inconclusive</em>, with the rounds still needed at the spread seen. From %d "
			"rounds, Wilcoxon's signed-rank p over every round stands beside it (verdicts.csv; "
			"exact up to %d rounds, the normal approximation above). Stall "
			"shares (stall ms / (clients &times; run ms), floored at 1 ms) and episode counts "
			"(floored at 1) are paired the same way; <em>implied</em> is the tps ratio the "
			"stalls alone would give, (1 &minus; s<sub>config</sub>) / (1 &minus; "
			"s<sub>baseline</sub>): a client waiting a share s of its time has 1 &minus; s left "
			"to commit in.</p>\n",
			seed >= 0 ? "" : "unknown", seed >= 0 ? seed : 0LL,
			spec->margin_pct, spec->margin_pct, spec->margin_pct, WSB_RANK_MIN_ROUNDS,
			WSB_RANK_EXACT_MAX);
	if (spec->nlooks > 0)
		fprintf(f, "<p>--budget: the verdict was taken after every round from the third, at "
				"most %d times (fixed from the budget before the first run); this is look %d. "
				"Error control over the looks: <strong>Bonferroni error spending</strong>, each "
				"look at &alpha; = 5%% / %d = %.4g, so the chance of any false faster/slower "
				"over all looks stays under 5%%.</p>\n",
				spec->nlooks, spec->look, spec->nlooks, spec->alpha);
	wsb_left_out_rounds(t, left, sizeof(left));
	snprintf(buf, sizeof(buf), "%d complete rounds.%s%s%s", complete_rounds(t),
			 left[0] ? " Left out of the paired figures: " : "", left, left[0] ? "." : "");
	fputs("<p>", f);
	wsb_html_escape(f, buf);
	if (traced)
		fprintf(f, " %d traced run%s (--validate) %s left out of the pairs: the tracer moves tps.",
				traced, traced == 1 ? "" : "s", traced == 1 ? "is" : "are");
	fputs("</p>\n", f);
	fputs("<table><tr><th>configuration</th><th>metric</th><th>rounds</th><th>ratio</th>"
		  "<th>interval</th><th>verdict</th></tr>\n", f);
	for (int c = 1; c < t->nconfigs; c++)
		for (int m = 0; m < WSB_N_METRICS; m++)
		{
			const WsbPaired *p = &v[c * WSB_N_METRICS + m];

			if (m != WSB_M_TPS && !stall_line_shown(p))
				continue;
			fputs("<tr><td>", f);
			wsb_html_escape(f, t->labels[c]);
			fprintf(f, "</td><td>%s</td><td class=\"n\">%d</td>", wsb_metric_name(m), p->rounds);
			html_ratio_cells(f, p);
			fprintf(f, "<td class=\"%s\">", word_class(p->word));
			wsb_html_escape(f, m == WSB_M_IMPLIED ? "(implied by the stalls)" : p->words);
			fputs("</td></tr>\n", f);
		}
	fputs("</table>\n", f);
	fprintf(f, "<p>A stall class whose share stays under %g%% of the clients' time in every paired "
			"round, on both sides, reads <em>negligible in both</em>: its waits can move tps by "
			"less than that. Under each decided configuration, what limits it, from the class "
			"with the largest share:</p>\n<ul>\n", 100 * WSB_NEGLIGIBLE_SHARE);
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];

		fputs("<li>", f);
		wsb_html_escape(f, t->labels[c]);
		fputs(": ", f);
		wsb_html_escape(f, p->limit[0] ? p->limit : "not decided");
		fputs("</li>\n", f);
	}
	fputs("</ul>\n<p>The noise these rounds showed:</p>\n<ul>\n", f);
	for (int c = 1; c < t->nconfigs; c++)
	{
		const WsbPaired *p = &v[c * WSB_N_METRICS + WSB_M_TPS];
		char		line[1400];

		if (p->rounds < 2 || isnan(p->sd))
			continue;
		noise_line(line, sizeof(line), t->labels[c], p);
		fputs("<li>", f);
		wsb_html_escape(f, line);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	if (plotdir)
	{
		char		path[1200];

		fputs("<figure>\n", f);
		if (WSB_PATH_SAY(path, "%s/forest_tps.svg", plotdir))
			paste_svg_as_image(f, path, "forest plot of the tps ratios");
		if (!WSB_PATH_SAY(path, "%s/forest_stall.svg", plotdir))
			fputs("<p>No stall share chart: its path is too long.</p>\n", f);
		else if (access(path, R_OK) == 0)
			paste_svg_as_image(f, path, "forest plot of the stall share ratios");
		else
			fputs("<p>No stall share chart: the runs have no stall figures.</p>\n", f);
		fprintf(f, "<figcaption>Forest plots: one row per configuration, the ratio against the "
				"baseline of the same round (dot) and its interval (bar, as in the table). Top: "
				"tps, against the grey &plusmn;%g%% margin band; beneath: the share of client "
				"time in all stall classes, log scale. Data and scripts: "
				"<code>plots/forest.dat</code>, <code>plots/forest_*.gp</code>.</figcaption>\n"
				"</figure>\n", spec->margin_pct);
	}
}

/* ---------------------------------------------------------------------
 * An experiment's verdicts, start to end
 * --------------------------------------------------------------------- */

/*
 * Read a CSV of runs and judge it.  margin_pct: NAN for the file's own
 * margin_pct column, else 5; look/nlooks as for --budget (0, 0 without).
 * The live harness judges its own results.csv this way too, so that
 * --judge on a results directory gives the same verdicts to the digit; a
 * budgeted experiment's results.csv says how many looks it allowed
 * (budget_looks), so --judge spends alpha the same way, at its last look.
 */
int
wsb_verdicts_from_csv(const char *path, const char *baseline, double margin_pct,
					  int look, int nlooks, WsbVerdicts *out, char *err, size_t errlen)
{
	return wsb_verdicts_from_csv_ordered(path, baseline, NULL, 0, margin_pct, look, nlooks,
										 out, err, errlen);
}

/* The same, with the configurations shown in the order of labels (the
 * plan's, for the harness's own results.csv). */
int
wsb_verdicts_from_csv_ordered(const char *path, const char *baseline, const char *const *labels,
							  int nlabels, double margin_pct, int look, int nlooks,
							  WsbVerdicts *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (read_csv(path, baseline, labels, nlabels, &out->table, err, errlen) != 0)
		return -1;
	if (isnan(margin_pct))
		margin_pct = isnan(out->table.margin_pct) ? 5 : out->table.margin_pct;
	if (nlooks == 0 && out->table.budget_looks > 0)
	{
		/*
		 * a budgeted experiment: its looks came after rounds 3, 4, ...; judge
		 * it at its last look, with the alpha each look spent
		 */
		int			maxround = 0;

		for (int i = 0; i < out->table.nruns; i++)
			if (out->table.runs[i].round > maxround)
				maxround = out->table.runs[i].round;
		nlooks = out->table.budget_looks;
		look = maxround - 2 < 0 ? 0 : (maxround - 2 > nlooks ? nlooks : maxround - 2);
	}
	out->spec.margin_pct = margin_pct;
	out->spec.look = look;
	out->spec.nlooks = nlooks;
	out->spec.alpha = wsb_look_alpha(0.05, nlooks);
	out->v = calloc(out->table.nconfigs * WSB_N_METRICS, sizeof(WsbPaired));
	if (out->v == NULL)
	{
		snprintf(err, errlen, "out of memory");
		wsb_round_table_free(&out->table);
		return -1;
	}
	wsb_judge_rounds(out->table.runs, out->table.nruns, out->table.nconfigs, &out->spec, out->v);
	return 0;
}

/* Every configuration decided on tps: by the margin, or equivalent. */
bool
wsb_verdicts_all_decided(const WsbVerdicts *vs)
{
	for (int c = 1; c < vs->table.nconfigs; c++)
		if (!vs->v[c * WSB_N_METRICS + WSB_M_TPS].decided)
			return false;
	return true;
}

/* verdicts.csv and the forest plots (dir/plots) in dir.  0, -1 when
 * verdicts.csv could not be written; a forest plot that could not be drawn
 * is said in forest_why (the report says so too). */
int
wsb_verdicts_write(const char *dir, WsbVerdicts *vs)
{
	char		path[1200];

	if (!WSB_PATH(path, vs->forest_why, sizeof(vs->forest_why), "%s/plots", dir))
		vs->forest = false;
	else
		vs->forest = wsb_draw_forest(path, &vs->table, &vs->spec, vs->v,
									 vs->forest_why, sizeof(vs->forest_why)) == 0;
	if (!WSB_PATH_SAY(path, "%s/verdicts.csv", dir))
		return -1;
	return wsb_write_verdicts_csv(path, &vs->table, &vs->spec, vs->v);
}

void
wsb_verdicts_free(WsbVerdicts *vs)
{
	wsb_round_table_free(&vs->table);
	free(vs->v);
	vs->v = NULL;
}
