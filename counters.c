/*-------------------------------------------------------------------------
 *
 * counters.c
 *		Exact core counters and WAL-buffer occupancy.
 *
 * Core counters (pg_stat_wal, the CLOG row of pg_stat_slru) are published by
 * each backend at most once a second and only when it goes idle, so a read
 * can lag what happened by a second or two.  The collector reads them once
 * a second, never per tick.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "pgstat.h"

#include "compat.h"
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
 * ws_read_counters
 *		Read the exact counters wal_stall shows beside its estimates.
 *
 * With with_stats false, only the XID counter and the insert LSN are read
 * and the statistics counters are marked unknown (see
 * WS_COLLECTOR_READS_STATS).  Clears this process's statistics snapshot
 * first, so that the figures are current even inside a transaction that has
 * read statistics before.
 */
void
ws_read_counters(WalStallCounters *counters, bool with_stats)
{
	WsWalCounters wal;
	PgStat_SLRUStats *slrus;
	PgStat_SLRUStats *clog;

	counters->next_xid = U64FromFullTransactionId(ReadNextFullTransactionId());
	counters->insert_lsn = GetXLogInsertRecPtr();
	if (!with_stats)
	{
		ws_counters_unknown(counters);
		return;
	}

	/*
	 * The collector runs no transaction, so nothing else would drop its
	 * cached copy.  A backend keeps the snapshot its transaction asked for
	 * (stats_fetch_consistency), as the pg_stat views do.
	 */
	if (!IsTransactionState())
		pgstat_clear_snapshot();

	ws_fetch_wal_counters(&wal);
	counters->wal_buffers_full = wal.buffers_full;
	counters->wal_write = wal.write;
	counters->wal_sync = wal.sync;
	counters->wal_write_time_ms = wal.write_time_ms;
	counters->wal_sync_time_ms = wal.sync_time_ms;

	if (clog_slru_index < 0)
		clog_slru_index = pgstat_get_slru_index(WS_CLOG_SLRU_NAME);
	slrus = pgstat_fetch_slru();
	clog = &slrus[clog_slru_index];
	counters->clog_zeroed = clog->blocks_zeroed;
	counters->clog_hits = clog->blocks_hit;
	counters->clog_reads = clog->blocks_read;
	counters->clog_written = clog->blocks_written;
	counters->clog_flushes = clog->flush;

	counters->slru_reads = 0;
	counters->slru_written = 0;
	for (int i = 0; pgstat_get_slru_name(i) != NULL; i++)
	{
		counters->slru_reads += slrus[i].blocks_read;
		counters->slru_written += slrus[i].blocks_written;
	}
}

/*
 * ws_count_delta, ws_time_delta
 *		How much a core counter grew; -1 (NULL) when either reading is
 *		unknown or the counter went backwards (core's statistics were reset
 *		in between).
 */
int64
ws_count_delta(int64 now, int64 before)
{
	if (now < 0 || before < 0 || now < before)
		return -1;
	return now - before;
}

double
ws_time_delta(double now, double before)
{
	if (now < 0 || before < 0 || now < before)
		return -1;
	return now - before;
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
