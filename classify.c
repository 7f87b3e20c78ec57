/*-------------------------------------------------------------------------
 *
 * classify.c
 *		From wait events to wal_stall's events, groups and classes.
 *
 * Wait event numbers change between PostgreSQL versions and so do some
 * names (WALSync became WalSync in 17), so the mapping is built once, when
 * the collector starts, by asking the running server for the name of every
 * wait event of the three wait classes we care about and matching those
 * names case-insensitively.  The collector then looks events up in a table
 * (ws_wait_table, read by ws_classify_event() in classify.h); nothing else
 * in wal_stall knows a wait event by name or number.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/lwlock.h"

#include "classify.h"
#include "compat.h"
#include "shared_state.h"
#include "wal_stall.h"

typedef struct WaitEventName
{
	uint32		wait_class;		/* PG_WAIT_LWLOCK, PG_WAIT_IO, PG_WAIT_IPC */
	const char *name;
	WalStallEvent event;
} WaitEventName;

static const WaitEventName tracked_names[] = {
	{PG_WAIT_LWLOCK, "WALInsert", WS_EVENT_WAL_INSERT_LOCK},
	{PG_WAIT_LWLOCK, "WALBufMapping", WS_EVENT_WAL_MAPPING_LOCK},
	{PG_WAIT_LWLOCK, "WALWrite", WS_EVENT_WAL_WRITE_LOCK},
	{PG_WAIT_IO, "WALWrite", WS_EVENT_WAL_WRITE_IO},
	{PG_WAIT_IO, "WALInitWrite", WS_EVENT_WAL_WRITE_IO},
	{PG_WAIT_IO, "WALSync", WS_EVENT_WAL_SYNC_IO},
	{PG_WAIT_IO, "WALInitSync", WS_EVENT_WAL_SYNC_IO},
	{PG_WAIT_LWLOCK, "XactSLRU", WS_EVENT_CLOG},
	{PG_WAIT_LWLOCK, "XactBuffer", WS_EVENT_CLOG},
	{PG_WAIT_IPC, "XactGroupUpdate", WS_EVENT_CLOG},
	{PG_WAIT_IO, "SLRURead", WS_EVENT_SLRU_IO},
	{PG_WAIT_IO, "SLRUWrite", WS_EVENT_SLRU_IO},
	{PG_WAIT_IO, "SLRUSync", WS_EVENT_SLRU_IO},
	{PG_WAIT_IO, "SLRUFlushSync", WS_EVENT_SLRU_IO},
};

#define NUM_TRACKED_NAMES lengthof(tracked_names)

/*
 * The rows of ws_wait_table.event: one per wait class we track events of.
 * Event numbers are scanned per wait class up to WS_MAX_EVENT_ID
 * (classify.h): built-in events are numbered from zero and stay far below
 * it; LWLock tranches are scanned only up to the first user-defined one.
 */
enum
{
	ROW_UNTRACKED = 0,
	ROW_LWLOCK,
	ROW_IO,
	ROW_IPC
};

WalStallWaitTable ws_wait_table;

static const char *const class_names[WS_NUM_CLASSES] = {
	"wal_buffer_full",
	"wal_flush",
	"wal_insert",
	"clog",
	"wal_write",
	"wal_fsync",
	"slru_io",
};

/* Add every event of one wait class whose name is in tracked_names. */
static void
track_matching_events(uint32 wait_class, int row, uint32 max_id)
{
	ws_wait_table.row_of_class[wait_class >> 24] = row;
	for (uint32 id = 0; id < max_id; id++)
	{
		uint32		info = wait_class | id;
		const char *name = pgstat_get_wait_event(info);

		if (name == NULL)
			continue;
		for (int i = 0; i < (int) NUM_TRACKED_NAMES; i++)
		{
			if (tracked_names[i].wait_class != wait_class ||
				pg_strcasecmp(tracked_names[i].name, name) != 0)
				continue;
			ws_wait_table.event[row][id] = tracked_names[i].event;
			break;
		}
	}
}

/*
 * ws_classify_init
 *		Build the wait_event_info -> event table of the running server.
 *
 * Called once by the collector at start.  Logs which names it did not find:
 * a renamed event on a future version shows up in the server log instead of
 * silently never being counted.
 */
