/*-------------------------------------------------------------------------
 *
 * collector.c
 *		The wal_stall collector: a background worker that samples the wait
 *		event of every process, follows waits as episodes, and closes one
 *		history row a second.
 *
 * Every tick (at the interval cadence.c chooses: wal_stall.sample_interval,
 * 1 ms by default, or longer while that loses nothing):
 *	- read the WAL write LSN, the wait event of every PGPROC, then the WAL
 *	  insert LSN; the ring is "full" at this tick if the two LSNs are at
 *	  least one page short of the whole ring apart (see ring_full_mark());
 *	- weigh the tick by the real time elapsed since the previous one
 *	  (monotonic clock), so a late tick loses no time, up to
 *	  WS_SAMPLE_REACH_SLEEPS times the sleep that ended (longer gaps count
 *	  as unobserved);
 *	- per process, extend or close its stall and io episodes; a client's
 *	  WAL write-path sample is classified by its own lock mode, carried
 *	  through the I/O that follows, the ring's fill deciding only where no
 *	  lock mode has (ws_sample_class()), and the summary and the history
 *	  count each sample in that same class.
 * Every second: close a history row, reading the core counters for it.
 *
 * After a second the collector rested through with no process at work, on
 * a primary, its rest may await a statement: it sleeps until the next
 * second's close unless a top-level statement begins first, whose hook
 * wakes it (ws_statement_begins()).  An idle server then costs one
 * wake-up a second.  The tick a statement wakes counts the processes that
 * serve queries as idle since the previous tick, as they were: none of
 * them at work at that tick, and none began a statement since but the one
 * that woke us, just now.  Weighing what it sees of them by the whole sleep
 * would credit the statement with time before it began.  The sampling then
 * starts again at the sample interval.
 *
 * The tick is the hot path: no allocation, no catalog access, no lock that
 * backends take on their own paths except the two spinlocks behind
 * GetXLogWriteRecPtr() and GetXLogInsertRecPtr(), each held for a handful
 * of instructions; nothing per tick that can be done per second.
 *
 * Locking.  One LWLock, ws_shared->lock, guards wal_stall's shared memory,
 * but for the statement slots:
 *	- the collector holds it exclusively while it applies a tick or closes
 *	  a second; wal_stall_reset() holds it exclusively while it zeroes the
 *	  figures, the history, the query table and the episode slots; readers
 *	  hold it shared while they copy (the history and the query table a
 *	  batch at a time, so that no reader holds a tick back for long);
 *	- the episode slots (WalStallProcSlot) have two writers, both under the
 *	  lock: the collector, and a reset, which zeroes their episodes.  The
 *	  collector, their only reader without the lock, reads them during its
 *	  scan, so a read may be torn by a reset; reset_count counts the resets:
 *	  the collector compares it under the lock before it uses what it read,
 *	  and when it moved, reads the statements it copied from the episodes
 *	  again (reread_torn_statements());
 *	- a backend's statement slot (queries.c) is written by that backend
 *	  alone inside a change count; a read that sees the count move is tried
 *	  again, a few times, then takes the statement as unknown;
 *	- the await flag (WalStallAwait) is an atomic, set by the collector
 *	  before the scan of a tick whose rest may await a statement and cleared
 *	  when the rest does not, and cleared by the first backend whose
 *	  statement begins then, which sets the collector's latch; both sides
 *	  put a full barrier
 *	  between their own write (the flag; the backend's leaving its idle
 *	  wait event) and their read of the other's, so either the scan sees
 *	  the backend at work or the backend sees the flag;
 *	- the PGPROC fields (wait_event_info, pid, lwWaitMode, the latch's
 *	  owner, lockGroupLeader, roleId, databaseId, delayChkpt(Flags)) are read
 *	  without a lock, as pg_stat_activity reads wait events: each is one
 *	  aligned load, so a value may be a tick old, never torn.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "cadence.h"
#include "classify.h"
#include "compat.h"
#include "counters.h"
#include "histogram.h"
#include "queries.h"
#include "shared_state.h"
#include "wal_stall.h"

#define NS_PER_SEC	UINT64CONST(1000000000)
#define NS_PER_MSEC	UINT64CONST(1000000)

/*
 * 2^64 over the golden ratio, mixed into the bursts' seed with the pid and
 * the clock: its bits spread theirs
 */
#define WS_SEED_MIX	UINT64CONST(0x9E3779B97F4A7C15)

/*
 * One process the tick must visit, as seen at this tick, gathered before
 * taking our lock.
 */
typedef struct ProcSample
{
	int			slot;			/* its PGPROC slot */
	bool		skip;			/* not waiting in a tracked event, nothing open */
	int			pid;			/* 0: slot not in use */
	int			latch_owner;	/* its latch's owner: the pid while live */
	uint32		wait_event_info;
	WalStallEvent event;
	uint8		lock_mode;		/* PGPROC.lwWaitMode, for an LWLock event */
	bool		in_commit;		/* inside its commit, for a WAL I/O event */
	bool		serves_queries;
	WalStallStatement statement;	/* read only while in a tracked wait */
	bool		statement_from_slot;	/* copied from its episode slot */
} ProcSample;

/*
 * The free list a PGPROC slot belongs to.  InitProcGlobal() puts every slot
 * in one list for good (InitProcess() asserts it), so the collector looks
 * once, at its start, instead of reading procgloballist at every tick: that
 * field shares a cache line with the latch, which its process writes
 * often, and reading it costs a cache miss per process at work per tick.
 */
typedef enum ProcPool
{
	POOL_OTHER = 0,				/* autovacuum, walsenders, auxiliary */
	POOL_CLIENTS,				/* freeProcs: client backends */
	POOL_BGWORKERS				/* bgworkerFreeProcs: background workers */
} ProcPool;

/*
 * What the collector keeps of each slot in its own memory, so that a tick
 * reads and writes the slot's shared WalStallProcSlot only where there is
 * something to follow: a slot in an untracked wait costs a read of its
 * PGPROC's wait event (and of its lock group, for a background worker at
 * work), nothing in shared slots.
 */
typedef struct SlotState
{
	uint8		pool;			/* the slot's ProcPool, fixed (slot_pool()) */
	bool		maybe_open;		/* an episode may be open in ws_slots (a
								 * reset only closes them: this errs on the
								 * side of looking) */
	bool		published;		/* ws_slots' wait_event_info is not 0 */
	bool		unused;			/* no live process at the last look (below) */
} SlotState;

/*
 * A slot found unused whose wait event still reads 0 is looked at again
 * (its pid read) only every this many ticks, resting or not.  A process
 * that takes the slot shows at once by its wait event when it waits,
 * tracked or not (a client backend waits for its first query), so no
 * stall goes unseen; only a new process that stays on CPU is counted as
 * active (active_backends, and the cadence's "a process is busy") up to
 * this many ticks late, a second while resting.  With max_connections well
 * above the clients, most slots are unused, and reading their pids would
 * cost a cache miss each per tick, on an idle server too.
 */
