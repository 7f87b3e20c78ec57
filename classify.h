/*-------------------------------------------------------------------------
 *
 * classify.h
 *		From wait events to wal_stall's events, groups and classes
 *		(classify.c): what the collector asks of every sample.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WAL_STALL_CLASSIFY_H
#define WAL_STALL_CLASSIFY_H

#include "wal_stall.h"

/*
 * What a wait event means to us.  classify.c maps every wait_event_info
 * value of the running server to one of these, by name; the rest of the
 * code speaks only in these terms.
 */
typedef enum WalStallEvent
{
	WS_EVENT_NONE = 0,
	WS_EVENT_WAL_INSERT_LOCK,	/* LWLock WALInsert */
	WS_EVENT_WAL_MAPPING_LOCK,	/* LWLock WALBufMapping */
	WS_EVENT_WAL_WRITE_LOCK,	/* LWLock WALWrite */
	WS_EVENT_WAL_WRITE_IO,		/* IO WALWrite, WALInitWrite */
	WS_EVENT_WAL_SYNC_IO,		/* IO WALSync, WALInitSync */
	WS_EVENT_CLOG,				/* LWLock XactSLRU, XactBuffer; IPC
								 * XactGroupUpdate */
	WS_EVENT_SLRU_IO			/* IO SLRURead, SLRUWrite, SLRUSync,
								 * SLRUFlushSync */
} WalStallEvent;

/* The episode a process slot is following, per tracker (stall or io). */
typedef enum WalStallGroup
{
	WS_GROUP_NONE = 0,
	WS_GROUP_WAL_PATH,			/* stall tracker: any WAL write-path event */
	WS_GROUP_CLOG,				/* stall tracker: CLOG lock events */
	WS_GROUP_WAL_WRITE,			/* io tracker */
	WS_GROUP_WAL_FSYNC,			/* io tracker */
	WS_GROUP_SLRU_IO			/* io tracker */
} WalStallGroup;

/* Event numbers looked at per wait class (classify.c) */
#define WS_MAX_EVENT_ID		1024

/*
 * Our meaning of every wait_event_info, as ws_classify_init() found the
 * running server's events: the collector looks up every process at every
 * tick, so the lookup is two loads and no branch to mispredict.
 */
typedef struct WalStallWaitTable
{
	uint8		row_of_class[256];	/* by wait class: a row of event[] */
	bool		idle_class[256];	/* by wait class: see ws_wait_is_idle() */
	/* WalStallEvent by row and event id; the rows: classes not tracked,
	 * LWLock, IO, IPC (classify.c) */
	uint8		event[4][WS_MAX_EVENT_ID];
} WalStallWaitTable;

extern WalStallWaitTable ws_wait_table;

extern void ws_classify_init(void);

/*
 * The wait events the collector tracks, by the names it matches on the
 * running server: the i-th of ws_tracked_event_count(), and the WAL
 * writer's sleep between rounds, which it looks up in the Activity class.
 * For the tests, which check every name against the server's own list.
 */
#define WS_WALWRITER_SLEEP_NAME "WalWriterMain"
extern int	ws_tracked_event_count(void);
extern const char *ws_tracked_event(int i, uint32 *wait_class);

/*
 * Our meaning of one wait_event_info value; WS_EVENT_NONE if untracked.  The
 * wait class is its top byte, the event the rest.
 */
static inline WalStallEvent
ws_classify_event(uint32 wait_event_info)
{
	uint32		id = wait_event_info & 0x00FFFFFF;
	uint8		row = ws_wait_table.row_of_class[wait_event_info >> 24];

	return (WalStallEvent) ws_wait_table.event[row][Min(id, WS_MAX_EVENT_ID - 1)] *
		(id < WS_MAX_EVENT_ID);
}

/*
 * Is a process in this wait idle, as far as stalls go?  Waiting for a
 * client, for work (the Activity events of background processes), for a
 * timeout, or in an extension's own wait: nothing it does can stall on WAL
 * or CLOG until it wakes up and works again.  0 (no wait) is a process on
 * CPU, or an unused PGPROC: the caller tells them apart.
 */
static inline bool
ws_wait_is_idle(uint32 wait_event_info)
{
	return ws_wait_table.idle_class[wait_event_info >> 24];
}

/* shared_state.h */
struct WalStallEpisode;

extern uint32 ws_walwriter_sleep_event(void);
extern WalStallGroup ws_stall_group(WalStallEvent event);
extern WalStallGroup ws_io_group(WalStallEvent event);
extern WalStallClass ws_io_class(WalStallGroup group);
extern WalStallClass ws_sample_class(struct WalStallEpisode *episode, WalStallEvent event,
									 uint8 lock_mode, bool in_commit, bool ring_full,
									 bool *by_ring);

#endif							/* WAL_STALL_CLASSIFY_H */
