/*-------------------------------------------------------------------------
 *
 * test_functions.c
 *		SQL-callable functions that only the tests call, built into the
 *		library only by "make WS_TEST_FUNCTIONS=1" (scripts/test.sh does;
 *		the Makefile's default, "make install" and the Debian packages do
 *		not), so that the library users run does not carry them.
 *
 * None is part of the extension's SQL: a test creates the function it
 * needs, naming this symbol in $libdir/wal_stall.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "pgstat.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "classify.h"
#include "compat.h"
#include "counters.h"
#include "queries.h"
#include "shared_state.h"
#include "wal_stall.h"

/*
 * wal_stall_query_slot_for_tests(pid)
 *		The query id in the statement slot of the backend with this pid, or
 *		NULL when it holds none.  test/t/010_queries.pl creates it to check that
 *		a statement publishes its query id, and that a failed one leaves
 *		nothing behind.
 */
PG_FUNCTION_INFO_V1(wal_stall_query_slot_for_tests);

Datum
wal_stall_query_slot_for_tests(PG_FUNCTION_ARGS)
{
	int			pid = PG_GETARG_INT32(0);
	PGPROC	   *proc = BackendPidGetProc(pid);
	WalStallStatement st;

	ws_check_loaded();
	if (proc == NULL)
		PG_RETURN_NULL();
	ws_queries_read_statement(proc, &st);
	if (st.queryid == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) st.queryid);
}

/*
 * wal_stall_tracked_events_for_tests()
 *		The wait events the collector tracks, as (type, name) with the type
 *		named as pg_wait_events names it.  test/t/022_wait_events.pl checks
 *		each against the server's own list.
 */
PG_FUNCTION_INFO_V1(wal_stall_tracked_events_for_tests);

static void
put_tracked_event(ReturnSetInfo *rsinfo, uint32 wait_class, const char *name)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = CStringGetTextDatum(pgstat_get_wait_event_type(wait_class));
	values[1] = CStringGetTextDatum(name);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

Datum
wal_stall_tracked_events_for_tests(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	ws_init_materialized_srf(fcinfo);
	for (int i = 0; i < ws_tracked_event_count(); i++)
	{
		uint32		wait_class;
		const char *name = ws_tracked_event(i, &wait_class);

		put_tracked_event(rsinfo, wait_class, name);
	}
	put_tracked_event(rsinfo, PG_WAIT_ACTIVITY, WS_WALWRITER_SLEEP_NAME);
	return (Datum) 0;
}

/*
 * wal_stall_fill_history_for_tests(n)
 *		Append n rows to the history ring, copies of its newest row (a row
 *		of one second with nothing in it when there is none), each a
 *		microsecond after the one before, so that sample_time still
 *		increases up to the collector's next row.  t/026_history_copy.pl
 *		and bench/history_copy_hold.sh fill a ring of hours this way instead
 *		of waiting for it.  Takes our lock exclusively, as the collector
 *		does to append a row.
 */
PG_FUNCTION_INFO_V1(wal_stall_fill_history_for_tests);

Datum
wal_stall_fill_history_for_tests(PG_FUNCTION_ARGS)
{
	int			n = PG_GETARG_INT32(0);
	int			size;
	WalStallSecond row;

	ws_check_loaded();
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the number of rows must not be negative")));
	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	size = ws_shared->history_size;
	if (size > 0 && ws_shared->history_rows > 0)
		row = ws_history[(ws_shared->history_next + size - 1) % size];
	else
	{
		memset(&row, 0, sizeof(row));
		row.sample_time = GetCurrentTimestamp();
		row.seconds = 1;
		row.checkpoint_kind = -1;
		row.resolution_ms = -1;
	}
	for (int i = 0; i < n && size > 0; i++)
	{
		row.sample_time++;
		ws_history[ws_shared->history_next] = row;
		ws_shared->history_next = (ws_shared->history_next + 1) % size;
		ws_shared->history_rows++;
	}
	LWLockRelease(ws_shared->lock);
	PG_RETURN_VOID();
}

/*
 * wal_stall_history_copy_for_tests()
 *		How this backend's last copy of the history ring went
 *		(wal_stall_history(), wal_stall_advice()): how many times it took
 *		our lock, the rows it copied, the most rows and the longest time
 *		(ms) of one hold, and the time of all the holds.
 */
PG_FUNCTION_INFO_V1(wal_stall_history_copy_for_tests);

