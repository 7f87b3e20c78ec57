/*-------------------------------------------------------------------------
 *
 * ring_report.h
 *		wal_stall_bench: wal_buffers by size, the 2012 question
 *		(ring_report.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_RING_REPORT_H
#define WSB_RING_REPORT_H

#include <stdio.h>
#include "wsb.h"
#include "verdict.h"

/* whether the experiment sweeps wal_buffers: three sizes or more */
extern bool wsb_ring_wanted(const WsbPlan *plan);
/* ring.csv: a row per configuration, by size; 0 or -1 */
extern int	wsb_ring_write_csv(const char *path, const WsbPlan *plan, const WsbRun *runs, int nruns,
							   const WsbVerdicts *verdicts);
/* the table and the tipping-point sentence on the terminal */
extern void wsb_ring_print(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns,
						   const WsbVerdicts *verdicts);
/* the same in report.html, with the chart drawn into plotdir */
extern void wsb_ring_html(FILE *f, const char *plotdir, const WsbPlan *plan, const WsbRun *runs,
						  int nruns, const WsbVerdicts *verdicts);

/*
 * --judge DIR of a sweep: the section again from the text of its ring.csv
 * (path names it in errors), the tps verdicts those just judged; on the
 * terminal, and in report.html.  0, or -1 with err and nothing written
 * when a cell is not what the run writes.
 */
extern int	wsb_ring_judge_print(FILE *f, const char *path, const char *text, size_t len,
								 const WsbVerdicts *verdicts, char *err, size_t errlen);
extern int	wsb_ring_judge_html(FILE *f, const char *plotdir, const char *path, const char *text,
								size_t len, const WsbVerdicts *verdicts, char *err, size_t errlen);

#endif							/* WSB_RING_REPORT_H */
