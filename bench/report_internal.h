/*-------------------------------------------------------------------------
 *
 * report_internal.h
 *		wal_stall_bench: what the output files share.  csv.c (results.csv,
 *		timeline.csv, and reading a run's figures), chart.c (gnuplot) and
 *		report.c (report.html, the terminal table) use these; nothing else
 *		does.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_REPORT_INTERNAL_H
#define WSB_REPORT_INTERNAL_H

#include "wsb.h"

/* ---------- csv.c: a run's figures ---------- */

/* wal_stall_summary's classes, in the view's order */
extern const char *const wsb_classes[];
#define WSB_N_CLASSES 7

extern double wsb_summary_value(const WsbRun *run, const char *class, const char *column);
extern double wsb_first_row_value(const WsbRows *rows, const char *column);
extern void wsb_iso8601_utc(time_t t, char *buf, size_t len);
extern const WsbRun **wsb_runs_in_order(const WsbRun *runs, int nruns);	/* malloc'd */
extern const char *wsb_config_label(const WsbPlan *plan, int c);
extern void wsb_html_escape(FILE *f, const char *s);

/* One second of a run: the pgbench second and/or the history row in it. */
typedef struct WsbJoinRow
{
	int64_t		epoch;
	int			pg;				/* index into per_second, -1 if none */
	int			hist;			/* history row, -1 if none */
} WsbJoinRow;

extern int	wsb_join_run(const WsbRun *run, WsbJoinRow **out);

/* ---------- chart.c ---------- */

extern const char *wsb_config_colour(int c);
extern int	wsb_draw_charts(const char *plotdir, const WsbPlan *plan, const WsbRun *runs,
							int nruns, char *left_out, size_t lolen, bool *ckpt,
							char *why, size_t whylen);
extern int	wsb_paste_svg(FILE *f, const char *path);
extern bool wsb_find_gnuplot(char *why, size_t len);
extern int	wsb_run_gnuplot(const char *dir, const char *script, char *why, size_t len);
extern void wsb_gp_string(FILE *f, const char *s);
extern void wsb_gp_number(FILE *f, double v);

#endif							/* WSB_REPORT_INTERNAL_H */
