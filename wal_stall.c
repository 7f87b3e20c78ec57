/*-------------------------------------------------------------------------
 *
 * wal_stall.c
 *		Entry point of wal_stall: GUCs, shared memory, the collector's
 *		registration.
 *
 * wal_stall makes WAL and CLOG stalls visible.  A background worker (the
 * collector, collector.c) samples the wait event of every process at a high
 * rate, follows each wait as an episode and classifies it; SQL functions
 * (views.c) read what it gathered.  Everything needs shared memory, so the
 * library must be in shared_preload_libraries; loaded any other way it does
 * nothing, and every function says what to set.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/autovacuum.h"
#include "replication/walsender.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "compat.h"
#include "queries.h"
#include "shared_state.h"
#include "wal_stall.h"

PG_MODULE_MAGIC;

/* GUCs */
double		ws_sample_interval_ms = 1.0;
double		ws_idle_interval_ms = 100.0;
double		ws_max_sample_interval_ms = WS_DEFAULT_MAX_SAMPLE_INTERVAL_MS;
int			ws_episode_sampling = WS_DEFAULT_EPISODE_SAMPLING;
int			ws_history_seconds = 3600;
bool		ws_save = true;

/* Pointers into the shared segment, set in every process by shmem startup. */
WalStallShared *ws_shared = NULL;
WalStallProcSlot *ws_slots = NULL;
WalStallSecond *ws_history = NULL;

static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
#ifdef WS_HAVE_SHMEM_REQUEST_HOOK
static shmem_request_hook_type prev_shmem_request_hook = NULL;
#endif

void		_PG_init(void);

/*
 * Number of PGPROC slots the collector follows: every backend and auxiliary
 * process.  The dummy PGPROCs of prepared transactions never wait.  Before
 * 15 MaxBackends is not known yet when shared memory is requested, so it is
 * computed from its parts the way the server does.
 */
static int
slot_count(void)
{
#ifdef WS_HAVE_SHMEM_REQUEST_HOOK
	return MaxBackends + NUM_AUXILIARY_PROCS;
#else
	return MaxConnections + autovacuum_max_workers + 1 +
		max_worker_processes + max_wal_senders + NUM_AUXILIARY_PROCS;
#endif
}

/* Bytes of shared memory: the state, one slot per process, the history. */
static Size
shared_size(void)
{
	Size		size = MAXALIGN(sizeof(WalStallShared));

	size = add_size(size, MAXALIGN(mul_size(slot_count(), sizeof(WalStallProcSlot))));
	size = add_size(size, mul_size(ws_history_seconds, sizeof(WalStallSecond)));
	return size;
}

/* Bytes of shared memory in all: ours, and the statement table's (queries.c). */
static Size
total_shared_size(void)
{
	return add_size(shared_size(), ws_queries_shmem_size(slot_count()));
}

/* Ask for our shared memory and our one LWLock. */
static void
request_shared_memory(void)
{
	RequestAddinShmemSpace(total_shared_size());
	RequestNamedLWLockTranche("wal_stall", 1);
}

#ifdef WS_HAVE_SHMEM_REQUEST_HOOK
static void
ws_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	request_shared_memory();
}
#endif

/*
 * ws_shmem_startup
 *		Create or attach to the shared state.
 *
 * After a crash the postmaster re-creates shared memory and this runs again:
 * the figures start from zero, which the started_at column tells.
 */
static void
ws_shmem_startup(void)
{
	bool		found;
	char	   *base;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ws_shared = ShmemInitStruct("wal_stall", shared_size(), &found);
	if (!found)
	{
		memset(ws_shared, 0, shared_size());
		ws_shared->lock = &(GetNamedLWLockTranche("wal_stall"))->lock;
		pg_atomic_init_u32(&ws_shared->await.s.flag, 0);
		ws_shared->nslots = slot_count();
		ws_shared->history_size = ws_history_seconds;
		ws_shared->figures.reset_at = GetCurrentTimestamp();
	}
	base = (char *) ws_shared + MAXALIGN(sizeof(WalStallShared));
	ws_slots = (WalStallProcSlot *) base;
	ws_history = (WalStallSecond *)
		(base + MAXALIGN(mul_size(ws_shared->nslots, sizeof(WalStallProcSlot))));
	ws_queries_shmem_init(ws_shared->nslots);

	/*
	 * The postmaster reloads what it saved at the last clean shutdown once
	 * the pointers are set, and saves again when it exits (persist.c).
	 */
	if (!found && !IsUnderPostmaster)
		ws_load_figures();
	if (!IsUnderPostmaster)
		on_shmem_exit(ws_shmem_shutdown, (Datum) 0);
	LWLockRelease(AddinShmemInitLock);
}

