/*-------------------------------------------------------------------------
 *
 * views.c
 *		SQL-callable functions behind the wal_stall views, and reset.
 *
 * Every function copies what it needs from shared memory under our lock in
 * shared mode, releases it, and builds its rows from the copy: the
 * collector never waits on a reader for longer than a memcpy.
 *
 * The C entry points carry the version of the SQL API they serve
 * (wal_stall_summary_1_0), so that an old extension script keeps working
 * with a newer library.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xlog.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "wal_stall.h"


PG_FUNCTION_INFO_V1(wal_stall_summary_1_0);
PG_FUNCTION_INFO_V1(wal_stall_histogram_1_0);
PG_FUNCTION_INFO_V1(wal_stall_current_1_0);
PG_FUNCTION_INFO_V1(wal_stall_status_1_0);
PG_FUNCTION_INFO_V1(wal_stall_reset_1_0);
PG_FUNCTION_INFO_V1(wal_stall_history_1_0);
PG_FUNCTION_INFO_V1(wal_stall_clog_1_0);

/* What the summary-like functions copy out of shared memory. */
typedef struct StatsCopy
{
	WalStallClassStats classes[WS_NUM_CLASSES];
	WalStallCounters baseline;
	bool		baseline_valid;
	TimestampTz reset_at;
	uint64		hist_base_ns;
	uint64		resolution_ns;	/* mean real time between two samples since reset */
} StatsCopy;

/*
 * copy_stats
 *		Copy the per-class figures, the baseline and the reset time.  Takes
 *		our lock shared.
 */
static void
copy_stats(StatsCopy *copy)
{
	ws_check_loaded();

	LWLockAcquire(ws_shared->lock, LW_SHARED);
	memcpy(copy->classes, ws_shared->classes, sizeof(copy->classes));
	copy->baseline = ws_shared->baseline;
	copy->baseline_valid = ws_shared->baseline_valid;
	copy->reset_at = ws_shared->reset_at;
	copy->hist_base_ns = ws_shared->hist_base_ns;
	copy->resolution_ns = ws_shared->reset_ticks > 0 ?
		ws_shared->reset_elapsed_ns / ws_shared->reset_ticks : ws_shared->interval_ns;
	LWLockRelease(ws_shared->lock);

	/* before the first baseline, no delta is known */
	if (!copy->baseline_valid)
		ws_counters_unknown(&copy->baseline);

	if (copy->resolution_ns == 0)
		copy->resolution_ns = (uint64) (ws_sample_interval_ms * WS_NS_PER_MS);
}

/*
 * histogram_percentile
 *		Estimate a percentile of episode length, in ms, from the histogram.
 *
 * Inside the bucket that holds it, episodes are taken as spread evenly over
 * the widest range around the bucket's mean that stays within the bucket:
 * one-sample episodes all sit near one interval, and spreading them over
 * the whole bucket would report half an interval for a single 1 ms episode.
 * Never above the longest episode seen.  Buckets are powers of two, and so
 * is the worst-case precision.
 */
static double
histogram_percentile(const WalStallClassStats *stats, uint64 base_ns, double fraction)
{
	double		target = fraction * stats->episodes;
	double		cumulative = 0;

	for (int k = 0; k < WS_HIST_BUCKETS; k++)
	{
		double		lower,
					upper,
					mean,
					half_width,
					value;

		if (stats->hist[k] == 0 || cumulative + stats->hist[k] < target)
		{
			cumulative += stats->hist[k];
			continue;
		}
		ws_hist_bounds(k, base_ns, &lower, &upper);
		upper = Min(upper, (double) stats->max_ns);
		mean = (double) stats->hist_ns[k] / stats->hist[k];
		half_width = Max(0.0, Min(mean - lower, upper - mean));
		value = (mean - half_width) +
			2 * half_width * (target - cumulative) / stats->hist[k];
		return Min(value, (double) stats->max_ns) / WS_NS_PER_MS;
	}
	return stats->max_ns / WS_NS_PER_MS;
}