#define WS_UNUSED_RECHECK_TICKS	10

/*
 * What the scan of one tick gathers, and what the collector keeps of each
 * slot and of the WAL ring from one tick to the next.
 */
typedef struct CollectorScan
{
	int			nscanned;		/* slots followed: fixed at server start */
	SlotState  *slot_state;		/* one per slot */
	uint32	   *wait_infos;		/* the wait events read at this tick */
	ProcSample *samples;		/* the first nsamples: slots to visit */
	int			nsamples;
	int			active_clients; /* processes serving queries at work */
	bool		client_mid_statement;	/* one in an idle wait but ClientRead */
	bool		writer_asleep;	/* the WAL writer slept at this tick */
	uint32		writer_sleep_event; /* its wait event then */
	WalStallTickSeen seen;		/* what the tick saw, for the cadence */
	XLogRecPtr	last_insert;	/* the insert LSN at the previous tick */
	bool		ring_full_before;	/* at the previous tick */
} CollectorScan;

/* What the ticks of the current second add up to, for its history row. */
typedef struct SecondSums
{
	uint64		elapsed_ns;
	int64		ticks;
	int64		rested_ticks;	/* ticks that ended a rest */
	bool		saw_work;		/* a process at work at some tick */
	double		fill_max;
	double		fill_weighted;	/* sum of occupancy * elapsed_ns */
	uint64		stall_ns[WS_NUM_STALL_CLASSES];
	uint64		fsync_max_ns;
	double		waiting_weighted;	/* sum of waiting processes * elapsed_ns */
	double		active_weighted;	/* sum of active processes * elapsed_ns */
	double		stall_interval_weighted;	/* sum of the sampling interval *
											 * weight of every stall sample */
	bool		in_recovery;	/* at some tick of the second */
} SecondSums;

/* The history row being gathered, and what rows carry to the next. */
typedef struct CollectorSecond
{
	SecondSums	sum;
	uint64		started_ns;		/* monotonic clock at its start */
	WalStallCounters last_counters; /* at its start */
	bool		timing_was_on;	/* track_wal_io_timing then */
	bool		idle;			/* the last row closed saw no process at work
								 * and every tick of it ended a rest */
	uint64		seen_reset_count;
	XLogRecPtr	ckpt_started_redo;	/* at the last row closed */
	XLogRecPtr	ckpt_done_redo;
} CollectorSecond;

static CollectorScan scan;
static CollectorSecond second;
static WalStallCadence cadence;

/*
 * ws_register_collector
 *		Register the collector as a background worker (from _PG_init).
 */
void
ws_register_collector(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	/* on a hot standby too: WAL receiver I/O and CLOG waits are real there */
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	/* back within a second after any exit, crash restarts included */
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "wal_stall");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "wal_stall_collector_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "wal_stall collector");
	snprintf(worker.bgw_type, BGW_MAXLEN, "wal_stall collector");
	RegisterBackgroundWorker(&worker);
}

/* Monotonic clock in nanoseconds (a vDSO call on Linux, not a syscall). */
static inline uint64
monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * NS_PER_SEC + (uint64) ts.tv_nsec;
}

static uint64
interval_ns_from_guc(void)
{
	return (uint64) (ws_sample_interval_ms * WS_NS_PER_MS);
}

/* The cadence's settings, from ours and the server's. */
static WalStallCadenceSettings
cadence_settings(void)
{
	WalStallCadenceSettings settings;

	StaticAssertStmt(WS_NUM_CLASSES <= WS_CADENCE_MAX_CLASSES,
					 "the cadence follows every class");
	settings.sample_ns = interval_ns_from_guc();
	settings.max_ns = (uint64) (ws_max_sample_interval_ms * WS_NS_PER_MS);
	settings.idle_ns = (uint64) (ws_idle_interval_ms * WS_NS_PER_MS);
	settings.episode_sampling = ws_episode_sampling;
	/* the ring's size follows wal_buffers, fixed at server start */
	settings.ring_bytes = ws_ring_bytes();
	settings.nclasses = WS_NUM_CLASSES;
	/* the stall classes, what clients wait on, choose the interval */
	settings.ndeciding = WS_NUM_STALL_CLASSES;
	settings.wrap_class = WS_CLASS_WAL_BUFFER_FULL;
	return settings;
}

/*
 * Occupancy, in bytes, at which the ring counts as full.  An inserter blocked
 * on the ring has reserved space in a page whose slot still holds an
 * unwritten page one ring earlier, so insert - write exceeds the ring less
 * one page.  The write LSN is read before the wait events and the insert LSN
 * after them, so what we compute is never less than the true occupancy at
 * the instant a wait is seen: a wrap-around is never missed, and the
 * slack of one page absorbs what is reserved during the scan.
 */
static uint64
ring_full_mark(void)
{
	uint64		ring = ws_ring_bytes();

	return ring > XLOG_BLCKSZ ? ring - XLOG_BLCKSZ : ring;
}

/*
 * Is this PGPROC slot in use by a live process?  Before 17 a PGPROC keeps
 * its pid after the process exits, but the process always disowns its
 * latch, so a slot is live only while its latch has the slot's pid as owner.
 */
static inline bool
sample_is_live(const ProcSample *s)
{
	return s->pid != 0 && s->latch_owner == s->pid;
}

/* The pool of a PGPROC slot (see ProcPool), read once at the start. */
static uint8
slot_pool(PGPROC *proc)
{
	void	   *pool = (void *) proc->procgloballist;

	if (pool == (void *) &ProcGlobal->freeProcs)
		return POOL_CLIENTS;
	if (pool == (void *) &ProcGlobal->bgworkerFreeProcs)
		return POOL_BGWORKERS;
	return POOL_OTHER;
}

/*
 * Does this process serve queries, i.e. is its waiting felt by a client?
 * Client backends come from the freeProcs pool in every version; parallel
 * workers are background workers that belong to another process's lock
 * group.  Autovacuum, walsenders, other background workers and auxiliary
 * processes do not.
 */
static inline bool
proc_serves_queries(PGPROC *proc, uint8 pool)
{
	PGPROC	   *leader;

	if (pool == POOL_CLIENTS)
		return true;
	if (pool != POOL_BGWORKERS)
		return false;
	leader = proc->lockGroupLeader;
	return leader != NULL && leader != proc;
}

/*
 * sample_statement
 *		The statement of a process in a tracked wait, for the episodes this
 *		sample may begin.  A wait that goes on in the same groups begins no
 *		episode but by a change of class, and then within the same wait, so
 *		it keeps the statement its episode began with: the statement slot is
 *		read (a cache line the backend writes at every statement) only when
 *		an episode may begin.
 *
 *		The episode slot is read without our lock, which only a reset takes
 *		to write it besides us: a reset during the scan can leave this copy
 *		torn, and reread_torn_statements() replaces it then.
 */
