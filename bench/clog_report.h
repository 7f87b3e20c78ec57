/*-------------------------------------------------------------------------
 *
 * clog_report.h
 *		wal_stall_bench: the CLOG by buffer count, the 2011 question
 *		(clog_report.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_CLOG_REPORT_H
#define WSB_CLOG_REPORT_H

#include <stdio.h>
#include "wsb.h"
#include "verdict.h"

/* whether the experiment is about the CLOG: an aged table, or its size varied */
extern bool wsb_clog_wanted(const WsbOptions *opts, const WsbPlan *plan);
/* clog.csv: a row per run; 0 or -1 */
extern int	wsb_clog_write_csv(const char *path, const WsbPlan *plan, const WsbRun *runs, int nruns);
/* the table and the tipping-point sentence on the terminal */
extern void wsb_clog_print(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns,
						   const WsbVerdicts *verdicts);
/* the same in report.html, with the chart drawn into plotdir */
extern void wsb_clog_html(FILE *f, const char *plotdir, const WsbPlan *plan, const WsbRun *runs,
						  int nruns, const WsbEnvironment *env, const WsbVerdicts *verdicts);

/*
 * --judge DIR of a CLOG experiment: the section again from the text of its
 * clog.csv (path names it in errors), the tps verdicts those just judged;
 * on the terminal, and in report.html.  0, or -1 with err and nothing
 * written when a cell is not what the run writes.
 */
extern int	wsb_clog_judge_print(FILE *f, const char *path, const char *text, size_t len,
								 const WsbVerdicts *verdicts, char *err, size_t errlen);
extern int	wsb_clog_judge_html(FILE *f, const char *plotdir, const char *path, const char *text,
								size_t len, const WsbVerdicts *verdicts, char *err, size_t errlen);

#endif							/* WSB_CLOG_REPORT_H */
