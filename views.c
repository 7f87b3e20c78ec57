/*-------------------------------------------------------------------------
 *
 * views.c
 *		SQL-callable functions behind the wal_stall views, and reset.
 *
 * Every function copies what it needs from shared memory under our lock in
 * shared mode, releases it, and builds its rows from the copy: the
 * collector never waits on a reader for longer than a memcpy.  The history
 * ring (up to a day of rows, 16MB) is copied in batches of HISTORY_BATCH
 * rows, the lock released between them, so that no reader holds it for
 * more than about a tenth of a millisecond of copying
 * (bench/history_copy_hold.sh measures the hold).
 *
 * One C entry point per SQL function.  A later version that changes a
 * function's row type adds an entry point for it (wal_stall_summary_1_1)
 * and keeps this one for the scripts of earlier versions (CONTRIBUTING.md,
 * "A new version").
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/lwlock.h"
#include "postmaster/bgwriter.h"
#include "postmaster/walwriter.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/tuplestore.h"

#include "advice.h"
#include "classify.h"
#include "compat.h"
#include "counters.h"
#include "histogram.h"
#include "result_row.h"
#include "shared_state.h"
#include "wal_stall.h"


PG_FUNCTION_INFO_V1(wal_stall_summary);
PG_FUNCTION_INFO_V1(wal_stall_histogram);
PG_FUNCTION_INFO_V1(wal_stall_current);
PG_FUNCTION_INFO_V1(wal_stall_status);
PG_FUNCTION_INFO_V1(wal_stall_reset);
PG_FUNCTION_INFO_V1(wal_stall_history);
PG_FUNCTION_INFO_V1(wal_stall_clog);
PG_FUNCTION_INFO_V1(wal_stall_advice);
PG_FUNCTION_INFO_V1(wal_stall_advice_figures);
PG_FUNCTION_INFO_V1(wal_stall_advice_pooled);

#define HISTORY_COLS	24
#define STATUS_COLS		14
#define SUMMARY_COLS	16
StaticAssertDecl(HISTORY_COLS <= WS_ROW_MAX_COLS,
				 "a ResultRow holds the widest row");

/* The row type the caller declared must be the one the function builds. */
static void
check_natts(TupleDesc tupdesc, int expected)
{
	if (tupdesc->natts != expected)
		elog(ERROR, "incorrect number of output arguments: %d, expected %d",
			 tupdesc->natts, expected);
}

/* What the summary-like functions copy out of shared memory. */
typedef struct StatsCopy
{
	WalStallClassStats classes[WS_NUM_CLASSES];
	WalStallCounters baseline;
	bool		baseline_valid;
	TimestampTz reset_at;
	uint64		hist_base_ns;
	uint64		resolution_ns;	/* mean real time between two full-rate
								 * samples since reset */
	double		interval_weighted[WS_NUM_CLASSES];	/* as in WalStallFigures */
	int64		episodes_counted[WS_NUM_CLASSES];	/* as in WalStallFigures */
	int64		episodes_var[WS_NUM_CLASSES];	/* as in WalStallFigures */
	bool		sampled;		/* a collector sampled since the reset, or runs */
	bool		timing_on;		/* track_wal_io_timing on all along, known */
} StatsCopy;

/*
 * warn_if_no_collector
 *		A view read while no collector runs must not look like a quiet
 *		server: say so once per call.
 */
static void
warn_if_no_collector(int collector_pid, bool sampled)
{
	if (collector_pid != 0)
		return;
	ereport(WARNING,
			(errmsg("wal_stall collector is not running"),
			 sampled ?
			 errdetail("The figures shown were gathered before it stopped.") :
			 errdetail("Nothing was sampled since the last reset: sampled figures are NULL."),
			 errhint("Look for its exit in the server log; if it could not start, raise \"max_worker_processes\". It is restarted a second after it exits.")));
}

/*
 * copy_stats
 *		Copy the per-class figures, the baseline and the reset time.  Takes
 *		our lock shared.
 */