static void
sample_statement(PGPROC *proc, ProcSample *s, const WalStallProcSlot *slot)
{
	WalStallGroup stall_group = s->serves_queries ?
		ws_stall_group(s->event) : WS_GROUP_NONE;
	WalStallGroup io_group = ws_io_group(s->event);

	s->statement_from_slot = slot->pid == s->pid &&
		stall_group == slot->stall.group && io_group == slot->io.group;
	if (s->statement_from_slot)
	{
		ws_test_reset_at_statement_copy(s->pid);
		s->statement = stall_group != WS_GROUP_NONE ?
			slot->stall.statement : slot->io.statement;
	}
	else
		ws_queries_read_statement(proc, &s->statement);
}

/*
 * reread_torn_statements
 *		After a reset seen at this tick (reset_count moved since the last
 *		one), the statements sample_statement() copied from episode slots
 *		may mix the slot before the reset's memset with the slot after it;
 *		the reset dropped those episodes anyway, so each such sample begins
 *		a new one and takes its statement from the process's statement slot
 *		instead, which has a change count of its own (queries.c).
 */
static void
reread_torn_statements(void)
{
	PGPROC	   *procs = ProcGlobal->allProcs;

	for (int k = 0; k < scan.nsamples; k++)
	{
		ProcSample *s = &scan.samples[k];

		if (s->skip || !s->statement_from_slot)
			continue;
		ws_queries_read_statement(&procs[s->slot], &s->statement);
		s->statement_from_slot = false;
	}
}

/*
 * read_wait_events
 *		The wait event of every slot, in a loop that does nothing else.
 *		Each read is a cache miss (a process writes that line all the time,
 *		and fast-path locks live beside it); with no work between them the
 *		processor keeps many in flight at once, where a loop that acts on
 *		each value would wait for them one after another.
 */
static void
read_wait_events(PGPROC *procs, int n)
{
	for (int i = 0; i < n; i++)
		scan.wait_infos[i] = *((volatile uint32 *) &procs[i].wait_event_info);
}

/* The same for the pid and the latch's owner of the slots to visit. */
static void
read_pids(PGPROC *procs)
{
	for (int k = 0; k < scan.nsamples; k++)
	{
		PGPROC	   *proc = &procs[scan.samples[k].slot];

		scan.samples[k].pid = *((volatile int *) &proc->pid);
		scan.samples[k].latch_owner = *((volatile int *) &proc->procLatch.owner_pid);
	}
}

/*
 * sort_slots
 *		What the wait events alone tell: the slots in an untracked wait are
 *		counted here, the others listed in scan.samples[] for a closer look.
 *
 * Every slot passes here at every tick, and what its process does changes
 * from tick to tick, so a branch on it would be mispredicted about once a
 * slot: the decisions are computed, not branched on, and a slot is listed
 * by writing its entry in any case and counting it only if it is to be
 * visited.  A slot in an untracked wait with nothing open is visited only
 * to clear the wait event it published (skip).
 */
static void
sort_slots(PGPROC *procs, int n, bool recheck_unused)
{
	for (int i = 0; i < n; i++)
	{
		uint32		info = scan.wait_infos[i];
		SlotState  *state = &scan.slot_state[i];
		WalStallEvent event = ws_classify_event(info);
		ProcSample *s = &scan.samples[scan.nsamples];
		bool		zero = (info == 0);
		bool		quiet_unused = zero & state->unused & !recheck_unused &
			!state->maybe_open & !state->published;
		bool		untracked = !((event != WS_EVENT_NONE) | state->maybe_open | zero);
		bool		busy = untracked & !ws_wait_is_idle(info);

		scan.seen.process_busy |= busy;
		/* the branches in there follow the slot's pool, fixed per slot */
		scan.active_clients += busy & proc_serves_queries(&procs[i], state->pool);
		/* a pg_sleep(), a cost-based vacuum delay, a row sent to a slow client */
		if (untracked & !busy & (info != WAIT_EVENT_CLIENT_READ) & (state->pool != POOL_OTHER))
			scan.client_mid_statement |= proc_serves_queries(&procs[i], state->pool);
		scan.writer_asleep |= untracked & (info == scan.writer_sleep_event);
		/* a process is there if it is in any wait */
		state->unused &= zero;

		s->slot = i;
		s->skip = untracked;
		s->statement_from_slot = false;
		s->event = event;
		s->wait_event_info = untracked ? 0 : info;
		scan.nsamples += (!untracked & !quiet_unused) | (untracked & state->published);
	}
}

/*
 * scan_processes
 *		Read wait event, pid and kind of every PGPROC slot we follow, list
 *		in scan.samples[] the slots apply_samples() must visit, and note in
 *		"seen" whether anything could stall (cadence.c).
 *
 * Reads other processes' PGPROCs without locks: each field is a single
 * aligned word, and a stale value costs at most one sample.  The lock mode
 * of a WAL lock wait (lwWaitMode) is read after its wait event, behind a
 * read barrier: the waiter stores the mode before it reports the wait
 * event (LWLockQueueSelf, then a spinlock release, then
 * LWLockReportWaitStart), so the mode read belongs to the wait seen or to
 * a later one.  A later one means the process woke and queued again
 * between our two reads, and then the event read is one tick stale
 * anyway: the pair costs at most that one sample, like any other stale
 * read here.
 *
 * The wait events are read first, all of them: a slot whose process is in
 * an untracked wait and that has no episode open needs nothing else, which
 * keeps the tick cheap with many clients and a high max_connections.  In
 * no wait at all a process is on CPU, or the slot is unused: the pid
 * tells, read next for the slots that need it.  Whether a slot may have
 * an episode open is our own note (SlotState), so the shared slot is not
 * read for it.
 */
static void
scan_processes(bool recheck_unused)
{
	PGPROC	   *procs = ProcGlobal->allProcs;

	scan.seen.tracked_wait = false;
	scan.seen.episode_open = false;
	scan.seen.process_busy = false;
	scan.active_clients = 0;
	scan.client_mid_statement = false;
	scan.writer_asleep = false;
	scan.nsamples = 0;

	read_wait_events(procs, scan.nscanned);
	sort_slots(procs, scan.nscanned, recheck_unused);
	read_pids(procs);
	for (int k = 0; k < scan.nsamples; k++)
	{
		ProcSample *s = &scan.samples[k];
		int			i = s->slot;
		PGPROC	   *proc = &procs[i];
		bool		open = scan.slot_state[i].maybe_open;

		if (s->skip)
			continue;
		/* our own slot we never follow: as good as unused */
		scan.slot_state[i].unused = proc == MyProc || !sample_is_live(s);
		if (scan.slot_state[i].unused)
		{
			s->skip = !open;
			s->pid = 0;
			s->wait_event_info = 0;
			s->event = WS_EVENT_NONE;
			scan.seen.episode_open |= open;
			continue;
		}
		if (s->event == WS_EVENT_NONE && !open)
		{
			/* alive and on CPU */
			s->skip = true;
			scan.seen.process_busy = true;
			scan.active_clients += proc_serves_queries(proc, scan.slot_state[i].pool);
			continue;
		}
		if (s->event == WS_EVENT_WAL_WRITE_LOCK ||
			s->event == WS_EVENT_WAL_MAPPING_LOCK ||
			s->event == WS_EVENT_WAL_INSERT_LOCK)
		{
			pg_read_barrier();
			s->lock_mode = *((volatile uint8 *) &proc->lwWaitMode);
		}
		else if (s->event == WS_EVENT_WAL_SYNC_IO)
			s->in_commit = ws_proc_in_commit(proc);
		s->serves_queries = proc_serves_queries(proc, scan.slot_state[i].pool);
		/* at work, as sort_slots() counts: not in an idle wait its open episode ends at */
		scan.active_clients += s->serves_queries &&
			!(s->event == WS_EVENT_NONE && ws_wait_is_idle(s->wait_event_info));
		/* an episode can start only in a tracked wait */
		if (s->event != WS_EVENT_NONE)
			sample_statement(proc, s, &ws_slots[i]);
		scan.seen.tracked_wait |= (s->event != WS_EVENT_NONE);
		scan.seen.episode_open |= open;
	}
}

