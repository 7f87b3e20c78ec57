/*-------------------------------------------------------------------------
 *
 * collector.c
 *		The wal_stall collector: a background worker that samples the wait
 *		event of every process, follows waits as episodes, and closes one
 *		history row a second.
 *
 * Every tick (wal_stall.sample_interval, 1 ms by default):
 *	- read the WAL write LSN, the wait event of every PGPROC, then the WAL
 *	  insert LSN; the ring is "full" at this tick if the two LSNs are at
 *	  least one page short of the whole ring apart (see ring_full_mark());
 *	- weigh the tick by the real time elapsed since the previous one
 *	  (monotonic clock), so a late tick loses no time, up to
 *	  WS_MAX_SAMPLE_WEIGHT intervals (longer gaps are counted as unobserved);
 *	- per process, extend or close its stall and io episodes; a client's
 *	  WAL write-path sample is classified by its own lock mode, carried
 *	  through the I/O that follows, the ring's fill deciding only where no
 *	  lock mode has (ws_sample_class()), and the summary and the history
 *	  count each sample in that same class.
 * Every second: close a history row, reading the core counters for it (every
 * 10 s instead while the collector rests: ws_second_reads_core()).
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
 *	- the episode slots (WalStallProcSlot) are written by the collector
 *	  under the lock and read by it during the scan without it: besides the
 *	  collector only a reset writes them, and the collector sees the reset's
 *	  reset_count under the lock before it uses what it read, then reads the
 *	  statements it copied from them again (reread_torn_statements());
 *	- a backend's statement slot (queries.c) is written by that backend
 *	  alone inside a change count, and a read that sees the count move is
 *	  tried again;
 *	- the PGPROC fields (wait_event_info, pid, lwWaitMode, the latch's
 *	  owner) are read without a lock, as pg_stat_activity reads wait events:
 *	  each is one aligned load, so a value may be a tick old, never torn.
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

/*
 * A sample weighs the real time since the previous tick, up to this many
 * intervals.  Beyond that the collector was not looking (stopped, starved of
 * CPU, waiting for its lock), and crediting the whole gap to whatever is
 * waiting when it looks again would invent long waits.
 */
#define WS_MAX_SAMPLE_WEIGHT	10

#define NS_PER_SEC	UINT64CONST(1000000000)
#define NS_PER_MSEC	UINT64CONST(1000000)

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
 * often, and the read was a cache miss per process at work per tick.
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
 * something to follow: a slot in an untracked wait costs one read of its
 * PGPROC and nothing else.
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
 * (its pid read) only every this many ticks at the full rate, and at every
 * tick while resting.  A process that takes the slot shows at once by its
 * wait event when it waits, tracked or not, so no stall goes unseen; only
 * a new process that stays on CPU is counted as active (active_backends,
 * and the cadence's "a process is busy") up to this many ticks late.  With
 * max_connections well above the clients, most slots are unused, and
 * their pids were a cache miss each per tick.
 */
#define UNUSED_RECHECK_TICKS	10

/* What the ticks of the current second add up to, for its history row. */
typedef struct SecondAccum
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
	double		stall_period_weighted;	/* sum of the sampling period * weight
										 * of every stall sample */
	bool		in_recovery;	/* at some tick of the second */
} SecondAccum;

/* One of each per slot, allocated at start (collector_start()). */
static SlotState *slot_state = NULL;
static uint32 *wait_infos = NULL;	/* the wait events read at this tick */
static ProcSample *samples = NULL;	/* the first nsamples: slots to visit */
static int	nsamples;
static int	nscanned;			/* slots followed: fixed at server start */
static SecondAccum second;
static WalStallCounters last_counters;	/* at the start of the second */
static uint64 second_started_ns;	/* monotonic clock at that start */
static bool timing_was_on;		/* track_wal_io_timing then */
static uint64 seen_reset_count;
static int	unread_seconds = 0;	/* rows closed without reading core */
static bool ring_was_full = false;	/* at the previous tick */
static WalStallTickSeen seen;	/* what the last tick saw, for the cadence */
static WalStallLoadSeen load_seen;	/* the same, for resting under load */
static XLogRecPtr last_insert = InvalidXLogRecPtr;	/* at the previous tick */
static int	active_clients;		/* processes serving queries at work, this tick */
static bool writer_asleep;		/* the WAL writer slept at this tick */
static uint32 writer_sleep_event;	/* its wait event then */
static XLogRecPtr ckpt_started_redo = InvalidXLogRecPtr;	/* at the last second */
static XLogRecPtr ckpt_done_redo = InvalidXLogRecPtr;

/*
 * The adaptive period (cadence.h): what the ticks saw of each class's
 * episodes, and the period in force, wal_stall.sample_interval times a
 * power of two.
 */
static WalStallClassLengths class_lengths[WS_NUM_CLASSES];
static uint64 period_ns;

/*
 * The cycles of bursts in which episodes are counted under a load of short
 * waits (cadence.h, "Counting episodes in bursts").
 */
static WalStallBursts bursts;
static uint64 count_rng;		/* the draws of the bursts, never 0 */
static bool cycle_saw_wait;		/* a tick of the current cycle saw a wait */
static bool thin_next;			/* the next cycle is to be thin, as far as
								 * the ticks so far go */