static void
copy_stats(StatsCopy *copy)
{
	int			collector_pid;

	ws_check_loaded();

	LWLockAcquire(ws_shared->lock, LW_SHARED);
	memcpy(copy->classes, ws_shared->figures.classes, sizeof(copy->classes));
	copy->baseline = ws_shared->figures.baseline;
	copy->baseline_valid = ws_shared->figures.baseline_valid;
	copy->reset_at = ws_shared->figures.reset_at;
	copy->hist_base_ns = ws_shared->figures.hist_base_ns;
	memcpy(copy->interval_weighted, ws_shared->figures.interval_weighted,
		   sizeof(copy->interval_weighted));
	memcpy(copy->episodes_counted, ws_shared->figures.episodes_counted,
		   sizeof(copy->episodes_counted));
	memcpy(copy->episodes_var, ws_shared->figures.episodes_var,
		   sizeof(copy->episodes_var));

	/*
	 * Episodes are followed at the sampling interval: an open episode stops
	 * the collector from resting, and the sample that ends a rest enters
	 * durations as one interval (cadence.c).  So the resolution of a class
	 * that was sampled is the mean interval of its samples, weighted by their
	 * time (class_resolution_ms()); of one that was not, the mean interval
	 * between samples that did not end a rest.  The rests of an idle
	 * server, up to wal_stall.idle_interval long, say nothing about it.
	 */
	copy->resolution_ns = ws_shared->figures.reset_full_rate_ticks > 0 ?
		ws_shared->figures.reset_full_rate_ns / ws_shared->figures.reset_full_rate_ticks :
		ws_shared->sample_interval_ns;
	collector_pid = ws_shared->collector_pid;
	copy->sampled = collector_pid != 0 || ws_shared->figures.reset_ticks > 0;
	copy->timing_on = copy->sampled && !ws_shared->figures.timing_off_seen;
	LWLockRelease(ws_shared->lock);

	warn_if_no_collector(collector_pid, copy->sampled);

	/* before the first baseline, no delta is known */
	if (!copy->baseline_valid)
		ws_counters_unknown(&copy->baseline);

	if (copy->resolution_ns == 0)
		copy->resolution_ns = (uint64) (ws_sample_interval_ms * WS_NS_PER_MS);
}

/*
 * exact_for_class
 *		Exact counterparts of a class from core's counters' growth since the
 *		reset: count and time, or -1 (NULL).  A time is known only if the
 *		server measured it all along (track_wal_io_timing), whatever the
 *		calling session's own setting.
 */
static void
exact_for_class(WalStallClass cls, const WalStallCounters *delta, bool timing_on,
				int64 *count, double *total_ms)
{
	*count = -1;
	*total_ms = -1;

	switch (cls)
	{
		case WS_CLASS_WAL_BUFFER_FULL:
			*count = delta->wal_buffers_full;
			break;
		case WS_CLASS_WAL_WRITE:
			*count = delta->wal_write;
			*total_ms = timing_on ? delta->wal_write_time_ms : -1;
			break;
		case WS_CLASS_WAL_FSYNC:
			*count = delta->wal_sync;
			*total_ms = timing_on ? delta->wal_sync_time_ms : -1;
			break;
		case WS_CLASS_SLRU_IO:
			if (delta->slru_reads >= 0 && delta->slru_written >= 0)
				*count = delta->slru_reads + delta->slru_written;
			break;
		default:
			break;
	}
}

/*
 * The resolution of a class's figures, in ms: the sampling interval of its
 * samples, weighted by their time; for a class never sampled, the mean
 * interval of the samples that did not end a rest.
 */
static double
class_resolution_ms(const StatsCopy *copy, int cls)
{
	const WalStallClassStats *s = &copy->classes[cls];

	if (s->total_ns == 0 || copy->interval_weighted[cls] <= 0)
		return copy->resolution_ns / WS_NS_PER_MS;
	return copy->interval_weighted[cls] / (double) s->total_ns / WS_NS_PER_MS;
}

/*
 * wal_stall_summary
 *		One row per class: sampled episodes beside core's exact counters.
 *		Sampled figures are NULL when nothing was sampled since the reset
 *		(no collector ran), and the per-episode figures when no episode was
 *		seen.
 */
Datum
wal_stall_summary(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StatsCopy	copy;
	WalStallCounters now;
	WalStallCounters delta;

	copy_stats(&copy);
	ws_init_materialized_srf(fcinfo);
	check_natts(rsinfo->setDesc, SUMMARY_COLS);
	ws_read_counters(&now, true);
	ws_counters_delta(&now, &copy.baseline, &delta);

	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		const WalStallClassStats *s = &copy.classes[c];
		ResultRow	row = {.ncols = 0};
		int64		exact_count;
		double		exact_ms;

		exact_for_class(c, &delta, copy.timing_on, &exact_count, &exact_ms);

		put_text(&row, ws_class_name(c));
		put_text(&row, ws_class_kind(c));
		/* episodes, samples, total_ms, then the per-episode figures */
		if (!copy.sampled)
		{
			for (int k = 0; k < 8; k++)
				put_null(&row);
		}
		else
		{
			put_int64(&row, s->episodes);
			put_int64(&row, s->samples);
			put_float8(&row, s->total_ns / WS_NS_PER_MS);
			if (s->episodes == 0)
			{
				/*
				 * no episode counted, the per-episode figures unknown; the
				 * longest seen still is (in a burst cycle an episode may be
				 * seen and count none)
				 */
				for (int k = 0; k < 4; k++)
					put_null(&row);
				if (s->max_ns > 0)
					put_float8(&row, s->max_ns / WS_NS_PER_MS);
				else
					put_null(&row);
			}
			else
			{
				put_float8(&row, s->total_ns / WS_NS_PER_MS / s->episodes);
				put_float8(&row, ws_histogram_percentile(s, copy.hist_base_ns, 0.50));
				put_float8(&row, ws_histogram_percentile(s, copy.hist_base_ns, 0.95));
				put_float8(&row, ws_histogram_percentile(s, copy.hist_base_ns, 0.99));
				put_float8(&row, s->max_ns / WS_NS_PER_MS);
			}
		}
		put_int64(&row, exact_count);
		put_float8(&row, exact_ms);
		put_datum(&row, TimestampTzGetDatum(copy.reset_at), false);
		if (copy.sampled)
			put_float8(&row, class_resolution_ms(&copy, c));
		else
			put_null(&row);

		/*
		 * An episode counted in a burst stands for w episodes (its count
		 * weight), so that episodes is then an estimate: say how many were
		 * counted one by one, and the estimate's standard error (0 while
		 * every episode is counted).  NULL where episodes is.
		 */
		if (copy.sampled)
		{
			put_int64(&row, copy.episodes_counted[c]);
			put_float8(&row, sqrt((double) copy.episodes_var[c]));
		}
		else
		{
			put_null(&row);
			put_null(&row);
		}
		Assert(row.ncols == SUMMARY_COLS);

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row.values, row.nulls);
	}
	return (Datum) 0;
}