/*
 * An episode's length: the time of its samples, its first one counting at
 * most its own sampling interval (ws_first_sample_length()).
 */
static uint64
episode_length_ns(const WalStallEpisode *episode)
{
	return episode->time_ns - episode->first_ns +
		ws_first_sample_length(episode->first_ns, episode->first_interval_ns);
}

/*
 * count_episode
 *		Count the samples an episode has gathered in its class, as the
 *		episodes its count weight says (one; in a burst the N it stands
 *		for; none when it began outside the burst: then it adds its
 *		samples, time and length to the figures, but no episode), and for
 *		the statement its process ran when it began.  Needs our lock
 *		exclusively.
 */
static void
count_episode(WalStallEpisode *episode)
{
	WalStallClass cls = (WalStallClass) episode->cls;
	WalStallClassStats *stats;
	WalStallFigures *figures = &ws_shared->figures;
	uint64		length_ns;
	int64		weight = episode->count_weight;
	int			bucket;

	if (episode->group == WS_GROUP_NONE || episode->samples == 0)
		return;

	/* total_ms takes every sample's weight; the length, the wait's span */
	length_ns = episode_length_ns(episode);
	if (weight > 0)
		ws_cadence_note_closed(&cadence, cls, length_ns, (uint32) weight);

	stats = &figures->classes[cls];
	/* a loaded count may stand near the bound: stop there, never wrap */
	stats->episodes = ws_add_count(stats->episodes, weight);
	stats->samples = ws_add_count(stats->samples, episode->samples);
	stats->total_ns = ws_add_ns(stats->total_ns, episode->time_ns);
	figures->interval_weighted[cls] += episode->interval_weighted;
	stats->max_ns = Max(stats->max_ns, length_ns);
	if (weight > 0)
	{
		figures->episodes_counted[cls] = ws_add_count(figures->episodes_counted[cls], 1);
		bucket = ws_hist_bucket(length_ns, figures->hist_base_ns);
		stats->hist[bucket] = ws_add_count(stats->hist[bucket], weight);
		stats->hist_ns[bucket] = ws_add_ns(stats->hist_ns[bucket], weight * length_ns);
	}
	ws_queries_charge(&episode->statement, cls, weight, episode->samples,
					  episode->time_ns, length_ns, figures->hist_base_ns);

	if (cls == WS_CLASS_WAL_FSYNC)
		second.sum.fsync_max_ns = Max(second.sum.fsync_max_ns, length_ns);

	episode->samples = 0;
	episode->time_ns = 0;
	episode->first_ns = 0;
	episode->first_interval_ns = 0;
	episode->count_weight = 0;
	episode->interval_weighted = 0;
}

/* Count a finished wait and forget it.  Needs our lock exclusively. */
static void
close_episode(WalStallEpisode *episode)
{
	count_episode(episode);
	memset(episode, 0, sizeof(*episode));
}

/*
 * enter_group
 *		Close the wait a process is in when it moves to another group (or
 *		stopped waiting).  Returns true when a new wait begins.
 */
static bool
enter_group(WalStallEpisode *episode, WalStallGroup group)
{
	if (episode->group == group)
		return false;
	close_episode(episode);
	episode->group = group;
	return group != WS_GROUP_NONE;
}

/*
 * follow
 *		Extend the episode by one sample of class cls, taken at the sampling
 *		interval interval_ns; when the class differs from that of the
 *		samples so far, count those as an episode of their own and begin
 *		another, within the same wait.  An episode belongs to the statement
 *		seen at its first sample (the statement may end before the episode
 *		does) and takes its count weight from the cadence.
 */
static void
follow(WalStallEpisode *episode, WalStallClass cls,
	   const WalStallStatement *statement, uint64 elapsed_ns, uint64 interval_ns)
{
	if (episode->samples > 0 && episode->cls != (uint8) cls)
		count_episode(episode);
	if (episode->samples == 0)
	{
		episode->first_ns = elapsed_ns;
		episode->first_interval_ns = interval_ns;
		episode->count_weight = ws_cadence_episode_weight(&cadence, cls);
		episode->statement = *statement;
		episode->cls = (uint8) cls;
	}
	episode->samples++;
	episode->time_ns += elapsed_ns;
	/* the wait's first sample, like an episode's, counts at most an interval */
	episode->wait_ns += episode->wait_ns == 0 ?
		ws_first_sample_length(elapsed_ns, interval_ns) : elapsed_ns;
	episode->interval_weighted += (double) interval_ns * (double) elapsed_ns;
	/* its age as its length will count it: a rest before it is no age */
	ws_cadence_note_open(&cadence, cls, episode_length_ns(episode),
						 episode->count_weight > 0);
}

/*
 * apply_samples
 *		Advance the episodes of every slot the scan listed by this tick,
 *		taken at the sampling interval interval_ns; clients_idle: the
 *		processes that serve queries count as idle (a tick a statement
 *		woke).  Note in SlotState what is left open.  Needs our lock
 *		exclusively.  Returns the number of processes in a stall class.
 */