/*
 * Per class, the episodes counted so far in the burst of the cycle before
 * and of the current one (WS_COUNT_BEFORE, WS_COUNT_CURRENT), the count of
 * the last thin cycle whose variance was taken (-1: none yet since the
 * start or the reset), and the variance not yet added to the figures
 * (ws_burst_variance()).
 */
static int64 burst_counted[2][WS_NUM_CLASSES];
static int64 last_burst_counted[WS_NUM_CLASSES];
static int64 pending_var[WS_NUM_CLASSES];

/* The count rule outside any cycle: every episode once. */
static const WalStallCountRule count_every_episode = {{1, 1, 1}, {0.0, 0.0, 1.0}};

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
now_ns(void)
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

static uint64
idle_ns_from_guc(void)
{
	return (uint64) (ws_idle_interval_ms * WS_NS_PER_MS);
}

static uint64
max_period_ns_from_guc(void)
{
	return (uint64) (ws_max_sample_interval_ms * WS_NS_PER_MS);
}

/*
 * Forget what the adaptive period knew of the episodes: at start, and when
 * sample_interval changes (the lengths are counted against its multiples).
 */
static void
forget_class_lengths(void)
{
	memset(class_lengths, 0, sizeof(class_lengths));
	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		class_lengths[c].youngest_open_ns = WS_PERIOD_NONE_OPEN;
		class_lengths[c].youngest_counted_open_ns = WS_PERIOD_NONE_OPEN;
	}
	/* the wrap-arounds' percentiles are kept at full resolution */
	class_lengths[WS_CLASS_WAL_BUFFER_FULL].by_count = true;
}

/*
 * Occupancy, in bytes, at which the ring counts as full.  An inserter blocked
 * on the ring has reserved space in a page whose slot still holds an
 * unwritten page one ring earlier, so insert - write exceeds the ring less
 * one page.  The write LSN is read before the wait events and the insert LSN
 * after them, so what we compute is never less than the true occupancy at
 * the instant a wait was seen: a wrap-around is never missed, and the
 * slack of one page absorbs what was reserved during the scan.
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

	for (int k = 0; k < nsamples; k++)
	{
		ProcSample *s = &samples[k];

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
		wait_infos[i] = *((volatile uint32 *) &procs[i].wait_event_info);
}

/* The same for the pid and the latch's owner of the slots to visit. */
static void
read_pids(PGPROC *procs)
{
	for (int k = 0; k < nsamples; k++)
	{
		PGPROC	   *proc = &procs[samples[k].slot];

		samples[k].pid = *((volatile int *) &proc->pid);
		samples[k].latch_owner = *((volatile int *) &proc->procLatch.owner_pid);
	}
}

/*
 * sort_slots
 *		What the wait events alone tell: the slots in an untracked wait are
 *		counted here, the others listed in samples[] for a closer look.
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
		uint32		info = wait_infos[i];
		SlotState  *state = &slot_state[i];
		WalStallEvent event = ws_classify_event(info);
		ProcSample *s = &samples[nsamples];
		bool		zero = (info == 0);
		bool		quiet_unused = zero & state->unused & !recheck_unused &
			!state->maybe_open & !state->published;
		bool		untracked = !((event != WS_EVENT_NONE) | state->maybe_open | zero);
		bool		busy = untracked & !ws_wait_is_idle(info);

		seen.process_busy |= busy;
		/* the branches in there follow the slot's pool, fixed per slot */
		active_clients += busy & proc_serves_queries(&procs[i], state->pool);
		writer_asleep |= untracked & (info == writer_sleep_event);
		/* a process is there if it is in any wait */
		state->unused &= zero;

		s->slot = i;
		s->skip = untracked;
		s->statement_from_slot = false;
		s->event = event;
		s->wait_event_info = untracked ? 0 : info;
		nsamples += (!untracked & !quiet_unused) | (untracked & state->published);
	}
}

/*
 * scan_processes
 *		Read wait event, pid and kind of every PGPROC slot we follow, list
 *		in samples[] the slots apply_samples() must visit, and note in
 *		"seen" whether anything could stall (cadence.h).
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

	seen.tracked_wait = false;
	seen.episode_open = false;
	seen.process_busy = false;
	active_clients = 0;
	writer_asleep = false;
	nsamples = 0;

	read_wait_events(procs, nscanned);
	sort_slots(procs, nscanned, recheck_unused);
	read_pids(procs);
	for (int k = 0; k < nsamples; k++)
	{
		ProcSample *s = &samples[k];
		int			i = s->slot;
		PGPROC	   *proc = &procs[i];
		bool		open = slot_state[i].maybe_open;

		if (s->skip)
			continue;
		/* our own slot we never follow: as good as unused */
		slot_state[i].unused = proc == MyProc || !sample_is_live(s);
		if (slot_state[i].unused)
		{
			s->skip = !open;
			s->pid = 0;
			s->wait_event_info = 0;
			s->event = WS_EVENT_NONE;
			seen.episode_open |= open;
			continue;
		}
		if (s->event == WS_EVENT_NONE && !open)
		{
			/* alive and on CPU */
			s->skip = true;
			seen.process_busy = true;
			active_clients += proc_serves_queries(proc, slot_state[i].pool);
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
		s->serves_queries = proc_serves_queries(proc, slot_state[i].pool);
		active_clients += s->serves_queries;
		/* an episode can start only in a tracked wait */
		if (s->event != WS_EVENT_NONE)
			sample_statement(proc, s, &ws_slots[i]);
		seen.tracked_wait |= (s->event != WS_EVENT_NONE);
		seen.episode_open |= open;
	}
}