#define HISTOGRAM_COLS 4

/*
 * wal_stall_histogram
 *		The non-empty buckets of every class's episode-length histogram.
 */
Datum
wal_stall_histogram(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StatsCopy	copy;

	copy_stats(&copy);
	ws_init_materialized_srf(fcinfo);

	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		for (int k = 0; k < WS_HIST_BUCKETS; k++)
		{
			ResultRow	row = {.ncols = 0};
			double		lower,
						upper;

			if (copy.classes[c].hist[k] == 0)
				continue;
			ws_hist_bounds(k, copy.hist_base_ns, &lower, &upper);
			put_text(&row, ws_class_name(c));
			put_datum(&row, Float8GetDatum(lower / WS_NS_PER_MS), false);
			/* the last bucket is open-ended */
			put_datum(&row, Float8GetDatum(upper / WS_NS_PER_MS), k == WS_HIST_BUCKETS - 1);
			put_datum(&row, Int64GetDatum(copy.classes[c].hist[k]), false);
			Assert(row.ncols == HISTOGRAM_COLS);

			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row.values, row.nulls);
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

#define CURRENT_COLS 6

/* One wal_stall_current row for an episode of a copied slot. */
static void
put_current_row(ReturnSetInfo *rsinfo, const WalStallProcSlot *slot,
				const WalStallEpisode *episode)
{
	ResultRow	row = {.ncols = 0};

	put_datum(&row, Int32GetDatum(slot->pid), false);
	put_text(&row, backend_type_of(slot->pid));
	put_text(&row, ws_class_name((WalStallClass) episode->cls));
	put_text(&row, pgstat_get_wait_event_type(slot->wait_event_info));
	put_text(&row, pgstat_get_wait_event(slot->wait_event_info));
	put_datum(&row, Float8GetDatum(episode->wait_ns / WS_NS_PER_MS), false);
	Assert(row.ncols == CURRENT_COLS);

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row.values, row.nulls);
}

/*
 * wal_stall_current
 *		Processes in a tracked wait at the last tick, one row per episode
 *		(a backend doing its own WAL fsync is in a stall and an io episode).
 */
Datum
wal_stall_current(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WalStallProcSlot *copy;
	int			nslots;
	int			ncopied = 0;
	int			collector_pid;

	ws_check_loaded();
	ws_init_materialized_srf(fcinfo);

	nslots = ws_shared->nslots;
	copy = palloc0(sizeof(WalStallProcSlot) * nslots);	/* fault pages in now */
	LWLockAcquire(ws_shared->lock, LW_SHARED);
	collector_pid = ws_shared->collector_pid;
	/* without a collector the slots tell what was, not what is */
	for (int i = 0; collector_pid != 0 && i < nslots; i++)
	{
		const WalStallProcSlot *slot = &ws_slots[i];

		if (slot->pid != 0 && slot->wait_event_info != 0 &&
			(slot->stall.group != WS_GROUP_NONE || slot->io.group != WS_GROUP_NONE))
			copy[ncopied++] = *slot;
	}
	LWLockRelease(ws_shared->lock);
	warn_if_no_collector(collector_pid, false);

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

/*
 * wal_stall_status
 *		The collector's own figures.  Takes our lock shared.
 */
Datum
wal_stall_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	ResultRow	row = {.ncols = 0};
	WalStallShared copy;

	ws_check_loaded();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	check_natts(tupdesc, STATUS_COLS);

	LWLockAcquire(ws_shared->lock, LW_SHARED);
	copy = *ws_shared;
	LWLockRelease(ws_shared->lock);

	/* collector_pid, in_recovery, current_interval_ms: NULL with no collector */
	put_datum(&row, Int32GetDatum(copy.collector_pid), copy.collector_pid == 0);
	put_float8(&row, copy.sample_interval_ns > 0 ? copy.sample_interval_ns / WS_NS_PER_MS : ws_sample_interval_ms);
	put_int64(&row, copy.ticks);
	if (copy.ticks > 0)
	{
		put_float8(&row, (double) copy.tick_cost_ns / copy.ticks / 1000.0);
		put_float8(&row, copy.max_tick_cost_ns / 1000.0);
	}
	else
	{
		put_null(&row);
		put_null(&row);
	}
	put_int64(&row, copy.overruns);
	put_int64(&row, (int64) ws_ring_bytes());
	put_datum(&row, TimestampTzGetDatum(copy.started_at), copy.started_at == 0);
	put_datum(&row, TimestampTzGetDatum(copy.figures.reset_at), false);
	put_float8(&row, copy.unobserved_ns / WS_NS_PER_MS);
	put_datum(&row, BoolGetDatum(copy.in_recovery), copy.collector_pid == 0);
	if (copy.collector_pid != 0)
		put_float8(&row, copy.current_interval_ns / WS_NS_PER_MS);
	else
		put_null(&row);
	put_float8(&row, copy.rest_ns / WS_NS_PER_MS);
	put_int64(&row, copy.figures.query_evictions);
	Assert(row.ncols == STATUS_COLS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, row.values, row.nulls)));
}

