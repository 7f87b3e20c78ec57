/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every PostgreSQL version difference wal_stall depends on (13-19).
 *
 * Nothing but version shims lives here; the rest of the code calls these
 * and never tests PG_VERSION_NUM itself.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_COMPAT_H
#define WAL_STALL_COMPAT_H

#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/proc.h"
#include "utils/guc.h"

/*
 * Backend status and wait events: utils/backend_status.h and
 * utils/wait_event.h from 14; pgstat.h itself declares both in 13.  The .c
 * files include neither header and get them from here.
 */
#if PG_VERSION_NUM >= 140000
#include "utils/backend_status.h"
#include "utils/wait_event.h"
#endif

/* GetXLogReplayRecPtr() moved to access/xlogrecovery.h in 15. */
#if PG_VERSION_NUM >= 150000
#include "access/xlogrecovery.h"
#else
#include "access/xlog.h"
#endif

/*
 * PG_TEMP_FILES_DIR and PG_TEMP_FILE_PREFIX, the directory and prefix of the
 * files the server removes from its temporary directories at start:
 * storage/fd.h before 17, common/file_utils.h from 17 (a frontend-only
 * header before: not earlier).
 */
#if PG_VERSION_NUM >= 170000
#include "common/file_utils.h"
#else
#include "storage/fd.h"
#endif

/*
 * Shared memory is requested from shmem_request_hook in 15+, and directly
 * from _PG_init before that.
 */
#if PG_VERSION_NUM >= 150000
#define WS_HAVE_SHMEM_REQUEST_HOOK 1
#endif

#if PG_VERSION_NUM < 150000
#define MarkGUCPrefixReserved(prefix) EmitWarningsOnPlaceholders(prefix)
#endif

/*
 * Is another process inside its commit?  RecordTransactionCommit() delays
 * checkpoints from just before the commit record until after the commit is
 * in CLOG, its XLogFlush() included: DELAY_CHKPT_START in
 * PGPROC.delayChkptFlags in 15-18, the bool PGPROC.delayChkpt in 13 and 14
 * (in PGPROC since 13.7 and 14.3; read in 13.23, 15.20 and 18.6).  One
 * aligned word, read without a lock: a stale value costs a sample.
 */
#if PG_VERSION_NUM >= 150000
#define ws_proc_in_commit(proc) \
	((*((volatile int *) &(proc)->delayChkptFlags) & DELAY_CHKPT_START) != 0)
#else
#define ws_proc_in_commit(proc) (*((volatile bool *) &(proc)->delayChkpt))
#endif

/*
 * Materialized SRF set-up: InitMaterializedSRF (16+), SetSingleFuncCall
 * (15: 15.0 has only that name; 15.1+ has both), and the tuplestore built
 * by hand before that, as SetSingleFuncCall does it.
 */
#if PG_VERSION_NUM < 150000
#include "utils/tuplestore.h"
#endif