/*
 * count_episode
 *		Count the samples an episode has gathered in its class, as the
 *		episodes its count weight says (one, or in a thin cycle's burst the
 *		share it stands for, or none when it began outside the burst: then
 *		only its samples and time count), and for the statement its
 *		process ran when it began.  Needs our lock exclusively.
 */
static void
count_episode(WalStallEpisode *episode)
{
	WalStallClass cls = (WalStallClass) episode->cls;
	WalStallClassStats *stats;
	WalStallFigures *figures = &ws_shared->figures;
	uint64		duration_ns;
	int64		weight = episode->count_weight;
	int			bucket;

	if (episode->group == WS_GROUP_NONE || episode->samples == 0)
		return;

	/*
	 * total_ms takes every sample's real weight; the episode's length, as
	 * the histogram and max_ms see it, counts its first sample as at most
	 * one sampling period: the wait began somewhere within it (cadence.h).
	 */
	duration_ns = episode->time_ns - episode->first_ns +
		ws_histogram_first_sample(episode->first_ns, episode->first_period_ns);
	/* the period's rules judge lengths timed from their start */
	if (weight > 0)
		ws_period_note_episode(&class_lengths[cls], duration_ns, ws_shared->interval_ns);

	stats = &figures->classes[cls];
	/* a loaded count may stand near the bound: stop there, never wrap */
	stats->episodes = ws_add_count(stats->episodes, weight);
	stats->samples = ws_add_count(stats->samples, episode->samples);
	stats->total_ns = ws_add_ns(stats->total_ns, episode->time_ns);
	figures->period_weighted[cls] += episode->period_weighted;
	stats->max_ns = Max(stats->max_ns, duration_ns);
	if (weight > 0)
	{
		figures->episodes_counted[cls] = ws_add_count(figures->episodes_counted[cls], 1);
		bucket = ws_hist_bucket(duration_ns, figures->hist_base_ns);
		stats->hist[bucket] = ws_add_count(stats->hist[bucket], weight);
		stats->hist_ns[bucket] = ws_add_ns(stats->hist_ns[bucket], weight * duration_ns);
	}
	ws_queries_charge(&episode->statement, cls, weight, episode->samples,
					  episode->time_ns, duration_ns, figures->hist_base_ns);

	if (cls == WS_CLASS_WAL_FSYNC)
		second.fsync_max_ns = Max(second.fsync_max_ns, duration_ns);

	episode->samples = 0;
	episode->time_ns = 0;
	episode->first_ns = 0;
	episode->first_period_ns = 0;
	episode->count_weight = 0;
	episode->period_weighted = 0;
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
 *		Close the wait a process was in when it moved to another group (or
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
 * draw_count_weight
 *		How many episodes an episode of class cls that begins now counts
 *		as, by count_rule (0: not counted), noted in its burst's count when
 *		counted in one.  A wrap-around is counted, and counts once, whatever
 *		the cycle (cadence.h).
 */
static void
draw_count_weight(WalStallEpisode *episode, WalStallClass cls,
				  const WalStallCountRule *count_rule)
{
	int			part = WS_COUNT_OUTSIDE;

	episode->count_weight = class_lengths[cls].by_count ? 1 :
		ws_episode_weight(count_rule, &count_rng, &part);
	if (episode->count_weight > 1)
		burst_counted[part][cls]++;
}

/*
 * follow
 *		Extend the episode by one sample of class cls, taken at the sampling
 *		period sample_period_ns; when the class differs from that of the
 *		samples so far, count those as an episode of their own and begin
 *		another, within the same wait.  An episode belongs to the statement
 *		seen at its first sample: the statement may end before the episode
 *		does, and takes its count weight from count_rule (cadence.h).
 *		Notes the episode's age for the adaptive period.
 */
static void
follow(WalStallEpisode *episode, WalStallClass cls,
	   const WalStallStatement *statement, uint64 elapsed_ns,
	   uint64 sample_period_ns, const WalStallCountRule *count_rule)
{
	WalStallClassLengths *lengths = &class_lengths[cls];
	uint64		age_ns;

	if (episode->samples > 0 && episode->cls != (uint8) cls)
		count_episode(episode);
	if (episode->samples == 0)
	{
		episode->first_ns = elapsed_ns;
		episode->first_period_ns = sample_period_ns;
		draw_count_weight(episode, cls, count_rule);
		episode->statement = *statement;
		episode->cls = (uint8) cls;
	}
	episode->samples++;
	episode->time_ns += elapsed_ns;
	episode->wait_ns += elapsed_ns;
	episode->period_weighted += (double) sample_period_ns * (double) elapsed_ns;
	/* its age as its length will count it: a rest before it is no age */
	age_ns = episode->time_ns - episode->first_ns +
		ws_histogram_first_sample(episode->first_ns, episode->first_period_ns);
	lengths->youngest_open_ns = Min(lengths->youngest_open_ns, age_ns);
	if (episode->count_weight > 0)
		lengths->youngest_counted_open_ns =
			Min(lengths->youngest_counted_open_ns, age_ns);
}

/*
 * apply_samples
 *		Advance the episodes of every slot the scan listed by this tick,
 *		taken at the sampling period sample_period_ns; an episode that
 *		begins is counted by count_rule (ws_count_rule()).  Note in SlotState
 *		what is left open.  Needs our lock exclusively.  Returns the number
 *		of processes in a stall class.
 */
static int
apply_samples(bool ring_full, uint64 elapsed_ns, uint64 sample_period_ns,
			  const WalStallCountRule *count_rule)
{
	int			waiting = 0;

	/* follow() notes the episodes still open at this tick */
	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		class_lengths[c].youngest_open_ns = WS_PERIOD_NONE_OPEN;
		class_lengths[c].youngest_counted_open_ns = WS_PERIOD_NONE_OPEN;
	}

	for (int k = 0; k < nsamples; k++)
	{
		ProcSample *s = &samples[k];
		int			i = s->slot;
		SlotState  *state = &slot_state[i];
		WalStallProcSlot *slot = &ws_slots[i];
		WalStallEvent event = s->event;
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

			follow(&slot->stall, cls, &s->statement, elapsed_ns, sample_period_ns,
				   count_rule);
			/* the history's row takes the very same class */
			second.stall_ns[cls] += elapsed_ns;
			second.stall_period_weighted += (double) sample_period_ns * elapsed_ns;
			if (by_ring)
				ws_shared->figures.ring_rule_ns =
					ws_add_ns(ws_shared->figures.ring_rule_ns, elapsed_ns);
			/* for wal_stall_advice(): did the WAL writer sleep through it? */
			if (cls == WS_CLASS_WAL_BUFFER_FULL && writer_asleep)
				ws_shared->figures.wrap_writer_asleep_ns =
					ws_add_ns(ws_shared->figures.wrap_writer_asleep_ns, elapsed_ns);
			waiting++;
		}
		enter_group(&slot->io, io_group);
		if (io_group != WS_GROUP_NONE)
			follow(&slot->io, ws_io_class(io_group), &s->statement, elapsed_ns,
				   sample_period_ns, count_rule);
		state->published = slot->wait_event_info != 0;
		state->maybe_open = slot->stall.group != WS_GROUP_NONE ||
			slot->io.group != WS_GROUP_NONE;
	}
	return waiting;
}

