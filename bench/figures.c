/*-------------------------------------------------------------------------
 *
 * figures.c
 *		wal_stall_bench: reading a run's figures back, for every output and
 *		for the verdicts (figures.h).
 *
 * A run keeps what it read from the server as rows of text (WsbRows, one
 * per view); here a figure is looked up in them by class and column, the
 * runs are put in run order, and pgbench's seconds are joined with the
 * history rows by second (timeline.csv and the timeline chart).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"

const char *const wsb_classes[WSB_N_CLASSES] = {
	"wal_buffer_full", "wal_flush", "wal_insert", "clog",
	"wal_write", "wal_fsync", "slru_io"
};

/* A column of the summary row of one class; NAN when absent or NULL. */
double
wsb_summary_rows_value(const WsbRows *summary, const char *class, const char *column)
{
	for (int r = 0; r < summary->nrows; r++)
	{
		const char *cl = wsb_rows_get(summary, r, "class");

		if (cl != NULL && strcmp(cl, class) == 0)
			return wsb_rows_double(summary, r, column, NAN);
	}
	return NAN;
}

/* The same, of a run's wal_stall_summary rows. */
double
wsb_summary_value(const WsbRun *run, const char *class, const char *column)
{
	return wsb_summary_rows_value(&run->summary, class, column);
}

/*
 * The longest single wait of a run in a class a client stalls in (the
 * first four of wsb_classes: the writer's and the probes' classes are not
 * a client's wait), ms: 0 for a class the summary counts no episode of
 * (its max_ms is NULL then); NAN when the summary has none of them.
 */
double
wsb_longest_stall_ms(const WsbRun *run)
{
	double		longest = NAN;

	for (int k = 0; k < WSB_N_CLIENT_CLASSES; k++)
	{
		double		ms = wsb_summary_value(run, wsb_classes[k], "max_ms");

		if (isnan(ms) && wsb_summary_value(run, wsb_classes[k], "episodes") == 0)
			ms = 0;

		if (!isnan(ms) && (isnan(longest) || ms > longest))
			longest = ms;
	}
	return longest;
}

/* A column of the first row of a one-row result; NAN when absent. */
double
wsb_first_row_value(const WsbRows *rows, const char *column)
{
	if (rows->nrows < 1 || wsb_rows_col(rows, column) < 0)
		return NAN;
	return wsb_rows_double(rows, 0, column, NAN);
}

/* The sum of a column over the rows (a NULL cell counts 0); NAN without rows. */
double
wsb_rows_sum(const WsbRows *rows, const char *column)
{
	double		sum = 0;

	if (rows == NULL || rows->nrows == 0)
		return NAN;
	for (int i = 0; i < rows->nrows; i++)
		sum += wsb_rows_double(rows, i, column, 0);
	return sum;
}

static int
cmp_run_order(const void *a, const void *b)
{
	const WsbRun *x = *(const WsbRun *const *) a;
	const WsbRun *y = *(const WsbRun *const *) b;

	return (x->order > y->order) - (x->order < y->order);
}

/* The runs sorted by their position in the run order (caller frees). */
const WsbRun **
wsb_runs_in_order(const WsbRun *runs, int nruns)
{
	const WsbRun **v = malloc(sizeof(*v) * (nruns > 0 ? nruns : 1));

	if (v == NULL)
		return NULL;
	for (int i = 0; i < nruns; i++)
		v[i] = &runs[i];
	qsort(v, nruns, sizeof(*v), cmp_run_order);
	return v;
}

const char *
wsb_config_label(const WsbPlan *plan, int c)
{
	if (c < 0 || c >= plan->nconfigs)
		return "?";
	return plan->configs[c].label;
}

/* ---------------------------------------------------------------------
 * The per-second join of pgbench and wal_stall_history
 * --------------------------------------------------------------------- */

static int
cmp_join_row(const void *a, const void *b)
{
	const WsbJoinRow *x = a;
	const WsbJoinRow *y = b;

	if (x->epoch != y->epoch)
		return (x->epoch > y->epoch) - (x->epoch < y->epoch);
	return (x->hist > y->hist) - (x->hist < y->hist);
}

/*
 * The pgbench second a history row of sample_epoch T overlaps most: the
 * row covers (T - 1, T], pgbench's second e counts [e, e + 1).
 */
int64_t
wsb_history_second(double sample_epoch)
{
	return (int64_t) llround(sample_epoch - 1.0);
}

/*
 * Join a run's pgbench seconds and history rows by second.  A pgbench
 * second e counts transactions that ended in [e, e + 1); a history row
 * covers the second that ends at its sample_time T (its sample_epoch, the
 * Unix time the server gave with it), (T - 1, T], which
 * overlaps most with pgbench's second round(T - 1): that is its key.  The
 * collector's ticks jitter, so two rows can round to one second; the later
 * one then takes the next second (the rows are ordered).  Seconds present
 * on only one side are kept.  Returns the number of rows (*out is
 * malloc'd), sorted by second; -1 when out of memory.
 */
int
wsb_join_run(const WsbRun *run, WsbJoinRow **out)
{
	int			cap = run->nseconds + run->history.nrows;
	WsbJoinRow    *rows = malloc(sizeof(WsbJoinRow) * (cap > 0 ? cap : 1));
	int			n = 0;
	int64_t		prev_key = INT64_MIN;
	int			tcol = wsb_rows_col(&run->history, "sample_epoch");

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
	qsort(rows, n, sizeof(WsbJoinRow), cmp_join_row);

	for (int h = 0; tcol >= 0 && h < run->history.nrows; h++)
	{
		double		t;
		int64_t		key;
		int			lo = 0,
					hi = run->nseconds - 1;
		bool		matched = false;

		const char *cell = run->history.cells[h][tcol];
		char	   *end;

		if (cell == NULL || (t = strtod(cell, &end), end == cell))
			continue;
		key = wsb_history_second(t);
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
	qsort(rows, n, sizeof(WsbJoinRow), cmp_join_row);
	return n;
}