/*
 * wal_stall_reset
 *		Zero every figure, the history ring included.  Core counters are not
 *		touched: wal_stall keeps its own baseline of them.
 */
Datum
wal_stall_reset(FunctionCallInfo fcinfo pg_attribute_unused())
{
	WalStallCounters baseline;

	ws_check_loaded();

	/*
	 * The baseline must be current even inside a transaction that has read
	 * statistics before: drop its snapshot, as pg_stat_clear_snapshot()
	 * does, so that the reads below see core's counters as they are now.
	 */
	pgstat_clear_snapshot();
	ws_read_counters(&baseline, true);

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	ws_reset_locked(&baseline);
	LWLockRelease(ws_shared->lock);

	PG_RETURN_VOID();
}

static const char *const checkpoint_names[] = {NULL, "start", "running", "done"};

/* The checkpoint and checkpoint_kind columns of a history row. */
static void
put_checkpoint(ResultRow *row, const WalStallSecond *second)
{
	const char *kind = NULL;

	switch (second->checkpoint_kind)
	{
		case WS_CKPT_KIND_TIME:
			kind = "time";
			break;
		case WS_CKPT_KIND_REQUESTED:
			kind = "requested";
			break;
		case WS_CKPT_KIND_TIME | WS_CKPT_KIND_REQUESTED:
			kind = "time,requested";
			break;
	}
	put_text(row, checkpoint_names[second->checkpoint]);
	put_text(row, kind);
}

/*
 * put_history_row
 *		One wal_stall_history row; -1 (unknown) becomes NULL.
 */
static void
put_history_row(ReturnSetInfo *rsinfo, const WalStallSecond *second)
{
	ResultRow	row = {.ncols = 0};

	put_datum(&row, TimestampTzGetDatum(second->sample_time), false);
	put_float8(&row, second->seconds);
	put_int64(&row, second->xids);
	put_int64(&row, second->wal_bytes);
	put_float8(&row, second->buffer_fill_max);
	put_float8(&row, second->buffer_fill_avg);
	put_float8(&row, second->stall_ms[WS_CLASS_WAL_BUFFER_FULL]);
	put_float8(&row, second->stall_ms[WS_CLASS_WAL_FLUSH]);
	put_float8(&row, second->stall_ms[WS_CLASS_WAL_INSERT]);
	put_float8(&row, second->stall_ms[WS_CLASS_CLOG]);
	put_float8(&row, second->wal_fsync_max_ms);
	put_int64(&row, second->wal_buffers_full);
	put_int64(&row, second->wal_writes);
	put_int64(&row, second->wal_syncs);
	put_float8(&row, second->wal_sync_ms);
	put_int64(&row, second->clog_hits);
	put_int64(&row, second->clog_reads);
	put_float8(&row, second->waiting_backends);
	put_float8(&row, second->active_backends);
	put_float8(&row, second->mean_interval_ms);
	put_int64(&row, second->wal_fpi);
	put_checkpoint(&row, second);
	put_float8(&row, second->resolution_ms);
	Assert(row.ncols == HISTORY_COLS);

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row.values, row.nulls);
}

/*
 * Rows of the history ring copied under one hold of our lock: 1024 rows are
 * 184kB, copied in well under a millisecond (docs/results.md), where the
 * whole ring of a day is 16MB.
 */
#define HISTORY_BATCH		1024

/* How the last history copy of this backend went, for the tests. */
WalStallCopyStats ws_last_history_copy;

/*
 * copy_history_batches
 *		Copy the history ring into rows[], newest row first, stopping at the
 *		first row at or before since if have_since; returns the number of
 *		rows copied.  rows[] has room for the whole ring.
 *
 * Takes our lock shared for each batch of HISTORY_BATCH rows and releases
 * it in between.  Row number s (counting from the reset) lives in slot
 * s % history_size; between two batches the collector may write new rows,
 * which are not copied (the copy is of the ring as the first batch found
 * it), or overwrite the oldest ones, and a reset may clear the ring: the
 * copy then stops before the first row no longer there, as if the reader
 * had come that much later for the oldest rows.
 */
