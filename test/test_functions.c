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

#include "fmgr.h"
#include "funcapi.h"
#include "pgstat.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "classify.h"
#include "compat.h"
#include "queries.h"
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
