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
/* --judge DIR: the table and the sentence again, from its ring.csv; 0 or -1 */
extern int	wsb_ring_judge_print(FILE *f, const char *path, const WsbVerdicts *verdicts,
								 char *err, size_t errlen);
/* the same in report.html, with the chart drawn into plotdir */
extern void wsb_ring_html(FILE *f, const char *plotdir, const WsbPlan *plan, const WsbRun *runs,
						  int nruns, const WsbVerdicts *verdicts);

#endif							/* WSB_RING_REPORT_H */
