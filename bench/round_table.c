/*-------------------------------------------------------------------------
 *
 * round_table.c
 *		wal_stall_bench: a CSV of runs read back as the rounds to judge
 *		(WsbRoundTable), and the rounds the verdict leaves out.
 *
 * The rounds are read back from the results.csv the harness just wrote,
 * that of an earlier experiment, or any CSV with at least the columns
 * configuration, round and tps (an old results.csv without round: its run
 * column, which was the repeat, is the round).  Optional columns: ok,
 * position (the run's place in its round; without it, the order of the
 * runs' numbers in an order column, or a run column beside round), traced, clients and seconds (together: the clients' time),
 * client_ms, and per stall class CLASS_total_ms and CLASS_episodes.  The
 * baseline: --baseline NAME, else the configuration of the rows whose
 * baseline column is true (results.csv has one), else the first
 * configuration in the file.  One reader for all of them, so that --judge
 * and the live harness judge the same table; csv.c writes results.csv.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine.h"
#include "expbuffer.h"
#include "verdict.h"

static bool
parse_bool(const char *s, bool if_empty)
{
	if (s == NULL || *s == '\0')
		return if_empty;
	return strcasecmp(s, "true") == 0 || strcasecmp(s, "t") == 0 ||
		strcmp(s, "1") == 0 || strcasecmp(s, "yes") == 0 || strcasecmp(s, "ok") == 0;
}

/*
 * A label holding what root's terminal would obey rather than print, or
 * would show reordered (wsb_terminal_unsafe), or a newline: every label
 * is printed, on one line.
 */
static bool
label_has_control(const char *label)
{
	int			len;

	for (const char *s = label; *s; s += len)
		if (wsb_terminal_unsafe(s, &len) || *s == '\n')
			return true;
	return false;
}

/*
 * The index of configuration label in t, added when new and add: -1 when
 * it is not there and cannot be added (64 already), -2 when it is too
 * long to keep whole (it is never cut: two labels alike in their first
 * 1023 bytes would be taken for one), -3 when it holds a control
 * character (every label is printed on the terminal).
 */
static int
label_index(WsbRoundTable *t, const char *label, bool add)
{
	for (int c = 0; c < t->nconfigs; c++)
		if (strcmp(t->labels[c], label) == 0)
			return c;
	if (strlen(label) >= sizeof(t->labels[0]))
		return -2;
	if (label_has_control(label))
		return -3;
	if (!add || t->nconfigs >= 64)
		return -1;
	wsb_strlcpy(t->labels[t->nconfigs], label, sizeof(t->labels[0]));
	return t->nconfigs++;
}

/* The message for a label label_index() refused (-2 or -3), never echoing a control character. */
static void
label_refused(const char *path, const char *label, int code, char *err, size_t errlen)
{
	if (code == -3)
		snprintf(err, errlen, "\"%s\": a configuration label holds a control character or is not UTF-8", path);
	else
		snprintf(err, errlen, "\"%s\": configuration label too long: \"%.60s...\" (%zu bytes, at most %zu)",
				 path, label_has_control(label) ? "(not shown)" : label, strlen(label),
				 sizeof(((WsbRoundTable *) NULL)->labels[0]) - 1);
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
				tps_window,
				machine_us,
				latency_p99_ms,
				longest_stall_ms,
				run_order;		/* order, or run beside round: the run's number */
	int			stall_ms[WSB_N_STALL];
	int			episodes[WSB_N_STALL];
	char		stall_ms_name[WSB_N_STALL][64];	/* "wal_flush_total_ms" */
	char		episodes_name[WSB_N_STALL][64];	/* "wal_flush_episodes" */
	const char *run_order_name;
} CsvColumns;

static void
find_columns(const WsbCsvReader *r, CsvColumns *c)
{
	/* the columns found by their own name, each into its field of c */
	static const struct
	{
		const char *name;
		size_t		field;
	}			named[] = {
#define COLUMN(x) {#x, offsetof(CsvColumns, x)}
		COLUMN(configuration), COLUMN(tps), COLUMN(ok), COLUMN(position),
		COLUMN(traced), COLUMN(clients), COLUMN(seconds), COLUMN(client_ms),
		COLUMN(seed), COLUMN(margin_pct), COLUMN(budget_looks),
		COLUMN(baseline), COLUMN(tps_window), COLUMN(machine_us), COLUMN(latency_p99_ms),
		COLUMN(longest_stall_ms),
#undef COLUMN
	};
	int			round = wsb_csv_column(r, "round");
	int			order = wsb_csv_column(r, "order");
	int			run = wsb_csv_column(r, "run");

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		*(int *) ((char *) c + named[i].field) = wsb_csv_column(r, named[i].name);
	/* results.csv before rounds: run was the repeat */
	c->round = round >= 0 ? round : run;
	/* the run's number in the experiment, whose order in a round is its
	 * place: results.csv's order, or a run column beside a round column */
	c->run_order_name = order >= 0 ? "order" : "run";
	c->run_order = order >= 0 ? order : round >= 0 ? run : -1;
	for (int k = 0; k < WSB_N_STALL; k++)
	{
		snprintf(c->stall_ms_name[k], sizeof(c->stall_ms_name[k]), "%s_total_ms", wsb_stall_classes[k]);
		c->stall_ms[k] = wsb_csv_column(r, c->stall_ms_name[k]);
		snprintf(c->episodes_name[k], sizeof(c->episodes_name[k]), "%s_episodes", wsb_stall_classes[k]);
		c->episodes[k] = wsb_csv_column(r, c->episodes_name[k]);
	}
}