static int
copy_history_batches(WalStallSecond *rows, bool have_since, TimestampTz since)
{
	int			size = ws_shared->history_size;
	uint64		reset_count;
	int64		next_row;		/* row number of the next row to copy, + 1 */
	int64		oldest;			/* the oldest row number the ring held */
	int			ncopied = 0;
	instr_time	start;
	instr_time	held;

	memset(&ws_last_history_copy, 0, sizeof(ws_last_history_copy));
	LWLockAcquire(ws_shared->lock, LW_SHARED);
	reset_count = ws_shared->reset_count;
	next_row = ws_shared->history_rows;
	oldest = next_row - Min(next_row, (int64) size);
	for (;;)
	{
		int			batch = 0;
		bool		done = false;

		INSTR_TIME_SET_CURRENT(start);
		/* rows overwritten since the last batch, or all after a reset */
		if (ws_shared->reset_count != reset_count)
			done = true;
		else
			oldest = Max(oldest, ws_shared->history_rows - size);
		while (!done && batch < HISTORY_BATCH && next_row > oldest)
		{
			const WalStallSecond *row = &ws_history[(next_row - 1) % size];

			if (have_since && row->sample_time <= since)
			{
				done = true;
				break;
			}
			rows[ncopied++] = *row;
			next_row--;
			batch++;
		}
		done |= next_row <= oldest;
		INSTR_TIME_SET_CURRENT(held);
		LWLockRelease(ws_shared->lock);

		INSTR_TIME_SUBTRACT(held, start);
		ws_last_history_copy.holds++;
		ws_last_history_copy.max_rows_per_hold =
			Max(ws_last_history_copy.max_rows_per_hold, batch);
		ws_last_history_copy.max_hold_ms =
			Max(ws_last_history_copy.max_hold_ms, INSTR_TIME_GET_MILLISEC(held));
		ws_last_history_copy.total_hold_ms += INSTR_TIME_GET_MILLISEC(held);
		if (done)
			break;
		CHECK_FOR_INTERRUPTS();
		LWLockAcquire(ws_shared->lock, LW_SHARED);
	}
	ws_last_history_copy.rows = ncopied;
	return ncopied;
}

/*
 * wal_stall_history(since)
 *		The history ring, oldest row first; with since, only rows after it,
 *		for incremental polling.
 */
Datum
wal_stall_history(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		have_since = !PG_ARGISNULL(0);
	TimestampTz since = have_since ? PG_GETARG_TIMESTAMPTZ(0) : 0;
	WalStallSecond *rows;
	int			ncopied;
	int			collector_pid;
	bool		any_rows;

	ws_check_loaded();
	ws_init_materialized_srf(fcinfo);
	check_natts(rsinfo->setDesc, HISTORY_COLS);

	/*
	 * palloc0 faults the pages in here, not while we hold the lock the
	 * collector waits on.  The ring is copied newest first, so that a poll
	 * with "since" copies only the rows it returns; sample_time increases
	 * from row to row.
	 */
	rows = palloc0(sizeof(WalStallSecond) * Max(ws_shared->history_size, 1));
	LWLockAcquire(ws_shared->lock, LW_SHARED);
	collector_pid = ws_shared->collector_pid;
	any_rows = ws_shared->history_rows > 0;
	LWLockRelease(ws_shared->lock);
	ncopied = copy_history_batches(rows, have_since, since);
	warn_if_no_collector(collector_pid, any_rows);

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
wal_stall_clog(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	StatsCopy	copy;
	WalStallCounters now;
	WalStallCounters delta;
	const WalStallClassStats *lock;
	ResultRow	row = {.ncols = 0};

	copy_stats(&copy);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	ws_read_counters(&now, true);
	ws_counters_delta(&now, &copy.baseline, &delta);
	lock = &copy.classes[WS_CLASS_CLOG];

	put_datum(&row, Int32GetDatum(ws_clog_buffers()), false);
	put_int64(&row, delta.clog_hits);
	put_int64(&row, delta.clog_reads);
	if (delta.clog_hits >= 0 && delta.clog_reads >= 0 &&
		delta.clog_hits + delta.clog_reads > 0)
		put_float8(&row, (double) delta.clog_hits / (delta.clog_hits + delta.clog_reads));
	else
		put_null(&row);
	put_int64(&row, delta.clog_zeroed);
	put_int64(&row, delta.clog_written);
	put_int64(&row, delta.clog_flushes);
	if (copy.sampled)
	{
		put_int64(&row, lock->episodes);
		put_float8(&row, lock->total_ns / WS_NS_PER_MS);
		if (lock->episodes > 0)
			put_float8(&row, ws_histogram_percentile(lock, copy.hist_base_ns, 0.99));
		else
			put_null(&row);
		put_float8(&row, copy.classes[WS_CLASS_SLRU_IO].total_ns / WS_NS_PER_MS);
	}
	else
	{
		for (int k = 0; k < 4; k++)
			put_null(&row);
	}
	put_datum(&row, TimestampTzGetDatum(copy.reset_at), false);
	Assert(row.ncols == CLOG_COLS);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, row.values, row.nulls)));
}

