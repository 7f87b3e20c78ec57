/*-------------------------------------------------------------------------
 *
 * report_internal.h
 *		wal_stall_bench: what the report's parts share: chart.c's charts
 *		(gnuplot), which report.c pastes into report.html and forest.c
 *		draws the verdict's plots with.  A run's figures are read back
 *		through figures.h, which this header brings along.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_REPORT_INTERNAL_H
#define WSB_REPORT_INTERNAL_H

#include "figures.h"

/* ---------- chart.c ---------- */

extern const char *wsb_config_colour(int c);
extern int	wsb_draw_charts(const char *plotdir, const WsbPlan *plan, const WsbOptions *opts,
							const WsbEnvironment *env, const WsbRun *runs, int nruns,
							char *left_out, size_t lolen, bool *ckpt, char *why, size_t whylen);
extern void wsb_timeline_wal_panels(const WsbRun *runs, int nruns, bool *wal_rate, bool *fsync);
extern int	wsb_paste_svg(FILE *f, const char *path);
extern void wsb_html_sweep_chart(FILE *f, const char *plotdir, const char *svg, int drawn,
								 const char *why, const char *what, const char *caption);
extern int	wsb_paste_svg_image(FILE *f, const char *path, const char *alt);
extern bool wsb_find_gnuplot(char *why, size_t len);
extern int	wsb_run_gnuplot(const char *dir, const char *script, char *why, size_t len);
extern void wsb_gp_string(FILE *f, const char *s);
extern void wsb_gp_sweep_axes(FILE *gp, const char *svg, const char *xlabel, const char *ylabel);
extern void wsb_gp_number(FILE *f, double v);

#endif							/* WSB_REPORT_INTERNAL_H */
