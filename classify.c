/*-------------------------------------------------------------------------
 *
 * classify.c
 *		From wait events to wal_stall's events, groups and classes.
 *
 * Wait event numbers change between PostgreSQL versions and so do some
 * names (WALSync became WalSync in 17), so the mapping is built once, when
 * the collector starts, by asking the running server for the name of every
 * wait event of the three wait classes we care about and matching those
 * names case-insensitively.  The collector then looks events up in a small
 * array; nothing else in wal_stall knows a wait event by name or number.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "storage/lwlock.h"

#include "compat.h"
#include "wal_stall.h"

typedef struct WaitEventName
{
	uint32		wait_class;		/* PG_WAIT_LWLOCK, PG_WAIT_IO, PG_WAIT_IPC */
	const char *name;
	WalStallEvent event;
} WaitEventName;

static const WaitEventName tracked_names[] = {
	{PG_WAIT_LWLOCK, "WALInsert", WS_EVENT_WAL_INSERT_LOCK},
	{PG_WAIT_LWLOCK, "WALBufMapping", WS_EVENT_WAL_LOCK},
	{PG_WAIT_LWLOCK, "WALWrite", WS_EVENT_WAL_LOCK},
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

/* The wait class is the top byte of wait_event_info. */
#define WAIT_CLASS_MASK	0xFF000000U

/*
 * Event numbers scanned per wait class.  Built-in events are numbered from
 * zero and stay far below this; LWLock tranches are scanned only up to the
 * first user-defined one.
 */
#define MAX_EVENT_ID	1024

typedef struct TrackedEvent
{
	uint32		wait_event_info;
	WalStallEvent event;
} TrackedEvent;

/* Several names may resolve to one event on some version; leave room. */
static TrackedEvent tracked[NUM_TRACKED_NAMES * 2];
static int	num_tracked = 0;

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
track_matching_events(uint32 wait_class, uint32 max_id)
{
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
			if (num_tracked < (int) lengthof(tracked))
			{
				tracked[num_tracked].wait_event_info = info;
				tracked[num_tracked].event = tracked_names[i].event;
				num_tracked++;
			}
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
	num_tracked = 0;
	track_matching_events(PG_WAIT_LWLOCK, LWTRANCHE_FIRST_USER_DEFINED);
	track_matching_events(PG_WAIT_IO, MAX_EVENT_ID);
	track_matching_events(PG_WAIT_IPC, MAX_EVENT_ID);

	for (int i = 0; i < (int) NUM_TRACKED_NAMES; i++)
	{
		bool		found = false;

		for (int j = 0; j < num_tracked && !found; j++)
			found = (tracked[j].wait_event_info & WAIT_CLASS_MASK) ==
				tracked_names[i].wait_class &&
				pg_strcasecmp(pgstat_get_wait_event(tracked[j].wait_event_info),
							  tracked_names[i].name) == 0;
		if (!found)
			ereport(LOG,
					(errmsg("wait event \"%s\" not found on this server",
							tracked_names[i].name),
					 errdetail("wal_stall does not track it.")));
	}
}

/*
 * ws_classify_event
 *		Our meaning of one wait_event_info value; WS_EVENT_NONE if untracked.
 *
 * On the collector's hot path: a check of the wait class, then a scan of
 * a dozen integers.
 */
WalStallEvent
ws_classify_event(uint32 wait_event_info)
{
	uint32		wait_class = wait_event_info & WAIT_CLASS_MASK;

	/* idle backends wait in Client or Activity: decide those at once */
	if (wait_class != PG_WAIT_LWLOCK && wait_class != PG_WAIT_IO &&
		wait_class != PG_WAIT_IPC)
		return WS_EVENT_NONE;
	for (int i = 0; i < num_tracked; i++)
	{
		if (tracked[i].wait_event_info == wait_event_info)
			return tracked[i].event;
	}
	return WS_EVENT_NONE;
}

/*
 * ws_wait_is_idle
 *		Is a process in this wait idle, as far as stalls go?  Waiting for a
 *		client, for work (the Activity events of background processes), for
 *		a timeout, or in an extension's own wait: nothing it does can stall
 *		on WAL or CLOG until it wakes up and works again.  0 (no wait) is a
 *		process on CPU, or an unused PGPROC: the caller tells them apart.
 */
bool
ws_wait_is_idle(uint32 wait_event_info)
{
	uint32		wait_class = wait_event_info & WAIT_CLASS_MASK;

	return wait_class == PG_WAIT_ACTIVITY || wait_class == PG_WAIT_CLIENT ||
		wait_class == PG_WAIT_TIMEOUT || wait_class == PG_WAIT_EXTENSION;
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
		for (uint32 id = 0; id < MAX_EVENT_ID && info == 0; id++)
		{
			const char *name = pgstat_get_wait_event(PG_WAIT_ACTIVITY | id);

			if (name != NULL && pg_strcasecmp(name, "WalWriterMain") == 0)
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
		case WS_EVENT_WAL_LOCK:
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
 * ws_episode_class
 *		The class an episode is counted in.
 *
 * A WAL write-path episode is a wrap-around stall if the ring was full at
 * any of its ticks; otherwise it is an insertion-lock wait if it never left
 * the WALInsert lock, and a flush wait if it did.
 */
WalStallClass
ws_episode_class(const WalStallEpisode *episode)
{
	switch ((WalStallGroup) episode->group)
	{
		case WS_GROUP_WAL_PATH:
			if (episode->ring_full)
				return WS_CLASS_WAL_BUFFER_FULL;
			return episode->beyond_insert ? WS_CLASS_WAL_FLUSH : WS_CLASS_WAL_INSERT;
		case WS_GROUP_CLOG:
			return WS_CLASS_CLOG;
		case WS_GROUP_WAL_WRITE:
			return WS_CLASS_WAL_WRITE;
		case WS_GROUP_WAL_FSYNC:
			return WS_CLASS_WAL_FSYNC;
		case WS_GROUP_SLRU_IO:
			return WS_CLASS_SLRU_IO;
		case WS_GROUP_NONE:
			break;
	}
	elog(ERROR, "wal_stall: episode without a group");
	pg_unreachable();
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

/*
 * ws_hist_bucket
 *		Histogram bucket of an episode (see WS_HIST_BUCKETS): the first whose
 *		upper edge, base * 2^k + base / 2, is not below the duration; the
 *		last bucket takes everything longer.
 */
int
ws_hist_bucket(uint64 duration_ns, uint64 base_ns)
{
	int			k = 0;

	if (base_ns == 0)
		base_ns = 1;
	while (k < WS_HIST_BUCKETS - 1 && duration_ns > (base_ns << k) + base_ns / 2)
		k++;
	return k;
}

/*
 * ws_hist_bounds
 *		Edges of histogram bucket k, in nanoseconds: (lower, upper].
 */
void
ws_hist_bounds(int bucket, uint64 base_ns, double *lower_ns, double *upper_ns)
{
	double		half = base_ns / 2.0;

	*upper_ns = ldexp((double) base_ns, bucket) + half;
	*lower_ns = (bucket == 0) ? 0.0 : ldexp((double) base_ns, bucket - 1) + half;
}

/*
 * ws_histogram_percentile
 *		Estimate a percentile of episode length, in ms, from the histogram.
 *
 * Inside the bucket that holds it, episodes are taken as spread evenly over
 * the widest range around the bucket's mean that stays within the bucket:
 * one-sample episodes all sit near one interval, and spreading them over
 * the whole bucket would report half an interval for a single 1 ms episode.
 * Never above the longest episode seen.  Buckets are powers of two, and so
 * is the worst-case precision.
 */
double
ws_histogram_percentile(const WalStallClassStats *stats, uint64 base_ns, double fraction)
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
