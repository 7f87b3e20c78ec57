/*-------------------------------------------------------------------------
 *
 * answer.h
 *		wal_stall_bench: the answer (answer.c): one sentence made from the
 *		judged verdicts, the limit and the conditions of the runs, what the
 *		terminal's last lines and the top of report.html say.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_ANSWER_H
#define WSB_ANSWER_H

#include <stddef.h>

#include "wsb.h"
#include "verdict.h"

/* The conditions the runs ran under, as far as they are known. */
typedef struct WsbAnswerConditions
{
	int			slow_wal_iops;	/* --slow-wal: 0 not throttled, -1 unknown */
	double		slow_wal_mbps;	/* the cap on pg_wal's writes: 0 none */
	char		held[512];		/* settings every configuration ran with that
								 * bear on commits ("synchronous_commit = off"),
								 * "" none (wsb_answer_held) */
	double		wal_mb_per_s[64];	/* per configuration: the median of its runs'
									 * WAL written per second, NAN unknown */
	bool		charted_wal_rate;	/* report.html's timeline has the panel
									 * "WAL written, MB/s" */
	bool		charted_fsync;	/* ... and "longest WAL fsync, ms" */
} WsbAnswerConditions;

/* the answer is at most this long, its terminating zero included */
#define WSB_ANSWER_MAX 2048

extern void wsb_answer_conditions_init(WsbAnswerConditions *cond);
extern void wsb_answer_conditions_of_runs(const WsbOptions *o, const WsbPlan *plan,
										  const WsbRun *runs, int nruns, bool charted,
										  WsbAnswerConditions *cond);
extern const char *wsb_setting_risk(const char *name, const char *value);
extern void wsb_answer_held(const char *conf_lines, char *buf, size_t len);
extern void wsb_answer_text(const WsbVerdicts *vs, const WsbAnswerConditions *cond,
							char *buf, size_t len);
extern void wsb_answer_html(FILE *f, const char *answer);

#endif							/* WSB_ANSWER_H */