/*
 * The tps the verdict pairs: a results.csv's tps_window (over each run's
 * steady seconds, pgbench.c's wsb_window_tps) when every successful run
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
		 WsbRoundRun *x, double *run_order, char *err, size_t errlen)
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
	if (x->config < -1)
	{
		label_refused(path, label, x->config, err, errlen);
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
		!cell_number(r, path, c->machine_us, "machine_us", 0, 1e9, false, &x->machine_us, err, errlen) ||
		!cell_number(r, path, c->latency_p99_ms, "latency_p99_ms", 0, 1e12, false,
					 &x->latency_p99_ms, err, errlen) ||
		!cell_number(r, path, c->longest_stall_ms, "longest_stall_ms", 0, 1e12, false,
					 &x->longest_stall_ms, err, errlen) ||
		!cell_number(r, path, c->clients, "clients", 1, WSB_MAX_CLIENTS, true, &clients, err, errlen) ||
		!cell_number(r, path, c->seconds, "seconds", 0, 1e9, false, &seconds, err, errlen) ||
		!cell_number(r, path, c->client_ms, "client_ms", 0, 1e18, false, &x->client_ms, err, errlen) ||
		!cell_number(r, path, c->run_order, c->run_order_name, 1, CSV_MAX_ROUND, true,
					 run_order, err, errlen))
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

/*
 * The runs' places in their rounds from their numbers in the experiment,
 * for a file without a position column: in each round the runs in the
 * order of their numbers.  A round where a number is missing or two runs
 * share one (results.csv's run column, which is the round) keeps its
 * places unknown.  Sorted: n log n.
 */
static void
places_from_run_order(WsbRoundTable *t, const double *run_order)
{
	WsbRoundKey *keys = malloc(sizeof(WsbRoundKey) * (t->nruns > 0 ? t->nruns : 1));

	if (keys == NULL)
		return;
	for (int i = 0; i < t->nruns; i++)
		if (t->runs[i].position > 0)
		{
			free(keys);
			return;
		}
	for (int i = 0; i < t->nruns; i++)
	{
		keys[i].round = t->runs[i].round;
		keys[i].config = isnan(run_order[i]) ? -1 : (int) run_order[i];
		keys[i].at = i;
	}
	qsort(keys, t->nruns, sizeof(WsbRoundKey), wsb_cmp_round_key);
	for (int i = 0, j; i < t->nruns; i = j)
	{
		bool		known = true;

		for (j = i; j < t->nruns && keys[j].round == keys[i].round; j++)
			known &= keys[j].config >= 1 && (j == i || keys[j].config != keys[j - 1].config);
		for (int q = i; known && q < j; q++)
			t->runs[keys[q].at].position = q - i + 1;
	}
	free(keys);
}