void
ws_classify_init(void)
{
	static const uint32 idle_classes[] = {
		PG_WAIT_ACTIVITY, PG_WAIT_CLIENT, PG_WAIT_TIMEOUT, PG_WAIT_EXTENSION
	};

	memset(&ws_wait_table, 0, sizeof(ws_wait_table));
	track_matching_events(PG_WAIT_LWLOCK, ROW_LWLOCK,
						  Min(LWTRANCHE_FIRST_USER_DEFINED, WS_MAX_EVENT_ID));
	track_matching_events(PG_WAIT_IO, ROW_IO, WS_MAX_EVENT_ID);
	track_matching_events(PG_WAIT_IPC, ROW_IPC, WS_MAX_EVENT_ID);
	for (int i = 0; i < (int) lengthof(idle_classes); i++)
		ws_wait_table.idle_class[idle_classes[i] >> 24] = true;

	for (int i = 0; i < (int) NUM_TRACKED_NAMES; i++)
	{
		const WaitEventName *want = &tracked_names[i];
		bool		found = false;
		int			row = ws_wait_table.row_of_class[want->wait_class >> 24];

		for (uint32 id = 0; id < WS_MAX_EVENT_ID && !found; id++)
			found = ws_wait_table.event[row][id] != WS_EVENT_NONE &&
				pg_strcasecmp(pgstat_get_wait_event(want->wait_class | id),
							  want->name) == 0;
		if (!found)
			ereport(LOG,
					(errmsg("wait event \"%s\" not found on this server",
							tracked_names[i].name),
					 errdetail("wal_stall does not track it.")));
	}
}

int
ws_tracked_event_count(void)
{
	return (int) NUM_TRACKED_NAMES;
}

const char *
ws_tracked_event(int i, uint32 *wait_class)
{
	Assert(i >= 0 && i < (int) NUM_TRACKED_NAMES);
	*wait_class = tracked_names[i].wait_class;
	return tracked_names[i].name;
}

/*
 * ws_walwriter_sleep_event
 *		The wait_event_info of the WAL writer sleeping between rounds
 *		(Activity WalWriterMain), found by name once; 0 if not found.
 */
uint32
ws_walwriter_sleep_event(void)
{
	static uint32 info = 0;
	static bool looked = false;

	if (!looked)
	{
		for (uint32 id = 0; id < WS_MAX_EVENT_ID && info == 0; id++)
		{
			const char *name = pgstat_get_wait_event(PG_WAIT_ACTIVITY | id);

			if (name != NULL && pg_strcasecmp(name, WS_WALWRITER_SLEEP_NAME) == 0)
				info = PG_WAIT_ACTIVITY | id;
		}
		looked = true;
	}
	return info;
}

/* The stall tracker's group for an event (WAL write path or CLOG). */
WalStallGroup
ws_stall_group(WalStallEvent event)
{
	switch (event)
	{
		case WS_EVENT_WAL_INSERT_LOCK:
		case WS_EVENT_WAL_MAPPING_LOCK:
		case WS_EVENT_WAL_WRITE_LOCK:
		case WS_EVENT_WAL_WRITE_IO:
		case WS_EVENT_WAL_SYNC_IO:
			return WS_GROUP_WAL_PATH;
		case WS_EVENT_CLOG:
			return WS_GROUP_CLOG;
		default:
			return WS_GROUP_NONE;
	}
}

/* The io tracker's group for an event. */
WalStallGroup
ws_io_group(WalStallEvent event)
{
	switch (event)
	{
		case WS_EVENT_WAL_WRITE_IO:
			return WS_GROUP_WAL_WRITE;
		case WS_EVENT_WAL_SYNC_IO:
			return WS_GROUP_WAL_FSYNC;
		case WS_EVENT_SLRU_IO:
			return WS_GROUP_SLRU_IO;
		default:
			return WS_GROUP_NONE;
	}
}

/*
 * ws_io_class
 *		The class of an io tracker's episode (a CLOG wait is the stall
 *		tracker's: ws_sample_class()).
 */
WalStallClass
ws_io_class(WalStallGroup group)
{
	switch (group)
	{
		case WS_GROUP_WAL_WRITE:
			return WS_CLASS_WAL_WRITE;
		case WS_GROUP_WAL_FSYNC:
			return WS_CLASS_WAL_FSYNC;
		case WS_GROUP_SLRU_IO:
			return WS_CLASS_SLRU_IO;
		case WS_GROUP_WAL_PATH:
		case WS_GROUP_CLOG:
		case WS_GROUP_NONE:
			break;
	}
	elog(ERROR, "no class for episode group %d", (int) group);
	pg_unreachable();
}

