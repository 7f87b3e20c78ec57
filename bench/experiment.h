/*-------------------------------------------------------------------------
 *
 * experiment.h
 *		wal_stall_bench: an experiment across invocations (experiment.c):
 *		the plan as text, --resume, the budget's looks, --judge.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_EXPERIMENT_H
#define WSB_EXPERIMENT_H

#include "wsb.h"

/*
 * Seconds a run takes beyond its --duration: CHECKPOINT, the resets, the
 * 1.5 s pause before reading the views, the reads; about 4-6 s measured on
 * this 2-core machine (restarts for postmaster settings come on top).
 */
#define WSB_RUN_OVERHEAD_S 6.0

/*
 * WAL made ahead on a slowed disk (wsb_wal_segments_ahead): the segment
 * size initdb gives by default (the harness does not change it), the slack
 * added to a run's seconds (the restart, the CHECKPOINT), the write rate
 * assumed per I/O when only IOPS are limited (PostgreSQL writes WAL in
 * runs of pages the block layer splits into I/Os of at most this), and a
 * cap well inside the 4 GB WAL disk.
 */
#define WSB_WAL_SEGMENT_MB 16
#define WSB_WAL_AHEAD_SLACK_S 10
#define WSB_WAL_AHEAD_IO_KB 256
#define WSB_WAL_AHEAD_MAX 64

typedef struct WsbResume
{
	char	   *results_text;	/* DIR/results.csv as found */
	int			rounds_done;	/* its highest round */
	int			runs_done;
} WsbResume;

struct PQExpBufferData;
extern void wsb_plan_text(const WsbOptions *o, const WsbPlan *plan, struct PQExpBufferData *buf);
extern int	wsb_resume_prepare(WsbOptions *o, bool margin_given, char *err, size_t errlen);
extern int	wsb_resume_check(const WsbOptions *o, const WsbPlan *plan, char *err, size_t errlen);
extern int	wsb_resume_load(const WsbOptions *o, const WsbPlan *plan, WsbResume *r,
							char *err, size_t errlen);
extern int	wsb_write_results_continued(const char *path, const char *old_text,
										const WsbPlan *plan, const WsbRun *runs, int nruns);
extern int	wsb_budget_looks(const WsbOptions *o, int nconfigs);
extern void wsb_spending_text(int nlooks, int looks_done, struct PQExpBufferData *buf);
extern int	wsb_short_runs(const WsbPlan *plan, const WsbRun *runs, int nruns, int duration,
						   struct PQExpBufferData *buf, double *needed_s);
extern int	wsb_judge_only(const WsbOptions *o, bool margin_given);
extern int	wsb_wal_segments_ahead(const WsbOptions *o);
extern int	wsb_lengthened_duration(double needed_s, int duration, int warmup, int nconfigs,
									double left_s);

#endif							/* WSB_EXPERIMENT_H */