/*
 * start_second
 *		Begin a new history row at now, from the given core counters.
 */
static void
start_second(uint64 now, const WalStallCounters *counters)
{
	memset(&second, 0, sizeof(second));
	last_counters = *counters;
	second_started_ns = now;
	timing_was_on = track_wal_io_timing;
}

/*
 * notice_reset
 *		After a wal_stall_reset() the history starts again: the next row
 *		covers the time from the reset on, from the core counters the reset
 *		took as its baseline (read by the resetting backend an instant
 *		before), and the accumulators of the interrupted second are
 *		dropped.  Needs our lock.  Returns true if there was a reset.
 */
static bool
notice_reset(uint64 now)
{
	if (ws_shared->reset_count == seen_reset_count)
		return false;
	seen_reset_count = ws_shared->reset_count;
	start_second(now, &ws_shared->figures.baseline);
	ws_shared->figures.timing_off_seen = !track_wal_io_timing;
	return true;
}

/*
 * read_ring
 *		Read the WAL write position, scan the processes, then read the
 *		insert position; set *full_now and *fill.  During recovery no WAL is
 *		inserted: the ring is never full, and its occupancy unknown (-1).
 */
static void
read_ring(bool in_recovery, bool recheck_unused, bool *full_now, double *fill)
{
	XLogRecPtr	write_before;
	XLogRecPtr	insert_after;

	if (in_recovery)
	{
		*full_now = false;
		*fill = -1;
		/* nothing is inserted: the ring cannot wrap */
		load_seen.inserted_bytes = 0;
		last_insert = InvalidXLogRecPtr;
		scan_processes(recheck_unused);
		return;
	}
	write_before = GetXLogWriteRecPtr();
	scan_processes(recheck_unused);
	insert_after = GetXLogInsertRecPtr();

	/* the first tick (or the first after recovery) has no rate yet: none */
	load_seen.inserted_bytes = XLogRecPtrIsInvalid(last_insert) ||
		insert_after < last_insert ? 0 : insert_after - last_insert;
	last_insert = insert_after;

	*full_now = insert_after > write_before &&
		insert_after - write_before >= ring_full_mark();
	*fill = ws_ring_occupancy(insert_after, write_before);
}

/*
 * collector_tick
 *		One sample of every process, at the sampling period sample_period_ns
 *		(the rest that ended, if rested, counts as one period of it: see
 *		ws_histogram_first_sample()); episodes that begin are counted by
 *		count_rule.
 *		The cost of the previous tick's work
 *		is recorded here too, so that a tick takes our lock only once.
 *		Returns true if a reset happened since the previous tick: the caller
 *		then starts counting the second afresh.
 */