/*
 * ws_sample_class
 *		The cause of one sample of a client's WAL write-path wait: the class
 *		it is counted in, by the summary and by the history alike.
 *
 * The waiter's own lock mode says which side of the WAL write path it is
 * on.  What PostgreSQL does (lwlock.c and xlog.c read in 13.23, 15.3 and
 * 18.6; PGPROC also in 15.20's headers):
 *	- PGPROC.lwWaitMode is a uint8 in every version from 13 to 18, holding
 *	  an LWLockMode (LW_EXCLUSIVE 0, LW_SHARED 1, LW_WAIT_UNTIL_FREE 2, the
 *	  same order in all of them).  LWLockQueueSelf() sets it, with
 *	  lwWaiting, before LWLockAcquire(), LWLockAcquireOrWait() or
 *	  LWLockWaitForVar() report the wait event (LWLockReportWaitStart) and
 *	  sleep; nothing clears it when the wait ends (only lwWaiting is
 *	  reset), so it is meaningful exactly while wait_event_info names an
 *	  LWLock.  InitProcess() sets it to 0.
 *	- WALWrite: AdvanceXLInsertBuffer(), the wrap-around write of an
 *	  inserter, takes it with LWLockAcquire(LW_EXCLUSIVE); XLogFlush() with
 *	  LWLockAcquireOrWait(), which queues in LW_WAIT_UNTIL_FREE.  The other
 *	  LW_EXCLUSIVE taker, XLogBackgroundFlush(), is the WAL writer's (not a
 *	  client's), and GetLastSegSwitchData()'s LW_SHARED the checkpointer's.
 *	- WALBufMapping: taken only in AdvanceXLInsertBuffer(), LW_EXCLUSIVE,
 *	  in 13.23, 15.3 and 18.6 alike (18's AdvanceXLInsertBuffer() still
 *	  takes it, then releases it before it waits for insertions and for
 *	  WALWriteLock).
 *	- WALInsert: LW_EXCLUSIVE is WALInsertLockAcquire(), an inserter
 *	  waiting for an insertion lock (whose holder may itself be blocked on
 *	  the ring); LW_WAIT_UNTIL_FREE is LWLockWaitForVar() in
 *	  WaitXLogInsertionsToFinish(), which both AdvanceXLInsertBuffer() and
 *	  XLogFlush() call before they write: that mode alone does not say
 *	  which side.
 * So: WALBufMapping, and WALWrite in LW_EXCLUSIVE, are wrap-around
 * (wal_buffer_full); WALWrite in LW_WAIT_UNTIL_FREE is a flush (wal_flush).
 * These set the cause of the whole wait, which the process's own WAL I/O
 * and its waits for insertions to finish then inherit.  An insertion-lock
 * wait is wal_insert, or wal_buffer_full while the ring is full.
 *
 * Where no lock mode has spoken yet in this wait (it began in I/O, or in a
 * wait for insertions to finish) the ring decides: full is wal_buffer_full,
 * otherwise wal_flush; *by_ring says so.
 *
 * One exception: a WAL fsync of a process inside its commit (in_commit:
 * compat.h) is its commit's flush, and so is the rest of that wait.
 * XLogFlush() writes and fsyncs without any lock wait when WALWriteLock is
 * free, so no lock mode speaks for those fsyncs; beside a bulk load that
 * keeps the ring full the ring rule would call them wal_buffer_full, and
 * when the commit record itself needed a wrap-around, the flush that
 * follows it within microseconds is the same wait to us and would inherit
 * wal_buffer_full from it.  A wrap-around write fsyncs only when it
 * completes a segment, so inside a commit (whose record may need one) that
 * is one fsync per segment against one per commit.
 *
 * lock_mode is the process's lwWaitMode read at this tick after its
 * wait_event_info, in_commit read for a WAL fsync event; each meaningless
 * for other events.
 */
WalStallClass
ws_sample_class(WalStallEpisode *episode, WalStallEvent event, uint8 lock_mode,
				bool in_commit, bool ring_full, bool *by_ring)
{
	WalStallClass ring_class = ring_full ? WS_CLASS_WAL_BUFFER_FULL : WS_CLASS_WAL_FLUSH;

	*by_ring = false;
	switch (event)
	{
		case WS_EVENT_CLOG:
			return WS_CLASS_CLOG;
		case WS_EVENT_WAL_MAPPING_LOCK:
			episode->caused = true;
			episode->cause = WS_CLASS_WAL_BUFFER_FULL;
			return WS_CLASS_WAL_BUFFER_FULL;
		case WS_EVENT_WAL_WRITE_LOCK:
			if (lock_mode == LW_EXCLUSIVE || lock_mode == LW_WAIT_UNTIL_FREE)
			{
				episode->caused = true;
				episode->cause = lock_mode == LW_EXCLUSIVE ?
					WS_CLASS_WAL_BUFFER_FULL : WS_CLASS_WAL_FLUSH;
			}
			break;
		case WS_EVENT_WAL_INSERT_LOCK:
			if (lock_mode == LW_EXCLUSIVE)
				return ring_full ? WS_CLASS_WAL_BUFFER_FULL : WS_CLASS_WAL_INSERT;
			break;
		case WS_EVENT_WAL_SYNC_IO:
			if (in_commit)
			{
				episode->caused = true;
				episode->cause = WS_CLASS_WAL_FLUSH;
			}
			break;
		case WS_EVENT_WAL_WRITE_IO:
			break;
		case WS_EVENT_NONE:
		case WS_EVENT_SLRU_IO:
			elog(ERROR, "event %d is not a stall event", (int) event);
	}
	if (episode->caused)
		return (WalStallClass) episode->cause;
	*by_ring = true;
	return ring_class;
}

const char *
ws_class_name(WalStallClass cls)
{
	Assert(cls >= 0 && cls < WS_NUM_CLASSES);
	return class_names[cls];
}

const char *
ws_class_kind(WalStallClass cls)
{
	return cls < WS_NUM_STALL_CLASSES ? "stall" : "io";
}