static int
apply_samples(bool ring_full, uint64 elapsed_ns, uint64 interval_ns, bool clients_idle)
{
	int			waiting = 0;

	for (int k = 0; k < scan.nsamples; k++)
	{
		ProcSample *s = &scan.samples[k];
		int			i = s->slot;
		SlotState  *state = &scan.slot_state[i];
		WalStallProcSlot *slot = &ws_slots[i];
		WalStallEvent event = (clients_idle && s->serves_queries) ? WS_EVENT_NONE : s->event;
		WalStallGroup stall_group;
		WalStallGroup io_group;

		if (s->skip)
		{
			if (state->published)
				slot->wait_event_info = 0;
			state->published = false;
			continue;
		}
		if (slot->pid != s->pid)
		{
			/* the process went away, or another one took its slot */
			close_episode(&slot->stall);
			close_episode(&slot->io);
			slot->pid = s->pid;
		}
		slot->wait_event_info = (event == WS_EVENT_NONE) ? 0 : s->wait_event_info;
		stall_group = s->serves_queries ? ws_stall_group(event) : WS_GROUP_NONE;
		io_group = ws_io_group(event);

		if (enter_group(&slot->stall, stall_group) && stall_group == WS_GROUP_WAL_PATH)
		{
			ws_shared->figures.wal_path_waits =
				ws_add_count(ws_shared->figures.wal_path_waits, 1);
			if (event == WS_EVENT_WAL_WRITE_IO || event == WS_EVENT_WAL_SYNC_IO)
				ws_shared->figures.wal_path_waits_io_first =
					ws_add_count(ws_shared->figures.wal_path_waits_io_first, 1);
		}
		if (stall_group != WS_GROUP_NONE)
		{
			bool		by_ring;
			WalStallClass cls = ws_sample_class(&slot->stall, event, s->lock_mode,
												s->in_commit, ring_full, &by_ring);

			follow(&slot->stall, cls, &s->statement, elapsed_ns, interval_ns);
			/* the history's row takes the very same class */
			second.sum.stall_ns[cls] += elapsed_ns;
			second.sum.stall_interval_weighted += (double) interval_ns * elapsed_ns;
			if (by_ring)
				ws_shared->figures.ring_rule_ns =
					ws_add_ns(ws_shared->figures.ring_rule_ns, elapsed_ns);
			/* for wal_stall_advice(): did the WAL writer sleep through it? */
			if (cls == WS_CLASS_WAL_BUFFER_FULL && scan.writer_asleep)
				ws_shared->figures.wrap_writer_asleep_ns =
					ws_add_ns(ws_shared->figures.wrap_writer_asleep_ns, elapsed_ns);
			waiting++;
		}
		enter_group(&slot->io, io_group);
		if (io_group != WS_GROUP_NONE)
			follow(&slot->io, ws_io_class(io_group), &s->statement, elapsed_ns,
				   interval_ns);
		state->published = slot->wait_event_info != 0;
		state->maybe_open = slot->stall.group != WS_GROUP_NONE ||
			slot->io.group != WS_GROUP_NONE;
	}
	return waiting;
}

/*
 * start_second
 *		Begin a new history row at now_ns, from the given core counters.
 */
static void
start_second(uint64 now_ns, const WalStallCounters *counters)
{
	memset(&second.sum, 0, sizeof(second.sum));
	second.last_counters = *counters;
	second.started_ns = now_ns;
	second.timing_was_on = track_wal_io_timing;
}

/*
 * notice_reset
 *		After a wal_stall_reset() the history starts again: the next row
 *		covers the time from the reset on, from the core counters the reset
 *		took as its baseline (read by the resetting backend an instant
 *		before), and the accumulators of the interrupted second are
 *		dropped.  Needs our lock.  Returns true after a reset.
 */
static bool
notice_reset(uint64 now_ns)
{
	if (ws_shared->reset_count == second.seen_reset_count)
		return false;
	second.seen_reset_count = ws_shared->reset_count;
	start_second(now_ns, &ws_shared->figures.baseline);
	ws_shared->figures.timing_off_seen = !track_wal_io_timing;
	/* what the bursts counted before it goes with the figures */
	ws_cadence_reset(&cadence);
	return true;
}

/*
 * read_ring
 *		Read the WAL write position, scan the processes, then read the
 *		insert position; set *full_at_tick and *fill.  During recovery no WAL is
 *		inserted: the ring is never full, and its occupancy unknown (-1).
 */
static void
read_ring(bool in_recovery, bool recheck_unused, bool *full_at_tick, double *fill)
{
	XLogRecPtr	write_before;
	XLogRecPtr	insert_after;

	if (in_recovery)
	{
		*full_at_tick = false;
		*fill = -1;
		/* nothing is inserted: the ring cannot wrap */
		scan.seen.inserted_bytes = 0;
		scan.seen.rate_unknown = false;
		scan.last_insert = InvalidXLogRecPtr;
		scan_processes(recheck_unused);
		return;
	}
	write_before = GetXLogWriteRecPtr();
	scan_processes(recheck_unused);
	insert_after = GetXLogInsertRecPtr();

	/* the first tick (or the first after recovery) has no rate yet */
	scan.seen.rate_unknown = XLogRecPtrIsInvalid(scan.last_insert) ||
		insert_after < scan.last_insert;
	scan.seen.inserted_bytes = scan.seen.rate_unknown ? 0 :
		insert_after - scan.last_insert;
	scan.last_insert = insert_after;

	*full_at_tick = insert_after > write_before &&
		insert_after - write_before >= ring_full_mark();
	*fill = ws_ring_occupancy(insert_after, write_before);
}

/*
 * record_tick
 *		The collector's own figures of this tick (wal_stall_status()) and the
 *		variances its cadence took, with the cost of the previous tick's
 *		work.  Needs our lock exclusively.
 */
static void
record_tick(const WalStallTick *tick, bool in_recovery, uint64 last_cost_ns)
{
	uint64		elapsed_ns = tick->elapsed_ns;

	for (int c = 0; c < WS_NUM_CLASSES; c++)
		ws_shared->figures.episodes_var[c] =
			ws_add_count(ws_shared->figures.episodes_var[c],
						 ws_cadence_take_variance(&cadence, c));
	ws_shared->ticks++;
	ws_shared->figures.reset_ticks = ws_add_count(ws_shared->figures.reset_ticks, 1);
	if (!tick->rested)
	{
		ws_shared->figures.reset_full_rate_ticks =
			ws_add_count(ws_shared->figures.reset_full_rate_ticks, 1);
		ws_shared->figures.reset_full_rate_ns =
			ws_add_ns(ws_shared->figures.reset_full_rate_ns, elapsed_ns);
	}
	ws_shared->in_recovery = in_recovery;
	if (tick->late)
		ws_shared->overruns++;
	ws_shared->unobserved_ns += tick->unobserved_ns;
	if (tick->rested)
		ws_shared->rest_ns += elapsed_ns;
	ws_shared->current_interval_ns = tick->slept_ns;
	ws_shared->tick_cost_ns += last_cost_ns;
	ws_shared->max_tick_cost_ns = Max(ws_shared->max_tick_cost_ns, last_cost_ns);
}

/* Add this tick, weighed by its elapsed time, to the second's row. */
static void
add_to_second(const WalStallTick *tick, bool in_recovery, double fill, int waiting)
{
	uint64		elapsed_ns = tick->elapsed_ns;

	second.sum.elapsed_ns += elapsed_ns;
	second.sum.ticks++;
	second.sum.rested_ticks += tick->rested;
	second.sum.saw_work |= scan.seen.process_busy;
	if (in_recovery)
		second.sum.in_recovery = true;
	else
	{
		second.sum.fill_max = Max(second.sum.fill_max, fill);
		second.sum.fill_weighted += fill * elapsed_ns;
	}
	second.sum.waiting_weighted += (double) waiting * elapsed_ns;
	if (!tick->woken)
		second.sum.active_weighted += (double) scan.active_clients * elapsed_ns;
}