static inline void
ws_init_materialized_srf(FunctionCallInfo fcinfo)
{
#if PG_VERSION_NUM >= 160000
	InitMaterializedSRF(fcinfo, 0);
#elif PG_VERSION_NUM >= 150000
	SetSingleFuncCall(fcinfo, 0);
#else
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext per_query;
	MemoryContext old;
	TupleDesc	tupdesc;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		(rsinfo->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	per_query = rsinfo->econtext->ecxt_per_query_memory;
	old = MemoryContextSwitchTo(per_query);
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = tuplestore_begin_heap(true, false, work_mem);
	rsinfo->setDesc = CreateTupleDescCopy(tupdesc);
	MemoryContextSwitchTo(old);
#endif
}

/*
 * pg_stat_slru rows by name and by index: pgstat_slru_index() and
 * pgstat_slru_name() before 15, renamed pgstat_get_slru_index() and
 * pgstat_get_slru_name() in 15.  The name of an index past the last row is
 * NULL in every version.
 */
#if PG_VERSION_NUM < 150000
#define pgstat_get_slru_index(name) pgstat_slru_index(name)
#define pgstat_get_slru_name(idx) pgstat_slru_name(idx)
#endif

/*
 * Before 15, statistics live in the stats collector's file, and reading
 * them can sleep for seconds while the file is rewritten: more than the
 * wal_stall collector's loop can afford.  There only backends read them, so
 * the history's core columns are NULL and exact_* need a wal_stall_reset()
 * to get their first baseline.
 */
#if PG_VERSION_NUM >= 150000
#define WS_COLLECTOR_READS_STATS true
#else
#define WS_COLLECTOR_READS_STATS false
#endif

/* Name of the CLOG row of pg_stat_slru. */
#if PG_VERSION_NUM >= 170000
#define WS_CLOG_SLRU_NAME "transaction"
#else
#define WS_CLOG_SLRU_NAME "Xact"
#endif

/*
 * Number of CLOG buffers: Min(128, Max(4, NBuffers / 512)) before 17, where
 * only shared_buffers decides it.  From 17 CLOGShmemBuffers() is static in
 * clog.c; it sizes the CLOG from the transaction_buffers GUC (miscadmin.h),
 * which CLOGShmemInit() sets to its automatic value in the postmaster when
 * it is 0, so every process sees the value in use.  The GUC accepts up to
 * SLRU_MAX_ALLOWED_BUFFERS, but CLOGShmemBuffers() caps it at clog.c's
 * CLOG_MAX_ALLOWED_BUFFERS (copied here), and so do we.
 */
#if PG_VERSION_NUM >= 170000
#include "access/slru.h"
#include "access/transam.h"
#define WS_CLOG_MAX_ALLOWED_BUFFERS \
	Min(SLRU_MAX_ALLOWED_BUFFERS, \
		(int) (((MaxTransactionId / 2) + (BLCKSZ * 4 - 1)) / (BLCKSZ * 4)))
#define ws_clog_buffers() \
	((int) Min(Max(16, transaction_buffers), WS_CLOG_MAX_ALLOWED_BUFFERS))
#define ws_clog_buffers_max() ((int) WS_CLOG_MAX_ALLOWED_BUFFERS)
#else
#include "access/clog.h"
#define ws_clog_buffers() ((int) CLOGShmemBuffers())
/* CLOGShmemBuffers()'s own cap, reached from 512MB of shared_buffers */
#define ws_clog_buffers_max() 128
#endif

/*
 * pg_stat_wal counters.  The view exists from 14; 18 moved the write and
 * sync counts and times to pg_stat_io (object wal), which an extension
 * reads through pgstat_fetch_stat_io().  pg_stat_wal's wal_write and
 * wal_sync counted XLogWrite()'s writes and issue_xlog_fsync()'s syncs
 * only: in pg_stat_io those are context normal, while segment creation
 * (WALInitWrite, WALInitSync) is context init, which pg_stat_wal never
 * counted and neither do we.  Times are microseconds in both (and only
 * gathered with track_wal_io_timing).  Each version sets the fields it has
 * and leaves the rest at -1.
 */
typedef struct WsWalCounters
{
	TimestampTz reset_at;		/* core's stats_reset of these counters, 0 */
	int64		fpi;			/* full-page images */
	int64		buffers_full;
	int64		write;
	int64		sync;
	double		write_time_ms;
	double		sync_time_ms;
} WsWalCounters;

static inline void
ws_fetch_wal_counters(WsWalCounters *out)
{
	out->reset_at = 0;
	out->fpi = -1;
	out->buffers_full = -1;
	out->write = -1;
	out->sync = -1;
	out->write_time_ms = -1;
	out->sync_time_ms = -1;
#if PG_VERSION_NUM >= 180000
	{
		PgStat_WalStats *wal = pgstat_fetch_stat_wal();
		PgStat_IO  *io = pgstat_fetch_stat_io();
		PgStat_BktypeIO *bk;
		int64		writes = 0,
					syncs = 0;
		double		write_us = 0,
					sync_us = 0;

		/* a reset of either view voids the deltas */
		out->reset_at = Max(wal->stat_reset_timestamp, io->stat_reset_timestamp);
		out->fpi = wal->wal_counters.wal_fpi;
		out->buffers_full = wal->wal_counters.wal_buffers_full;
		for (int b = 0; b < BACKEND_NUM_TYPES; b++)
		{
			bk = &io->stats[b];
			writes += bk->counts[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_WRITE];
			syncs += bk->counts[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_FSYNC];
			write_us += bk->times[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_WRITE];
			sync_us += bk->times[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_FSYNC];
		}
		out->write = writes;
		out->sync = syncs;
		out->write_time_ms = write_us / 1000.0;
		out->sync_time_ms = sync_us / 1000.0;
	}
#elif PG_VERSION_NUM >= 140000
	{
		PgStat_WalStats *wal = pgstat_fetch_stat_wal();

		out->reset_at = wal->stat_reset_timestamp;
		out->fpi = wal->wal_fpi;
		out->buffers_full = wal->wal_buffers_full;
		out->write = wal->wal_write;
		out->sync = wal->wal_sync;
		/* core keeps these in microseconds */
		out->write_time_ms = wal->wal_write_time / 1000.0;
		out->sync_time_ms = wal->wal_sync_time / 1000.0;
	}
#endif
}

/*
 * Checkpoints counted by core, by what asked for them: pg_stat_bgwriter's
 * checkpoints_timed and checkpoints_req (13-16), pg_stat_checkpointer's
 * num_timed and num_requested (17+).  A checkpoint forced by WAL volume
 * (max_wal_size) counts as requested.  The checkpointer publishes them
 * after the checkpoint, or for a spread one also while it runs.  Reset
 * with pg_stat_reset_shared('bgwriter') before 17, 'checkpointer' after.
 * Before 15 the collector reads no statistics (WS_COLLECTOR_READS_STATS),
 * so they are left unknown there.
 */
typedef struct WsCheckpointCounts
{
	TimestampTz reset_at;
	int64		timed;
	int64		requested;
} WsCheckpointCounts;

static inline void
ws_fetch_checkpoint_counts(WsCheckpointCounts *out)
{
	out->reset_at = 0;
	out->timed = -1;
	out->requested = -1;
#if PG_VERSION_NUM >= 170000
	{
		PgStat_CheckpointerStats *ckpt = pgstat_fetch_stat_checkpointer();

		out->reset_at = ckpt->stat_reset_timestamp;
		out->timed = ckpt->num_timed;
		out->requested = ckpt->num_requested;
	}
#elif PG_VERSION_NUM >= 150000
	{
		PgStat_CheckpointerStats *ckpt = pgstat_fetch_stat_checkpointer();

		/* the bgwriter's reset time covers both: they are reset together */
		out->reset_at = pgstat_fetch_stat_bgwriter()->stat_reset_timestamp;
		out->timed = ckpt->timed_checkpoints;
		out->requested = ckpt->requested_checkpoints;
	}
#endif
}

/*
 * track_wal_io_timing (access/xlog.h) arrived in 14 with pg_stat_wal's
 * times; 13 has neither, so it is never on there.
 */
#if PG_VERSION_NUM < 140000
#define track_wal_io_timing false
#endif

/*
 * Backend status of the i-th entry (1-based) of this backend's local
 * snapshot, as pg_stat_activity reads it.
 */
#if PG_VERSION_NUM >= 160000
#define ws_local_beentry(i) pgstat_get_local_beentry_by_index(i)
#else
#define ws_local_beentry(i) pgstat_fetch_stat_local_beentry(i)
#endif

/*
 * Alignment of buffers for direct I/O: PG_IO_ALIGN_SIZE from 16; before,
 * the 4kB that covers every sector and memory page size in use.
 */
#if PG_VERSION_NUM < 160000
#define PG_IO_ALIGN_SIZE 4096
#endif

/* Nanoseconds in an instr_time interval: INSTR_TIME_GET_NANOSEC from 16. */
#if PG_VERSION_NUM >= 160000
#define ws_instr_time_ns(t) ((uint64) INSTR_TIME_GET_NANOSEC(t))
#else
#define ws_instr_time_ns(t) ((uint64) (INSTR_TIME_GET_DOUBLE(t) * 1000000000.0))
#endif

/* fdatasync(): 16 assumes it everywhere; configure probed for it before. */
#if PG_VERSION_NUM >= 160000 || defined(HAVE_FDATASYNC)
#define WS_HAVE_FDATASYNC 1
#endif

/*
 * The query id of the top-level statement this backend runs, as
 * pg_stat_activity.query_id shows it: core reports it from 14 on; 13
 * computes none of its own.
 */
#if PG_VERSION_NUM >= 140000
#define ws_my_query_id() pgstat_get_my_query_id()
#else
#define ws_my_query_id() UINT64CONST(0)
#endif

/*
 * Executor and utility hook arguments: ExecutorRun lost execute_once in 18;
 * ProcessUtility gained readOnlyTree in 14.  Parameter lists and the
 * matching argument lists, for hooks that pass them on.
 */
#if PG_VERSION_NUM >= 180000
#define WS_EXECUTOR_RUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count
#define WS_EXECUTOR_RUN_ARGS queryDesc, direction, count
#else
#define WS_EXECUTOR_RUN_PARAMS \
	QueryDesc *queryDesc, ScanDirection direction, uint64 count, bool execute_once
#define WS_EXECUTOR_RUN_ARGS queryDesc, direction, count, execute_once
#endif

#if PG_VERSION_NUM >= 140000
#define WS_PROCESS_UTILITY_PARAMS \
	PlannedStmt *pstmt, const char *queryString, bool readOnlyTree, \
	ProcessUtilityContext context, ParamListInfo params, \
	QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc
#define WS_PROCESS_UTILITY_ARGS \
	pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc
#else
#define WS_PROCESS_UTILITY_PARAMS \
	PlannedStmt *pstmt, const char *queryString, \
	ProcessUtilityContext context, ParamListInfo params, \
	QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc
#define WS_PROCESS_UTILITY_ARGS \
	pstmt, queryString, context, params, queryEnv, dest, qc
#endif

/*
 * A compile-time check of a variable's type, as a statement:
 * AssertVariableIsOfType() before 19; 19 renamed it
 * StaticAssertVariableIsOfType() and made that a declaration (which
 * -Wdeclaration-after-statement refuses mid-block), with
 * StaticAssertVariableIsOfTypeMacro() as its expression form.
 */
#if PG_VERSION_NUM >= 190000
#define ws_assert_variable_is_of_type(varname, typename) \
	((void) StaticAssertVariableIsOfTypeMacro(varname, typename))
#else
#define ws_assert_variable_is_of_type(varname, typename) \
	AssertVariableIsOfType(varname, typename)
#endif

/* The pg_read_all_stats role: DEFAULT_ROLE_READ_ALL_STATS before 14. */
#if PG_VERSION_NUM < 140000
#define ROLE_PG_READ_ALL_STATS DEFAULT_ROLE_READ_ALL_STATS
#endif

#endif							/* WAL_STALL_COMPAT_H */
