/*-------------------------------------------------------------------------
 *
 * figures.h
 *		wal_stall_bench: reading a run's figures back (figures.c), for the
 *		output files, the report, --validate's comparison and the verdicts.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_FIGURES_H
#define WSB_FIGURES_H

#include "wsb.h"

/* wal_stall_summary's classes, in the view's order */
extern const char *const wsb_classes[];
#define WSB_N_CLASSES 7
/* the first of them are the classes a client waits in */
#define WSB_N_CLIENT_CLASSES 4

/* NAN where the row, the column or the value is absent */
extern double wsb_summary_rows_value(const WsbRows *summary, const char *class,
									 const char *column);
extern double wsb_summary_value(const WsbRun *run, const char *class, const char *column);
extern double wsb_longest_stall_ms(const WsbRun *run);
extern double wsb_first_row_value(const WsbRows *rows, const char *column);
extern double wsb_rows_sum(const WsbRows *rows, const char *column);
extern const WsbRun **wsb_runs_in_order(const WsbRun *runs, int nruns);	/* malloc'd */
extern const char *wsb_config_label(const WsbPlan *plan, int c);

/* One second of a run: the pgbench second and/or the history row in it. */
typedef struct WsbJoinRow
{
	int64_t		epoch;
	int			pg;				/* index into per_second, -1 if none */
	int			hist;			/* history row, -1 if none */
} WsbJoinRow;

/* the pgbench second a history row of that sample_epoch is joined to */
extern int64_t wsb_history_second(double sample_epoch);
extern int	wsb_join_run(const WsbRun *run, WsbJoinRow **out);

#endif							/* WSB_FIGURES_H */