/* Exact counterparts of a class from core: count and time, or -1. */
static void
exact_for_class(WalStallClass cls, const WalStallCounters *now,
				const WalStallCounters *base, int64 *count, double *total_ms)
{
	*count = -1;
	*total_ms = -1;

	switch (cls)
	{
		case WS_CLASS_WAL_BUFFER_FULL:
			*count = ws_count_delta(now->wal_buffers_full, base->wal_buffers_full);
			break;
		case WS_CLASS_WAL_WRITE:
			*count = ws_count_delta(now->wal_write, base->wal_write);
			if (track_wal_io_timing)
				*total_ms = ws_time_delta(now->wal_write_time_ms, base->wal_write_time_ms);
			break;
		case WS_CLASS_WAL_FSYNC:
			*count = ws_count_delta(now->wal_sync, base->wal_sync);
			if (track_wal_io_timing)
				*total_ms = ws_time_delta(now->wal_sync_time_ms, base->wal_sync_time_ms);
			break;
		case WS_CLASS_SLRU_IO:
			{
				int64		reads = ws_count_delta(now->slru_reads, base->slru_reads);
				int64		written = ws_count_delta(now->slru_written, base->slru_written);

				if (reads >= 0 && written >= 0)
					*count = reads + written;
			}
			break;
		default:
			break;
	}
}

#define SUMMARY_COLS 14

/*
 * wal_stall_summary
 *		One row per class: sampled episodes beside core's exact counters.
 */