/* Refuse a configuration with two rows in one round (sorted: n log n). */
static bool
check_one_row_per_round(const char *path, const WsbRoundTable *t, const int *lines,
						char *err, size_t errlen)
{
	WsbRoundKey	   *keys = malloc(sizeof(WsbRoundKey) * (t->nruns > 0 ? t->nruns : 1));
	WsbRoundKey		last[64];		/* per configuration, its latest row */

	if (keys == NULL)
	{
		snprintf(err, errlen, "\"%s\": out of memory", path);
		return false;
	}
	for (int i = 0; i < t->nruns; i++)
	{
		keys[i].round = t->runs[i].round;
		keys[i].config = t->runs[i].config;
		keys[i].at = lines[i];
	}
	/* rows in round order (results.csv's) need no sort: a round's rows
	 * need only be together, each configuration's last one remembered */
	for (int i = 1; i < t->nruns; i++)
		if (keys[i].round < keys[i - 1].round)
		{
			qsort(keys, t->nruns, sizeof(WsbRoundKey), wsb_cmp_round_key);
			break;
		}
	for (int c = 0; c < 64; c++)
		last[c].round = 0;
	for (int i = 0; i < t->nruns; i++)
	{
		WsbRoundKey	   *seen = &last[keys[i].config];

		if (seen->round == keys[i].round)
		{
			snprintf(err, errlen, "\"%s\" line %d: configuration \"%s\" has two rows in round %d "
					 "(the first on line %d)", path, keys[i].at, t->labels[keys[i].config],
					 keys[i].round, seen->at);
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
	int			code;

	ordered.nconfigs = 0;
	if (first && *first && (code = label_index(&ordered, first, true)) < -1)
	{
		label_refused(path, first, code, err, errlen);
		return false;
	}
	for (int c = 0; c < nlabels; c++)
		if ((code = label_index(&ordered, labels[c], true)) < -1)
		{
			label_refused(path, labels[c], code, err, errlen);
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
grow_runs(WsbRoundTable *t, int **lines, double **run_order, int *cap, int ncap)
{
	WsbRoundRun *runs = realloc(t->runs, sizeof(WsbRoundRun) * ncap);
	int		   *nlines;
	double	   *norder;

	if (runs == NULL)
		return false;
	t->runs = runs;
	nlines = realloc(*lines, sizeof(int) * ncap);
	if (nlines == NULL)
		return false;
	*lines = nlines;
	norder = realloc(*run_order, sizeof(double) * ncap);
	if (norder == NULL)
		return false;
	*run_order = norder;
	*cap = ncap;
	return true;
}

/*
 * Read a CSV of runs into t (see the top of this file).  baseline: a label, or
 * NULL/"" for the first configuration in the file.  labels: the
 * configurations in the order to show them ([0] the baseline), NULL for
 * the order of the file.  0, or -1 with err.
 */
int
wsb_round_table_read_csv(const char *path, const char *baseline, const char *const *labels,
						 int nlabels, WsbRoundTable *t, char *err, size_t errlen)
{
	size_t		len;
	char		why[256];
	char	   *text = wsb_read_back(path, WSB_RESULTS_CSV_MAX, &len, why, sizeof(why));
	WsbCsvReader	r;
	CsvColumns	cols;
	char		msg[512];
	char		first[1024] = "";
	int		   *lines = NULL;
	double	   *run_order = NULL;
	int			cap = 0,
				rc;

	memset(t, 0, sizeof(*t));
	t->seed = -1;
	t->margin_pct = NAN;
	if (text == NULL)
	{
		snprintf(err, errlen, "could not read \"%s\": %s", path, why);
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
	if (!grow_runs(t, &lines, &run_order, &cap, cap + 1))
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
		if (t->nruns == cap && !grow_runs(t, &lines, &run_order, &cap, cap * 2))
		{
			snprintf(err, errlen, "\"%s\" line %d: out of memory", path, r.line);
			goto fail;
		}
		memset(&t->runs[t->nruns], 0, sizeof(WsbRoundRun));
		if (!read_run(&r, path, &cols, t, &t->runs[t->nruns], &run_order[t->nruns], err, errlen))
			goto fail;
		/* results.csv says which configuration was the baseline: its runs
		 * run in a balanced order, so the first row need not be one of them */
		if (first[0] == '\0' && parse_bool(wsb_csv_cell(&r, cols.baseline), false))
			wsb_strlcpy(first, t->labels[t->runs[t->nruns].config], sizeof(first));
		lines[t->nruns++] = r.line;
	}
	if (rc < 0)
		goto parse_error;
	use_window_tps(t);
	places_from_run_order(t, run_order);
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
			char		names[400] = "";

			/* the labels, free of control characters (label_index()), as room allows */
			for (int c = 1; c < t->nconfigs; c++)
				if (strlen(names) + strlen(t->labels[c]) + 8 < sizeof(names))
					snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s\"%s\"",
							 c > 1 ? ", " : "", t->labels[c]);
				else
				{
					snprintf(names + strlen(names), sizeof(names) - strlen(names), ", ...");
					break;
				}
			snprintf(err, errlen, "--baseline \"%s\" is not a configuration of \"%s\" (its "
					 "configurations: %s)", baseline, path, names);
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
	free(run_order);
	return 0;
parse_error:
	snprintf(err, errlen, "\"%s\" %s", path, msg);
fail:
	wsb_csv_reader_free(&r);
	free(text);
	free(lines);
	free(run_order);
	wsb_round_table_free(t);
	return -1;
}

/* "round 2 (a failed run), round 5 (...)": the rounds left out. */
void
wsb_left_out_rounds(const WsbRoundTable *t, PQExpBuffer buf)
{
	WsbRoundState *states;
	int			n = wsb_round_states(t->runs, t->nruns, t->nconfigs, &states);
	bool		first = true;

	if (n < 0)
	{
		appendPQExpBufferStr(buf, "(out of memory: the rounds left out are not known)");
		return;
	}
	for (int k = 0; k < n; k++)
	{
		if (states[k].complete)
			continue;
		appendPQExpBuffer(buf, "%sround %d (%s)", first ? "" : ", ",
						  states[k].round, states[k].failed ? "a failed run" : "not every configuration ran");
		first = false;
	}
	free(states);
}
