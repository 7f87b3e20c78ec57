/*-------------------------------------------------------------------------
 *
 * counters.c
 *		Exact core counters and WAL-buffer occupancy.
 *
 * Core counters (pg_stat_wal, the CLOG row of pg_stat_slru) are published by
 * each backend at most once a second and only when it goes idle, so a read
 * can lag what happened by a second or two.  The collector reads them once
 * a second, for each history row, never per tick.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/lwlock.h"

#include "compat.h"
#include "counters.h"
#include "wal_stall.h"

/* Index of the CLOG row in pg_stat_slru's array, found on first use. */
static int	clog_slru_index = -1;

/*
 * ws_counters_unknown
 *		Mark every statistics counter as not known (-1, shown as NULL).
 */
void
ws_counters_unknown(WalStallCounters *counters)
{
	counters->wal_reset_at = 0;
	counters->clog_reset_at = 0;
	counters->slru_reset_at = 0;
	counters->ckpt_reset_at = 0;
	counters->wal_fpi = -1;
	counters->ckpt_timed = -1;
	counters->ckpt_requested = -1;
	counters->wal_buffers_full = -1;
	counters->wal_write = -1;
	counters->wal_sync = -1;
	counters->wal_write_time_ms = -1;
	counters->wal_sync_time_ms = -1;
	counters->clog_zeroed = -1;
	counters->clog_hits = -1;
	counters->clog_reads = -1;
	counters->clog_written = -1;
	counters->clog_flushes = -1;
	counters->slru_reads = -1;
	counters->slru_written = -1;
}

/*
 * ws_wal_position
 *		Where WAL is: the insert position, or during recovery, where no WAL
 *		is inserted and the insert position means nothing, the replay
 *		position.
 */
XLogRecPtr
ws_wal_position(bool in_recovery)
{
	return in_recovery ? GetXLogReplayRecPtr(NULL) : GetXLogInsertRecPtr();
}

/*
 * ws_read_counters
 *		Read the exact counters wal_stall shows beside its estimates.
 *
 * With with_stats false, only the XID counter and the WAL position are read
 * and the statistics counters are marked unknown (see
 * WS_COLLECTOR_READS_STATS).  The collector runs no transaction and drops
 * its cached statistics first; a backend reads them through its
 * transaction's statistics snapshot, as the pg_stat views do
 * (stats_fetch_consistency).  wal_stall_reset() clears that snapshot
 * before it calls this, so that its baseline is current.
 */
void
ws_read_counters(WalStallCounters *counters, bool with_stats)
{
	WsWalCounters wal;
	WsCheckpointCounts ckpt;
	PgStat_SLRUStats *slrus;
	PgStat_SLRUStats *clog;

	counters->next_xid = U64FromFullTransactionId(ReadNextFullTransactionId());
	counters->insert_lsn = ws_wal_position(RecoveryInProgress());
	if (!with_stats)
	{
		ws_counters_unknown(counters);
		return;
	}

	if (!IsTransactionState())
		pgstat_clear_snapshot();

	ws_fetch_wal_counters(&wal);
	counters->wal_reset_at = wal.reset_at;
	counters->wal_fpi = wal.fpi;
	counters->wal_buffers_full = wal.buffers_full;
	counters->wal_write = wal.write;
	counters->wal_sync = wal.sync;
	counters->wal_write_time_ms = wal.write_time_ms;
	counters->wal_sync_time_ms = wal.sync_time_ms;

	ws_fetch_checkpoint_counts(&ckpt);
	counters->ckpt_reset_at = ckpt.reset_at;
	counters->ckpt_timed = ckpt.timed;
	counters->ckpt_requested = ckpt.requested;

	if (clog_slru_index < 0)
		clog_slru_index = pgstat_get_slru_index(WS_CLOG_SLRU_NAME);
	slrus = pgstat_fetch_slru();
	clog = &slrus[clog_slru_index];
	counters->clog_reset_at = clog->stat_reset_timestamp;
	counters->clog_zeroed = clog->blocks_zeroed;
	counters->clog_hits = clog->blocks_hit;
	counters->clog_reads = clog->blocks_read;
	counters->clog_written = clog->blocks_written;
	counters->clog_flushes = clog->flush;

	counters->slru_reset_at = 0;
	counters->slru_reads = 0;
	counters->slru_written = 0;
	for (int i = 0; pgstat_get_slru_name(i) != NULL; i++)
	{
		counters->slru_reset_at = Max(counters->slru_reset_at,
									  slrus[i].stat_reset_timestamp);
		counters->slru_reads += slrus[i].blocks_read;
		counters->slru_written += slrus[i].blocks_written;
	}
}