/*
 * history_since_reset
 *		Copy the history ring, oldest row first.  Takes our lock shared, a
 *		batch at a time (copy_history_batches()).
 */
static WalStallSecond *
history_since_reset(int *count)
{
	WalStallSecond *rows = palloc0(sizeof(WalStallSecond) * Max(ws_shared->history_size, 1));

	*count = copy_history_batches(rows, false, 0);
	/* copied newest first */
	for (int i = 0, j = *count - 1; i < j; i++, j--)
	{
		WalStallSecond swap = rows[i];

		rows[i] = rows[j];
		rows[j] = swap;
	}
	return rows;
}

/*
 * The CLOG pages a tuple can still ask about: from the oldest unfrozen xid
 * (the cluster's oldest datfrozenxid) to the next xid, BLCKSZ * 4 xids a
 * page.  The xid arithmetic is modulo 2^32, as the counter's.
 */
static int
clog_span_pages(void)
{
	TransactionId next = XidFromFullTransactionId(ReadNextFullTransactionId());
	TransactionId oldest;

	LWLockAcquire(XidGenLock, LW_SHARED);
#if PG_VERSION_NUM >= 170000
	oldest = TransamVariables->oldestXid;
#else
	oldest = ShmemVariableCache->oldestXid;
#endif
	LWLockRelease(XidGenLock);
	return (int) ((uint32) (next - oldest) / (BLCKSZ * 4)) + 1;
}

/*
 * advice_from_history
 *		The history's part of the advice's figures: seconds covered, WAL,
 *		peak rate, seconds with a full ring, client time, and wrap-around
 *		time in the seconds after each checkpoint began.
 */
static void
advice_from_history(const WalStallSecond *rows, int count, WalStallAdviceInput *in)
{
	double		full_mark = 1.0 - (double) XLOG_BLCKSZ / Max(ws_ring_bytes(), XLOG_BLCKSZ);
	TimestampTz window_end = 0;
	uint8		previous = WS_CKPT_NONE;

	in->history_rows = count;
	for (int i = 0; i < count; i++)
	{
		const WalStallSecond *r = &rows[i];
		TimestampTz began = r->sample_time - (TimestampTz) (r->seconds * USECS_PER_SEC);

		in->seconds += r->seconds;
		in->xids += r->xids;
		in->wal_bytes += r->wal_bytes;
		if (r->seconds >= 0.5)
			in->peak_wal_bytes_per_sec = Max(in->peak_wal_bytes_per_sec,
											 r->wal_bytes / r->seconds);
		if (r->buffer_fill_max >= full_mark)
			in->seconds_ring_full++;
		in->client_seconds += r->active_backends * r->seconds;

		/* a checkpoint began in this row: its burst window opens */
		if (r->checkpoint == WS_CKPT_START ||
			(r->checkpoint == WS_CKPT_DONE && previous == WS_CKPT_NONE))
			window_end = began + (TimestampTz) WS_ADVICE_CKPT_WINDOW * USECS_PER_SEC;
		if (r->checkpoint == WS_CKPT_DONE)
			in->checkpoints++;
		if (r->checkpoint_kind > 0 && (r->checkpoint_kind & WS_CKPT_KIND_TIME))
			in->checkpoints_timed++;
		if (began < window_end)
		{
			in->seconds_after_checkpoint += r->seconds;
			in->wrap_ms_after_checkpoint += r->stall_ms[WS_CLASS_WAL_BUFFER_FULL];
		}
		previous = r->checkpoint;
	}
}

/* p99 of a class in ms, NAN when it has no episode. */
static double
class_p99_ms(const StatsCopy *copy, WalStallClass cls)
{
	const WalStallClassStats *s = &copy->classes[cls];

	if (s->episodes == 0)
		return get_float8_nan();
	return ws_histogram_percentile(s, copy->hist_base_ns, 0.99);
}

/*
 * advice_input_since_reset
 *		The figures wal_stall_advice() reads: the history, summary and CLOG
 *		counters since the last reset, and the settings in force.
 */