Datum
wal_stall_history_copy_for_tests(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	ws_check_loaded();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int32GetDatum(ws_last_history_copy.holds);
	values[1] = Int32GetDatum(ws_last_history_copy.rows);
	values[2] = Int32GetDatum(ws_last_history_copy.max_rows_per_hold);
	values[3] = Float8GetDatum(ws_last_history_copy.max_hold_ms);
	values[4] = Float8GetDatum(ws_last_history_copy.total_hold_ms);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * wal_stall_save_layout_for_tests()
 *		The layout of the save file as this build writes it, as rows of
 *		(part, name, offset, size): part "struct" for the header and the
 *		structures whose sizes it states (offset 0), part "figure" for each
 *		field of WalStallFigures in the order shared_state.h declares them,
 *		with its offset in the struct.  test/t/WalStallSaveFile.pm reads
 *		and forges save files with it; test/t/015_saved_figures.pl checks
 *		that the fields listed leave no gap larger than alignment, so that
 *		a field added to WalStallFigures and not here fails that test.
 */
PG_FUNCTION_INFO_V1(wal_stall_save_layout_for_tests);

#define SAVE_FIGURE(field) \
	{"figure", #field, offsetof(WalStallFigures, field), \
	 sizeof(((WalStallFigures *) 0)->field)}

typedef struct SaveLayoutPart
{
	const char *part;
	const char *name;
	size_t		offset;
	size_t		size;
} SaveLayoutPart;

static const SaveLayoutPart save_layout[] = {
	{"struct", "header", 0, sizeof(WalStallFileHeader)},
	{"struct", "figures", 0, sizeof(WalStallFigures)},
	{"struct", "class", 0, sizeof(WalStallClassStats)},
	{"struct", "row", 0, sizeof(WalStallSecond)},
	{"struct", "entry", 0, sizeof(WalStallQueryStats)},
	SAVE_FIGURE(reset_at),
	SAVE_FIGURE(hist_base_ns),
	SAVE_FIGURE(reset_ticks),
	SAVE_FIGURE(reset_full_rate_ticks),
	SAVE_FIGURE(reset_full_rate_ns),
	SAVE_FIGURE(baseline_valid),
	SAVE_FIGURE(timing_off_seen),
	SAVE_FIGURE(wrap_writer_asleep_ns),
	SAVE_FIGURE(baseline),
	SAVE_FIGURE(classes),
	SAVE_FIGURE(wal_path_waits),
	SAVE_FIGURE(wal_path_waits_io_first),
	SAVE_FIGURE(ring_rule_ns),
	SAVE_FIGURE(query_evictions),
	SAVE_FIGURE(interval_weighted),
	SAVE_FIGURE(episodes_counted),
	SAVE_FIGURE(episodes_var),
};

Datum
wal_stall_save_layout_for_tests(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	ws_init_materialized_srf(fcinfo);
	for (size_t i = 0; i < lengthof(save_layout); i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = CStringGetTextDatum(save_layout[i].part);
		values[1] = CStringGetTextDatum(save_layout[i].name);
		values[2] = Int32GetDatum((int32) save_layout[i].offset);
		values[3] = Int32GetDatum((int32) save_layout[i].size);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * ws_test_reset_at_statement_copy(pid)
 *		Called by the collector's scan just before it copies the statement
 *		of the process with this pid from its episode slot, without our
 *		lock: when a test armed a reset for that pid, do what
 *		wal_stall_reset() does, here, so that the copy reads the zeroed slot.
 *		test/t/028_reset_during_scan.pl arms it, to see the collector mend
 *		the copy (collector.c, reread_torn_statements) rather than charge
 *		the episodes after the reset to no statement.
 */
void
ws_test_reset_at_statement_copy(int pid)
{
	WalStallCounters baseline;

	if (((volatile WalStallShared *) ws_shared)->test_reset_at_copy_pid != pid)
		return;
	ws_read_counters(&baseline, WS_COLLECTOR_READS_STATS);
	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	if (ws_shared->test_reset_at_copy_pid == pid)
	{
		ws_reset_locked(&baseline);
		ws_shared->test_reset_at_copy_pid = 0;
	}
	LWLockRelease(ws_shared->lock);
}

/*
 * wal_stall_reset_at_copy_for_tests(pid)
 *		Arm the reset above for the process with this pid (0 disarms).
 *		Returns whether one armed before was still waiting.
 */
PG_FUNCTION_INFO_V1(wal_stall_reset_at_copy_for_tests);

Datum
wal_stall_reset_at_copy_for_tests(PG_FUNCTION_ARGS)
{
	int			pid = PG_GETARG_INT32(0);
	bool		pending;

	ws_check_loaded();
	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	pending = ws_shared->test_reset_at_copy_pid != 0;
	ws_shared->test_reset_at_copy_pid = pid;
	LWLockRelease(ws_shared->lock);
	PG_RETURN_BOOL(pending);
}

/*
 * wal_stall_reset_at_copy_pending_for_tests()
 *		Whether the reset armed above has not happened yet.
 */
PG_FUNCTION_INFO_V1(wal_stall_reset_at_copy_pending_for_tests);

Datum
wal_stall_reset_at_copy_pending_for_tests(FunctionCallInfo fcinfo pg_attribute_unused())
{
	bool		pending;

	ws_check_loaded();
	LWLockAcquire(ws_shared->lock, LW_SHARED);
	pending = ws_shared->test_reset_at_copy_pid != 0;
	LWLockRelease(ws_shared->lock);
	PG_RETURN_BOOL(pending);
}

/*
 * wal_stall_wal_sync_wait_for_tests(ms)
 *		Report the wait event of a WAL fsync for ms milliseconds, doing
 *		nothing: a wait the collector follows as an episode of this
 *		backend's statement, as long as the test needs, on any disk.
 */
PG_FUNCTION_INFO_V1(wal_stall_wal_sync_wait_for_tests);

Datum
wal_stall_wal_sync_wait_for_tests(PG_FUNCTION_ARGS)
{
	int			ms = PG_GETARG_INT32(0);
	TimestampTz end = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), ms);

	pgstat_report_wait_start(WAIT_EVENT_WAL_SYNC);
	while (GetCurrentTimestamp() < end)
	{
		pg_usleep(10 * 1000L);
		CHECK_FOR_INTERRUPTS();
	}
	pgstat_report_wait_end();
	PG_RETURN_VOID();
}
