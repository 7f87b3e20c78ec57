/*-------------------------------------------------------------------------
 *
 * counters.h
 *		Core's counters, the WAL ring, checkpoint positions (counters.c).
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_COUNTERS_H
#define WAL_STALL_COUNTERS_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"

/*
 * Core counters read once a second (and at reset): pg_stat_wal, the CLOG row
 * and the sum of all rows of pg_stat_slru, the XID counter and the WAL
 * position.  A counter core does not have on this version stays -1 and is
 * shown as NULL.  The *_reset_at fields are core's own stats_reset times of
 * the rows the counters come from: a difference of two readings means
 * something only when they are equal (ws_counters_delta()).
 */
typedef struct WalStallCounters
{
	TimestampTz wal_reset_at;	/* pg_stat_wal (and pg_stat_io's on 18) */
	TimestampTz clog_reset_at;	/* the CLOG row of pg_stat_slru */
	TimestampTz slru_reset_at;	/* the latest of all pg_stat_slru rows */
	TimestampTz ckpt_reset_at;	/* checkpoint counts (compat.h) */
	int64		wal_fpi;
	int64		ckpt_timed;
	int64		ckpt_requested;
	int64		wal_buffers_full;
	int64		wal_write;
	int64		wal_sync;
	double		wal_write_time_ms;
	double		wal_sync_time_ms;
	int64		clog_zeroed;
	int64		clog_hits;
	int64		clog_reads;
	int64		clog_written;
	int64		clog_flushes;
	int64		slru_reads;		/* every SLRU, like the slru_io class */
	int64		slru_written;
	uint64		next_xid;		/* full transaction id counter */
	XLogRecPtr	insert_lsn;		/* the replay position during recovery */
} WalStallCounters;

extern void ws_read_counters(WalStallCounters *counters, bool with_stats);
extern void ws_counters_unknown(WalStallCounters *counters);
extern void ws_counters_delta(const WalStallCounters *now,
							  const WalStallCounters *before,
							  WalStallCounters *delta);
extern XLogRecPtr ws_wal_position(bool in_recovery);
extern XLogRecPtr ws_checkpoint_started_redo(void);
extern XLogRecPtr ws_checkpoint_done_redo(void);
extern double ws_ring_occupancy(XLogRecPtr insert, XLogRecPtr write);
extern uint64 ws_ring_bytes(void);

#endif							/* WAL_STALL_COUNTERS_H */