static void
advice_input_since_reset(WalStallAdviceInput *in)
{
	StatsCopy	copy;
	WalStallCounters now;
	WalStallCounters delta;
	WalStallSecond *history;
	int			count;
	uint64		asleep_ns;

	copy_stats(&copy);
	ws_read_counters(&now, true);
	ws_counters_delta(&now, &copy.baseline, &delta);
	history = history_since_reset(&count);
	LWLockAcquire(ws_shared->lock, LW_SHARED);
	asleep_ns = ws_shared->figures.wrap_writer_asleep_ns;
	LWLockRelease(ws_shared->lock);

	memset(in, 0, sizeof(*in));
	in->server_version = PG_VERSION_NUM;
	in->readings = 1;
	advice_from_history(history, count, in);
	pfree(history);
	in->wrap_ms = copy.classes[WS_CLASS_WAL_BUFFER_FULL].total_ns / WS_NS_PER_MS;
	in->flush_ms = copy.classes[WS_CLASS_WAL_FLUSH].total_ns / WS_NS_PER_MS;
	in->wrap_ms_writer_asleep = asleep_ns / WS_NS_PER_MS;
	in->write_p99_ms = class_p99_ms(&copy, WS_CLASS_WAL_WRITE);
	in->fsync_p99_ms = class_p99_ms(&copy, WS_CLASS_WAL_FSYNC);
	in->write_ms = copy.classes[WS_CLASS_WAL_WRITE].total_ns / WS_NS_PER_MS;
	in->fsync_ms = copy.classes[WS_CLASS_WAL_FSYNC].total_ns / WS_NS_PER_MS;
	in->clog_hits = delta.clog_hits;
	in->clog_reads = delta.clog_reads;
	in->clog_lock_ms = copy.classes[WS_CLASS_CLOG].total_ns / WS_NS_PER_MS;
	in->clog_slru_io_ms = copy.classes[WS_CLASS_SLRU_IO].total_ns / WS_NS_PER_MS;
	in->clog_buffers = ws_clog_buffers();
	in->clog_span_pages = clog_span_pages();
	in->clog_buffers_max = ws_clog_buffers_max();
	in->wal_buffers_bytes = (int64) ws_ring_bytes();
	in->wal_buffers_max_bytes = (int64) (INT_MAX / XLOG_BLCKSZ) * XLOG_BLCKSZ;
	in->wal_block_size = XLOG_BLCKSZ;
	in->wal_writer_delay_ms = WalWriterDelay;
	in->wal_writer_flush_after_bytes = (int64) WalWriterFlushAfter * XLOG_BLCKSZ;
	in->max_wal_size_mb = max_wal_size_mb;
	in->checkpoint_timeout_s = CheckPointTimeout;
	in->shared_buffers_kb = (int64) NBuffers * (BLCKSZ / 1024);
}

#define ADVICE_COLS 5

/* The advice on in, as the rows of the function's result set. */
static void
put_advice_rows(FunctionCallInfo fcinfo, const WalStallAdviceInput *in)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WalStallAdviceRow rows[WS_ADVICE_MAX_ROWS];
	int			n;

	ws_init_materialized_srf(fcinfo);
	n = ws_advise(in, rows, lengthof(rows));
	for (int r = 0; r < n; r++)
	{
		ResultRow	row = {.ncols = 0};

		/* advice.c leaves current and suggested empty when there is none */
		put_text(&row, rows[r].setting);
		put_text(&row, rows[r].current[0] != '\0' ? rows[r].current : NULL);
		put_text(&row, rows[r].suggested[0] != '\0' ? rows[r].suggested : NULL);
		put_text(&row, rows[r].confidence);
		put_text(&row, rows[r].evidence);
		Assert(row.ncols == ADVICE_COLS);

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row.values, row.nulls);
	}
}

/*
 * wal_stall_advice
 *		Settings to change, with the measured evidence (advice.c has the
 *		rules and their reasoning).
 */
Datum
wal_stall_advice(PG_FUNCTION_ARGS)
{
	WalStallAdviceInput in;

	advice_input_since_reset(&in);
	put_advice_rows(fcinfo, &in);
	return (Datum) 0;
}

/*
 * Does the SQL type wal_stall_advice_figures have advice.c's figures, in
 * order, with their types?  A library and a SQL script of different
 * versions would otherwise read one figure as another.
 */
static void
check_figures_type(TupleDesc desc)
{
	bool		same = desc->natts == ws_advice_nfigures;

	for (int i = 0; same && i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Oid			want = ws_advice_figures[i].type == WS_FIGURE_INT ? INT4OID :
			ws_advice_figures[i].type == WS_FIGURE_INT64 ? INT8OID : FLOAT8OID;

		same = !att->attisdropped && att->atttypid == want &&
			strcmp(NameStr(att->attname), ws_advice_figures[i].name) == 0;
	}
	if (!same)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("type wal_stall_advice_figures does not match the wal_stall library"),
				 errhint("Install the library of the extension's version, or run ALTER EXTENSION wal_stall UPDATE.")));
}

/*
 * wal_stall_advice_figures
 *		The figures wal_stall_advice() reads, as one row: to see what it
 *		saw, or to pool readings with wal_stall_advice(figures[]).  An
 *		unknown figure is NULL.
 */