/*
 * ws_check_loaded
 *		Raise the error every SQL function gives when there is no shared state.
 */
void
ws_check_loaded(void)
{
	if (ws_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("wal_stall must be loaded via \"shared_preload_libraries\""),
				 errhint("Add wal_stall to the \"shared_preload_libraries\" setting and restart the server.")));
}

/*
 * wal_stall.sample_interval, wal_stall.max_sample_interval,
 * wal_stall.episode_sampling, wal_stall.idle_interval and wal_stall.save
 * (reload), and
 * wal_stall.history_seconds and wal_stall.max_queries (restart).
 */
static void
define_gucs(void)
{
	DefineCustomRealVariable("wal_stall.sample_interval",
							 "Time between two samples of every process's wait event.",
							 "Waits shorter than this are caught in proportion to their length.",
							 &ws_sample_interval_ms,
							 1.0, 0.1, WS_MAX_SAMPLE_INTERVAL_MS,
							 PGC_SIGHUP,
							 GUC_UNIT_MS,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("wal_stall.max_sample_interval",
							 "Longest time between two samples while every wait followed is long.",
							 "While every episode in progress, and the recent ones of every class seen, last at least twice as long (four times for wrap-arounds), "
							 "the collector samples less often, up to this; "
							 "set it to wal_stall.sample_interval or below to sample at a constant rate.",
							 &ws_max_sample_interval_ms,
							 WS_DEFAULT_MAX_SAMPLE_INTERVAL_MS, 0.1, WS_MAX_SAMPLE_INTERVAL_MS,
							 PGC_SIGHUP,
							 GUC_UNIT_MS,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("wal_stall.episode_sampling",
							"Under a load of short waits, count the episodes that begin in one burst of every this many.",
							"Where short waits alone keep the collector waking more often than bursts would, it samples at up to "
							"wal_stall.max_sample_interval between bursts of full-rate sampling, and each episode that begins in a burst "
							"counts for this many: episode counts and percentiles become estimates (wal_stall_summary.episodes_stderr); "
							"1 counts every episode.",
							&ws_episode_sampling,
							WS_DEFAULT_EPISODE_SAMPLING, 1, WS_MAX_EPISODE_SAMPLING,
							PGC_SIGHUP,
							0,
							NULL, NULL, NULL);

	DefineCustomRealVariable("wal_stall.idle_interval",
							 "Longest rest between two samples while nothing can stall.",
							 "While no process waits, and none at work inserts WAL, the collector stretches its interval up to this; "
							 "after a second with no process at work, a primary's rest awaits a statement until the second's close. "
							 "Set it to wal_stall.sample_interval or below to sample at a constant rate.",
							 &ws_idle_interval_ms,
							 100.0, 0.1, WS_MAX_SAMPLE_INTERVAL_MS,
							 PGC_SIGHUP,
							 GUC_UNIT_MS,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("wal_stall.history_seconds",
							"Number of one-second rows kept in the history ring.",
							NULL,
							&ws_history_seconds,
							3600, 2, 86400,
							PGC_POSTMASTER,
							GUC_UNIT_S,
							NULL, NULL, NULL);

	DefineCustomIntVariable("wal_stall.max_queries",
							"Number of (statement, stall class) entries wal_stall_queries keeps.",
							"When they are all taken, the entry stalled least recently (approximately) makes room.",
							&ws_max_queries,
							5000, 100, 1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("wal_stall.save",
							 "Save wal_stall's figures at clean shutdown and reload them at start.",
							 NULL,
							 &ws_save,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("wal_stall");
}

/*
 * _PG_init
 *		Settings, shared memory hooks and the collector, when preloaded.
 */
void
_PG_init(void)
{
	/*
	 * Without shared_preload_libraries there is no shared memory to use:
	 * stay inert, and let ws_check_loaded() explain in every function.
	 */
	if (!process_shared_preload_libraries_in_progress)
		return;

	define_gucs();

#ifdef WS_HAVE_SHMEM_REQUEST_HOOK
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ws_shmem_request;
#else
	request_shared_memory();
#endif
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ws_shmem_startup;

	/* pg_upgrade's server must not run extra processes */
	if (!IsBinaryUpgrade)
	{
		ws_register_collector();
		/* statements publish their query id for the collector (queries.c) */
		ws_queries_install_hooks();
	}
}