Datum
wal_stall_summary_1_0(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StatsCopy	copy;
	WalStallCounters now;

	copy_stats(&copy);
	ws_init_materialized_srf(fcinfo);
	ws_read_counters(&now, true);

	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		const WalStallClassStats *s = &copy.classes[c];
		Datum		values[SUMMARY_COLS];
		bool		nulls[SUMMARY_COLS];
		int64		exact_count;
		double		exact_ms;
		bool		none = (s->episodes == 0);

		memset(nulls, 0, sizeof(nulls));
		exact_for_class(c, &now, &copy.baseline, &exact_count, &exact_ms);

		values[0] = CStringGetTextDatum(ws_class_name(c));
		values[1] = CStringGetTextDatum(ws_class_kind(c));
		values[2] = Int64GetDatum(s->episodes);
		values[3] = Int64GetDatum(s->samples);
		values[4] = Float8GetDatum(s->total_ns / WS_NS_PER_MS);
		values[5] = none ? 0 : Float8GetDatum(s->total_ns / WS_NS_PER_MS / s->episodes);
		values[6] = none ? 0 : Float8GetDatum(histogram_percentile(s, copy.hist_base_ns, 0.50));
		values[7] = none ? 0 : Float8GetDatum(histogram_percentile(s, copy.hist_base_ns, 0.95));
		values[8] = none ? 0 : Float8GetDatum(histogram_percentile(s, copy.hist_base_ns, 0.99));
		values[9] = none ? 0 : Float8GetDatum(s->max_ns / WS_NS_PER_MS);
		for (int i = 5; i <= 9; i++)
			nulls[i] = none;
		values[10] = Int64GetDatum(exact_count);
		nulls[10] = exact_count < 0;
		values[11] = Float8GetDatum(exact_ms);
		nulls[11] = exact_ms < 0;
		values[12] = TimestampTzGetDatum(copy.reset_at);
		values[13] = Float8GetDatum(copy.resolution_ns / WS_NS_PER_MS);

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * wal_stall_histogram
 *		The non-empty buckets of every class's episode-length histogram.
 */
Datum
wal_stall_histogram_1_0(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StatsCopy	copy;

	copy_stats(&copy);
	ws_init_materialized_srf(fcinfo);

	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		for (int k = 0; k < WS_HIST_BUCKETS; k++)
		{
			Datum		values[4];
			bool		nulls[4] = {false, false, false, false};
			double		lower,
						upper;

			if (copy.classes[c].hist[k] == 0)
				continue;
			ws_hist_bounds(k, copy.hist_base_ns, &lower, &upper);
			values[0] = CStringGetTextDatum(ws_class_name(c));
			values[1] = Float8GetDatum(lower / WS_NS_PER_MS);
			values[2] = Float8GetDatum(upper / WS_NS_PER_MS);
			nulls[2] = (k == WS_HIST_BUCKETS - 1);	/* open-ended */
			values[3] = Int64GetDatum(copy.classes[c].hist[k]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}

/* pid -> backend type, from this backend's pg_stat_activity snapshot. */
static const char *
backend_type_of(int pid)
{
	int			n = pgstat_fetch_stat_numbackends();

	for (int i = 1; i <= n; i++)
	{
		LocalPgBackendStatus *local = ws_local_beentry(i);

		if (local != NULL && local->backendStatus.st_procpid == pid)
			return GetBackendTypeDesc(local->backendStatus.st_backendType);
	}
	return NULL;
}

/* One wal_stall_current row for an episode of a copied slot. */
static void
put_current_row(ReturnSetInfo *rsinfo, const WalStallProcSlot *slot,
				const WalStallEpisode *episode)
{
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	const char *backend_type = backend_type_of(slot->pid);
	const char *event_type = pgstat_get_wait_event_type(slot->wait_event_info);
	const char *event = pgstat_get_wait_event(slot->wait_event_info);

	values[0] = Int32GetDatum(slot->pid);
	values[1] = backend_type ? CStringGetTextDatum(backend_type) : (Datum) 0;
	nulls[1] = (backend_type == NULL);
	values[2] = CStringGetTextDatum(ws_class_name(ws_episode_class(episode)));
	values[3] = event_type ? CStringGetTextDatum(event_type) : (Datum) 0;
	nulls[3] = (event_type == NULL);
	values[4] = event ? CStringGetTextDatum(event) : (Datum) 0;
	nulls[4] = (event == NULL);
	values[5] = Float8GetDatum(episode->time_ns / WS_NS_PER_MS);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * wal_stall_current
 *		Processes in a tracked wait at the last tick, one row per episode
 *		(a backend doing its own WAL fsync is in a stall and an io episode).
 */
Datum
wal_stall_current_1_0(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WalStallProcSlot *copy;
	int			nslots;
	int			ncopied = 0;

	ws_check_loaded();
	ws_init_materialized_srf(fcinfo);

	nslots = ws_shared->nslots;
	copy = palloc0(sizeof(WalStallProcSlot) * nslots);	/* fault pages in now */
	LWLockAcquire(ws_shared->lock, LW_SHARED);
	for (int i = 0; i < nslots; i++)
	{
		const WalStallProcSlot *slot = &ws_slots[i];

		if (slot->pid != 0 && slot->wait_event_info != 0 &&
			(slot->stall.group != WS_GROUP_NONE || slot->io.group != WS_GROUP_NONE))
			copy[ncopied++] = *slot;
	}
	LWLockRelease(ws_shared->lock);

	for (int i = 0; i < ncopied; i++)
	{
		if (copy[i].stall.group != WS_GROUP_NONE)
			put_current_row(rsinfo, &copy[i], &copy[i].stall);
		if (copy[i].io.group != WS_GROUP_NONE)
			put_current_row(rsinfo, &copy[i], &copy[i].io);
	}
	pfree(copy);
	return (Datum) 0;
}

#define STATUS_COLS 10

/*
 * wal_stall_status
 *		The collector's own figures.  Takes our lock shared.
 */
Datum
wal_stall_status_1_0(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[STATUS_COLS];
	bool		nulls[STATUS_COLS];
	int			pid;
	uint64		interval_ns;
	int64		ticks;
	uint64		cost_ns;
	uint64		max_cost_ns;
	int64		overruns;
	uint64		unobserved_ns;
	TimestampTz started_at;
	TimestampTz reset_at;

	ws_check_loaded();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	LWLockAcquire(ws_shared->lock, LW_SHARED);
	pid = ws_shared->collector_pid;
	interval_ns = ws_shared->interval_ns;
	ticks = ws_shared->ticks;
	cost_ns = ws_shared->tick_cost_ns;
	max_cost_ns = ws_shared->max_tick_cost_ns;
	overruns = ws_shared->overruns;
	unobserved_ns = ws_shared->unobserved_ns;
	started_at = ws_shared->started_at;
	reset_at = ws_shared->reset_at;
	LWLockRelease(ws_shared->lock);

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int32GetDatum(pid);
	nulls[0] = (pid == 0);
	values[1] = Float8GetDatum(interval_ns > 0 ? interval_ns / WS_NS_PER_MS : ws_sample_interval_ms);
	values[2] = Int64GetDatum(ticks);
	values[3] = Float8GetDatum(ticks > 0 ? (double) cost_ns / ticks / 1000.0 : 0);
	nulls[3] = (ticks == 0);
	values[4] = Float8GetDatum(max_cost_ns / 1000.0);
	nulls[4] = (ticks == 0);
	values[5] = Int64GetDatum(overruns);
	values[6] = Int64GetDatum((int64) ws_ring_bytes());
	values[7] = TimestampTzGetDatum(started_at);
	nulls[7] = (started_at == 0);
	values[8] = TimestampTzGetDatum(reset_at);
	values[9] = Float8GetDatum(unobserved_ns / WS_NS_PER_MS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * wal_stall_reset
 *		Zero every figure, the history ring included.  Core counters are not
 *		touched: wal_stall keeps its own baseline of them.
 */
Datum
wal_stall_reset_1_0(FunctionCallInfo fcinfo pg_attribute_unused())
{
	WalStallCounters baseline;

	ws_check_loaded();
	ws_read_counters(&baseline, true);

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	ws_reset_locked(&baseline);
	LWLockRelease(ws_shared->lock);

	PG_RETURN_VOID();
}

#define HISTORY_COLS 17

/* One wal_stall_history row; -1 (unknown) becomes NULL. */
static void
put_history_row(ReturnSetInfo *rsinfo, const WalStallSecond *row)
{
	Datum		values[HISTORY_COLS];
	bool		nulls[HISTORY_COLS];
	int			i = 0;

	memset(nulls, 0, sizeof(nulls));
#define PUT_COUNT(v) (nulls[i] = ((v) < 0), values[i++] = Int64GetDatum(v))
#define PUT_FLOAT(v) (nulls[i] = ((v) < 0), values[i++] = Float8GetDatum(v))
	values[i++] = TimestampTzGetDatum(row->sample_time);
	PUT_COUNT(row->xids);
	PUT_COUNT(row->wal_bytes);
	PUT_FLOAT(row->buffer_fill_max);
	PUT_FLOAT(row->buffer_fill_avg);
	PUT_FLOAT(row->stall_ms[WS_CLASS_WAL_BUFFER_FULL]);
	PUT_FLOAT(row->stall_ms[WS_CLASS_WAL_FLUSH]);
	PUT_FLOAT(row->stall_ms[WS_CLASS_WAL_INSERT]);
	PUT_FLOAT(row->stall_ms[WS_CLASS_CLOG]);
	PUT_FLOAT(row->wal_fsync_max_ms);
	PUT_COUNT(row->wal_buffers_full);
	PUT_COUNT(row->wal_writes);
	PUT_COUNT(row->wal_syncs);
	PUT_FLOAT(row->wal_sync_ms);
	PUT_COUNT(row->clog_hits);
	PUT_COUNT(row->clog_reads);
	PUT_FLOAT(row->waiting_backends);
#undef PUT_COUNT
#undef PUT_FLOAT
	Assert(i <= HISTORY_COLS);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * wal_stall_history(since)
 *		The history ring, oldest row first; with since, only rows after it,
 *		for incremental polling.
 */
Datum
wal_stall_history_1_0(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		have_since = !PG_ARGISNULL(0);
	TimestampTz since = have_since ? PG_GETARG_TIMESTAMPTZ(0) : 0;
	WalStallSecond *rows;
	int			size;
	int			count;
	int			first;
	int			ncopied;

	ws_check_loaded();
	ws_init_materialized_srf(fcinfo);

	/*
	 * palloc0 faults the pages in here, not while we hold the lock the
	 * collector waits on.  The ring is copied newest first, so that a poll
	 * with "since" copies only the rows it returns; sample_time increases
	 * from row to row.
	 */
	size = ws_shared->history_size;
	rows = palloc0(sizeof(WalStallSecond) * Max(size, 1));
	LWLockAcquire(ws_shared->lock, LW_SHARED);
	count = (int) Min(ws_shared->history_rows, (int64) size);
	first = (count < size) ? 0 : ws_shared->history_next;
	ncopied = 0;
	for (int i = count - 1; i >= 0; i--)
	{
		const WalStallSecond *row = &ws_history[(first + i) % size];

		if (have_since && row->sample_time <= since)
			break;
		rows[ncopied++] = *row;
	}
	LWLockRelease(ws_shared->lock);

	for (int i = ncopied - 1; i >= 0; i--)
		put_history_row(rsinfo, &rows[i]);
	pfree(rows);
	return (Datum) 0;
}

#define CLOG_COLS 12

/*
 * wal_stall_clog
 *		One row on the CLOG since the last reset: its buffers, the SLRU's
 *		exact counters, and the sampled lock and I/O waits.
 */
Datum
wal_stall_clog_1_0(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	StatsCopy	copy;
	WalStallCounters now;
	const WalStallCounters *base = &copy.baseline;
	const WalStallClassStats *lock;
	Datum		values[CLOG_COLS];
	bool		nulls[CLOG_COLS];
	int64		hits,
				reads;

	copy_stats(&copy);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	ws_read_counters(&now, true);
	lock = &copy.classes[WS_CLASS_CLOG];

	memset(nulls, 0, sizeof(nulls));
	hits = ws_count_delta(now.clog_hits, base->clog_hits);
	reads = ws_count_delta(now.clog_reads, base->clog_reads);
	values[0] = Int32GetDatum(ws_clog_buffers());
	values[1] = Int64GetDatum(hits);
	values[2] = Int64GetDatum(reads);
	values[3] = Float8GetDatum(hits + reads > 0 ? (double) hits / (hits + reads) : 0);
	nulls[3] = (hits < 0 || reads < 0 || hits + reads == 0);
	values[4] = Int64GetDatum(ws_count_delta(now.clog_zeroed, base->clog_zeroed));
	values[5] = Int64GetDatum(ws_count_delta(now.clog_written, base->clog_written));
	values[6] = Int64GetDatum(ws_count_delta(now.clog_flushes, base->clog_flushes));
	values[7] = Int64GetDatum(lock->episodes);
	values[8] = Float8GetDatum(lock->total_ns / WS_NS_PER_MS);
	values[9] = Float8GetDatum(lock->episodes > 0 ?
							   histogram_percentile(lock, copy.hist_base_ns, 0.99) : 0);
	nulls[9] = (lock->episodes == 0);
	values[10] = Float8GetDatum(copy.classes[WS_CLASS_SLRU_IO].total_ns / WS_NS_PER_MS);
	values[11] = TimestampTzGetDatum(copy.reset_at);
	/* counts not known (no baseline yet, or core's were reset) are NULL */
	for (int i = 1; i <= 6; i++)
	{
		if (i != 3 && DatumGetInt64(values[i]) < 0)
			nulls[i] = true;
	}

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
