/*-------------------------------------------------------------------------
 *
 * validate.h
 *		wal_stall_bench --validate: a bpftrace program beside every traced
 *		run, and the comparison of its exact sums with wal_stall's sampled
 *		figures.
 *
 * The pure parts (validate.c: the program's text, the parser of bpftrace's
 * output, the classification of processes, the comparison; csv.c and
 * report_validate.c: results.csv's columns and the tables) are unit tested
 * in test_unit_validate.c; the tracer's process (tracer.c: start, wait
 * until its probes are attached, stop) needs root and a server.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WSB_VALIDATE_H
#define WSB_VALIDATE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "wsb.h"

/* Sums of one process, as the bpftrace program prints them at its exit. */
typedef struct WsbTracePid
{
	int			pid;
	int64_t		lock_ns,
				lock_n;			/* WAL lock waits outside the two below */
	int64_t		flush_ns,
				flush_n;		/* XLogFlush, outermost */
	int64_t		dirty_ns,
				dirty_n;		/* wal__buffer__write__dirty__start..done */
	int64_t		write_ns,
				write_n;		/* pwrite/pwritev inside the WAL write path */
	int64_t		sync_ns,
				sync_n;			/* fdatasync/fsync inside it */
	int64_t		client;			/* 1: entered PostgresMain or ParallelWorkerMain */
	int64_t		insert_ns,
				insert_n;		/* XLogInsertRecord calls of WSB_TRACE_WAIT_US or more */
	int64_t		flushw_ns,
				flushw_n;		/* XLogFlush calls (outermost) of as long */
} WsbTracePid;

/*
 * A call of XLogInsertRecord or XLogFlush shorter than this is CPU, not a
 * wait: copying a record, even a full-page image, takes a few microseconds,
 * and the shortest LWLock wait (sleep on a semaphore, wake up) takes tens;
 * the uprobe pair itself adds a few.
 */
#define WSB_TRACE_WAIT_US	50

typedef struct WsbTrace
{
	int			npids;
	int			cap;
	WsbTracePid *pids;
	bool		ended;			/* the END marker was seen: sums complete */
	int			bad_lines;
} WsbTrace;

/* pid -> pg_stat_activity.backend_type, learnt during the run */
typedef struct WsbBackendTypes
{
	int			n;
	int			cap;
	int		   *pids;
	char	  (*types)[40];
} WsbBackendTypes;

#define WSB_TRACE_READY "wsb_validate ready"
#define WSB_TRACE_END	"wsb_validate end"

/* ---------- validate.c: pure ---------- */

extern bool wsb_validate_traced(const WsbOptions *o, int config, int repeat);
extern bool wsb_plain_path(const char *path);
extern char *wsb_validate_program(const char *postgres, const char *libc);	/* malloc'd, or NULL */
extern bool wsb_maps_libc(const char *maps, char *path, size_t len);
extern int	wsb_trace_parse(const char *text, WsbTrace *trace);
extern void wsb_trace_free(WsbTrace *trace);
extern void wsb_backends_note(WsbBackendTypes *bt, int pid, const char *type);
extern const char *wsb_backends_type(const WsbBackendTypes *bt, int pid);
extern void wsb_backends_free(WsbBackendTypes *bt);
extern void wsb_trace_classify(const WsbTrace *trace, const WsbBackendTypes *bt,
							   WsbValidation *v);
extern void wsb_validate_compare(WsbValidation *v, const WsbRows *summary, const WsbRows *wal,
								 const WsbRows *history);
extern double wsb_validate_side_ratio(double sampled_ms, double traced_ms);
extern int	wsb_validate_config(const WsbRun *runs, int nruns, int config,
								WsbValidation *sum, double *tps_traced, double *tps_untraced);
extern double wsb_validate_overall_cost(const WsbPlan *plan, const WsbRun *runs, int nruns);
extern bool wsb_validate_any(const WsbRun *runs, int nruns);

/* ---------- written out: results.csv's columns (csv.c), the tables (report_validate.c) ---------- */

extern void wsb_validate_csv_header(FILE *f);
extern void wsb_validate_csv_row(FILE *f, const WsbRun *run);
extern void wsb_validate_print(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns);
extern void wsb_validate_html(FILE *f, const WsbPlan *plan, const WsbRun *runs, int nruns);

/* ---------- tracer.c: needs root, bpftrace and a server ---------- */

typedef struct WsbTracer WsbTracer;

extern int	wsb_validate_check(const WsbOptions *o, char *err, size_t errlen);
extern WsbTracer *wsb_tracer_start(const WsbOptions *o, const char *workdir, int order,
								   int backend_pid, char *err, size_t errlen);
extern void wsb_tracer_note(WsbTracer *tr, const WsbRows *activity);
extern int	wsb_tracer_stop(WsbTracer *tr, WsbValidation *v, char *err, size_t errlen);

#endif							/* WSB_VALIDATE_H */