Datum
wal_stall_advice_figures(PG_FUNCTION_ARGS)
{
	WalStallAdviceInput in;
	TupleDesc	desc;
	Datum		values[WS_ADVICE_MAX_FIGURES];
	bool		nulls[WS_ADVICE_MAX_FIGURES];

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	check_figures_type(desc);

	advice_input_since_reset(&in);
	for (int i = 0; i < ws_advice_nfigures; i++)
	{
		const WalStallAdviceFigure *f = &ws_advice_figures[i];
		const char *p = (const char *) &in + f->offset;

		nulls[i] = false;
		if (f->type == WS_FIGURE_INT)
		{
			values[i] = Int32GetDatum(*(const int *) p);
			nulls[i] = f->may_be_unknown && *(const int *) p < 0;
		}
		else if (f->type == WS_FIGURE_INT64)
		{
			values[i] = Int64GetDatum(*(const int64 *) p);
			nulls[i] = f->may_be_unknown && *(const int64 *) p < 0;
		}
		else
		{
			values[i] = Float8GetDatum(*(const double *) p);
			nulls[i] = f->may_be_unknown && isnan(*(const double *) p);
		}
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

/* The figures that may be unknown, for an error's detail: "a, b and c". */
static char *
unknown_figure_names(void)
{
	StringInfoData names;
	int			last = -1,
				count = 0;

	initStringInfo(&names);
	for (int i = 0; i < ws_advice_nfigures; i++)
		if (ws_advice_figures[i].may_be_unknown)
			last = i;
	for (int i = 0; i < ws_advice_nfigures; i++)
		if (ws_advice_figures[i].may_be_unknown)
			appendStringInfo(&names, "%s%s", count++ == 0 ? "" : i == last ? " and " : ", ",
							 ws_advice_figures[i].name);
	return names.data;
}

/*
 * One element of the array wal_stall_advice(figures[]) pools, into *in.
 * A NULL is an unknown figure where the figure may be unknown; any other
 * NULL, and a figure out of the range the rules work on, is an error.
 */
static void
figures_from_row(HeapTupleHeader row, int element, WalStallAdviceInput *in)
{
	TupleDesc	desc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(row),
											  HeapTupleHeaderGetTypMod(row));
	HeapTupleData tuple;
	Datum		values[WS_ADVICE_MAX_FIGURES];
	bool		nulls[WS_ADVICE_MAX_FIGURES];
	const char *bad;

	check_figures_type(desc);
	tuple.t_len = HeapTupleHeaderGetDatumLength(row);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = row;
	heap_deform_tuple(&tuple, desc, values, nulls);
	ReleaseTupleDesc(desc);

	memset(in, 0, sizeof(*in));
	for (int i = 0; i < ws_advice_nfigures; i++)
	{
		const WalStallAdviceFigure *f = &ws_advice_figures[i];
		char	   *p = (char *) in + f->offset;

		if (nulls[i] && !f->may_be_unknown)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("figure \"%s\" of element %d is null", f->name, element),
					 errdetail("Only %s may be unknown.", unknown_figure_names())));
		if (f->type == WS_FIGURE_INT)
			*(int *) p = nulls[i] ? -1 : DatumGetInt32(values[i]);
		else if (f->type == WS_FIGURE_INT64)
			*(int64 *) p = nulls[i] ? -1 : DatumGetInt64(values[i]);
		else
			*(double *) p = nulls[i] ? get_float8_nan() : DatumGetFloat8(values[i]);
	}
	if ((bad = ws_advice_check(in)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("figure \"%s\" of element %d is out of range", bad, element),
				 errdetail("Figures are finite and at least 0 (readings at least 1), integers at most %.0f, bigints at most %.0f, and float8s at most %g.",
						   WS_ADVICE_INT_BOUND, WS_ADVICE_INT64_BOUND, WS_ADVICE_DOUBLE_BOUND)));
}

/*
 * wal_stall_advice_pooled
 *		wal_stall_advice(figures[]): the advice on several readings of
 *		wal_stall_advice_figures() pooled (advice.h says how), as on the
 *		runs of one configuration that are each too short alone.
 */
Datum
wal_stall_advice_pooled(PG_FUNCTION_ARGS)
{
	ArrayType  *array = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *elements;
	bool	   *nulls;
	int			n;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	WalStallAdviceInput pooled;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("wal_stall_advice() takes a one-dimensional array of readings")));
	get_typlenbyvalalign(ARR_ELEMTYPE(array), &typlen, &typbyval, &typalign);
	deconstruct_array(array, ARR_ELEMTYPE(array), typlen, typbyval, typalign,
					  &elements, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("wal_stall_advice() needs at least one reading to pool")));
	for (int i = 0; i < n; i++)
	{
		WalStallAdviceInput reading;
		const char *differs;

		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("element %d of the readings to pool is null", i + 1)));
		figures_from_row(DatumGetHeapTupleHeader(elements[i]), i + 1, &reading);
		if (i == 0)
			pooled = reading;
		else if ((differs = ws_advice_pool(&pooled, &reading)) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("readings taken under different settings cannot be pooled"),
					 errdetail("Figure \"%s\" of element %d differs from the elements before it.",
							   differs, i + 1)));
		else if ((differs = ws_advice_check(&pooled)) != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("figure \"%s\" of the first %d readings pooled is out of range", differs, i + 1)));
	}
	put_advice_rows(fcinfo, &pooled);
	return (Datum) 0;
}