/* No tick of the current second so far saw work, and each ended a rest. */
static bool
second_quiet_so_far(void)
{
	return !second.sum.saw_work && second.sum.rested_ticks == second.sum.ticks;
}

/*
 * may_await_statement
 *		May the rest after this tick await a statement?  After a second with
 *		no process at work (the last one closed and this one so far, or the
 *		one this tick closes), on a primary, from a rest at its longest.
 */
static bool
may_await_statement(const WalStallTick *tick, bool closing, bool in_recovery)
{
	/* a second awaited whole has no tick of its own until this one */
	return !in_recovery && tick->rested && !tick->woken &&
		tick->slept_ns >= cadence.settings.idle_ns && second_quiet_so_far() &&
		(second.idle || (closing && second.sum.ticks > 0));
}

/*
 * collector_tick
 *		One sample of every process, weighed as the cadence says.  The cost
 *		of the previous tick's work is recorded here too, so that a tick
 *		takes our lock only once.  second_close_ns is when the current
 *		second's row closes: the next rest may await a statement until the
 *		close after this tick.  Returns true if a reset happened since the
 *		previous tick: the caller then starts counting the second afresh.
 */
static bool
collector_tick(uint64 now_ns, const WalStallTick *tick, uint64 last_cost_ns,
			   uint64 second_close_ns)
{
	bool		in_recovery = RecoveryInProgress();
	bool		closing = now_ns >= second_close_ns;
	bool		may_await = may_await_statement(tick, closing, in_recovery);
	bool		full_at_tick;
	bool		ring_full;
	double		fill;
	int			waiting;
	bool		was_reset;

	/*
	 * Set before the scan: a statement that begins after the scan looked
	 * at its process finds it set and wakes us.  Such a tick also looks at
	 * the unused slots, once a second while awaiting.
	 */
	if (may_await)
	{
		pg_atomic_write_u32(&ws_shared->await.s.flag, 1);
		pg_memory_barrier();
	}
	read_ring(in_recovery,
			  may_await || ws_shared->ticks % WS_UNUSED_RECHECK_TICKS == 0,
			  &full_at_tick, &fill);
	/* a client in an idle wait mid-statement would begin none to wake us */
	scan.seen.second_end_ns = (may_await && !scan.client_mid_statement) ?
		second_close_ns + (closing ? NS_PER_SEC : 0) : 0;

	/*
	 * A sample stands for the interval since the previous tick, so it counts
	 * as taken with a full ring if the ring is full at either end of it.
	 * This matters for the tail of a wrap-around wait: once the write that
	 * frees the ring is done, the write LSN jumps ahead while the waiters
	 * are still being woken, and a tick in that gap would otherwise see a
	 * wrap-around waiter beside an empty ring.
	 */
	ring_full = full_at_tick || scan.ring_full_before;
	scan.ring_full_before = full_at_tick;
	scan.seen.ring_fill = fill;

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	was_reset = notice_reset(now_ns);
	if (was_reset)
		reread_torn_statements();
	waiting = apply_samples(ring_full, tick->elapsed_ns, tick->interval_ns, tick->woken);
	record_tick(tick, in_recovery, last_cost_ns);
	LWLockRelease(ws_shared->lock);

	add_to_second(tick, in_recovery, fill, waiting);
	return was_reset;
}

/*
 * The longest fsync still going on at the end of the second also counts
 * for it, so a stuck fsync shows while it lasts and not only once it ends.
 */
static uint64
ongoing_fsync_max_ns(int n)
{
	uint64		max_ns = 0;

	for (int i = 0; i < n; i++)
	{
		WalStallEpisode *io = &ws_slots[i].io;

		if (io->group == WS_GROUP_WAL_FSYNC)
			max_ns = Max(max_ns, episode_length_ns(io));
	}
	return max_ns;
}

/*
 * checkpoint_in_second
 *		What the checkpointer did since the last second: a checkpoint
 *		started (the latest redo pointer moved), ended (pg_control's moved),
 *		or is running (the two differ).  A checkpoint that starts and ends
 *		within one second shows as done.  Both pointers move at the very
 *		moment, so this has no lag beyond the second's own length.
 *		pg_control's pointer is read only while the one begun differs from
 *		the last one seen completed: between checkpoints, not at all
 *		(ws_checkpoint_done_redo()).
 */
static WalStallCheckpoint
checkpoint_in_second(void)
{
	XLogRecPtr	started = ws_checkpoint_started_redo();
	XLogRecPtr	done;
	WalStallCheckpoint state;

	if (XLogRecPtrIsInvalid(second.ckpt_done_redo) || started != second.ckpt_done_redo)
		done = ws_checkpoint_done_redo();
	else
		done = second.ckpt_done_redo;
	if (XLogRecPtrIsInvalid(second.ckpt_done_redo))
		state = started != done ? WS_CKPT_RUNNING : WS_CKPT_NONE;
	else if (done != second.ckpt_done_redo)
		state = WS_CKPT_DONE;
	else if (started != second.ckpt_started_redo)
		state = WS_CKPT_START;
	else
		state = started != done ? WS_CKPT_RUNNING : WS_CKPT_NONE;
	second.ckpt_started_redo = started;
	second.ckpt_done_redo = done;
	return state;
}

/*
 * The kind of checkpoint core counted in this second's statistics: timed,
 * requested (a CHECKPOINT command, WAL volume, a base backup), both, or -1
 * when core's counts are not known.
 */
static int8
checkpoint_kind(const WalStallCounters *delta)
{
	if (delta->ckpt_timed < 0 || delta->ckpt_requested < 0)
		return -1;
	return (delta->ckpt_timed > 0 ? WS_CKPT_KIND_TIME : 0) |
		(delta->ckpt_requested > 0 ? WS_CKPT_KIND_REQUESTED : 0);
}

/*
 * close_second
 *		Turn the second's accumulators and the core counters' deltas into a
 *		history row that ends now_ns.
 */