static bool
collector_tick(uint64 now, uint64 elapsed_ns, uint64 unobserved_ns, bool late,
			   bool rested, uint64 interval_ns, uint64 sample_period_ns,
			   const WalStallCountRule *count_rule, uint64 last_cost_ns)
{
	bool		in_recovery = RecoveryInProgress();
	bool		full_now;
	bool		ring_full;
	double		fill;
	int			waiting;
	bool		was_reset;

	read_ring(in_recovery,
			  rested || ws_shared->ticks % UNUSED_RECHECK_TICKS == 0,
			  &full_now, &fill);

	/*
	 * A sample stands for the interval since the previous tick, so it counts
	 * as taken with a full ring if the ring was full at either end of it.
	 * This matters for the tail of a wrap-around wait: once the write that
	 * frees the ring is done, the write LSN jumps ahead while the waiters
	 * are still being woken, and a tick in that gap would otherwise see a
	 * wrap-around waiter beside an empty ring.
	 */
	ring_full = full_now || ring_was_full;
	ring_was_full = full_now;
	seen.ring_fill = fill;
	load_seen.elapsed_ns = elapsed_ns;

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	was_reset = notice_reset(now);
	if (was_reset)
	{
		/*
		 * The reset dropped every open episode and the figures: what the
		 * bursts before it counted goes with them, and the episodes this
		 * tick sees begin after it, in no cycle yet (the caller starts the
		 * cycles again): each counts once.
		 */
		memset(pending_var, 0, sizeof(pending_var));
		count_rule = &count_every_episode;
		reread_torn_statements();
	}
	waiting = apply_samples(ring_full, elapsed_ns, sample_period_ns, count_rule);
	for (int c = 0; c < WS_NUM_CLASSES; c++)
	{
		ws_shared->figures.episodes_var[c] =
			ws_add_count(ws_shared->figures.episodes_var[c], pending_var[c]);
		pending_var[c] = 0;
	}
	ws_shared->ticks++;
	ws_shared->figures.reset_ticks = ws_add_count(ws_shared->figures.reset_ticks, 1);
	if (!rested)
	{
		ws_shared->figures.reset_full_rate_ticks =
			ws_add_count(ws_shared->figures.reset_full_rate_ticks, 1);
		ws_shared->figures.reset_full_rate_ns =
			ws_add_ns(ws_shared->figures.reset_full_rate_ns, elapsed_ns);
	}
	ws_shared->in_recovery = in_recovery;
	if (late)
		ws_shared->overruns++;
	ws_shared->unobserved_ns += unobserved_ns;
	if (rested)
		ws_shared->rest_ns += elapsed_ns;
	ws_shared->current_interval_ns = interval_ns;
	ws_shared->tick_cost_ns += last_cost_ns;
	ws_shared->max_tick_cost_ns = Max(ws_shared->max_tick_cost_ns, last_cost_ns);
	LWLockRelease(ws_shared->lock);

	second.elapsed_ns += elapsed_ns;
	second.ticks++;
	second.rested_ticks += rested;
	second.saw_work |= seen.process_busy;
	if (in_recovery)
		second.in_recovery = true;
	else
	{
		second.fill_max = Max(second.fill_max, fill);
		second.fill_weighted += fill * elapsed_ns;
	}
	second.waiting_weighted += (double) waiting * elapsed_ns;
	second.active_weighted += (double) active_clients * elapsed_ns;
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
			max_ns = Max(max_ns, io->time_ns);
	}
	return max_ns;
}

/*
 * checkpoint_in_second
 *		What the checkpointer did since the last second: a checkpoint
 *		started (the latest redo pointer moved), ended (pg_control's moved),
 *		or is running (the two differ).  A checkpoint that starts and ends
 *		within one second shows as done.  Both pointers move at the very
 *		moment, so this has no lag beyond the second's own length.  It is
 *		called with the core counters, so a second the collector rested
 *		through sees it every 10 s, and a checkpoint that passed unseen
 *		shows as done then.  pg_control's pointer is read only while the one
 *		begun differs from the last one seen completed: between checkpoints,
 *		not at all (ws_checkpoint_done_redo()).
 */