/*
 * How much a core counter grew between two readings of the same run of
 * core's statistics; -1 (NULL) when either reading is unknown, or when
 * core's statistics were reset in between: then the two readings count from
 * different origins and their difference means nothing, even when it looks
 * plausible.
 */
static int64
count_delta(int64 now, int64 before, bool same_origin)
{
	if (!same_origin || now < 0 || before < 0 || now < before)
		return -1;
	return now - before;
}

static double
time_delta(double now, double before, bool same_origin)
{
	if (!same_origin || now < 0 || before < 0 || now < before)
		return -1;
	return now - before;
}

/*
 * ws_counters_delta
 *		Every statistics counter's growth from before to now (see
 *		count_delta).  The XID counter and the WAL position are left to the
 *		caller.
 */
void
ws_counters_delta(const WalStallCounters *now, const WalStallCounters *before,
				  WalStallCounters *delta)
{
	bool		wal = now->wal_reset_at == before->wal_reset_at;
	bool		clog = now->clog_reset_at == before->clog_reset_at;
	bool		slru = now->slru_reset_at == before->slru_reset_at;
	bool		ckpt = now->ckpt_reset_at == before->ckpt_reset_at;

	memset(delta, 0, sizeof(*delta));
	delta->wal_reset_at = now->wal_reset_at;
	delta->clog_reset_at = now->clog_reset_at;
	delta->slru_reset_at = now->slru_reset_at;
	delta->ckpt_reset_at = now->ckpt_reset_at;
	delta->wal_fpi = count_delta(now->wal_fpi, before->wal_fpi, wal);
	delta->ckpt_timed = count_delta(now->ckpt_timed, before->ckpt_timed, ckpt);
	delta->ckpt_requested = count_delta(now->ckpt_requested, before->ckpt_requested, ckpt);
	delta->wal_buffers_full = count_delta(now->wal_buffers_full, before->wal_buffers_full, wal);
	delta->wal_write = count_delta(now->wal_write, before->wal_write, wal);
	delta->wal_sync = count_delta(now->wal_sync, before->wal_sync, wal);
	delta->wal_write_time_ms = time_delta(now->wal_write_time_ms, before->wal_write_time_ms, wal);
	delta->wal_sync_time_ms = time_delta(now->wal_sync_time_ms, before->wal_sync_time_ms, wal);
	delta->clog_zeroed = count_delta(now->clog_zeroed, before->clog_zeroed, clog);
	delta->clog_hits = count_delta(now->clog_hits, before->clog_hits, clog);
	delta->clog_reads = count_delta(now->clog_reads, before->clog_reads, clog);
	delta->clog_written = count_delta(now->clog_written, before->clog_written, clog);
	delta->clog_flushes = count_delta(now->clog_flushes, before->clog_flushes, clog);
	delta->slru_reads = count_delta(now->slru_reads, before->slru_reads, slru);
	delta->slru_written = count_delta(now->slru_written, before->slru_written, slru);
}

/*
 * ws_checkpoint_started_redo
 *		The redo pointer of the latest checkpoint (or restartpoint) begun:
 *		it moves when one starts.  GetRedoRecPtr() reads core's copy in
 *		shared memory under a spinlock.
 */
XLogRecPtr
ws_checkpoint_started_redo(void)
{
	return GetRedoRecPtr();
}

/*
 * ws_checkpoint_done_redo
 *		The redo pointer pg_control records, which moves when a checkpoint
 *		(or restartpoint) completes: while it differs from the one begun, a
 *		checkpoint is running.
 *
 * No major exports the completed checkpoint's redo pointer on its own, and
 * core's shared statistics count checkpoints without saying when one ends.
 * GetOldestRestartPoint() gives it from pg_control's copy in shared memory:
 * two loads under ControlFileLock held shared, no file I/O of ours and
 * nothing that can raise an error (reading the file, as
 * pg_control_checkpoint() does, could).  The caller reads it only while
 * the redo pointer begun differs from the last one seen completed, so on a
 * server between checkpoints the lock is not taken at all.
 */
XLogRecPtr
ws_checkpoint_done_redo(void)
{
	XLogRecPtr	redo;
	TimeLineID	tli;

	GetOldestRestartPoint(&redo, &tli);
	return redo;
}

/* Size of the WAL buffer ring in bytes. */
uint64
ws_ring_bytes(void)
{
	return (uint64) XLOGbuffers * XLOG_BLCKSZ;
}

/*
 * ws_ring_occupancy
 *		WAL not yet written, as a fraction of the ring.
 *
 * Above 1 while inserters have reserved space they cannot copy into yet.
 */
double
ws_ring_occupancy(XLogRecPtr insert, XLogRecPtr write)
{
	uint64		ring = ws_ring_bytes();

	if (ring == 0 || insert <= write)
		return 0.0;
	return (double) (insert - write) / (double) ring;
}