static void
close_second(uint64 now_ns)
{
	WalStallCounters counters;
	WalStallCounters delta;
	WalStallSecond row;
	uint64		ongoing_ns;
	double		elapsed = Max(second.sum.elapsed_ns, 1);
	bool		timing_on = second.timing_was_on && track_wal_io_timing;
	uint64		stall_sampled_ns = 0;
	int64		waits;
	int64		waits_io_first;
	double		ring_rule_ms;

	second.idle = second.sum.ticks > 0 && second_quiet_so_far();
	ws_read_counters(&counters, WS_COLLECTOR_READS_STATS);
	ws_counters_delta(&counters, &second.last_counters, &delta);

	memset(&row, 0, sizeof(row));
	row.sample_time = GetCurrentTimestamp();
	row.seconds = (double) (now_ns - second.started_ns) / NS_PER_SEC;
	row.xids = (int64) (counters.next_xid - second.last_counters.next_xid);
	row.wal_bytes = (int64) (counters.insert_lsn - second.last_counters.insert_lsn);
	/* the ring's occupancy means nothing while a second saw recovery */
	row.buffer_fill_max = second.sum.in_recovery ? -1 : second.sum.fill_max;
	row.buffer_fill_avg = second.sum.in_recovery ? -1 : second.sum.fill_weighted / elapsed;
	for (int c = 0; c < WS_NUM_STALL_CLASSES; c++)
	{
		row.stall_ms[c] = second.sum.stall_ns[c] / WS_NS_PER_MS;
		stall_sampled_ns += second.sum.stall_ns[c];
	}
	row.wal_buffers_full = delta.wal_buffers_full;
	row.wal_writes = delta.wal_write;
	row.wal_syncs = delta.wal_sync;
	/* a time core did not measure all along is unknown, not zero */
	row.wal_sync_ms = timing_on ? delta.wal_sync_time_ms : -1;
	row.clog_hits = delta.clog_hits;
	row.clog_reads = delta.clog_reads;
	row.waiting_backends = second.sum.waiting_weighted / elapsed;
	row.active_backends = second.sum.active_weighted / elapsed;
	row.mean_interval_ms = second.sum.ticks > 0 ?
		second.sum.elapsed_ns / WS_NS_PER_MS / second.sum.ticks : -1;
	row.resolution_ms = stall_sampled_ns > 0 ?
		second.sum.stall_interval_weighted / stall_sampled_ns / WS_NS_PER_MS : -1;
	row.wal_fpi = delta.wal_fpi;
	row.checkpoint = checkpoint_in_second();
	row.checkpoint_kind = checkpoint_kind(&delta);

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	/* a reset since the last tick: start over, as the tick would */
	if (notice_reset(now_ns))
	{
		LWLockRelease(ws_shared->lock);
		(void) checkpoint_in_second();
		return;
	}
	ongoing_ns = ongoing_fsync_max_ns(ws_shared->nslots);
	row.wal_fsync_max_ms = Max(second.sum.fsync_max_ns, ongoing_ns) / WS_NS_PER_MS;
	if (ws_shared->history_size > 0)
	{
		ws_history[ws_shared->history_next] = row;
		ws_shared->history_next = (ws_shared->history_next + 1) % ws_shared->history_size;
		ws_shared->history_rows++;
	}
	if (!track_wal_io_timing)
		ws_shared->figures.timing_off_seen = true;
	waits = ws_shared->figures.wal_path_waits;
	waits_io_first = ws_shared->figures.wal_path_waits_io_first;
	ring_rule_ms = ws_shared->figures.ring_rule_ns / WS_NS_PER_MS;
	LWLockRelease(ws_shared->lock);

	/* the adaptive interval follows the episodes of the last second or two */
	ws_cadence_forget_half(&cadence);

	/*
	 * How often the ring, not a lock mode, decided the cause of a wait: a
	 * diagnostic for those who check the classification, not a figure the
	 * views show.
	 */
	if (waits > 0)
		ereport(DEBUG1,
				(errmsg_internal("wal_stall figures since the reset: %lld WAL write-path waits of clients, %lld of them began in WAL I/O; %.1f ms of their time classified by the ring's fill",
								 (long long) waits, (long long) waits_io_first,
								 ring_rule_ms)));

	start_second(now_ns, &counters);
}

/*
 * ws_reset_locked
 *		Zero everything accumulated since the last reset, with the core
 *		counters read just before as the new baseline.  The caller holds our
 *		lock exclusively.  Episodes in progress start over from the reset.
 */
void
ws_reset_locked(const WalStallCounters *baseline)
{
	bool		timing_off_seen;

	for (int i = 0; i < ws_shared->nslots; i++)
	{
		memset(&ws_slots[i].stall, 0, sizeof(WalStallEpisode));
		memset(&ws_slots[i].io, 0, sizeof(WalStallEpisode));
	}
	ws_queries_reset_locked();

	/*
	 * Every figure at once (a field added to WalStallFigures is zeroed with
	 * the rest), but for timing_off_seen: the collector sets it again at
	 * the first tick after the reset, from its own track_wal_io_timing,
	 * which the caller's session may not share.
	 */
	timing_off_seen = ws_shared->figures.timing_off_seen;
	memset(&ws_shared->figures, 0, sizeof(ws_shared->figures));
	ws_shared->figures.timing_off_seen = timing_off_seen;
	ws_shared->history_next = 0;
	ws_shared->history_rows = 0;
	ws_shared->figures.reset_at = GetCurrentTimestamp();
	ws_shared->reset_count++;
	ws_shared->figures.hist_base_ns = ws_shared->sample_interval_ns > 0 ?
		ws_shared->sample_interval_ns : interval_ns_from_guc();
	ws_shared->figures.baseline = *baseline;
	ws_shared->figures.baseline_valid = true;
}

/*
 * collector_start
 *		Announce ourselves in shared memory.  Figures gathered by an earlier
 *		collector of this server stay; its half-followed episodes are dropped.
 */
static void
collector_start(uint64 now_ns)
{
	WalStallCounters counters;
	WalStallCadenceSettings settings;

	scan.nscanned = Min(ws_shared->nslots, (int) ProcGlobal->allProcCount);
	scan.samples = MemoryContextAllocZero(TopMemoryContext, sizeof(ProcSample) * scan.nscanned);
	scan.wait_infos = MemoryContextAllocZero(TopMemoryContext, sizeof(uint32) * scan.nscanned);
	/* every shared slot is zeroed below: nothing open, nothing published */
	scan.slot_state = MemoryContextAllocZero(TopMemoryContext, sizeof(SlotState) * scan.nscanned);
	for (int i = 0; i < scan.nscanned; i++)
		scan.slot_state[i].pool = slot_pool(&ProcGlobal->allProcs[i]);
	ws_classify_init();
	scan.writer_sleep_event = ws_walwriter_sleep_event();
	ws_read_counters(&counters, WS_COLLECTOR_READS_STATS);
	start_second(now_ns, &counters);
	settings = cadence_settings();
	/* the bursts' draws differ from one start to the next; never a zero seed */
	ws_cadence_init(&cadence, &settings, now_ns,
					((uint64) MyProcPid << 32) ^ now_ns ^ WS_SEED_MIX);

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	ws_shared->collector_pid = MyProcPid;
	ws_shared->await.s.latch = MyLatch;
	ws_shared->started_at = GetCurrentTimestamp();
	ws_shared->sample_interval_ns = interval_ns_from_guc();
	ws_shared->ticks = 0;
	ws_shared->tick_cost_ns = 0;
	ws_shared->max_tick_cost_ns = 0;
	ws_shared->overruns = 0;
	ws_shared->unobserved_ns = 0;
	ws_shared->rest_ns = 0;
	ws_shared->current_interval_ns = ws_shared->sample_interval_ns;
	for (int i = 0; i < ws_shared->nslots; i++)
		memset(&ws_slots[i], 0, sizeof(WalStallProcSlot));
	if (!ws_shared->figures.baseline_valid)
	{
		ws_shared->figures.hist_base_ns = ws_shared->sample_interval_ns;
		ws_shared->figures.baseline = counters;
		ws_shared->figures.baseline_valid = true;
	}
	if (!track_wal_io_timing)
		ws_shared->figures.timing_off_seen = true;
	second.seen_reset_count = ws_shared->reset_count;
	LWLockRelease(ws_shared->lock);
}