static WalStallCheckpoint
checkpoint_in_second(void)
{
	XLogRecPtr	started = ws_checkpoint_started_redo();
	XLogRecPtr	done;
	WalStallCheckpoint state;

	if (XLogRecPtrIsInvalid(ckpt_done_redo) || started != ckpt_done_redo)
		done = ws_checkpoint_done_redo();
	else
		done = ckpt_done_redo;
	if (XLogRecPtrIsInvalid(ckpt_done_redo))
		state = started != done ? WS_CKPT_RUNNING : WS_CKPT_NONE;
	else if (done != ckpt_done_redo)
		state = WS_CKPT_DONE;
	else if (started != ckpt_started_redo)
		state = WS_CKPT_START;
	else
		state = started != done ? WS_CKPT_RUNNING : WS_CKPT_NONE;
	ckpt_started_redo = started;
	ckpt_done_redo = done;
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
 *		history row that ends now.
 */
static void
close_second(uint64 now)
{
	WalStallCounters counters;
	WalStallCounters delta;
	WalStallSecond row;
	uint64		ongoing_ns;
	double		elapsed = Max(second.elapsed_ns, 1);
	bool		timing_on = timing_was_on && track_wal_io_timing;
	bool		read_core;
	uint64		stall_sampled_ns = 0;
	int64		waits;
	int64		waits_io_first;
	double		ring_rule_ms;

	/* rests under load read core every second, as any second with work */
	read_core = ws_second_reads_core(second.ticks > 0 && !second.saw_work &&
									 second.rested_ticks == second.ticks,
									 unread_seconds);
	ws_read_counters(&counters, read_core && WS_COLLECTOR_READS_STATS);
	ws_counters_delta(&counters, &last_counters, &delta);
	if (read_core)
		unread_seconds = 0;
	else
	{
		/* core's counts since the last read go to the next row that reads */
		ws_counters_keep_stats(&counters, &last_counters);
		unread_seconds++;
	}

	memset(&row, 0, sizeof(row));
	row.sample_time = GetCurrentTimestamp();
	row.seconds = (double) (now - second_started_ns) / NS_PER_SEC;
	row.xids = (int64) (counters.next_xid - last_counters.next_xid);
	row.wal_bytes = (int64) (counters.insert_lsn - last_counters.insert_lsn);
	/* the ring's occupancy means nothing while a second saw recovery */
	row.buffer_fill_max = second.in_recovery ? -1 : second.fill_max;
	row.buffer_fill_avg = second.in_recovery ? -1 : second.fill_weighted / elapsed;
	for (int c = 0; c < WS_NUM_STALL_CLASSES; c++)
	{
		row.stall_ms[c] = second.stall_ns[c] / WS_NS_PER_MS;
		stall_sampled_ns += second.stall_ns[c];
	}
	row.wal_buffers_full = delta.wal_buffers_full;
	row.wal_writes = delta.wal_write;
	row.wal_syncs = delta.wal_sync;
	/* a time core did not measure all along is unknown, not zero */
	row.wal_sync_ms = timing_on ? delta.wal_sync_time_ms : -1;
	row.clog_hits = delta.clog_hits;
	row.clog_reads = delta.clog_reads;
	row.waiting_backends = second.waiting_weighted / elapsed;
	row.active_backends = second.active_weighted / elapsed;
	row.mean_interval_ms = second.ticks > 0 ?
		second.elapsed_ns / WS_NS_PER_MS / second.ticks : -1;
	row.resolution_ms = stall_sampled_ns > 0 ?
		second.stall_period_weighted / stall_sampled_ns / WS_NS_PER_MS : -1;
	row.wal_fpi = delta.wal_fpi;
	row.checkpoint = read_core ? checkpoint_in_second() : WS_CKPT_NONE;
	row.checkpoint_kind = checkpoint_kind(&delta);

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	/* a reset since the last tick: this second is void, start over */
	if (notice_reset(now))
	{
		LWLockRelease(ws_shared->lock);
		return;
	}
	ongoing_ns = ongoing_fsync_max_ns(ws_shared->nslots);
	row.wal_fsync_max_ms = Max(second.fsync_max_ns, ongoing_ns) / WS_NS_PER_MS;
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

	/*
	 * How often the ring, not a lock mode, decided the cause of a wait: a
	 * diagnostic for those who check the classification, not a figure the
	 * views show.
	 */
	/* the adaptive period looks at the episodes of the last second or two */
	for (int c = 0; c < WS_NUM_CLASSES; c++)
		ws_period_forget_half(&class_lengths[c]);

	if (waits > 0)
		ereport(DEBUG1,
				(errmsg_internal("wal_stall figures since the reset: %lld WAL write-path waits of clients, %lld of them began in WAL I/O; %.1f ms of their time classified by the ring's fill",
								 (long long) waits, (long long) waits_io_first,
								 ring_rule_ms)));

	start_second(now, &counters);
}

/*
 * ws_reset_locked
 *		Zero everything accumulated since the last reset, with the core
 *		counters read just before as the new baseline.  The caller holds our
 *		lock exclusively.  Episodes in progress start over from now.
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
	 * the first second after the reset, from its own track_wal_io_timing,
	 * which the caller's session may not share.
	 */
	timing_off_seen = ws_shared->figures.timing_off_seen;
	memset(&ws_shared->figures, 0, sizeof(ws_shared->figures));
	ws_shared->figures.timing_off_seen = timing_off_seen;
	ws_shared->history_next = 0;
	ws_shared->history_rows = 0;
	ws_shared->figures.reset_at = GetCurrentTimestamp();
	ws_shared->reset_count++;
	ws_shared->figures.hist_base_ns = ws_shared->interval_ns > 0 ?
		ws_shared->interval_ns : interval_ns_from_guc();
	ws_shared->figures.baseline = *baseline;
	ws_shared->figures.baseline_valid = true;
}

/*
 * collector_start
 *		Announce ourselves in shared memory.  Figures gathered by an earlier
 *		collector of this server stay; its half-followed episodes are dropped.
 */
static void
collector_start(uint64 now)
{
	WalStallCounters counters;

	nscanned = Min(ws_shared->nslots, (int) ProcGlobal->allProcCount);
	samples = MemoryContextAllocZero(TopMemoryContext, sizeof(ProcSample) * nscanned);
	wait_infos = MemoryContextAllocZero(TopMemoryContext, sizeof(uint32) * nscanned);
	/* every shared slot is zeroed below: nothing open, nothing published */
	slot_state = MemoryContextAllocZero(TopMemoryContext, sizeof(SlotState) * nscanned);
	for (int i = 0; i < nscanned; i++)
		slot_state[i].pool = slot_pool(&ProcGlobal->allProcs[i]);
	ws_classify_init();
	writer_sleep_event = ws_walwriter_sleep_event();
	ws_read_counters(&counters, WS_COLLECTOR_READS_STATS);
	start_second(now, &counters);

	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	ws_shared->collector_pid = MyProcPid;
	ws_shared->started_at = GetCurrentTimestamp();
	ws_shared->interval_ns = interval_ns_from_guc();
	ws_shared->ticks = 0;
	ws_shared->tick_cost_ns = 0;
	ws_shared->max_tick_cost_ns = 0;
	ws_shared->overruns = 0;
	ws_shared->unobserved_ns = 0;
	ws_shared->rest_ns = 0;
	ws_shared->current_interval_ns = ws_shared->interval_ns;
	for (int i = 0; i < ws_shared->nslots; i++)
		memset(&ws_slots[i], 0, sizeof(WalStallProcSlot));
	if (!ws_shared->figures.baseline_valid)
	{
		ws_shared->figures.hist_base_ns = ws_shared->interval_ns;
		ws_shared->figures.baseline = counters;
		ws_shared->figures.baseline_valid = true;
	}
	if (!track_wal_io_timing)
		ws_shared->figures.timing_off_seen = true;
	seen_reset_count = ws_shared->reset_count;
	LWLockRelease(ws_shared->lock);
}