/*
 * On exit, stop announcing our pid.  Takes our lock: an error raised while
 * we held it ends the worker before ProcKill() releases it, so every lock
 * is released first rather than waited on by its holder.
 */
static void
collector_exit(int code pg_attribute_unused(), Datum arg pg_attribute_unused())
{
	if (ws_shared == NULL)
		return;
	LWLockReleaseAll();
	pg_atomic_write_u32(&ws_shared->await.s.flag, 0);
	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	if (ws_shared->collector_pid == MyProcPid)
	{
		ws_shared->collector_pid = 0;
		ws_shared->await.s.latch = NULL;
	}
	LWLockRelease(ws_shared->lock);
}

/*
 * ws_statement_begins
 *		A top-level statement begins in this backend (queries.c's hooks):
 *		wake the collector if its rest awaits one.  The barrier orders this
 *		process's leaving its idle wait event, which the collector's scan
 *		reads, before the flag's read (the locking paragraph at the top).
 *		Once per statement, the cost is that barrier and one read of a cache
 *		line that the collector writes only around its rests.
 */
void
ws_statement_begins(void)
{
	Latch	   *latch;

	if (ws_shared == NULL)
		return;
	pg_memory_barrier();
	if (likely(pg_atomic_read_u32(&ws_shared->await.s.flag) == 0))
		return;
	latch = ws_shared->await.s.latch;
	if (pg_atomic_exchange_u32(&ws_shared->await.s.flag, 0) != 0 && latch != NULL)
		SetLatch(latch);
}

/*
 * statement_woke_us
 *		After a rest that awaited a statement: did one end it?  Clears the
 *		flag either way.  A statement that came as the rest timed out left
 *		the latch set; the next sleep must not end at once for it.
 */
static bool
statement_woke_us(void)
{
	if (pg_atomic_exchange_u32(&ws_shared->await.s.flag, 0) != 0)
		return false;
	ResetLatch(MyLatch);
	return true;
}

/*
 * stop_awaiting
 *		The tick set the flag, but its rest will not await a statement:
 *		clear it, and the latch a statement may have set meanwhile, so that
 *		the rest keeps its deadline.  A signal's latch lost here is no loss:
 *		the loop looks at the flags every tick.
 */
static void
stop_awaiting(void)
{
	pg_atomic_write_u32(&ws_shared->await.s.flag, 0);
	ResetLatch(MyLatch);
}

/*
 * Apply a configuration reload: publish the new sample interval, and sample
 * at it from this moment.  Takes our lock.
 */
static void
reload_config(void)
{
	WalStallCadenceSettings settings;

	ConfigReloadPending = false;
	ProcessConfigFile(PGC_SIGHUP);
	settings = cadence_settings();
	ws_cadence_configure(&cadence, &settings, monotonic_ns());
	/* the cadence starts again at the sample interval: no await */
	stop_awaiting();
	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	ws_shared->sample_interval_ns = settings.sample_ns;
	LWLockRelease(ws_shared->lock);
}

/*
 * sleep_until
 *		Sleep until the monotonic clock reaches deadline, in one wake-up:
 *		each wake-up is what a sleeping sampler pays for, so a sleep is one
 *		wait, never a latch wait followed by a timer for the remainder.
 *
 * A rest waits on the latch with WL_EXIT_ON_PM_DEATH: rests are where the
 * collector spends an idle server's time, a signal (SIGTERM, SIGHUP) sets
 * the latch and ends it, and the postmaster's death ends the process.
 * WaitLatch counts whole milliseconds, so the rest is rounded up to one
 * (the next sample's weight, the real time since the previous tick,
 * accounts for the lateness), and a rest shorter than a millisecond
 * (wal_stall.sample_interval under 0.5 ms) sleeps as an interval does:
 * rounded up, it would be more than a whole sleep late, an overrun.
 *
 * A sampling interval is an absolute clock_nanosleep, which keeps the ticks
 * on their deadlines; a signal cuts it short, and the loop looks at the
 * flags and checks the postmaster every tick (PostmasterIsAlive(), on Linux
 * a flag set by a signal).
 */
static void
sleep_until(uint64 deadline, bool resting)
{
	struct timespec ts;

	if (resting)
	{
		uint64		now_ns = monotonic_ns();

		if (deadline >= now_ns + NS_PER_MSEC)
		{
			if (WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						  (long) ((deadline - now_ns + NS_PER_MSEC - 1) / NS_PER_MSEC),
						  PG_WAIT_EXTENSION) & WL_LATCH_SET)
				ResetLatch(MyLatch);	/* tick at once; the loop then looks at the flags */
			return;
		}
	}
	ts.tv_sec = deadline / NS_PER_SEC;
	ts.tv_nsec = deadline % NS_PER_SEC;
	pgstat_report_wait_start(PG_WAIT_EXTENSION);
	(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	pgstat_report_wait_end();
}

/*
 * wal_stall_collector_main
 *		The collector's loop: sleep to the deadline the cadence set, tick,
 *		and close a history row every second.
 */
void
wal_stall_collector_main(Datum main_arg pg_attribute_unused())
{
	uint64		next_second;
	uint64		last_cost = 0;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	if (ws_shared == NULL)
		elog(ERROR, "wal_stall shared memory is not initialized");

	before_shmem_exit(collector_exit, (Datum) 0);
	next_second = monotonic_ns();
	collector_start(next_second);
	next_second += NS_PER_SEC;

	for (;;)
	{
		uint64		now_ns;
		bool		woken;
		WalStallTick tick;

		CHECK_FOR_INTERRUPTS();
		if (!PostmasterIsAlive())
			proc_exit(1);
		if (ConfigReloadPending)
			reload_config();

		sleep_until(cadence.deadline_ns, cadence.resting);
		woken = cadence.awaiting && statement_woke_us();
		now_ns = monotonic_ns();
		tick = ws_cadence_wake(&cadence, now_ns, woken);
		if (collector_tick(now_ns, &tick, last_cost, next_second))
		{
			/*
			 * The row after a reset covers what happened from the reset on,
			 * closing at the next second as any row does.
			 */
			(void) checkpoint_in_second();
		}
		ws_cadence_next(&cadence, &scan.seen, now_ns);
		if (scan.seen.second_end_ns != 0 && !cadence.awaiting)
			stop_awaiting();
		last_cost = monotonic_ns() - now_ns;

		/*
		 * A row closes every second.  After a gap (the collector stopped or
		 * starved) the row that closes covers all of it and says so in its
		 * length, rather than being dressed as one more second.
		 */
		if (now_ns >= next_second)
		{
			close_second(now_ns);
			next_second += NS_PER_SEC;
			if (next_second <= now_ns)
				next_second = now_ns + NS_PER_SEC;
		}
	}
}