/* On exit, stop announcing our pid.  Takes our lock. */
static void
collector_exit(int code pg_attribute_unused(), Datum arg pg_attribute_unused())
{
	if (ws_shared == NULL)
		return;
	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	if (ws_shared->collector_pid == MyProcPid)
		ws_shared->collector_pid = 0;
	LWLockRelease(ws_shared->lock);
}

/* Apply a configuration reload; publish the new interval.  Takes our lock. */
static void
reload_config(void)
{
	ConfigReloadPending = false;
	ProcessConfigFile(PGC_SIGHUP);
	LWLockAcquire(ws_shared->lock, LW_EXCLUSIVE);
	ws_shared->interval_ns = interval_ns_from_guc();
	LWLockRelease(ws_shared->lock);
}

/*
 * sleep_until
 *		Sleep until the monotonic clock reaches deadline, in one wake-up: a
 *		rest on the latch, a sampling period on the timer.
 *
 * Each wake-up is what a sleeping sampler pays for (on this kind of
 * virtual machine 20-70 us of CPU, more the rarer they are), so a sleep is
 * one wait, never a latch wait followed by a timer for the remainder: that
 * pair made every period longer than 1 ms cost two wake-ups, and the
 * adaptive period, which halved the ticks under 50 tpcb-like clients,
 * saved no CPU at all.
 *
 * A rest (resting) waits on the latch with WL_EXIT_ON_PM_DEATH: rests are
 * where the collector spends an idle server's time, a signal (SIGTERM,
 * SIGHUP) sets the latch and ends it, and the postmaster's death ends the
 * process.  WaitLatch counts in whole milliseconds, so the rest is rounded
 * up to one: it ends up to a millisecond late, which the next sample's
 * weight (the real time since the previous tick) accounts for.
 *
 * A sampling period, 1 ms or the longer one the adaptive period chose, is
 * an absolute clock_nanosleep, which keeps the ticks on their deadlines;
 * a signal cuts it short, and the loop looks at the flags and checks the
 * postmaster every tick (PostmasterIsAlive(), on Linux a flag set by a
 * signal).
 */
static void
sleep_until(uint64 deadline, bool resting)
{
	struct timespec ts;

	if (resting)
	{
		uint64		now = now_ns();

		if (deadline > now &&
			WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					  (long) ((deadline - now + NS_PER_MSEC - 1) / NS_PER_MSEC),
					  PG_WAIT_EXTENSION) & WL_LATCH_SET)
			ResetLatch(MyLatch);	/* tick now; the loop then looks at the flags */
		return;
	}
	ts.tv_sec = deadline / NS_PER_SEC;
	ts.tv_nsec = deadline % NS_PER_SEC;
	pgstat_report_wait_start(PG_WAIT_EXTENSION);
	(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	pgstat_report_wait_end();
}

/*
 * next_interval
 *		The interval to sleep before the next tick, from what the tick at
 *		now saw: the base period within a thin cycle's burst; else a rest
 *		when ws_choose_interval() gives one (the period drops back to base
 *		then: a wait seen after a rest is sampled at full rate first), else
 *		the sampling period ws_choose_thin_period() allows in a thin cycle,
 *		ws_choose_period() in any other.  Sets period_ns and *resting.
 */
static uint64
next_interval(uint64 now, uint64 interval, uint64 base, uint64 idle,
			  uint64 max_period, int *quiet_ticks, bool *resting)
{
	uint64		rest;

	rest = ws_choose_interval(*resting ? interval : base, base, idle,
							  &seen, &load_seen, quiet_ticks);
	*resting = rest > base && !ws_in_burst(&bursts, now);
	if (*resting)
	{
		period_ns = base;
		return rest;
	}
	if (ws_in_burst(&bursts, now))
		period_ns = base;
	/* the stall classes, what clients wait on, decide (cadence.h) */
	else if (bursts.thin)
		period_ns = ws_choose_thin_period(period_ns, base, max_period,
										  class_lengths, WS_NUM_STALL_CLASSES);
	else
		period_ns = ws_choose_period(period_ns, base, max_period,
									 class_lengths, WS_NUM_STALL_CLASSES);
	return period_ns;
}

/*
 * Start the cycles of bursts again: at start, and after a reset, which
 * drops the episodes a cycle counted so far with the rest.  (A reload
 * does not: wal_stall.episode_sampling and sample_interval shape the
 * cycles that begin after it.)
 */
static void
restart_bursts(void)
{
	memset(&bursts, 0, sizeof(bursts));
	memset(burst_counted, 0, sizeof(burst_counted));
	memset(pending_var, 0, sizeof(pending_var));
	for (int c = 0; c < WS_NUM_CLASSES; c++)
		last_burst_counted[c] = -1;
	cycle_saw_wait = false;
	thin_next = false;
}

/*
 * A cycle began.  The one before the last (dropped) is complete: no
 * interval to come reaches back into it, so its burst's counts are final
 * and its variance is taken.  The last cycle's counts become the ones
 * before.
 */
static void
cycle_began(const WalStallCycle *dropped)
{
	for (int c = 0; c < WS_NUM_CLASSES; c++)
		pending_var[c] += ws_burst_variance(dropped->weight,
											burst_counted[WS_COUNT_BEFORE][c],
											&last_burst_counted[c]);
	memcpy(burst_counted[WS_COUNT_BEFORE], burst_counted[WS_COUNT_CURRENT],
		   sizeof(burst_counted[WS_COUNT_BEFORE]));
	memset(burst_counted[WS_COUNT_CURRENT], 0, sizeof(burst_counted[WS_COUNT_CURRENT]));
	cycle_saw_wait = false;
}

/*
 * wal_stall_collector_main
 *		The collector's loop: sleep to the next deadline, tick, and close a
 *		history row every second.  Deadlines advance by the interval, so a
 *		late tick does not shift the ones after it; more than an interval
 *		behind, the schedule restarts from now and the tick counts as an
 *		overrun.  The interval is the sampling period, between
 *		wal_stall.sample_interval and wal_stall.max_sample_interval as the
 *		episodes followed allow (ws_choose_period()), stretched up to
 *		wal_stall.idle_interval while nothing can stall, and up to ten
 *		sample intervals under load while nothing can stall either
 *		(ws_choose_interval()); see cadence.h.
 */
void
wal_stall_collector_main(Datum main_arg pg_attribute_unused())
{
	uint64		base;			/* wal_stall.sample_interval */
	uint64		idle;			/* wal_stall.idle_interval */
	uint64		max_period;		/* wal_stall.max_sample_interval */
	uint64		interval;		/* the one being slept */
	bool		resting = false;	/* interval is a rest, not the period */
	int			quiet_ticks = 0;
	uint64		prev;
	uint64		deadline;
	uint64		next_second;
	uint64		last_cost = 0;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	if (ws_shared == NULL)
		elog(ERROR, "wal_stall shared memory is not initialized");

	before_shmem_exit(collector_exit, (Datum) 0);
	prev = now_ns();
	collector_start(prev);

	base = interval = period_ns = ws_shared->interval_ns;
	idle = idle_ns_from_guc();
	max_period = max_period_ns_from_guc();
	forget_class_lengths();
	restart_bursts();
	count_rng = ((uint64) MyProcPid << 32) ^ prev ^ UINT64CONST(0x9E3779B97F4A7C15);
	if (count_rng == 0)
		count_rng = 1;
	/* the ring's size follows wal_buffers, fixed at server start */
	load_seen.ring_bytes = ws_ring_bytes();
	deadline = prev + interval;
	next_second = prev + NS_PER_SEC;

	for (;;)
	{
		uint64		now;
		uint64		weight;
		WalStallCountRule count_rule;
		WalStallCycle dropped;
		bool		late;
		bool		rested;

		CHECK_FOR_INTERRUPTS();
		if (!PostmasterIsAlive())
			proc_exit(1);
		if (ConfigReloadPending)
		{
			reload_config();
			if (ws_shared->interval_ns != base)
				forget_class_lengths();
			base = interval = period_ns = ws_shared->interval_ns;
			idle = idle_ns_from_guc();
			max_period = max_period_ns_from_guc();
			quiet_ticks = 0;
			resting = false;
			deadline = now_ns() + interval;
		}

		sleep_until(deadline, resting);
		now = now_ns();

		/* more than a whole interval behind: count it, and catch up */
		late = now > deadline + interval;
		rested = resting;
		weight = Min(now - prev, WS_MAX_SAMPLE_WEIGHT * interval);
		/*
		 * A cycle that ended gives way to the next, decided from the ticks
		 * before this one; then the interval (prev, now] is counted by the
		 * cycles it lies in.
		 */
		dropped = bursts.before;
		if (ws_next_cycle(&bursts, now, base, ws_episode_sampling, thin_next,
						  &count_rng))
			cycle_began(&dropped);
		ws_begin_burst(&bursts, now);
		count_rule = ws_count_rule(&bursts, prev, now);
		if (collector_tick(now, weight, now - prev - weight, late, rested,
						   interval, period_ns, &count_rule, last_cost))
		{
			/* the row after a reset covers what happened from the reset on */
			next_second = now + NS_PER_SEC;
			(void) checkpoint_in_second();
			restart_bursts();
		}
		prev = now;

		/* bursts only where there are waits to count (cadence.h) */
		cycle_saw_wait |= seen.tracked_wait || seen.episode_open;
		thin_next = cycle_saw_wait &&
			ws_bursts_help(class_lengths, WS_NUM_STALL_CLASSES, base, max_period);
		interval = next_interval(now, interval, base, idle, max_period,
								 &quiet_ticks, &resting);
		deadline = ws_burst_deadline(&bursts, now,
									 late ? now + interval : deadline + interval,
									 thin_next);
		last_cost = now_ns() - now;

		/*
		 * A row closes every second.  After a gap (the collector stopped or
		 * starved) the row that closes covers all of it and says so in its
		 * length, rather than being dressed as one more second.
		 */
		if (now >= next_second)
		{
			close_second(now);
			next_second += NS_PER_SEC;
			if (next_second <= now)
				next_second = now + NS_PER_SEC;
		}
	}
}
